package interp

import (
	"math"
	"slices"

	"github.com/serq/serq/model"
)

// hold executes a hold statement: it joins its first pool's queue; the
// settle (or the admitting engine) admits it.
func (s *Sim) hold(ss *session, st *model.Stmt) bool {
	h := &holdInst{st: st, owner: ss, leased: st.Lease - 1, enq: s.now, reader: -1}
	for i := range st.Holds {
		p, ok := s.member(&st.Holds[i].Pool, ss, false)
		if !ok {
			return false
		}
		if s.canFail && s.pools[p].down {
			// a request that reaches a member that is down fails there
			s.failRequest(ss, s.downCause(s.poolMember[p]), false)
			return false
		}
		for k := range h.pools {
			if h.pools[k].pool == p {
				pl := &s.pools[p]
				s.fail(ss, st.Pos, "the hold takes `%s` twice: its pools %d and %d name the same member", pl.m.Label, k+1, i+1)
				return false
			}
		}
		h.pools = append(h.pools, holdPool{pool: p})
	}
	if st.Prefix != nil && !s.readPrefix(ss, h) {
		return false
	}
	f := ss.top()
	h.retPC = f.pc - 1
	h.depth = len(ss.frames)
	if ss.resumeHold != nil && ss.resumeHold.st == st {
		h.lastPos = ss.resumeHold.lastPos
		h.stuck = ss.resumeHold.stuck
		h.resume = true
	}
	// A preempted hold re-enters at its queue's head unless the pool that
	// preempted it says `requeue tail`: then it is a newcomer.
	resumeHead := ss.resumeHold != nil && !ss.resumeHold.requeueTail
	h.front = resumeHead
	ss.resumeHold = nil
	// A request that can never fit is rejected when it joins, if its
	// demand reads only attributes and numbers.
	for i := range h.pools {
		hp := &st.Holds[i]
		if !pureDemand(s.readsOf(hp.Units)) || !pureDemand(s.readsOf(hp.Reserve)) {
			continue
		}
		pl := &s.pools[h.pools[i].pool]
		need := s.demand(ss, h, i)
		if math.IsNaN(need) || need < 0 {
			s.fail(ss, st.Pos, "the units of `%s` are %s: an amount must be at least 0", pl.m.Label, fmtNum(need))
			return false
		}
		if pl.roundUp(need) > pl.cap {
			pl.rejected++ // the whole run, as the report's notes say
			s.trace(ss, EvRejected, pl.m.Label, need)
			s.rejectSession(ss, st.Pos)
			return false
		}
	}
	first := &s.pools[h.pools[0].pool]
	h.waiting = true
	if resumeHead {
		first.queue = append(first.queue, nil)
		copy(first.queue[1:], first.queue)
		first.queue[0] = h
	} else {
		first.queue = append(first.queue, h)
	}
	s.markPool(first)
	if len(first.queue) > 1 && s.tracer != nil {
		s.trace(ss, EvQueued, first.m.Label, float64(slices.Index(first.queue, h)))
	}
	s.poolChanged(first)
	ss.state = sBlocked
	ss.waitingHold = true
	ss.waitHold = h
	return false
}

// demand is max(units, reserve) of pool i of a hold, evaluated now.
func (s *Sim) demand(ss *session, h *holdInst, i int) float64 {
	hp := &h.st.Holds[i]
	prev := s.enterHeader(h)
	u := s.eval(hp.Units, ss)
	if hp.Reserve != nil && !(math.IsNaN(u) || u < 0) {
		// Negative or NaN units are refused whatever the reserve: the
		// maximum would hide them, and `used` would go negative.
		u = math.Max(u, s.eval(hp.Reserve, ss))
	}
	s.prefix.header = prev
	return u
}

// rejectSession ends a session whose request can never fit.
func (s *Sim) rejectSession(ss *session, pos model.Pos) {
	root := rootOf(ss)
	root.rejected = true
	if ss != root {
		// a refused leg ends its session
		s.endThread(ss)
		if root.state != sDone {
			s.forceEnd(root, pos)
		}
		return
	}
	s.forceEnd(ss, pos)
}

