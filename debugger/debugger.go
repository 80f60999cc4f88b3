package debugger

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// Config configures a debugging session.
type Config struct {
	// Options are the run's: horizon, warm-up, seed, arrivals, the trace
	// opener. A tracer or dump sink in them is not used.
	Options interp.Options
	// CheckpointEvery is the checkpoints' spacing in events; 0 means
	// interp.DefaultCheckpointEvery.
	CheckpointEvery uint64
	// CheckpointBudget is the most memory the checkpoints may take, in
	// bytes; 0 means interp.DefaultCheckpointBudget (256 MB).
	CheckpointBudget int64
	// LogKeep is how many traced events the log holds at most; 0 means
	// DefaultLogKeep.
	LogKeep int
	// QuietSparse: a quiet run (Limits.Quiet, the top speed) takes its
	// checkpoints only at multiples of this many spacings, a checkpoint
	// costing a run as much as some thousands of events; a seek or the
	// log's rebuild fills in the ones it passes. 0 means 1: every one.
	QuietSparse uint64
}

// DefaultLogKeep is how many traced events the log holds by default.
const DefaultLogKeep = 100_000

// Debugger is a run under the debugger. Its operations run one at a time;
// Cancel and Progress may be called from any goroutine, at any time.
type Debugger struct {
	mu   sync.Mutex // held while an operation runs
	prog *model.Program
	cfg  Config
	tl   *interp.Timeline

	bps    []*Breakpoint // by id, ascending
	nextID int
	// prev holds each breakpoint's value after the last event, by id;
	// nil after a seek: taken again where the run lands.
	prev map[int]float64
	// While an operation checks breakpoints (watching): the hits the
	// tracer and the statement hook saw in the event under way.
	watching bool
	seen     []pendingHit
	iters    bool // engine iterations are traced

	log    eventLog
	logOn  bool   // the tracer keeps events in the log
	gapped bool   // the log misses a quiet run's events: rebuilt before it is read
	floor  uint64 // a replay's events up to floor are in the log already
	hasLog bool   // floor is set

	hist sampler

	cancel   atomic.Bool
	progress atomic.Pointer[Progress]
}

// New starts a run of p under the debugger, at time 0.
func New(p *model.Program, cfg Config) (*Debugger, error) {
	if cfg.LogKeep <= 0 {
		cfg.LogKeep = DefaultLogKeep
	}
	if cfg.QuietSparse == 0 {
		cfg.QuietSparse = 1
	}
	d := &Debugger{prog: p, cfg: cfg, nextID: 1}
	if err := d.fresh(); err != nil {
		return nil, err
	}
	return d, nil
}

// fresh replaces the run by a new one at time 0.
func (d *Debugger) fresh() error {
	opt := d.cfg.Options
	opt.Dump = nil
	sim, err := interp.New(d.prog, opt)
	if err != nil {
		return err
	}
	sim.TraceIterations(d.iters)
	d.tl = interp.NewTimeline(sim, d.cfg.CheckpointEvery)
	d.tl.SetBudget(d.cfg.CheckpointBudget)
	d.tl.SetTracer(d.trace)
	d.setReach()
	d.log = eventLog{keep: d.cfg.LogKeep, complete: true}
	d.logOn, d.gapped, d.hasLog = true, false, false
	d.prev = nil
	d.hist = sampler{p: d.prog}
	return nil
}

// Program is the program run.
func (d *Debugger) Program() *model.Program { return d.prog }

// sim is the run now; it changes after a seek: never keep it.
func (d *Debugger) sim() *interp.Sim { return d.tl.Sim() }

// lock starts an operation: it clears a cancellation and says what runs.
func (d *Debugger) lock(op string) {
	d.mu.Lock()
	d.cancel.Store(false)
	d.progress.Store(&Progress{Op: op, Start: time.Now(), Fraction: -1})
}

func (d *Debugger) unlock() {
	d.progress.Store(nil)
	d.mu.Unlock()
}

// Progress is what an operation under way has done.
type Progress struct {
	Op       string    // "seek", "rewind", "back", "run", "earlier", "restart", "log", "report"
	Start    time.Time // when it began
	Fraction float64   // of its work, 0 to 1; -1 when unknown
	Events   uint64    // events processed or replayed so far
}

// Progress is the operation under way, nil when none runs. It may be
// called from any goroutine.
func (d *Debugger) Progress() *Progress { return d.progress.Load() }

// report sets the progress of the operation under way.
func (d *Debugger) report(fraction float64, events uint64) {
	if p := d.progress.Load(); p != nil {
		d.progress.Store(&Progress{Op: p.Op, Start: p.Start, Fraction: math.Max(-1, math.Min(1, fraction)), Events: events})
	}
}

