package interp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// TestCompiledForms: each statement of the compiled-forms program
// (compile_test.go's, here the server's and the init's) gets the form
// meant for its expression, so that the differential test of the
// program covers every form.
func TestCompiledForms(t *testing.T) {
	src := `fn main() {
  stage s : fifo;
  workload { arrive poisson(1); init { set t0 = now; set a = ~exp(0.5); set b = ~exp(a); set c = a * b + 1; set k = 2; } }
  server {
    run s (cost(s, a));
    observe wait = now - t0;
    observe less = now - t0 - a;
    observe ratio = a / b;
    observe mix = (a - b) * c;
    observe fma = a * b + c;
    observe clock = now;
    observe sq = sqrt(a);
  }
}
`
	p, err := lang.LoadSource("forms.sq", []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p, Options{Horizon: 1})
	if err != nil {
		t.Fatal(err)
	}
	forms := func(cb *cblock) []xform {
		var out []xform
		for _, cs := range cb.stmts {
			out = append(out, cs.val.form)
		}
		return out
	}
	if d := cmp.Diff([]xform{xNow, xExpNum, xExp, xBin2, xNum}, forms(s.cprog.init)); d != "" {
		t.Errorf("init forms (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]xform{xAttr, xNowSubAttr, xNowSubAttrAttr, xBin, xBin2, xBin2, xNow, xGeneric}, forms(s.cprog.server)); d != "" {
		t.Errorf("server forms (-want +got):\n%s", d)
	}
	if ref, _ := New(p, Options{Horizon: 1, NoFastPath: true}); ref.cprog != nil {
		t.Error("the reference path compiled the program")
	}
}
