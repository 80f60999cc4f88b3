// Package tui is `serq tui`: a full-screen Bubble Tea program that steps a
// serQ run and shows it live — the leases a prefiller holds, the engines'
// KV, the flows on the NICs, the gauges over time, the events in words and,
// on key 6, the deployment figure of `serq draw` with live numbers.
//
// The root [Model] follows soft-serve's layout: one [Styles] and one
// [KeyMap] shared by the panes, each a [Component] (a paneBox: the pane's
// box, its scrolling and its keys, around plain pane structs with their
// lines); the root keeps the program's own keys, routes the others to the
// focused pane, and draws the status bar and the help, assembled from its
// keys and the panes'. The panes are
// derived from the program (its leasing pools, engine memory pools,
// shared ps stages, gauges and observes, its lowered deployment), never
// from the seed's names.
//
// The simulation runs in tea.Cmds: a command carries out one request on
// the interpreter (a step, a time slice, a tick's batch, a rewind) and
// returns a frameMsg with a snapshot, so Update never blocks on the run.
// At most one command is in flight; requests made meanwhile queue and
// merge. Running is a tick loop tagged with a generation: pausing bumps
// the generation, so a tick already on its way is dropped and resuming
// never leaves two loops (the classic double-speed bug).
package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// Options configure a TUI session.
type Options struct {
	Horizon float64 // simulated end time, finite and > 0
	Warmup  float64 // statistics exclude [0, Warmup)
	Seed    uint64
	Version string // reported as the run's serq_version
	Title   string // shown in the status bar, usually the program's file

	StaleAfter float64 // a lease older than this (s) is flagged stale; 0 means 1
	Speed      float64 // simulated seconds per wall-clock second when running; 0 means 1
	Slice      float64 // the time slice of → (s); 0 means 0.1

	// TickEvery is the wall-clock period of the run loop; 0 means 1/20 s
	// (20 frames a second: smooth for a clock and a chart, and cheap).
	TickEvery time.Duration
	// Tick schedules the next tick; nil means tea.Tick. Tests inject their
	// own to send ticks by hand.
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd

	// Breaks are breakpoint expressions set at the start (--break).
	Breaks []string
	// At, when AtSet, starts the run paused at the first event at or
	// after it (--at).
	At    float64
	AtSet bool
	// Follow, when FollowSet, is a session followed from the start
	// (--follow).
	Follow    uint64
	FollowSet bool
	// CheckpointEvery is the timeline's checkpoint spacing in events; 0
	// means checkpointEvery.
	CheckpointEvery uint64
	// Arrivals, when > 0, stops the workload after exactly that many
	// arrivals, as `serq run --arrivals` does.
	Arrivals uint64
	// Tour is a walk-through played with > and < (--tour), from LoadTour.
	Tour *Tour
	// BatchWall is the wall time a run-mode batch may take; 0 means
	// batchBudget, < 0 no limit but maxBatch events (tests: the batches
	// then do not depend on the machine's speed).
	BatchWall time.Duration
}

// BreakError is a --break expression that does not compile: Err is a
// *lang.Error or lang.ErrorList at <command>:1:COL of Expr.
type BreakError struct {
	Expr string
	Err  error
}

func (e *BreakError) Error() string { return "--break " + e.Expr + ": " + e.Err.Error() }
func (e *BreakError) Unwrap() error { return e.Err }

// checkpointEvery is the TUI's checkpoint spacing, interp's default: a
// step back replays at most 65,536 events (some 25 ms on the seed), and a
// checkpoint (about 2 ms there) costs some 5 % of a run at top speed.
const checkpointEvery = interp.DefaultCheckpointEvery

// Minimum terminal size; below it the screen says so.
const (
	minWidth  = 64
	minHeight = 20
)

// The panes, in the order of their toggle keys 1…6.
const (
	paneLeases = iota
	paneKV
	paneNIC
	paneGauges
	paneLog
	paneDeploy  // hidden at start
	paneWhy     // hidden until enter or :why
	paneSession // hidden until f or :follow
	paneReport  // hidden until R
	numPanes
)

// focusOrder is the order tab moves the focus in: the panes' order on the
// screen, top to bottom and left to right.
var focusOrder = [numPanes]int{paneLeases, paneKV, paneNIC, paneGauges, paneWhy, paneSession, paneDeploy, paneReport, paneLog}

// topPane reports whether pane i is one of those laid out two to a row.
func topPane(i int) bool { return i < paneLog || i == paneWhy || i == paneSession }

// pane is the content of one box of the screen. Panes are plain structs
// (glow's habit): setFrame takes the new picture in Update, setSize the
// content area, lines the content; their paneBox draws the border and the
// title, and scrolls.
type pane interface {
	title() string
	setSize(w, h int)
	setFrame(f *frameMsg)
	lines() []string
}