// Cancel stops the operation under way between two events, where it is:
// the run is then in a state a straight run has (its Stop says
// Cancelled). It may be called from any goroutine; without an operation
// it does nothing.
func (d *Debugger) Cancel() { d.cancel.Store(true) }

func (d *Debugger) cancelled() bool { return d.cancel.Load() }

// Restart replaces the run by a fresh one at time 0, same seed; the
// breakpoints stay.
func (d *Debugger) Restart() error {
	d.lock("restart")
	defer d.unlock()
	return d.fresh()
}

// SetIterations makes the log keep each engine iteration (off by default:
// iterations are most of a run's events); the log is rebuilt with them or
// without.
func (d *Debugger) SetIterations(on bool) {
	d.lock("log")
	defer d.unlock()
	if d.iters == on {
		return
	}
	d.iters = on
	d.sim().TraceIterations(on)
	d.gapped = true
	d.mend()
}

// Iterations reports whether the log keeps engine iterations.
func (d *Debugger) Iterations() bool { return d.iters }

// The run's state now. These read the run; call them between operations.

// Now is the clock.
func (d *Debugger) Now() float64 { return d.sim().Now() }

// Events is the number of events processed.
func (d *Debugger) Events() uint64 { return d.sim().Events() }

// NextTime is the time of the next event, +Inf if none.
func (d *Debugger) NextTime() float64 { return d.sim().NextTime() }

// Done reports whether the run can go no further (its end, or an error).
func (d *Debugger) Done() bool { return d.sim().Done() }

// Err is the run's error, nil if none.
func (d *Debugger) Err() error { return d.sim().Err() }

// Snapshot is a picture of the run now.
func (d *Debugger) Snapshot() *interp.Snapshot { return d.sim().Snapshot() }

// Checkpoints is the number of checkpoints kept, their memory (bytes, as
// counted when made) and their spacing in events.
func (d *Debugger) Checkpoints() (n int, bytes int64, every uint64) {
	return d.tl.Checkpoints(), d.tl.Bytes(), d.tl.Every()
}

// Replayed counts the events run again to reach an earlier point or to
// rebuild the log, since the run began (for tests and benchmarks).
func (d *Debugger) Replayed() uint64 { return d.tl.Replayed }

// Why is what the session waits for (interp.Sim.Why).
func (d *Debugger) Why(serial uint64) []interp.WhyStep { return d.sim().Why(serial) }

// Session is where a live session is (interp.Sim.Session).
func (d *Debugger) Session(serial uint64) *interp.SessionSnap { return d.sim().Session(serial) }

// Jam says whether the run is jammed (interp.Sim.Jam).
func (d *Debugger) Jam(stale float64) interp.Jam { return d.sim().Jam(stale) }

// PoolNotes are the report's notes on pools now (interp.Sim.PoolNotes).
func (d *Debugger) PoolNotes() []interp.PoolNote { return d.sim().PoolNotes() }

// Queue is pool i's queue, head first (interp.Sim.PoolQueue).
func (d *Debugger) Queue(pool int) []interp.QueueEntry { return d.sim().PoolQueue(pool) }

// Batch is the engine of stage i's iteration and residents
// (interp.Sim.EngineBatch).
func (d *Debugger) Batch(stage int) *interp.BatchSnap { return d.sim().EngineBatch(stage) }

// Pending is the next max pending events and how many are pending
// (interp.Sim.Pending).
func (d *Debugger) Pending(max int) ([]interp.PendingEvent, int) { return d.sim().Pending(max) }

// Eval is a compiled expression's value now (NaN when it cannot be read).
func (d *Debugger) Eval(e *model.Expr) float64 { return d.sim().Query(e) }

// Report is the report `serq run` prints, as of now.
func (d *Debugger) Report() *interp.Report {
	d.lock("report")
	defer d.unlock()
	return d.sim().Report()
}

// trace takes a traced event: into the log, and to the breakpoints that
// watch sessions or classes of event.
func (d *Debugger) trace(e interp.TraceEvent) {
	if d.logOn && !(d.hasLog && e.Event <= d.floor) {
		d.log.add(e)
	}
	if d.watching {
		d.seeEvent(&e)
	}
}

// reach takes a statement a session begins, for the line breakpoints.
func (d *Debugger) reach(r interp.Reach) {
	if d.watching {
		d.seeReach(r)
	}
}

// setReach installs the statement hook while a line breakpoint is set:
// without one the run pays nothing for it.
func (d *Debugger) setReach() {
	for _, b := range d.bps {
		if b.Kind == BreakLine && !b.Disabled {
			d.tl.SetReach(d.reach)
			return
		}
	}
	d.tl.SetReach(nil)
}
