package lang

import "strings"

// Cost types: a `cost(…)` expression is typed by the resources it is a
// cost of, so a cost is spent only where it was made for.

// typ is an expression's cost type: nil for a plain number, else the
// sorted resource families it is a cost of.
type typ []string

func (t typ) isCost() bool { return t != nil }

func (t typ) String() string {
	if t == nil {
		return "a bare number"
	}
	names := make([]string, len(t))
	for i, k := range t {
		names[i] = k[2:]
	}
	return "cost(" + strings.Join(names, ", ") + ")"
}

// badTyp is the type of a `cost(…)` whose resources did not resolve: it
// matches every type, so one wrong name is reported once.
var badTyp = typ{"?:?"}

func (t typ) bad() bool { return len(t) == 1 && t[0] == badTyp[0] }

func sameTyp(a, b typ) bool {
	if a.bad() || b.bad() {
		return true
	}
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