// paneBase is what most panes hold the same way: the styles, the size
// the box gives them, and the last frame.
type paneBase struct {
	st    *Styles
	w, h  int
	frame *frameMsg
}

func (p *paneBase) setSize(w, h int)     { p.w, p.h = w, h }
func (p *paneBase) setFrame(f *frameMsg) { p.frame = f }

// Limits of the pace controls.
const (
	minSlice = 1e-6
	maxSlice = 1e6
	minSpeed = 1.0 / 1024
	maxSpeed = 1 << 20
)

// tickMsg is one beat of the run loop, tagged with the loop's generation.
type tickMsg struct{ gen int }

// Model is the root model.
type Model struct {
	st   *Styles
	keys *KeyMap
	help help.Model
	bar  statusBar
	opts Options
	drv  *driver

	width, height int

	busy     bool      // a driver command is in flight
	inflight reqKind   // which
	queue    []request // requests waiting for it
	running  bool
	gen      int // the tick loop's generation
	speed    float64
	slice    float64
	lag      bool // the run falls behind the wall clock
	skipped  bool // a tick found the driver busy since the last batch
	flash    string

	frame *frameMsg
	panes [numPanes]pane
	shown [numPanes]bool
	boxes [numPanes]*paneBox // each pane's Component: its box, scrolling and keys
	rects [numPanes]rect
	rows  [][]int // the visible panes by screen row
	focus int

	prog   *model.Program
	breaks []breakpoint // breakpoints and watches, by id
	nextID int
	follow uint64
	stale  float64
	iters  bool     // log every engine iteration (:iterations on)
	msg    []string // the answer of `list` or the breakpoint hit, shown above the help until the next key

	cmd     textinput.Model // the command line
	cmdOpen bool
	cmdKind string // ":" or "/"
	cmdErr  *cmdError
	hist    []string
	histAt  int
	footH   int // the footer's height at the last layout

	noLeases *leasesPane // the Leases pane when the Stations pane has its place

	viewCache string // the screen as View last drew it
	viewOK    bool   // and still current

	tour    *tourState    // the tour played, nil for none
	marks   map[rune]mark // m + letter
	pending rune          // 'm' or '\'' waiting for its letter; 0 for none
}

type rect struct{ w, h int }

// New returns the model for a run of p, paused at time 0.
func New(p *model.Program, opts Options) (*Model, error) {
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = 1
	}
	if opts.Speed <= 0 {
		opts.Speed = 1
	}
	if opts.Slice <= 0 {
		opts.Slice = 0.1
	}
	if opts.TickEvery <= 0 {
		opts.TickEvery = time.Second / 20
	}
	if opts.Tick == nil {
		opts.Tick = tea.Tick
	}
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = checkpointEvery
	}
	st := DefaultStyles()
	m := &Model{st: st, keys: DefaultKeyMap(), help: help.New(), bar: statusBar{st: st}, opts: opts,
		speed: opts.Speed, slice: opts.Slice, prog: p, nextID: 1, stale: opts.StaleAfter}
	for _, src := range opts.Breaks {
		e, err := compileQuery(p, src)
		if err != nil {
			return nil, &BreakError{Expr: src, Err: err}
		}
		m.breaks = append(m.breaks, breakpoint{id: m.nextID, kind: breakExpr, src: src, expr: e})
		m.nextID++
	}
	d, err := newDriver(p, interp.Options{Horizon: opts.Horizon, Warmup: opts.Warmup, Seed: opts.Seed, Version: opts.Version,
		Arrivals: opts.Arrivals, OpenTrace: interp.TraceKind.Opener()},
		opts.CheckpointEvery)
	if err != nil {
		return nil, err
	}
	m.drv = d
	d.budget = opts.BatchWall
	if d.budget == 0 {
		d.budget = batchBudget
	}
	m.panes = [numPanes]pane{
		newLeasesPane(st, p, opts.StaleAfter),
		newKVPane(st),
		newNICPane(st),
		newGaugesPane(st, p, opts.Warmup),
		newLogPane(st),
		newDeployPane(st, p),
		newWhyPane(st),
		newSessionPane(st),
		newReportPane(st),
	}
	for i := range m.shown {
		m.shown[i] = i != paneDeploy && i != paneWhy && i != paneSession && i != paneReport
	}
	// A program without leases or engine memory (a queueing network) has
	// its stations and observes in those panes' places, and no NIC pane
	// unless a stage is shared by flows.
	if len(leasingPools(p)) == 0 {
		m.noLeases = m.leasesPane()
		m.panes[paneLeases] = newStationsPane(st)
	}
	if len(enginePools(p)) == 0 {
		m.panes[paneKV] = newObservesPane(st, opts.Warmup)
	}
	if !hasShared(p) {
		m.shown[paneNIC] = false
	}
	for i, pn := range m.panes {
		m.boxes[i] = newPaneBox(st, m.keys, i, pn)
	}
	m.cmd = textinput.New()
	m.cmd.Prompt = ":"
	m.cmd.CharLimit = 500
	m.cmd.Cursor.SetMode(cursor.CursorStatic) // no blink: no timers, same frames every time
	m.drv = nil                               // no request before Init
	m.setFollow(noSession)
	if opts.FollowSet {
		m.setFollow(opts.Follow)
	}
	m.drv, m.flash = d, ""
	if opts.Tour != nil && len(opts.Tour.Stops) > 0 {
		m.tour = newTourState(opts.Tour)
		m.flash = fmt.Sprintf("tour: %d stops, > goes to the first", len(opts.Tour.Stops))
	}
	return m, nil
}

