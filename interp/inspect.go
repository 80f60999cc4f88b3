package interp

import (
	"math"
	"slices"

	"github.com/serq/serq/model"
)

// The debugger's inspectors (serq tui, after OMNeT++'s Qtenv): who waits
// in a pool's queue and in what order, what an engine's current iteration
// runs, and the pending events in the order they will be taken; and the
// counts the panes show, as built-ins. They read the run and never change
// it.

// QueueEntry is a hold waiting in a pool's queue.
type QueueEntry struct {
	Who   SessionRef
	Units float64  // what it asks of the pool, rounded up to its blocks
	Since float64  // when it joined the queue
	Pools []string // every pool its hold asks, this one first
	// Blocking is the first pool it asks that has not room for it now,
	// "" when every one has.
	Blocking string
}

// PoolQueue is pool i's queue, head first: the holds waiting to be
// admitted, in the order the pool takes them (its `queue by` keys or
// arrival). Nil for an index out of range.
func (s *Sim) PoolQueue(i int) []QueueEntry {
	if i < 0 || i >= len(s.pools) {
		return nil
	}
	saved := s.err
	defer func() { s.err = saved }()
	pl := &s.pools[i]
	out := make([]QueueEntry, 0, len(pl.queue))
	for _, h := range pl.queue {
		e := QueueEntry{Who: s.ref(h.owner), Since: h.enq}
		for k := range h.pools {
			hp := &s.pools[h.pools[k].pool]
			need := hp.roundUp(s.demand(h.owner, h, k))
			if k == 0 {
				e.Units = need
			}
			e.Pools = append(e.Pools, hp.m.Label)
			if e.Blocking == "" && need > hp.cap-hp.used {
				e.Blocking = hp.m.Label
			}
		}
		out = append(out, e)
	}
	return out
}

// BatchEntry is a resident of an engine.
type BatchEntry struct {
	Who     SessionRef
	Mode    string  // prefill or decode
	Tokens  float64 // the tokens its run asks
	Left    float64 // the tokens left
	Stalled bool    // it waits for memory to grow
}

// BatchSnap is an engine's current iteration and its residents.
type BatchSnap struct {
	Engine     string
	Memory     string // its memory pool, "" if none
	Running    bool   // an iteration is under way
	Ends       float64
	Iterations uint64
	Batch      []BatchEntry // the residents in the current iteration, in its order
	Others     []BatchEntry // the residents not in it
}

// EngineBatch is the engine of stage i: its iteration under way (when it
// ends) with the residents it runs, and the residents it does not; nil
// when stage i is no engine.
func (s *Sim) EngineBatch(i int) *BatchSnap {
	if i < 0 || i >= len(s.stages) || s.stages[i].eng == nil {
		return nil
	}
	stg := &s.stages[i]
	e := stg.eng
	b := &BatchSnap{Engine: stg.m.Label, Running: e.busy, Iterations: e.iters, Ends: math.Inf(1)}
	if e.m.Memory >= 0 {
		b.Memory = s.pools[e.m.Memory].m.Label
	}
	for k := range s.cal {
		if ev := &s.cal[k]; ev.kind == evIterEnd && int(ev.id) == i && ev.epoch == e.epoch {
			b.Ends = ev.t
		}
	}
	entry := func(r *session) BatchEntry {
		return BatchEntry{Who: s.ref(r), Mode: modeName(r.job.mode), Tokens: r.job.work, Left: r.job.rem, Stalled: r.job.stalled}
	}
	if e.busy {
		for _, r := range e.assign {
			b.Batch = append(b.Batch, entry(r))
		}
	}
	for _, r := range e.res {
		if !e.busy || !slices.Contains(e.assign, r) {
			b.Others = append(b.Others, entry(r))
		}
	}
	return b
}

// PendingKind is what a pending event will do.
type PendingKind uint8

