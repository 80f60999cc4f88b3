package interp

import (
	"math"
	"sort"
)

// Timeline is a run that can go back: it keeps checkpoints of the run as it
// goes (one every Every events), so that going to any earlier event costs a
// resume and at most Every events, never a re-run from time 0. Going to a
// later event steps on from where the run is. The state reached either way
// is the state a straight run has after the same number of events
// ([SameState]), so travelling never changes a result.
//
// Checkpoints are spaced by events. Each one's memory is counted as it is
// made (Checkpoint.Bytes), and the spacing doubles (every other checkpoint
// dropped) when their memory would pass the budget (SetBudget, by default
// DefaultCheckpointBudget) or there would be more than MaxCheckpoints of
// them: their memory stays within the budget on any run length, and a seek
// costs at most one spacing's events, the spacing the fewest doublings
// that the budget allows.
type Timeline struct {
	sim    *Sim
	cps    []*Checkpoint // by event count, ascending; cps[0] is the start
	every  uint64
	bytes  int64 // the checkpoints' memory (Checkpoint.Bytes summed)
	budget int64 // the most they may take
	tracer func(TraceEvent)
	reach  func(Reach)
	// Replayed counts the events run again to reach an earlier point, for
	// benchmarks and tests.
	Replayed uint64
}

// Default checkpoint spacing, memory and count. At the seed example's
// pace (about 2.5 M events a second) a step back replays at most 65,536
// events, about 25 ms; a checkpoint costs about 1.5 ms, a few percent of
// the run, and some 100 KB (the seed at 32/32: 2 MB, so that 256 MB keeps
// 128 of them). The count bounds the list of a small program's
// checkpoints, each a few KB.
const (
	DefaultCheckpointEvery  = 1 << 16
	DefaultCheckpointBudget = 256 << 20
	MaxCheckpoints          = 4096
)

// NewTimeline starts a timeline at s's current state. every ≤ 0 means
// DefaultCheckpointEvery.
func NewTimeline(s *Sim, every uint64) *Timeline {
	if every == 0 {
		every = DefaultCheckpointEvery
	}
	tl := &Timeline{sim: s, every: every, budget: DefaultCheckpointBudget}
	tl.cps = []*Checkpoint{s.Checkpoint()}
	tl.bytes = tl.cps[0].Bytes()
	tl.tracer, tl.reach = s.tracer, s.reach
	return tl
}

// SetBudget sets the most memory the checkpoints may take, in bytes (≤ 0:
// DefaultCheckpointBudget), thinning them now if they take more.
func (tl *Timeline) SetBudget(bytes int64) {
	if bytes <= 0 {
		bytes = DefaultCheckpointBudget
	}
	tl.budget = bytes
	tl.keepWithin()
}

// Bytes is the memory the checkpoints take, as counted when each was made
// (the copy of the run's state; what checkpoints share with the run, the
// program and the statistics' full chunks, counts nothing).
func (tl *Timeline) Bytes() int64 { return tl.bytes }

// keepWithin doubles the spacing while the checkpoints pass the budget or
// the count (the start and one other are always kept).
func (tl *Timeline) keepWithin() {
	for (tl.bytes > tl.budget || len(tl.cps) > MaxCheckpoints) && len(tl.cps) > 2 {
		tl.thin()
	}
}

// Sim is the run at the timeline's current point. It changes after a seek:
// do not keep it across calls.
func (tl *Timeline) Sim() *Sim { return tl.sim }

// SetTracer sets the tracer of the current run and of every run the
// timeline resumes.
func (tl *Timeline) SetTracer(f func(TraceEvent)) {
	tl.tracer = f
	tl.sim.SetTracer(f)
}

// SetReach sets the statement hook (Sim.SetReach) of the current run and
// of every run the timeline resumes.
func (tl *Timeline) SetReach(f func(Reach)) {
	tl.reach = f
	tl.sim.SetReach(f)
}

// Checkpoints is the number of checkpoints kept.
func (tl *Timeline) Checkpoints() int { return len(tl.cps) }

// Step processes the next event (Sim.Step), taking a checkpoint when one
// is due.
func (tl *Timeline) Step() bool {
	ok := tl.sim.Step()
	tl.checkpointIfDue()
	return ok
}

