package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/serq/serq/interp/internal/stats"
	"github.com/serq/serq/model"
)

// Engines: step stages that iterate as docs/engine.md §4 says. An
// iteration (an "attempt" until it schedules something) serves the
// residents in order while budget is left, growing their memory before
// their tokens count and preempting the last admitted resident when a
// block cannot be had; then, unless something was preempted, it admits
// from the engine's pools in declaration order and serves each newcomer at
// once. Its duration is the engine's `execute`; the tokens are applied when
// it ends.

type engine struct {
	m       *model.Engine
	stage   *stage
	idx     int        // the stage's index
	ei      int        // the engine's index in Sim.engs
	res     []*session // residents
	order   []*session // advanceInOrder's sorted copy of res
	regs    []float64
	busy    bool
	epoch   uint32
	assign  []*session // the running iteration's batch
	iterT   float64
	kind    iterKind
	decodes int
	idle    bool // the last attempt scheduled nothing while work waited

	steps []model.SchedStep

	budgetM, chunkM, costM exprMemo // memo.go
	gateM                  exprMemo // the admission gate of `serve vllm`

	// Quiet iterations (stepn.go): an iteration that changes nothing but
	// its residents' counters and the clock, repeated without the settle.
	quietOK  bool      // the schedule and expressions allow them (initQuiet)
	quiet    quietIter // the last attempt, if it can be repeated
	resGen   uint64    // bumped by every change of res
	chosen   bool      // an indexed choose reads its stage (engineChanged)
	batchCtx bool      // the attempt in progress set the batch's context (setBatchCtx)

	// the attempt in progress
	left      float64
	chunk     float64
	preempted int
	admitted  int
	attn      float64
	stopAdmit bool
	endStmt   bool

	iters        uint64
	prefOnlyI    stats.TimeIntegral
	decOnlyI     stats.TimeIntegral
	mixedI       stats.TimeIntegral
	decodesI     stats.TimeIntegral
	decBatchW    stats.Welford
	decStepW     stats.Welford
	itl          stats.LogHistogram
	itlW         stats.Welford
	regBackup    []float64
	servedTokens float64 // tokens of the iterations that ended (claims' `served`)
	iterNo       uint64  // attempts so far: a run served in this one has servedIt == iterNo
	stmtNo       uint64  // advance statements so far: a run one passed over has passedStmt == stmtNo
}

type iterKind uint8

const (
	iterNone iterKind = iota
	iterPrefill
	iterDecode
	iterMixed
)

func (s *Sim) initEngines() {
	s.batchReads = s.readsBatchContext()
	s.engs = make([]engine, len(s.p.Engines))
	shapes := exprShapes{}
	for i := range s.p.Engines {
		m := &s.p.Engines[i]
		e := &s.engs[i]
		e.m, e.idx, e.ei, e.stage = m, m.Stage, i, &s.stages[m.Stage]
		e.budgetM, e.chunkM, e.costM = s.memo(shapes.shared(m.Budget)), s.memo(shapes.shared(m.Chunk)), s.memo(shapes.shared(m.Cost))
		e.stage.eng = e
		for _, r := range m.Regs {
			e.regs = append(e.regs, float64(r.Init))
		}
		switch m.Serve {
		case model.ServeVLLM:
			gate := shapes.shared(&model.Expr{Op: model.EEq, Args: []*model.Expr{{Op: model.ECtx, Slot: int(model.CtxRunningPreempted)}, model.Num(0)}})
			e.steps = []model.SchedStep{{Op: model.SchedAdvance, Order: m.Order}, {Op: model.SchedAdmit, While: gate}}
			e.gateM = s.memo(gate)
		case model.ServeBody:
			e.steps = m.Body
		}
		s.initQuiet(e)
	}
}

func (e *engine) resetStats(now float64) {
	e.prefOnlyI.Reset(now)
	e.decOnlyI.Reset(now)
	e.mixedI.Reset(now)
	e.decodesI.Reset(now)
	e.decBatchW = stats.Welford{}
	e.decStepW = stats.Welford{}
	e.itl = stats.LogHistogram{}
	e.itlW = stats.Welford{}
}

func (s *Sim) isResident(ss *session, stage int) bool {
	return ss.job.stage == int32(stage) && ss.job.mode != model.ModeNone
}

