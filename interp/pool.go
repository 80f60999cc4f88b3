package interp

import (
	"math"

	"github.com/serq/serq/interp/internal/stats"
	"github.com/serq/serq/model"
)

// Pools: holds, admission queues, per-session prefix caches, leases and
// preemption (docs/engine.md §3, §3.2).
//
// Units are float64. A pool with a block rounds allocations up and cache
// entries down to whole blocks. The invariant is used + cached ≤ cap, where
// used counts allocations (in-scope holds and leases) and cached the cache
// entries, alive or dead; cache never blocks an admission, it is evicted.

type cacheEntry struct {
	pool   int
	serial uint64
	owner  *session // nil once the session has ended
	gen    uint32
	size   float64
	last   float64 // release time
	seq    uint64  // release sequence
	dead   bool    // the leftover of a consumed entry: unusable
	gone   bool    // evicted or dropped

	node *prefixNode // a shared prefix's node (prefix.go), no session's
}

type pool struct {
	m        *model.Pool
	index    int
	cap      float64
	block    float64
	used     float64
	cached   float64
	entries  []*cacheEntry // release order (lru)
	queue    []*holdInst   // waiting holds whose first pool this is
	holders  int           // holds with an allocation here, leases included
	growers  []*session    // growers waiting for room, in stall order
	admitVia int           // engine stage index, -1
	memoryOf int           // engine stage index, -1

	usedI, cachedI, queueI, holdersI stats.TimeIntegral
	waitW                            stats.Welford
	admits, evictN, preempts         uint64
	evictU                           float64
	// the same counts since t = 0, warm-up included (the debugger's)
	runAdmits, runEvictN, runPreempts uint64
	rejected, stuck, spills           uint64

	gone bool // entries may hold gone entries: compactEntries has work

	// A program that can fail (faults.go), counted over the whole run.
	down                                                 bool // its member is down: it holds nothing
	leasesN, expired, late, failedReads, lost, strandedN uint64
}

// holdPool is one pool of a hold instance.
type holdPool struct {
	pool     int
	alloc    float64
	pos      float64 // computed position
	reserve  float64
	released bool
}

// holdInst is one execution of a hold statement.
type holdInst struct {
	st         *model.Stmt
	owner      *session
	pools      []holdPool
	enq        float64
	admSeq     uint64
	waiting    bool
	depth      int // the frame index of the hold's body
	retPC      int // the hold statement's index in its parent frame
	leaseEnd   float64
	leaseStart float64
	leaseGen   uint32
	cacheL     float64 // the cache clause, read at scope end (for a lease)
	leased     int     // index into pools of the lease, -1
	reader     int32   // the member renewing the lease, -1 (faults.go)
	stranded   bool    // a failed request left it to expire: no session owns it
	lastRenew  float64 // its last renewal's time, 0 if none
	timed      bool    // its lease has a finite end (leaseEnd)
	// what the debugger says of a stranded lease: whose it was, when and
	// why its request failed, and the member that renewed it then (-1)
	strandSerial uint64
	strandTurn   int
	strandAt     float64
	strandCause  string
	strandReader int32
	lastPos      float64 // position at the last preemption (stuck counting)
	resume       bool    // re-entering after a preemption
	stuck        bool    // its session is counted stuck at this hold
	front        bool    // re-queued at the head: tried before the queue's keys
	requeueTail  bool    // (on a resumeHold) the preempting pool says requeue tail
	// advanced: a growing run or a load moved the hold, so each pool's
	// computed is its own position; before that it is the allocation.
	advanced bool
	pfx      *prefixChain // its `prefix`, read when it was reached (prefix.go)
}

func (s *Sim) initPools() {
	s.pools = make([]pool, len(s.p.Pools))
	for i := range s.p.Pools {
		m := &s.p.Pools[i]
		pl := &s.pools[i]
		pl.m, pl.index, pl.cap, pl.block = m, i, float64(m.Cap), float64(m.Block)
		pl.admitVia, pl.memoryOf = m.AdmitVia, m.MemoryOf
	}
	s.choosePend = newBitset(len(s.pools))
}

func (pl *pool) resetStats(now float64) {
	pl.usedI.Reset(now)
	pl.cachedI.Reset(now)
	pl.queueI.Reset(now)
	pl.holdersI.Reset(now)
	pl.waitW = stats.Welford{}
	pl.admits, pl.evictN, pl.preempts, pl.evictU = 0, 0, 0, 0
}

func (pl *pool) roundUp(x float64) float64 {
	if pl.block > 0 {
		return math.Ceil(x/pl.block-blockTol) * pl.block
	}
	return x
}

