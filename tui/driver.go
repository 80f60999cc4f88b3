package tui

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// driver owns the simulation, on an [interp.Timeline] that keeps
// checkpoints as the run goes. Its work runs inside the tea.Cmds that
// [driver.cmd] returns, one at a time: the root model keeps at most one
// of them in flight (Model.busy), so the Sim is never touched by two
// goroutines and Update never waits for it. Update sees the run only
// through the frameMsg a command returns, whose snapshot shares nothing
// with the Sim.
//
// Stepping never changes results: the driver only steps the timeline and
// seeks on it, and a seek reaches the state a straight run has at the same
// event (interp.SameState).
type driver struct {
	// mu is held while a command runs, so ReportText after the program
	// quit waits for a command still in flight.
	mu    sync.Mutex
	prog  *model.Program
	opt   interp.Options
	every uint64 // checkpoint spacing; 0 is the timeline's default
	tl    *interp.Timeline
	run   int // counts fresh runs: restarts
	log   eventLog
	// quiet: the tracer keeps no event (a top-speed batch runs); gapped:
	// the log misses the events of such batches and is rebuilt before it
	// is read, tail holding meanwhile the last events of the last batch.
	quiet, gapped bool
	tail          eventLog
	// perEvent is the log's events per event of the run, as last seen
	// whole: what a jump forward expects its rebuild to replay.
	perEvent float64
	// floor: after a backward seek, the events up to it are replayed and
	// already in the log, so the tracer drops them.
	floor    uint64
	floorSet bool

	// Samples of the gauges and means taken while a request runs many
	// events, so the charts have a history between frames.
	samples    []sample
	nextSample float64

	// While a request runs with session breakpoints: the serials, and the
	// breakpoint a traced event of one of them hit.
	brkSessions map[uint64]int
	sessionHit  int
	// and the kinds of event of `break on` breakpoints (eventKinds), and
	// where the event that hit one happened
	brkEvents map[interp.EventKind]int
	hitWhere  string
	// prev holds each breakpoint's value after the last event, by id; nil
	// after a seek, to be taken again where the run landed.
	prev map[int]bool

	budget   time.Duration // a batch's wall time; <= 0: none
	deadline time.Time     // while a batch runs: the wall time it stops at

	notes   []string            // the report's over/rej/stuck notes, refreshed now and then
	sources map[string][]string // source files by name, for the session pane
}

// sample is the values the gauges pane charts, at one time.
type sample struct {
	t      float64
	gauges []float64 // per program gauge
	means  []float64 // per observe: its running mean, NaN before a sample
	pools  []poolSample
}

// poolSample is a pool's trend values: used units, queued requests, leased
// units and the oldest lease's age (0 without a lease).
type poolSample struct {
	used, queued, leased, oldest float64
}

// sampleShare sets how densely samples are taken: one per 1/sampleShare of
// the clock, so that a chart from 0 to now always has some hundreds of
// them. (A snapshot costs time in the number of observe samples so far,
// so they are kept few: about 600 per tenfold of the clock.)
const sampleShare = 256

// minSampleGap is the least simulated time from one chart sample to the
// next, so that the sampling moves on at t = 0, where t/sampleShare is 0.
const minSampleGap = 1e-9

// nextSample is when the sample after one at t is due.
func nextSample(t float64) float64 { return t + math.Max(t/sampleShare, minSampleGap) }

// maxBatch bounds the events of one run-mode batch, so that a command
// returns within about a tenth of a second even when the speed asks for
// more; the run then lags the wall clock and the status bar says so.
const maxBatch = 100_000

// batchBudget is the wall time a run-mode batch may take: a batch that
// would take longer stops there (capped), the model draws its frame and
// starts the next batch at once, so the run goes at the interpreter's
// speed less the frames' share.
const batchBudget = 40 * time.Millisecond

