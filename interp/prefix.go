package interp

import (
	"math"
	"slices"
)

// Shared prefixes: `hold … prefix (k1: n1, …, km: nm) … { … } cache (ℓ);`
// (docs/engine.md §3.1, the reference serQ's docs/design/shared-prefix-cache.md).
//
// The plan. A hold with a prefix names its content as a chain of segments,
// each a key and a length; after them comes the session's own content (its
// outputs), keyed by the session. In a pool with a block, the cache of such
// holds is a trie of segments per pool, shared by every session: a node is
// one segment of one chain, and holds whose chains begin with the same
// segments (key and length equal) reach the same nodes. A node holds the
// whole blocks whose end falls in its segment — the blocks vLLM's hash
// chain makes a function of that segment and every one before it
// (vllm/v1/core/kv_cache_utils.py hash_block_tokens), so a block that
// straddles two segments belongs to the later one — cached from the
// segment's first block on. The hit of a chain is the cached extent along
// it: node after node while each is full, in whole blocks.
//
// A hold reads and writes the trie:
//   - At admission, cachedin(P) in its header is the chain's hit in P; the
//     hold consumes min(hit, reuse, its allocation) in whole blocks, as it
//     consumes its own entry without a prefix, and pins the nodes it reads
//     through. A pinned node is in no one's eviction order, and its blocks
//     count in the allocation of the holds that read it (their units cover
//     the prefix they reuse), not in the cache; a node taken from the cache
//     keeps no more than the pinning hold's allocation covers.
//   - As its prefill advances, the whole blocks it has computed within the
//     chain are written into the chain's nodes (pinned by it): another
//     session reaching them while this one still runs hits them, as a
//     request hits the blocks vLLM caches as soon as they are full.
//   - At its end (and when preempted), up to ℓ of what it computed, its own
//     content too, is written into the nodes, then it unpins them, the
//     deepest first: a node no hold pins any more joins the pool's
//     eviction order as an entry, its units cached.
//
// Eviction takes a node's blocks from its end and takes only nodes no
// other cached node hangs from, so that no cached block outlives the ones
// before it; a node emptied, unpinned and childless leaves the trie.
// Sessions without a prefix, and pools without a block, keep their own
// entries as before. The reads that see the trie are a prefixed hold's
// header's; `cachedin` elsewhere, and `drop`, read and drop the session's
// own entries only.

// segKey is a segment's identity: a key and a length, or a session's own
// content (own, v its serial).
type segKey struct {
	own  bool
	v, n float64
}

// prefixNode is a segment of content cached in one pool.
type prefixNode struct {
	parent *prefixNode
	key    segKey
	base   float64 // the position of its first block's start
	end    float64 // the end of its last block (inf for a session's own content)
	units  float64 // cached from base on, whole blocks
	refs   int     // the holds in scope pinning it
	kids   map[segKey]*prefixNode
	entry  *cacheEntry // its place in the pool's eviction order while no hold pins it
}

// prefixChain is a hold's chain, read when the hold is reached.
type prefixChain struct {
	keys  []segKey    // the segments, then the session's own
	ends  []float64   // their cumulative ends (the own one's inf)
	pools []prefixUse // per pool of the hold; on only for a pool with a block
}

// prefixUse is one pool's side of a prefixed hold.
type prefixUse struct {
	on     bool
	pinned []*prefixNode // in the order pinned (shallower first)
	pub    float64       // the hold's content is in its pinned nodes up to here
}

// prefixState is the run's tries and the hold whose header is being read.
type prefixState struct {
	roots  []*prefixNode // by pool, made when first needed
	header *holdInst     // a prefixed hold whose header is being evaluated
}

// readPrefix evaluates a hold's prefix when the hold is reached. It reports
// false after failing the run on a bad length or key.
func (s *Sim) readPrefix(ss *session, h *holdInst) bool {
	st := h.st
	c := &prefixChain{pools: make([]prefixUse, len(h.pools))}
	end := 0.0
	for _, seg := range st.Prefix {
		k, n := s.eval(seg.Key, ss), s.eval(seg.Length, ss)
		if math.IsNaN(k) || math.IsInf(k, 0) || math.IsNaN(n) || n < 0 || math.IsInf(n, 0) {
			s.fail(ss, st.Pos, "a prefix segment is %s: %s: its key must be finite, its length at least 0 and finite", fmtNum(k), fmtNum(n))
			return false
		}
		end += n
		c.keys = append(c.keys, segKey{v: k, n: n})
		c.ends = append(c.ends, end)
	}
	c.keys = append(c.keys, segKey{own: true, v: float64(rootOf(ss).serial)})
	c.ends = append(c.ends, math.Inf(1))
	for i := range h.pools {
		c.pools[i].on = s.pools[h.pools[i].pool].block > 0
	}
	h.pfx = c
	return true
}

