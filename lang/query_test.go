package lang_test

import (
	"fmt"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// TestCompileQuery: debugger expressions over the seed program, the ones it
// accepts (with the observable they lower to) and the errors, exactly.
func TestCompileQuery(t *testing.T) {
	p, err := lang.Load("../examples/pd-disaggregation/llmd_nixl_pull.sq", lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	attrs, fams := len(p.Attrs), len(p.StageFams)
	ok := map[string]string{
		"used(D[0].kv) > 2000":          ">",
		"queued(D[1].kv)":               "pool",
		"max k in ND (queued(D[k].kv))": "func",
		"oldest_lease(P[1].kv)":         "pool",
		"leases(P[0].kv) + 1":           "+",
		"now > 3":                       ">",
		"busy(P[0])":                    "stage",
		"NP * 2":                        "num",
	}
	for src, op := range ok {
		x, err := lang.CompileQuery(p, src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if x.Op.String() != op {
			t.Errorf("%s: lowered to %s, want %s", src, x.Op, op)
		}
	}
	bad := map[string]string{
		"~exp(1)":                       "<command>:1:1: a draw `~exp` in a debugger expression: a debugger expression watches the run, it does not draw",
		"prompt":                        "<command>:1:1: `prompt` is an attribute: a debugger expression may not read it",
		"usd(D[0].kv)":                  "<command>:1:1: undefined function `usd`\nhint: did you mean `used`?",
		"used(D[5].kv)":                 "<command>:1:8: index 5 of `D` is out of range: it has 2 members",
		"used(D.kv)":                    "<command>:1:6: `D` is a family of 2: write `D[i].kv`",
		"1 +":                           "<command>:1:4: unexpected end of file",
		"":                              "<command>:1:1: empty expression",
		"  ":                            "<command>:1:1: empty expression",
		"used(P[0].kv) + cost(P.kv, 3)": "<command>:1:15: `+` mixes a bare number and cost(P.kv): a cost and a bare number cannot mix",
		"used(P[0].kv)\n":               "<command>:1:14: a debugger expression is one line",
		"nonesuch > 1":                  "<command>:1:1: undefined: nonesuch",
	}
	for src, want := range bad {
		_, err := lang.CompileQuery(p, src)
		got := fmt.Sprint(err)
		if el, ok := err.(lang.ErrorList); ok && len(el) == 1 && el[0].Hint != "" {
			got += "\nhint: " + el[0].Hint
		}
		if err == nil || got != want {
			t.Errorf("%q: got %s, want %s", src, got, want)
		}
	}
	if len(p.Attrs) != attrs || len(p.StageFams) != fams {
		t.Errorf("compiling queries changed the program: %d attrs (was %d), %d stage families (was %d)", len(p.Attrs), attrs, len(p.StageFams), fams)
	}
	// The debugger's built-ins are not part of the language.
	_, err = lang.LoadSource("x.sq", []byte("fn main() {\n  pool kv { cap 10; }\n  gauge g = leases(kv);\n  workload { arrive poisson(1); }\n  server { hold kv (cost(kv, 1)) { } }\n}\n"), lang.Options{Lib: lib.FS})
	want := "x.sq:3:13: `leases` is a debugger built-in: it is read only in a break or watch expression of serq tui"
	if err == nil || err.Error() != want {
		t.Errorf("leases in a gauge: got %v, want %s", err, want)
	}
}