// A quiet batch (the run at top speed, lagging the wall clock) keeps no
// log: it runs in StepN chunks of quietChunk events when no breakpoint
// needs a look after each event, up to maxQuietBatch events, and then
// traces a tail of quietTail log lines (at most quietTailEvents events),
// for the log pane to show while the run goes on. Its wall time is
// quietBudget times the batch budget. (On the seed, one event in seven is
// traced: most events are engine iterations.) Its checkpoints are
// quietSparse times the spacing apart (1.5 % of a quiet batch's time
// on the seed, against 6 % at 4 spacings apart); the log's rebuild
// fills in the rest of the part it replays (Timeline.RefillTraced), so a step
// back where the run stopped costs the spacing again, and a seek or step
// back into a part not filled in yet replays at most quietSparse spacings
// once (BenchmarkQuietSeekBack: 0.13-0.17 s, mostly the log's
// rebuild where it lands).
const (
	quietBudget     = 3 // times the budget: fewer frames at top speed, each costing the run
	quietSparse     = 16
	quietChunk      = 8192
	maxQuietBatch   = 1 << 20
	quietTail       = 64
	quietTailEvents = 4096
)

func newDriver(p *model.Program, opt interp.Options, every uint64) (*driver, error) {
	d := &driver{prog: p, opt: opt, every: every, sources: map[string][]string{}}
	if err := d.fresh(); err != nil {
		return nil, err
	}
	return d, nil
}

// sim is the run now. It changes after a seek: never keep it.
func (d *driver) sim() *interp.Sim { return d.tl.Sim() }

// fresh replaces the run by a new one at time 0.
func (d *driver) fresh() error {
	d.log, d.tail = eventLog{}, eventLog{}
	d.quiet, d.gapped = false, false
	d.floor, d.floorSet = 0, false
	d.prev = nil
	sim, err := interp.New(d.prog, d.opt)
	if err != nil {
		return err
	}
	sim.SetTracer(d.trace)
	d.tl = interp.NewTimeline(sim, d.every)
	d.tl.SetTracer(d.trace)
	d.run++
	d.samples, d.nextSample = nil, 0
	d.notes = nil
	return nil
}

// trace takes a traced event into the log, unless it is a replay of one
// the log has.
func (d *driver) trace(e interp.TraceEvent) {
	if d.floorSet && e.Event <= d.floor {
		return
	}
	switch {
	case d.quiet:
	case d.gapped:
		d.tail.add(e)
	default:
		d.log.add(e)
	}
	if d.brkSessions != nil && d.sessionHit == 0 && !e.System {
		if id, ok := d.brkSessions[e.Session]; ok {
			d.sessionHit = id
		}
	}
	if d.brkEvents != nil && d.sessionHit == 0 {
		if id, ok := d.brkEvents[e.Kind]; ok {
			d.sessionHit, d.hitWhere = id, e.Where
		}
	}
}

// step processes one event, sampling the charts' values when it is time.
func (d *driver) step() bool {
	ok := d.tl.Step()
	d.sampleNow()
	return ok
}

func (d *driver) sampleNow() {
	s := d.sim()
	if t := s.Now(); t >= d.nextSample {
		d.samples = append(d.samples, sampleOf(s.Snapshot()))
		d.nextSample = nextSample(t)
	}
}

func sampleOf(s *interp.Snapshot) sample {
	sm := sample{t: s.Time, gauges: make([]float64, len(s.Gauges)), means: make([]float64, len(s.Observes)),
		pools: make([]poolSample, len(s.Pools))}
	for i, g := range s.Gauges {
		sm.gauges[i] = g.Value
	}
	for i, o := range s.Observes {
		sm.means[i] = math.NaN()
		if o.Count > 0 {
			sm.means[i] = o.Mean
		}
	}
	for i, p := range s.Pools {
		ps := poolSample{used: p.Used, queued: float64(p.Queued)}
		for _, l := range p.Leases {
			ps.leased += l.Units
			ps.oldest = math.Max(ps.oldest, l.Age)
		}
		sm.pools[i] = ps
	}
	return sm
}

type reqKind int

