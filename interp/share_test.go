package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

const shareEps = 1e-12

func shareClose(a, b float64) bool { return math.Abs(a-b) <= shareEps }

// shareFlow is a flow of a test simulation: it starts at start holding
// stages and carries work.
type shareFlow struct {
	start  float64
	work   float64
	stages []int32
}

// shareSimulate runs flows over stages of capacity phi under rule and
// returns each flow's end time. It keeps its bookkeeping as the event loop
// would: lazy (remaining, last) pairs, a stage→flows list, and at every
// start or end it recomputes only the touched component through
// [shareSolver.component] and [shareSolver.solveComponent]. After every
// recompute it checks the rates against a solve of all active flows.
func shareSimulate(t *testing.T, rule shareRule, phi []float64, fl []shareFlow) []float64 {
	t.Helper()
	nF := len(fl)
	var sv, full shareSolver
	flowStages := make([][]int32, nF)
	stageFlows := make([][]int32, len(phi))
	rem := make([]float64, nF)
	last := make([]float64, nF)
	rate := make([]float64, nF)
	end := make([]float64, nF)
	started := make([]bool, nF)
	done := make([]bool, nF)

	recompute := func(now float64, touched []int32) {
		stages, flows := sv.component(touched, flowStages, stageFlows)
		for _, f := range flows {
			rem[f] -= rate[f] * (now - last[f])
			last[f] = now
		}
		sv.solveComponent(rule, phi, flowStages, stages, flows, rate)

		// Cross-check against the whole-program solve.
		var ids []int32
		var lists [][]int32
		for f := range nF {
			if len(flowStages[f]) > 0 {
				ids = append(ids, int32(f))
				lists = append(lists, flowStages[f])
			}
		}
		want := make([]float64, len(ids))
		full.solve(rule, phi, lists, want)
		for i, f := range ids {
			if rate[f] != want[i] {
				t.Fatalf("t=%v: component rate of f%d = %v, full solve %v", now, f, rate[f], want[i])
			}
		}
	}

	for {
		// Next event: the earliest start or finish; starts first on a tie.
		now, who, isStart := math.Inf(1), -1, false
		for f := range nF {
			if !started[f] && fl[f].start < now {
				now, who, isStart = fl[f].start, f, true
			}
		}
		for f := range nF {
			if started[f] && !done[f] {
				if tf := last[f] + rem[f]/rate[f]; tf < now {
					now, who, isStart = tf, f, false
				}
			}
		}
		if who < 0 {
			return end
		}
		if isStart {
			started[who] = true
			rem[who], last[who], rate[who] = fl[who].work, now, 0
			flowStages[who] = fl[who].stages
			for _, s := range fl[who].stages {
				stageFlows[s] = append(stageFlows[s], int32(who))
			}
			recompute(now, fl[who].stages)
			continue
		}
		done[who], end[who], rem[who] = true, now, 0
		touched := flowStages[who]
		flowStages[who] = nil
		for _, s := range touched {
			i := slices.Index(stageFlows[s], int32(who))
			stageFlows[s] = slices.Delete(stageFlows[s], i, i+1)
		}
		recompute(now, touched)
	}
}

func checkEnds(t *testing.T, rule shareRule, got, want []float64) {
	t.Helper()
	for f := range want {
		if !shareClose(got[f], want[f]) {
			t.Errorf("%v: f%d ends at %.17g, want %v", rule, f+1, got[f], want[f])
		}
	}
}

func checkRates(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for f := range want {
		if !shareClose(got[f], want[f]) {
			t.Errorf("%s: rate of f%d = %.17g, want %v", name, f+1, got[f], want[f])
		}
	}
}

// Max-min example (a) (docs/engine.md §2): two work-1 flows share an egress of φ=1, each with its
// own ingress of φ=1, both starting at t=1: 1/2 each, both end at 3.
func TestShareEgressExample(t *testing.T) {
	const egress, in1, in2 = 0, 1, 2
	phi := []float64{1, 1, 1}
	flows := [][]int32{{egress, in1}, {egress, in2}}
	for _, rule := range []shareRule{shareMaxMin, shareBottleneck} {
		var sv shareSolver
		rates := make([]float64, 2)
		sv.solve(rule, phi, flows, rates)
		checkRates(t, rule.String(), rates, []float64{0.5, 0.5})

		ends := shareSimulate(t, rule, phi, []shareFlow{
			{start: 1, work: 1, stages: flows[0]},
			{start: 1, work: 1, stages: flows[1]},
		})
		checkEnds(t, rule, ends, []float64{3, 3})
		t.Logf("%v: ends %v", rule, ends)
	}
}