// Run runs the TUI on the terminal until the user quits. NO_COLOR (and
// CLICOLOR) drop every colour; the screen means the same without them.
//
// It returns the model as the user left it (for its ReportText).
func Run(p *model.Program, opts Options, popts ...tea.ProgramOption) (*Model, error) {
	if termenv.EnvNoColor() {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	m, err := New(p, opts)
	if err != nil {
		return nil, err
	}
	_, err = tea.NewProgram(m, popts...).Run()
	return m, err
}

// Init takes the first picture of the run (at --at's event, if given).
func (m *Model) Init() tea.Cmd {
	if m.opts.AtSet {
		return m.enqueue(request{kind: reqAt, dt: m.opts.At})
	}
	return m.enqueue(request{kind: reqSnapshot})
}

// Update handles keys, sizes, ticks and the driver's frames.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, tick := msg.(tickMsg); !tick {
		// A tick only starts a batch: the screen stays as it was.
		m.viewOK = false
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.KeyMsg:
		if m.cmdOpen {
			return m, m.cmdKey(msg)
		}
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// Keys typed faster than the terminal is read arrive as one
			// message: take them one at a time.
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				one := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
				if m.cmdOpen {
					cmds = append(cmds, m.cmdKey(one))
				} else {
					cmds = append(cmds, m.key(one))
				}
			}
			return m, tea.Batch(cmds...)
		}
		return m, m.key(msg)
	case tea.MouseMsg:
		return m, m.mouse(msg)
	case tickMsg:
		return m, m.tick(msg)
	case frameMsg:
		return m, m.apply(msg)
	}
	return m, nil
}

// key handles one key press.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	cmd := m.key1(msg)
	m.relayout()
	return tea.Batch(cmd, m.wholeLog())
}

func (m *Model) key1(msg tea.KeyMsg) tea.Cmd {
	m.flash = ""
	m.msg = nil
	if p := m.pending; p != 0 {
		m.pending = 0
		return m.markKey(p, msg)
	}
	for _, keys := range []func(tea.KeyMsg) (tea.Cmd, bool){m.runKey, m.paceKey, m.paneKey, m.debugKey, m.tourKey} {
		if cmd, ok := keys(msg); ok {
			return cmd
		}
	}
	// Not a key of the whole program: the focused pane's.
	return m.route(m.focus, msg)
}

// runKey handles running and stepping, restart, help and quit.
func (m *Model) runKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
	case key.Matches(msg, k.Run):
		switch {
		case m.running:
			m.pause()
		case m.over():
			m.flash = "the run is over: r restarts, b goes back"
		default:
			return m.resume(), true
		}
	case key.Matches(msg, k.Step):
		m.pause()
		if m.over() {
			m.flash = "the run is over: r restarts, b goes back"
			return nil, true
		}
		return m.enqueue(request{kind: reqStep, n: 1}), true
	case key.Matches(msg, k.Slice, k.Slices):
		m.pause()
		if m.over() {
			m.flash = "the run is over: r restarts, b goes back"
			return nil, true
		}
		dt := m.slice
		if key.Matches(msg, k.Slices) {
			dt *= 10
		}
		return m.enqueue(request{kind: reqSlice, dt: dt}), true
	case key.Matches(msg, k.Back):
		m.pause()
		if m.frame != nil && m.frame.snap.Events == 0 && !m.busy && len(m.queue) == 0 {
			m.flash = "at the start"
			return nil, true
		}
		return m.enqueue(request{kind: reqBack, n: 1}), true
	case key.Matches(msg, k.Restart):
		m.pause()
		m.queue = nil
		return m.enqueue(request{kind: reqRestart}), true
	default:
		return nil, false
	}
	return nil, true
}

// paceKey handles the keys of the slice and the speed.
func (m *Model) paceKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Shrink):
		m.slice = math.Max(m.slice/2, minSlice)
	case key.Matches(msg, k.Grow):
		m.slice = math.Min(m.slice*2, maxSlice)
	case key.Matches(msg, k.Faster):
		m.speed = math.Min(m.speed*2, maxSpeed)
	case key.Matches(msg, k.Slower):
		m.speed = math.Max(m.speed/2, minSpeed)
	case key.Matches(msg, k.ResetSpeed):
		m.speed = m.opts.Speed
	default:
		return nil, false
	}
	return nil, true
}

