package interp

import (
	"math"
	"slices"

	"github.com/serq/serq/model"
)

// Indexed `choose`: a router's `choose j in ND by (holders(D[j].kv) +
// queued(D[j].kv))` reads every candidate's keys on every request, a cost
// that grows with the family. When each candidate's key tuple is a pure
// function of some pools' states (the choose is indexable: see
// chooseIndexable), the tuples are kept in a tournament tree over the
// candidates instead: each leaf holds a candidate's keys, each inner node
// the first least candidate below it. Every change of a pool's used,
// queue or holders goes through poolChanged (the time averages need it),
// which adds the pool to choosePend; a pick first takes those pools,
// marking the leaves that read them (resolved once, when the index is
// built), so it sees every change up to its moment, those earlier in the
// same instant included. It evaluates the marked leaves again, by the same
// evaluator with the candidate in the choose's slot (so the values are bit
// for bit the scan's), and recomputes the nodes above those whose keys
// changed, up to where the winner is another candidate, as before. The
// pick is the root's.
//
// The scan picks the first candidate whose tuple is least by compareKeys;
// the tree picks the same as long as the order is total, which it is
// without NaN (-0 and +0 compare equal in both). compareKeys finds a NaN
// equal to every value, which is not transitive, so the answer depends on
// the order the candidates are compared in (keys [1, 0, NaN, -1]: the scan
// picks candidate 3, the tree 1): while any leaf holds a NaN, the choose
// takes the scan. Under a tracer (which notes
// every candidate's keys) the scan runs too, after the leaves are brought
// up to date as they would be without it, so a traced run's state is the
// untraced run's. Options.NoFastPath builds no index.

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
	pools, ok := s.chooseIndexable(ss, st, n)
	if !ok {
		return x
	}
	if s.choosePools == nil {
		s.choosePools = make([][]chooseLeaf, len(s.pools))
	}
	self := int32(len(s.chooseIdx) - 1)
	for j, ps := range pools {
		for _, p := range ps {
			s.choosePools[p] = append(s.choosePools[p], chooseLeaf{self, int32(j)})
		}
	}
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
		s.chooseLeafEval(x, ss, j)
		x.win[x.size+j] = int32(j)
	}
	for i := x.size - 1; i >= 1; i-- {
		x.win[i] = x.better(x.win[2*i], x.win[2*i+1])
	}
	return x
}

// chooseTake marks the candidates that read the pools changed since the
// last take (choosePend, which poolChanged adds to) and empties the set.
func (s *Sim) chooseTake() {
	if s.choosePools != nil { // some index reads a pool
		for p := s.choosePend.next(0); p >= 0; p = s.choosePend.next(p + 1) {
			for _, l := range s.choosePools[p] {
				s.chooseIdx[l.index].stale.set(int(l.leaf))
			}
		}
	}
	s.choosePend.reset()
}

// chooseIndexable reports whether st's picks can be kept in an index: a
// constant count n of at least 1 and keys that read nothing but pools'
// used, free, holders and queued, constants and the candidate (no other
// attribute, no stage, engine, register, clock, draw or observe), the pool
// of every candidate resolved in range by an index that reads only the
// candidate and constants. It returns the pools each candidate reads.
func (s *Sim) chooseIndexable(ss *session, st *model.Stmt, n float64) ([][]int, bool) {
	if n < 1 || n > maxChoose || len(st.Keys) == 0 || !pureOfPools(st.N, -1, false) {
		return nil, false
	}
	for _, key := range st.Keys {
		if !pureOfPools(key, st.Slot, true) {
			return nil, false
		}
	}
	saved := ss.attrs[st.Slot]
	defer func() { ss.attrs[st.Slot] = saved }()
	pools := make([][]int, int(n))
	ok := true
	for j := range pools {
		ss.attrs[st.Slot] = float64(j)
		for _, key := range st.Keys {
			key.Walk(func(e *model.Expr) bool {
				if !ok || e.Op != model.EPool {
					return ok
				}
				f := &s.p.PoolFams[e.Ref.Fam]
				p := f.First
				if e.Ref.Index != nil {
					x := s.eval(e.Ref.Index, ss)
					if !inFamily(x, f) {
						ok = false // the scan reports it, if a candidate reads it
						return false
					}
					p += int(x)
				}
				if !slices.Contains(pools[j], p) {
					pools[j] = append(pools[j], p)
				}
				return true
			})
		}
	}
	return pools, ok
}

// pureOfPools reports whether e reads nothing but numbers, the attribute
// slot (a choose's candidate; -1: none), operators and pure functions
// and, where pools is set, the observables of pools that are their states
// alone (used, free, holders, queued; cachedin reads the session, leases
// and oldest_lease the clock) indexed by such expressions without pools.
// Without slot and pools it is a constant; with pools, a function of
// pools' states (a gauge's tree, gaugeOfPools, or a choose's index).
func pureOfPools(e *model.Expr, slot int, pools bool) bool {
	switch e.Op {
	case model.ENum:
		return true
	case model.EAttr:
		return slot >= 0 && e.Slot == slot
	case model.EPool:
		switch e.Fn {
		case model.PUsed, model.PFree, model.PHolders, model.PQueued:
		default:
			return false
		}
		return pools && (e.Ref.Index == nil || pureOfPools(e.Ref.Index, slot, false))
	case model.ENeg, model.ENot, model.EAdd, model.ESub, model.EMul, model.EDiv, model.EPow,
		model.ELt, model.ELe, model.EGt, model.EGe, model.EEq, model.ENe, model.EAnd, model.EOr, model.ECond,
		model.EFunc: // a pure function (model validates Fn)
	default:
		return false // draws, stages, registers, budgets, the clock and context, observes' aggregates
	}
	for _, a := range e.Args {
		if !pureOfPools(a, slot, pools) {
			return false
		}
	}
	return true
}

// chooseLeafEval reads candidate j's keys into its leaf (ss's choose slot
// set to j) and reports whether any changed, bit for bit.
func (s *Sim) chooseLeafEval(x *chooseIndex, ss *session, j int) bool {
	ss.attrs[x.st.Slot] = float64(j)
	keys := x.keys[j*x.k : (j+1)*x.k]
	changed, nan := false, false
	for i, key := range x.st.Keys {
		v := s.eval(key, ss)
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
		if !s.chooseLeafEval(x, ss, j) {
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
	x.picks++
	return int(x.win[1])
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
		key.Walk(func(x *model.Expr) bool {
			if x.Op == model.EDraw {
				limit = -1
			}
			if x.Ref == nil || limit < 0 {
				return limit >= 0
			}
			var f *model.Family
			switch x.Op {
			case model.EPool:
				f = &s.p.PoolFams[x.Ref.Fam]
			case model.EStage, model.EReg, model.EBudget:
				f = &s.p.StageFams[x.Ref.Fam]
			default:
				limit = -1
				return false
			}
			switch i := x.Ref.Index; {
			case i == nil:
			case constMember(i, f):
			case i.Op == model.EAttr && i.Slot == st.Slot:
				limit = min(limit, f.Count)
			default:
				limit = -1
			}
			return limit >= 0
		})
	}
	return limit
}
