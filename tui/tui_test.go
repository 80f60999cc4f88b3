package tui

import (
	"context"
	"math"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// The goldens are drawn without colour, as under NO_COLOR, so they do not
// depend on the terminal the tests run in.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

const seedPath = "../examples/pd-disaggregation/llmd_nixl_pull.sq"

var (
	seedOnce sync.Once
	seedProg *model.Program
	seedErr  error
)

// seed loads the seed example once.
func seed(t *testing.T) *model.Program {
	t.Helper()
	seedOnce.Do(func() { seedProg, seedErr = lang.Load(seedPath, lang.Options{Lib: lib.FS}) })
	if seedErr != nil {
		t.Fatalf("lang.Load(%q): %v", seedPath, seedErr)
	}
	return seedProg
}

// handTicks is a tick source that never fires by itself: the command it
// returns yields the tick message, which drive keeps for the test to
// deliver.
func handTicks(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg { return fn(time.Time{}) }
}

// newModel returns a model of the seed example, initialised and sized,
// with ticks delivered by hand.
func newModel(t *testing.T, opts Options, w, h int) (*Model, *harness) {
	t.Helper()
	if opts.Horizon == 0 {
		opts.Horizon = 2000
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	opts.Tick = handTicks
	opts.BatchWall = -1
	opts.Title = "llmd_nixl_pull.sq"
	m, err := New(seed(t), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := &harness{t: t, m: m}
	hs.run(m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return m, hs
}

// harness runs a model's commands synchronously, as the Bubble Tea loop
// would, except ticks: those it keeps until the test delivers them.
type harness struct {
	t     *testing.T
	m     *Model
	ticks []tickMsg
	quit  bool
}

func (hs *harness) send(msg tea.Msg) {
	_, cmd := hs.m.Update(msg)
	hs.run(cmd)
}

func (hs *harness) run(cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tickMsg:
			hs.ticks = append(hs.ticks, msg)
		case tea.QuitMsg:
			hs.quit = true
		default:
			_, next := hs.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// press sends keys by name: "space", "right", "left", "tab", "ctrl+c",
// "enter", "esc", "up", "down", or
// the characters of any other string, one key each.
func (hs *harness) press(keys ...string) {
	for _, k := range keys {
		switch k {
		case "space":
			hs.send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		case "right":
			hs.send(tea.KeyMsg{Type: tea.KeyRight})
		case "left":
			hs.send(tea.KeyMsg{Type: tea.KeyLeft})
		case "tab":
			hs.send(tea.KeyMsg{Type: tea.KeyTab})
		case "ctrl+c":
			hs.send(tea.KeyMsg{Type: tea.KeyCtrlC})
		case "enter":
			hs.send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			hs.send(tea.KeyMsg{Type: tea.KeyEsc})
		case "up":
			hs.send(tea.KeyMsg{Type: tea.KeyUp})
		case "down":
			hs.send(tea.KeyMsg{Type: tea.KeyDown})
		default:
			for _, r := range k {
				hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
	}
}

// deliver sends the kept ticks (and only those kept now).
func (hs *harness) deliver() {
	ticks := hs.ticks
	hs.ticks = nil
	for _, tk := range ticks {
		hs.send(tk)
	}
}

func (m *Model) events() uint64 { return m.frame.snap.Events }
func (m *Model) now() float64   { return m.frame.snap.Time }

func TestStartsPaused(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	if m.state() != statePaused || m.events() != 0 || m.now() != 0 || m.running {
		t.Errorf("start: state %v, events %d, t %g, running %v; want PAUSED at 0", m.state(), m.events(), m.now(), m.running)
	}
	if len(hs.ticks) != 0 {
		t.Errorf("start: %d ticks scheduled, want none while paused", len(hs.ticks))
	}
	if v := m.View(); !strings.Contains(v, "⏸ PAUSED") || !strings.Contains(v, "0 events") {
		t.Errorf("start view lacks the paused status:\n%s", v)
	}
}

func TestStepAndBack(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	hs.press("nnn")
	if m.events() != 3 {
		t.Fatalf("after n n n: %d events, want 3", m.events())
	}
	at3 := m.now()
	hs.press("n", "b")
	if m.events() != 3 || m.now() != at3 {
		t.Errorf("after n b: %d events at %g, want 3 at %g", m.events(), m.now(), at3)
	}
	hs.press("left", "b", "b")
	if m.events() != 0 {
		t.Errorf("after ← b b: %d events, want 0", m.events())
	}
	hs.press("b")
	if m.flash != "at the start" || m.events() != 0 {
		t.Errorf("b at the start: flash %q, %d events; want \"at the start\", 0", m.flash, m.events())
	}
	// Keys typed faster than the terminal is read come as one message.
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("nn")})
	if m.events() != 2 {
		t.Errorf("one message \"nn\": %d events, want 2", m.events())
	}
}

// TestBackIsDeterministic checks that going back lands on the state the
// forward run had: same clock, same pools, same flows.
func TestBackIsDeterministic(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	hs.run(m.enqueue(request{kind: reqStep, n: 400}))
	hs.press("b")
	d, err := newDriver(seed(t), runOpts(m), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := d.do(request{kind: reqStep, n: 399})
	if got := m.frame.snap; !sameJSON(t, got, want.snap) {
		t.Errorf("back from event 400 differs from a run to event 399")
	}
	if a, b := m.frame.log, want.log; !reflect.DeepEqual(a.Slice(0, a.Len()), b.Slice(0, b.Len())) || a.From != b.From {
		t.Errorf("back: the event log differs from a run to event 399")
	}
}

func TestSliceAndPace(t *testing.T) {
	m, hs := newModel(t, Options{Slice: 0.5, Speed: 2}, 100, 30)
	hs.press("right")
	if m.now() != 0.5 {
		t.Errorf("→ from 0 with slice 0.5: t = %g, want 0.5", m.now())
	}
	hs.press("l")
	if m.now() != 1 {
		t.Errorf("l: t = %g, want 1", m.now())
	}
	hs.press("]", "]", "[")
	if m.slice != 1 {
		t.Errorf("] ] [: slice %g, want 1", m.slice)
	}
	hs.press("L")
	if m.now() != 11 {
		t.Errorf("L (ten slices of 1): t = %g, want 11", m.now())
	}
	hs.press("+", "=", "-")
	if m.speed != 4 {
		t.Errorf("+ = -: speed %g, want 4", m.speed)
	}
	hs.press("0")
	if m.speed != 2 {
		t.Errorf("0: speed %g, want the initial 2", m.speed)
	}
	for i := 0; i < 40; i++ {
		hs.press("[")
	}
	if m.slice != minSlice {
		t.Errorf("[ ×40: slice %g, want the floor %g", m.slice, minSlice)
	}
}

// TestRunPauseOneTickLoop drives the run loop by hand: a tick runs a batch
// of speed × period simulated seconds; a tick from before a pause is
// dropped, so pause → resume never leaves two loops.
func TestRunPauseOneTickLoop(t *testing.T) {
	m, hs := newModel(t, Options{Speed: 3, TickEvery: 100 * time.Millisecond}, 100, 30)
	hs.press("space")
	if !m.running || m.state() != stateRunning || len(hs.ticks) != 1 {
		t.Fatalf("space: running %v, state %v, %d ticks; want running with one tick", m.running, m.state(), len(hs.ticks))
	}
	hs.deliver()
	if math.Abs(m.now()-0.3) > 1e-12 || len(hs.ticks) != 1 {
		t.Errorf("one tick at 3 s/s every 100 ms: t = %g with %d ticks; want 0.3 and one", m.now(), len(hs.ticks))
	}
	hs.press("space") // pause: the kept tick is stale now
	if m.running || m.state() != statePaused {
		t.Errorf("second space: running %v, state %v; want paused", m.running, m.state())
	}
	hs.press("space") // resume: a second tick, the only live one
	if len(hs.ticks) != 2 {
		t.Fatalf("resume: %d ticks kept, want the stale one and the new one", len(hs.ticks))
	}
	hs.deliver()
	if math.Abs(m.now()-0.6) > 1e-12 || len(hs.ticks) != 1 {
		t.Errorf("after resume, one round: t = %g with %d ticks; want 0.6 and one loop", m.now(), len(hs.ticks))
	}
	hs.press("n") // a step pauses
	if m.running {
		t.Errorf("n while running: still running")
	}
	hs.deliver()
	if len(hs.ticks) != 0 {
		t.Errorf("after pause: %d ticks scheduled, want none", len(hs.ticks))
	}
}

// TestTickWhileBusy checks that a tick finding the driver busy schedules
// the next tick and nothing else, and marks the run as lagging.
func TestTickWhileBusy(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	hs.press("space")
	cmd := m.enqueue(request{kind: reqStep, n: 1}) // in flight, not yet answered
	_, tickCmd := m.Update(hs.ticks[0])
	hs.ticks = nil
	if !m.skipped {
		t.Errorf("tick while busy: not marked skipped")
	}
	hs.run(tickCmd)
	if len(hs.ticks) != 1 || m.events() != 0 {
		t.Errorf("tick while busy: %d ticks, %d events; want one tick, no batch", len(hs.ticks), m.events())
	}
	hs.run(cmd)
	hs.deliver()
	if !m.lag && m.running {
		t.Errorf("the batch after a skipped tick: lag not shown")
	}
}

func TestRestart(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	hs.press("right", "right", "nn")
	hs.press("r")
	if m.events() != 0 || m.now() != 0 || m.state() != statePaused {
		t.Errorf("r: %d events at %g, %v; want a fresh paused run", m.events(), m.now(), m.state())
	}
	if v := m.View(); !strings.Contains(v, "no event yet") {
		t.Errorf("r: the log was not cleared:\n%s", v)
	}
}

func TestPanesAndFocus(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	if m.focus != paneLeases {
		t.Fatalf("focus at start = %d, want the leases pane", m.focus)
	}
	hs.press("tab", "tab")
	if m.focus != paneNIC {
		t.Errorf("tab tab: focus %d, want %d", m.focus, paneNIC)
	}
	hs.press("3")
	if m.shown[paneNIC] || m.focus != paneGauges {
		t.Errorf("3: shown %v, focus %d; want NIC hidden and the focus moved on", m.shown[paneNIC], m.focus)
	}
	if v := m.View(); strings.Contains(v, "NIC flows") || !strings.Contains(v, "▶ 4 Trends") {
		t.Errorf("3: the view still has the NIC pane or lacks the focus mark:\n%s", v)
	}
	hs.press("1", "2", "4", "5")
	if v := m.View(); !strings.Contains(v, "every pane is hidden") {
		t.Errorf("all hidden: view\n%s", v)
	}
	hs.press("5")
	if !m.shown[paneLog] || m.focus != paneLog {
		t.Errorf("5: log shown %v, focus %d; want shown and focused", m.shown[paneLog], m.focus)
	}
	hs.press("?")
	if !m.help.ShowAll || !strings.Contains(m.View(), "ten slices") {
		t.Errorf("?: the full help is not shown")
	}
	hs.press("q")
	if !hs.quit {
		t.Errorf("q did not quit")
	}
}

func TestTooSmall(t *testing.T) {
	m, hs := newModel(t, Options{}, 100, 30)
	hs.send(tea.WindowSizeMsg{Width: 50, Height: 12})
	v := m.View()
	if !strings.Contains(v, "terminal too small (need 64×20, have 50×12)") {
		t.Errorf("50×12: view\n%s", v)
	}
	if lipgloss.Height(v) != 12 || lipgloss.Width(v) != 50 {
		t.Errorf("50×12: view is %d×%d", lipgloss.Width(v), lipgloss.Height(v))
	}
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	v = m.View()
	if lipgloss.Height(v) != 40 || lipgloss.Width(v) != 120 {
		t.Errorf("120×40: view is %d×%d, want the whole screen", lipgloss.Width(v), lipgloss.Height(v))
	}
}

func TestLeasingPools(t *testing.T) {
	p := seed(t)
	var got []string
	for _, i := range leasingPools(p) {
		got = append(got, p.Pools[i].Label)
	}
	if strings.Join(got, " ") != "P.kv[0] P.kv[1]" {
		t.Errorf("leasingPools(seed) = %v, want [P.kv[0] P.kv[1]]", got)
	}
}

// TestViewGolden draws the seed example after a fixed number of events,
// when two prefillers' leases wait on NIC flows to the decoders.
func TestViewGolden(t *testing.T) {
	for _, sz := range []struct {
		name string
		w, h int
		keys string // pressed at the end: 6 shows the deployment figure
	}{
		{"80x24", 80, 24, ""},
		{"160x48", 160, 48, ""},
		{"200x60", 200, 60, ""},
		{"160x48_deploy", 160, 48, "6"},
		{"160x48_deploy_only", 160, 48, "612345"},
		{"80x24_deploy_only", 80, 24, "612345"},
		{"200x60_deploy", 200, 60, "6"},
	} {
		t.Run(sz.name, func(t *testing.T) {
			m, hs := newModel(t, Options{Warmup: 20, Speed: 15, TickEvery: time.Second / 30}, sz.w, sz.h)
			hs.press("space") // 0.5 s a tick
			for m.now() < 47.5 {
				hs.deliver()
			}
			hs.press("space")
			const events = 30119
			if m.events() > events {
				t.Fatalf("the run loop went past event %d: %d events at t=%g", events, m.events(), m.now())
			}
			hs.run(m.enqueue(request{kind: reqStep, n: events - m.events()}))
			hs.press("n", sz.keys)
			v := m.View()
			if strings.Contains(v, "\x1b") {
				t.Errorf("the view has escape sequences under the ASCII profile")
			}
			if lipgloss.Height(v) != sz.h || lipgloss.Width(v) != sz.w {
				t.Errorf("view is %d×%d, want %d×%d", lipgloss.Width(v), lipgloss.Height(v), sz.w, sz.h)
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// TestSameReportAsRun steps the seed example to its horizon through the
// TUI — single events, slices, a step back, then the run loop at a speed
// that makes batches hit their cap — and checks the report is the one
// interp.Run gives with the same seed.
func TestSameReportAsRun(t *testing.T) {
	opts := Options{Horizon: 120, Warmup: 10, Seed: 7}
	m, hs := newModel(t, opts, 100, 30)
	hs.press("nnnnn", "right", "right", "b", "nn", "]]]]", "right")
	for i := 0; i < 12; i++ {
		hs.press("+")
	}
	hs.press("space")
	for n := 0; !m.over(); n++ {
		if n > 10000 || len(hs.ticks) == 0 {
			t.Fatalf("the run loop stopped at t=%g after %d rounds", m.now(), n)
		}
		hs.deliver()
	}
	if m.state() != stateDone || m.running {
		t.Fatalf("at the end: state %v, running %v; want DONE, stopped", m.state(), m.running)
	}
	got := m.drv.dbg.Report()
	want, err := interp.Run(context.Background(), seed(t), interp.Options{Horizon: 120, Warmup: 10, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, got, want) {
		t.Errorf("the TUI's report differs from interp.Run's")
	}
}

// sameJSON compares two values by their JSON encoding.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, jb := testutil.JSON(t, a), testutil.JSON(t, b)
	if string(ja) != string(jb) {
		t.Logf("got  %.2000s\nwant %.2000s", ja, jb)
		return false
	}
	return true
}

// load loads a program from source for the state tests.
func load(t *testing.T, src string) *model.Program {
	t.Helper()
	p, err := lang.LoadSource("test.sq", []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatalf("LoadSource: %v", err)
	}
	return p
}

// TestStates checks the states other than PAUSED and RUNNING: a run that
// fails, one where two sessions wait for each other's pool with nothing
// pending, and one that reaches its horizon.
func TestStates(t *testing.T) {
	const failing = `fn main() {
  stage s : delay;
  workload { arrive poisson(1); }
  server { run s (cost(s, ~uniform(-1, 1))); }
}`
	const deadlock = `fn main() {
  pool a { cap 1; }
  pool b { cap 1; }
  stage s : delay;
  workload { arrive closed(2); init { set x = serial == 0; } }
  server {
    branch (x) { hold a (cost(a, 1)) { run s (cost(s, 1)); hold b (cost(b, 1)) { run s (cost(s, 1)); } } }
    else { hold b (cost(b, 1)) { run s (cost(s, 1)); hold a (cost(a, 1)) { run s (cost(s, 1)); } } }
  }
}`
	tests := []struct {
		name, src string
		want      state
		glyph     string
	}{
		{"error", failing, stateError, "✗ ERROR"},
		{"stalled", deadlock, stateStalled, "⚠ STALLED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(load(t, tt.src), Options{Horizon: 10, Seed: 1, Tick: handTicks})
			if err != nil {
				t.Fatal(err)
			}
			hs := &harness{t: t, m: m}
			hs.run(m.Init())
			hs.send(tea.WindowSizeMsg{Width: 100, Height: 30})
			for i := 0; i < 50 && m.state() != tt.want; i++ {
				hs.press("n")
			}
			if m.state() != tt.want {
				t.Fatalf("after stepping: state %v, want %v", m.state(), tt.want)
			}
			if v := m.View(); !strings.Contains(v, tt.glyph) {
				t.Errorf("view lacks %q:\n%s", tt.glyph, v)
			}
			if tt.want == stateError && !strings.Contains(m.View(), "✗ error: test.sq:4") {
				t.Errorf("the log does not show the error:\n%s", m.View())
			}
			hs.press("space")
			if tt.want == stateError && m.running {
				t.Errorf("space after the error: running")
			}
		})
	}
	m, hs := newModel(t, Options{Horizon: 5, Slice: 1}, 100, 30)
	hs.press("L")
	if m.state() != stateDone || m.now() != 5 {
		t.Errorf("past the horizon 5: state %v at %g, want DONE at 5", m.state(), m.now())
	}
	hs.press("space")
	if m.running || !strings.Contains(m.flash, "the run is over") {
		t.Errorf("space when done: running %v, flash %q", m.running, m.flash)
	}
}

// TestLeasesPaneStale feeds the leases pane a picture with an old lease:
// it is flagged in words, and the pane says what it waits for.
func TestLeasesPaneStale(t *testing.T) {
	p := newLeasesPane(DefaultStyles(), seed(t), 1)
	p.setSize(70, 10)
	snap := &interp.Snapshot{Pools: make([]interp.PoolSnap, len(seed(t).Pools))}
	for i, pl := range seed(t).Pools {
		snap.Pools[i] = interp.PoolSnap{Label: pl.Label, Cap: 160000}
	}
	i := leasingPools(seed(t))[0]
	snap.Pools[i].Leases = []interp.LeaseSnap{
		{Session: 17, Turn: 3, Units: 2048, Start: 1.25, Age: 2.5, Waits: "queued at D.kv[1]"},
		{Session: 18, Turn: 1, Units: 512, Start: 3.5, Age: 0.25, Waits: "on P.nic[0] + D.nic[1]"},
	}
	p.setFrame(&frameMsg{snap: snap})
	got := strings.Join(p.lines(), "\n")
	for _, want := range []string{
		"P.kv[0] ⚠ 1 stale █░░░░░░░░░ leased 2,560/160,000 · 2 leases · oldest 2.50 s",
		"⚠ STALE s17 t3 2,048 units 2.50 s since 1.2500 s → waits: queued at D.kv[1]",
		"· s18 t1 512 units 250.0 ms since 3.5000 s → waits: on P.nic[0] + D.nic[1]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("leases pane lacks %q:\n%s", want, got)
		}
	}
}
