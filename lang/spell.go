package lang

import (
	"sort"

	"github.com/serq/serq/internal/spell"
)

// Spelling suggestions for unknown names: "(did you mean …?)".

// visibleNames lists the names an expression in sc could have meant.
func (l *lowerer) visibleNames(sc *scope) []string {
	var names []string
	for k := range l.consts {
		names = append(names, k)
	}
	for k := range l.attrs {
		names = append(names, k)
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

// didYouMean suggests the closest name, if one is close enough
// (internal/spell).
func didYouMean(name string, candidates []string) string {
	best := spell.Nearest(name, candidates)
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
