package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// driver is the TUI's end of the debugger service (package debugger): it
// turns a request into a call of the service and answers a frameMsg, the
// picture the panes draw. Its work runs inside the tea.Cmds that
// [driver.cmd] returns, one at a time: the root model keeps at most one of
// them in flight (Model.busy), so the debugger is never asked two things
// at once by the TUI and Update never waits for it. Update sees the run
// only through the frames, which share nothing with the run (the log's
// chunks are read-only); the two calls it makes while a request runs,
// Progress and Cancel, are the service's calls for that.
//
// Stepping never changes results: the service only steps, seeks and
// reads the run.
type driver struct {
	dbg     *debugger.Debugger
	prog    *model.Program
	budget  time.Duration       // a batch's wall time; <= 0: none
	sources map[string][]string // source files by name, for the session pane
	notes   []string            // the report's over/rej/stuck notes
}

// maxBatch bounds the events of one run-mode batch, so that a command
// returns within about a tenth of a second even when the speed asks for
// more; the run then lags the wall clock and the status bar says so.
const maxBatch = 100_000

// batchBudget is the wall time a run-mode batch may take: a batch that
// would take longer stops there (Limited), the model draws its frame and
// starts the next batch at once, so the run goes at the interpreter's
// speed less the frames' share.
const batchBudget = 40 * time.Millisecond

// A quiet batch (the run at top speed, lagging the wall clock) keeps no
// log, up to maxQuietBatch events in quietBudget times the batch budget;
// the service rebuilds the log (the replay of one checkpoint span) when it
// is next read. Its checkpoints are quietSparse spacings apart (the
// service's Config.QuietSparse): at top speed a checkpoint costs the run
// as much as some thousands of events, and a seek or the log's rebuild
// fills in the ones it passes.
const (
	quietBudget   = 3
	maxQuietBatch = 1 << 20
	quietSparse   = 1
)

func newDriver(p *model.Program, opt interp.Options, every uint64) (*driver, error) {
	d, err := debugger.New(p, debugger.Config{Options: opt, CheckpointEvery: every, QuietSparse: quietSparse})
	if err != nil {
		return nil, err
	}
	return &driver{dbg: d, prog: p, sources: map[string][]string{}}, nil
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
	reqReverse                  // back to the last event a breakpoint hit
	reqAt                       // to the first event at or after t
	reqReport                   // the current picture and the text report
	reqEarlier                  // the log one checkpoint span further back
	reqEdit                     // a change to the breakpoints or the log (edit)
)

var reqNames = [...]string{"snapshot", "step", "slice", "batch", "back", "restart", "seek", "seek", "reverse", "at", "report",
	"earlier", "edit"}

func (k reqKind) String() string { return reqNames[k] }

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
	tour   int                  // 1 + the tour stop the request goes to; 0 for none
	extra  *debugger.Breakpoint // a tour's stop, checked by this run alone
	// quiet, for a batch: the run is at top speed, so the batch keeps
	// no log (the service rebuilds it when it is read).
	quiet bool
	// edit, for reqEdit: the change, made between two operations; its
	// error is the frame's editErr.
	edit func(d *debugger.Debugger) error
}

// viewReq is what the model wants to see of the run, beyond the snapshot.
type viewReq struct {
	why    uint64  // the session of the why pane, noSession for none
	follow uint64  // the followed session, noSession for none
	stale  float64 // the stale threshold
	insp   inspect // what the Inspect pane shows
}

// bpView is a breakpoint as the screen shows it, copied from the service.
type bpView struct {
	id        int
	kind      debugger.Kind
	src       string
	disabled  bool
	temporary bool
	ignore    uint64
	hits      uint64
	value     float64
}

// frameMsg is a command's answer: the run after the request.
type frameMsg struct {
	kind    reqKind
	stop    debugger.Stop
	snap    *interp.Snapshot
	log     debugger.Log
	what    string              // after one event stepped (or back): what it did
	next    float64             // the next event's time, +Inf if none
	capped  bool                // a batch stopped at its limit before its target
	samples []debugger.Sample   // chart values taken on the way, in time order
	trends  debugger.Sample     // chart values now
	back    bool                // the run went back: charts drop what is after snap.Time
	stuck   uint64              // at the end: sessions stuck in pools
	err     error               // a restart that could not start
	tour    int                 // the request's tour stop, 1-based; 0 for none
	tourHit bool                // the tour's stop breakpoint stopped the run
	bps     []bpView            // the breakpoints, watches and displays
	editErr error               // reqEdit's error
	jam     jam                 // blocked pools, stalled, stale leases
	notes   []string            // the report's over/rej/stuck notes
	why     []interp.WhyStep    // the why pane's session's chain
	sess    *interp.SessionSnap // the followed session, nil when not live
	src     []string            // the source lines of sess.Pos, then of each leg's
	insp    inspView            // the Inspect pane's content
	ckpts   ckptView            // the checkpoints kept

	report    string // reqReport: the text report
	reportErr error
}

