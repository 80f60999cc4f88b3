package interp

import (
	"reflect"
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

// TestNewSessionClears: a session taken from the free list is a fresh
// one whatever its last use left in it, but for what newSession keeps
// (the streams, the attributes' and the slices' arrays, emptied) and the
// generation it bumps. Every field is set first, so a field added to
// session that newSession does not clear fails here.
func TestNewSessionClears(t *testing.T) {
	p, err := lang.LoadSource("s.sq", []byte("fn main() {\n  stage s : fifo;\n  workload { arrive poisson(1); init { set a = 1; } }\n  server { run s (cost(s, a)); }\n}\n"), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p, Options{Horizon: 1})
	if err != nil {
		t.Fatal(err)
	}
	old := s.newSession()
	fill(reflect.ValueOf(old).Elem())
	old.attrs = []float64{1, 2}
	gen := old.gen
	s.free = append(s.free, old)
	ss := s.newSession()
	if ss != old || ss.gen != gen+1 || ss.job.stage != -1 || ss.job.flow != -1 {
		t.Fatalf("reused %v, gen %d (was %d), job %+v", ss == old, ss.gen, gen, ss.job)
	}
	kept := map[string]bool{"attrs": true, "frames": true, "holds": true, "leases": true, "cache": true, "stream": true, "turnStream": true}
	v := reflect.ValueOf(ss).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		f := v.Field(i)
		switch {
		case name == "sessionVals":
			want := sessionVals{gen: gen + 1}
			want.job.stage, want.job.flow = -1, -1
			if ss.sessionVals != want {
				t.Errorf("sessionVals %+v, want %+v", ss.sessionVals, want)
			}
		case kept[name] && f.Kind() == reflect.Slice:
			if f.Len() != 0 && name != "attrs" {
				t.Errorf("%s has %d elements", name, f.Len())
			}
		case kept[name]:
			if f.IsNil() {
				t.Errorf("%s was not kept", name)
			}
		case !f.IsZero():
			t.Errorf("%s is not cleared", name)
		}
	}
	if ss.attrs[0] != 0 || ss.attrs[1] != 0 {
		t.Errorf("attrs %v", ss.attrs)
	}
}

// fill sets every field of v (a struct) to a value other than zero.
func fill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem() // unexported fields too
		switch f.Kind() {
		case reflect.Struct:
			fill(f)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(3)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(3)
		case reflect.Float32, reflect.Float64:
			f.SetFloat(3)
		}
	}
}
