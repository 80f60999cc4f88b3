package interp

import (
	"math"
	"slices"

	"github.com/serq/serq/model"
)

type frameKind uint8

const (
	fBlock frameKind = iota
	fLoop
	fWhile
	fTurn
	fHold
	fRoot
	fReading // a reading entry (faults.go): aux is the reader's member
	fTry     // an entry call with `retry`: aux is the tries made again
)

type frame struct {
	b    *model.Block
	cb   *cblock // b's compiled statements (compile.go), nil on the reference path
	pc   int
	kind frameKind
	aux  int32 // fReading's member, fTry's retries so far
	st   *model.Stmt
	hold *holdInst
}

type sessState uint8

const (
	sReady sessState = iota
	sBlocked
	sDone
)

// session is a session, or a fork leg of one (parent != nil). It is an
// explicit continuation: frames over the model's blocks.
type session struct {
	sessionVals // the fields without pointers: newSession clears them at once

	attrs  []float64
	frames []frame

	stream     *stream // the session's own statements
	turnStream *stream // init and turn blocks

	parent *session // a leg's session

	holds  []*holdInst // innermost last
	leases []*holdInst // allocations that outlived their scope
	cache  []*cacheEntry

	expired []expiredLease // its leases of this turn that expired (faults.go)

	waitHold   *holdInst
	resumeHold *holdInst // set by a preemption: the hold re-executes
	growHold   *holdInst // a pending growth
}

// sessionVals are a session's fields that hold no pointer.
type sessionVals struct {
	serial uint64
	gen    uint32 // bumped whenever a scheduled event about it goes stale
	state  sessState

	legs    int    // legs running
	joining bool   // waiting at a join
	legNo   uint64 // legs forked so far (the counter of the leg streams)
	legID   uint64 // a leg's number among its session's legs, from 1

	turnStart float64
	inTurn    bool
	ttftDone  bool

	liveIdx int

	// the job the session waits for
	job job

	// livelock guard: how often it became ready at readyAt
	readyAt    float64
	readyCount int

	admSeq      uint64 // latest admission
	waitingHold bool
	preempted   bool
	growIdx     int
	growBy      float64
	lastTok     float64 // time of the last token (ITL)
	cachePools  uint64  // bit p&63 for every pool p of an entry in cache (addEntry, ownEntry)
	traceIdx    int     // the recorded session it replays
	traceTurn   int
	turns       uint64 // turns started: keys the turn stream, whatever the program sets turn_no to
	spillJob    bool   // the session of a spill's job (spill.go): no statements

	// A program that can fail (faults.go).
	reqID      uint32  // the request of its turn: a timeout or a backoff names it
	cause      int32   // 1 + the cause its last failed request failed of (Sim.causes)
	readFailed bool    // a read failed under `recompute`: its load and release are skipped
	rejected   bool    // ended by a request that could never fit
	failAt     float64 // when its last request failed (for the debugger)
	backoff    float64 // a retry's backoff ends then; 0: none (for the debugger)
}

func (ss *session) top() *frame { return &ss.frames[len(ss.frames)-1] }

// pushFrame pushes a frame over block b (cb its compiled form or nil). The
// frame is zeroed in place and its fields set there: a frame built aside
// and copied in costs a stalled copy on every turn.
func (ss *session) pushFrame(b *model.Block, cb *cblock, kind frameKind, st *model.Stmt) {
	ss.frames = append(ss.frames, frame{})
	f := &ss.frames[len(ss.frames)-1]
	f.b, f.cb, f.kind, f.st = b, cb, kind, st
}

func (s *Sim) newSession() *session {
	var ss *session
	if n := len(s.free); n > 0 {
		ss = s.free[n-1]
		s.free = s.free[:n-1]
		// cleared in place: the values at once, the pointers one by one
		// (the streams and the slices' arrays are kept for reuse)
		gen := ss.gen + 1
		ss.sessionVals = sessionVals{}
		ss.gen = gen
		ss.frames, ss.holds, ss.leases, ss.cache = ss.frames[:0], ss.holds[:0], ss.leases[:0], ss.cache[:0]
		ss.expired = ss.expired[:0]
		ss.parent, ss.waitHold, ss.resumeHold, ss.growHold = nil, nil, nil, nil
		for i := range ss.attrs {
			ss.attrs[i] = 0
		}
	} else {
		ss = &session{attrs: make([]float64, len(s.p.Attrs)), stream: newStream(), turnStream: newStream()}
	}
	ss.job.stage = -1
	ss.job.flow = -1
	return ss
}