// ckptView is the checkpoints: how many, their memory and spacing.
type ckptView struct {
	n     int
	bytes int64
	every uint64
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

// do carries out r and returns the frame. It is what the command runs;
// tests call it directly.
func (d *driver) do(r request) frameMsg {
	g := d.dbg
	f := frameMsg{kind: r.kind, tour: r.tour}
	var before *interp.Snapshot
	if r.kind == reqStep && r.n == 1 || r.kind == reqBack {
		before = g.Snapshot()
	}
	lines := g.Log().Len()
	switch r.kind {
	case reqStep:
		f.stop = g.Step(r.n)
	case reqSlice:
		f.stop = g.RunTo(r.target(g.Now()), debugger.Limits{Extra: extra(r)})
	case reqBatch:
		lim := debugger.Limits{Events: maxBatch, Extra: extra(r), Quiet: r.quiet}
		if d.budget > 0 {
			lim.Deadline = time.Now().Add(d.budget)
		}
		if r.quiet {
			lim.Events = maxQuietBatch
			if d.budget > 0 {
				lim.Deadline = time.Now().Add(quietBudget * d.budget)
			}
		}
		f.stop = g.RunTo(r.target(g.Now()), lim)
		f.capped = f.stop.Reason == debugger.Limited
	case reqBack:
		f.stop = g.Back(r.n)
	case reqRestart:
		f.err = g.Restart()
		f.back = true
	case reqSeekEvent:
		f.stop = g.SeekEvent(r.n)
	case reqSeekTime:
		f.stop = g.SeekTime(r.dt)
	case reqAt:
		f.stop = g.SeekAt(r.dt)
	case reqReverse:
		f.stop = g.Rewind()
	case reqReport:
		f.report, f.reportErr = reportText(g)
	case reqEarlier:
		f.stop, f.editErr = g.Earlier()
	case reqEdit:
		f.editErr = r.edit(g)
	}
	f.back = f.back || f.stop.Back
	f.tourHit = r.extra != nil && f.stop.Hit != nil && f.stop.Hit.ID == r.extra.ID
	f.samples = g.Samples()
	d.frame(&f, r.view)
	if before != nil && f.log.Len() == lines && f.stop.Reason != debugger.AtBreakpoint {
		f.what = describe(before, f.snap)
	}
	return f
}

func extra(r request) []*debugger.Breakpoint {
	if r.extra == nil {
		return nil
	}
	return []*debugger.Breakpoint{r.extra}
}

// frame fills in what the model shows of the run now.
func (d *driver) frame(f *frameMsg, v viewReq) {
	g := d.dbg
	f.snap = g.Snapshot()
	f.trends = g.TrendsNow()
	f.log = g.Log()
	f.next = g.NextTime()
	notes := g.PoolNotes()
	if g.Done() && g.Err() == nil {
		for _, p := range notes {
			f.stuck += p.Stuck
		}
	}
	for _, b := range g.Breakpoints() {
		f.bps = append(f.bps, bpView{id: b.ID, kind: b.Kind, src: b.Src(), disabled: b.Disabled, temporary: b.Temporary,
			ignore: b.Ignore, hits: b.Hits, value: b.Value})
	}
	stale := v.stale
	if stale <= 0 {
		stale = 1
	}
	f.jam = jamOf(g, stale)
	d.notes = notesOf(g.Err(), notes)
	f.notes = d.notes
	if v.why != noSession {
		f.why = g.Why(v.why)
	}
	if v.follow != noSession {
		if f.sess = g.Session(v.follow); f.sess != nil {
			f.src = append(f.src, d.source(f.sess.Pos))
			for _, l := range f.sess.Legs {
				f.src = append(f.src, d.source(l.Pos))
			}
		}
	}
	f.insp = inspectNow(g, v.insp)
	n, bytes, every := g.Checkpoints()
	f.ckpts = ckptView{n: n, bytes: bytes, every: every}
}

// jam says which pools' queue heads can never fit, whether the run is
// stalled, and how many leases wait longer than the stale threshold
// (interp.Jam: a lease whose read is under way moves, it is not stale).
type jam struct {
	blocked []string
	stalled bool
	stale   int
}

func jamOf(g *debugger.Debugger, stale float64) jam {
	j := g.Jam(stale)
	return jam{blocked: j.Blocked, stalled: j.Stalled, stale: j.Stale}
}

// notesOf is the report's notes on pools (interp's PoolNotes, a pass over
// the pools), in short: sessions stuck, rejected, and a queue head above
// the cap.
func notesOf(runErr error, notes []interp.PoolNote) []string {
	if runErr != nil {
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

// describe says in words what changed between two snapshots taken one
// event apart, for the events the tracer does not report: an engine's
// iteration ending, a job leaving a delay, the warm-up.
func describe(a, b *interp.Snapshot) string {
	var out []string
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
