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
		if nc := tl.fill(s, tl.sim.events); nc != nil && taken != nil {
			taken(nc)
		}
		if !visit(s) {
			return
		}
	}
}

// fill keeps a checkpoint of s, after an event before event before, when
// it stands at a multiple of the spacing that the timeline lacks; it
// returns the new checkpoint, nil for none.
func (tl *Timeline) fill(s *Sim, before uint64) *Checkpoint {
	if s.events%tl.every != 0 || s.err != nil || s.events >= before {
		return nil
	}
	i := sort.Search(len(tl.cps), func(i int) bool { return tl.cps[i].Events() >= s.events })
	if i < len(tl.cps) && tl.cps[i].Events() == s.events {
		return nil
	}
	nc := s.Checkpoint()
	tl.cps = append(tl.cps, nil)
	copy(tl.cps[i+1:], tl.cps[i:])
	tl.cps[i] = nc
	if len(tl.cps) > MaxCheckpoints {
		tl.thin()
	}
	return nc
}

// SeekBackFilling is SeekEvent to an event n behind the current point,
// keeping on the way the checkpoints that the timeline lacks at multiples
// of the spacing (a part run with sparser ones, StepNEvery), so that going
// back there again costs the spacing.
func (tl *Timeline) SeekBackFilling(n uint64) {
	from := tl.sim.events
	tl.resume(tl.before(func(c *Checkpoint) bool { return c.Events() <= n }))
	for tl.sim.events < n && !tl.sim.Done() {
		tl.Replayed++
		tl.sim.Step()
		tl.fill(tl.sim, from)
	}
}

// SeekTimeBackFilling is SeekTime to a time t before the current clock,
// filling in checkpoints on the way as SeekBackFilling does.
func (tl *Timeline) SeekTimeBackFilling(t float64) {
	from := tl.sim.events
	tl.resume(tl.before(func(c *Checkpoint) bool { return c.Time() <= t }))
	for !tl.sim.Done() {
		// As RunUntil: the clock moves to t before an event after it, and
		// an event past the horizon ends the run.
		if tl.sim.NextTime() > t && tl.sim.NextTime() <= tl.sim.opt.Horizon {
			tl.sim.RunUntil(t)
			return
		}
		tl.Replayed++
		tl.sim.Step()
		tl.fill(tl.sim, from)
	}
}