// paneKey handles the panes' toggles and the focus.
func (m *Model) paneKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Panes):
		m.toggle(int(msg.String()[0] - '1'))
	case key.Matches(msg, k.Inspect):
		m.toggle(paneWhy + int(msg.String()[0]-'7'))
	case key.Matches(msg, k.Deploy):
		m.toggle(paneDeploy)
	case key.Matches(msg, k.Report):
		rp := m.panes[paneReport].(*reportPane)
		if m.shown[paneReport] && rp.has && m.frame != nil && rp.events == m.frame.snap.Events {
			m.toggle(paneReport)
			return nil, true
		}
		if !m.shown[paneReport] {
			m.toggle(paneReport)
		}
		m.focus = paneReport
		m.flash = "the report serq run prints, as of now"
		return m.enqueue(request{kind: reqReport}), true
	case key.Matches(msg, k.Focus):
		m.cycleFocus(1)
	case key.Matches(msg, k.FocusBack):
		m.cycleFocus(-1)
	default:
		return nil, false
	}
	return nil, true
}

// debugKey handles the debugger's keys: the command line, goto, the log's
// filter, reverse continue, follow and why.
func (m *Model) debugKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Command):
		m.openCmd(":", "")
	case key.Matches(msg, k.Goto):
		m.openCmd(":", "goto ")
	case key.Matches(msg, k.Filter):
		m.openCmd("/", m.logPane().filter)
	case key.Matches(msg, k.Reverse):
		m.pause()
		if !m.hasBreaks() {
			m.flash = "no breakpoint to go back to: :break EXPR sets one"
			return nil, true
		}
		m.queue = nil
		return m.enqueue(request{kind: reqReverse}), true
	case key.Matches(msg, k.Follow):
		if s := m.leasesPane().selected(); s != noSession {
			if s == m.follow {
				return m.setFollow(noSession), true
			}
			return m.setFollow(s), true
		}
		if m.follow != noSession {
			return m.setFollow(noSession), true
		}
		m.flash = "select a lease first (tab to the Leases pane, ↑/↓), or :follow N"
	case key.Matches(msg, k.Why):
		if s := m.leasesPane().selected(); s != noSession {
			return m.setWhy(s), true
		}
		m.flash = "select a lease first (tab to the Leases pane, ↑/↓), or :why N"
	default:
		return nil, false
	}
	return nil, true
}

// tourKey handles the tour's keys (> and <) and the marks (m and ').
func (m *Model) tourKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.NextStop):
		return m.stopKey(1), true
	case key.Matches(msg, k.PrevStop):
		return m.stopKey(-1), true
	case key.Matches(msg, k.Mark):
		m.pending = 'm'
		m.flash = "mark: a letter names this moment"
	case key.Matches(msg, k.Jump):
		m.pending = '\''
		m.flash = "go to mark: its letter"
	default:
		return nil, false
	}
	return nil, true
}

// route gives msg to pane i's Component.
func (m *Model) route(i int, msg tea.Msg) tea.Cmd {
	c, cmd := m.boxes[i].Update(msg)
	m.boxes[i] = c.(*paneBox)
	return cmd
}

// paneAt is the visible pane at screen cell (x, y), -1 for none.
func (m *Model) paneAt(x, y int) int {
	top := 1 // the status bar
	for _, row := range m.rows {
		h := m.rects[row[0]].h
		if y >= top && y < top+h {
			left := 0
			for _, i := range row {
				if x >= left && x < left+m.rects[i].w {
					return i
				}
				left += m.rects[i].w
			}
			return -1
		}
		top += h
	}
	return -1
}

// mouse focuses the pane clicked and scrolls the pane under the pointer
// on the wheel, three lines a notch.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.cmdOpen {
		return nil
	}
	i := m.paneAt(msg.X, msg.Y)
	if i < 0 {
		return nil
	}
	switch {
	case msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft:
		m.focus = i
	case msg.Button == tea.MouseButtonWheelUp || msg.Button == tea.MouseButtonWheelDown:
		step := 3
		if msg.Button == tea.MouseButtonWheelUp {
			step = -3
		}
		return m.route(i, scrollMsg{step})
	}
	return nil
}

// toggle shows or hides pane i: a pane shown takes the focus, a pane
// hidden passes it on.
func (m *Model) toggle(i int) {
	m.shown[i] = !m.shown[i]
	if m.shown[i] {
		m.focus = i
	} else if m.focus == i {
		m.cycleFocus(1)
	}
	m.layout()
}

// show shows pane i and leaves the focus where it is (on the Leases
// pane's cursor, say, so ↑/↓ go on selecting).
func (m *Model) show(i int) {
	if !m.shown[i] {
		m.shown[i] = true
		m.layout()
	}
}

