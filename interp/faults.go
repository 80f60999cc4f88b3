package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/serq/serq/model"
)

// Failures and lease lifetimes (docs/engine.md §7): members and stages
// that go down and come back, requests that fail, leases renewed by their
// reader and leases that expire, reads of an expired or a lost lease, and
// the client's time budget.
//
// A program that can fail a request (model.Builtins.Failed != 0: it states
// faults, a timeout, a renewed lease, a read policy or a retry) sets
// Sim.canFail; every hook below is behind it or behind state only such a
// program makes, so a program that cannot fail runs event for event as it
// did before (the lease expiry's re-check of its end is the one exception,
// and it never re-pushes without a renewal).
//
// Members. A queue's member (`D[0]`) is its engine, its pools and its
// stages (its NIC, its serve stage, a relation's latency stage of the
// member that posts). When it goes down:
//   - every request that touches it fails: one running or waiting on its
//     engine, queued at or holding one of its pools, growing in one, with a
//     job on one of its stages, or at an entry it reads for (failRequest);
//     a read whose flow crosses it as the source fails instead, and the
//     reading entry's policy applies (failRead);
//   - its pools lose their contents: leases of them are lost (counted),
//     cache entries wiped; a hold of them that unwinds caches nothing;
//   - its engine's iteration in flight is abandoned, and it renews no lease;
//   - while it is down, a request that reaches it fails at once, and a
//     `choose` among its queue skips it once the router sees it down.
//
// It comes back empty. A stage that goes down alone fails its jobs (`fail`)
// or, a shared ps stage, carries its flows at rate 0 (`stall`).
//
// Requests. A failed request unwinds to its turn: its legs end, its holds
// are released (caching what each computed, but in a pool that went down),
// and its leases are left to expire (stranded), but for the lease a reading
// entry reads when the request is given up there (a timeout): the reader
// tells the source, which frees it at once. The turn ends with `failed` = 1
// and no `response`. An entry call with `retry (n) after (b)` catches the
// failure first: it is made again b later, up to n times.
//
// Leases. A lease with `renew every (h) for (x)` is renewed by the member
// whose reading entry the session is at: each member keeps one clock,
// ticking every h from its first lease, and a tick sets every lease it
// tracks to end at max(end, now + x). The expiry event re-checks the
// lease's end and goes on the calendar again when a renewal moved it.

// member is a queue's member: the resources that fail together.
type member struct {
	label  string  // "D[0]"
	pools  []int32 // its pools
	stages []int32 // its engine or serve stage, NIC and latency stages

	down      int     // the faults that hold it down now (0: up)
	downSince float64 // when it last went down
	downs     uint64  // times it went down
	downTime  float64 // time spent down, ended spells only
	changes   []stateChange

	// The renewal clock (renewTick).
	tracked  []*holdInst // live leases it renews
	every    float64     // its interval: the renew clause of its first lease
	lastTick float64     // the time of its last tick, -Inf before the first
	ticking  bool
	tickGen  uint32 // bumped to cancel the pending tick
}

// stateChange is a member going down (down true) or up at time t.
type stateChange struct {
	t    float64
	down bool
}

// faultTarget is one member or stage a line of the faults block names,
// with the stream its random laws draw from.
type faultTarget struct {
	f      *model.Fault
	member int32 // members index, or -1
	stage  int32 // stage index, or -1
	stream *stream
}

// expiredLease is a session's lease that expired in its turn: its pool and
// when.
type expiredLease struct {
	pool int32
	t    float64
}

// expiredAt is when the session's lease of pool p expired in this turn, -1
// if none did.
func (ss *session) expiredAt(p int) float64 {
	for _, e := range ss.expired {
		if int(e.pool) == p {
			return e.t
		}
	}
	return -1
}

// failCause counts the requests and sessions that failed of one cause.
type failCause struct {
	Cause    string
	Requests uint64
	Sessions uint64
}