// forceEnd ends a session wherever it stands.
func (s *Sim) forceEnd(ss *session, pos model.Pos) {
	s.cancelWait(ss)
	if ss.legs > 0 {
		// its legs run on and return their leases
		ss.legs = 0
	}
	s.endSession(ss, pos)
}

// fits reports whether a waiting hold fits every pool now.
func (s *Sim) fits(h *holdInst) bool {
	ss := h.owner
	for i := range h.pools {
		pl := &s.pools[h.pools[i].pool]
		need := s.demand(ss, h, i)
		if math.IsNaN(need) || need < 0 {
			s.fail(ss, h.st.Pos, "the units of `%s` are %s: an amount must be at least 0", pl.m.Label, fmtNum(need))
			return false
		}
		need = pl.roundUp(need)
		if pl.m.ReserveHeld {
			need += s.outstanding(pl, nil)
		}
		if pl.used+need > pl.cap+unitTol {
			return false
		}
	}
	return true
}

// outstanding is Σ max(0, reserve − alloc) over the live holds of a pool
// other than skip (`reserve held`).
func (s *Sim) outstanding(pl *pool, skip *holdInst) float64 {
	sum := 0.0
	for _, ss := range s.allThreads() {
		for _, h := range ss.holds {
			if h == skip {
				continue
			}
			for _, hp := range h.pools {
				if hp.pool == pl.index && !hp.released {
					sum += math.Max(0, hp.reserve-hp.alloc)
				}
			}
		}
	}
	return sum
}

// admit allocates a fitting hold and starts its body.
func (s *Sim) admit(h *holdInst) {
	s.poolVer++
	for i := range h.pools {
		s.markPool(&s.pools[h.pools[i].pool])
	}
	ss := h.owner
	first := &s.pools[h.pools[0].pool]
	first.queue = first.queue[1:]
	if len(first.queue) == 0 {
		first.queue = nil
	}
	h.waiting = false
	st := h.st
	// The header is read once, before anything is allocated: a later
	// pool's amount may read an earlier pool's state.
	var units [8]float64
	unitsOf := units[:0]
	if len(h.pools) > len(units) {
		unitsOf = make([]float64, 0, len(h.pools))
	}
	prev := s.enterHeader(h)
	for i := range h.pools {
		hp := &h.pools[i]
		pl := &s.pools[hp.pool]
		unitsOf = append(unitsOf, s.eval(st.Holds[i].Units, ss))
		if st.Holds[i].Reserve != nil {
			hp.reserve = pl.roundUp(s.eval(st.Holds[i].Reserve, ss))
		}
	}
	consumedMax := 0.0
	for i := range h.pools {
		hp := &h.pools[i]
		pl := &s.pools[hp.pool]
		alloc := pl.roundUp(unitsOf[i])
		consumed := 0.0
		if prefixOn(h, i) {
			reuse := math.Inf(1)
			if st.Reuse != nil {
				reuse = pl.roundDown(s.eval(st.Reuse, ss))
			}
			consumed = s.prefixAdmit(h, i, alloc, reuse)
		} else if st.HasCache {
			if e := s.ownEntry(ss, pl.index); e != nil {
				reuse := math.Inf(1)
				if st.Reuse != nil {
					reuse = pl.roundDown(s.eval(st.Reuse, ss))
				}
				consumed = math.Min(math.Min(e.size, reuse), alloc)
				consumed = math.Max(0, pl.roundDown(consumed))
				e.size -= consumed
				pl.cached -= consumed
				e.dead = true
				if e.size <= unitTol {
					pl.removeEntry(e)
				}
			}
		}
		s.evict(pl, alloc)
		pl.used += alloc
		hp.alloc, hp.pos = alloc, consumed
		if !holdsPool(ss, hp.pool) {
			pl.holders++
		}
		s.trace(ss, EvAdmitted, pl.m.Label, alloc)
		consumedMax = math.Max(consumedMax, consumed)
		pl.runAdmits++
		if s.warm {
			pl.admits++
			if i == 0 {
				pl.waitW.Add(s.now - h.enq)
			}
		}
		s.poolChanged(pl)
	}
	s.prefix.header = prev
	ss.attrs[s.p.Builtin.Cached] = consumedMax
	s.admSeq++
	h.admSeq = s.admSeq
	ss.admSeq = s.admSeq
	ss.holds = append(ss.holds, h)
	ss.waitingHold = false
	ss.waitHold = nil
	ss.pushFrame(st.Body, s.cprog.of(st.Body), fHold, nil)
	ss.top().hold = h
	h.depth = len(ss.frames) - 1
	s.makeReady(ss)
}

