package interp

import (
	"math"
	"slices"

	"github.com/serq/serq/model"
)

// Quiet iterations: most of an engine's iterations change nothing but
// their residents' counters and the clock — every resident decodes one
// token, nobody is admitted, preempted or done — and then the next attempt
// forms the same batch at the same cost. Such an iteration is handled
// without the settle: its end applies the tokens and the next attempt is
// copied from the one before (its template), with every counter, statistic
// and random stream left as the full path leaves them. One resident may
// grow its blocks on the way where they fit (quietGrowth): the growth is
// growCore's own, and the cost is read again with the batch's new memory.
// Inside StepN a run of them is taken off the calendar while no other
// event falls before the next one (doc.go, "Quiet iterations").
//
// A template is the attempt that scheduled the pending iteration, kept
// when that attempt changed no pool (poolVer) but by growing its residents'
// blocks, admitted and preempted nobody, served every resident a decode
// token and left no waiter in the engine's pools. It holds while the
// residents (resGen) and the pools the attempt read (the memory pool, the
// pools it admits from and the residents' growing pools) are unchanged:
// markPool, which every change and every hold queued goes through, marks
// the templates that read the pool (Sim.poolTemplates, quietIter.marked);
// the next attempt then reads the same inputs, so with every resident
// still wanting a whole token and fitting its blocks it serves the same
// batch, and the memoized budget and cost (memo.go) are the same values.
// An engine qualifies when its schedule is `advance` and `admit`
// statements without keys or `only` and its expressions read nothing but
// constants, registers and the context an attempt sets (initQuiet).

// quietIter is an engine's template.
type quietIter struct {
	ok     bool
	stale  bool    // the attempt grew its residents' blocks: the residents' context is read again
	budget float64 // the attempt's budget and chunk
	chunk  float64
	cost   float64 // the iteration's duration
	ndec   int     // its decodes: every resident
	resGen uint64  // engine.resGen at the attempt
	marked bool    // one of pools was marked since the attempt's end (markPool)
	pools  []int   // the memory pool, the pools it admits from and the residents' growing pools
	grow   []quietGrow
	ctx    [len(quietSlots)]float64 // the context the attempt left
	nctx   int                      // how many of quietSlots it set
	adv    uint64                   // the advance statements of the schedule
	regrow bool                     // a stale template may be refreshed: no gate reads the residents' context

	// the growth of the iteration being taken (quietGrowth): the resident's
	// index in engine.assign (-1: none), the new cost and batch memory
	growNow          int
	growCost, growKV float64

	// batch.context_decode: when the program reads the batch's exact
	// context (advCtx: Sim.batchReads), every quiet iteration moves each
	// growing resident's position on by one token, so the next attempt's sum
	// is the template's plus advance (whole numbers below 2^52, which any
	// order of summing gives exactly), and its cost is read again (quietNext
	// keeps it in nextCost until the iteration takes it).
	advCtx   bool
	advance  float64
	nextCost float64
}

// quietGrow is the growing hold of a resident of the batch (by its index
// in engine.assign), h nil when its run does not grow.
type quietGrow struct {
	h *holdInst
	i int
}

// quietSlots are the context variables an attempt sets: first the
// quietResident of the residents (setResidentCtx), then the batch's, and
// last the two that only setBatchCtx sets.
const quietResident = 5

// kvDecodeSlot is batch.kv_decode's index in quietSlots, ctxDecodeSlot
// batch.context_decode's.
const (
	kvDecodeSlot  = 8
	ctxDecodeSlot = 13
)

var quietSlots = [...]model.Ctx{
	model.CtxRunningCount, model.CtxRunningDecoding, model.CtxRunningKVDecode, model.CtxRunningKVPrefill,
	model.CtxWaitingCount, model.CtxBatchTokens, model.CtxBatchPrefilled, model.CtxBatchDecoding,
	model.CtxBatchKVDecode, model.CtxBatchKVPrefill, model.CtxBatchAttention,
	model.CtxBatchCount, model.CtxBatchPosition, model.CtxBatchContextDecode, model.CtxBatchContextPrefill,
	model.CtxRunningPreempted, model.CtxWaitingAdmitted,
}

