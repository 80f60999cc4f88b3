package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStatSelect holds statSelect to a sort on arrays of every size up to
// past the sampling threshold (600), many duplicates or none, sorted,
// reversed and random, at every rank of the small ones and at the ranks a
// p99, a median and the extremes ask of the large.
func TestStatSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(n int) []int64{
		"random": func(n int) []int64 {
			a := make([]int64, n)
			for i := range a {
				a[i] = r.Int64() - 1<<62
			}
			return a
		},
		"few values": func(n int) []int64 {
			a := make([]int64, n)
			for i := range a {
				a[i] = r.Int64N(5)
			}
			return a
		},
		"sorted": func(n int) []int64 {
			a := make([]int64, n)
			for i := range a {
				a[i] = int64(i)
			}
			return a
		},
		"reversed": func(n int) []int64 {
			a := make([]int64, n)
			for i := range a {
				a[i] = int64(n - i)
			}
			return a
		},
		"equal": func(n int) []int64 { return make([]int64, n) },
	}
	checks := 0
	for name, gen := range gens {
		for _, n := range []int{1, 2, 3, 7, 40, 601, 602, 1000, 5000, 70001} {
			base := gen(n)
			want := slices.Clone(base)
			slices.Sort(want)
			ranks := []int{0, n - 1, n / 2, int(statNearestRank(0.99, uint64(n))) - 1}
			if n <= 40 {
				ranks = ranks[:0]
				for k := range n {
					ranks = append(ranks, k)
				}
			}
			for _, k := range ranks {
				a := slices.Clone(base)
				if got := statSelect(a, k); got != want[k] {
					t.Fatalf("%s, n %d: statSelect(k=%d) = %d, want %d", name, n, k, got, want[k])
				}
				// the keys are reordered, not changed
				slices.Sort(a)
				if !slices.Equal(a, want) {
					t.Fatalf("%s, n %d, k %d: statSelect changed the keys", name, n, k)
				}
				checks++
			}
		}
	}
	if checks < 200 {
		t.Fatalf("%d checks", checks)
	}
}
