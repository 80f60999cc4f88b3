package lang

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/serq/serq/lib"
)

// bindingsOf loads src (at file) and returns its bindings as
// "LINE:COL name -> kind NAME @ FILE:LINE:COL", by where they are used.
func bindingsOf(t *testing.T, file string, src []byte) map[string]string {
	t.Helper()
	got := map[string]string{}
	_, err := LoadSource(file, src, Options{Lib: lib.FS, Bindings: func(b Binding) {
		k := fmt.Sprintf("%d:%d", b.Use.Line, b.Use.Col)
		if _, dup := got[k]; dup {
			t.Errorf("two bindings at %s", k)
		}
		got[k] = fmt.Sprintf("%s %s @ %s (%d chars)", b.Kind, b.Name, b.Decl, b.UseEnd.Col-b.Use.Col)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBindingsShadowed checks that a def's parameter shadows the constant
// of its name inside the def and not outside it, and that an attribute
// (to where it is first set), a pool, a stage (in `run s` and in
// `cost(s, …)`) and a def are bound to where they are declared.
func TestBindingsShadowed(t *testing.T) {
	src := `let x = 4;
def twice(x) { 2 * x }
fn main() {
  pool kv { cap 100; }
  stage s : fifo(1);
  workload { arrive poisson(1); init { set n = twice(3) + x; } }
  server { hold kv (cost(kv, n)) { run s (cost(s, 1)); } }
}
`
	got := bindingsOf(t, "b.sq", []byte(src))
	for at, want := range map[string]string{
		"2:20": "parameter x @ b.sq:2:11 (1 chars)",
		"6:48": "def twice @ b.sq:2:5 (5 chars)",
		"6:59": "let x @ b.sq:1:5 (1 chars)",
		"7:17": "pool kv @ b.sq:4:3 (2 chars)",
		"7:26": "pool kv @ b.sq:4:3 (2 chars)",
		"7:30": "attribute n @ b.sq:6:44 (1 chars)",
		"7:40": "stage s @ b.sq:5:3 (1 chars)",
		"7:48": "stage s @ b.sq:5:3 (1 chars)",
	} {
		if got[at] != want {
			t.Errorf("at %s: %q, want %q", at, got[at], want)
		}
	}
}

// TestBindingsSeed checks the seed program's bindings of a queue member's
// pool (`D[j].kv`), its queue, an entry and the entry's parameter, an
// input, and a def of the library it uses.
func TestBindingsSeed(t *testing.T) {
	t.Chdir(repoRoot)
	src, err := os.ReadFile(seed)
	if err != nil {
		t.Fatal(err)
	}
	got := bindingsOf(t, seed, src)
	lines := strings.Split(string(src), "\n")
	// find is the position of w in the first line holding at, from at.
	find := func(at, w string) string {
		for i, l := range lines {
			if c := strings.Index(l, at); c >= 0 {
				c += strings.Index(l[c:], w)
				return fmt.Sprintf("%d:%d", i+1, c+1)
			}
		}
		t.Fatalf("the seed has no %q", at)
		return ""
	}
	declAt := func(at, w string) string { return seed + ":" + find(at, w) }
	for _, c := range []struct{ at, word, want string }{
		{"choose j in ND by (holders(D[j].kv)", "kv", "pool D.kv @ " + declAt("pool kv on D.gpu", "pool") + " (2 chars)"},
		{"choose j in ND by (holders(D[j].kv)", "D[j]", "queue D @ " + declAt("queue D[ND] : decode", "D") + " (1 chars)"},
		{"D[j].decode (prompt) from P[i];", "decode", "entry D.decode @ " + declAt("decode (prompt) from P {", "decode") + " (6 chars)"},
		{"run P prefill (cost(P, prompt - c))", "prompt", "parameter prompt @ " + declAt("prefill (prompt) {", "prompt") + " (6 chars)"},
		{"reusable(prompt, bs)", "reusable", "def reusable @ lib/vllm.sq:16:5 (8 chars)"},
	} {
		k := find(c.at, c.word)
		if g := got[k]; g != c.want {
			t.Errorf("%q in %q at %s: %q, want %q", c.word, c.at, k, g, c.want)
		}
	}
}
