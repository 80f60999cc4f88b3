package lang

import (
	"slices"

	"github.com/serq/serq/model"
)

// Builtins returns the names the language predefines, sorted: the pure
// functions, the distributions (written after `~`), the stage and pool
// observables, `cost`, `budget_left` and `blocksize`, the observation
// aggregates of claims, the context variables (`running.count` and the
// like are dotted), the built-in attributes (those of a trace included),
// and `inf` and `self`.
func Builtins() []string {
	var out []string
	for _, b := range model.Predeclared {
		if !b.Debugger() {
			out = append(out, b.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