// admitSettle admits at settle time: per pool in declaration order, retry
// its growers, then admit its queue's heads while they fit. Pools an
// engine admits wait for its iterations. A release, a scope's end and a
// lease's end also call it at once, so a waiter takes freed units before
// the releasing session's next statement (the reference's try_admit_all).
func (s *Sim) admitSettle() bool {
	progressed := false
	if s.noFastPath {
		s.dirtyPools.fill(len(s.pools))
	}
	// Only the pools marked since they were last found with no grower and
	// no waiter it admits itself (dirty.go).
	for i := s.dirtyPools.next(0); i >= 0; i = s.dirtyPools.next(i + 1) {
		pl := &s.pools[i]
		if s.retryGrowers(pl) {
			progressed = true
		}
		if len(pl.growers) == 0 && (pl.admitVia >= 0 || len(pl.queue) == 0) {
			s.dirtyPools.clear(i)
		}
		if pl.admitVia >= 0 {
			continue
		}
		for len(pl.queue) > 0 && s.err == nil {
			h := s.selectHead(pl)
			if !s.fits(h) {
				break
			}
			s.moveToFront(pl, h)
			s.admit(h)
			progressed = true
		}
	}
	return progressed
}

// selectHead is the waiting hold tried next: the head, or the least keys
// under `queue by` (a resumed hold at the head goes first).
func (s *Sim) selectHead(pl *pool) *holdInst {
	keys := pl.m.QueueKeys
	if keys == nil || pl.queue[0].front {
		return pl.queue[0]
	}
	var best *holdInst
	m := &s.keys.queue
	m.reset(len(keys))
	for _, h := range pl.queue {
		s.ctx[model.CtxWaited] = s.now - h.enq
		for k, key := range keys {
			m.cur[k] = s.eval(key, h.owner)
		}
		if m.cmp() < 0 {
			best = h
			m.take()
		}
	}
	return best
}

func (s *Sim) moveToFront(pl *pool, h *holdInst) {
	for i, x := range pl.queue {
		if x == h {
			copy(pl.queue[1:i+1], pl.queue[:i])
			pl.queue[0] = h
			return
		}
	}
}

// innermost finds the session's innermost in-scope hold on pool p.
func innermost(ss *session, p int) (*holdInst, int) {
	for k := len(ss.holds) - 1; k >= 0; k-- {
		h := ss.holds[k]
		for i := range h.pools {
			if h.pools[i].pool == p && !h.pools[i].released {
				return h, i
			}
		}
	}
	return nil, -1
}

// holdsPool reports whether a session (or leg) holds pool p in a hold in
// scope or a lease: holders(p) counts sessions, not holds. A stranded
// lease's owner is nil: no session holds it.
func holdsPool(ss *session, p int) bool {
	if ss == nil {
		return false
	}
	for _, h := range ss.holds {
		for i := range h.pools {
			if h.pools[i].pool == p && !h.pools[i].released {
				return true
			}
		}
	}
	for _, h := range ss.leases {
		if h.leased >= 0 && h.pools[h.leased].pool == p && !h.pools[h.leased].released {
			return true
		}
	}
	return false
}

// computedPos is what a hold has computed on pool i.
func computedPos(h *holdInst, i int) float64 {
	if h.advanced {
		return h.pools[i].pos
	}
	return h.pools[i].alloc
}

