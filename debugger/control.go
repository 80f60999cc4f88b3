package debugger

import (
	"math"
	"time"

	"github.com/serq/serq/interp"
)

// Reason is why an operation stopped.
type Reason uint8

const (
	Done         Reason = iota // it did what it was asked
	AtBreakpoint               // a breakpoint hit (Stop.Hit)
	Cancelled                  // Cancel stopped it where it was
	Limited                    // it stopped at a limit of its own (Limits: events or wall time)
	Ended                      // the run is over (its horizon, or it drained)
	Failed                     // the run failed (Err)
)

var reasonNames = [...]string{"done", "breakpoint", "cancelled", "limited", "ended", "failed"}

func (r Reason) String() string { return reasonNames[r] }

// Stop is how an operation ended.
type Stop struct {
	Reason Reason
	Hit    *Hit // Reason AtBreakpoint
	// Back: the run went back (a front end's charts drop what follows).
	Back bool
	// Found: a Rewind found an earlier hit (else the run did not move).
	Found bool
}

// Limits bound a RunTo (a front end's run loop: a batch per frame).
type Limits struct {
	Events   uint64    // at most this many events; 0: no limit
	Deadline time.Time // stop at this wall time; zero: none
	// Quiet keeps no log while it runs (the top speed): the log is the
	// replay of the span the run stops in, made when it is next read.
	Quiet bool
	// Extra are breakpoints of this run alone (a tour's stop), checked
	// after the debugger's.
	Extra []*Breakpoint
}

// checkEvery is how many events pass between two looks at a cancellation,
// a deadline or the progress.
const checkEvery = 512

// step processes one event, taking the chart's sample when it is due.
func (d *Debugger) step() bool {
	ok := d.tl.Step()
	d.hist.maybe(d.sim())
	return ok
}

// Step processes n events (n ≥ 1), stopping at a breakpoint.
func (d *Debugger) Step(n uint64) Stop {
	d.lock("step")
	defer d.unlock()
	d.mend()
	c := d.newChecker()
	defer c.done()
	start := d.sim().Events()
	for i := uint64(0); i < n; i++ {
		if d.sim().Done() {
			return d.end()
		}
		if i%checkEvery == checkEvery-1 {
			if d.cancelled() {
				return d.stop(Stop{Reason: Cancelled})
			}
			d.report(float64(i)/float64(n), d.sim().Events()-start)
		}
		d.step()
		if h := c.after(); h != nil {
			return d.stop(Stop{Reason: AtBreakpoint, Hit: h})
		}
	}
	return d.stop(Stop{})
}

// RunTo processes the events up to time t, then moves the clock to t
// (the state after every event at or before t), stopping at a breakpoint,
// at the limits, at a cancellation or at the run's end. A t past the
// horizon runs to the end.
func (d *Debugger) RunTo(t float64, lim Limits) Stop {
	d.lock("run")
	defer d.unlock()
	if !lim.Quiet {
		d.mend()
	}
	c := d.newChecker(lim.Extra...)
	defer c.done()
	s0, t0 := d.sim().Events(), d.sim().Now()
	if lim.Quiet {
		d.goQuiet()
		if !c.traced() {
			d.tl.SetTracer(nil) // nothing needs the trace: no tracer at all
		}
		defer func() {
			d.tl.SetTracer(d.trace)
			d.logOn = true
		}()
	}
	span := t - t0
	if t >= d.cfg.Options.Horizon {
		span = d.cfg.Options.Horizon - t0
	}
	for n := uint64(0); ; n++ {
		s := d.sim()
		if s.Done() {
			return d.end()
		}
		if s.NextTime() > t {
			break
		}
		if lim.Events > 0 && s.Events()-s0 >= lim.Events {
			return d.stop(Stop{Reason: Limited})
		}
		if c == nil && lim.Quiet {
			// no breakpoint to look at after each event: in chunks
			if stop, ok := d.quietChunk(t, lim, s0, t0, span); ok {
				return stop
			}
			continue
		}
		if n%checkEvery == checkEvery-1 {
			if d.cancelled() {
				return d.stop(Stop{Reason: Cancelled})
			}
			if !lim.Deadline.IsZero() && time.Now().After(lim.Deadline) {
				return d.stop(Stop{Reason: Limited})
			}
			d.report((s.Now()-t0)/span, s.Events()-s0)
		}
		d.step()
		if h := c.after(); h != nil {
			return d.stop(Stop{Reason: AtBreakpoint, Hit: h})
		}
	}
	if !d.sim().Done() && t < d.cfg.Options.Horizon {
		d.tl.RunUntil(t)
	}
	return d.stop(Stop{})
}