// loadCtx writes the template's context into c: c[quietSlots[k]] =
// q.ctx[k] for k below nctx, with the indexes constant (no bounds check,
// no load of quietSlots: a quiet iteration at scale does it every time).
func (q *quietIter) loadCtx(c *[model.NumCtx]float64) {
	c[model.CtxRunningCount] = q.ctx[0]
	c[model.CtxRunningDecoding] = q.ctx[1]
	c[model.CtxRunningKVDecode] = q.ctx[2]
	c[model.CtxRunningKVPrefill] = q.ctx[3]
	c[model.CtxWaitingCount] = q.ctx[4]
	c[model.CtxBatchTokens] = q.ctx[5]
	c[model.CtxBatchPrefilled] = q.ctx[6]
	c[model.CtxBatchDecoding] = q.ctx[7]
	c[model.CtxBatchKVDecode] = q.ctx[8]
	c[model.CtxBatchKVPrefill] = q.ctx[9]
	c[model.CtxBatchAttention] = q.ctx[10]
	c[model.CtxBatchCount] = q.ctx[11]
	c[model.CtxBatchPosition] = q.ctx[12]
	c[model.CtxBatchContextDecode] = q.ctx[13]
	c[model.CtxBatchContextPrefill] = q.ctx[14]
	if q.nctx > batchOnly {
		c[model.CtxRunningPreempted] = q.ctx[15]
		c[model.CtxWaitingAdmitted] = q.ctx[16]
	}
}

// batchOnly is the number of quietSlots that setResidentCtx and the
// attempt set; the two after them only setBatchCtx sets.
const batchOnly = len(quietSlots) - 2

// initQuiet decides whether the engine's iterations may be quiet: its
// schedule is advance statements without keys or `only` and admit
// statements whose gates, like its budget, chunk and cost, read only
// constants, registers and quietSlots.
func (s *Sim) initQuiet(e *engine) {
	m := e.m
	ok := quietExpr(s.readsOf(m.Budget)) && quietExpr(s.readsOf(m.Chunk)) && quietExpr(s.readsOf(m.Cost))
	var adv uint64
	regrow := true
	switch m.Serve {
	case model.ServeVLLM:
		ok = ok && len(m.Order) == 0
		adv = 1
	case model.ServeBody:
		for i := range m.Body {
			st := &m.Body[i]
			switch {
			case st.Op == model.SchedAdvance && len(st.Order) == 0 && st.Only == nil:
				adv++
			case st.Op == model.SchedAdmit && quietExpr(s.readsOf(st.While)):
				regrow = regrow && batchSlots(s.readsOf(st.While))
			default:
				ok = false
			}
		}
	default:
		ok = false
	}
	e.quietOK = ok && adv > 0
	e.quiet.adv = adv
	e.quiet.advCtx = s.batchReads
	e.quiet.regrow = regrow
	e.quiet.growNow = -1 // none: it holds a growth only between quietGrowth and the iteration taking it
}

// captureQuiet keeps the attempt that just scheduled e's iteration as its
// template if it can be repeated. An attempt that changed pools (grew),
// admitting and preempting nobody, grew its residents' blocks: its
// template is stale, the next attempt reads their new memory.
func (s *Sim) captureQuiet(e *engine, budget, cost float64, ndec int, grew bool) {
	q := &e.quiet
	q.ok = false
	if !e.quietOK || grew && !q.regrow || len(s.p.Claims) > 0 || s.pics != nil || e.admitted != 0 || e.preempted != 0 || e.kind != iterDecode ||
		len(e.assign) != len(e.res) || ndec != len(e.assign) || s.engineHasWaiters(e) {
		return
	}
	q.pools = q.pools[:0]
	q.grow = q.grow[:0]
	if e.m.Memory >= 0 {
		q.pools = append(q.pools, e.m.Memory)
	}
	for _, p := range e.m.Admits { // empty now: a hold queued marks its pool
		if !slices.Contains(q.pools, p) {
			q.pools = append(q.pools, p)
		}
	}
	for _, r := range e.assign {
		j := &r.job
		if j.mode != model.ModeDecode || j.assign != 1 || j.stalled {
			return
		}
		g := quietGrow{}
		if j.growing >= 0 {
			h, i := innermost(r, j.growing)
			if h == nil {
				return
			}
			g = quietGrow{h, i}
			if !slices.Contains(q.pools, j.growing) {
				q.pools = append(q.pools, j.growing)
			}
		}
		q.grow = append(q.grow, g)
	}
	q.advance = 0
	if q.advCtx {
		// every position whole, so that the sums stay exact
		for _, g := range q.grow {
			if g.h != nil {
				if !wholeBelow(g.h.pools[g.i].pos) {
					return
				}
				q.advance++
			}
		}
		if !wholeBelow(s.ctx[model.CtxBatchContextDecode]) {
			return
		}
	}
	for _, p := range q.pools {
		if !slices.Contains(s.poolTemplates[p], int32(e.ei)) {
			s.poolTemplates[p] = append(s.poolTemplates[p], int32(e.ei))
		}
	}
	q.marked = false
	q.resGen = e.resGen
	q.cost = cost
	q.budget, q.chunk = budget, e.chunk
	q.stale = grew
	q.ndec = ndec
	q.nctx = len(quietSlots)
	if !e.batchCtx {
		q.nctx = batchOnly
	}
	for k := range q.nctx {
		q.ctx[k] = s.ctx[quietSlots[k]]
	}
	q.ok = true
}

