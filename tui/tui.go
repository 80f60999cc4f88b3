// Package tui is `serq tui`: a full-screen Bubble Tea program that steps a
// serQ run and shows it live — the leases a prefiller holds, the engines'
// KV, the flows on the NICs, the trends over time, the events in words,
// the deployment figure of `serq draw` with live numbers — and is a
// debugger of the run.
//
// It is a front end of the debugger service (package debugger, delve's
// service/debugger to this package's terminal): the service owns the run,
// its breakpoints, its stepping both ways, its event log, its why-chains
// and inspectors; this package turns keys and commands into the service's
// calls (driver.go) and draws its answers. The root [Model] follows
// soft-serve's layout: one [Styles] and one [KeyMap] shared by the panes,
// each a [Component] (a paneBox: the pane's box, its scrolling, wrapping
// and keys, around plain pane structs with their lines); the root keeps
// the program's own keys, routes the others to the focused pane, and
// draws the status bar and the help, assembled from its keys and the
// panes'. The command line is a table of commands (commands.go) from which
// its help and its Tab completion are made. The panes are derived from the
// program (its leasing pools, engine memory pools, shared ps stages,
// gauges and observes, its lowered deployment), never from the seed's
// names.
//
// The service runs in tea.Cmds: a command carries out one request on it
// (a step, a time slice, a tick's batch, a seek) and returns a frameMsg
// with a picture of the run, so Update never blocks on the run. At most
// one command is in flight; requests made meanwhile queue and merge.
// While one runs, a progress tick redraws the status bar with the
// service's Progress after 200 ms, and esc asks the service to Cancel.
// Running is a tick loop tagged with a generation: pausing bumps the
// generation, so a tick already on its way is dropped and resuming never
// leaves two loops (the classic double-speed bug).
package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/serq/serq/debugger"
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

	StaleAfter float64 // a lease waiting longer than this (s) is flagged stale; 0 means 1
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
	// CheckpointEvery is the checkpoints' spacing in events; 0 means
	// interp.DefaultCheckpointEvery.
	CheckpointEvery uint64
	// Arrivals, when > 0, stops the workload after exactly that many
	// arrivals, as `serq run --arrivals` does.
	Arrivals uint64
	// Tour is a walk-through played with > and < (--tour), from LoadTour.
	Tour *Tour
	// Run names the run for a tour: the program, its arguments and
	// instance, the settings. `:save tour` writes it into the tour, and a
	// tour made on another run is refused (CheckTour).
	Run RunID
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

// Minimum terminal size; below it the screen says so.
const (
	minWidth  = 64
	minHeight = 20
)

// The panes, in the order of their toggle keys 1…8, then the report (R)
// and the inspector (i).
const (
	paneLeases = iota
	paneKV
	paneNIC
	paneGauges // the Trends pane
	paneLog
	paneDeploy  // hidden at start
	paneWhy     // hidden until enter or :why
	paneSession // hidden until f or :follow
	paneReport  // hidden until R
	paneInspect // hidden until i, :queue, :batch or :pending
	numPanes
)

// focusOrder is the order tab moves the focus in: the panes' order on the
// screen, top to bottom and left to right.
var focusOrder = [numPanes]int{paneLeases, paneKV, paneNIC, paneGauges, paneWhy, paneSession, paneInspect, paneDeploy, paneReport, paneLog}

// topPane reports whether pane i is one of those laid out two to a row.
func topPane(i int) bool { return i < paneLog || i == paneWhy || i == paneSession || i == paneInspect }

// pane is the content of one box of the screen. Panes are plain structs
// (glow's habit): setFrame takes the new picture in Update, setSize the
// content area, lines the content; their paneBox draws the border and the
// title, scrolls and wraps.
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

// progressMsg redraws the progress of the request in flight.
type progressMsg struct{}

// progressAfter is how long a request runs before the status bar shows
// its progress and that esc cancels it; progressEvery how often it is
// redrawn then.
const (
	progressAfter = 200 * time.Millisecond
	progressEvery = 100 * time.Millisecond
)