// initFaults builds the members of a program that can fail, and puts the
// faults' first failures on the calendar.
func (s *Sim) initFaults() {
	p := s.p
	s.canFail = p.Builtin.Failed != 0
	if !s.canFail && len(p.Pictures) == 0 && !s.readsUp() {
		return
	}
	s.poolMember = make([]int32, len(s.pools))
	s.stageMember = make([]int32, len(s.stages))
	for i := range s.poolMember {
		s.poolMember[i] = -1
	}
	for i := range s.stageMember {
		s.stageMember[i] = -1
	}
	s.queueFirst = make([]int32, len(p.Queues))
	for qi := range p.Queues {
		q := &p.Queues[qi]
		s.queueFirst[qi] = int32(len(s.members))
		for i := 0; i < q.Count; i++ {
			// labelled as its pools are, `D[0]` in a queue of one too
			m := member{label: fmt.Sprintf("%s[%d]", q.Name, i), lastTick: math.Inf(-1)}
			id := int32(len(s.members))
			for _, fam := range q.Pools {
				pl := int32(p.PoolFams[fam].First + i)
				m.pools = append(m.pools, pl)
				s.poolMember[pl] = id
			}
			stageFams := []int{q.Stage, q.Nic}
			for _, r := range p.Relations {
				if r.Stage >= 0 && p.StageFams[r.Stage].Count == q.Count && (r.Kind == "pull" && r.Reader == q.Name || r.Kind == "push" && r.Source == q.Name) {
					stageFams = append(stageFams, r.Stage)
				}
			}
			for _, fam := range stageFams {
				if fam >= 0 {
					st := int32(p.StageFams[fam].First + i)
					m.stages = append(m.stages, st)
					s.stageMember[st] = id
				}
			}
			s.members = append(s.members, m)
		}
	}
	for li := range p.Faults {
		f := &p.Faults[li]
		n := 1
		switch {
		case f.Index >= 0:
		case f.Queue >= 0:
			n = p.Queues[f.Queue].Count
		default:
			n = p.StageFams[f.Stage].Count
		}
		for k := 0; k < n; k++ {
			i := f.Index
			if i < 0 {
				i = k
			}
			t := faultTarget{f: f, member: -1, stage: -1, stream: newStream()}
			if f.Queue >= 0 {
				t.member = s.queueFirst[f.Queue] + int32(i)
			} else {
				t.stage = int32(p.StageFams[f.Stage].First + i)
			}
			// its own stream: adding faults moves no other draw
			t.stream.seed(s.opt.Seed, kindFault, uint64(li), uint64(i))
			s.faults = append(s.faults, t)
			id := int32(len(s.faults) - 1)
			if at, ok := f.At.IsConst(); ok && f.At != nil {
				s.schedule(at, evFaultDown, id, 0, nil)
			} else if ttf, ok := s.faultLaw(&s.faults[id], f.After, "a time to failure"); ok {
				s.schedule(ttf, evFaultDown, id, 0, nil)
			}
		}
	}
}

// readsUp reports whether the program reads up(…) anywhere.
func (s *Sim) readsUp() bool {
	found := false
	look := func(e *model.Expr) { found = found || s.readsOf(e).Any(model.OpBits(model.EUp)) }
	s.p.Walk(func(st *model.Stmt) { st.Exprs(look) })
	for i := range s.p.Gauges {
		look(s.p.Gauges[i].Expr)
	}
	return found
}

// faultLaw draws a fault's time to failure or repair from its stream; ok
// is false after a run error (a law that is not a positive time).
func (s *Sim) faultLaw(t *faultTarget, e *model.Expr, what string) (float64, bool) {
	x := s.evalWith(e, nil, t.stream)
	if !(x > 0) {
		s.err = &RunError{Pos: t.f.Pos, Time: s.now, Session: -1, Msg: fmt.Sprintf("%s of `%s` came out %s: it must be positive", what, t.f.Label, fmtNum(x))}
		return 0, false
	}
	return x, true
}