// releasePool frees one pool of a hold, caching min(ℓ, computed).
func (s *Sim) releasePool(h *holdInst, i int, cacheL float64, hasCache bool) {
	hp := &h.pools[i]
	if hp.released {
		return
	}
	hp.released = true
	pl := &s.pools[hp.pool]
	s.trace(h.owner, EvReleased, pl.m.Label, hp.alloc)
	pl.used -= hp.alloc
	if pl.used < unitTol {
		pl.used = math.Max(0, pl.used)
	}
	if !holdsPool(h.owner, hp.pool) {
		pl.holders--
	}
	if hasCache && prefixOn(h, i) {
		// a pool that went down, or a stranded lease's, keeps nothing
		s.prefixRelease(h, i, math.Min(cacheL, computedPos(h, i)), !pl.down && h.owner != nil)
	} else if hasCache && !pl.down && h.owner != nil {
		n := math.Min(cacheL, computedPos(h, i))
		s.cacheAt(h.owner, pl, n)
		if n > 0 {
			s.trace(h.owner, EvCached, pl.m.Label, pl.roundDown(n))
		}
	}
	hp.alloc = 0
	s.poolChanged(pl)
}

// holdExit ends a hold's scope: its pools are released (caching per the
// clause), its leased pool becomes a lease.
func (s *Sim) holdExit(ss *session, h *holdInst) {
	st := h.st
	cacheL := 0.0
	if st.HasCache {
		cacheL = s.eval(st.Cache, ss)
	}
	for i := range h.pools {
		if i == h.leased && !h.pools[i].released {
			h.cacheL = cacheL
			h.leaseStart = s.now
			s.trace(ss, EvLeased, s.pools[h.pools[i].pool].m.Label, h.pools[i].alloc)
			dur := s.eval(st.LeaseFor, ss)
			h.leaseGen++
			ss.leases = append(ss.leases, h)
			s.pools[h.pools[i].pool].leasesN++
			if s.canFail {
				s.trackIfRead(ss, h)
			}
			if !math.IsInf(dur, 1) {
				h.leaseEnd = s.now + dur
				h.timed = true
				s.scheduleLease(h)
			}
			continue
		}
		s.releasePool(h, i, cacheL, st.HasCache)
	}
	s.dropHold(ss, h)
	ss.attrs[s.p.Builtin.Computed] = 0
	s.admitSettle()
}

func (s *Sim) dropHold(ss *session, h *holdInst) { ss.holds = without(ss.holds, h) }

// endLease ends a lease: its allocation is freed and its cache applies.
func (s *Sim) endLease(ss *session, h *holdInst) {
	ss.leases = without(ss.leases, h)
	h.leaseGen++
	if h.reader >= 0 {
		s.untrack(h)
	}
	s.traceLease(ss, EvLeaseEnded, h, "")
	s.releasePool(h, h.leased, h.cacheL, h.st.HasCache)
	s.admitSettle()
}

func (s *Sim) scheduleLease(h *holdInst) {
	s.push(event{t: h.leaseEnd, kind: evLeaseEnd, epoch: h.leaseGen, h: h})
}

// leaseEnd expires a lease whose time is up, wherever it now belongs: a
// renewal may have moved its end, and then it waits for that.
func (s *Sim) leaseEnd(h *holdInst, gen uint32) {
	if h == nil || h.leaseGen != gen {
		return
	}
	if h.leaseEnd > s.now {
		s.scheduleLease(h)
		return
	}
	p := h.pools[h.leased].pool
	if h.stranded {
		s.pools[p].expired++
		s.stranded = without(s.stranded, h)
		h.leaseGen++
		s.traceLease(nil, EvLeaseExpired, h, "stranded")
		s.releasePool(h, h.leased, h.cacheL, h.st.HasCache)
		s.admitSettle()
		return
	}
	for owner := h.owner; owner != nil; owner = owner.parent {
		if hasLease(owner, h) {
			if s.canFail {
				s.pools[p].expired++
				root := rootOf(owner)
				root.expired = append(root.expired, expiredLease{pool: int32(p), t: s.now})
				s.traceLease(owner, EvLeaseExpired, h, "")
				if s.readsPool(owner, p) {
					// the read under way goes on, over blocks now freed
					s.pools[p].late++
					s.traceDetail(owner, EvLateRead, s.pools[p].m.Label, 0, "the lease expired during the read")
				}
			}
			s.endLease(owner, h)
			return
		}
	}
}

func hasLease(ss *session, h *holdInst) bool {
	for _, l := range ss.leases {
		if l == h {
			return true
		}
	}
	return false
}