// quietClean reports whether the settle after an engine iteration's end
// would have nothing to do but that engine's next attempt: no session
// ready, no stage or flow marked, no pool or engine marked but those the
// settle would only unmark (quietPools does that): a pool with no grower
// and no waiter it admits itself, a busy engine, an idle one with no
// resident and no waiter (a decoder whose last request finished, marked
// again by the release of its blocks after the settle's startEngines).
// And no tracer of engine iterations (a quiet iteration traces nothing
// else: no session joins, finishes, is admitted or released in it), and
// no drain that the event could finish.
func (s *Sim) quietClean() bool {
	if s.tracer != nil && s.traceIters || s.noFastPath || s.err != nil || len(s.ready) > 0 ||
		!s.dirtyStages.empty() || len(s.flows.touched) > 0 || s.draining && len(s.live) == 0 {
		return false
	}
	for i := s.dirtyPools.next(0); i >= 0; i = s.dirtyPools.next(i + 1) {
		if pl := &s.pools[i]; len(pl.growers) > 0 || pl.admitVia < 0 && len(pl.queue) > 0 {
			return false
		}
	}
	// the engine whose iteration ends is busy until then; startEngines
	// attempts it and unmarks it
	for i := s.dirtyEngs.next(0); i >= 0; i = s.dirtyEngs.next(i + 1) {
		if e := &s.engs[i]; !e.busy && (len(e.res) > 0 || s.engineHasWaiters(e)) {
			return false
		}
	}
	return true
}

// quietPools unmarks the marked pools and engines, as the settle's
// admission and startEngines do when quietClean holds; a marked idle
// engine (one without work: quietClean lets no other through) has its
// idle flag cleared, as startEngines clears it.
func (s *Sim) quietPools() {
	s.dirtyPools.reset()
	for i := s.dirtyEngs.next(0); i >= 0; i = s.dirtyEngs.next(i + 1) {
		if e := &s.engs[i]; !e.busy {
			e.idle = false
		}
	}
	s.dirtyEngs.reset()
}

// quietReady reports whether e's iteration that is ending can be handled
// quietly: its template holds and every resident, its token applied, still
// wants a whole token and has the blocks for it, or one of them grows its
// blocks where they fit (quietGrowth).
func (s *Sim) quietReady(e *engine) bool {
	q := &e.quiet
	if !q.ok || q.resGen != e.resGen || q.marked {
		return false
	}
	grow, ok := s.quietResidents(e)
	if !ok || q.stale && !s.refreshQuiet(e) {
		return false
	}
	return s.quietNextOrGrowth(e, grow)
}

// quietNextOrGrowth is quietGrowth for a growth (grow ≥ 0), else
// quietNext.
func (s *Sim) quietNextOrGrowth(e *engine, grow int) bool {
	if grow >= 0 {
		return s.quietGrowth(e, grow)
	}
	return s.quietNext(e)
}

// quietNext reads the next attempt's cost when the program reads
// batch.context_decode, which a quiet iteration moves on, and keeps it for
// quietIteration if it is a valid duration.
func (s *Sim) quietNext(e *engine) bool {
	q := &e.quiet
	if q.advance == 0 {
		return true
	}
	if !wholeBelow(q.ctx[ctxDecodeSlot] + q.advance) {
		return false
	}
	T := s.quietCost(e, -1)
	if !(T > 0) {
		return false
	}
	q.nextCost = T
	return true
}