func (s *Sim) startSession() {
	ss := s.newSession()
	ss.serial = s.arrivals - 1
	ss.attrs[s.p.Builtin.Serial] = float64(ss.serial)
	ss.stream.seedHashed(s.hashSession, kindSession, ss.serial, 0)
	if s.traceData != nil { // a trace workload
		s.traceSession(ss)
	}
	ss.liveIdx = len(s.live)
	s.live = append(s.live, ss)
	s.liveAvg.Add(s.now, 1)
	// init runs at arrival with the (session, 0) substream.
	ss.turnStream.seedHashed(s.hashTurn, kindTurn, ss.serial, 0)
	s.runInline(ss, s.p.Workload.Init, s.cprog.init, ss.turnStream)
	if len(s.p.Claims) > 0 {
		s.claimGiven(ss)
	}
	ss.pushFrame(s.p.Workload.Session, s.cprog.session, fRoot, nil)
	s.trace(ss, EvArrived, "", 0)
	s.makeReady(ss)
}

// runInline runs a block of commands (init/turn) at once; cb is its
// compiled form or nil.
func (s *Sim) runInline(ss *session, b *model.Block, cb *cblock, st *stream) {
	if cb != nil {
		for i := range cb.stmts {
			if s.reach != nil {
				s.reached(ss, cb.stmts[i].st)
			}
			switch cs := &cb.stmts[i]; cs.op {
			case model.OpSet:
				ss.attrs[cs.slot] = s.cval(&cs.val, ss, st)
			case model.OpObserve:
				s.observe(ss, cs.slot, s.cval(&cs.val, ss, st))
			}
		}
		return
	}
	for _, stmt := range b.Stmts {
		if s.reach != nil {
			s.reached(ss, stmt)
		}
		switch stmt.Op {
		case model.OpSet:
			ss.attrs[stmt.Slot] = s.evalWith(stmt.Value, ss, st)
		case model.OpObserve:
			s.observe(ss, stmt.Slot, s.evalWith(stmt.Value, ss, st))
		}
	}
}

func (s *Sim) observe(ss *session, slot int, v float64) {
	if s.tracer != nil {
		s.trace(ss, EvObserved, s.p.Observes[slot], v)
	}
	if s.keepObs[slot] {
		s.claimObs[slot].Add(v)
	}
	if !s.warm {
		return
	}
	o := &s.obs[slot]
	if o.Lean() && s.opt.Dump == nil {
		o.AddLean(v) // the value alone: no time, session or turn is kept
		return
	}
	turn := uint32(ss.attrs[s.p.Builtin.TurnNo])
	o.Add(s.now, ss.serial, turn, v)
	if s.opt.Dump != nil {
		s.opt.Dump.Sample(slot, Sample{Time: s.now, Session: ss.serial, Turn: turn, Value: v})
	}
}

func (s *Sim) makeReady(ss *session) {
	if ss.readyAt != s.now {
		ss.readyAt, ss.readyCount = s.now, 0
	}
	ss.readyCount++
	if ss.readyCount > 1000 {
		s.fail(ss, model.Pos{}, "made ready 1000 times at one instant: a livelock")
		return
	}
	ss.state = sReady
	s.ready = append(s.ready, ss)
}

// settle runs ready sessions until none is ready, then lets pools and
// engines act (docs/engine.md §1).
func (s *Sim) settle() {
	for s.err == nil {
		for s.readyHead < len(s.ready) && s.err == nil {
			ss := s.ready[s.readyHead]
			s.ready[s.readyHead] = nil
			s.readyHead++
			if ss.state == sReady {
				s.exec(ss)
			}
		}
		s.ready = s.ready[:0]
		s.readyHead = 0
		if s.err != nil {
			return
		}
		// without pools nothing is admitted; without engines none starts
		// (the reference path asks all the same)
		if (len(s.pools) > 0 || s.noFastPath) && s.admitSettle() {
			continue
		}
		if len(s.engs) == 0 && !s.noFastPath || !s.startEngines() {
			break
		}
	}
	if s.err != nil {
		return
	}
	// reschedule looks only at the ps stages and flows marked (but for
	// the reference path, which looks at all)
	if s.noFastPath || !s.dirtyStages.empty() || len(s.flows.touched) > 0 {
		s.reschedule()
	}
}

