package interp

import (
	"math"
	"slices"

	"github.com/serq/serq/model"
)

// Indexed `choose`: a router's `choose j in ND by (holders(D[j].kv) +
// queued(D[j].kv))` reads every candidate's keys on every request, a cost
// that grows with the family. When each candidate's key tuple is a
// function of some pools' and engines' states and of the session's cached
// prefixes alone (the choose is indexable: see chooseIndexable), the
// tuples are kept in a tournament tree over the candidates instead: each
// leaf holds a candidate's keys, each inner node the first least candidate
// below it. Every change of a pool's used, queue or holders goes through
// poolChanged (the time averages need it), which adds the pool to
// choosePend, and every change of an engine's residents, batch or their
// remaining work through engineChanged, which adds the engine to
// choosePendEngs when an index reads it; a pick first takes those pools
// and engines, marking the leaves that read them (resolved once, when the
// index is built), so it sees every change up to its moment, those earlier
// in the same instant included. It evaluates the marked leaves again, by
// the same evaluator with the candidate in the choose's slot (so the
// values are bit for bit the scan's), and recomputes the nodes above those
// whose keys changed, up to where the winner is another candidate, as
// before. The pick is the root's.
//
// A key may read `cachedin` of a candidate's pool: the session's cached
// prefix there, which differs from request to request. A leaf is read
// with a session of its own that has no cache entry (Sim.blankChoose), so
// its cachedin is 0, which is the picking session's in every pool it has
// no entry in. The candidates that read the cachedin of a pool the
// session has a live entry in are read again with the picking session,
// taken out of the tree while its winner among the others is found, and
// compared with it, candidate by candidate in index order, as the scan
// compares. A new conversation has no entry, which its entries' pools
// folded onto 64 bits (session.cachePools) tell at once; a later turn has
// some, in a few pools.
//
// The scan picks the first candidate whose tuple is least by compareKeys;
// the tree picks the same as long as the order is total, which it is
// without NaN (-0 and +0 compare equal in both). compareKeys finds a NaN
// equal to every value, which is not transitive, so the answer depends on
// the order the candidates are compared in (keys [1, 0, NaN, -1]: the scan
// picks candidate 3, the tree 1): while any leaf holds a NaN, or a
// candidate read with the picking session does, the choose takes the
// scan. Under a tracer (which notes every candidate's keys) the scan runs
// too, after the leaves are brought up to date as they would be without
// it, so a traced run's state is the untraced run's. Options.NoFastPath
// builds no index.

// chooseIndex is the index of one choose statement, built the first time
// the statement runs.
type chooseIndex struct {
	st *model.Stmt
	ok bool // indexable: the fields below are set

	n, k  int       // candidates, keys per candidate
	size  int       // leaves of the tree: the least power of two >= n
	keys  []float64 // candidate j's keys at j*k
	win   []int32   // node i's first least candidate (-1: none); the root at 1, the leaves at size+j
	stale bitset    // the candidates whose pools changed since their keys were read
	nan   bitset    // the candidates with a NaN key
	nans  int       // their number

	picks, scans uint64 // picks made by the tree, and left to the scan for a NaN
	owned        uint64 // the tree's picks that read candidates with the session (pickOwn)

	// the keys' cachedin: the bits (poolBit) of the pools they read it of
	// (0: none); by pool, the candidates that read its cachedin, in index
	// order; and scratch, empty between picks: the candidates of a pick
	// read with its session, their keys
	cachedAll uint64
	poolCands [][]int32
	ownSet    bitset
	own       []int32
	ownKeys   []float64

	// lazyN: for up to this many candidates the scan may leave a
	// candidate's later keys unread once an earlier one decides against it
	// (scanLimit); -1 never
	lazyN int
}

// chooseLeaf is a candidate of an index.
type chooseLeaf struct{ index, leaf int32 }

