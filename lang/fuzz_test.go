package lang

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lib"
)

// FuzzLoad feeds arbitrary text to the parser and the lowering: any input
// must give a program or errors, never a panic. The corpus starts from the
// example programs.
func FuzzLoad(f *testing.F) {
	for _, p := range testutil.Examples(f, "../examples") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// and from the reference's own tests, as the conformance suite ports them
	files, err := filepath.Glob("../conformance/testdata/*.sq")
	if err != nil || len(files) == 0 {
		f.Fatalf("no conformance programs to seed the corpus with (%v)", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, chunk := range strings.Split(string(b), "\n---\n") {
			f.Add([]byte(chunk))
		}
	}
	f.Add([]byte("fn main() { stage s : fifo; workload { arrive poisson(1); } server { run s (cost(s, ~exp(1))); } }"))
	f.Add([]byte(testutil.SpillProgram))
	f.Add([]byte(testutil.TraceProgram))
	for _, b := range testutil.HostileSeeds() {
		f.Add(b)
	}
	read := func(path string) ([]byte, error) {
		return fs.ReadFile(lib.FS, filepath.Base(path))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := LoadSource("fuzz/a/b.sq", src, Options{Lib: lib.FS, ReadFile: read})
		if err == nil && prog == nil {
			t.Fatal("no program and no error")
		}
		if err != nil && err.Error() == "" {
			t.Fatal("an empty error")
		}
	})
}

// TestHostileSeedsLoadOrStopAtALimit: each fuzz seed at a limit loads,
// and each past one fails with the limit's error alone.
func TestHostileSeedsLoadOrStopAtALimit(t *testing.T) {
	loads := 0
	for i, src := range testutil.HostileSeeds() {
		_, err := LoadSource("seed.sq", src, Options{})
		if err == nil {
			loads++
			continue
		}
		msg := ""
		if list, ok := err.(ErrorList); ok && len(list) == 1 {
			msg = list[0].Msg
		} else if one, ok := err.(*Error); ok {
			msg = one.Msg
		}
		if !strings.HasSuffix(msg, ", the limit") {
			t.Errorf("seed %d: %v, want one error at a limit", i, err)
		}
	}
	if loads != 9 {
		t.Errorf("%d seeds load, want 9 (each kind just inside its limit)", loads)
	}
}
