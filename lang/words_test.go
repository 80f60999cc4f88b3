package lang

import (
	"slices"
	"testing"

	"github.com/serq/serq/lang/syntax"
)

// TestWords checks the derived word lists against words every program
// uses, and that each list is sorted without repeats.
func TestWords(t *testing.T) {
	kw, bi := syntax.Keywords(), Builtins()
	for _, w := range []string{"fn", "main", "hold", "reserve", "cache", "lease", "engine", "schedule", "advance",
		"exclusive", "pull", "push", "claim", "Size", "Cost", "turn", "workload"} {
		if !slices.Contains(kw, w) {
			t.Errorf("Keywords() has no %q", w)
		}
	}
	for _, w := range []string{"min", "uniform", "cachedin", "budget_left", "blocksize", "cost", "inf", "now",
		"running.count", "batch.tokens", "prefix_total", "turn_no"} {
		if !slices.Contains(bi, w) {
			t.Errorf("Builtins() has no %q", w)
		}
	}
	for _, l := range [][]string{kw, bi} {
		if !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
			t.Errorf("%q is not sorted and unique", l)
		}
	}
	// Every keyword the lowerer reserves is one of the grammar's, except
	// the retired engine and statement words that only its messages know.
	for _, w := range keywords {
		if !slices.Contains(kw, w) && !slices.Contains([]string{"cost", "enter", "keep", "memory", "request", "budget", "chunk"}, w) {
			t.Errorf("reserved keyword %q is not in the grammar", w)
		}
	}
}