// quietChunk runs a chunk of events of a quiet run with no breakpoint,
// in StepN (checkpoints quietSparse spacings apart); ok when the run
// stops there.
func (d *Debugger) quietChunk(t float64, lim Limits, s0 uint64, t0, span float64) (Stop, bool) {
	if d.cancelled() {
		return d.stop(Stop{Reason: Cancelled}), true
	}
	if !lim.Deadline.IsZero() && time.Now().After(lim.Deadline) {
		return d.stop(Stop{Reason: Limited}), true
	}
	s := d.sim()
	n := uint64(quietChunk)
	if lim.Events > 0 {
		n = min(n, lim.Events-(s.Events()-s0))
	}
	until := t
	if t >= d.cfg.Options.Horizon {
		until = math.Inf(1)
	}
	d.chunk(n, d.cfg.QuietSparse, until)
	d.report((d.sim().Now()-t0)/span, d.sim().Events()-s0)
	return Stop{}, false
}

// quietChunk is the events a quiet run runs between two looks at the
// clock, the deadline and a cancellation.
const quietChunk = 8192

// chunk runs at most n events in StepN (checkpoints k spacings apart), up
// to the last event at or before until and no further than the next
// chart sample, which it then takes.
func (d *Debugger) chunk(n, k uint64, until float64) {
	d.hist.maybe(d.sim()) // a sample due now: next is then ahead
	lim := until
	if next := d.hist.next; next < lim {
		lim = next
	}
	if d.tl.StepNUntil(n, k, lim) == 0 && lim < until {
		// nothing happens before the sample is due: the values hold
		// until the next event, the sample is taken after it
		d.hist.next = d.sim().NextTime()
	}
	d.hist.maybe(d.sim())
}

// stop finishes an operation: the watches' values, and the stop.
func (d *Debugger) stop(s Stop) Stop {
	d.values()
	if d.sim().Done() && s.Reason == Done {
		return d.end()
	}
	return s
}

// end is the stop at the run's end.
func (d *Debugger) end() Stop {
	d.values()
	if d.sim().Err() != nil {
		return Stop{Reason: Failed}
	}
	return Stop{Reason: Ended}
}

// Back goes n events back (to the start if there are fewer), from the
// nearest checkpoint.
func (d *Debugger) Back(n uint64) Stop {
	d.lock("back")
	defer d.unlock()
	cur := d.sim().Events()
	return d.backTo(cur - min(n, cur))
}

// backTo goes back to the state after event n.
func (d *Debugger) backTo(n uint64) Stop {
	c := d.checkpointBefore(n)
	return d.seek(func() { d.tl.SeekBackFilling(n) }, c, d.log.holds(n))
}

// checkpointBefore is the latest checkpoint at or before event n.
func (d *Debugger) checkpointBefore(n uint64) uint64 {
	cps := d.tl.CheckpointsBefore(n)
	return cps[len(cps)-1]
}

// SeekEvent goes to the state after n events (the run's end, if it ends
// before): back from the checkpoint before n; forward through the latest
// checkpoint before n when the run was there before (a jump); else on
// from here.
func (d *Debugger) SeekEvent(n uint64) Stop {
	d.lock("seek")
	defer d.unlock()
	if n < d.sim().Events() {
		return d.backTo(n)
	}
	if c := d.checkpointBefore(n); c > d.sim().Events() {
		return d.jump(func() { d.tl.SeekEvent(n) }, c)
	}
	return d.forward(n, math.Inf(1))
}

