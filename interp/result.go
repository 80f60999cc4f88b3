package interp

import (
	"context"
	"math"

	"github.com/serq/serq/model"
)

// Run simulates p to the end and returns its report.
func Run(ctx context.Context, p *model.Program, opt Options) (*Report, error) {
	s, err := New(p, opt)
	if err != nil {
		return nil, err
	}
	if err := s.Run(ctx); err != nil {
		return nil, err
	}
	return s.Report(), nil
}

// testObserves marks the observe slots whose expression is a test.
func testObserves(p *model.Program) []bool {
	out := make([]bool, len(p.Observes))
	p.Walk(func(st *model.Stmt) {
		if st.Op == model.OpObserve && st.Test {
			out[st.Slot] = true
		}
	})
	return out
}

// Report summarises the run so far (the whole run once it is over).
func (s *Sim) Report() *Report {
	end := s.end
	if !s.finished {
		end = s.now
	}
	p := s.p
	span := end - s.opt.Warmup
	r := &Report{
		Version: s.opt.Version, Horizon: s.opt.Horizon, End: end, Warmup: s.opt.Warmup, Seed: s.opt.Seed,
		Events: s.events, Arrivals: s.arrivals, Ended: s.ended, Turns: s.turns,
		MeanLive: s.liveAvg.Mean(end),
	}
	tests := testObserves(p)
	for i, name := range p.Observes {
		r.Observes = append(r.Observes, s.obs[i].Row(name, tests[i]))
	}
	for i, g := range p.Gauges {
		r.Gauges = append(r.Gauges, s.gauges[i].Row(g.Name, s.opt.Warmup, end))
	}
	r.Claims = s.claimRows()
	nan := math.NaN()
	for i := range s.stages {
		st := &s.stages[i]
		m := st.m
		row := StageRow{Name: m.Name, Label: m.Label,
			MeanNumber: st.num.Mean(end), Utilization: st.util.Mean(end), Completed: st.done,
			Throughput: float64(st.done) / span, MeanWait: st.waitW.Mean(), MeanService: st.svcW.Mean(),
			MeanDecodeBatch: nan, MeanDecodeStep: nan, MeanITL: nan, ITLP50: nan, ITLP99: nan}
		if m.Index >= 0 {
			idx := m.Index
			row.Index = &idx
		}
		if e := st.eng; e != nil {
			row.Iterations = e.iters
			row.PrefillOnly = e.prefOnlyI.Mean(end)
			row.DecodeOnly = e.decOnlyI.Mean(end)
			row.Mixed = e.mixedI.Mean(end)
			row.MeanDecodes = e.decodesI.Mean(end)
			row.MeanDecodeBatch = e.decBatchW.Mean()
			row.MeanDecodeStep = e.decStepW.Mean()
			row.MeanITL = e.itlW.Mean()
			if e.itl.Count() > 0 {
				row.ITLP50 = e.itl.Quantile(0.5)
				row.ITLP99 = e.itl.Quantile(0.99)
			}
			row.IdleWithWork = e.idle && (len(e.res) > 0 || s.engineHasWaiters(e))
		}
		r.Stages = append(r.Stages, row)
	}
	overCap := s.overCaps()
	for i := range s.pools {
		pl := &s.pools[i]
		m := pl.m
		row := PoolRow{Name: m.Name, Label: m.Label,
			MeanUsed: pl.usedI.Mean(end), MeanCached: pl.cachedI.Mean(end), MeanQueue: pl.queueI.Mean(end),
			MeanHolders: pl.holdersI.Mean(end), MeanWait: pl.waitW.Mean(), Admissions: pl.admits,
			EvictedEntries: pl.evictN, EvictedUnits: pl.evictU, Preemptions: pl.preempts,
			Spills: pl.spills, Rejected: pl.rejected, Stuck: pl.stuck}
		if m.Index >= 0 {
			idx := m.Index
			row.Index = &idx
		}
		row.OverCap = overCap[i]
		r.Pools = append(r.Pools, row)
	}
	return r
}

// overCaps finds the queue heads that ask some pool of their hold for more
// than its cap (the report's over_cap), by the asked pool; they can never
// be admitted. Reading them never changes the run.
func (s *Sim) overCaps() map[int]*OverCap {
	saved := s.err
	defer func() { s.err = saved }()
	overCap := map[int]*OverCap{}
	for i := range s.pools {
		pl := &s.pools[i]
		if len(pl.queue) == 0 {
			continue
		}
		h := pl.queue[0]
		for k := range h.pools {
			asked := &s.pools[h.pools[k].pool]
			if need := asked.roundUp(s.demand(h.owner, h, k)); need > asked.cap && overCap[asked.index] == nil {
				overCap[asked.index] = &OverCap{Queue: pl.m.Label, Need: need}
			}
		}
	}
	return overCap
}

// PoolNote is what the report's notes say of a pool so far: sessions stuck
// and rejected there, and a queue head that asks more than its cap. It
// costs a pass over the pools, not a report.
type PoolNote struct {
	Label           string
	Stuck, Rejected uint64
	OverCap         *OverCap
}

// PoolNotes lists the pools with something to note, in declaration order.
func (s *Sim) PoolNotes() []PoolNote {
	over := s.overCaps()
	var out []PoolNote
	for i := range s.pools {
		pl := &s.pools[i]
		if pl.stuck == 0 && pl.rejected == 0 && over[i] == nil {
			continue
		}
		out = append(out, PoolNote{Label: pl.m.Label, Stuck: pl.stuck, Rejected: pl.rejected, OverCap: over[i]})
	}
	return out
}
