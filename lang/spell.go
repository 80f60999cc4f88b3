package lang

import "sort"

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

// didYouMean suggests the closest name, if one is close enough.
func didYouMean(name string, candidates []string) string {
	best, bestD := "", 3
	if len(name) <= 3 {
		bestD = 2
	}
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := levenshtein(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
