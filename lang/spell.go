package lang

import (
	"sort"

	"github.com/serq/serq/internal/spell"
)

// Spelling suggestions for unknown names, in the error's Hint: "did you
// mean `x`?".

// visibleNames lists the names an expression in sc could have meant.
func (l *lowerer) visibleNames(sc *scope) []string {
	var names []string
	for k := range l.consts {
		names = append(names, k)
	}
	if sc.mom == momQuery {
		// a debugger expression reads no attribute, and reads the
		// program's gauges and observes by name
		for _, g := range l.prog.Gauges {
			names = append(names, g.Name)
		}
		for k := range l.observes {
			names = append(names, k)
		}
	} else {
		for k := range l.attrs {
			names = append(names, k)
		}
	}
	for v := sc.vars; v != nil; v = v.up {
		for k := range v.m {
			names = append(names, k)
		}
	}
	if sc.q != nil {
		for k := range sc.q.attrs {
			names = append(names, k)
		}
	}
	names = append(names, "now", "inf")
	sort.Strings(names)
	return names
}

// suggest sets e's Hint to the candidate nearest to name, if one is near
// enough (internal/spell): "did you mean `x`?". Without one e is left
// as it is.
func suggest(e *Error, name string, candidates []string) {
	if best := spell.Nearest(name, candidates); best != "" {
		e.Hint = "did you mean `" + best + "`?"
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