// engineRun makes the session a resident of the engine.
func (s *Sim) engineRun(ss *session, st *model.Stmt, stg *stage, work float64) bool {
	root := rootOf(ss)
	if st.Mode == model.ModeDecode && root.inTurn && !root.ttftDone {
		root.ttftDone = true
		if s.p.AutoTTFT >= 0 {
			s.observe(root, s.p.AutoTTFT, s.now-root.turnStart)
		}
	}
	if work == 0 {
		return true
	}
	e := stg.eng
	j := &ss.job
	j.stage, j.work, j.rem, j.enq, j.start = int32(stg.index), work, work, s.now, -1
	j.mode, j.growing, j.admSeq, j.assign, j.stalled = st.Mode, -1, ss.admSeq, 0, false
	if st.Growing != nil {
		p, ok := s.member(st.Growing, ss, false)
		if !ok {
			return false
		}
		j.growing = p
	}
	e.res = append(e.res, ss)
	e.resGen++
	s.engineChanged(e)
	s.dirtyEngs.set(e.ei)
	if s.tracer != nil { // the label is built only for a tracer: this is the hot path
		kind := EvDecode
		if st.Mode == model.ModePrefill {
			kind = EvPrefill
		}
		s.trace(ss, kind, stg.m.Label, work)
	}
	stg.present++
	stg.joins++
	stg.num.Set(s.now, float64(stg.present))
	ss.state = sBlocked
	return false
}

// engineCancel removes a preempted resident.
func (s *Sim) engineCancel(stg *stage, ss *session) {
	e := stg.eng
	e.res = without(e.res, ss)
	e.resGen++
	s.engineChanged(e)
	for k, r := range e.assign {
		if r == ss {
			e.left += ss.job.assign
			copy(e.assign[k:], e.assign[k+1:])
			e.assign[len(e.assign)-1] = nil
			e.assign = e.assign[:len(e.assign)-1]
			break
		}
	}
	ss.job.assign = 0
	ss.job.mode = model.ModeNone
	stg.present--
}

// startEngines starts an attempt on every idle engine with work, unless
// another event is pending at this instant. It reports whether sessions
// became ready.
func (s *Sim) startEngines() bool {
	if len(s.engs) == 0 {
		return false
	}
	if s.nextOther() <= s.now { // but the event being handled (take)
		return false
	}
	if s.err != nil {
		return len(s.ready) > 0
	}
	if s.noFastPath {
		s.dirtyEngs.fill(len(s.engs))
	}
	// Only the engines marked since they were last found without work
	// (dirty.go): an unmarked engine is busy or has no resident and no
	// waiter.
	for i := s.dirtyEngs.next(0); i >= 0 && s.err == nil; i = s.dirtyEngs.next(i + 1) {
		e := &s.engs[i]
		if e.busy {
			s.dirtyEngs.clear(i) // its iteration's end marks it
			continue
		}
		if len(e.res) == 0 && !s.engineHasWaiters(e) {
			e.idle = false
			s.dirtyEngs.clear(i)
			continue
		}
		s.attempt(e)
		if e.busy {
			s.dirtyEngs.clear(i)
		}
	}
	return len(s.ready) > 0
}

func (s *Sim) engineHasWaiters(e *engine) bool {
	for _, p := range e.m.Admits {
		if len(s.pools[p].queue) > 0 {
			return true
		}
	}
	return false
}

// memHeld is the memory a resident holds in the engine's memory pool.
func (s *Sim) memHeld(e *engine, ss *session) float64 { return s.memHeldAs(e, ss, nil, 0, 0) }

// memHeldAs is memHeld with pool i of hold h (nil: none) counted as
// holding alloc, summed in the same order (quietGrowth: the memory after a
// growth).
func (s *Sim) memHeldAs(e *engine, ss *session, h *holdInst, i int, alloc float64) float64 {
	if e.m.Memory < 0 {
		return 0
	}
	sum := 0.0
	for _, x := range ss.holds {
		for k := range x.pools {
			if p := &x.pools[k]; p.pool == e.m.Memory && !p.released {
				if x == h && k == i {
					sum += alloc
				} else {
					sum += p.alloc
				}
			}
		}
	}
	return sum
}