// Max-min example (b): A (φ=1) carries f1, f2; B (φ=2) carries f1, f3; all
// work 1 from t=0.
func TestShareTwoStageExample(t *testing.T) {
	const A, B = 0, 1
	phi := []float64{1, 2}
	flows := [][]int32{{A, B}, {A}, {B}}
	sim := []shareFlow{
		{work: 1, stages: flows[0]},
		{work: 1, stages: flows[1]},
		{work: 1, stages: flows[2]},
	}
	var sv shareSolver
	rates := make([]float64, 3)

	// maxmin: A fills first at 1/2 for f1, f2; f3 takes the rest of B.
	sv.maxmin(phi, flows, rates)
	checkRates(t, "maxmin", rates, []float64{0.5, 0.5, 1.5})
	if want := []int32{A, B}; !slices.Equal(sv.picks, want) {
		t.Errorf("maxmin picks = %v, want %v", sv.picks, want)
	}
	// Once f3 has ended (t=2/3, f1 and f2 have 2/3 left), A still limits
	// f1 and f2 to 1/2: 2/3 + (2/3)/(1/2) = 2.
	sv.maxmin(phi, flows[:2], rates)
	checkRates(t, "maxmin after f3", rates, []float64{0.5, 0.5})
	ends := shareSimulate(t, shareMaxMin, phi, sim)
	checkEnds(t, shareMaxMin, ends, []float64{2, 2, 2.0 / 3})
	t.Logf("maxmin: ends %v", ends)

	// bottleneck: f1 = min(1/2, 2/2), f2 = 1/2, f3 = 2/2; B is left a
	// quarter idle.
	sv.bottleneck(phi, flows, rates)
	checkRates(t, "bottleneck", rates, []float64{0.5, 0.5, 1})
	sv.bottleneck(phi, flows[:2], rates)
	checkRates(t, "bottleneck after f3", rates, []float64{0.5, 0.5})
	ends = shareSimulate(t, shareBottleneck, phi, sim)
	checkEnds(t, shareBottleneck, ends, []float64{2, 2, 1})
	t.Logf("bottleneck: ends %v", ends)
}

// Equal shares go to the lower stage index first, whatever the flow order.
func TestShareMaxMinTies(t *testing.T) {
	tests := []struct {
		name  string
		phi   []float64
		flows [][]int32
		picks []int32
		rates []float64
	}{
		{
			name:  "equal from the start",
			phi:   []float64{1, 1},
			flows: [][]int32{{1}, {1}, {0}, {0}},
			picks: []int32{0, 1},
			rates: []float64{0.5, 0.5, 0.5, 0.5},
		},
		{
			name:  "higher index strictly smaller",
			phi:   []float64{1, 0.75},
			flows: [][]int32{{0}, {0}, {1}, {1}},
			picks: []int32{1, 0},
			rates: []float64{0.5, 0.5, 0.375, 0.375},
		},
		{
			// Stage 2 (1/8 each) fills first; that leaves stage 0 with 3/4
			// for 3 flows and stage 1 with 1/2 for 2: both 1/4, stage 0
			// first.
			name:  "tie created by filling",
			phi:   []float64{0.875, 0.625, 0.25},
			flows: [][]int32{{0, 2}, {0}, {0}, {0}, {1}, {1, 2}, {1}},
			picks: []int32{2, 0, 1},
			rates: []float64{0.125, 0.25, 0.25, 0.25, 0.25, 0.125, 0.25},
		},
		{
			// All three stages offer 1/2; stage 0 freezes f0 and f1, which
			// empties stages 1 and 2: one pick.
			name:  "one pick freezes all",
			phi:   []float64{1, 0.5, 0.5},
			flows: [][]int32{{2, 0}, {1, 0}},
			picks: []int32{0},
			rates: []float64{0.5, 0.5},
		},
	}
	var sv shareSolver
	for _, tt := range tests {
		rates := make([]float64, len(tt.flows))
		sv.maxmin(tt.phi, tt.flows, rates)
		if !slices.Equal(sv.picks, tt.picks) {
			t.Errorf("%s: picks = %v, want %v", tt.name, sv.picks, tt.picks)
		}
		checkRates(t, tt.name, rates, tt.rates)
	}
}

