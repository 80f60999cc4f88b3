package interp

import (
	"math"
	"slices"
)

// Flow rates over shared ps stages (docs/engine.md §2).
//
// A flow is one job holding several ps(φ) stages at once, its remaining work
// falling at a single rate r_f. The program's `share` declaration decides
// how the constant capacities φ_s are divided:
//
//   - maxmin, progressive filling: every stage starts with left[s] = φ_s and
//     rising[s] = the number of unfrozen flows on s. Repeatedly pick the
//     stage with rising > 0 that minimises left/rising (ties: the lower
//     stage index), freeze all of its unfrozen flows at share =
//     left/rising, and for every stage t of every newly frozen flow do
//     left[t] -= share, rising[t]--. Each round freezes at least one flow
//     and empties the chosen stage, so there are at most min(S, F) rounds;
//     a round scans the S stages and walks the frozen flows' stage lists,
//     O(S² + Σ|stages of f|) in all. The result is work-conserving: every
//     flow crosses a saturated stage on which no flow is faster.
//   - bottleneck: r_f = min over f's stages of φ_s / n_s, n_s being the
//     number of flows on s. Not work-conserving: capacity a flow cannot use
//     because of another stage is left idle.
//
// Rates change only when a flow starts or ends, and only within the
// connected component (stages linked through the flows holding them) of the
// stages it touches: flows elsewhere keep their rates, so their
// (remaining, last update) pairs stay valid and need no visit. The event
// loop therefore, at each flow start or end:
//
//  1. updates its own stage→flows and flow→stages lists (an ending flow is
//     removed first; its stages are the touched ones);
//  2. calls [shareSolver.component] with the touched stages;
//  3. brings remaining -= rate·(now − last) up to date for the returned
//     flows, with their old rates;
//  4. calls [shareSolver.solveComponent] to write the new rates;
//  5. reschedules finish events (epochs are the caller's business).
//
// After an end, every flow of the old component is still reached: the
// shortest path from it to the ending flow passes through one of that flow's
// stages without using the flow itself.
//
// A component is solved with the caller's ids renumbered in ascending
// order, stage lists kept in their order and flows on a stage visited in
// ascending flow id, so solving one component gives bit for bit the rates a
// solve of all shared stages at once would give: stages of other components
// never change this component's left/rising, and ties are broken by the same
// global stage order.
//
// The solver keeps all its scratch in [shareSolver]; once its slices have
// grown to the largest instance seen, no call allocates.

// shareRule is the program's `share` declaration. The zero value is not a
// rule: the language has no default policy.
type shareRule uint8

const (
	shareMaxMin     shareRule = iota + 1 // `share maxmin`: progressive filling
	shareBottleneck                      // `share bottleneck`: min_s φ_s/n_s
)

// String returns the rule as the `share` declaration spells it.
func (r shareRule) String() string {
	switch r {
	case shareMaxMin:
		return "maxmin"
	case shareBottleneck:
		return "bottleneck"
	}
	return "share(?)"
}

// shareSolver computes flow rates over shared ps stages. Its zero value is
// ready to use; it is not safe for concurrent use. Stage and flow ids are
// small non-negative integers chosen by the caller (indices into its
// slices); a flow never lists one stage twice, and every φ is > 0.
type shareSolver struct {
	// Per-stage scratch of maxmin and bottleneck, indexed by stage.
	left   []float64 // capacity not yet given to frozen flows
	rising []int32   // unfrozen flows on the stage (bottleneck: all flows)
	start  []int32   // flows on stage s are adj[start[s]:start[s+1]]
	adj    []int32   // flow ids, ascending within each stage
	frozen []bool    // per flow: rate already fixed

	// picks lists the stages chosen by the last maxmin call, in the order
	// they were chosen (for tests and tracing).
	picks []int32

	// Component scratch, indexed by the caller's ids.
	gen        uint32   // current mark; stageMark[s] == gen means s is in the component
	stageMark  []uint32 // per caller stage
	flowMark   []uint32 // per caller flow
	compStages []int32  // stages of the last component, ascending
	compFlows  []int32  // flows of the last component, ascending

	// Renumbered component handed to maxmin/bottleneck.
	localOf    []int32 // caller stage → local stage; -1 outside a solve
	localPhi   []float64
	localFlows [][]int32 // subslices of localBuf
	localBuf   []int32
	localRates []float64
}