func (s *Sim) setResidentCtx(e *engine) {
	ndec, kvb, kvp := 0, 0.0, 0.0
	for _, r := range e.res {
		m := s.memHeld(e, r)
		if r.job.mode == model.ModeDecode {
			ndec++
			kvb += m
		} else {
			kvp += m
		}
	}
	s.ctx[model.CtxRunningCount] = float64(len(e.res))
	s.ctx[model.CtxRunningDecoding] = float64(ndec)
	s.ctx[model.CtxRunningKVDecode] = kvb
	s.ctx[model.CtxRunningKVPrefill] = kvp
	w := 0
	for _, p := range e.m.Admits {
		w += len(s.pools[p].queue)
	}
	s.ctx[model.CtxWaitingCount] = float64(w)
}

func (s *Sim) attempt(e *engine) {
	s.curEng = e
	defer func() { s.curEng = nil }()
	ver := s.poolVer
	e.quiet.ok = false
	e.batchCtx = false
	s.setResidentCtx(e)
	budget := s.memoEval(&e.budgetM)
	e.chunk = 0
	if e.m.Chunk != nil {
		c := s.memoEval(&e.chunkM)
		if !math.IsInf(c, 1) {
			e.chunk = c
		}
	}
	e.left = budget
	e.preempted, e.admitted, e.attn = 0, 0, 0
	e.assign = e.assign[:0]
	e.iterNo++
	e.stopAdmit = false
	e.regBackup = append(e.regBackup[:0], e.regs...)
	if e.m.Serve == model.ServeExclusive {
		s.exclusiveAttempt(e, budget)
	} else {
		s.runSteps(e, e.steps)
	}
	if s.err != nil {
		return
	}
	if len(e.assign) == 0 && e.preempted == 0 {
		// No iteration. Register sets are undone unless the attempt
		// admitted someone (docs/engine.md §4).
		if e.admitted == 0 {
			copy(e.regs, e.regBackup)
		}
		e.idle = len(e.res) > 0 || s.engineHasWaiters(e)
		return
	}
	e.idle = false
	// the batch
	ntok, npre, ndec, kvb, kvp := 0.0, 0.0, 0, 0.0, 0.0
	cdec, cpre, psum := 0.0, 0.0, 0.0
	for _, r := range e.assign {
		ntok += r.job.assign
		m := s.memHeld(e, r)
		pos := 0.0
		if s.batchReads {
			pos = s.runPos(r)
		}
		if r.job.mode == model.ModeDecode {
			ndec++
			kvb += m
			cdec += pos
		} else {
			npre += r.job.assign
			kvp += m
			cpre += pos
			psum += pos * r.job.assign
		}
	}
	s.ctx[model.CtxRunningCount] = float64(len(e.res))
	s.ctx[model.CtxBatchTokens] = ntok
	s.ctx[model.CtxBatchPrefilled] = npre
	s.ctx[model.CtxBatchDecoding] = float64(ndec)
	s.ctx[model.CtxBatchKVDecode] = kvb
	s.ctx[model.CtxBatchKVPrefill] = kvp
	s.ctx[model.CtxBatchAttention] = e.attn
	if s.batchReads {
		s.ctx[model.CtxBatchCount] = float64(len(e.assign))
		s.ctx[model.CtxBatchPosition] = psum
		s.ctx[model.CtxBatchContextDecode] = cdec
		s.ctx[model.CtxBatchContextPrefill] = cpre
	}
	T := s.memoEval(&e.costM)
	s.claimIteration(e)
	if math.IsNaN(T) || T < 0 || (ntok > 0 && !(T > 0)) {
		s.fail(nil, e.stage.m.Pos, "engine `%s`: an iteration of %s tokens costs %s: it must take a positive time", e.stage.m.Label, fmtNum(ntok), fmtNum(T))
		return
	}
	e.busy = true
	s.engineChanged(e)
	e.epoch++
	e.iterT = s.now
	e.iters++
	e.decodes = ndec
	switch {
	case ndec > 0 && npre > 0:
		e.kind = iterMixed
	case ndec > 0:
		e.kind = iterDecode
	case npre > 0:
		e.kind = iterPrefill
	default:
		e.kind = iterNone
	}
	s.setIterStats(e, true)
	if s.warm && ndec > 0 {
		e.decBatchW.Add(float64(ndec))
		e.decStepW.Add(T)
	}
	e.stage.util.Set(s.now, 1)
	if s.traceIters && s.tracer != nil {
		s.traceDetail(nil, EvIteration, e.stage.m.Label, T,
			fmt.Sprintf("a batch of %d, %s, %s, %s in all", len(e.assign), plural(float64(npre), "prefill token", "prefill tokens"),
				plural(float64(ndec), "decode", "decodes"), plural(ntok, "token", "tokens")))
	}
	s.schedule(s.now+T, evIterEnd, int32(e.idx), e.epoch, nil)
	s.captureQuiet(e, budget, T, ndec, ver != s.poolVer)
}