func (pl *pool) roundDown(x float64) float64 {
	if pl.block > 0 {
		return math.Floor(x/pl.block+blockTol) * pl.block
	}
	return x
}

// poolChanged records a change of a pool's used, cached, queue or holders
// (every change of them comes here, so that the time averages follow).
func (s *Sim) poolChanged(pl *pool) {
	s.poolVer++
	s.markPool(pl)
	s.choosePend.set(pl.index) // the indexed chooses read it again (chooseindex.go)
	pl.usedI.Set(s.now, pl.used)
	pl.cachedI.Set(s.now, pl.cached)
	pl.queueI.Set(s.now, float64(len(pl.queue)))
	pl.holdersI.Set(s.now, float64(pl.holders))
}

// ownEntry is the session's alive cache entry in a pool. Its entries'
// pools, folded onto 64 bits (cachePools), say at once that it has none in
// most pools: a router's `cachedin` reads every candidate's.
func (s *Sim) ownEntry(ss *session, p int) *cacheEntry {
	root := rootOf(ss)
	if root.cachePools&poolBit(p) == 0 {
		return nil
	}
	for _, e := range root.cache {
		if e.pool == p && !e.gone && !e.dead {
			return e
		}
	}
	return nil
}

func rootOf(ss *session) *session {
	for ss.parent != nil {
		ss = ss.parent
	}
	return ss
}

func (s *Sim) poolObservable(pl *pool, f model.Func, ss *session) float64 {
	switch f {
	case model.PUsed:
		return pl.used
	case model.PFree:
		return pl.cap - pl.used
	case model.PCachedIn:
		if x, ok := s.headerCachedIn(pl.index); ok {
			return x
		}
		if ss == nil {
			return 0
		}
		if e := s.ownEntry(ss, pl.index); e != nil {
			return e.size
		}
		return 0
	case model.PHolders:
		return float64(pl.holders)
	case model.PQueued:
		return float64(len(pl.queue))
	case model.PExpired:
		return float64(pl.expired)
	case model.PParked:
		return float64(s.parkedIn(pl))
	case model.PPreempted:
		return float64(pl.runPreempts)
	case model.PEvicted:
		return float64(pl.runEvictN)
	case model.PLeased:
		return s.leasedUnits(pl.index)
	case model.PLate:
		return float64(pl.late)
	case model.PLeases, model.PLeaseAge:
		n, oldest := s.leasesOf(pl.index)
		if f == model.PLeases {
			return float64(n)
		}
		if n == 0 {
			return 0
		}
		return s.now - oldest
	}
	panic("interp: no pool observable " + f.String())
}

// leasesOf counts the live leases of pool p and finds the start of the
// oldest (for the debugger's built-ins and the why pane).
func (s *Sim) leasesOf(p int) (n int, oldest float64) {
	note := func(l *holdInst) {
		if l.leased >= 0 && l.pools[l.leased].pool == p {
			if n == 0 || l.leaseStart < oldest {
				oldest = l.leaseStart
			}
			n++
		}
	}
	s.eachLease(note)
	return n, oldest
}

// eachLease calls f with every hold that has held a lease: the live
// sessions' and legs', then the stranded ones (their session ended).
func (s *Sim) eachLease(f func(l *holdInst)) {
	for _, list := range [2][]*session{s.live, s.legsLive} {
		for _, t := range list {
			for _, l := range t.leases {
				f(l)
			}
		}
	}
	for _, l := range s.stranded {
		f(l)
	}
}

// evict frees cache until need more units fit beside used and cached.
func (s *Sim) evict(pl *pool, need float64) {
	s.poolVer++
	s.markPool(pl)
	excess := pl.used + pl.cached + need - pl.cap
	for excess > unitTol && pl.cached > 0 {
		e := s.victimEntry(pl)
		if e == nil {
			return
		}
		take := math.Min(e.size, math.Max(pl.block, 0))
		if pl.block <= 0 || take <= 0 {
			take = math.Min(e.size, excess)
			if pl.m.Spill != nil {
				take = e.size // what moves to the tier is the entry
			}
		} else if k := evictBlocks(pl, e, excess); k > 1 && !s.noFastPath {
			take = float64(k) * pl.block // k steps at once
		}
		e.size -= take
		pl.cached -= take
		excess -= take
		if s.warm {
			pl.evictU += take
		}
		if e.size <= unitTol {
			pl.removeEntry(e)
			pl.runEvictN++
			if s.warm {
				pl.evictN++
			}
		}
		if e.node != nil {
			s.nodeEvicted(e)
		}
		if pl.m.Spill != nil {
			s.spill(pl, e, take)
		}
	}
	s.compactEntries(pl)
}