// chooseIndexOf is the index of st, built (or found not indexable) at its
// first run; nil when the fast paths are off.
func (s *Sim) chooseIndexOf(ss *session, st *model.Stmt, n float64) *chooseIndex {
	if s.noFastPath {
		return nil
	}
	for i := range s.chooseIdx {
		if s.chooseIdx[i].st == st {
			return &s.chooseIdx[i]
		}
	}
	s.chooseTake() // the other indexes' changes, before the new one is read afresh
	s.chooseIdx = append(s.chooseIdx, chooseIndex{st: st, lazyN: s.scanLimit(st)})
	x := &s.chooseIdx[len(s.chooseIdx)-1]
	reads, ok := s.chooseIndexable(ss, st, n)
	if !ok {
		return x
	}
	if s.choosePools == nil {
		s.choosePools = make([][]chooseLeaf, len(s.pools))
		s.chooseEngs = make([][]chooseLeaf, len(s.engs))
		s.choosePendEngs = newBitset(len(s.engs))
		s.blankChoose = &session{attrs: make([]float64, len(s.p.Attrs))}
	}
	self := int32(len(s.chooseIdx) - 1)
	x.poolCands = make([][]int32, len(s.pools))
	for j := range reads {
		for _, p := range reads[j].pools {
			s.choosePools[p] = append(s.choosePools[p], chooseLeaf{self, int32(j)})
		}
		for _, e := range reads[j].engs {
			s.chooseEngs[e] = append(s.chooseEngs[e], chooseLeaf{self, int32(j)})
			s.engs[e].chosen = true
		}
		for _, p := range reads[j].cached {
			x.cachedAll |= poolBit(p)
			x.poolCands[p] = append(x.poolCands[p], int32(j))
		}
	}
	x.ownSet = newBitset(int(n))
	x.ok = true
	x.n, x.k = int(n), len(st.Keys)
	x.size = 1
	for x.size < x.n {
		x.size *= 2
	}
	x.keys = make([]float64, x.n*x.k)
	x.win = make([]int32, 2*x.size)
	for j := range x.size {
		x.win[x.size+j] = -1
	}
	x.stale = newBitset(x.n)
	x.nan = newBitset(x.n)
	for j := range x.n {
		s.chooseLeafEval(x, j)
		x.win[x.size+j] = int32(j)
	}
	for i := x.size - 1; i >= 1; i-- {
		x.win[i] = x.better(x.win[2*i], x.win[2*i+1])
	}
	return x
}

// chooseTake marks the candidates that read the pools and engines changed
// since the last take (choosePend, which poolChanged adds to, and
// choosePendEngs, engineChanged) and empties the sets.
func (s *Sim) chooseTake() {
	if s.choosePools != nil { // some index was built
		for p := s.choosePend.next(0); p >= 0; p = s.choosePend.next(p + 1) {
			for _, l := range s.choosePools[p] {
				s.chooseIdx[l.index].stale.set(int(l.leaf))
			}
		}
		for e := s.choosePendEngs.next(0); e >= 0; e = s.choosePendEngs.next(e + 1) {
			for _, l := range s.chooseEngs[e] {
				s.chooseIdx[l.index].stale.set(int(l.leaf))
			}
		}
		s.choosePendEngs.reset()
	}
	s.choosePend.reset()
}

// engineChanged notes a change of e's residents, its batch or their
// remaining work (queue, busy and work of its stage) for the indexes that
// read them. Every write of those goes through one of its callers: a
// join (engineRun), a cancel (engineCancel), an iteration's start
// (attempt) and end (iterEnd, which makes the leaves), and a quiet
// iteration (quietIteration).
func (s *Sim) engineChanged(e *engine) {
	if e.chosen {
		s.choosePendEngs.set(e.ei)
	}
}

// chooseReads are the states a candidate's keys read: the pools whose
// used, free, holders or queued they read, the engines whose stage's
// queue, busy or work, and the pools whose cachedin.
type chooseReads struct{ pools, engs, cached []int }