// SeekTime goes to time t: the state after every event at or before t,
// with the clock at t (a t at or past the horizon: the run's end).
func (d *Debugger) SeekTime(t float64) Stop {
	d.lock("seek")
	defer d.unlock()
	return d.seekTime(t)
}

func (d *Debugger) seekTime(t float64) Stop {
	if t < d.sim().Now() {
		c := d.tl.CheckpointBeforeTime(t)
		return d.seek(func() { d.tl.SeekTimeBackFilling(t) }, c, d.log.holdsTime(t))
	}
	if c := d.tl.CheckpointBeforeTime(t); c > d.sim().Events() {
		return d.jump(func() { d.tl.SeekTime(t) }, c)
	}
	h := d.cfg.Options.Horizon
	until := t
	if t >= h {
		until = math.Inf(1)
	}
	stop := d.forward(math.MaxUint64, until)
	if stop.Reason == Done && t < h && !d.sim().Done() {
		d.tl.RunUntil(t)
	}
	return stop
}

// SeekAt goes to the first event at or after time t (where `serq tui
// --at` starts): the state after it.
func (d *Debugger) SeekAt(t float64) Stop {
	d.lock("seek")
	defer d.unlock()
	if d.sim().Now() >= t && d.sim().Events() > 0 {
		d.seekTime(math.Nextafter(t, math.Inf(-1)))
	}
	stop := d.forward(math.MaxUint64, math.Nextafter(t, math.Inf(-1)))
	if stop.Reason != Done || d.sim().Done() {
		return stop
	}
	d.mend()
	d.step()
	return d.stop(Stop{})
}

// seek moves the run back with move, which resumes checkpoint c: when
// the target is within the log's window the log keeps what it has before
// it (the replay's events are in it already), else the log is the
// replay from c.
func (d *Debugger) seek(move func(), c uint64, within bool) Stop {
	d.mend()
	before := d.sim().Events()
	if within {
		last, ok := d.log.last()
		if !ok {
			last = before
		}
		d.floor, d.hasLog = max(last, before), true
	} else {
		d.resetLogTo(c)
	}
	d.report(0, 0)
	r0 := d.tl.Replayed
	move()
	d.report(1, d.tl.Replayed-r0)
	d.hasLog = false
	d.prev = nil
	now := d.sim().Events()
	if within {
		d.log.truncate(now)
	}
	d.notEmpty()
	d.hist.rewound(d.sim().Now())
	s := d.stop(Stop{Back: now < before})
	if d.cancelled() {
		s.Reason = Cancelled
	}
	return s
}

// jump moves the run forward with move, which resumes checkpoint c ahead
// (a part visited before): the log is the replay from c, and the charts
// get the part jumped over from the run's own history (gauges, observe
// means).
func (d *Debugger) jump(move func(), c uint64) Stop {
	d.mend()
	t0 := d.sim().Now()
	d.resetLogTo(c)
	d.report(0, 0)
	move()
	d.prev = nil
	d.notEmpty()
	d.hist.jumped(d.sim(), d.prog, t0)
	return d.stop(Stop{})
}

// forward runs on to event n or to the last event at or before until,
// whichever comes first, tracing the log as it goes for one checkpoint
// span, then quietly in StepN chunks (no log, the charts sampled between
// chunks; the log is then the replay of the span it stops in), with
// progress and cancellation.
func (d *Debugger) forward(n uint64, until float64) Stop {
	d.mend()
	s0 := d.sim()
	e0, t0 := s0.Events(), s0.Now()
	quiet := false
	defer func() {
		if quiet {
			d.tl.SetTracer(d.trace)
			d.logOn = true
			d.mend()
		}
	}()
	for {
		s := d.sim()
		if s.Done() || s.Events() >= n || s.NextTime() > until {
			break
		}
		if d.cancelled() {
			d.prev = nil
			return d.stop(Stop{Reason: Cancelled})
		}
		if !quiet && s.Events()-e0 >= d.tl.Every() {
			quiet = true
			d.goQuiet()
			d.tl.SetTracer(nil)
		}
		d.chunk(min(quietChunk, n-s.Events()), 1, until)
		if n != math.MaxUint64 {
			d.report(float64(d.sim().Events()-e0)/float64(n-e0), d.sim().Events()-e0)
		} else {
			d.report((d.sim().Now()-t0)/math.Max(1e-300, math.Min(until, d.cfg.Options.Horizon)-t0), d.sim().Events()-e0)
		}
	}
	d.prev = nil
	return d.stop(Stop{})
}