const maxStatements = 1000000

// exec runs a session until it blocks or ends.
func (s *Sim) exec(ss *session) {
	if ss.spillJob {
		s.spillDone(ss)
		return
	}
	steps := 0
	for s.err == nil {
		if len(ss.frames) == 0 {
			s.endThread(ss)
			return
		}
		fi := len(ss.frames) - 1
		f := &ss.frames[fi]
		if f.pc >= len(f.b.Stmts) {
			if !s.exitFrame(ss, f) {
				return
			}
			continue
		}
		var cs *cstmt
		if cb := f.cb; cb != nil {
			// the frame's sets and observes in a row, in their compiled
			// forms, as execStmt runs them
			for cs = &cb.stmts[f.pc]; cs.op == model.OpSet || cs.op == model.OpObserve; cs = &cb.stmts[f.pc] {
				f.pc++
				if steps++; steps > maxStatements {
					s.fail(ss, cs.st.Pos, "ran %d statements without blocking: a livelock", maxStatements)
					return
				}
				s.curStmt = cs.st
				if s.reach != nil {
					s.reached(ss, cs.st)
				}
				v := s.cval(&cs.val, ss, ss.stream)
				if cs.op == model.OpSet {
					ss.attrs[cs.slot] = v
				} else {
					s.observe(ss, cs.slot, v)
				}
				if s.err != nil {
					return
				}
				if f.pc >= len(cb.stmts) {
					break
				}
			}
			if f.pc >= len(cb.stmts) {
				continue // the frame's end, above
			}
		}
		st := f.b.Stmts[f.pc]
		f.pc++
		steps++
		if steps > maxStatements {
			s.fail(ss, st.Pos, "ran %d statements without blocking: a livelock", maxStatements)
			return
		}
		s.curStmt = st
		if s.reach != nil {
			s.reached(ss, st)
		}
		if !s.execStmt(ss, st, cs) {
			return
		}
	}
}

// exitFrame handles the end of a frame's block; false means the session
// blocked or ended.
func (s *Sim) exitFrame(ss *session, f *frame) bool {
	switch f.kind {
	case fLoop:
		f.pc = 0
		return true
	case fWhile:
		g, ok := s.guard(ss, f.st, "while")
		if !ok {
			return false
		}
		if g == 1 {
			f.pc = 0
			return true
		}
	case fTurn:
		ss.inTurn = false
		if s.p.AutoResponse >= 0 {
			s.observe(ss, s.p.AutoResponse, s.now-ss.turnStart)
		}
	case fHold:
		h := f.hold
		ss.frames = ss.frames[:len(ss.frames)-1]
		s.holdExit(ss, h)
		return s.err == nil
	case fReading:
		s.stopReading(ss, f)
	case fRoot:
		ss.frames = ss.frames[:len(ss.frames)-1]
		s.endThread(ss)
		return false
	}
	ss.frames = ss.frames[:len(ss.frames)-1]
	return true
}

func (s *Sim) guard(ss *session, st *model.Stmt, what string) (float64, bool) {
	g := s.eval(st.Value, ss)
	if g != 0 && g != 1 {
		s.fail(ss, st.Pos, "the guard of `%s` is %s, not 0 or 1", what, fmtNum(g))
		return 0, false
	}
	return g, true
}