// chooseIndexable reports whether st's picks can be kept in an index: a
// constant count n of at least 1 and keys that read nothing but pools'
// used, free, holders, queued and cachedin, engines' queue, busy and work,
// constants and the candidate (no other attribute, no other stage, no
// register, clock, draw or observe: pureOfPools), the pool or engine of
// every candidate resolved in range by an index that reads only the
// candidate and constants. It returns what each candidate reads.
func (s *Sim) chooseIndexable(ss *session, st *model.Stmt, n float64) ([]chooseReads, bool) {
	if n < 1 || n > maxChoose || len(st.Keys) == 0 || !pureOfPools(s.readsOf(st.N), -1, readsNothing) {
		return nil, false
	}
	for _, key := range st.Keys {
		if !pureOfPools(s.readsOf(key), st.Slot, readsRouter) {
			return nil, false
		}
	}
	saved := ss.attrs[st.Slot]
	defer func() { ss.attrs[st.Slot] = saved }()
	reads := make([]chooseReads, int(n))
	ok := true
	for j := range reads {
		ss.attrs[st.Slot] = float64(j)
		r := &reads[j]
		for _, key := range st.Keys {
			for _, e := range s.readsOf(key).Members {
				if !ok {
					break
				}
				if e.Op != model.EPool && e.Op != model.EStage {
					continue
				}
				var f *model.Family
				if e.Op == model.EPool {
					f = &s.p.PoolFams[e.Ref.Fam]
				} else {
					f = &s.p.StageFams[e.Ref.Fam]
				}
				m := f.First
				if e.Ref.Index != nil {
					x := s.eval(e.Ref.Index, ss)
					if !inFamily(x, f) {
						ok = false // the scan reports it, if a candidate reads it
						break
					}
					m += int(x)
				}
				switch {
				case e.Op == model.EStage:
					eng := s.stages[m].eng
					if eng == nil {
						ok = false // a stage's work reads the clock
						break
					}
					r.engs = appendNew(r.engs, eng.ei)
				case e.Fn == model.PCachedIn:
					r.cached = appendNew(r.cached, m)
				default:
					r.pools = appendNew(r.pools, m)
				}
			}
		}
	}
	return reads, ok
}

// appendNew appends x to list unless it holds it.
func appendNew(list []int, x int) []int {
	if slices.Contains(list, x) {
		return list
	}
	return append(list, x)
}

// pureReads is what a pure expression may read besides numbers, the
// attribute slot (a choose's candidate), operators and pure functions.
type pureReads uint8

const (
	readsNothing pureReads = iota // a constant, or a function of the candidate
	readsPools                    // pools' used, free, holders and queued: a function of pools' states (a gauge's tree, gaugeOfPools)
	readsRouter                   // those, pools' cachedin and stages' queue, busy and work (a choose's index)
)

// chooseLeafEval reads candidate j's keys into its leaf, with the index's
// own session (Sim.blankChoose: no cache entry) in the choose's slot set
// to j, and reports whether any changed, bit for bit.
func (s *Sim) chooseLeafEval(x *chooseIndex, j int) bool {
	b := s.blankChoose
	b.attrs[x.st.Slot] = float64(j)
	keys := x.keys[j*x.k : (j+1)*x.k]
	changed, nan := false, false
	for i, key := range x.st.Keys {
		v := s.eval(key, b)
		if math.Float64bits(v) != math.Float64bits(keys[i]) {
			keys[i] = v
			changed = true
		}
		if v != v {
			nan = true
		}
	}
	if nan != x.nan.has(j) {
		if nan {
			x.nan.set(j)
			x.nans++
		} else {
			x.nan.clear(j)
			x.nans--
		}
	}
	return changed
}

// better is the first least of two nodes' candidates, a's all before b's.
func (x *chooseIndex) better(a, b int32) int32 {
	if b < 0 {
		return a
	}
	if a < 0 {
		return b
	}
	if compareKeys(x.keys[int(b)*x.k:int(b+1)*x.k], x.keys[int(a)*x.k:int(a+1)*x.k]) < 0 {
		return b
	}
	return a
}

// pick brings the stale leaves up to date, and the nodes above those whose
// keys changed, and returns the first candidate with the least keys; -1
// when a candidate's keys hold a NaN (the scan must pick). ss's choose slot
// is left at some candidate: the caller sets it.
func (s *Sim) pick(x *chooseIndex, ss *session) int {
	s.chooseTake()
	for j := x.stale.next(0); j >= 0; j = x.stale.next(j + 1) {
		x.stale.clear(j)
		if !s.chooseLeafEval(x, j) {
			continue
		}
		// the path to the root; above a node whose winner is another
		// candidate, as before, nothing changes
		c := int32(j)
		for i := (x.size + j) >> 1; i >= 1; i >>= 1 {
			old := x.win[i]
			w := x.better(x.win[2*i], x.win[2*i+1])
			x.win[i] = w
			if w == old && w != c {
				break
			}
		}
	}
	if x.nans > 0 {
		x.scans++
		return -1
	}
	w := x.win[1]
	if root := rootOf(ss); root.cachePools&x.cachedAll != 0 {
		// the session may have an entry in a pool whose cachedin a key reads
		for _, e := range root.cache {
			if !e.gone && !e.dead {
				for _, j := range x.poolCands[e.pool] {
					x.ownSet.set(int(j))
				}
			}
		}
		if !x.ownSet.empty() {
			var ok bool
			if w, ok = s.pickOwn(x, ss); !ok {
				x.scans++
				return -1
			}
			x.owned++
		}
	}
	x.picks++
	return int(w)
}