const (
	reqSnapshot  reqKind = iota // the current picture, nothing run
	reqStep                     // n events
	reqSlice                    // advance the clock by dt
	reqBatch                    // a tick's worth: dt, at most maxBatch events
	reqBack                     // n events back
	reqRestart                  // a fresh run, same seed
	reqSeekTime                 // goto T
	reqSeekEvent                // goto #N
	reqReverse                  // back to the last event a breakpoint became true
	reqAt                       // to the first event at or after t
	reqReport                   // the current picture and the text report
)

func (k reqKind) String() string {
	return [...]string{"snapshot", "step", "slice", "batch", "back", "restart", "seek", "seek", "reverse", "at", "report"}[k]
}

// request is one thing to do to the run. Its amounts are relative to the
// run as the command finds it, so queued requests compose.
type request struct {
	kind reqKind
	n    uint64  // events (step, back, seek event)
	dt   float64 // simulated seconds (slice, batch); the time of a seek or at
	view viewReq // what the frame should show besides the run: set at dispatch
	// capT, when capSet, is a time a batch or slice does not run past (a
	// tour's stop at a time).
	capT   float64
	capSet bool
	tour   int // 1 + the tour stop the request goes to; 0 for none
	// quiet, for a batch: the run is at top speed, so the batch keeps
	// no log (the driver rebuilds it when another request comes).
	quiet bool
}

// viewReq is what the model wants to see of the run, beyond the snapshot.
type viewReq struct {
	breaks []breakpoint // breakpoints and watches
	why    uint64       // the session of the why pane, noSession for none
	follow uint64       // the followed session, noSession for none
	stale  float64      // the stale threshold
	iters  bool         // log every engine iteration's batch
}

// frameMsg is a command's answer: the run after the request.
type frameMsg struct {
	kind    reqKind
	snap    *interp.Snapshot
	log     logView  // the traced events kept, oldest first
	what    string   // after one event stepped (or back): what it did
	next    float64  // the next event's time, +Inf if none
	capped  bool     // a batch stopped at maxBatch before its target
	samples []sample // chart values taken on the way, in time order
	back    bool     // the run went back: charts drop what is after snap.Time
	stuck   uint64   // at the end: sessions stuck in pools
	err     error    // a restart that could not start
	gapped  bool     // log is the last events of a quiet batch, not the whole log

	hit     string    // the breakpoint that stopped the run, in words; "" if none
	hitID   int       // its id (a tour's stop: < 0); 0 if none
	tour    int       // the request's tour stop, 1-based; 0 for none
	found   bool      // a reverse continue found an event
	watches []float64 // the values of view.breaks, NaN for a breakpoint
	jam     jam
	notes   []string // the report's over/rej/stuck notes
	why     []whyLine
	sess    *where
	src     []string // the source lines of sess.pos, then of each leg's
	stale   int      // leases older than the stale threshold

	report    string // reqReport: the text report
	reportErr error
}

// target is the time a slice or batch runs to from now: now + dt, but not
// past the cap.
func (r request) target(now float64) float64 {
	t := now + r.dt
	if r.capSet && t > r.capT {
		t = math.Max(now, r.capT)
	}
	return t
}

// cmd returns the command that carries out r.
func (d *driver) cmd(r request) tea.Cmd {
	return func() tea.Msg { return d.do(r) }
}