// cycleFocus moves the focus to the next (dir 1) or previous visible pane
// in the screen's order.
func (m *Model) cycleFocus(dir int) {
	at := 0
	for k, i := range focusOrder {
		if i == m.focus {
			at = k
		}
	}
	for k := 1; k <= numPanes; k++ {
		j := focusOrder[((at+dir*k)%numPanes+numPanes)%numPanes]
		if m.shown[j] {
			m.focus = j
			return
		}
	}
}

// pause stops the tick loop: the tick on its way is dropped by its
// generation.
func (m *Model) pause() {
	if m.running {
		m.running = false
		m.gen++
	}
	if m.tour != nil {
		m.tour.going = -1
	}
}

// resume starts a new tick loop.
func (m *Model) resume() tea.Cmd {
	m.running = true
	m.gen++
	m.lag, m.skipped = false, false
	return m.tickCmd()
}

func (m *Model) tickCmd() tea.Cmd {
	gen := m.gen
	return m.opts.Tick(m.opts.TickEvery, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// tick runs one batch of the run loop and schedules the next beat. A beat
// that finds the previous batch still running is skipped (the run lags).
func (m *Model) tick(msg tickMsg) tea.Cmd {
	if msg.gen != m.gen || !m.running {
		return nil
	}
	next := m.tickCmd()
	if m.busy || len(m.queue) > 0 {
		m.skipped = true
		return next
	}
	dt := m.speed * m.opts.TickEvery.Seconds()
	return tea.Batch(next, m.enqueue(request{kind: reqBatch, dt: dt, quiet: (m.lag || m.speed >= maxSpeed) && m.quietOK()}))
}

// quietOK reports whether a batch at top speed may keep no log: the log
// is then rebuilt when the run stops. Not while a followed session's or a
// filter's few lines can be read as they come, nor with engine
// iterations traced.
func (m *Model) quietOK() bool {
	return m.follow == noSession && m.logPane().filter == "" && !m.iters
}

// wholeLog asks for a picture with the whole log when the run stopped
// after batches that kept none.
func (m *Model) wholeLog() tea.Cmd {
	if m.running || m.busy || len(m.queue) > 0 || m.frame == nil || !m.frame.gapped {
		return nil
	}
	return m.enqueue(request{kind: reqSnapshot})
}

// enqueue adds a request, merged with the last waiting one of its kind,
// and starts it when the driver is free.
func (m *Model) enqueue(r request) tea.Cmd {
	if n := len(m.queue); n > 0 && m.queue[n-1].kind == r.kind {
		switch r.kind {
		case reqStep, reqBack:
			m.queue[n-1].n += r.n
			return nil
		case reqSlice:
			m.queue[n-1].dt += r.dt
			return nil
		}
	}
	m.queue = append(m.queue, r)
	return m.dispatch()
}

// dispatch starts the next waiting request if none is in flight.
func (m *Model) dispatch() tea.Cmd {
	if m.busy || len(m.queue) == 0 {
		return nil
	}
	r := m.queue[0]
	m.queue = m.queue[1:]
	m.busy, m.inflight = true, r.kind
	r.view = viewReq{breaks: append([]breakpoint(nil), m.breaks...), why: m.whyPane().serial,
		follow: m.follow, stale: m.stale, iters: m.iters}
	if b, ok := m.tourBreak(r); ok && (r.kind == reqBatch || r.kind == reqSlice) {
		r.view.breaks = append(r.view.breaks, b)
	}
	if r.kind == reqBatch {
		m.tourCap(&r)
	}
	return m.drv.cmd(r)
}

// apply takes a driver's frame.
func (m *Model) apply(f frameMsg) tea.Cmd {
	m.busy = false
	m.frame = &f
	for _, p := range m.panes {
		p.setFrame(&f)
	}
	var next tea.Cmd
	if f.kind == reqBatch {
		m.lag = f.capped || m.skipped
		m.skipped = false
	}
	switch {
	case f.hit != "" && f.hitID < 0:
		// a tour's stop: tourFrame arrives there
	case f.hit != "":
		m.pause()
		m.queue = nil
		m.msg = []string{"⏹ " + f.hit}
	case f.kind == reqReverse && !f.found:
		m.flash = "no earlier event where a breakpoint became true"
	}
	tc := m.tourFrame(&f)
	if m.over() {
		m.pause()
		if rp := m.panes[paneReport].(*reportPane); m.shown[paneReport] && f.kind != reqReport && (!rp.has || rp.events != f.snap.Events) {
			tc = tea.Batch(tc, m.enqueue(request{kind: reqReport}))
		}
	}
	m.relayout()
	if f.kind == reqBatch && f.capped && m.running && !m.busy && len(m.queue) == 0 {
		// The run lags the clock: the next batch starts as soon as this
		// frame lands, not at the next tick.
		next = m.enqueue(request{kind: reqBatch, dt: m.speed * m.opts.TickEvery.Seconds(), quiet: m.quietOK()})
	}
	return tea.Batch(tc, next, m.dispatch(), m.wholeLog())
}

// over reports whether the run can go no further.
func (m *Model) over() bool {
	return m.frame != nil && (m.frame.snap.Done || m.frame.err != nil)
}

// state is the run's state for the status bar.
func (m *Model) state() state {
	f := m.frame
	switch {
	case f == nil:
		return statePaused
	case f.snap.Err != nil || f.err != nil:
		return stateError
	case math.IsInf(f.next, 1) && f.snap.Live > 0, f.stuck > 0:
		// Sessions wait and nothing is pending that could free them (the
		// run idles to its horizon), or requests were stuck in preemption.
		return stateStalled
	case f.snap.Done:
		return stateDone
	case m.running:
		return stateRunning
	}
	return statePaused
}

// layout sizes the panes: the first four visible ones two to a row, then
// the deployment figure across the screen, then the log across the bottom;
// the log takes a quarter of the height, the figure twice a row's share.
func (m *Model) layout() {
	m.help.Width = m.width
	m.rows = nil
	if m.width < minWidth || m.height < minHeight {
		return
	}
	var top []int
	for _, i := range focusOrder {
		if topPane(i) && m.shown[i] {
			top = append(top, i)
		}
	}
	cols := 2
	for len(top) > 0 {
		n := min(cols, len(top))
		m.rows = append(m.rows, top[:n])
		top = top[n:]
	}
	if m.shown[paneDeploy] {
		m.rows = append(m.rows, []int{paneDeploy})
	}
	if m.shown[paneReport] {
		m.rows = append(m.rows, []int{paneReport})
	}
	if m.shown[paneLog] {
		m.rows = append(m.rows, []int{paneLog})
	}
	if len(m.rows) == 0 {
		return
	}
	// The log takes a quarter of the height (at least 5 lines) when other
	// rows share it; the other rows split the rest by weight, the last of
	// them taking what the division leaves.
	m.footH = lipgloss.Height(m.footerView())
	body := m.height - 1 - m.footH
	n, logH := len(m.rows), 0
	if m.shown[paneLog] && n > 1 {
		n--
		logH = max(5, body/4)
	}
	weight := func(r int) int {
		if i := m.rows[r][0]; i == paneDeploy || i == paneReport {
			return 2
		}
		return 1
	}
	total := 0
	for r := 0; r < n; r++ {
		total += weight(r)
	}
	used := 0
	for r, row := range m.rows {
		h := (body - logH) * weight(min(r, n-1)) / total
		switch {
		case logH > 0 && r == len(m.rows)-1:
			h = logH
		case r == n-1:
			h = body - logH - used
		}
		used += h
		for c, i := range row {
			w := m.width / len(row)
			if c == len(row)-1 {
				w = m.width - w*(len(row)-1)
			}
			m.rects[i] = rect{w, h}
			m.boxes[i].SetSize(w, h)
		}
	}
}

// helpView is the short help cut to the width, or the full help with its
// groups packed in as many rows as the width needs, so every key shows on
// any screen (bubbles' help puts every group side by side and cuts them).
func (m *Model) helpView() string {
	if !m.help.ShowAll {
		return fit(m.help.ShortHelpView(m.keys.ShortHelp()), m.width)
	}
	h := m.help
	h.Width = 0 // measure uncut
	var rows []string
	var row [][]key.Binding
	flush := func() {
		if len(row) > 0 {
			rows = append(rows, h.FullHelpView(row))
			row = nil
		}
	}
	for _, g := range m.fullHelp() {
		try := append(append([][]key.Binding(nil), row...), g)
		if len(row) > 0 && lipgloss.Width(h.FullHelpView(try)) > m.width {
			flush()
		}
		row = append(row, g)
	}
	flush()
	lines := strings.Split(strings.Join(rows, "\n"), "\n")
	for i, l := range lines {
		lines[i] = fit(strings.TrimRight(l, " "), m.width)
	}
	return strings.Join(lines, "\n")
}

// fullHelp is the `?` help, grouped as KeyMap.FullHelp: the program's own
// keys, with the panes' keys (their ShortHelp, each key once) among the
// debugger's keys and, for scrolling, among the panes'.
func (m *Model) fullHelp() [][]key.Binding {
	k := m.keys
	var own, scroll []key.Binding
	seen := map[string]bool{}
	for _, i := range focusOrder {
		for _, b := range m.boxes[i].ShortHelp() {
			h := b.Help().Key
			switch {
			case seen[h]:
			case key.Matches(tea.KeyMsg{Type: tea.KeyUp}, b), key.Matches(tea.KeyMsg{Type: tea.KeyDown}, b):
				scroll = append(scroll, b)
			default:
				own = append(own, b)
			}
			seen[h] = true
		}
	}
	return [][]key.Binding{
		{k.Run, k.Step, k.Slice, k.Slices, k.Back, k.Reverse},
		{k.Shrink, k.Grow, k.Faster, k.Slower, k.ResetSpeed},
		append(append([]key.Binding{k.Command, k.Goto, k.Filter}, own...), k.Why, k.Follow),
		append([]key.Binding{k.Panes, k.Deploy, k.Inspect, k.Report, k.Focus, k.FocusBack}, scroll...),
		{k.NextStop, k.PrevStop, k.Mark, k.Jump, k.Restart, k.Help, k.Quit},
	}
}

// View draws the screen, or returns it as drawn when no message but a
// tick came since (Bubble Tea asks for it after every message).
func (m *Model) View() string {
	if !m.viewOK {
		m.viewCache, m.viewOK = m.view(), true
	}
	return m.viewCache
}

func (m *Model) view() string {
	if m.width == 0 {
		return ""
	}
	if m.width < minWidth || m.height < minHeight {
		msg := fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minWidth, minHeight, m.width, m.height)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, fit(msg, m.width))
	}
	var out []string
	out = append(out, m.statusView())
	if len(m.rows) == 0 {
		body := m.height - 1 - lipgloss.Height(m.footerView())
		out = append(out, lipgloss.Place(m.width, body, lipgloss.Center, lipgloss.Center,
			m.st.Dim.Render("every pane is hidden: press 1…6 to show one")))
	}
	for _, row := range m.rows {
		var boxes []string
		for _, i := range row {
			boxes = append(boxes, m.box(i))
		}
		out = append(out, lipgloss.JoinHorizontal(lipgloss.Top, boxes...))
	}
	out = append(out, m.footerView())
	return strings.Join(out, "\n")
}