// Model is the root model.
type Model struct {
	st   *Styles
	keys *KeyMap
	help help.Model
	bar  statusBar
	opts Options
	drv  *driver

	width, height int

	busy      bool      // a driver command is in flight
	inflight  reqKind   // which
	busySince time.Time // when it began
	ticking   bool      // a progress tick is on its way
	queue     []request // requests waiting for it
	running   bool
	gen       int // the tick loop's generation
	speed     float64
	slice     float64
	lag       bool // the run falls behind the wall clock
	skipped   bool // a tick found the driver busy since the last batch
	flash     string

	frame *frameMsg
	panes [numPanes]pane
	shown [numPanes]bool
	boxes [numPanes]*paneBox // each pane's Component: its box, scrolling and keys
	rects [numPanes]rect
	rows  [][]int // the visible panes by screen row
	focus int
	zoom  int // the pane shown alone (z), -1 for none

	prog   *model.Program
	follow uint64
	stale  float64
	iters  bool           // log every engine iteration (:iterations on)
	insp   inspect        // what the Inspect pane shows
	msg    []string       // the answer of `list` or a breakpoint's hit, shown above the help until the next key
	names  debugger.Names // for completion

	cmd     textinput.Model // the command line
	cmdOpen bool
	cmdKind string // ":" or "/"
	cmdErr  *cmdError
	hist    []string
	histAt  int
	footH   int   // the footer's height at the last layout
	comp    *comp // the completions offered by the last Tab, nil for none

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
	st := DefaultStyles()
	m := &Model{st: st, keys: DefaultKeyMap(), help: help.New(), bar: statusBar{st: st}, opts: opts,
		speed: opts.Speed, slice: opts.Slice, prog: p, stale: opts.StaleAfter, zoom: -1}
	d, err := newDriver(p, interp.Options{Horizon: opts.Horizon, Warmup: opts.Warmup, Seed: opts.Seed, Version: opts.Version,
		Arrivals: opts.Arrivals, OpenTrace: interp.TraceKind.Opener()},
		opts.CheckpointEvery)
	if err != nil {
		return nil, err
	}
	for _, src := range opts.Breaks {
		if _, err := d.dbg.Create(debugger.Spec{Kind: debugger.BreakExpr, Expr: src}); err != nil {
			var se *debugger.SpecError
			if asSpecError(err, &se) {
				err = se.Err
			}
			return nil, &BreakError{Expr: src, Err: err}
		}
	}
	d.budget = opts.BatchWall
	if d.budget == 0 {
		d.budget = batchBudget
	}
	m.names = d.dbg.Names()
	m.panes = [numPanes]pane{
		newLeasesPane(st, p, opts.StaleAfter),
		newKVPane(st, p, opts.Warmup),
		newNICPane(st),
		newGaugesPane(st, p, opts.Warmup),
		newLogPane(st),
		newDeployPane(st, p),
		newWhyPane(st),
		newSessionPane(st),
		newReportPane(st),
		newInspectPane(st),
	}
	for i := range m.shown {
		m.shown[i] = i < paneDeploy
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
	m.setFollow(noSession)
	if opts.FollowSet {
		m.setFollow(opts.Follow)
	}
	m.drv, m.flash = d, ""
	if opts.Tour != nil && len(opts.Tour.Stops) > 0 {
		m.tour = newTourState(opts.Tour)
		m.flash = fmt.Sprintf("tour: %d stops, > goes to the first", len(opts.Tour.Stops))
		if w := opts.Tour.Warning; w != "" {
			m.msg = []string{"⚠ " + w} // under the panes, wrapped: whole at 80 columns
		}
	}
	return m, nil
}

func asSpecError(err error, se **debugger.SpecError) bool {
	e, ok := err.(*debugger.SpecError)
	*se = e
	return ok
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
		if m.busy && msg.Type == tea.KeyEsc && !m.cmdOpen {
			m.drv.dbg.Cancel()
			m.queue = nil
			m.pause()
			m.flash = "cancelling " + busyWords(m.inflight) + "…"
			return m, nil
		}
		if burst(msg) {
			return m, m.burstKeys(msg)
		}
		if m.cmdOpen {
			return m, m.cmdKey(msg)
		}
		return m, m.key(msg)
	case tea.MouseMsg:
		return m, m.mouse(msg)
	case tickMsg:
		return m, m.tick(msg)
	case progressMsg:
		m.ticking = false
		return m, m.progressTick()
	case frameMsg:
		return m, m.apply(msg)
	}
	return m, nil
}

// progressTick schedules the next redraw of a request's progress while
// one runs.
func (m *Model) progressTick() tea.Cmd {
	if !m.busy || m.ticking {
		return nil
	}
	m.ticking = true
	return m.opts.Tick(progressEvery, func(time.Time) tea.Msg { return progressMsg{} })
}
