package interp

import (
	"math"

	"github.com/serq/serq/model"
)

// Spilling (docs/engine.md §5): a pool with `spill T via S (work) when
// (cond)` writes what it evicts into the tier pool T. At each eviction
// step (a whole entry, or one tail block of it in a block pool) cond and
// work are read with the eviction's context: size is the units evicted,
// age, last and waiting as for `evict by`, attributes the entry's
// session's (zeros once it has ended). When cond is 1 the units join the
// session's entry in T (made room for by evicting in T, which may spill
// further), the pool counts a spill, and a job of the given work runs on
// S: the transfer, which no session waits for. A session fetches its
// tier entry back itself (`cachedin(T)`, then `drop T`).

// spill writes units just evicted from entry e of pool pl into its tier.
func (s *Sim) spill(pl *pool, e *cacheEntry, units float64) {
	sp := pl.m.Spill
	owner := e.owner
	if owner != nil && owner.gen != e.gen {
		owner = nil
	}
	s.ctx[model.CtxSize] = units
	s.ctx[model.CtxAge] = s.now - e.last
	s.ctx[model.CtxLast] = e.last
	s.ctx[model.CtxWaiting] = 0
	if owner != nil && owner.state == sBlocked && owner.waitingHold {
		s.ctx[model.CtxWaiting] = 1
	}
	who := s.attrsOf(owner)
	when := s.evalWith(sp.When, who, s.machineStream)
	if when != 0 && when != 1 {
		s.fail(nil, sp.Pos, "the `when` of pool `%s`'s spill is %s, not 0 or 1", pl.m.Label, fmtNum(when))
		return
	}
	if when == 0 {
		return
	}
	work := s.evalWith(sp.Work, who, s.machineStream)
	if math.IsNaN(work) || work < 0 || math.IsInf(work, 0) {
		s.fail(nil, sp.Pos, "the work of pool `%s`'s spill is %s: it must be finite and at least 0", pl.m.Label, fmtNum(work))
		return
	}
	s.intoTier(&s.pools[sp.Tier], e, owner, units)
	if s.warm {
		pl.spills++
	}
	if work > 0 {
		s.spillJob(sp.Stage, e.serial, work)
	}
}

// intoTier adds units to the tier's entry for e's session: its own entry
// there is taken out and comes back with the units, released now (last in
// the lru order); the leftover of a consumed entry stays a dead one of its
// own. Room is made by evicting in the tier; what it still cannot hold is
// lost.
func (s *Sim) intoTier(t *pool, e *cacheEntry, owner *session, units float64) {
	s.poolVer++
	have := 0.0
	if !e.dead {
		for _, x := range t.entries {
			if !x.gone && !x.dead && x.serial == e.serial {
				have = x.size
				t.removeEntry(x)
				s.compactEntries(t)
				break
			}
		}
	}
	size := t.roundDown(have + units)
	if t.used+t.cached+size > t.cap {
		s.evict(t, size)
		if t.used+t.cached+size > t.cap {
			size = t.roundDown(math.Max(0, t.cap-t.used-t.cached))
		}
	}
	if size > 0 {
		s.seq++
		n := &cacheEntry{pool: t.index, serial: e.serial, size: size, last: s.now, seq: s.seq, dead: e.dead}
		if owner != nil {
			root := rootOf(owner)
			n.owner, n.gen = root, root.gen
			root.addEntry(n)
		}
		t.entries = append(t.entries, n)
		t.cached += size
	}
	s.poolChanged(t)
}

// spillJob runs a spill's transfer on a stage: a job of a session of its
// own that runs no statements, for the serial whose units it moves.
func (s *Sim) spillJob(stage int, serial uint64, work float64) {
	ss := s.newSession()
	ss.serial, ss.spillJob = serial, true
	m := &s.p.Stages[stage]
	ref := model.Ref{Fam: m.Fam}
	if m.Index >= 0 {
		ref.Index = model.Num(float64(m.Index))
	}
	st := &model.Stmt{Op: model.OpRun, Pos: m.Pos, Value: model.Num(work), Stages: []model.Ref{ref}}
	if s.run(ss, st) {
		s.spillDone(ss) // no time to pass
	}
}

// spillDone retires a spill's session once its job ends.
func (s *Sim) spillDone(ss *session) {
	ss.state = sDone
	ss.gen++
	s.free = append(s.free, ss)
}
