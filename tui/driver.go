package tui

import (
	"fmt"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// driver owns the simulation. Its work runs inside the tea.Cmds that
// [driver.cmd] returns, one at a time: the root model keeps at most one
// of them in flight (Model.busy), so the Sim is never touched by two
// goroutines and Update never waits for it. Update sees the run only
// through the frameMsg a command returns, whose snapshot shares nothing
// with the Sim.
//
// Stepping never changes results: the driver only calls Step and
// RunUntil, as `serq run` does, and going back re-runs a fresh Sim with
// the same options to the earlier event.
type driver struct {
	prog  *model.Program
	opt   interp.Options
	sim   *interp.Sim
	run   int // counts fresh Sims: restarts and rewinds
	trace traceRing

	// Samples of the gauges and means taken while a request runs many
	// events, so the charts have a history between frames.
	samples    []sample
	nextSample float64
}

// sample is the values the gauges pane charts, at one time.
type sample struct {
	t      float64
	gauges []float64 // per program gauge
	means  []float64 // per observe: its running mean, NaN before a sample
}

// sampleShare sets how densely samples are taken: one per 1/sampleShare of
// the clock, so that a chart from 0 to now always has some hundreds of
// them. (A snapshot costs time in the number of observe samples so far,
// so they are kept few: about 600 per tenfold of the clock.)
const sampleShare = 256

// maxBatch bounds the events of one run-mode batch, so that a command
// returns within about a tenth of a second even when the speed asks for
// more; the run then lags the wall clock and the status bar says so.
const maxBatch = 100_000

// logKeep is how many traced events the driver remembers for the log.
const logKeep = 200

func newDriver(p *model.Program, opt interp.Options) (*driver, error) {
	d := &driver{prog: p, opt: opt}
	if err := d.fresh(); err != nil {
		return nil, err
	}
	return d, nil
}

// fresh replaces the Sim by a new one at time 0.
func (d *driver) fresh() error {
	sim, err := interp.New(d.prog, d.opt)
	if err != nil {
		return err
	}
	d.sim = sim
	d.run++
	d.trace = traceRing{}
	d.samples, d.nextSample = nil, 0
	sim.SetTracer(d.trace.add)
	return nil
}

// step processes one event, sampling the charts' values when it is time.
func (d *driver) step() bool {
	ok := d.sim.Step()
	if t := d.sim.Now(); t >= d.nextSample {
		d.samples = append(d.samples, sampleOf(d.sim.Snapshot()))
		d.nextSample = t + math.Max(t/sampleShare, 1e-9)
	}
	return ok
}

func sampleOf(s *interp.Snapshot) sample {
	sm := sample{t: s.Time, gauges: make([]float64, len(s.Gauges)), means: make([]float64, len(s.Observes))}
	for i, g := range s.Gauges {
		sm.gauges[i] = g.Value
	}
	for i, o := range s.Observes {
		sm.means[i] = math.NaN()
		if o.Count > 0 {
			sm.means[i] = o.Mean
		}
	}
	return sm
}

type reqKind int

const (
	reqSnapshot reqKind = iota // the current picture, nothing run
	reqStep                    // n events
	reqSlice                   // advance the clock by dt
	reqBatch                   // a tick's worth: dt, at most maxBatch events
	reqBack                    // n events back
	reqRestart                 // a fresh run, same seed
)

func (k reqKind) String() string {
	return [...]string{"snapshot", "step", "slice", "batch", "back", "restart"}[k]
}

// request is one thing to do to the run. Its amounts are relative to the
// run as the command finds it, so queued requests compose.
type request struct {
	kind reqKind
	n    uint64  // events (step, back)
	dt   float64 // simulated seconds (slice, batch)
}

// frameMsg is a command's answer: the run after the request.
type frameMsg struct {
	kind    reqKind
	snap    *interp.Snapshot
	log     []interp.TraceEvent // the last traced events, oldest first
	what    string              // after one event stepped (or back): what it did
	next    float64             // the next event's time, +Inf if none
	capped  bool                // a batch stopped at maxBatch before its target
	samples []sample            // chart values taken on the way, in time order
	stuck   uint64              // at the end: sessions stuck in pools
	err     error               // a restart that could not start
}

// cmd returns the command that carries out r.
func (d *driver) cmd(r request) tea.Cmd {
	return func() tea.Msg { return d.do(r) }
}

// do carries out r and returns the frame. It is what the command runs; tests
// call it directly.
func (d *driver) do(r request) frameMsg {
	f := frameMsg{kind: r.kind}
	switch r.kind {
	case reqStep:
		if r.n == 1 {
			f.what = d.stepOne()
		} else {
			for i := uint64(0); i < r.n && d.step(); i++ {
			}
		}
	case reqSlice:
		d.until(d.sim.Now()+r.dt, math.MaxUint64)
	case reqBatch:
		f.capped = d.until(d.sim.Now()+r.dt, maxBatch)
	case reqBack:
		f.what, f.err = d.back(r.n)
	case reqRestart:
		f.err = d.fresh()
	}
	f.samples, d.samples = d.samples, nil
	f.snap = d.sim.Snapshot()
	f.log = d.trace.last()
	f.next = d.sim.NextTime()
	if d.sim.Done() && d.sim.Err() == nil {
		for _, p := range d.sim.Report().Pools {
			f.stuck += p.Stuck
		}
	}
	return f
}

// until processes the events up to time t, then moves the clock to t; at
// most max events. It reports whether it stopped at max.
func (d *driver) until(t float64, max uint64) bool {
	start := d.sim.Events()
	for !d.sim.Done() && d.sim.NextTime() <= t {
		if d.sim.Events()-start >= max {
			return true
		}
		d.step()
	}
	if !d.sim.Done() {
		d.sim.RunUntil(t)
	}
	return false
}

// stepOne processes one event and says what it did when the tracer did
// not: an engine's iteration ending, a job leaving a delay, the warm-up.
func (d *driver) stepOne() string {
	before := d.sim.Snapshot()
	n := d.trace.total
	d.step()
	if d.trace.total != n {
		return ""
	}
	return describe(before, d.sim.Snapshot(), d.opt.Warmup)
}

// back re-runs the program from the start to n events before the current
// one. The run is deterministic, so the Sim it ends with is the one the
// earlier step had.
func (d *driver) back(n uint64) (string, error) {
	cur := d.sim.Events()
	target := uint64(0)
	if n < cur {
		target = cur - n
	}
	if err := d.fresh(); err != nil {
		return "", err
	}
	if target == 0 {
		return "", nil
	}
	for d.sim.Events() < target-1 && !d.sim.Done() {
		d.step()
	}
	return d.stepOne(), nil
}

// describe says in words what changed between two snapshots taken one
// event apart, for the events the tracer does not report.
func describe(a, b *interp.Snapshot, warmup float64) string {
	var out []string
	if a.Time < warmup && b.Time >= warmup && warmup > 0 {
		out = append(out, "warm-up over, statistics reset")
	}
	for i := range b.Stages {
		if i >= len(a.Stages) {
			break
		}
		sa, sb := a.Stages[i], b.Stages[i]
		switch {
		case sa.Engine != nil && sb.Engine != nil:
			if sb.Engine.Iterations != sa.Engine.Iterations {
				s := fmt.Sprintf("%s ended iteration %s", sb.Label, fmtCount(float64(sb.Engine.Iterations)))
				if sb.Engine.Running {
					s += fmt.Sprintf(", next batch %d", sb.Engine.Batch)
				} else {
					s += ", now idle"
				}
				out = append(out, s)
			}
		case len(sa.Flows) != len(sb.Flows):
			out = append(out, fmt.Sprintf("%s flows %d → %d", sb.Label, len(sa.Flows), len(sb.Flows)))
		case sa.Present != sb.Present:
			out = append(out, fmt.Sprintf("%s jobs %d → %d", sb.Label, sa.Present, sb.Present))
		}
	}
	for i := range b.Pools {
		if i >= len(a.Pools) {
			break
		}
		pa, pb := a.Pools[i], b.Pools[i]
		if pa.Used != pb.Used {
			out = append(out, fmt.Sprintf("%s used %s → %s", pb.Label, fmtCount(pa.Used), fmtCount(pb.Used)))
		}
	}
	if len(out) == 0 {
		if b.Done {
			return "the run ended"
		}
		return "nothing visible changed"
	}
	const most = 4
	if len(out) > most {
		out = append(out[:most], fmt.Sprintf("and %d more", len(out)-most))
	}
	return strings.Join(out, "; ")
}

// traceRing keeps the last logKeep traced events.
type traceRing struct {
	buf   [logKeep]interp.TraceEvent
	total uint64 // events ever added
}

func (r *traceRing) add(e interp.TraceEvent) {
	r.buf[r.total%logKeep] = e
	r.total++
}

// last returns a copy of the kept events, oldest first.
func (r *traceRing) last() []interp.TraceEvent {
	n := r.total
	if n > logKeep {
		n = logKeep
	}
	out := make([]interp.TraceEvent, 0, n)
	for i := r.total - n; i < r.total; i++ {
		out = append(out, r.buf[i%logKeep])
	}
	return out
}