// shareResize returns s with length n, reusing its array when large enough.
// The contents are unspecified.
func shareResize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// shareExtend returns s with length at least n, keeping its contents and
// filling new elements with fill.
func shareExtend[T any](s []T, n int, fill T) []T {
	for len(s) < n {
		s = append(s, fill)
	}
	return s
}

// solve writes into rates[f] the rate of every flow under rule. flows[f]
// lists the stages flow f holds; phi[s] is the capacity of stage s.
func (sv *shareSolver) solve(rule shareRule, phi []float64, flows [][]int32, rates []float64) {
	switch rule {
	case shareMaxMin:
		sv.maxmin(phi, flows, rates)
	case shareBottleneck:
		sv.bottleneck(phi, flows, rates)
	default:
		panic("interp: invalid share rule " + rule.String())
	}
}

// maxmin writes into rates[f] the max-min fair rate of every flow, by
// progressive filling (see the comment at the top of this file). phi[s] > 0
// is the capacity of stage s; flows[f] lists the stages flow f holds, none
// twice. A flow holding no stage is unconstrained and gets +Inf.
func (sv *shareSolver) maxmin(phi []float64, flows [][]int32, rates []float64) {
	nS, nF := len(phi), len(flows)
	sv.index(nS, flows)
	sv.left = shareResize(sv.left, nS)
	copy(sv.left, phi)
	left, rising, start, adj := sv.left, sv.rising, sv.start, sv.adj
	frozen := shareResize(sv.frozen, nF)
	sv.frozen = frozen
	sv.picks = sv.picks[:0]

	unfrozen := 0
	for f, st := range flows {
		frozen[f] = len(st) == 0
		if frozen[f] {
			rates[f] = math.Inf(1)
		} else {
			unfrozen++
		}
	}
	for unfrozen > 0 {
		best, share := -1, 0.0
		for s := range nS {
			if rising[s] > 0 {
				if x := left[s] / float64(rising[s]); best < 0 || x < share {
					best, share = s, x
				}
			}
		}
		if best < 0 {
			panic("interp: maxmin: unfrozen flow on no stage")
		}
		sv.picks = append(sv.picks, int32(best))
		for _, f := range adj[start[best]:start[best+1]] {
			if frozen[f] {
				continue
			}
			frozen[f] = true
			rates[f] = share
			unfrozen--
			for _, t := range flows[f] {
				left[t] -= share
				if left[t] < 0 { // rounding only: share ≤ left[t]/rising[t]
					left[t] = 0
				}
				rising[t]--
			}
		}
	}
}

// bottleneck writes into rates[f] the minimum over f's stages of
// phi[s]/n[s], n[s] being the number of flows holding s. A flow holding no
// stage gets +Inf.
func (sv *shareSolver) bottleneck(phi []float64, flows [][]int32, rates []float64) {
	n := shareResize(sv.rising, len(phi))
	sv.rising = n
	clear(n)
	for _, st := range flows {
		for _, s := range st {
			n[s]++
		}
	}
	for f, st := range flows {
		r := math.Inf(1)
		for _, s := range st {
			r = min(r, phi[s]/float64(n[s]))
		}
		rates[f] = r
	}
}

// index builds the stage→flows lists (start, adj) of flows over nS stages
// and sets rising[s] to the number of flows on s.
func (sv *shareSolver) index(nS int, flows [][]int32) {
	rising := shareResize(sv.rising, nS)
	start := shareResize(sv.start, nS+1)
	clear(rising)
	total := 0
	for _, st := range flows {
		for _, s := range st {
			rising[s]++
		}
		total += len(st)
	}
	// start[s] is first the end of stage s's list; filling the lists from
	// their ends, flows in reverse, leaves every list in ascending flow
	// order and start[s] at its beginning (start[nS] stays the total).
	acc := int32(0)
	for s := range nS {
		acc += rising[s]
		start[s] = acc
	}
	start[nS] = acc
	adj := shareResize(sv.adj, total)
	for f := len(flows) - 1; f >= 0; f-- {
		for _, s := range flows[f] {
			start[s]--
			adj[start[s]] = int32(f)
		}
	}
	sv.rising, sv.start, sv.adj = rising, start, adj
}

