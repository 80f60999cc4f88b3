package interp

import (
	"math"
	"sort"
)

// Sparse and filled checkpoints, for a driver that runs part of a timeline
// fast (the TUI at top speed) and wants its checkpoints to cost less there:
// it takes them at a multiple of the spacing (StepNEvery), and fills the
// part it stops in later (RefillTraced), so going back there costs the spacing
// again. Either way every checkpoint stands at a multiple of the spacing,
// as thinning expects.

// Every is the spacing of the checkpoints, in events (it doubles when
// thinned).
func (tl *Timeline) Every() uint64 { return tl.every }

// StepNEvery is StepN taking checkpoints only at multiples of k times the
// spacing (k ≥ 1).
func (tl *Timeline) StepNEvery(n, k uint64) uint64 { return tl.stepNEvery(n, k, math.Inf(1)) }

// RefillTraced replays the events from the checkpoint at or before
// event from up to event to, for a driver that wants their trace: with
// tracer set (iters: whether engine iterations are traced), in StepN
// batches from one multiple of the spacing to the next (so quiet engine
// iterations run as fast as in the run itself), and keeps the checkpoints
// the timeline lacks on the way. The timeline's own point does not move.
func (tl *Timeline) RefillTraced(from, to uint64, tracer func(TraceEvent), iters bool) {
	c := tl.before(func(c *Checkpoint) bool { return c.Events() <= from })
	s := c.Resume()
	s.SetTracer(tracer)
	s.TraceIterations(iters)
	tl.replayFilling(s, to, math.Inf(1), tl.sim.events)
}

// replayFilling runs s up to event to, or before an event after time
// until, in StepN batches from one multiple of the spacing to the next,
// keeping the checkpoints the timeline lacks before event before.
func (tl *Timeline) replayFilling(s *Sim, to uint64, until float64, before uint64) {
	for s.events < to && !s.Done() {
		want := min(to, (s.events/tl.every+1)*tl.every) - s.events
		got := s.stepN(want, until)
		tl.Replayed += got
		tl.fill(s, before)
		if got < want {
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
	tl.bytes += nc.Bytes()
	tl.keepWithin()
	return nc
}

// SeekBackFilling is SeekEvent to an event n behind the current point,
// keeping on the way the checkpoints that the timeline lacks at multiples
// of the spacing (a part run with sparser ones, StepNEvery), so that going
// back there again costs the spacing.
func (tl *Timeline) SeekBackFilling(n uint64) {
	from := tl.sim.events
	tl.resume(tl.before(func(c *Checkpoint) bool { return c.Events() <= n }))
	tl.replayFilling(tl.sim, n, math.Inf(1), from)
}

// SeekTimeBackFilling is SeekTime to a time t before the current clock,
// filling in checkpoints on the way as SeekBackFilling does.
func (tl *Timeline) SeekTimeBackFilling(t float64) {
	from := tl.sim.events
	tl.resume(tl.before(func(c *Checkpoint) bool { return c.Time() <= t }))
	tl.replayFilling(tl.sim, math.MaxUint64, t, from)
	// As RunUntil: the clock moves to t before an event after it (an event
	// past the horizon ends the run).
	tl.sim.RunUntil(t)
}

// StepNUntil is StepNEvery stopping before an event after time until (one
// within the horizon, as RunUntil): at most n events, checkpoints at
// multiples of k spacings. It returns how many it processed.
func (tl *Timeline) StepNUntil(n, k uint64, until float64) uint64 { return tl.stepNEvery(n, k, until) }
