package interp

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// WhyDump writes a why-chain's steps one a line, indented by depth, each
// as its String.
func WhyDump(steps []WhyStep) string {
	var b strings.Builder
	for _, st := range steps {
		b.WriteString(strings.Repeat("  ", st.Depth) + st.String() + "\n")
	}
	return b.String()
}

// String is the step as data, not words: its kind, then every field it
// sets, name=value ("head who=s24t2 pool=D.kv[0] blocking units=2496 …"),
// for tests and for reading a chain while debugging the debugger.
func (st WhyStep) String() string {
	var b strings.Builder
	b.WriteString(st.Kind.String())
	v := reflect.ValueOf(st)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		f := v.Field(i)
		if name == "Depth" || name == "Kind" || f.IsZero() {
			continue
		}
		b.WriteString(" " + strings.ToLower(name))
		switch x := f.Interface().(type) {
		case bool:
			continue
		case float64:
			if math.IsInf(x, 1) {
				b.WriteString("=inf")
			} else {
				fmt.Fprintf(&b, "=%.6g", x)
			}
		case SessionRef:
			b.WriteString("=" + refText(x))
		case []SessionRef:
			var rs []string
			for _, r := range x {
				rs = append(rs, refText(r))
			}
			b.WriteString("=" + strings.Join(rs, ","))
		case []string:
			b.WriteString("=" + strings.Join(x, ","))
		default:
			fmt.Fprintf(&b, "=%v", x)
		}
	}
	return b.String()
}

func refText(r SessionRef) string {
	s := fmt.Sprintf("s%dt%d", r.Serial, r.Turn)
	if r.Leg != 0 {
		s += fmt.Sprintf("l%d", r.Leg)
	}
	return s
}
