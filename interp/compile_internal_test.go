package interp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// TestCompiledForms: each statement of testutil.CompiledProgram (the
// init's and the server's) gets the form meant for its expression — the
// branch, hold, fork and join none, their bodies being blocks of their own
// — so that the differential test of the program (TestFastPathCompiled)
// covers every form.
func TestCompiledForms(t *testing.T) {
	p, err := lang.LoadSource("forms.sq", []byte(testutil.CompiledProgram), lang.Options{Lib: lib.FS})
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
	if d := cmp.Diff([]xform{xNow, xAttr, xNowSubAttr, xNowSubAttrAttr, xBin, xBin2, xBin2, xAttr, xNow, xNum, xGeneric,
		xGeneric, xGeneric, xGeneric, xGeneric}, forms(s.cprog.server)); d != "" {
		t.Errorf("server forms (-want +got):\n%s", d)
	}
	if ref, _ := New(p, Options{Horizon: 1, NoFastPath: true}); ref.cprog.blocks != nil || ref.cprog.server != nil {
		t.Error("the reference path compiled the program")
	}
}