// component finds the connected component(s) of the touched stages: every
// stage reachable from a touched one by going from a stage to the flows on
// it (stageFlows[s]) and from a flow to the stages it holds
// (flowStages[f]), and every flow met on the way. Touched stages may repeat
// and may carry no flow (an ending flow's stages, after its removal); they
// are part of the result either way.
//
// Both results are in ascending order and alias the solver's scratch: they
// stay valid until the next call to component. The caller updates the
// remaining work of exactly these flows before [shareSolver.solveComponent]
// gives them new rates.
func (sv *shareSolver) component(touched []int32, flowStages, stageFlows [][]int32) (stages, flows []int32) {
	sv.gen++
	if sv.gen == 0 { // wrapped: old marks could collide
		clear(sv.stageMark)
		clear(sv.flowMark)
		sv.gen = 1
	}
	gen := sv.gen
	sv.stageMark = shareExtend(sv.stageMark, len(stageFlows), 0)
	sv.flowMark = shareExtend(sv.flowMark, len(flowStages), 0)
	sm, fm := sv.stageMark, sv.flowMark
	cs, cf := sv.compStages[:0], sv.compFlows[:0]

	for _, s := range touched {
		if sm[s] != gen {
			sm[s] = gen
			cs = append(cs, s)
		}
	}
	// cs doubles as the breadth-first work list.
	for i := 0; i < len(cs); i++ {
		for _, f := range stageFlows[cs[i]] {
			if fm[f] == gen {
				continue
			}
			fm[f] = gen
			cf = append(cf, f)
			for _, t := range flowStages[f] {
				if sm[t] != gen {
					sm[t] = gen
					cs = append(cs, t)
				}
			}
		}
	}
	slices.Sort(cs)
	slices.Sort(cf)
	sv.compStages, sv.compFlows = cs, cf
	return cs, cf
}

// solveComponent writes into rates[f], for every f in flows, the rate rule
// gives it. stages and flows must be a closed component in ascending order,
// as [shareSolver.component] returns them: every flow holding a listed stage
// is listed and every stage of a listed flow is listed. phi[s] is the
// capacity of the caller's stage s and flowStages[f] the stages of its
// flow f. Entries of rates outside flows are not touched.
func (sv *shareSolver) solveComponent(rule shareRule, phi []float64, flowStages [][]int32, stages, flows []int32, rates []float64) {
	if len(flows) == 0 {
		return
	}
	// localOf is -1 outside a solve, so a stage missing from stages makes
	// the renumbering below panic instead of solving the wrong problem.
	sv.localOf = shareExtend(sv.localOf, len(phi), -1)
	localOf := sv.localOf
	sv.localPhi = shareResize(sv.localPhi, len(stages))
	for i, s := range stages {
		localOf[s] = int32(i)
		sv.localPhi[i] = phi[s]
	}
	total := 0
	for _, f := range flows {
		total += len(flowStages[f])
	}
	buf := shareResize(sv.localBuf, total)
	lf := shareResize(sv.localFlows, len(flows))
	k := 0
	for i, f := range flows {
		st := flowStages[f]
		lf[i] = buf[k : k+len(st) : k+len(st)]
		for j, s := range st {
			if localOf[s] < 0 {
				panic("interp: solveComponent: stage outside the component")
			}
			lf[i][j] = localOf[s]
		}
		k += len(st)
	}
	sv.localBuf, sv.localFlows = buf, lf
	lr := shareResize(sv.localRates, len(flows))
	sv.localRates = lr

	sv.solve(rule, sv.localPhi, lf, lr)

	for i, f := range flows {
		rates[f] = lr[i]
	}
	for _, s := range stages {
		localOf[s] = -1
	}
}