// batchContext are the batch's context variables an attempt computes only
// for a program that reads one (Sim.batchReads): the others stay 0.
var batchContext = []model.Ctx{model.CtxBatchCount, model.CtxBatchPosition, model.CtxBatchContextDecode, model.CtxBatchContextPrefill}

// readsBatchContext reports whether an engine's cost or a claim reads one
// of batchContext.
func (s *Sim) readsBatchContext() bool {
	p := s.p
	var exprs []*model.Expr
	for i := range p.Engines {
		exprs = append(exprs, p.Engines[i].Cost)
	}
	for i := range p.Claims {
		exprs = append(exprs, p.Claims[i].Expr, p.Claims[i].Given)
	}
	for _, e := range exprs {
		for _, c := range s.readsOf(e).Ctx {
			if slices.Contains(batchContext, c) {
				return true
			}
		}
	}
	return false
}

// runPos is a resident's computed position on the pool its run grows:
// the tokens of KV its next token attends to (0 for a run that grows
// nothing, as serve reads it).
func (s *Sim) runPos(r *session) float64 {
	if r.job.growing < 0 {
		return 0
	}
	if h, i := innermost(r, r.job.growing); h != nil {
		return h.pools[i].pos
	}
	return 0
}

func (s *Sim) setIterStats(e *engine, running bool) {
	b := func(c bool) float64 {
		if c && running {
			return 1
		}
		return 0
	}
	e.prefOnlyI.Set(s.now, b(e.kind == iterPrefill))
	e.decOnlyI.Set(s.now, b(e.kind == iterDecode))
	e.mixedI.Set(s.now, b(e.kind == iterMixed))
	if running {
		e.decodesI.Set(s.now, float64(e.decodes))
	} else {
		e.decodesI.Set(s.now, 0)
	}
}

// runSteps runs schedule statements in order.
func (s *Sim) runSteps(e *engine, steps []model.SchedStep) {
	for i := range steps {
		if s.err != nil {
			return
		}
		st := &steps[i]
		switch st.Op {
		case model.SchedAdvance:
			s.advanceRunning(e, st)
		case model.SchedAdmit:
			s.admitWaiting(e, st)
		case model.SchedBranch:
			s.setBatchCtx(e)
			g := s.eval(st.Cond, nil)
			if g != 0 && g != 1 {
				s.fail(nil, e.stage.m.Pos, "engine `%s`: a schedule guard is %s, not 0 or 1", e.stage.m.Label, fmtNum(g))
				return
			}
			if g == 1 {
				s.runSteps(e, st.Then)
			} else {
				s.runSteps(e, st.Else)
			}
		case model.SchedSet:
			s.setBatchCtx(e)
			e.regs[st.Reg] = s.eval(st.Value, nil)
		}
	}
}

// setBatchCtx exposes the attempt so far to guards.
func (s *Sim) setBatchCtx(e *engine) {
	ntok, npre := 0.0, 0.0
	for _, r := range e.assign {
		ntok += r.job.assign
		if r.job.mode == model.ModePrefill {
			npre += r.job.assign
		}
	}
	s.ctx[model.CtxBatchTokens] = ntok
	s.ctx[model.CtxBatchPrefilled] = npre
	s.ctx[model.CtxRunningPreempted] = float64(e.preempted)
	s.ctx[model.CtxWaitingAdmitted] = float64(e.admitted)
	e.batchCtx = true
}

// nextResident is the first resident not yet served in this iteration,
// by the statement's keys, ties (and no keys) by admission sequence. It is
// re-read before each pick, as keys may read what serving changed.
func (s *Sim) nextResident(e *engine, keys []*model.Expr) *session {
	var best *session
	m := &s.keys.resident
	m.reset(len(keys))
	for _, r := range e.res {
		if r.job.servedIt == e.iterNo || r.job.passedStmt == e.stmtNo {
			continue
		}
		if len(keys) > 0 {
			s.runCtx(r)
			for k, key := range keys {
				m.cur[k] = s.eval(key, r)
			}
		}
		if c := m.cmp(); c > 0 || c == 0 && r.job.admSeq >= best.job.admSeq {
			continue
		}
		best = r
		m.take()
	}
	return best
}