// evictBlocks is how many of evict's block-by-block steps on entry e can
// be taken as one: when the amounts are whole numbers below 2^52 (so that
// every step's subtraction and addition is exact, and k steps of a block
// are one of k blocks bit for bit) and the victim stays e (lru, no spill),
// the steps until the excess is gone or e (or the cache) has no whole
// block left. 1 when they cannot.
func evictBlocks(pl *pool, e *cacheEntry, excess float64) int {
	if pl.m.Spill != nil || pl.m.Evict.Keys != nil || !wholeBelow(pl.block) || !wholeBelow(e.size) ||
		!wholeBelow(excess) || !wholeBelow(pl.cached) || !wholeBelow(pl.evictU) {
		return 1
	}
	k := math.Min(math.Floor(e.size/pl.block), math.Ceil(excess/pl.block))
	k = math.Min(k, math.Floor(pl.cached/pl.block)) // the cache stays > 0 between the steps
	return int(math.Max(1, k))
}

// wholeBelow reports whether x is a whole number of magnitude below 2^52.
func wholeBelow(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1<<52 }

// victimEntry is the next cache entry to lose a block: lru, or least keys.
func (s *Sim) victimEntry(pl *pool) *cacheEntry {
	keys := pl.m.Evict.Keys
	var best *cacheEntry
	m := &s.keys.entry
	m.reset(len(keys))
	for _, e := range pl.entries {
		if e.gone || e.size <= 0 || !e.evictable() {
			continue
		}
		if keys == nil {
			return e
		}
		s.ctx[model.CtxSize] = e.size
		s.ctx[model.CtxAge] = s.now - e.last
		s.ctx[model.CtxLast] = e.last
		s.ctx[model.CtxWaiting] = 0
		owner := e.owner
		if owner != nil && owner.gen != e.gen {
			owner = nil
		}
		if owner != nil && owner.state == sBlocked && owner.waitingHold {
			s.ctx[model.CtxWaiting] = 1
		}
		for k, key := range keys {
			m.cur[k] = s.evalWith(key, s.attrsOf(owner), s.machineStream)
		}
		if m.cmp() < 0 {
			best = e
			m.take()
		}
	}
	return best
}

// attrsOf gives a session to read attributes from: an ended session reads
// zeros.
func (s *Sim) attrsOf(ss *session) *session {
	if ss != nil {
		return ss
	}
	if s.zero == nil {
		s.zero = &session{attrs: make([]float64, len(s.p.Attrs)), stream: s.machineStream}
	}
	return s.zero
}

// removeEntry takes entry e out of pl's cache: what it holds leaves the
// cached total, and it is gone (compactEntries drops it from entries).
func (pl *pool) removeEntry(e *cacheEntry) {
	e.gone, pl.gone = true, true
	pl.cached -= e.size
	e.size = 0
}

func (s *Sim) compactEntries(pl *pool) {
	if !pl.gone { // every entry marked gone sets it
		return
	}
	pl.gone = false
	n := 0
	for _, e := range pl.entries {
		if !e.gone {
			pl.entries[n] = e
			n++
		}
	}
	for i := n; i < len(pl.entries); i++ {
		pl.entries[i] = nil
	}
	pl.entries = pl.entries[:n]
}

// cacheAt stores the session's single entry in a pool.
func (s *Sim) cacheAt(ss *session, pl *pool, units float64) {
	s.poolVer++
	s.markPool(pl)
	root := rootOf(ss)
	units = pl.roundDown(units)
	if old := s.ownEntry(root, pl.index); old != nil {
		pl.removeEntry(old)
	}
	if units <= 0 {
		s.compactEntries(pl)
		return
	}
	// Room: the released allocation makes room for its own cache, but an
	// entry is evicted first if it would not fit.
	if pl.used+pl.cached+units > pl.cap {
		s.evict(pl, units)
		if pl.used+pl.cached+units > pl.cap {
			units = pl.roundDown(math.Max(0, pl.cap-pl.used-pl.cached))
			if units <= 0 {
				return
			}
		}
	}
	s.seq++
	e := &cacheEntry{pool: pl.index, serial: root.serial, owner: root, gen: root.gen, size: units, last: s.now, seq: s.seq}
	pl.entries = append(pl.entries, e)
	pl.cached += units
	root.addEntry(e)
	s.compactEntries(pl)
}

// addEntry lists e among the root session's cache entries, and its pool in
// cachePools.
func (ss *session) addEntry(e *cacheEntry) {
	ss.cache = append(ss.cache, e)
	ss.cachePools |= poolBit(e.pool)
}

// poolBit is pool p's bit in a session's cachePools.
func poolBit(p int) uint64 { return 1 << (uint(p) & 63) }