// execStmt runs one statement, cs its compiled form or nil; false means
// the session blocked or ended.
func (s *Sim) execStmt(ss *session, st *model.Stmt, cs *cstmt) bool {
	switch st.Op {
	case model.OpSet:
		ss.attrs[st.Slot] = s.value(cs, st.Value, ss)
	case model.OpObserve:
		s.observe(ss, st.Slot, s.value(cs, st.Value, ss))
	case model.OpBranch:
		var g float64
		if st.Value.Op == model.EDraw && st.Value.Fn == model.DBernoulli {
			g = s.eval(st.Value, ss) // branch with: always 0 or 1
		} else {
			var ok bool
			if g, ok = s.guard(ss, st, "branch"); !ok {
				return false
			}
		}
		if g == 1 {
			ss.pushFrame(st.Body, cs.bodyBlock(), fBlock, nil)
		} else if st.Else != nil {
			ss.pushFrame(st.Else, cs.elseBlock(), fBlock, nil)
		}
	case model.OpWhile:
		g, ok := s.guard(ss, st, "while")
		if !ok {
			return false
		}
		if g == 1 {
			ss.pushFrame(st.Body, cs.bodyBlock(), fWhile, st)
		}
	case model.OpLoop:
		ss.pushFrame(st.Body, cs.bodyBlock(), fLoop, st)
	case model.OpChoose:
		if !s.choose(ss, st) {
			return false
		}
	case model.OpEnd:
		if ss.parent != nil {
			s.fail(ss, st.Pos, "a leg may not end its session")
			return false
		}
		s.endSession(ss, st.Pos)
		return false
	case model.OpTurn:
		s.turn(ss)
	case model.OpRun:
		return s.runWork(ss, st, s.value(cs, st.Value, ss))
	case model.OpFork:
		s.fork(ss, st, cs.bodyBlock())
	case model.OpJoin:
		if ss.legs > 0 {
			ss.joining = true
			ss.state = sBlocked
			return false
		}
	case model.OpHold:
		return s.hold(ss, st)
	case model.OpGrow:
		return s.grow(ss, st)
	case model.OpRelease:
		if st.Read {
			s.readEnd(ss, st)
		} else {
			s.release(ss, st)
		}
	case model.OpLoad:
		s.load(ss, st)
	case model.OpDrop:
		s.drop(ss, st)
	case model.OpReading:
		return s.enterReading(ss, st)
	case model.OpTry:
		ss.pushFrame(st.Body, nil, fTry, st)
	}
	return s.err == nil
}

func (s *Sim) turn(ss *session) {
	no := ss.attrs[s.p.Builtin.TurnNo] + 1
	ss.attrs[s.p.Builtin.TurnNo] = no
	if s.warm {
		s.turns++
	}
	ss.turns++
	ss.turnStream.seedHashed(s.hashTurn, kindTurn, ss.serial, ss.turns)
	if s.traceData != nil {
		s.traceNext(ss)
	}
	if len(s.p.Workload.Turn.Stmts) > 0 {
		s.runInline(ss, s.p.Workload.Turn, s.cprog.turn, ss.turnStream)
	}
	if s.p.Server == nil {
		return
	}
	ss.turnStart = s.now
	ss.inTurn = true
	ss.ttftDone = false
	if s.canFail {
		s.startTimeout(ss)
	}
	ss.pushFrame(s.p.Server, s.cprog.server, fTurn, nil)
}

// choose runs a choose statement; false: the request failed (no member
// up, faults.go) or the run did.
func (s *Sim) choose(ss *session, st *model.Stmt) bool {
	n := math.Floor(s.eval(st.N, ss))
	if n > maxChoose {
		s.fail(ss, st.Pos, "`choose` over %s candidates, more than %d, the limit", fmtNum(n), maxChoose)
		return false
	}
	if st.Among != 0 && s.queueFirst != nil {
		return s.chooseAmong(ss, st, n) && s.err == nil
	}
	x := s.chooseIndexOf(ss, st, n)
	if x != nil && x.ok {
		// an indexed choose (chooseindex.go): the leaves brought up to
		// date even under a tracer, so that its state is the untraced run's
		if w := s.pick(x, ss); w >= 0 && s.tracer == nil {
			ss.attrs[st.Slot] = float64(w)
			return true
		}
	}
	m := &s.keys.choose
	m.reset(len(st.Keys))
	bestJ := 0.0
	// reading a key has no effect (scanLimit): a candidate's keys are read
	// only while they tie the best's, and all of them once one wins
	lazy := x != nil && s.tracer == nil && n <= float64(x.lazyN)
	for j := 0.0; j < n; j++ {
		ss.attrs[st.Slot] = j
		if lazy && m.has {
			if s.chooseWins(ss, st.Keys, m) {
				bestJ = j
				m.take()
			}
			continue
		}
		for k, key := range st.Keys {
			m.cur[k] = s.eval(key, ss)
		}
		if s.tracer != nil {
			s.noteChoice(j, m.cur[:len(st.Keys)])
		}
		if m.cmp() < 0 {
			bestJ = j
			m.take()
		}
	}
	ss.attrs[st.Slot] = bestJ
	m.reset(0) // scratch, left empty as an indexed pick leaves it
	if s.tracer != nil {
		s.traceChoice(ss, st, bestJ, n)
	}
	return s.err == nil
}

