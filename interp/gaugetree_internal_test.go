package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGaugeForestShares: the seed's four gauges at 4/4 are one forest of
// 54 nodes, where each gauge's own tree would make 94. A decoder's used,
// free, holders and queued are one leaf each, read by every gauge that
// names them: D[0].kv's four leaves feed kv_usage_max, kv_usage_mean and
// load_spread; each decoder's KV usage is one node, the max's and the
// sum's operand; the operands of each spread's max and min are theirs
// both. The run's report is the per-gauge trees' (the goldens and the
// differential tests).
func TestGaugeForestShares(t *testing.T) {
	p := loadSeedText(t, seedPath, "let NP = 2;", "let NP = 4;", "let ND = 2;", "let ND = 4;")
	s, err := New(p, Options{Horizon: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for s.Step() {
	}
	f := &s.gaugeForest
	kv := -1
	for i := range s.pools {
		if s.pools[i].m.Label == "D.kv[0]" {
			kv = i
		}
	}
	if kv < 0 {
		t.Fatal("no pool D.kv[0]")
	}
	shared := 0
	for i := range f.nodes {
		if f.nodes[i].more >= 0 {
			shared++
		}
	}
	if len(f.nodes) != 54 || len(s.poolLeaves[kv]) != 4 || !slices.Equal(s.poolGauges[kv], []int32{1, 2, 3}) || shared == 0 {
		t.Fatalf("%d nodes (want 54); D.kv[0]: %d leaves (want 4), read by the gauges %v (want [1 2 3]); %d nodes with more than one parent",
			len(f.nodes), len(s.poolLeaves[kv]), s.poolGauges[kv], shared)
	}
	if !f.stale.empty() {
		t.Fatal("the forest holds stale nodes after the run's last instant")
	}
}

// TestGaugeForestRandomStates: on random states of the decoders' pools
// (used, holders and queue lengths from a few values, so that members tie
// and a pool left empty and unheld reads 0/0), each changed pool's leaves
// marked as an instant's end marks them, every gauge of the forest reads
// what its expression evaluates to, bit for bit, and no node is left
// stale.
func TestGaugeForestRandomStates(t *testing.T) {
	p := loadSeedText(t, seedPath, "let NP = 2;", "let NP = 3;", "let ND = 2;", "let ND = 5;")
	s, err := New(p, Options{Horizon: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.initGauges()
	var pools []int
	for i := range s.pools {
		if len(s.poolGauges[i]) > 0 {
			pools = append(pools, i)
		}
	}
	if len(pools) != 10 {
		t.Fatalf("%d pools read by the gauges, want the decoders' 10", len(pools))
	}
	r := rand.New(rand.NewPCG(5, 6))
	used := []float64{0, 1, 2, 16, 160000}
	for round := range 3000 {
		for k := r.IntN(3); k >= 0; k-- {
			i := pools[r.IntN(len(pools))]
			pl := &s.pools[i]
			pl.used = used[r.IntN(len(used))]
			pl.holders = r.IntN(3)
			pl.queue = make([]*holdInst, r.IntN(2))
			s.gaugePoolChanged(i)
		}
		s.readForest()
		for g := range s.p.Gauges {
			if s.gaugeKind[g] != gaugeOfPools {
				t.Fatalf("gauge %d is not kept in the forest", g)
			}
			got, want := s.gaugeForest.value(g), s.eval(s.p.Gauges[g].Expr, nil)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round %d, gauge %s: the forest reads %v, the expression %v", round, s.p.Gauges[g].Name, got, want)
			}
		}
		if !s.gaugeForest.stale.empty() {
			t.Fatalf("round %d: stale nodes left", round)
		}
	}
}