// faultDown handles a fault's failure: its member or stage goes down, and
// its repair goes on the calendar.
func (s *Sim) faultDown(id int32) {
	t := &s.faults[id]
	if t.f.For != nil {
		if d, ok := s.faultLaw(t, t.f.For, "a time to repair"); ok && !math.IsInf(d, 1) {
			s.schedule(s.now+d, evFaultUp, id, 0, nil)
		}
	}
	if t.member >= 0 {
		s.memberDown(t.member)
	} else {
		s.stageDown(int(t.stage), t.f.Stall)
	}
}

// faultUp handles a repair: the member or stage comes back, and a random
// fault's next failure goes on the calendar.
func (s *Sim) faultUp(id int32) {
	t := &s.faults[id]
	if t.member >= 0 {
		s.memberUp(t.member)
	} else {
		s.stageUp(int(t.stage), t.f.Stall)
	}
	if t.f.After != nil {
		if ttf, ok := s.faultLaw(t, t.f.After, "a time to failure"); ok {
			s.schedule(s.now+ttf, evFaultDown, id, 0, nil)
		}
	}
}

// memberDown takes a member down (once: faults that overlap keep it down
// until the last of them ends).
func (s *Sim) memberDown(m int32) {
	mm := &s.members[m]
	mm.down++
	if mm.down > 1 {
		return
	}
	mm.downSince = s.now
	mm.downs++
	mm.changes = append(mm.changes, stateChange{t: s.now, down: true})
	s.trace(nil, EvDown, mm.label, 0)
	cause := "`" + mm.label + "` down"
	for _, st := range mm.stages {
		s.stages[st].down = true
	}
	for _, p := range mm.pools {
		s.pools[p].down = true
	}
	// The requests it serves, in the order of the live sessions.
	affected := slices.Clone(s.allThreads())
	for _, t := range affected {
		if t.state == sDone {
			continue
		}
		switch {
		case s.readsFrom(t, m):
			s.readFailed(t, cause)
		case s.touches(t, m):
			s.failRequest(t, cause, false)
		}
	}
	// Its pools lose their contents.
	for _, p := range mm.pools {
		s.losePool(int(p))
	}
	// Its engine abandons the iteration in flight.
	for _, st := range mm.stages {
		if e := s.stages[st].eng; e != nil && e.busy {
			e.epoch++
			e.busy = false
			e.kind = iterNone
			s.setIterStats(e, false)
			e.assign = e.assign[:0]
			e.stage.util.Set(s.now, 0)
			s.engineChanged(e)
		}
	}
	for len(mm.tracked) > 0 {
		s.untrack(mm.tracked[len(mm.tracked)-1])
	}
	s.stopClock(mm)
	s.poolVer++
}

// memberUp brings a member back, empty.
func (s *Sim) memberUp(m int32) {
	mm := &s.members[m]
	if mm.down == 0 {
		return
	}
	mm.down--
	if mm.down > 0 {
		return
	}
	mm.downTime += s.now - mm.downSince
	mm.changes = append(mm.changes, stateChange{t: s.now, down: false})
	s.trace(nil, EvUp, mm.label, 0)
	for _, st := range mm.stages {
		stg := &s.stages[st]
		stg.down = false
		if e := stg.eng; e != nil {
			s.dirtyEngs.set(e.ei)
			s.engineChanged(e)
		}
	}
	for _, p := range mm.pools {
		pl := &s.pools[p]
		pl.down = false
		s.poolChanged(pl)
	}
}

// stageDown takes a stage down alone: a stalled one carries its flows at
// rate 0, a failed one fails its jobs.
func (s *Sim) stageDown(i int, stall bool) {
	stg := &s.stages[i]
	if stg.downDepth++; stg.downDepth > 1 {
		return
	}
	stg.downs++
	stg.downSince = s.now
	s.trace(nil, EvDown, stg.m.Label, 0)
	if stall {
		stg.stalled = true
		s.flows.phi[i] = 0
		s.flows.touched = append(s.flows.touched, int32(i))
		return
	}
	stg.down = true
	cause := "`" + stg.m.Label + "` down"
	for _, t := range slices.Clone(s.allThreads()) {
		if t.state == sDone || !s.onStage(t, i) {
			continue
		}
		if s.readingNow(t) {
			s.readFailed(t, cause)
		} else {
			s.failRequest(t, cause, false)
		}
	}
}