const (
	PendArrival   PendingKind = iota // Count sessions arrive
	PendJobEnd                       // Who's job on Where ends
	PendPSEnd                        // the next job on the ps stage Where ends
	PendTransfer                     // Who's transfer on Where ends
	PendWarmup                       // the warm-up ends: statistics reset
	PendIteration                    // the engine Where's iteration ends
	PendLeaseEnd                     // a lease on Where (of Who, unless stranded) reaches its end
	PendDown                         // Where goes down
	PendUp                           // Where comes back
	PendRenewal                      // the member Where renews its leases
	PendTimeout                      // Who's client gives its request up
	PendRetry                        // Who's retry backoff ends
)

var pendingNames = [...]string{"arrival", "job end", "ps completion", "transfer end", "warm-up end", "iteration end",
	"lease end", "down", "up", "renewal", "timeout", "retry"}

func (k PendingKind) String() string { return pendingNames[k] }

// PendingEvent is an event on the calendar.
type PendingEvent struct {
	T      float64
	Kind   PendingKind
	Who    SessionRef
	HasWho bool
	Where  string
	Count  int // arrivals: how many
}

// Pending is the first max pending events (max ≤ 0: all) in the order the
// run will take them; events the run has made void (a job preempted, an
// iteration abandoned) are left out. Its second result is how many live
// events the calendar holds.
func (s *Sim) Pending(max int) ([]PendingEvent, int) {
	evs := sortedCal(s.cal)
	var out []PendingEvent
	n := 0
	for i := range evs {
		pe, ok := s.pending(&evs[i])
		if !ok {
			continue
		}
		n++
		if max <= 0 || len(out) < max {
			out = append(out, pe)
		}
	}
	return out, n
}

// pending describes a calendar event, false when it is void.
func (s *Sim) pending(ev *event) (PendingEvent, bool) {
	pe := PendingEvent{T: ev.t}
	who := func(t *session) {
		if t != nil {
			pe.Who, pe.HasWho = s.ref(t), true
		}
	}
	switch ev.kind {
	case evArrive:
		pe.Kind, pe.Count = PendArrival, max(int(ev.id), 1)
	case evJobDone:
		if ev.s == nil || ev.s.gen != ev.epoch {
			return pe, false
		}
		pe.Kind = PendJobEnd
		who(ev.s)
		if ev.s.job.stage >= 0 {
			pe.Where = s.stageWords(&s.stages[ev.s.job.stage])
		}
	case evPSDone:
		st := &s.stages[ev.id]
		if st.epoch != ev.epoch {
			return pe, false
		}
		pe.Kind, pe.Where = PendPSEnd, st.m.Label
	case evFlowDone:
		if ev.s == nil || ev.s.gen != ev.epoch {
			return pe, false
		}
		pe.Kind = PendTransfer
		who(ev.s)
		if ev.s.job.flow >= 0 {
			pe.Where = joinLabels(s.flowLabels(ev.s.job.flow))
		}
	case evWarmup:
		pe.Kind = PendWarmup
	case evIterEnd:
		st := &s.stages[ev.id]
		if st.eng == nil || st.eng.epoch != ev.epoch {
			return pe, false
		}
		pe.Kind, pe.Where = PendIteration, st.m.Label
	case evLeaseEnd:
		h := ev.h
		if h == nil || h.leaseGen != ev.epoch || h.leased < 0 {
			return pe, false
		}
		pe.Kind, pe.Where = PendLeaseEnd, s.pools[h.pools[h.leased].pool].m.Label
		if !h.stranded {
			who(h.owner)
		}
	case evFaultDown, evFaultUp:
		t := &s.faults[ev.id]
		pe.Kind = PendDown
		if ev.kind == evFaultUp {
			pe.Kind = PendUp
		}
		switch {
		case t.member >= 0:
			pe.Where = s.members[t.member].label
		case t.stage >= 0:
			pe.Where = s.stages[t.stage].m.Label
		}
	case evRenew:
		mm := &s.members[ev.id]
		if mm.tickGen != ev.epoch {
			return pe, false
		}
		pe.Kind, pe.Where = PendRenewal, mm.label
	case evTimeout, evWake:
		if ev.s == nil {
			return pe, false
		}
		pe.Kind = PendTimeout
		if ev.kind == evWake {
			pe.Kind = PendRetry
		}
		who(ev.s)
	}
	return pe, true
}

