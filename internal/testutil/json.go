package testutil

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// JSON encodes any value — a report, say — with every exported field,
// writing the non-finite floats encoding/json refuses as the strings
// "NaN", "+Inf" and "-Inf" (so they still compare) and an error as its
// message. Two values are the same result when their JSON is.
func JSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(plain(reflect.ValueOf(v)))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func plain(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if e, ok := v.Interface().(error); ok {
			return e.Error()
		}
		return plain(v.Elem())
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				m[v.Type().Field(i).Name] = plain(v.Field(i))
			}
		}
		return m
	case reflect.Slice, reflect.Array:
		s := make([]any, v.Len())
		for i := range s {
			s[i] = plain(v.Index(i))
		}
		return s
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "+Inf"
		case math.IsInf(f, -1):
			return "-Inf"
		}
		return f
	}
	return v.Interface()
}

// IRWithoutPositions is the IR JSON of v (a lowered program) with every
// "pos" removed, for comparing two programs that differ only in layout.
func IRWithoutPositions(tb testing.TB, v any) any {
	tb.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("the IR does not marshal: %v", err)
	}
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		tb.Fatal(err)
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "pos")
			for _, y := range x {
				strip(y)
			}
		case []any:
			for _, y := range x {
				strip(y)
			}
		}
	}
	strip(x)
	return x
}