func TestShareBottleneckMinimum(t *testing.T) {
	// f0 is held back by stage 0 (1/3) though stage 1 offers it 1; f1 and
	// f2 get 1/3 at stage 0; f3 alone on stage 1 besides f0 gets 1.
	phi := []float64{1, 2}
	flows := [][]int32{{1, 0}, {0}, {0}, {1}, {}}
	var sv shareSolver
	rates := make([]float64, len(flows))
	sv.bottleneck(phi, flows, rates)
	checkRates(t, "bottleneck", rates[:4], []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 1})
	if !math.IsInf(rates[4], 1) {
		t.Errorf("bottleneck rate of a flow on no stage = %v, want +Inf", rates[4])
	}
	sv.maxmin(phi, flows, rates)
	checkRates(t, "maxmin", rates[:4], []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 5.0 / 3})
	if !math.IsInf(rates[4], 1) {
		t.Errorf("maxmin rate of a flow on no stage = %v, want +Inf", rates[4])
	}
}

// shareRandom returns nF flows over nS stages, each on 1..maxK distinct
// stages, and capacities in (0, 4].
func shareRandom(r *rand.Rand, nS, nF, maxK int) ([]float64, [][]int32) {
	phi := make([]float64, nS)
	for s := range phi {
		phi[s] = float64(1+r.IntN(16)) / 4
	}
	flows := make([][]int32, nF)
	for f := range flows {
		k := 1 + r.IntN(min(maxK, nS))
		for _, s := range r.Perm(nS)[:k] {
			flows[f] = append(flows[f], int32(s))
		}
	}
	return phi, flows
}

// maxmin's result is feasible and max-min fair: every flow crosses a
// saturated stage on which no flow is faster.
func TestShareMaxMinFairness(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sv shareSolver
	for range 500 {
		nS := 1 + r.IntN(10)
		phi, flows := shareRandom(r, nS, 1+r.IntN(40), 4)
		rates := make([]float64, len(flows))
		sv.maxmin(phi, flows, rates)
		load := make([]float64, nS)
		top := make([]float64, nS)
		for f, st := range flows {
			if !(rates[f] > 0) {
				t.Fatalf("rate of f%d = %v, want > 0", f, rates[f])
			}
			for _, s := range st {
				load[s] += rates[f]
				top[s] = max(top[s], rates[f])
			}
		}
		for s := range nS {
			if load[s] > phi[s]*(1+1e-12) {
				t.Fatalf("stage %d carries %v > φ=%v", s, load[s], phi[s])
			}
		}
		for f, st := range flows {
			ok := false
			for _, s := range st {
				if load[s] >= phi[s]*(1-1e-12) && rates[f] >= top[s]*(1-1e-12) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("f%d at %v has no saturated stage where it is fastest", f, rates[f])
			}
		}
	}
}

// Solving the touched component alone gives bit for bit the rates of a
// whole solve, and leaves other flows' rates alone.
func TestShareComponentMatchesFull(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sv, full shareSolver
	for range 300 {
		nS := 1 + r.IntN(16)
		phi, flows := shareRandom(r, nS, 1+r.IntN(30), 2)
		stageFlows := make([][]int32, nS)
		for f, st := range flows {
			for _, s := range st {
				stageFlows[s] = append(stageFlows[s], int32(f))
			}
		}
		touched := []int32{int32(r.IntN(nS)), int32(r.IntN(nS))}
		for _, rule := range []shareRule{shareMaxMin, shareBottleneck} {
			want := make([]float64, len(flows))
			full.solve(rule, phi, flows, want)
			got := make([]float64, len(flows))
			for f := range got {
				got[f] = -1
			}
			stages, comp := sv.component(touched, flows, stageFlows)
			if !slices.IsSorted(stages) || !slices.IsSorted(comp) {
				t.Fatalf("component(%v) = %v, %v: not sorted", touched, stages, comp)
			}
			sv.solveComponent(rule, phi, flows, stages, comp, got)
			for f := range flows {
				in := slices.Contains(comp, int32(f))
				touches := slices.ContainsFunc(flows[f], func(s int32) bool { return slices.Contains(stages, s) })
				if in != touches {
					t.Fatalf("f%d in component = %v, holds a component stage = %v", f, in, touches)
				}
				switch {
				case in && got[f] != want[f]:
					t.Fatalf("%v: component rate of f%d = %v, full %v", rule, f, got[f], want[f])
				case !in && got[f] != -1:
					t.Fatalf("%v: rate of f%d outside the component written", rule, f)
				}
			}
		}
	}
}