// prefixOn reports whether pool i of hold h shares its cache by content.
func prefixOn(h *holdInst, i int) bool { return h != nil && h.pfx != nil && h.pfx.pools[i].on }

// poolOf is the index in h.pools of pool p, -1 if h does not take it.
func poolOf(h *holdInst, p int) int {
	for i := range h.pools {
		if h.pools[i].pool == p {
			return i
		}
	}
	return -1
}

// root is pool p's trie.
func (s *Sim) root(p int) *prefixNode {
	if s.prefix.roots == nil {
		s.prefix.roots = make([]*prefixNode, len(s.pools))
	}
	if s.prefix.roots[p] == nil {
		s.prefix.roots[p] = &prefixNode{kids: map[segKey]*prefixNode{}}
	}
	return s.prefix.roots[p]
}

// walk visits the nodes of c's chain in pool p that hold its content from
// the start, in order, while each before is full (a node of no whole block
// is passed through), and returns the extent they hold.
func (s *Sim) walk(p int, c *prefixChain, visit func(*prefixNode)) float64 {
	x := 0.0
	node := s.root(p)
	for _, k := range c.keys {
		n := node.kids[k]
		if n == nil || n.base != x && n.end > n.base {
			break
		}
		x = n.base + n.units
		if visit != nil {
			visit(n)
		}
		if x < n.end {
			break
		}
		node = n
	}
	return x
}

// prefixHit is cachedin(P) in the header of prefixed hold h: the extent
// of its chain cached in P.
func (s *Sim) prefixHit(h *holdInst, p int) float64 { return s.walk(p, h.pfx, nil) }

// prefixAdmit consumes, for pool i of hold h admitted with alloc units,
// the chain's hit up to reuse and alloc in whole blocks, pins the nodes
// that hold it, and returns what it consumed.
func (s *Sim) prefixAdmit(h *holdInst, i int, alloc, reuse float64) float64 {
	pl := &s.pools[h.pools[i].pool]
	u := &h.pfx.pools[i]
	hit := s.walk(pl.index, h.pfx, nil)
	consumed := math.Max(0, pl.roundDown(math.Min(math.Min(hit, reuse), alloc)))
	s.walk(pl.index, h.pfx, func(n *prefixNode) {
		if n.base < consumed || n.end == n.base && n.base <= consumed {
			s.pin(pl, u, n, alloc)
		}
	})
	u.pub = consumed
	return consumed
}

// pin makes hold use u pin node n. A node it takes from the cache keeps
// what the hold's allocation covers (the hold's units count it).
func (s *Sim) pin(pl *pool, u *prefixUse, n *prefixNode, alloc float64) {
	if slices.Contains(u.pinned, n) {
		return
	}
	if n.refs == 0 && n.entry != nil {
		pl.removeEntry(n.entry) // compacted at the pool's next eviction
		n.entry = nil
		n.units = math.Max(0, math.Min(n.units, pl.roundDown(alloc-n.base)))
		s.poolChanged(pl)
	}
	n.refs++
	u.pinned = append(u.pinned, n)
}

// nodeAt is the node of c's chain in pool p whose blocks include the one
// starting at pos, made (with those on the way) if missing; the nodes on
// the way are pinned by u.
func (s *Sim) nodeAt(pl *pool, c *prefixChain, u *prefixUse, pos, alloc float64) *prefixNode {
	node := s.root(pl.index)
	start := 0.0
	for j, k := range c.keys {
		n := node.kids[k]
		if n == nil {
			n = &prefixNode{parent: node, key: k, base: pl.roundDown(start), end: pl.roundDown(c.ends[j]), kids: map[segKey]*prefixNode{}}
			if k.own {
				n.end = math.Inf(1)
			}
			node.kids[k] = n
		}
		s.pin(pl, u, n, alloc)
		if pos < n.end {
			return n
		}
		node, start = n, c.ends[j]
	}
	return nil // not reached: the own segment is endless
}