func (m *Model) statusView() string {
	d := statusData{title: m.opts.Title, state: m.state(), horizon: m.opts.Horizon,
		slice: m.slice, speed: m.speed, lag: m.lag && m.running, seed: m.opts.Seed, flash: m.flash}
	if f := m.frame; f != nil {
		d.time, d.events, d.live = f.snap.Time, f.snap.Events, f.snap.Live
		d.blocked, d.stalled, d.notes, d.stale = f.jam.blocked, f.jam.stalled, f.notes, f.stale
		for _, mb := range f.snap.Members {
			if mb.Down {
				d.down = append(d.down, mb.Label)
			}
		}
		for _, sg := range f.snap.Stages {
			switch {
			case sg.Stalled:
				d.down = append(d.down, sg.Label+" stalled")
			case sg.Down:
				d.down = append(d.down, sg.Label)
			}
		}
	}
	if m.busy {
		switch m.inflight {
		case reqSeekTime, reqSeekEvent, reqAt:
			d.busy = "seeking"
		case reqReverse:
			d.busy = "searching back"
		case reqBack:
			d.busy = "rewinding"
		case reqRestart:
			d.busy = "restarting"
		}
	}
	return m.bar.view(m.width, d)
}

// box draws pane i's Component, focused or not.
func (m *Model) box(i int) string {
	m.boxes[i].focused = i == m.focus
	return m.boxes[i].View()
}