// stageUp brings a stage back.
func (s *Sim) stageUp(i int, stall bool) {
	stg := &s.stages[i]
	if stg.downDepth == 0 {
		return
	}
	if stg.downDepth--; stg.downDepth > 0 {
		return
	}
	stg.downTime += s.now - stg.downSince
	s.trace(nil, EvUp, stg.m.Label, 0)
	if stg.stalled {
		stg.stalled = false
		s.flows.phi[i], _ = stg.m.Phi.IsConst()
		s.flows.touched = append(s.flows.touched, int32(i))
	}
	stg.down = false
}

// touches reports whether session t has a request at member m: on its
// engine or stages, queued at, holding or growing in one of its pools, or
// at an entry that m reads for.
func (s *Sim) touches(t *session, m int32) bool {
	if h := t.waitHold; h != nil && h.waiting {
		for _, hp := range h.pools {
			if s.poolMember[hp.pool] == m {
				return true
			}
		}
	}
	for _, h := range t.holds {
		for _, hp := range h.pools {
			if !hp.released && s.poolMember[hp.pool] == m {
				return true
			}
		}
	}
	if h := t.growHold; h != nil && s.poolMember[h.pools[t.growIdx].pool] == m {
		return true
	}
	for _, st := range s.members[m].stages {
		if s.onStage(t, int(st)) {
			return true
		}
	}
	for i := range t.frames {
		if f := &t.frames[i]; f.kind == fReading && f.aux == m {
			return true
		}
	}
	return false
}

// onStage reports whether t has a job on stage i, a flow across it
// included.
func (s *Sim) onStage(t *session, i int) bool {
	j := &t.job
	if int(j.stage) == i {
		return true
	}
	if j.flow >= 0 {
		return slices.Contains(s.flows.flowStages[j.flow], int32(i))
	}
	return false
}

// readingNow reports whether t's job is a read's flow.
func (s *Sim) readingNow(t *session) bool {
	if t.job.flow < 0 || len(t.frames) == 0 {
		return false
	}
	f := t.top()
	return f.pc > 0 && f.b.Stmts[f.pc-1].Read
}

// readsFrom reports whether t's job is a read whose source is member m.
func (s *Sim) readsFrom(t *session, m int32) bool {
	if !s.readingNow(t) {
		return false
	}
	rf := t.readingFrame()
	if rf == nil {
		return false
	}
	p, ok := s.member(&rf.st.Reading.Source, t, false)
	return ok && s.poolMember[p] == m
}

// readsPool reports whether t (or a leg of its session) is reading pool p
// now: its job is the flow of a read of p.
func (s *Sim) readsPool(t *session, p int) bool {
	for _, x := range append([]*session{rootOf(t)}, s.legsOf(rootOf(t))...) {
		if !s.readingNow(x) {
			continue
		}
		if rf := x.readingFrame(); rf != nil {
			if q, ok := s.member(&rf.st.Reading.Source, x, false); ok && q == p {
				return true
			}
		}
	}
	return false
}

// readingFrame is the innermost reading entry's frame, nil if none.
func (ss *session) readingFrame() *frame {
	for i := len(ss.frames) - 1; i >= 0; i-- {
		if f := &ss.frames[i]; f.kind == fReading {
			return f
		}
	}
	return nil
}