// checkpointIfDue takes a checkpoint when the run stands at a multiple of
// the spacing not checkpointed yet.
func (tl *Timeline) checkpointIfDue() {
	if n := tl.sim.events; n%tl.every == 0 && n > tl.cps[len(tl.cps)-1].Events() && tl.sim.err == nil {
		c := tl.sim.Checkpoint()
		tl.cps = append(tl.cps, c)
		tl.bytes += c.Bytes()
		tl.keepWithin()
	}
}

// thin doubles the spacing: it keeps the start and every checkpoint at a
// multiple of the new spacing.
func (tl *Timeline) thin() {
	tl.every *= 2
	kept := tl.cps[:1]
	tl.bytes = kept[0].Bytes()
	for _, c := range tl.cps[1:] {
		if c.Events()%tl.every == 0 {
			kept = append(kept, c)
			tl.bytes += c.Bytes()
		}
	}
	for i := len(kept); i < len(tl.cps); i++ {
		tl.cps[i] = nil
	}
	tl.cps = kept
}

// RunUntil steps until the clock would pass t, then moves the clock to t
// (Sim.RunUntil), checkpointing on the way.
func (tl *Timeline) RunUntil(t float64) bool {
	for !tl.sim.Done() {
		if tl.sim.NextTime() > t && tl.sim.NextTime() <= tl.sim.opt.Horizon {
			return tl.sim.RunUntil(t)
		}
		tl.stepN(math.MaxUint64, t)
	}
	return false
}

// SeekEvent goes to the state after n events (or the run's end, if it ends
// before). It resumes the latest checkpoint at or before n when n is behind
// the current point or that checkpoint is ahead of it (a part of the run
// visited before), and steps on from there.
func (tl *Timeline) SeekEvent(n uint64) {
	if n < tl.sim.events {
		tl.resume(tl.before(func(c *Checkpoint) bool { return c.Events() <= n }))
		tl.Replayed += tl.sim.StepN(n - tl.sim.events)
		return
	}
	if c := tl.before(func(c *Checkpoint) bool { return c.Events() <= n }); c.Events() > tl.sim.events {
		tl.resume(c) // a later point was visited before: jump to its checkpoint
	}
	if tl.sim.events < n {
		tl.StepN(n - tl.sim.events)
	}
}

// SeekTime goes to time t: the state after every event at or before t,
// with the clock at t (as Sim.RunUntil leaves it). A t past the horizon
// runs to the end.
func (tl *Timeline) SeekTime(t float64) {
	if c := tl.before(func(c *Checkpoint) bool { return c.Time() <= t }); t < tl.sim.now || c.Events() > tl.sim.events {
		tl.resume(c)
	}
	if math.IsInf(t, 1) || t >= tl.sim.opt.Horizon {
		for tl.Step() {
		}
		return
	}
	tl.RunUntil(t)
}

// before is the latest checkpoint that ok accepts; the start when none.
func (tl *Timeline) before(ok func(*Checkpoint) bool) *Checkpoint {
	i := sort.Search(len(tl.cps), func(i int) bool { return !ok(tl.cps[i]) })
	if i == 0 {
		return tl.cps[0]
	}
	return tl.cps[i-1]
}

func (tl *Timeline) resume(c *Checkpoint) {
	iters := tl.sim.traceIters
	tl.sim = c.Resume()
	tl.sim.SetTracer(tl.tracer)
	tl.sim.SetReach(tl.reach)
	tl.sim.traceIters = iters
}

// Scan replays the events from the latest checkpoint at or before event
// from up to event to (exclusive of events past it), calling visit with
// the run after each event; visit may stop the scan by returning false.
// The timeline's own point does not move. It is how a reverse continue
// finds the last event before now at which a condition became true.
func (tl *Timeline) Scan(from, to uint64, visit func(s *Sim) bool) {
	c := tl.before(func(c *Checkpoint) bool { return c.Events() <= from })
	s := c.Resume()
	if !visit(s) {
		return
	}
	for s.events < to && s.Step() {
		tl.Replayed++
		if !visit(s) {
			return
		}
	}
}

// CheckpointsBefore lists the event counts of the checkpoints kept, in
// order, for a reverse search that goes back one checkpoint at a time.
func (tl *Timeline) CheckpointsBefore(n uint64) []uint64 {
	var out []uint64
	for _, c := range tl.cps {
		if c.Events() <= n {
			out = append(out, c.Events())
		}
	}
	return out
}