// leasesPane is the Leases pane; in a program without one (the Stations
// pane in its place), a Leases pane of no pool that is never shown.
func (m *Model) leasesPane() *leasesPane {
	if lp, ok := m.panes[paneLeases].(*leasesPane); ok {
		return lp
	}
	return m.noLeases
}

func (m *Model) logPane() *logPane         { return m.panes[paneLog].(*logPane) }
func (m *Model) whyPane() *whyPane         { return m.panes[paneWhy].(*whyPane) }
func (m *Model) sessionPane() *sessionPane { return m.panes[paneSession].(*sessionPane) }

// hasBreaks reports whether a breakpoint (not a watch) is set.
func (m *Model) hasBreaks() bool {
	for _, b := range m.breaks {
		if !b.watch {
			return true
		}
	}
	return false
}

// setFollow follows session n in every pane (noSession: none) and shows
// the session pane.
func (m *Model) setFollow(n uint64) tea.Cmd {
	m.follow = n
	m.leasesPane().follow = n
	m.logPane().follow = n
	m.panes[paneNIC].(*nicPane).follow = n
	m.sessionPane().serial = n
	if n != noSession {
		m.flash = fmt.Sprintf("following session %d", n)
		m.show(paneSession)
	} else {
		m.flash = "following no session"
	}
	if m.drv == nil {
		return nil
	}
	return m.enqueue(request{kind: reqSnapshot})
}

// setWhy shows the why pane for session n.
func (m *Model) setWhy(n uint64) tea.Cmd {
	m.whyPane().serial = n
	m.show(paneWhy)
	return m.enqueue(request{kind: reqSnapshot})
}