// losePool empties a pool whose member went down: its leases are lost,
// its cache wiped.
func (s *Sim) losePool(p int) {
	pl := &s.pools[p]
	for _, t := range slices.Clone(s.allThreads()) {
		for k := len(t.leases) - 1; k >= 0; k-- {
			if l := t.leases[k]; l.pools[l.leased].pool == p {
				s.loseLease(t, l)
			}
		}
	}
	for k := len(s.stranded) - 1; k >= 0; k-- {
		if l := s.stranded[k]; l.pools[l.leased].pool == p {
			s.loseLease(nil, l)
		}
	}
	for _, e := range pl.entries {
		if !e.gone {
			pl.removeEntry(e)
		}
	}
	s.prefixLose(p)
	s.compactEntries(pl)
	s.poolChanged(pl)
	s.admitSettle()
}

// loseLease drops a lease whose pool went down: released, nothing cached.
func (s *Sim) loseLease(owner *session, l *holdInst) {
	s.pools[l.pools[l.leased].pool].lost++
	s.untrack(l)
	if owner != nil {
		owner.leases = without(owner.leases, l)
	} else {
		s.stranded = without(s.stranded, l)
	}
	l.leaseGen++
	s.traceLease(owner, EvLeaseLost, l, "its member went down")
	s.releasePool(l, l.leased, 0, false)
}

// failRequest fails the request session t (or its leg) is serving: back to
// the innermost `retry` with tries left, or the turn ends with `failed`.
// abort says the client gave it up (a timeout): a lease its reading entry
// reads is then freed by the reader, not left to expire.
func (s *Sim) failRequest(t *session, cause string, abort bool) {
	root := rootOf(t)
	if root.state == sDone {
		return
	}
	// its legs end with it, their leases passing to it
	for k := len(s.legsLive) - 1; k >= 0; k-- {
		if leg := s.legsLive[k]; rootOf(leg) == root {
			s.cancelWait(leg)
			s.endThread(leg)
		}
	}
	root.joining = false
	s.cancelWait(root)
	root.resumeHold = nil
	turn, try := -1, -1
	for i := len(root.frames) - 1; i >= 0 && turn < 0; i-- {
		switch f := &root.frames[i]; f.kind {
		case fTurn:
			turn = i
		case fTry:
			if n, _ := f.st.N.IsConst(); try < 0 && float64(f.aux) < n {
				try = i
			}
		}
	}
	target := turn
	if try >= 0 {
		target = try
	}
	for len(root.holds) > 0 && root.holds[len(root.holds)-1].depth > target {
		s.unwindHold(root, root.holds[len(root.holds)-1], false)
	}
	root.readFailed = false
	ci := s.causeIndex(cause)
	s.causes[ci].Requests++
	if s.tracer != nil {
		s.traceDetail(root, EvFailed, "", 0, cause)
	}
	if try >= 0 {
		// the reading entries left: their leases are no longer renewed
		for i := len(root.frames) - 1; i > try; i-- {
			if f := &root.frames[i]; f.kind == fReading {
				s.stopReading(root, f)
			}
		}
		f := &root.frames[try]
		f.aux++
		f.pc = 0
		root.frames = root.frames[:try+1]
		s.retries++
		if b, _ := f.st.Value.IsConst(); b > 0 {
			root.state = sBlocked
			root.backoff = s.now + b
			s.schedule(s.now+b, evWake, 0, root.reqID, root)
			return
		}
		s.makeReady(root)
		return
	}
	root.failAt = s.now
	s.disposeLeases(root, cause, abort)
	if turn < 0 {
		// a failure outside a turn ends the session
		root.attrs[s.p.Builtin.Failed] = 1
		root.cause = int32(ci) + 1
		root.frames = root.frames[:0]
		s.endSession(root, model.Pos{})
		return
	}
	root.frames = root.frames[:turn]
	root.inTurn = false
	root.attrs[s.p.Builtin.Failed] = 1
	root.cause = int32(ci) + 1
	s.makeReady(root)
}