// pickOwn is the pick when the session has cached prefixes in some of the
// candidates' cachedin pools (chooseIndex.ownSet: the candidates that read
// them): those are read with the session, the tree's winner among the
// others is found with those taken out, and the first least of them all,
// in index order, is the pick. The others' cachedin is the session's,
// which has no entry in their pools (ownEntry): 0, as their leaves read
// it. It reports false when a key read with the session is NaN (the scan
// must pick). The tree is left as it was, the scratch empty.
func (s *Sim) pickOwn(x *chooseIndex, ss *session) (int32, bool) {
	saved := ss.attrs[x.st.Slot]
	defer func() {
		ss.attrs[x.st.Slot] = saved
		x.own, x.ownKeys = x.own[:0], x.ownKeys[:0]
		x.ownSet.reset()
	}()
	for j := x.ownSet.next(0); j >= 0; j = x.ownSet.next(j + 1) {
		ss.attrs[x.st.Slot] = float64(j)
		for _, key := range x.st.Keys {
			v := s.eval(key, ss)
			if v != v {
				return -1, false
			}
			x.ownKeys = append(x.ownKeys, v)
		}
		x.own = append(x.own, int32(j))
	}
	// the tree's winner among the others
	for _, j := range x.own {
		x.win[x.size+int(j)] = -1
		x.repath(int(j))
	}
	w := x.win[1]
	for _, j := range x.own {
		x.win[x.size+int(j)] = j
		x.repath(int(j))
	}
	// the first least, in index order, as the scan compares
	best, bestKeys := int32(-1), []float64(nil)
	take := func(j int32, keys []float64) {
		if best < 0 || compareKeys(keys, bestKeys) < 0 {
			best, bestKeys = j, keys
		}
	}
	for m, j := range x.own {
		if w >= 0 && w < j {
			take(w, x.keys[int(w)*x.k:int(w+1)*x.k])
			w = -1
		}
		take(j, x.ownKeys[m*x.k:(m+1)*x.k])
	}
	if w >= 0 {
		take(w, x.keys[int(w)*x.k:int(w+1)*x.k])
	}
	return best, true
}

// repath recomputes the winners on the path from leaf j to the root.
func (x *chooseIndex) repath(j int) {
	for i := (x.size + j) >> 1; i >= 1; i >>= 1 {
		x.win[i] = x.better(x.win[2*i], x.win[2*i+1])
	}
}

// scanLimit is the number of candidates up to which st's keys can be read
// for each candidate without a draw and without failing, -1 if there is
// no such bound: no key draws, and every member a key names is named by a
// constant in its family's range, by the candidate itself (the bound is
// the family's size) or is a family's only one. Reading such a key has no
// effect, so a candidate whose first keys already lose to the best so far
// need not have the others read (Sim.choose); with one key there is
// nothing to leave unread.
func (s *Sim) scanLimit(st *model.Stmt) int {
	if len(st.Keys) < 2 {
		return -1
	}
	limit := math.MaxInt
	for _, key := range st.Keys {
		r := s.readsOf(key)
		if r.Any(model.OpBits(model.EDraw)) {
			return -1
		}
		for _, x := range r.Members {
			var f *model.Family
			switch x.Op {
			case model.EPool:
				f = &s.p.PoolFams[x.Ref.Fam]
			case model.EStage, model.EReg, model.EBudget:
				f = &s.p.StageFams[x.Ref.Fam]
			default:
				return -1
			}
			switch i := x.Ref.Index; {
			case i == nil:
			case constMember(i, f):
			case i.Op == model.EAttr && i.Slot == st.Slot:
				limit = min(limit, f.Count)
			default:
				return -1
			}
		}
	}
	return limit
}

// chooseIndexes are the indexed chooses' state, embedded in Sim.
type chooseIndexes struct {
	chooseIdx      []chooseIndex  // the choose statements' indexes, in the order first run
	choosePools    [][]chooseLeaf // for each pool, the indexes' candidates that read it
	choosePend     bitset         // pools changed (poolChanged) since the indexes last took the changes
	chooseEngs     [][]chooseLeaf // for each engine, the indexes' candidates that read its stage
	choosePendEngs bitset         // engines read by an index changed (engineChanged) since the last take
	blankChoose    *session       // the session the indexes read their leaves with: no cache entry
}