func (s *Sim) release(ss *session, st *model.Stmt) {
	p, ok := s.member(st.Pool, ss, false)
	if !ok {
		return
	}
	if h, i := innermost(ss, p); h != nil {
		cacheL := 0.0
		if h.st.HasCache {
			cacheL = s.eval(h.st.Cache, ss)
		}
		if i == h.leased {
			// released inside its scope: no lease remains
			h.leased = -1
		}
		s.releasePool(h, i, cacheL, h.st.HasCache)
		s.admitSettle()
		return
	}
	for k := len(ss.leases) - 1; k >= 0; k-- {
		l := ss.leases[k]
		if l.pools[l.leased].pool == p {
			s.endLease(ss, l)
			return
		}
	}
	// a leg's lease not yet passed: look in the session's other legs? no-op.
}

// readEnd is the release of a read (faults.go): skipped, with its load,
// when the read failed under `recompute`.
func (s *Sim) readEnd(ss *session, st *model.Stmt) {
	if !ss.readFailed {
		s.release(ss, st)
		return
	}
	ss.readFailed = false
}

func (s *Sim) load(ss *session, st *model.Stmt) {
	if st.Read && ss.readFailed {
		return
	}
	p, ok := s.member(st.Pool, ss, false)
	if !ok {
		return
	}
	n := s.eval(st.Value, ss)
	if math.IsNaN(n) || n < 0 {
		s.runError(ss, st, "the amount of `load`", n)
		return
	}
	h, i := innermost(ss, p)
	if h == nil {
		return
	}
	hp := &h.pools[i]
	if hp.pos+n > hp.alloc+unitTol {
		s.fail(ss, st.Pos, "`load %s (%s)` must fit the allocation: the hold has %s and has computed %s", s.pools[p].m.Label, fmtNum(n), fmtNum(hp.alloc), fmtNum(hp.pos))
		return
	}
	hp.pos += n
	h.advanced = true
	if st.Read {
		ss.attrs[s.p.Builtin.Loaded] = n
	}
}

func (s *Sim) drop(ss *session, st *model.Stmt) {
	p, ok := s.member(st.Pool, ss, false)
	if !ok {
		return
	}
	if e := s.ownEntry(ss, p); e != nil {
		pl := &s.pools[p]
		pl.removeEntry(e)
		s.compactEntries(pl)
		s.poolChanged(pl)
	}
}

// grow adds to the innermost hold on a pool; with no room the pool's
// preempt policy applies.
func (s *Sim) grow(ss *session, st *model.Stmt) bool {
	p, ok := s.member(st.Pool, ss, false)
	if !ok {
		return false
	}
	d := s.eval(st.Value, ss)
	if math.IsNaN(d) || d < 0 {
		s.runError(ss, st, "the amount of `grow`", d)
		return false
	}
	h, i := innermost(ss, p)
	if h == nil {
		return true
	}
	ss.growHold, ss.growIdx, ss.growBy = h, i, d
	switch s.tryGrow(ss) {
	case growDone:
		return true
	case growSelf:
		return false
	}
	return false
}

type growResult uint8

const (
	growDone growResult = iota
	growWait
	growSelf // the grower preempted itself
)

// tryGrow grows ss's pending growth, preempting as the pool says; a grower
// that must wait joins the pool's growers.
func (s *Sim) tryGrow(ss *session) growResult {
	r := s.growCore(ss, nil)
	if r != growWait {
		return r
	}
	pl := &s.pools[ss.growHold.pools[ss.growIdx].pool]
	ss.state = sBlocked
	for _, g := range pl.growers {
		if g == ss {
			return growWait
		}
	}
	pl.growers = append(pl.growers, ss)
	s.markPool(pl)
	return growWait
}