// disposeLeases leaves a failed request's leases to expire (stranded),
// but a lease whose reading entry the client gave up while its reader is
// up: the reader frees it (vLLM's decoder sends the prefiller an empty read
// when it aborts a request that waits for its KV).
func (s *Sim) disposeLeases(root *session, cause string, abort bool) {
	rf := root.readingFrame()
	readP := -1
	if abort && rf != nil && s.members[rf.aux].down == 0 {
		if p, ok := s.member(&rf.st.Reading.Source, root, false); ok {
			readP = p
		}
	}
	for k := len(root.leases) - 1; k >= 0; k-- {
		l := root.leases[k]
		switch p := l.pools[l.leased].pool; {
		case p == readP:
			s.endLease(root, l)
		case s.pools[p].down:
			// its member is going down: lost with it (losePool), not left
		default:
			s.strand(root, l, cause)
		}
	}
	for i := len(root.frames) - 1; i >= 0; i-- {
		if f := &root.frames[i]; f.kind == fReading {
			s.stopReading(root, f)
		}
	}
}

// strand leaves a lease behind: no session owns it, nothing renews it, it
// ends when it expires (never, for an infinite lease) or its pool goes
// down.
func (s *Sim) strand(owner *session, l *holdInst, cause string) {
	p := l.pools[l.leased].pool
	root := rootOf(owner)
	l.strandSerial, l.strandTurn, l.strandAt, l.strandCause = root.serial, int(root.attrs[s.p.Builtin.TurnNo]), s.now, cause
	l.strandReader = l.reader
	s.untrack(l)
	owner.leases = without(owner.leases, l)
	if holdsPool(owner, p) {
		s.pools[p].holders++ // the stranded lease is a holder of its own
	}
	l.owner = nil
	l.stranded = true
	s.stranded = append(s.stranded, l)
	s.pools[p].strandedN++
	s.traceLease(owner, EvLeaseStranded, l, "")
}

// causeIndex is the index of cause in s.causes, added if new.
func (s *Sim) causeIndex(cause string) int {
	for i := range s.causes {
		if s.causes[i].Cause == cause {
			return i
		}
	}
	s.causes = append(s.causes, failCause{Cause: cause})
	return len(s.causes) - 1
}

// timedOut gives up the request of session ss if it is still the one the
// timeout was set for.
func (s *Sim) timedOut(ss *session, req uint32) {
	if ss.reqID != req || !ss.inTurn || ss.state == sDone {
		return
	}
	s.failRequest(ss, "timed out", true)
}

// wake resumes a session after a retry's backoff.
func (s *Sim) wake(ss *session, req uint32) {
	if ss.reqID != req || ss.state != sBlocked {
		return
	}
	ss.backoff = 0
	s.makeReady(ss)
}

// startTimeout reads the workload's timeout at a turn's start.
func (s *Sim) startTimeout(ss *session) {
	s.reqSeq++
	ss.reqID = s.reqSeq
	ss.attrs[s.p.Builtin.Failed] = 0
	ss.expired = ss.expired[:0]
	if s.p.Workload.Timeout == nil {
		return
	}
	d := s.evalWith(s.p.Workload.Timeout, ss, ss.turnStream)
	if !(d > 0) {
		s.fail(ss, model.Pos{}, "the timeout came out %s: a client's time budget is positive", fmtNum(d))
		return
	}
	if !math.IsInf(d, 1) {
		s.schedule(s.now+d, evTimeout, 0, ss.reqID, ss)
	}
}

// Reading entries and renewals.

// enterReading starts a reading entry: its reader renews the session's
// leases of the pool it reads.
func (s *Sim) enterReading(ss *session, st *model.Stmt) bool {
	r := st.Reading
	if _, ok := s.member(&r.Source, ss, false); !ok {
		return false // the source's index is out of range: a run error
	}
	m := s.queueFirst[r.Queue]
	if r.Index != nil {
		x := s.eval(r.Index, ss)
		if !(x >= 0 && x < float64(s.p.Queues[r.Queue].Count)) {
			s.fail(ss, st.Pos, "index %s of `%s` is out of range", fmtNum(x), s.p.Queues[r.Queue].Name)
			return false
		}
		m += int32(x)
	}
	if s.members[m].down > 0 {
		s.failRequest(ss, "`"+s.members[m].label+"` down", false)
		return false
	}
	ss.pushFrame(st.Body, nil, fReading, st)
	f := ss.top()
	f.aux = m
	for _, l := range ss.leases {
		s.trackIfRead(ss, l)
	}
	return true
}

