package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/serq/serq/interp/internal/stats"
	"github.com/serq/serq/model"
)

// Claims are propositions a program states about its own run:
//
//   - `every iteration of E (e)`: e holds at every iteration of engine E,
//     read once the batch is formed (the moment `execute` is read); it may
//     read the batch, `now`, observables, `demand` (what the residents
//     could take with an unlimited budget: a prefill its remaining tokens,
//     a decode one), `served` (the tokens of E's earlier iterations),
//     `tokens` (`batch.tokens`) and `arrived` (the sessions started so
//     far, one arriving at that instant included);
//   - `some iteration of E (e)`: e holds at some iteration (a witness);
//   - `at end (e)`: e holds once every session has ended, over aggregates
//     of all the observations, warm-up included (total, count, largest,
//     smallest, prefix_total).
//
// `given (g)` restricts a claim to the runs whose every session satisfies
// g after its init; a session that does not puts the claim out of scope.
// Claims read and never act: they cannot change the run.

type claimState struct {
	checked, failures uint64
	first             *float64
	outOfScope        string
}

func (s *Sim) initClaims() {
	s.claims = make([]claimState, len(s.p.Claims))
	s.claimObs = make([]stats.Log[float64], len(s.p.Observes))
	s.keepObs = make([]bool, len(s.p.Observes))
	for _, c := range s.p.Claims {
		for _, slot := range s.readsOf(c.Expr).Observes {
			s.keepObs[slot] = true
		}
	}
}

// claimGiven checks the claims' `given` on a session after its init.
func (s *Sim) claimGiven(ss *session) {
	for i := range s.p.Claims {
		c := &s.p.Claims[i]
		st := &s.claims[i]
		if c.Given == nil || st.outOfScope != "" {
			continue
		}
		if s.eval(c.Given, ss) == 0 {
			st.outOfScope = fmt.Sprintf("session %d fails `given`", ss.serial)
		}
	}
}

// claimIteration reads the iteration claims of engine e, its batch formed.
func (s *Sim) claimIteration(e *engine) {
	if len(s.p.Claims) == 0 {
		return
	}
	demand := 0.0
	for _, r := range e.res {
		if r.job.mode == model.ModePrefill {
			demand += r.job.rem
		} else {
			demand += math.Min(1, r.job.rem)
		}
	}
	s.ctx[model.CtxDemand] = demand
	s.ctx[model.CtxServed] = e.servedTokens
	s.ctx[model.CtxArrived] = float64(s.arrivals)
	for i := range s.p.Claims {
		c := &s.p.Claims[i]
		if c.Stage != e.idx || c.Kind == "at_end" {
			continue
		}
		st := &s.claims[i]
		st.checked++
		v := s.eval(c.Expr, nil)
		switch {
		case c.Kind == "every_iteration" && v == 0:
			st.failures++
			if st.first == nil {
				t := s.now
				st.first = &t
			}
		case c.Kind == "some_iteration" && v != 0 && st.first == nil:
			t := s.now
			st.first = &t
		case c.Kind == "some_iteration" && v == 0:
			st.failures++
		}
	}
}

// obsAggregate is an aggregate of every sample of an observe.
func (s *Sim) obsAggregate(f model.Func, slot int) float64 {
	if f == model.OMean || f == model.OCount || f == model.OLast {
		return s.observeStat(f, slot)
	}
	xs := s.claimObs[slot].AppendTo(nil)
	switch f {
	case model.CCount:
		return float64(len(xs))
	case model.CTotal:
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum
	}
	if len(xs) == 0 {
		return 0
	}
	switch f {
	case model.CLargest:
		return slices.Max(xs)
	case model.CSmallest:
		return slices.Min(xs)
	case model.CPrefixTotal:
		// the sum of the prefix sums of the ascending samples: the least
		// total completion time of the observed volumes on one server.
		v := slices.Clone(xs)
		slices.Sort(v)
		prefix, sum := 0.0, 0.0
		for _, x := range v {
			prefix += x
			sum += prefix
		}
		return sum
	}
	panic("interp: no observation aggregate " + f.String())
}

// claimRows reports the claims.
func (s *Sim) claimRows() []ClaimRow {
	var rows []ClaimRow
	for i := range s.p.Claims {
		c := &s.p.Claims[i]
		st := &s.claims[i]
		row := ClaimRow{Name: c.Name, Checked: st.checked, Failures: st.failures, First: st.first}
		note := func(n string) { row.Note = &n }
		switch c.Kind {
		case "every_iteration":
			row.Kind = ClaimEveryIteration
			row.Result = ClaimHolds
			if st.failures > 0 {
				row.Result = ClaimFails
			}
		case "some_iteration":
			row.Kind = ClaimSomeIteration
			row.Result = ClaimNotWitnessed
			if st.first != nil {
				row.Result = ClaimWitnessed
			}
		default:
			row.Kind = ClaimAtEnd
			row.First = nil
			switch {
			case len(s.live) > 0:
				row.Result = ClaimNotEvaluated
				note(fmt.Sprintf("%d session(s) live at the end", len(s.live)))
			default:
				row.Checked = 1
				row.Result = ClaimHolds
				if s.eval(c.Expr, nil) == 0 {
					row.Result = ClaimFails
					row.Failures = 1
					t := s.now
					row.First = &t
				}
			}
		}
		if st.outOfScope != "" {
			row.Result = ClaimOutOfScope
			note(st.outOfScope)
		}
		rows = append(rows, row)
	}
	return rows
}