// quietCost is the next attempt's cost: the template's context with
// batch.context_decode moved on, and batch.kv_decode kvb when a growth
// changes it (kvb ≥ 0).
func (s *Sim) quietCost(e *engine, kvb float64) float64 {
	q := &e.quiet
	saved := s.ctx
	q.loadCtx(&s.ctx)
	if kvb >= 0 {
		s.ctx[model.CtxBatchKVDecode] = kvb
	}
	s.ctx[model.CtxBatchContextDecode] = q.ctx[ctxDecodeSlot] + q.advance
	s.curEng = e
	T := s.memoEval(&e.costM)
	s.curEng = nil
	s.ctx = saved
	return T
}

// quietResidents reports whether every resident of e's batch, its token
// applied, still wants a whole token and, but for at most one (grow, its
// index in e.assign; -1 if none), has the blocks for it: the part of
// quietReady that a quiet iteration changes.
func (s *Sim) quietResidents(e *engine) (grow int, ok bool) {
	q := &e.quiet
	q.growNow = -1
	grow = -1
	for k, r := range e.assign {
		if !(r.job.rem-1 >= 1) {
			return -1, false
		}
		if g := q.grow[k]; g.h != nil {
			hp := &g.h.pools[g.i]
			if pos := hp.pos + 1; pos+1-hp.alloc > unitTol {
				if grow >= 0 {
					return -1, false
				}
				grow = k
			}
		}
	}
	return grow, true
}

// quietGrowth decides whether the next attempt's one growth (of the
// resident e.assign[k]) keeps the iteration quiet: the pool has room
// (growCore grows without preempting, evicting cache as it must), spills
// nothing, no other engine admits from it (its mark would give that engine
// an attempt), and the cost with the batch's memory grown is a valid
// duration. It keeps the new cost and memory for quietIteration.
func (s *Sim) quietGrowth(e *engine, k int) bool {
	q := &e.quiet
	g := q.grow[k]
	hp := &g.h.pools[g.i]
	pl := &s.pools[hp.pool]
	if pl.m.Spill != nil {
		return false
	}
	for _, x := range s.poolEngines[pl.index] {
		if x != e.ei {
			return false
		}
	}
	// serve's need and growCore's target, as they will compute them
	d := (hp.pos + 1) + 1 - hp.alloc
	target := pl.roundUp(hp.alloc + d)
	if !s.growFits(pl, g.h, target-hp.alloc) {
		return false
	}
	// the batch's memory (attempt's sum) with the grown allocation
	kvb := 0.0
	for j, x := range e.assign {
		if j == k {
			kvb += s.memHeldAs(e, x, g.h, g.i, target)
		} else {
			kvb += s.memHeld(e, x)
		}
	}
	T := s.quietCost(e, kvb)
	if !(T > 0) {
		return false
	}
	q.growNow, q.growCost, q.growKV = k, T, kvb
	return true
}

// refreshQuiet makes a stale template current: with the residents'
// context read anew (their memory grew in the template's attempt), the
// next attempt has the template's budget and chunk, and so its batch, if
// the memoized expressions give the same values; its cost is read again.
// The context is left as it was: the attempt sets it when it is made.
func (s *Sim) refreshQuiet(e *engine) bool {
	q := &e.quiet
	saved := s.ctx
	s.curEng = e
	s.setResidentCtx(e)
	budget := s.memoEval(&e.budgetM)
	chunk := 0.0
	if e.m.Chunk != nil {
		if c := s.memoEval(&e.chunkM); !math.IsInf(c, 1) {
			chunk = c
		}
	}
	ok := math.Float64bits(budget) == math.Float64bits(q.budget) && math.Float64bits(chunk) == math.Float64bits(q.chunk)
	if ok {
		// the batch's context is the template's
		for k := quietResident; k < q.nctx; k++ {
			s.ctx[quietSlots[k]] = q.ctx[k]
		}
		T := s.memoEval(&e.costM)
		if ok = T > 0; ok { // else the attempt fails as it should
			q.cost = T
			for k := range quietResident {
				q.ctx[k] = s.ctx[quietSlots[k]]
			}
			q.stale = false
		}
	}
	s.curEng = nil
	s.ctx = saved
	return ok
}