// do carries out r and returns the frame. It is what the command runs; tests
// call it directly.
func (d *driver) do(r request) frameMsg {
	d.mu.Lock()
	defer d.mu.Unlock()
	f := frameMsg{kind: r.kind}
	d.sim().TraceIterations(r.view.iters)
	quiet := r.kind == reqBatch && r.quiet && !r.view.iters
	// A seek after quiet batches runs quiet too, and the log is rebuilt
	// where it lands; any other request finds the log whole.
	seeking := r.kind == reqSeekEvent || r.kind == reqSeekTime || r.kind == reqAt || r.kind == reqReverse
	if d.gapped && !quiet && !seeking {
		d.rebuild(r.view.iters)
	}
	d.quiet = d.gapped && seeking
	c := d.newChecker(r.view.breaks)
	switch r.kind {
	case reqStep:
		if r.n == 1 {
			f.what, f.hit = d.stepOne(c)
		} else {
			for i := uint64(0); i < r.n && !d.sim().Done(); i++ {
				d.step()
				if f.hit = c.after(d); f.hit != "" {
					break
				}
			}
		}
	case reqSlice:
		_, f.hit = d.until(r.target(d.sim().Now()), math.MaxUint64, c)
	case reqBatch:
		if d.budget > 0 {
			d.deadline = time.Now().Add(d.budget)
			if quiet {
				d.deadline = time.Now().Add(quietBudget * d.budget)
			}
		}
		if quiet {
			f.capped, f.hit = d.quietBatch(r.target(d.sim().Now()), c)
		} else {
			f.capped, f.hit = d.until(r.target(d.sim().Now()), maxBatch, c)
		}
		d.deadline = time.Time{}
	case reqBack:
		f.what = d.back(r.n)
		f.back = true
	case reqRestart:
		f.err = d.fresh()
		f.back = true
	case reqSeekEvent:
		f.back = d.seek(func() { d.seekEvent(r.n) })
	case reqSeekTime:
		f.back = d.seek(func() { d.seekTime(r.dt) })
	case reqAt:
		f.back = d.seek(func() {
			if d.sim().Now() >= r.dt && d.sim().Events() > 0 {
				d.tl.SeekTime(math.Nextafter(r.dt, math.Inf(-1)))
			}
			for !d.sim().Done() && d.sim().NextTime() < r.dt {
				d.step()
			}
			if !d.sim().Done() {
				d.step()
			}
		})
	case reqReport:
		f.report, f.reportErr = reportText(d.sim())
	case reqReverse:
		var to uint64
		to, f.hit = d.reverse(c)
		if f.hit != "" {
			f.found = true
			f.back = d.seek(func() { d.tl.SeekBackFilling(to) })
		}
	}
	if d.quiet = false; d.gapped && !quiet {
		d.rebuild(r.view.iters)
	} else if !quiet {
		d.mendFront(r.view.iters)
	}
	d.brkSessions, d.brkEvents = nil, nil
	if c != nil {
		f.hitID = c.hitID
	}
	f.tour = r.tour
	f.samples, d.samples = d.samples, nil
	d.frame(&f, r.view)
	return f
}

// frame fills in what the model shows of the run now.
func (d *driver) frame(f *frameMsg, v viewReq) {
	s := d.sim()
	f.snap = s.Snapshot()
	f.log, f.gapped = d.log.view(), d.gapped
	if d.gapped {
		f.log = d.tail.view()
	}
	f.next = s.NextTime()
	notes := s.PoolNotes()
	if s.Done() && s.Err() == nil {
		for _, p := range notes {
			f.stuck += p.Stuck
		}
	}
	f.watches = make([]float64, len(v.breaks))
	for i, b := range v.breaks {
		f.watches[i] = math.NaN()
		if b.watch && b.expr != nil {
			f.watches[i] = query(s, b.expr)
		}
	}
	stale := v.stale
	if stale <= 0 {
		stale = 1
	}
	f.jam = jamOf(s, stale)
	f.stale = f.jam.stale
	d.notes = notesOf(s, notes)
	f.notes = d.notes
	if v.why != noSession {
		f.why = why(s, v.why)
	}
	if v.follow != noSession {
		if f.sess = sessionAt(s, v.follow); f.sess != nil {
			f.src = append(f.src, d.source(f.sess.pos))
			for _, l := range f.sess.legs {
				f.src = append(f.src, d.source(l.pos))
			}
		}
	}
}

// notesOf is the report's notes on pools (interp's PoolNotes, a pass over
// the pools), in short: sessions stuck, rejected, and a queue head above
// the cap.
func notesOf(s *interp.Sim, notes []interp.PoolNote) []string {
	if s.Err() != nil {
		return nil
	}
	var out []string
	for _, p := range notes {
		label := p.Label
		if p.Stuck > 0 {
			out = append(out, fmt.Sprintf("stuck: %d at %s", p.Stuck, label))
		}
		if p.Rejected > 0 {
			out = append(out, fmt.Sprintf("rej: %d at %s", p.Rejected, label))
		}
		if p.OverCap != nil {
			out = append(out, fmt.Sprintf("over: %s head asks %s > cap", label, fmtCount(p.OverCap.Need)))
		}
	}
	return out
}