// Rewind goes back to the last event before now at which an enabled
// breakpoint hit (reverse continue), replaying one checkpoint span at a
// time, newest first; Found is false (and the run has not moved) when
// there is none. Conditions apply; ignore counts do not.
func (d *Debugger) Rewind() Stop {
	d.lock("rewind")
	defer d.unlock()
	d.mend()
	var bps []*Breakpoint
	for _, b := range d.bps {
		if !b.Disabled && b.Kind != Display {
			bps = append(bps, b)
		}
	}
	cur := d.sim().Events()
	if len(bps) == 0 || cur == 0 {
		return d.stop(Stop{})
	}
	cps := d.tl.CheckpointsBefore(cur - 1)
	for i := len(cps) - 1; i >= 0; i-- {
		if d.cancelled() {
			return d.stop(Stop{Reason: Cancelled})
		}
		d.report(float64(len(cps)-1-i)/float64(len(cps)), 0)
		to := cur - 1
		if i+1 < len(cps) {
			to = min(to, cps[i+1])
		}
		if at, h := d.scanSpan(bps, cps[i], to); h != nil {
			stop := d.backTo(at)
			stop.Reason, stop.Hit, stop.Found = AtBreakpoint, h, true
			return stop
		}
	}
	return d.stop(Stop{})
}

// scanSpan replays the events from the checkpoint at from up to to and
// returns the last one at which a breakpoint hit, with the hit.
func (d *Debugger) scanSpan(bps []*Breakpoint, from, to uint64) (uint64, *Hit) {
	var (
		last  *Hit
		prev  []float64
		start = true
	)
	d.tl.Scan(from, to, func(s *interp.Sim) bool {
		if start {
			start = false
			s.SetTracer(func(e interp.TraceEvent) { d.seeEventIn(bps, &e) })
			for _, b := range bps {
				if b.Kind == BreakLine {
					s.SetReach(func(r interp.Reach) { d.seeReachIn(bps, r) })
					break
				}
			}
			prev = make([]float64, len(bps))
			for k, b := range bps {
				prev[k] = d.value(s, b)
			}
			d.seen = d.seen[:0]
			return true
		}
		var first *Hit // the first breakpoint (by id) that hit in this event
		for k, b := range bps {
			var h *Hit
			switch b.Kind {
			case BreakExpr, BreakTime, BreakCount:
				v := d.value(s, b)
				if holds(v) && !holds(prev[k]) {
					h = &Hit{}
				}
				prev[k] = v
			case Watch:
				v := d.value(s, b)
				if !same(prev[k], v) {
					h = &Hit{Old: prev[k], New: v}
				}
				prev[k] = v
			default:
				for _, p := range d.seen {
					if p.b == b {
						hh := p.hit
						h = &hh
					}
				}
			}
			if h != nil && first == nil && (b.cond == nil || holds(s.Query(b.cond))) {
				h.ID, h.Kind, h.Src, h.Event, h.Time = b.ID, b.Kind, b.Src(), s.Events(), s.Now()
				first = h
			}
		}
		if first != nil {
			last = first
		}
		d.seen = d.seen[:0]
		return true
	})
	if last == nil {
		return 0, nil
	}
	return last.Event, last
}

// seeEventIn and seeReachIn are seeEvent and seeReach for a scan's
// breakpoints.
func (d *Debugger) seeEventIn(bps []*Breakpoint, e *interp.TraceEvent) {
	all := d.bps
	d.bps = bps
	d.seeEvent(e)
	d.bps = all
}

func (d *Debugger) seeReachIn(bps []*Breakpoint, r interp.Reach) {
	all := d.bps
	d.bps = bps
	d.seeReach(r)
	d.bps = all
}
