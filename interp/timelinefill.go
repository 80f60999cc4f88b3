package interp

import "sort"

// Sparse and filled checkpoints, for a driver that runs part of a timeline
// fast (the TUI at top speed) and wants its checkpoints to cost less there:
// it takes them at a multiple of the spacing (StepNEvery), and fills the
// part it stops in later (Refill), so going back there costs the spacing
// again. Either way every checkpoint stands at a multiple of the spacing,
// as thinning expects.

// Every is the spacing of the checkpoints, in events (it doubles when
// thinned).
func (tl *Timeline) Every() uint64 { return tl.every }

// StepNEvery is StepN taking checkpoints only at multiples of k times the
// spacing (k ≥ 1).
func (tl *Timeline) StepNEvery(n, k uint64) uint64 {
	start := tl.sim.events
	for tl.sim.events-start < n {
		every := tl.every * max(k, 1)
		next := (tl.sim.events/every + 1) * every
		want := min(n-(tl.sim.events-start), next-tl.sim.events)
		got := tl.sim.StepN(want)
		if tl.sim.events%every == 0 {
			tl.checkpointIfDue()
		}
		if got < want {
			break
		}
	}
	return tl.sim.events - start
}

// Refill replays the events from the checkpoint at event from (the latest
// at or before it) up to event to, as Scan does, calling visit with the
// run after each event (visit may stop it), and keeps a checkpoint at each
// multiple of the spacing on the way that the timeline lacks; taken sees
// each new one. The timeline's own point does not move.
func (tl *Timeline) Refill(from, to uint64, visit func(s *Sim) bool, taken func(*Checkpoint)) {
	c := tl.before(func(c *Checkpoint) bool { return c.Events() <= from })
	s := c.Resume()
	if !visit(s) {
		return
	}
	for s.events < to && s.Step() {
		tl.Replayed++
		if s.events%tl.every == 0 && s.err == nil && s.events < tl.sim.events {
			i := sort.Search(len(tl.cps), func(i int) bool { return tl.cps[i].Events() >= s.events })
			if i == len(tl.cps) || tl.cps[i].Events() != s.events {
				nc := s.Checkpoint()
				tl.cps = append(tl.cps, nil)
				copy(tl.cps[i+1:], tl.cps[i:])
				tl.cps[i] = nc
				if taken != nil {
					taken(nc)
				}
				if len(tl.cps) > MaxCheckpoints {
					tl.thin()
				}
			}
		}
		if !visit(s) {
			return
		}
	}
}