// growCore grows ss's pending growth (growHold, growIdx, growBy) if the
// pool has room, evicting cache; without room it preempts victims as the
// pool's policy says until the growth fits or the grower itself is the
// victim. e is the engine iterating, if any: its preemption count grows.
func (s *Sim) growCore(ss *session, e *engine) growResult {
	h, i, d := ss.growHold, ss.growIdx, ss.growBy
	hp := &h.pools[i]
	pl := &s.pools[hp.pool]
	target := pl.roundUp(hp.alloc + d)
	need := target - hp.alloc
	for {
		if s.growFits(pl, h, need) {
			s.evict(pl, need)
			pl.used += need
			hp.alloc = target
			ss.growHold = nil
			s.poolChanged(pl)
			return growDone
		}
		if pl.m.Preempt == model.PreemptNone {
			return growWait
		}
		v := s.victim(pl, ss)
		if v == nil {
			return growWait
		}
		if e != nil {
			e.preempted++
		}
		s.preempt(v, pl)
		if v == ss || rootOf(v) == ss {
			return growSelf
		}
	}
}

// growFits reports whether hold h may grow by need units of pl now: under
// `reserve held` the other holds' unallocated reservations count too.
func (s *Sim) growFits(pl *pool, h *holdInst, need float64) bool {
	others := 0.0
	if pl.m.ReserveHeld {
		others = s.outstanding(pl, h)
	}
	return pl.used+need+others <= pl.cap+unitTol
}

// retryGrowers lets stalled growers of a pool grow, in stall order.
func (s *Sim) retryGrowers(pl *pool) bool {
	progressed := false
	for len(pl.growers) > 0 && s.err == nil {
		g := pl.growers[0]
		h, i := g.growHold, g.growIdx
		if h == nil {
			pl.growers = pl.growers[1:]
			continue
		}
		hp := &h.pools[i]
		if !s.growFits(pl, h, pl.roundUp(hp.alloc+g.growBy)-hp.alloc) {
			break
		}
		pl.growers = pl.growers[1:]
		if s.tryGrow(g) == growDone {
			if g.job.growing >= 0 && g.job.stage >= 0 {
				// an engine grower: it resumes in the next iteration
				g.job.stalled = false
				continue
			}
			s.makeReady(g)
			progressed = true
		}
	}
	return progressed
}

// victim chooses whom a failed growth on pl preempts: the candidates are
// the holders of pl in scope that are residents of the engine whose memory
// pl is (any in-scope holder for a pool that is no engine's memory);
// least keys, ties to the one admitted last; lifo is the one admitted
// last.
func (s *Sim) victim(pl *pool, grower *session) *session {
	var best *session
	var bestSeq uint64 // the best candidate's hold's admission
	keys := pl.m.PreemptKeys
	m := &s.keys.victim
	m.reset(len(keys))
	for _, ss := range s.allThreads() {
		h, i := innermost(ss, pl.index)
		if h == nil {
			continue
		}
		if pl.memoryOf >= 0 {
			if !s.isResident(ss, pl.memoryOf) {
				continue
			}
		}
		if pl.m.Preempt == model.PreemptBy {
			s.ctx[model.CtxPosition] = computedPos(h, i)
			s.ctx[model.CtxAdmission] = float64(h.admSeq)
			s.ctx[model.CtxDecoding] = 0
			if ss.job.mode == model.ModeDecode && ss.job.stage >= 0 {
				s.ctx[model.CtxDecoding] = 1
			}
			for k, key := range keys {
				m.cur[k] = s.eval(key, ss)
			}
			if c := m.cmp(); c < 0 || c == 0 && h.admSeq > bestSeq {
				best, bestSeq = ss, h.admSeq
				m.take()
			}
			continue
		}
		if best == nil || h.admSeq > bestSeq {
			best, bestSeq = ss, h.admSeq
		}
	}
	return best
}

// allThreads lists live sessions and their running legs.
func (s *Sim) allThreads() []*session {
	s.threads = s.threads[:0]
	s.threads = append(s.threads, s.live...)
	s.threads = append(s.threads, s.legsLive...)
	return s.threads
}