// source is the text of the line at pos, trimmed, "" when the file
// cannot be read. An IR's positions may name any file: only the lines of
// .sq files are shown (lang.SQKind), never /etc/shadow's.
func (d *driver) source(pos model.Pos) string {
	if pos.File == "" || pos.Line <= 0 {
		return ""
	}
	lines, ok := d.sources[pos.File]
	if !ok {
		if b, err := lang.SQKind.Read(pos.File); err == nil {
			lines = strings.Split(string(b), "\n")
		}
		d.sources[pos.File] = lines
	}
	if pos.Line > len(lines) || !safeio.Quotable(lines[pos.Line-1]) {
		return ""
	}
	return strings.TrimSpace(lines[pos.Line-1])
}

// seek moves the run with do and reports whether it went back; after going
// back the log is cut to the new point and the replayed events are dropped.
func (d *driver) seek(do func()) bool {
	before := d.sim().Events()
	last, _ := d.log.last()
	d.floor, d.floorSet = max(last, before), true
	do()
	d.prev = nil
	now := d.sim().Events()
	if now >= before {
		return false
	}
	d.log.truncate(now)
	d.floor = now
	t := d.sim().Now()
	d.samples = nil
	d.nextSample = nextSample(t)
	return true
}

// seekEvent goes to the state after n events: back from the nearest
// checkpoint (filling in those a quiet batch left out on the way); forward through the latest checkpoint before n when the run
// was there before and that is cheaper (jumpPays: the charts then read the
// run's history), else running the events in StepN chunks, sampling the
// charts on the way.
func (d *driver) seekEvent(n uint64) {
	if n < d.sim().Events() {
		d.tl.SeekBackFilling(n)
		return
	}
	if cps := d.tl.CheckpointsBefore(n); len(cps) > 0 && d.jumpPays(cps[len(cps)-1]) {
		d.jump(func() { d.tl.SeekEvent(n) })
		return
	}
	for d.sim().Events() < n && !d.sim().Done() {
		d.tl.StepN(min(quietChunk, n-d.sim().Events()))
		d.sampleNow()
	}
}

// seekTime goes to time t as interp.Timeline.SeekTime does: forward, as
// seekEvent does, through a checkpoint before t visited before when that
// is cheaper, else running the events, sampling the charts.
func (d *driver) seekTime(t float64) {
	if t < d.sim().Now() {
		d.tl.SeekTimeBackFilling(t)
		return
	}
	if d.jumpPays(d.tl.CheckpointBeforeTime(t)) {
		d.jump(func() { d.tl.SeekTime(t) })
		return
	}
	if t >= d.opt.Horizon {
		d.stepN(math.MaxUint64)
		return
	}
	d.until(t, math.MaxUint64, nil)
}

// jumpPays reports whether going forward through the checkpoint at event
// c costs fewer events than running there: a jump runs the events from c
// on, and the log is then rebuilt by a replay of about the events its
// logKeep lines span; running traces the log as it goes (or, after quiet
// batches, rebuilds it all the same).
func (d *driver) jumpPays(c uint64) bool {
	now := d.sim().Events()
	if c <= now {
		return false
	}
	if v := d.log.view(); !d.gapped && v.len() > 1 {
		if a, b := v.at(0).Event, v.at(v.len()-1).Event; b > a {
			d.perEvent = float64(v.len()) / float64(b-a)
		}
	}
	span := uint64(logKeep) // a guess of one line an event until a log was seen whole
	if d.perEvent > 0 {
		span = uint64(logKeep / d.perEvent)
	}
	jump, run := min(c, span)+d.tl.Every(), c-now
	if d.gapped {
		run += min(c, span)
	}
	return jump < run
}