// setStale sets the stale threshold.
func (m *Model) setStale(t float64) {
	m.stale = t
	m.leasesPane().stale = t
	m.flash = "stale > " + fmtSpan(t)
}

// openCmd opens the command line (":" commands or the "/" filter) with
// text typed in.
func (m *Model) openCmd(kind, text string) {
	m.cmdOpen, m.cmdKind, m.cmdErr = true, kind, nil
	m.cmd.Prompt = kind
	m.cmd.SetValue(text)
	m.cmd.CursorEnd()
	m.cmd.Focus()
	m.histAt = len(m.hist)
}

func (m *Model) closeCmd() {
	m.cmdOpen, m.cmdErr = false, nil
	m.cmd.Blur()
	m.cmd.SetValue("")
}

// cmdKey handles a key while the command line is open.
func (m *Model) cmdKey(msg tea.KeyMsg) tea.Cmd {
	defer m.relayout()
	switch msg.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		m.closeCmd()
		return nil
	case tea.KeyEnter:
		line := m.cmd.Value()
		if m.cmdKind == "/" {
			m.closeCmd()
			m.logPane().setFilter(line)
			m.boxes[paneLog].off = 0
			if line = strings.TrimSpace(line); line != "" {
				m.flash = "log filtered by " + line
			}
			return nil
		}
		if s := strings.TrimSpace(line); s != "" && (len(m.hist) == 0 || m.hist[len(m.hist)-1] != s) {
			m.hist = append(m.hist, s)
		}
		m.msg = nil
		cmd, err := m.command(line)
		if err != nil {
			m.cmdErr = err
			m.histAt = len(m.hist)
			return nil
		}
		m.closeCmd()
		return cmd
	case tea.KeyUp, tea.KeyDown:
		if m.cmdKind != ":" || len(m.hist) == 0 {
			return nil
		}
		if msg.Type == tea.KeyUp {
			m.histAt = max(0, m.histAt-1)
		} else {
			m.histAt = min(len(m.hist), m.histAt+1)
		}
		v := ""
		if m.histAt < len(m.hist) {
			v = m.hist[m.histAt]
		}
		m.cmd.SetValue(v)
		m.cmd.CursorEnd()
		m.cmdErr = nil
		return nil
	}
	var cmd tea.Cmd
	before := m.cmd.Value()
	m.cmd, cmd = m.cmd.Update(msg)
	if m.cmd.Value() != before {
		m.cmdErr = nil
	}
	return cmd
}

// relayout lays the screen out again when the footer's height changed.
func (m *Model) relayout() {
	if m.width > 0 && lipgloss.Height(m.footerView()) != m.footH {
		m.layout()
	}
}

// footerView is what is below the panes: the breakpoints and watches, the
// answer of `list`, then the command line with its error, or the help.
func (m *Model) footerView() string {
	var out []string
	if strip := m.watchStrip(); strip != "" {
		out = append(out, fit(strip, m.width))
	}
	out = append(out, m.captionView()...)
	for _, l := range m.msg {
		st := m.st.Dim
		if strings.HasPrefix(l, "⏹") {
			st = m.st.Warn
		}
		out = append(out, fit(st.Render(l), m.width))
	}
	if m.cmdOpen {
		out = append(out, fit(m.cmd.View(), m.width))
		if e := m.cmdErr; e != nil {
			caret := strings.Repeat(" ", len(m.cmdKind)+e.col) + "^ "
			out = append(out, fit(m.st.Err.Render(caret+e.msg), m.width))
			if e.hint != "" {
				out = append(out, fit(m.st.Dim.Render(strings.Repeat(" ", len(m.cmdKind)+e.col)+"  "+e.hint), m.width))
			}
		} else if m.cmdKind == "/" {
			out = append(out, fit(m.st.Dim.Render("filter the log: s35 or 35 (a session), or a pool or stage label; enter on nothing clears"), m.width))
		} else {
			out = append(out, fit(m.st.Dim.Render(commandHelp+" · ↑/↓ history · esc"), m.width))
		}
	} else {
		out = append(out, m.helpView())
	}
	return strings.Join(out, "\n")
}

// watchStrip is one line: every breakpoint, and every watch with its value.
func (m *Model) watchStrip() string {
	if len(m.breaks) == 0 {
		return ""
	}
	var parts []string
	for i, b := range m.breaks {
		s := b.String()
		if b.watch {
			v := "…"
			if f := m.frame; f != nil && i < len(f.watches) && f.kind != reqRestart {
				v = fmtValue(f.watches[i])
			}
			s += " = " + v
		}
		parts = append(parts, s)
	}
	return m.st.Label.Render("◆") + " " + strings.Join(parts, m.st.Status.Sep.Render(" │ "))
}
