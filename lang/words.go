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
	for _, m := range []map[string]model.Func{pureFuncs, stageFuncs, poolFuncs} {
		for k := range m {
			out = append(out, k)
		}
	}
	for k := range dists {
		out = append(out, k)
	}
	for k := range claimFuncs {
		out = append(out, k)
	}
	out = append(out, "cost", "budget_left", "blocksize", "up", "inf", "self",
		"serial", "turn_no", "cached", "computed", "more", "new", "out", "think", "forced")
	out = append(out, model.CtxNames[:]...)
	slices.Sort(out)
	return slices.Compact(out)
}