// instantQuiet reports whether ending the instant (endInstant) would
// change nothing: no pool changed since the gauges were read and no gauge
// is read at every instant.
func (s *Sim) instantQuiet() bool {
	return s.gaugeKind != nil && !s.gaugeEvery && s.poolVer == s.gaugeVer && s.gaugePools.empty()
}

// quietIteration handles the end of e's iteration at s.now and the next
// attempt, a copy of the template, as iterEnd, the settle and attempt
// would: the same fields changed in the same order of float operations.
// setCtx false says the context already holds the template's (nothing
// but the quiet run's own iterations set it since).
// The next iteration's end is not scheduled; it is at s.now +
// e.quiet.cost.
func (s *Sim) quietIteration(e *engine, setCtx bool) {
	q := &e.quiet
	now := s.now
	iterNo, stmtNo := e.iterNo+1, e.stmtNo+1
	s.engineChanged(e) // its residents' work
	for k, r := range e.assign {
		j := &r.job
		j.rem -= 1 // j.assign is 1, and serve gives it 1 again
		e.servedTokens += 1
		if g := q.grow[k]; g.h != nil {
			g.h.advanced = true
			g.h.pools[g.i].pos += 1
		}
		if s.warm && r.lastTok > 0 {
			gap := now - r.lastTok
			e.itl.Add(gap)
			e.itlW.Add(gap)
		}
		r.lastTok = now
		j.servedIt, j.passedStmt = iterNo, stmtNo
	}
	if k := q.growNow; k >= 0 {
		// serve's growth of resident k, its blocks fitting (quietGrowth)
		r, g := e.assign[k], q.grow[k]
		hp := &g.h.pools[g.i]
		r.growHold, r.growIdx, r.growBy = g.h, g.i, hp.pos+1-hp.alloc
		if s.growCore(r, e) != growDone {
			panic("a quiet iteration's growth did not fit")
		}
		s.dirtyEngs.clear(e.ei) // startEngines unmarks the busy engine
		// the template as captureQuiet leaves it after an attempt that grew
		q.cost = q.growCost
		q.ctx[kvDecodeSlot] = q.growKV
		q.marked = false // the growth's own mark, which the template now holds
		q.stale = true
		q.ok = q.regrow
		// the growth is taken: none is pending (a state a run reached by
		// another way, checkpoints and all, must equal: SameState)
		q.growNow, q.growCost, q.growKV = -1, 0, 0
		setCtx = true
	} else if q.advance > 0 {
		// the next attempt's cost, read with its context (quietNext)
		q.cost, q.nextCost = q.nextCost, 0
		setCtx = true
	}
	q.ctx[ctxDecodeSlot] += q.advance
	// iterEnd sets these to 0 or none and the attempt back: their areas
	// advance to now
	e.stage.util.Touch(now)
	e.prefOnlyI.TouchZero(now) // a decode batch: 0
	e.decOnlyI.Touch(now)
	e.mixedI.TouchZero(now)
	e.decodesI.Touch(now)
	e.iterNo = iterNo
	e.stmtNo += q.adv
	if setCtx {
		q.loadCtx(&s.ctx)
	}
	e.epoch++
	e.iterT = now
	e.iters++
	if s.warm {
		e.decBatchW.Add(float64(q.ndec))
		e.decStepW.Add(q.cost)
	}
}

// secondTime is the time of the calendar's second event, +Inf if none.
func (s *Sim) secondTime() float64 {
	c := s.cal
	switch {
	case len(c) > 2:
		return min(c[1].t, c[2].t)
	case len(c) == 2:
		return c[1].t
	}
	return math.Inf(1)
}

