package lang

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadInstance(t *testing.T) {
	dir := t.TempDir()
	write := func(src string) string {
		p := filepath.Join(dir, "i.sq")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("// the default instance\nlet Lambda = 1.2;\nlet blocksD = 600 * 2;\nrun { horizon 2000; warmup 200; seed 3; }\n")
	in, err := ReadInstance(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Sets) != 2 || in.Sets[0] != (Override{"Lambda", "1.2"}) || in.Sets[1] != (Override{"blocksD", "600 * 2"}) {
		t.Errorf("Sets = %v", in.Sets)
	}
	if in.Horizon == nil || *in.Horizon != 2000 || *in.Warmup != 200 || *in.Seed != 3 || in.Arrivals != nil {
		t.Errorf("settings = %v %v %v %v", in.Horizon, in.Warmup, in.Seed, in.Arrivals)
	}
	for _, tc := range []struct{ src, want string }{
		{"pool kv { cap 1; }\n", p + ":1:1: an instance file holds only `let NAME = expr;` entries and one `run { horizon …; warmup …; seed …; arrivals …; }`"},
		{"run { horizon 1; }\nrun { seed 2; }\n", p + ":2:1: a second `run { … }`: an instance holds at most one"},
		{"run { span 1; }\n", p + ":1:7: `span` is no run setting: they are horizon, warmup, seed and arrivals"},
		{"let a = 1;\nlet a = 2;\n", p + ":2:1: `let a` is given twice"},
		// The flags' ranges, said at the value (a run once blamed a
		// --seed the user never typed).
		{"run { seed 1.5; }\n", p + ":1:12: `seed` must be a whole number ≥ 0, not 1.5"},
		{"run { seed -1; }\n", p + ":1:12: `seed` must be a whole number ≥ 0, not -1"},
		{"run { horizon 0; }\n", p + ":1:15: `horizon` must be a finite positive number, not 0"},
		{"run { horizon inf; }\n", p + ":1:15: `horizon` must be a finite positive number, not inf"},
		{"run { warmup -2; }\n", p + ":1:14: `warmup` must be a finite number ≥ 0, not -2"},
		{"run { arrivals 0; }\n", p + ":1:16: `arrivals` must be a whole number ≥ 1, not 0"},
		{"run { arrivals 2.5; }\n", p + ":1:16: `arrivals` must be a whole number ≥ 1, not 2.5"},
	} {
		write(tc.src)
		_, err := ReadInstance(p, nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ReadInstance(%q) = %v, want %s", tc.src, err, tc.want)
		}
	}
}