// trackIfRead makes the reader renew lease l of session ss when ss is at
// an entry that reads l's pool: as the entry starts, and when a lease
// comes to a session already there (from a leg, in push mode, or taken
// inside the entry).
func (s *Sim) trackIfRead(ss *session, l *holdInst) {
	if l.st.Renew == nil || l.leased < 0 {
		return
	}
	rf := rootOf(ss).readingFrame()
	if rf == nil {
		return
	}
	if p, ok := s.member(&rf.st.Reading.Source, rootOf(ss), false); ok && p == l.pools[l.leased].pool {
		s.track(l, rf.aux)
	}
}

// stopReading ends a reading entry's renewals of the session's leases.
func (s *Sim) stopReading(ss *session, f *frame) {
	for _, l := range ss.leases {
		if l.reader == f.aux {
			s.untrack(l)
		}
	}
}

// track makes member m renew lease l.
func (s *Sim) track(l *holdInst, m int32) {
	if l.reader == m {
		return
	}
	s.untrack(l)
	mm := &s.members[m]
	l.reader = m
	mm.tracked = append(mm.tracked, l)
	if !mm.ticking {
		mm.ticking = true
		mm.every = float64(l.st.Renew.Every)
		mm.tickGen++
		s.schedule(math.Max(s.now, mm.lastTick+mm.every), evRenew, m, mm.tickGen, nil)
	}
}

// untrack ends lease l's renewals.
func (s *Sim) untrack(l *holdInst) {
	if l.reader < 0 {
		return
	}
	mm := &s.members[l.reader]
	mm.tracked = without(mm.tracked, l)
	l.reader = -1
	if len(mm.tracked) == 0 {
		s.stopClock(mm)
	}
}

func (s *Sim) stopClock(mm *member) {
	if mm.ticking {
		mm.ticking = false
		mm.tickGen++
	}
}

// renewTick is a tick of member m's renewal clock: every lease it tracks
// lasts at least its renewal more.
func (s *Sim) renewTick(m int32, gen uint32) {
	mm := &s.members[m]
	if mm.tickGen != gen || !mm.ticking || mm.down > 0 {
		return
	}
	mm.lastTick = s.now
	for _, l := range mm.tracked {
		l.lastRenew = s.now
		if end := s.now + float64(l.st.Renew.For); end > l.leaseEnd {
			l.leaseEnd = end
		}
	}
	if s.tracer != nil {
		s.trace(nil, EvRenewed, mm.label, float64(len(mm.tracked)))
	}
	s.schedule(s.now+mm.every, evRenew, m, gen, nil)
}

// Reads.

// readStart checks a read's lease as its flow starts: it goes ahead (true),
// or it failed and the entry's policy applied (false: the flow does not
// run; under `recompute` the session goes on).
func (s *Sim) readStart(ss *session) bool {
	rf := ss.readingFrame()
	if rf == nil {
		return true
	}
	r := rf.st.Reading
	p, ok := s.member(&r.Source, ss, false)
	if !ok {
		return false
	}
	pl := &s.pools[p]
	if m := s.poolMember[p]; m >= 0 && s.members[m].down > 0 {
		s.readFailed(ss, "`"+s.members[m].label+"` down")
		return false
	}
	if h, _ := innermost(ss, p); h != nil {
		return true
	}
	for _, l := range ss.leases {
		if l.pools[l.leased].pool == p {
			return true
		}
	}
	if ss.expiredAt(p) >= 0 {
		if r.Expiry == model.ReadAnyway {
			pl.late++
			s.trace(ss, EvLateRead, pl.m.Label, 0)
			return true
		}
		s.readFailed(ss, "its lease expired")
		return false
	}
	s.readFailed(ss, "its lease was lost")
	return false
}