// quietRun takes up to n events (n > 0) if the next is a quiet iteration:
// that iteration and those of the same engine that follow it while they
// are quiet, no other event falls before or at them and they are within
// the horizon and at or before until, handled without the calendar; then,
// while the next event is another engine's quiet iteration, the same for
// it, as stepN's next call would (at scale the engines' iterations
// interleave, and the settle's checks need not be made again: a quiet
// iteration that grows nothing marks nothing). It returns the number of
// events taken, 0 when the next event is not a quiet iteration (Step
// handles it).
func (s *Sim) quietRun(n uint64, until float64) uint64 {
	var done uint64
	clean := false // quietClean holds and quietPools has nothing to unmark
	for {
		if len(s.cal) == 0 || s.cal[0].kind != evIterEnd || !clean && !s.quietClean() {
			return done
		}
		t := s.cal[0].t
		e := s.stages[s.cal[0].id].eng
		if t > s.opt.Horizon || t > until || e == nil || e.epoch != s.cal[0].epoch || !e.busy {
			return done
		}
		// the attempt is made at the iteration's end only if no other event
		// is pending at that instant (startEngines). Nothing in the run
		// schedules an event, so the next other one stays at second.
		second := s.secondTime()
		if !(second > t) || !s.quietReady(e) {
			return done
		}
		if t > s.now && !s.instantQuiet() {
			s.endInstant()
		}
		s.take() // the run's last schedule replaces it
		if !clean {
			s.quietPools()
		}
		setCtx := true
		for {
			s.advance(t)
			s.events++
			// the context the attempt sets: after the run's first iteration it
			// holds the template's unless a growth or a refresh changed that
			s.quietIteration(e, setCtx)
			done++
			if s.events-s.progress.windowEvent >= stallWindow {
				s.checkProgress()
			}
			q := &e.quiet
			next := s.now + q.cost
			grew := q.stale
			more := done < n && s.err == nil && next <= s.opt.Horizon && next <= until && next < second
			if more && grew {
				// the growth marked its pool and made the template stale
				more = s.quietClean() && s.quietReady(e)
			} else if more {
				// nothing but e's residents changed since quietReady
				grow, ok := s.quietResidents(e)
				more = ok && s.quietNextOrGrowth(e, grow)
			}
			if !more {
				s.schedule(next, evIterEnd, int32(e.idx), e.epoch, nil)
				if done >= n || s.err != nil {
					return done
				}
				// a growth marked its pool: the next engine's checks are made
				// afresh
				clean = !grew
				break
			}
			s.seq++ // the iteration's end, scheduled and taken at once
			// only a growth changes what the gauges read, but for gauges read
			// at every instant's end
			if next > s.now && (grew || s.gaugeEvery) && !s.instantQuiet() {
				s.endInstant()
			}
			if grew {
				s.quietPools()
			}
			setCtx = grew
			t = next
		}
	}
}

// StepN processes at most n events, as n calls of Step would, and returns
// how many it processed (fewer when the run ends first). The state after
// StepN(n) is the state after the same number of Steps, event for event
// (the calendar's heap may be laid out otherwise: SameState compares its
// events in order). A driver advancing in batches (`serq run`, the TUI at
// top speed) pays for one call a batch, and a run of quiet iterations
// inside the batch is taken off the calendar, each counted as one event.
func (s *Sim) StepN(n uint64) uint64 { return s.stepN(n, math.Inf(1)) }

// stepN is StepN that stops before an event after time until (one within
// the horizon: Step ends the run at a later one).
func (s *Sim) stepN(n uint64, until float64) uint64 {
	start := s.events
	defer s.recoverInternal()
	for s.events-start < n && !s.Done() {
		if len(s.cal) > 0 && s.cal[0].t > until && s.cal[0].t <= s.opt.Horizon {
			break
		}
		if s.quietRun(n-(s.events-start), until) == 0 && !s.step() {
			break
		}
	}
	return s.events - start
}

// StepN processes at most n events (Sim.StepN), taking the checkpoints
// that fall due on the way, and returns how many it processed.
func (tl *Timeline) StepN(n uint64) uint64 { return tl.stepN(n, math.Inf(1)) }

// stepN is StepN stopping before an event after until (Sim.stepN).
func (tl *Timeline) stepN(n uint64, until float64) uint64 { return tl.stepNEvery(n, 1, until) }

// stepNEvery is stepN taking checkpoints only at multiples of k times the
// spacing (k ≥ 1; StepNEvery).
func (tl *Timeline) stepNEvery(n, k uint64, until float64) uint64 {
	start := tl.sim.events
	for tl.sim.events-start < n {
		// Run up to the next checkpoint due, then take it.
		every := tl.every * max(k, 1)
		next := (tl.sim.events/every + 1) * every
		want := min(n-(tl.sim.events-start), next-tl.sim.events)
		got := tl.sim.stepN(want, until)
		if tl.sim.events%every == 0 {
			tl.checkpointIfDue()
		}
		if got < want {
			break
		}
	}
	return tl.sim.events - start
}
