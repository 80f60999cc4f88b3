package interp_test

import (
	"strings"
	"testing"
)

// zeros is n keys of 0, written "0, 0, …, " to go before a deciding key.
func zeros(n int) string { return strings.Repeat("0, ", n) }

// TestKeyTuplesHaveNoLimit checks every pick by a key tuple where only a
// ninth (or later) key decides: the picks used to compare eight keys and
// take the first candidate.
func TestKeyTuplesHaveNoLimit(t *testing.T) {
	for _, n := range []int{8, 9, 20} {
		// choose: j = 1 has the least last key
		obs := observations(t, mainProgram(`
  stage d : delay;
  workload { arrive batch(1); }
  server { choose j in (3) by (`+zeros(n)+`j == 1 ? 0 : 1); observe picked = j; run d (cost(d, 1)); }`), 10)
		wantSamples(t, obs, "picked", []float64{1}, "choose by the last key")

		// queue by: the four sessions queue at t = 0 and the last key
		// admits them 3, 2, 1, 0
		obs = observations(t, mainProgram(`
  pool kv { cap 1; queue by (`+zeros(n)+`-serial); }
  stage d : delay;
  workload { arrive batch(4); }
  server { hold kv (cost(kv, 1)) { observe order = serial; run d (cost(d, 1)); } }`), 10)
		wantSamples(t, obs, "order", []float64{3, 2, 1, 0}, "queue by the last key")

		// evict by: two cached entries of 8; session 2 needs 10 of the 4
		// free and the last key takes the 6 from session 1's entry (under
		// lru session 0's, released first, would lose them)
		obs = observations(t, mainProgram(`
  pool kv { cap 20; evict by (`+zeros(n)+`serial == 1 ? 0 : 1); }
  stage d : delay;
  workload { arrive batch(3); }
  server {
    branch (serial < 2) {
      run d (cost(d, serial));
      hold kv (cost(kv, 8)) { run d (cost(d, 1)); } cache (cost(kv, 8));
      run d (cost(d, 10));
      hold kv (cost(kv, 8)) { observe hit = cached; run d (cost(d, 1)); } cache (cost(kv, 8));
    } else {
      run d (cost(d, 5));
      hold kv (cost(kv, 10)) { run d (cost(d, 1)); }
    }
  }`), 100)
		wantSamples(t, obs, "hit", []float64{8, 2}, "evict by the last key")

		// preempt by: two holders, the growth preempts the one whose last
		// key is least (session 1; lifo would take session 2)
		obs = observations(t, mainProgram(`
  pool kv { cap 10; preempt by (`+zeros(n)+`serial == 1 ? 0 : 1); }
  stage d : delay;
  workload { arrive batch(3); }
  server {
    run d (cost(d, serial));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) { run d (cost(d, 3)); grow kv (cost(kv, 4)); run d (cost(d, 1)); }
    } else {
      hold kv (cost(kv, 4)) { observe admitted = serial; run d (cost(d, 10)); }
    }
  }`), 100)
		wantSamples(t, obs, "admitted", []float64{1, 2, 1}, "preempt by the last key")
	}
}