// goQuiet makes the rest of a request keep no log: it is rebuilt when the
// request is done.
func (d *driver) goQuiet() {
	if !d.gapped {
		d.gapped, d.tail = true, eventLog{}
	}
	d.quiet = true
}

// historyCols is how many samples of the run's history a jump forward
// gives the charts: more than a chart has columns.
const historyCols = 256

// jump moves the run forward with move, through a checkpoint, and gives
// the charts the part jumped over from the run's own history: each gauge's
// value and each observe's running mean at historyCols times. The pools'
// trends have no history in the run: their samples are unknown over the
// part, and the charts show what they kept of it from when the run passed
// it before (a series keeps the part after a step back).
func (d *driver) jump(move func()) {
	t0 := d.sim().Now()
	d.goQuiet() // the log is rebuilt where the run lands
	move()
	s := d.sim()
	t1 := s.Now()
	if !(t1 > t0) {
		return
	}
	ts := make([]float64, historyCols)
	for i := range ts {
		ts[i] = t0 + (t1-t0)*float64(i)/historyCols
	}
	gs := make([][]float64, len(d.prog.Gauges))
	for i := range gs {
		gs[i] = s.GaugeAt(i, ts)
	}
	ms := make([][]float64, len(d.prog.Observes))
	for i := range ms {
		ms[i] = s.ObserveMeanAt(i, ts)
	}
	unknown := poolSample{used: math.NaN(), queued: math.NaN(), leased: math.NaN(), oldest: math.NaN()}
	for j, t := range ts {
		sm := sample{t: t, gauges: make([]float64, len(gs)), means: make([]float64, len(ms)), pools: make([]poolSample, len(d.prog.Pools))}
		for i := range gs {
			sm.gauges[i] = gs[i][j]
		}
		for i := range ms {
			sm.means[i] = ms[i][j]
		}
		for i := range sm.pools {
			sm.pools[i] = unknown
		}
		d.samples = append(d.samples, sm)
	}
	d.nextSample = nextSample(t1)
}

// until processes the events up to time t, then moves the clock to t; at
// most max events, and it stops at a breakpoint. It reports whether it
// stopped at max, and the breakpoint hit.
func (d *driver) until(t float64, max uint64, c *checker) (bool, string) {
	start := d.sim().Events()
	for !d.sim().Done() && d.sim().NextTime() <= t {
		n := d.sim().Events() - start
		if n >= max || n&511 == 511 && !d.deadline.IsZero() && time.Now().After(d.deadline) {
			return true, ""
		}
		d.step()
		if hit := c.after(d); hit != "" {
			return false, hit
		}
	}
	if !d.sim().Done() {
		d.tl.RunUntil(t)
	}
	return false, ""
}

// quietBatch is a batch at top speed: it runs to time t, or as many events
// as the batch budget's wall time allows, keeping no log but the last
// quietTail events (the log is rebuilt when read). Breakpoints are
// checked after every event as in until; with none, the events run in
// StepN chunks. It reports whether it stopped short of t, and the
// breakpoint hit.
func (d *driver) quietBatch(t float64, c *checker) (capped bool, hit string) {
	if !d.gapped {
		d.gapped, d.tail = true, eventLog{}
	}
	d.quiet = true
	if d.brkSessions == nil && d.brkEvents == nil {
		// No session breakpoint needs to see the traced events: no tracer.
		d.sim().SetTracer(nil)
	}
	if c == nil && t >= d.opt.Horizon {
		capped = d.stepN(maxQuietBatch)
	} else {
		capped, hit = d.until(t, maxQuietBatch, c)
	}
	d.sim().SetTracer(d.trace)
	d.quiet = false
	if capped && hit == "" {
		d.tail = eventLog{}
		start := d.sim().Events()
		for d.tail.total < quietTail && d.sim().Events()-start < quietTailEvents && !d.sim().Done() && d.sim().NextTime() <= t {
			d.step()
			if hit = c.after(d); hit != "" {
				break
			}
		}
	}
	return capped, hit
}