// readFailed applies a reading entry's policy to a failed read: `fail`
// fails the request, `recompute` goes on with nothing loaded (the load and
// release of the read are skipped).
func (s *Sim) readFailed(ss *session, why string) {
	rf := ss.readingFrame()
	if rf == nil {
		s.failRequest(ss, why, false)
		return
	}
	r := rf.st.Reading
	p, _ := s.member(&r.Source, ss, false)
	pl := &s.pools[p]
	pl.failedReads++
	// the lease, if it is still there, is no longer read: left to expire
	cause := "read of `" + pl.m.Label + "` failed: " + why
	for _, l := range slices.Clone(ss.leases) {
		// a lease of a member going down is lost with it (losePool), not
		// left to expire
		if l.pools[l.leased].pool == p && !pl.down {
			s.strand(ss, l, cause)
		}
	}
	s.traceDetail(ss, EvReadFailed, pl.m.Label, 0, why)
	if r.Failure == model.ReadFail {
		s.failRequest(ss, cause, false)
		return
	}
	s.recomputes++
	if ss.job.flow >= 0 {
		s.cancelJob(ss)
		s.makeReady(ss)
	}
	ss.readFailed = true
	ss.attrs[s.p.Builtin.Loaded] = 0
}

// downCause is the cause a request that reaches a down member fails of.
func (s *Sim) downCause(m int32) string { return "`" + s.members[m].label + "` down" }

// runAllowed checks a run of a program that can fail before it starts: a
// read's lease (readStart), and stages that are down. When the run may not
// start, next says whether the session goes on past it (a read failed
// under `recompute`) or not (its request failed).
func (s *Sim) runAllowed(ss *session, st *model.Stmt) (start, next bool) {
	if st.Read && !s.readStart(ss) {
		return false, ss.readFailed
	}
	for k := range st.Stages {
		i, ok := s.member(&st.Stages[k], ss, true)
		if !ok {
			return false, false
		}
		if stg := &s.stages[i]; stg.down {
			cause := "`" + stg.m.Label + "` down"
			if m := s.stageMember[i]; m >= 0 && s.members[m].down > 0 {
				cause = s.downCause(m)
			}
			if st.Read {
				s.readFailed(ss, cause)
				return false, ss.readFailed
			}
			s.failRequest(ss, cause, false)
			return false, false
		}
	}
	return true, false
}

// sessionOutcome counts how a session ended: its last request served or
// failed, or refused as never fitting.
func (s *Sim) sessionOutcome(ss *session) {
	switch {
	case ss.rejected:
		s.rejectedN++
	case ss.attrs[s.p.Builtin.Failed] == 1:
		s.failedN++
		if ss.cause > 0 {
			s.causes[ss.cause-1].Sessions++
		}
	default:
		s.completedN++
	}
}

// faultState is what a program that can fail keeps (embedded in Sim): only such a
// program has members, faults and causes.
type faultState struct {
	canFail     bool          // the program can fail a request (model.Builtins.Failed)
	members     []member      // every queue's members, queue by queue
	queueFirst  []int32       // by queue: its first member's index
	poolMember  []int32       // by pool: its member, -1
	stageMember []int32       // by stage: its member, -1
	faults      []faultTarget // the faults block's targets, line by line
	stranded    []*holdInst   // leases failed requests left to expire
	causes      []failCause   // the causes requests failed of, in the order first met
	reqSeq      uint32        // the last request number given (session.reqID)
	retries     uint64        // entry calls made again
	recomputes  uint64        // failed reads the reader recomputed
	completedN  uint64        // sessions that ended with their last request served
	failedN     uint64        // sessions that ended with their last request failed
	rejectedN   uint64        // sessions ended by a request that could never fit
	pics        *pictures     // the gateways' pictures' histories (picture.go); nil: none
}