// parkedIn counts the holders of pl that are not residents of the engine
// it is the memory of (all its holders, for a pool of no engine).
func (s *Sim) parkedIn(pl *pool) int {
	n := 0
	for _, list := range [2][]*session{s.live, s.legsLive} {
		for _, t := range list {
			if h, _ := innermost(t, pl.index); h != nil && !(pl.memoryOf >= 0 && s.isResident(t, pl.memoryOf)) {
				n++
			}
		}
	}
	return n
}

// leasedUnits is the units of pool p that live leases hold.
func (s *Sim) leasedUnits(p int) float64 {
	u := 0.0
	note := func(l *holdInst) {
		if l.leased >= 0 && l.pools[l.leased].pool == p {
			u += l.pools[l.leased].alloc
		}
	}
	s.eachLease(note)
	return u
}

// runningWaiting is `running(E)` or `waiting(E)`: an engine's residents,
// or the requests queued at the pools it admits; another stage's jobs in
// service or waiting.
func (s *Sim) runningWaiting(stg *stage, f model.Func) float64 {
	if e := stg.eng; e != nil {
		if f == model.SRunning {
			return float64(len(e.res))
		}
		n := 0
		for i := range s.pools {
			if s.pools[i].admitVia == stg.index {
				n += len(s.pools[i].queue)
			}
		}
		return float64(n)
	}
	busy := s.stageObservable(stg, model.SBusy)
	if f == model.SRunning {
		return busy
	}
	return math.Max(0, float64(stg.present)-busy)
}

// observeStat is `mean(o)`, `count(o)` or `last(o)`: an observe's running
// statistics after warm-up, NaN before a sample.
func (s *Sim) observeStat(f model.Func, slot int) float64 {
	o := &s.obs[slot]
	switch f {
	case model.OCount:
		return float64(o.Count())
	case model.OLast:
		if o.Count() == 0 {
			return math.NaN()
		}
		return o.Last()
	}
	if o.Count() == 0 {
		return math.NaN()
	}
	return o.Mean()
}

// PoolTrend is what a pool's trends chart: its units used, the requests
// queued at it, the units its live leases hold and the oldest's age, and
// the requests waiting to enter its engine (for an engine's memory: at
// every pool the engine admits; else its own queue).
type PoolTrend struct {
	Used, Queued, Leased, Oldest, Waiting float64
}

// Trends reads the trends now, in one pass over the run: each pool's into
// pools (as long as the pools), each gauge's value into gauges, each
// observe's running mean into means (NaN before a sample).
func (s *Sim) Trends(pools []PoolTrend, gauges, means []float64) {
	saved := s.err
	defer func() { s.err = saved }()
	for i := range s.pools {
		pl := &s.pools[i]
		pools[i] = PoolTrend{Used: pl.used, Queued: float64(len(pl.queue)), Waiting: float64(len(pl.queue))}
		if pl.memoryOf >= 0 {
			pools[i].Waiting = s.runningWaiting(&s.stages[pl.memoryOf], model.SWaiting)
		}
	}
	note := func(l *holdInst) {
		if l.leased >= 0 {
			pt := &pools[l.pools[l.leased].pool]
			pt.Leased += l.pools[l.leased].alloc
			pt.Oldest = math.Max(pt.Oldest, s.now-l.leaseStart)
		}
	}
	s.eachLease(note)
	for i, g := range s.p.Gauges {
		gauges[i] = s.eval(g.Expr, nil)
	}
	for i := range s.obs {
		means[i] = math.NaN()
		if s.obs[i].Count() > 0 {
			means[i] = s.obs[i].Mean()
		}
	}
}