// The stage→flows lists list each stage's flows in ascending flow id, the
// order in which maxmin freezes them (and so subtracts their shares).
func TestShareIndexOrder(t *testing.T) {
	flows := [][]int32{{2, 0}, {1}, {0, 1}, {}, {2}}
	var sv shareSolver
	sv.index(4, flows)
	want := [][]int32{{0, 2}, {1, 2}, {0, 4}, nil}
	for s := range 4 {
		if got := sv.adj[sv.start[s]:sv.start[s+1]]; !slices.Equal(got, want[s]) {
			t.Errorf("flows on stage %d = %v, want %v", s, got, want[s])
		}
		if sv.rising[s] != int32(len(want[s])) {
			t.Errorf("rising[%d] = %d, want %d", s, sv.rising[s], len(want[s]))
		}
	}
}

func TestShareComponent(t *testing.T) {
	// Stages 0-1 linked by f0, 1-2 by f1; stage 3 alone with f2; stage 4
	// empty.
	flowStages := [][]int32{{1, 0}, {2, 1}, {3}}
	stageFlows := [][]int32{{0}, {1, 0}, {1}, {2}, nil}
	var sv shareSolver
	for _, tc := range []struct {
		touched       []int32
		stages, flows []int32
	}{
		{[]int32{2}, []int32{0, 1, 2}, []int32{0, 1}},
		{[]int32{0, 0}, []int32{0, 1, 2}, []int32{0, 1}},
		{[]int32{3}, []int32{3}, []int32{2}},
		{[]int32{4}, []int32{4}, nil},
		{[]int32{4, 3, 1}, []int32{0, 1, 2, 3, 4}, []int32{0, 1, 2}},
	} {
		stages, flows := sv.component(tc.touched, flowStages, stageFlows)
		if !slices.Equal(stages, tc.stages) || !slices.Equal(flows, tc.flows) {
			t.Errorf("component(%v) = %v, %v, want %v, %v", tc.touched, stages, flows, tc.stages, tc.flows)
		}
	}
}

func TestShareNoAllocs(t *testing.T) {
	phi, flows := shareRandom(rand.New(rand.NewPCG(5, 6)), 8, 64, 3)
	stageFlows := make([][]int32, len(phi))
	for f, st := range flows {
		for _, s := range st {
			stageFlows[s] = append(stageFlows[s], int32(f))
		}
	}
	rates := make([]float64, len(flows))
	touched := []int32{0}
	var sv shareSolver
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"maxmin", func() { sv.maxmin(phi, flows, rates) }},
		{"bottleneck", func() { sv.bottleneck(phi, flows, rates) }},
		{"component", func() {
			stages, comp := sv.component(touched, flows, stageFlows)
			sv.solveComponent(shareMaxMin, phi, flows, stages, comp, rates)
		}},
	} {
		if n := testing.AllocsPerRun(100, tc.fn); n != 0 {
			t.Errorf("%s: %v allocs per run after warm-up, want 0", tc.name, n)
		}
	}
}

func benchShare(b *testing.B, fn func(sv *shareSolver, phi []float64, flows [][]int32, rates []float64)) {
	phi, flows := shareRandom(rand.New(rand.NewPCG(7, 8)), 8, 64, 3)
	rates := make([]float64, len(flows))
	var sv shareSolver
	fn(&sv, phi, flows, rates) // warm up the scratch
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fn(&sv, phi, flows, rates)
	}
}

// BenchmarkMaxMin solves 64 flows, each on 1 to 3 of 8 stages.
func BenchmarkMaxMin(b *testing.B) {
	benchShare(b, (*shareSolver).maxmin)
}

func BenchmarkBottleneck(b *testing.B) {
	benchShare(b, (*shareSolver).bottleneck)
}

// BenchmarkSolveComponent finds and solves the component of stage 0 in the
// same network as BenchmarkMaxMin (usually all of it).
func BenchmarkSolveComponent(b *testing.B) {
	phi, flows := shareRandom(rand.New(rand.NewPCG(7, 8)), 8, 64, 3)
	stageFlows := make([][]int32, len(phi))
	for f, st := range flows {
		for _, s := range st {
			stageFlows[s] = append(stageFlows[s], int32(f))
		}
	}
	benchShare(b, func(sv *shareSolver, phi []float64, flows [][]int32, rates []float64) {
		stages, comp := sv.component([]int32{0}, flows, stageFlows)
		sv.solveComponent(shareMaxMin, phi, flows, stages, comp, rates)
	})
}