// runCtx sets the per-run context variables of keys and `only`.
func (s *Sim) runCtx(r *session) {
	s.ctx[model.CtxDecoding] = 0
	if r.job.mode == model.ModeDecode {
		s.ctx[model.CtxDecoding] = 1
	}
	s.ctx[model.CtxAdmission] = float64(r.job.admSeq)
	s.ctx[model.CtxRemaining] = r.job.rem
}

func (s *Sim) advanceRunning(e *engine, st *model.SchedStep) {
	e.endStmt = false
	e.stmtNo++
	if len(st.Order) == 0 && !s.noFastPath {
		s.advanceInOrder(e, st)
		return
	}
	for e.left > 0 && s.err == nil && !e.endStmt {
		r := s.nextResident(e, st.Order)
		if r == nil {
			return
		}
		r.job.passedStmt = e.stmtNo
		s.serve(e, r, st.Only)
	}
}

// advanceInOrder is advanceRunning without keys: the residents in
// admission order, each served unless this iteration or statement passed
// it. nextResident's scan picks the same: the least admission sequence
// among those not passed, ties to the earlier in res (a stable sort), and
// serving adds no resident (a preemption only removes one, whose job then
// is on no stage). It sorts once where the scan reads every resident for
// every pick.
func (s *Sim) advanceInOrder(e *engine, st *model.SchedStep) {
	order := append(e.order[:0], e.res...)
	slices.SortStableFunc(order, func(a, b *session) int { return cmpSeq(a.job.admSeq, b.job.admSeq) })
	e.order = order
	for _, r := range order {
		if e.left <= 0 || s.err != nil || e.endStmt {
			break
		}
		if r.job.stage != int32(e.idx) || r.job.mode == model.ModeNone || r.job.servedIt == e.iterNo || r.job.passedStmt == e.stmtNo {
			continue
		}
		r.job.passedStmt = e.stmtNo
		s.serve(e, r, st.Only)
	}
	clear(e.order)
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// serve gives one resident its tokens for the iteration. A resident its
// statement's `only` excludes keeps its allocation, advances nothing, and
// may be served by a later statement of the schedule.
func (s *Sim) serve(e *engine, r *session, only *model.Expr) {
	j := &r.job
	if only != nil {
		s.runCtx(r)
		if s.eval(only, r) == 0 {
			return
		}
	}
	j.servedIt = e.iterNo
	var want float64
	if j.mode == model.ModeDecode {
		want = math.Min(1, j.rem)
	} else {
		want = j.rem
		if e.chunk > 0 {
			want = math.Min(want, e.chunk)
		}
		if g := float64(e.m.Granule); g > 0 && want < j.rem {
			if math.IsInf(g, 1) {
				want = 0
			} else {
				want = math.Floor(want/g) * g
			}
			if want == 0 {
				e.stopAdmit = true
				return
			}
		}
	}
	tok := math.Min(want, e.left)
	if g := float64(e.m.Granule); g > 0 && j.mode == model.ModePrefill && tok < j.rem {
		// all it has left, or a multiple of g; under `granule inf` a whole
		// prefill or nothing
		if math.IsInf(g, 1) {
			tok = 0
		} else {
			tok = math.Floor(tok/g) * g
		}
		if tok <= 0 {
			// a prefill the granule refuses ends the iteration's
			// admissions, as a scan stops at the first context that
			// does not fit
			e.stopAdmit = true
			return
		}
	}
	if tok <= 0 {
		return
	}
	pos := 0.0
	if j.growing >= 0 {
		if j.stalled {
			return
		}
		h, i := innermost(r, j.growing)
		if h == nil {
			s.fail(r, model.Pos{}, "a growing run outside a hold of `%s`", s.pools[j.growing].m.Label)
			return
		}
		hp := &h.pools[i]
		pos = hp.pos
		need := pos + tok - hp.alloc
		if need > unitTol {
			r.growHold, r.growIdx, r.growBy = h, i, need
			switch s.tryGrowEngine(e, r) {
			case growSelf:
				e.endStmt = true
				return
			case growWait:
				j.stalled = true
				return
			}
		}
	}
	if j.mode == model.ModePrefill {
		e.attn += tok * (pos + tok/2)
	}
	j.assign = tok
	if j.start < 0 {
		j.start = s.now
	}
	e.assign = append(e.assign, r)
	e.left -= tok
}

// tryGrowEngine grows a resident's memory inside an iteration; victims
// are the engine's residents holding the pool, the last admitted first. A
// resident that must wait stalls (the caller marks it), it does not queue.
func (s *Sim) tryGrowEngine(e *engine, r *session) growResult {
	res := s.growCore(r, e)
	if res == growWait {
		r.growHold = nil
	}
	return res
}

// admitWaiting admits from the engine's pools, in declaration order, while
// budget is left, the head fits and the statement's gate holds.
func (s *Sim) admitWaiting(e *engine, st *model.SchedStep) {
	for e.left > 0 && !e.stopAdmit && s.err == nil {
		if st.While != nil {
			s.setBatchCtx(e)
			var g float64
			if st.While == e.gateM.e {
				g = s.memoEval(&e.gateM)
			} else {
				g = s.eval(st.While, nil)
			}
			if g != 0 && g != 1 {
				s.fail(nil, e.stage.m.Pos, "engine `%s`: a schedule guard is %s, not 0 or 1", e.stage.m.Label, fmtNum(g))
				return
			}
			if g == 0 {
				return
			}
		}
		ss, ok := s.admitHead(e, e.left)
		if !ok {
			return
		}
		// `running.…` are the residents as they stand: the session just
		// admitted is one of them when its `only` is read
		s.setResidentCtx(e)
		if ss.job.stage == int32(e.idx) && ss.job.mode != model.ModeNone && ss.job.servedIt != e.iterNo {
			ss.job.servedIt = e.iterNo
			s.serve(e, ss, st.Only)
		}
	}
}

// admitHead admits the head E tries next — the selected waiter of the
// first of its pools, in declaration order, that has one — if it fits with
// budget_left(E) = budget in its header, and runs its session until it
// blocks. ok is false when no pool has a waiter or the head does not fit,
// which stops the iteration's admissions.
func (s *Sim) admitHead(e *engine, budget float64) (admitted *session, ok bool) {
	for _, p := range e.m.Admits {
		pl := &s.pools[p]
		if len(pl.queue) == 0 {
			continue
		}
		// the queue's keys, like the head's header, read the budget
		// the iteration has left
		s.budgetOverride, s.budgetEngine = budget, e
		h := s.selectHead(pl)
		if !s.fits(h) {
			s.budgetEngine = nil
			e.stopAdmit = true
			return nil, false
		}
		s.moveToFront(pl, h)
		s.admitNow(h)
		e.admitted++
		return h.owner, true
	}
	return nil, false
}

// exclusiveAttempt is `exclusive prefill; admit waiting while
// (running.preempted == 0);`: a running prefill runs alone, with the whole
// budget; otherwise the decodes are chosen tentatively, and a waiting
// request that fits (its header's budget_left the full budget) and reaches
// a prefill displaces them and takes the budget, after which nothing more
// is admitted. Nothing is admitted when the decodes used the whole budget.
// Displaced decodes keep the blocks they grew but compute nothing.
func (s *Sim) exclusiveAttempt(e *engine, budget float64) {
	var pre *session
	for _, r := range e.res {
		if r.job.mode == model.ModePrefill && (pre == nil || r.job.admSeq < pre.job.admSeq) {
			pre = r
		}
	}
	if pre != nil {
		pre.job.servedIt = e.iterNo
		s.serve(e, pre, nil)
		return
	}
	s.advanceRunning(e, &model.SchedStep{Op: model.SchedAdvance})
	// Admission needs budget left after the decodes, as anywhere else; a
	// prefill admitted then takes the whole budget.
	for e.preempted == 0 && !e.stopAdmit && e.left > 0 && s.err == nil {
		ss, ok := s.admitHead(e, budget)
		if !ok {
			return
		}
		if ss.job.stage != int32(e.idx) || ss.job.servedIt == e.iterNo {
			continue
		}
		if ss.job.mode == model.ModePrefill {
			for _, r := range e.assign {
				r.job.assign = 0
			}
			e.assign = e.assign[:0]
			e.left, e.attn = budget, 0
			ss.job.servedIt = e.iterNo
			s.serve(e, ss, nil)
			return
		}
		ss.job.servedIt = e.iterNo
		s.serve(e, ss, nil)
	}
}

// admitNow admits a hold and runs its session until it blocks.
func (s *Sim) admitNow(h *holdInst) {
	s.admit(h)
	s.budgetEngine = nil
	ss := h.owner
	// admit made it ready; run it now instead
	for k := s.readyHead; k < len(s.ready); k++ {
		if s.ready[k] == ss {
			s.ready[k] = nil
			copy(s.ready[k:], s.ready[k+1:])
			s.ready = s.ready[:len(s.ready)-1]
			break
		}
	}
	s.exec(ss)
}

func (s *Sim) iterEnd(idx int, epoch uint32) {
	e := s.stages[idx].eng
	if e == nil || e.epoch != epoch || !e.busy {
		return
	}
	e.busy = false
	s.engineChanged(e)
	s.dirtyEngs.set(e.ei)
	e.stage.util.Set(s.now, 0)
	e.kind = iterNone
	s.setIterStats(e, false)
	for _, r := range e.assign {
		j := &r.job
		tok := j.assign
		j.assign = 0
		if j.stage != int32(idx) {
			continue
		}
		j.rem -= tok
		e.servedTokens += tok
		if j.growing >= 0 {
			if h, i := innermost(r, j.growing); h != nil {
				h.advanced = true
				h.pools[i].pos += tok
				if j.mode == model.ModePrefill && prefixOn(h, i) {
					s.prefixCompute(h, i)
				}
			}
		}
		if j.mode == model.ModeDecode {
			if s.warm && r.lastTok > 0 {
				gap := s.now - r.lastTok
				e.itl.Add(gap)
				e.itlW.Add(gap)
			}
			r.lastTok = s.now
		}
		if j.rem <= unitTol {
			if j.mode == model.ModePrefill {
				r.lastTok = s.now
			}
			s.leaveEngine(e, r)
		}
	}
	e.assign = e.assign[:0]
}

func (s *Sim) leaveEngine(e *engine, r *session) {
	e.res = without(e.res, r)
	e.resGen++ // iterEnd, its only caller, notes the change (engineChanged)
	stg := e.stage
	if s.tracer != nil {
		kind := EvDecodeDone
		if r.job.mode == model.ModePrefill {
			kind = EvPrefillDone
		}
		s.trace(r, kind, stg.m.Label, 0)
	}
	stg.present--
	stg.num.Set(s.now, float64(stg.present))
	if s.warm {
		stg.done++
		start := r.job.start
		if start < 0 {
			start = s.now
		}
		stg.waitW.Add(start - r.job.enq)
		stg.svcW.Add(s.now - start)
	}
	r.job.stage = -1
	r.job.mode = model.ModeNone
	s.makeReady(r)
}

// budgetLeft is budget_left(E): inside an admission of E, the attempt's
// left; elsewhere B − Σ want over the residents as they stand.
func (s *Sim) budgetLeft(stg *stage) float64 {
	e := stg.eng
	if e == nil {
		return 0
	}
	if s.budgetEngine == e {
		return s.budgetOverride
	}
	saved := s.ctx
	s.setResidentCtx(e)
	prev := s.curEng
	s.curEng = e
	b := s.eval(e.m.Budget, nil)
	c := 0.0
	if e.m.Chunk != nil {
		c = s.eval(e.m.Chunk, nil)
		if math.IsInf(c, 1) {
			c = 0
		}
	}
	s.curEng = prev
	s.ctx = saved
	for _, r := range e.res {
		if r.job.mode == model.ModeDecode {
			b -= math.Min(1, r.job.rem)
		} else if c > 0 {
			b -= math.Min(r.job.rem, c)
		} else {
			b -= r.job.rem
		}
	}
	return math.Max(0, b)
}

func (s *Sim) engineObservable(stg *stage, f model.Func) float64 {
	e := stg.eng
	switch f {
	case model.SQueue:
		return float64(len(e.res))
	case model.SBusy:
		if e.busy {
			return float64(len(e.assign))
		}
		return 0
	case model.SWork:
		w := 0.0
		for _, r := range e.res {
			w += r.job.rem
		}
		return w
	}
	return 0
}