// preempt unwinds the victim's holds from the innermost to its hold on pl,
// caching each one's computed position, and re-executes that hold
// statement from its pool's queue.
func (s *Sim) preempt(v *session, pl *pool) {
	target, ti := innermost(v, pl.index)
	if target == nil {
		return
	}
	pl.runPreempts++
	if s.warm {
		pl.preempts++
	}
	s.trace(v, EvPreempted, pl.m.Label, 0)
	// A preempted hold has computed its position, the prefix it reused
	// included; an allocation it never advanced counts for nothing (the
	// reference's #326).
	pos := target.pools[ti].pos
	s.cancelWait(v)
	for len(v.holds) > 0 {
		h := v.holds[len(v.holds)-1]
		s.unwindHold(v, h, true)
		if h == target {
			break
		}
	}
	// stuck: preempted again without passing its previous position; the
	// session counts once however often it comes back to the same place
	stuck := target.stuck
	if target.resume && pos <= target.lastPos+unitTol && !stuck {
		pl.stuck++
		stuck = true
	}
	v.attrs[s.p.Builtin.Computed] = pos
	// re-execute the hold statement
	v.frames = v.frames[:target.depth]
	v.top().pc = target.retPC
	v.resumeHold = &holdInst{st: target.st, lastPos: pos, requeueTail: pl.m.RequeueTail, stuck: stuck}
	v.preempted = true
	s.makeReady(v)
}

// unwindHold releases an in-scope hold abnormally (preemption, session
// end): each pool caches its computed position per the hold's clause.
func (s *Sim) unwindHold(ss *session, h *holdInst, preempted bool) {
	if preempted {
		h.advanced = true // it caches its position, not its allocation
	}
	cacheL := math.Inf(1)
	if h.st.HasCache {
		cacheL = s.eval(h.st.Cache, ss)
	}
	for i := range h.pools {
		s.releasePool(h, i, cacheL, h.st.HasCache)
	}
	s.dropHold(ss, h)
}

// cancelWait takes a session out of whatever it waits for: a stage's job,
// a hold queue, a pool's growers.
func (s *Sim) cancelWait(ss *session) {
	if h := ss.waitHold; h != nil && h.waiting {
		pl := &s.pools[h.pools[0].pool]
		for k, x := range pl.queue {
			if x == h {
				pl.queue = append(pl.queue[:k], pl.queue[k+1:]...)
				break
			}
		}
		h.waiting = false
		ss.waitHold = nil
		ss.waitingHold = false
		s.poolChanged(pl)
	}
	if ss.growHold != nil {
		for i := range s.pools {
			pl := &s.pools[i]
			for k, g := range pl.growers {
				if g == ss {
					pl.growers = append(pl.growers[:k], pl.growers[k+1:]...)
					break
				}
			}
		}
		ss.growHold = nil
	}
	s.cancelJob(ss)
}

// cancelJob removes the session's job from its stage.
func (s *Sim) cancelJob(ss *session) {
	j := &ss.job
	if j.flow >= 0 {
		fs := &s.flows
		id := j.flow
		for _, st := range fs.flowStages[id] {
			list := fs.stageFlows[st]
			for k, f := range list {
				if f == id {
					fs.stageFlows[st] = append(list[:k], list[k+1:]...)
					break
				}
			}
			fs.touched = append(fs.touched, st)
			stg := &s.stages[st]
			stg.present--
			stg.num.Set(s.now, float64(stg.present))
		}
		fs.flowStages[id] = fs.flowStages[id][:0]
		fs.rates[id] = 0
		fs.sess[id] = nil
		fs.free = append(fs.free, id)
		j.flow = -1
		ss.gen++
		return
	}
	if j.stage < 0 {
		return
	}
	stg := &s.stages[j.stage]
	switch {
	case stg.eng != nil:
		s.engineCancel(stg, ss)
	case stg.kind == model.PS:
		s.psAdvance(stg)
		stg.heapDelete(ss.job.hidx)
		stg.present--
		s.markStage(stg)
	default:
		if j.hidx >= 0 && j.hidx < len(stg.svc) && stg.svc[j.hidx] == ss {
			stg.dropService(ss)
		} else {
			for k := stg.whead; k < len(stg.waiting); k++ {
				if stg.waiting[k] == ss {
					stg.waiting = append(stg.waiting[:k], stg.waiting[k+1:]...)
					stg.qwork -= j.work
					break
				}
			}
		}
		stg.present--
		s.fifoNext(stg)
	}
	s.stageChanged(stg)
	j.stage = -1
	ss.gen++
}