// stepN runs at most max events in StepN chunks, sampling the charts after
// each chunk and stopping at the batch's deadline. It reports whether it
// stopped before the run's end.
func (d *driver) stepN(max uint64) bool {
	start := d.sim().Events()
	for !d.sim().Done() {
		n := d.sim().Events() - start
		if n >= max || !d.deadline.IsZero() && time.Now().After(d.deadline) {
			return true
		}
		d.tl.StepNEvery(min(quietChunk, max-n), quietSparse)
		d.sampleNow()
	}
	return false
}

// rebuild makes the log whole again after quiet batches: the last
// logKeep events a run traced live would hold now (rebuildBefore).
func (d *driver) rebuild(iters bool) { d.rebuildBefore(iters, d.sim().Events(), logView{}, 0) }

// mendFront makes the log whole again after a step or seek back cut its
// newest events from a log whose window had dropped older ones: a run
// traced live would hold those older events now. It keeps the log's lines
// after its oldest event (whose lines the window may have cut) and
// replays the events up to that one (rebuildBefore), so a step back costs
// one span between checkpoints, not the whole log.
func (d *driver) mendFront(iters bool) {
	if d.log.kept >= logKeep || !d.log.cut {
		return
	}
	v := d.log.view()
	if v.len() == 0 {
		d.rebuild(iters)
		return
	}
	first, k := v.at(0).Event, 0
	for k < v.len() && v.at(k).Event == first {
		k++
	}
	d.rebuildBefore(iters, first, v, k)
}

// rebuildBefore sets the log to the last logKeep of the events a run
// traced live holds up to event to, followed by keep's events from the
// k-th on (the traced events after it). It replays the spans between checkpoints backwards from to,
// each once, until it has them, with a tracer that keeps their events
// (iters: whether engine iterations are traced), and fills in the
// checkpoints missing in the spans it replays (Timeline.RefillTraced).
func (d *driver) rebuildBefore(iters bool, to uint64, keep logView, k int) {
	d.gapped, d.tail = false, eventLog{}
	now := d.sim().Events()
	d.floor, d.floorSet = now, true
	cps := d.tl.CheckpointsBefore(to)
	var spans [][]interp.TraceEvent // newest first
	got := keep.len() - k
	for i := len(cps) - 1; i >= 0 && got < logKeep; i-- {
		from := cps[i]
		if from >= to {
			continue
		}
		var span []interp.TraceEvent
		d.tl.RefillTraced(from, to, func(e interp.TraceEvent) { span = append(span, e) }, iters)
		spans = append(spans, span)
		got += len(span)
		to = from
	}
	// Events before the oldest kept: those skipped, or spans not replayed.
	l := eventLog{cut: got > logKeep || got == logKeep && to > 0}
	skip := max(0, got-logKeep)
	for j := len(spans) - 1; j >= 0; j-- {
		for _, e := range spans[j] {
			if skip > 0 {
				skip--
				continue
			}
			l.add(e)
		}
	}
	for ; k < keep.len(); k++ {
		l.add(*keep.at(k))
	}
	if l.kept > 0 && now > to {
		d.perEvent = float64(got) / float64(now-to)
	}
	d.log = l
}

// stepOne processes one event and says what it did when the tracer did
// not: an engine's iteration ending, a job leaving a delay, the warm-up.
func (d *driver) stepOne(c *checker) (what, hit string) {
	before := d.sim().Snapshot()
	n := d.log.total
	d.step()
	hit = c.after(d)
	if d.log.total != n {
		return "", hit
	}
	return describe(before, d.sim().Snapshot(), d.opt.Warmup), hit
}

// back goes n events back on the timeline, from the nearest checkpoint.
func (d *driver) back(n uint64) string {
	cur := d.sim().Events()
	if n >= cur {
		d.seek(func() { d.tl.SeekEvent(0) })
		return ""
	}
	// Land one event early and step it, to say what that event did.
	d.seek(func() { d.tl.SeekBackFilling(cur - n - 1) })
	what, _ := d.stepOne(nil)
	return what
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