// prefixPublish writes the whole blocks hold h has computed in pool i, up
// to the position to (block-aligned), into its chain's nodes; within the
// chain only unless all (the end of the hold).
func (s *Sim) prefixPublish(h *holdInst, i int, to float64, all bool) {
	pl := &s.pools[h.pools[i].pool]
	c, u := h.pfx, &h.pfx.pools[i]
	if !all { // the end of the last segment: the own content comes at the end
		to = math.Min(to, pl.roundDown(c.ends[len(c.ends)-2]))
	}
	alloc := h.pools[i].alloc
	for u.pub < to {
		n := s.nodeAt(pl, c, u, u.pub, alloc)
		if n.base+n.units < u.pub {
			return // a gap before: nothing after it can be shared
		}
		lim := math.Min(to, n.end)
		n.units = math.Max(n.units, lim-n.base)
		u.pub = lim
	}
}

// prefixCompute publishes what a prefill chunk of hold h computed in pool
// i, within the chain (iterEnd).
func (s *Sim) prefixCompute(h *holdInst, i int) {
	pl := &s.pools[h.pools[i].pool]
	s.prefixPublish(h, i, pl.roundDown(h.pools[i].pos), false)
}

// prefixRelease ends pool i of hold h, whose allocation has been freed:
// up to n units of its content are written into its nodes, then it unpins
// them, the deepest first; a node no hold pins joins the cache (evicting
// to make room, or keeping what fits). Unless keep (the pool went down),
// nothing is written and an unpinned node is dropped.
func (s *Sim) prefixRelease(h *holdInst, i int, n float64, keep bool) {
	pl := &s.pools[h.pools[i].pool]
	u := &h.pfx.pools[i]
	if keep {
		s.prefixPublish(h, i, pl.roundDown(n), true)
	}
	for k := len(u.pinned) - 1; k >= 0; k-- {
		s.unpin(pl, u.pinned[k], keep)
	}
	u.pinned = nil
}

// unpin drops one hold's pin of node n.
func (s *Sim) unpin(pl *pool, n *prefixNode, keep bool) {
	n.refs--
	if n.refs > 0 {
		return
	}
	if !keep {
		n.units = 0
	}
	if n.units > 0 {
		if pl.used+pl.cached+n.units > pl.cap+unitTol {
			s.evict(pl, n.units)
			if room := pl.cap - pl.used - pl.cached; n.units > room+unitTol {
				n.units = math.Max(0, pl.roundDown(room))
			}
		}
	}
	if n.units <= 0 {
		n.units = 0
		s.pruneNode(n)
		return
	}
	s.seq++
	e := &cacheEntry{pool: pl.index, size: n.units, last: s.now, seq: s.seq, node: n}
	n.entry = e
	pl.entries = append(pl.entries, e)
	pl.cached += n.units
	s.poolChanged(pl)
}

// pruneNode takes an empty node that no hold pins and nothing hangs from
// out of its trie, and its parent after it if that is left so.
func (s *Sim) pruneNode(n *prefixNode) {
	for n != nil && n.parent != nil && n.units <= 0 && n.refs == 0 && len(n.kids) == 0 {
		delete(n.parent.kids, n.key)
		n.entry = nil
		n = n.parent
	}
}

// nodeEvicted follows an eviction of node entry e's blocks (evict): the
// node keeps what is left, and an emptied one leaves the trie.
func (s *Sim) nodeEvicted(e *cacheEntry) {
	n := e.node
	n.units = math.Max(0, e.size)
	if e.gone || n.units <= unitTol {
		n.units = 0
		n.entry = nil
		s.pruneNode(n)
	}
}

// prefixLose wipes pool p's trie: the pool went down and lost its
// contents (faults.go losePool).
func (s *Sim) prefixLose(p int) {
	if s.prefix.roots != nil {
		s.prefix.roots[p] = nil
	}
}

// evictable reports whether cache entry e may lose blocks now: a node
// only when no cached node hangs from it.
func (e *cacheEntry) evictable() bool { return e.node == nil || len(e.node.kids) == 0 }

// enterHeader makes cachedin read hold h's chain while its header is read
// (h without a prefix: the session's own entries) and returns the hold it
// read before, to restore: s.prefix.header = prev.
func (s *Sim) enterHeader(h *holdInst) (prev *holdInst) {
	prev = s.prefix.header
	s.prefix.header = nil
	if h != nil && h.pfx != nil {
		s.prefix.header = h
	}
	return prev
}

// headerCachedIn is cachedin(p) when a prefixed hold's header reads it
// (ok false otherwise).
func (s *Sim) headerCachedIn(p int) (float64, bool) {
	h := s.prefix.header
	if h == nil {
		return 0, false
	}
	i := poolOf(h, p)
	if i < 0 || !h.pfx.pools[i].on {
		return 0, false
	}
	return s.prefixHit(h, p), true
}