// chooseWins compares the candidate's keys with the best's (m.best) as
// keyMin.cmp does, reading each only while the ones before it tie (a NaN
// ties), and reports whether the candidate is less; then all its keys are
// in m.cur.
func (s *Sim) chooseWins(ss *session, keys []*model.Expr, m *keyMin) bool {
	for k, key := range keys {
		v := s.eval(key, ss)
		m.cur[k] = v
		if v > m.best[k] {
			return false
		}
		if v < m.best[k] {
			for k2 := k + 1; k2 < len(keys); k2++ {
				m.cur[k2] = s.eval(keys[k2], ss)
			}
			return true
		}
	}
	return false
}

// endSession ends a session: holds and leases are released, cached
// prefixes stay.
func (s *Sim) endSession(ss *session, pos model.Pos) {
	if ss.legs > 0 {
		s.fail(ss, pos, "the session ends while a leg it forked runs")
		return
	}
	for len(ss.holds) > 0 {
		s.unwindHold(ss, ss.holds[len(ss.holds)-1], false)
	}
	for len(ss.leases) > 0 {
		s.endLease(ss, ss.leases[len(ss.leases)-1])
	}
	for _, e := range ss.cache {
		e.owner = nil
	}
	if s.canFail {
		s.sessionOutcome(ss)
	}
	s.trace(ss, EvEnded, "", 0)
	ss.frames = ss.frames[:0]
	ss.state = sDone
	if s.warm {
		s.ended++
	}
	last := len(s.live) - 1
	moved := s.live[last]
	s.live[ss.liveIdx] = moved
	moved.liveIdx = ss.liveIdx
	s.live[last] = nil
	s.live = s.live[:last]
	s.liveAvg.Add(s.now, -1)
	if s.p.Workload.Arrive == model.ArriveClosed {
		s.schedule(s.now, evArrive, 0, 0, nil)
	}
	ss.gen++
	s.free = append(s.free, ss)
}

// endThread is the end of a session's or a leg's root block.
func (s *Sim) endThread(ss *session) {
	if ss.parent == nil {
		s.endSession(ss, model.Pos{})
		return
	}
	// A leg ends: its leases pass to the session.
	p := ss.parent
	for len(ss.holds) > 0 {
		s.unwindHold(ss, ss.holds[len(ss.holds)-1], false)
	}
	for _, l := range ss.leases {
		l.owner = p
		p.leases = append(p.leases, l)
		if s.canFail {
			s.trackIfRead(p, l)
		}
	}
	ss.leases = ss.leases[:0]
	ss.state = sDone
	for k, l := range s.legsLive {
		if l == ss {
			s.legsLive = append(s.legsLive[:k], s.legsLive[k+1:]...)
			break
		}
	}
	p.legs--
	if p.legs == 0 && p.joining {
		p.joining = false
		s.makeReady(p)
	}
	ss.gen++
}

func (s *Sim) fork(ss *session, st *model.Stmt, body *cblock) {
	leg := &session{attrs: append([]float64(nil), ss.attrs...), stream: newStream(), parent: ss}
	leg.job.stage, leg.job.flow = -1, -1
	leg.serial = ss.serial
	ss.legNo++
	leg.stream.seed(s.opt.Seed, kindLeg, ss.serial, ss.legNo)
	leg.legID = ss.legNo
	leg.pushFrame(st.Body, body, fRoot, nil)
	ss.legs++
	s.legsLive = append(s.legsLive, leg)
	s.makeReady(leg)
}

// without removes the first x from s, keeping the order and clearing the
// freed slot.
func without[T comparable](s []T, x T) []T {
	if k := slices.Index(s, x); k >= 0 {
		return slices.Delete(s, k, k+1)
	}
	return s
}
