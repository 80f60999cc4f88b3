package interp

import (
	"reflect"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

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
	kept := map[string]bool{"attrs": true, "frames": true, "holds": true, "leases": true, "cache": true, "expired": true, "stream": true, "turnStream": true}
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
