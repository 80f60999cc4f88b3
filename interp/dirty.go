package interp

import "math/bits"

// Dirty sets: the settle and the end of an instant visit only the pools,
// engines, stages and gauges that may have something to do, in index
// order, so an event's cost follows what it changed and not the size of
// the deployment.
//
// A member's bit is set by every change that can give it work (a hold
// queued, a grower stalled, a resident joined, an iteration ended, a job
// set changed, a pool a gauge reads changed) and cleared by the scan that
// finds it has none. A set bit is only a reason to look: the scan then does
// exactly what the full scan did for that member, and a member whose bit is
// clear is one for which the full scan would have done nothing. Scans read
// the set as they go (bitset.next), so a member marked by the work of a
// lower one is still visited in the same pass, as the full scan would.

// bitset is a set of small indexes.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// clearRange clears the bits lo to hi-1.
func (b bitset) clearRange(lo, hi int) {
	for lo < hi {
		w := lo >> 6
		n := min(hi-lo, 64-lo&63) // bits of word w in the range
		b[w] &^= (^uint64(0) >> (64 - n)) << (uint(lo) & 63)
		lo += n
	}
}

// next is the least member >= i, -1 if none.
func (b bitset) next(i int) int {
	w := i >> 6
	if w >= len(b) {
		return -1
	}
	x := b[w] &^ (1<<(uint(i)&63) - 1)
	for {
		if x != 0 {
			return w<<6 | bits.TrailingZeros64(x)
		}
		w++
		if w >= len(b) {
			return -1
		}
		x = b[w]
	}
}

// fill adds every member below n.
func (b bitset) fill(n int) {
	for i := 0; i < n; i++ {
		b.set(i)
	}
}

// empty reports whether the set has no member.
func (b bitset) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// reset empties the set.
func (b bitset) reset() {
	for i := range b {
		b[i] = 0
	}
}

// markPool notes that a pool's queue, growers or state changed: the
// settle's admission looks at it again, the engines admitting from it look
// for work, the gauges reading it are read again at the instant's end, and
// the quiet templates that read it hold no more (stepn.go).
func (s *Sim) markPool(pl *pool) {
	s.dirtyPools.set(pl.index)
	s.gaugePools.set(pl.index)
	for _, e := range s.poolEngines[pl.index] {
		s.dirtyEngs.set(e)
	}
	for _, e := range s.poolTemplates[pl.index] {
		s.engs[e].quiet.marked = true
	}
}

// markStage notes that a ps stage's job set changed: reschedule recomputes
// its rate.
func (s *Sim) markStage(stg *stage) {
	stg.dirty = true
	s.dirtyStages.set(stg.index)
}

// initDirty sizes the sets and resolves which engines admit from each
// pool. Every member starts marked: the first scans look at everything.
func (s *Sim) initDirty() {
	s.dirtyPools = newBitset(len(s.pools))
	s.gaugePools = newBitset(len(s.pools))
	s.dirtyEngs = newBitset(len(s.engs))
	s.dirtyStages = newBitset(len(s.stages))
	for i := range s.pools {
		s.dirtyPools.set(i)
	}
	for i := range s.engs {
		s.dirtyEngs.set(i)
	}
	s.poolEngines = make([][]int, len(s.pools))
	s.poolTemplates = make([][]int32, len(s.pools))
	for i := range s.engs {
		for _, p := range s.engs[i].m.Admits {
			s.poolEngines[p] = append(s.poolEngines[p], i)
		}
	}
}

// dirtySets are what the settle looks at after an event (embedded in Sim): the members
// marked since they were last found with nothing to do.
type dirtySets struct {
	dirtyPools  bitset  // pools the settle's admission looks at
	dirtyEngs   bitset  // engines startEngines looks at
	dirtyStages bitset  // ps stages reschedule looks at
	gaugePools  bitset  // pools changed since the gauges were last read
	poolEngines [][]int // for each pool, the engines that admit from it
	// for each pool, the engines whose quiet template has read it
	// (captureQuiet): markPool marks their templates
	poolTemplates [][]int32
}
