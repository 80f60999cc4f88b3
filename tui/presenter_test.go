package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// The TUI as a front end of the debugger service: the command table and
// its completion, keys in a burst, the log's cursor, the zoom, the
// Inspect pane, breakpoints set by commands, cancelling a request, tours
// bound to their run.

// typeText types text one key at a time.
func (hs *harness) typeText(s string) {
	for _, r := range s {
		hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (hs *harness) tab() { hs.send(tea.KeyMsg{Type: tea.KeyTab}) }

// TestCompletion: Tab completes a command, a class of event, a pool as
// the panes name it, a name in an expression; several candidates are
// listed and their common prefix put in, a Tab again puts in each in turn.
func TestCompletion(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 48)
	tests := []struct{ typed, want string }{
		{"bre", "break "},
		{"break on pre", "break on preemption "},
		{"break on preemption at D.kv[", "break on preemption at D.kv["},
		{"queue P.k", "queue P.kv["},
		{"watch used(D.k", "watch used(D.kv["},
		{"watch preem", "watch preempted("},
		{"why", "why "},
		{"zoom tre", "zoom trends "},
		{"break llmd", "break llmd_nixl_pull.sq:"},
		{"iterations o", "iterations o"},
	}
	for _, tt := range tests {
		hs.press(":")
		hs.typeText(tt.typed)
		hs.tab()
		if got := m.cmd.Value(); got != tt.want {
			t.Errorf("%q tab: %q, want %q", tt.typed, got, tt.want)
		}
		hs.press("esc")
	}
	// several: listed, then a Tab each
	hs.press(":")
	hs.typeText("queue D.kv[")
	hs.tab()
	if m.comp == nil || strings.Join(m.comp.all, " ") != "D.kv[0] D.kv[1]" || !strings.Contains(m.View(), "tab: D.kv[0]  D.kv[1]") {
		t.Fatalf("queue D.kv[ tab: %+v\n%s", m.comp, m.View())
	}
	hs.tab()
	if m.cmd.Value() != "queue D.kv[0]" {
		t.Errorf("tab again: %q", m.cmd.Value())
	}
	hs.tab()
	if m.cmd.Value() != "queue D.kv[1]" {
		t.Errorf("tab a third time: %q", m.cmd.Value())
	}
	hs.press("esc")
	// the help is the table's
	hs.command(":", "help")
	if len(m.msg) != len(commands) || !strings.HasPrefix(m.msg[0], "break EXPR | t T | #N | session N | FILE:LINE | on CLASS [at POOL] … [if COND] (b): stop when") {
		t.Errorf("help: %q", m.msg)
	}
	hs.command(":", "help tbreak")
	if len(m.msg) != 1 || m.msg[0] != "tbreak as break: a temporary breakpoint: deleted when it stops the run" {
		t.Errorf("help tbreak: %q", m.msg)
	}
	hs.command(":", "brek t 3")
	if m.cmdErr == nil || m.cmdErr.hint != "did you mean `break`?" {
		t.Errorf("brek: %+v", m.cmdErr)
	}
}

// TestBurstIsText: characters that arrive at once are text, never keys:
// the command line opens with them; a burst that begins with `:` opens it
// with the rest; one key repeated is that key each time.
func TestBurstIsText(t *testing.T) {
	m, hs := newModel(t, Options{}, 120, 40)
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("break used(D.kv[0]) > 9")})
	if !m.cmdOpen || m.cmd.Value() != "break used(D.kv[0]) > 9" || m.events() != 0 || len(m.bpList()) != 0 {
		t.Fatalf("a burst: open %v with %q, %d events, %d breakpoints; want it typed in, nothing done",
			m.cmdOpen, m.cmd.Value(), m.events(), len(m.bpList()))
	}
	hs.press("enter")
	if len(m.bpList()) != 1 {
		t.Errorf("enter: %d breakpoints", len(m.bpList()))
	}
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":goto 5")})
	if !m.cmdOpen || m.cmd.Value() != "goto 5" {
		t.Fatalf("a burst with ':': open %v with %q", m.cmdOpen, m.cmd.Value())
	}
	hs.press("enter")
	if m.now() != 5 {
		t.Errorf("goto 5: t %g", m.now())
	}
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("nnn")})
	if m.cmdOpen || m.events() == 0 {
		t.Errorf("n held: open %v", m.cmdOpen)
	}
}

// TestLogCursor: in the log, ↑ moves a cursor; enter goes to the moment
// of its line, w asks why its session waits, f follows it; ↑ past the
// first line loads the span before.
func TestLogCursor(t *testing.T) {
	m, hs := newModel(t, Options{CheckpointEvery: 8192}, 160, 48)
	hs.command(":", "goto #30120")
	for i := 0; i < numPanes && m.focus != paneLog; i++ {
		hs.press("tab")
	}
	lp := m.logPane()
	hs.press("k", "k", "k", "k", "k")
	e, ok := lp.selected(m.boxes[paneLog])
	if !ok || m.boxes[paneLog].cursor != len(lp.rows)-6 {
		t.Fatalf("5 up: cursor %d of %d", m.boxes[paneLog].cursor, len(lp.rows))
	}
	if !strings.Contains(m.View(), "┃▸ ") {
		t.Errorf("the cursor is not drawn")
	}
	for e.System {
		hs.press("k")
		e, _ = lp.selected(m.boxes[paneLog])
	}
	ev, serial := e.Event, e.Session
	hs.press("w")
	if m.whyPane().serial != serial || !m.shown[paneWhy] {
		t.Errorf("w: why of %d, want %d", m.whyPane().serial, serial)
	}
	hs.press("f")
	if m.follow != serial {
		t.Errorf("f: following %d, want %d", m.follow, serial)
	}
	hs.press("enter")
	if m.events() != ev {
		t.Errorf("enter: at event %d, want the line's %d", m.events(), ev)
	}
	// the first line: ↑ loads the span before it
	from := m.frame.log.From
	if m.frame.log.Complete {
		t.Fatal("the log holds the run from its start: nothing to load")
	}
	m.boxes[paneLog].cursor = 0
	hs.press("k")
	if m.frame.log.From >= from {
		t.Errorf("↑ on the first line: the log from #%d, before #%d", m.frame.log.From, from)
	}
}

// TestZoom: z shows the focused pane alone, at the whole screen's size;
// z again, every pane.
func TestZoom(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 48)
	hs.press("tab", "z")
	if m.zoom != paneKV || len(m.rows) != 1 || m.rects[paneKV].w != 160 || strings.Contains(m.View(), "1 Leases") {
		t.Fatalf("z: zoom %d, rows %v, %v", m.zoom, m.rows, m.rects[paneKV])
	}
	hs.press("tab")
	if m.zoom != paneNIC || m.rows[0][0] != paneNIC {
		t.Errorf("tab while zoomed: zoom %d, rows %v", m.zoom, m.rows)
	}
	hs.press("z")
	if m.zoom != -1 || len(m.rows) < 3 {
		t.Errorf("z again: zoom %d, rows %v", m.zoom, m.rows)
	}
	hs.command(":", "zoom log")
	if m.zoom != paneLog || m.focus != paneLog {
		t.Errorf(":zoom log: zoom %d focus %d", m.zoom, m.focus)
	}
}

// TestInspectPane: :queue shows a pool's queue head first, :batch an
// engine's iteration, :pending the next events.
func TestInspectPane(t *testing.T) {
	m, err := New(jammed(t), Options{Horizon: 100, Seed: 1, Tick: handTicks, Title: "jammed"})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: m}
	hs.run(m.Init())
	hs.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	hs.command(":", "goto 58.9")
	hs.command(":", "queue D.kv[0]")
	ip := m.inspectPane()
	lines := ip.lines()
	if !m.shown[paneInspect] || ip.title() != "Inspect · queue of D.kv[0] · 3 wait" || len(lines) != 3 ||
		!strings.HasPrefix(lines[0], "  1 session 24 turn 2 asks 2,496 units") || !strings.Contains(lines[1], "session 35 turn 1") {
		t.Errorf("queue D.kv[0]: %q\n%s", ip.title(), strings.Join(lines, "\n"))
	}
	hs.command(":", "batch P[0]")
	lines = ip.lines()
	if ip.title() != "Inspect · batch of P[0]" || !strings.HasPrefix(lines[0], "P[0]: iteration ") {
		t.Errorf("batch P[0]: %q\n%s", ip.title(), strings.Join(lines, "\n"))
	}
	hs.command(":", "pending")
	lines = ip.lines()
	evs, n := m.drv.dbg.Pending(0)
	if ip.title() != fmt.Sprintf("Inspect · pending events · %s", plural(n, "event", "events")) || len(lines) != len(evs) ||
		lines[0] != pendingWords(evs[0], m.now()) {
		t.Errorf("pending: %q\n%s", ip.title(), strings.Join(lines, "\n"))
	}
}

// TestBreakCommands: a temporary breakpoint on a class of event stops the
// run once; a condition, disable and enable, ignore; list counts hits.
func TestBreakCommands(t *testing.T) {
	m, hs := newModel(t, Options{Horizon: 200}, 160, 48)
	s, tr := straight(t, m)
	for s.Step() {
	}
	var arrivals []uint64
	for _, e := range *tr {
		if e.Kind == interp.EvArrived {
			arrivals = append(arrivals, e.Event)
		}
	}
	hs.command(":", "tbreak on arrival")
	hs.runToStop()
	if m.events() != arrivals[0] || len(m.bpList()) != 0 || len(m.msg) != 1 ||
		!strings.HasPrefix(m.msg[0], "⏹ break 1: on arrival: session 0 turn 0: arrived at event #") {
		t.Fatalf("tbreak on arrival: at %d (%d set), %q", m.events(), len(m.bpList()), m.msg)
	}
	hs.command(":", "break on arrival")
	hs.command(":", "ignore 2 2")
	hs.runToStop()
	if m.events() != arrivals[3] {
		t.Errorf("ignore 2: at %d, want %d", m.events(), arrivals[3])
	}
	hs.command(":", "disable 2")
	hs.command(":", "break t 100")
	hs.runToStop()
	if m.now() < 100 {
		t.Errorf("disabled: stopped at t %g", m.now())
	}
	hs.command(":", "delete 3")
	hs.command(":", "enable 2")
	hs.command(":", "condition 2 now > 150")
	hs.runToStop()
	if m.now() <= 150 {
		t.Errorf("condition now > 150: stopped at t %g", m.now())
	}
	hs.command(":", "list")
	if len(m.msg) != 1 || !strings.HasPrefix(m.msg[0], "2 break on arrival if now > 150 · ") || !strings.HasSuffix(m.msg[0], " hits") {
		t.Errorf("list: %q", m.msg)
	}
	hs.command(":", "break llmd_nixl_pull.sq:145")
	hs.runToStop()
	if len(m.msg) != 1 || !strings.Contains(m.msg[0], "reached llmd_nixl_pull.sq:145 at event") {
		t.Errorf("break FILE:LINE: %q", m.msg)
	}
}

// TestCancel: esc while a request runs asks the service to cancel it:
// the seek stops where it is and says so; meanwhile the status bar shows
// its progress.
func TestCancel(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 48)
	r := request{kind: reqSeekTime, dt: 2000, view: viewReq{why: noSession, follow: noSession, stale: 1}}
	m.busy, m.inflight, m.busySince = true, r.kind, time.Now().Add(-time.Second)
	done := make(chan tea.Msg)
	go func() { done <- m.drv.cmd(r)() }()
	for {
		if p := m.drv.dbg.Progress(); p != nil && p.Events > 10000 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if status := m.statusView(); !strings.Contains(status, "⟲ seek ") || !strings.Contains(status, "esc cancels") {
		t.Errorf("the status bar during a seek: %q", status)
	}
	hs.press("esc")
	f := (<-done).(frameMsg)
	hs.send(f)
	if f.stop.Reason != debugger.Cancelled || m.now() >= 2000 || !strings.HasPrefix(m.flash, "seek cancelled at t ") {
		t.Errorf("esc: %+v at t %g, flash %q", f.stop, m.now(), m.flash)
	}
}

// TestTourBound: a tour names its run; against another run it is refused
// at its `run:`, with the flags that make its run; against another version
// of the program it plays with a warning; a tour that names none warns.
func TestTourBound(t *testing.T) {
	p := pressure(t)
	tour, err := LoadTour(tourPath, p, 2000)
	if err != nil {
		t.Fatal(err)
	}
	src, err := lang.SQKind.Read(seedPath)
	if err != nil {
		t.Fatal(err)
	}
	run := RunID{Program: "llmd_nixl_pull.sq", Hash: ProgramHash(src), Instances: []string{pressurePath}, Args: ArgsOf(p),
		Seed: 1, Warmup: 200, Horizon: 2000}
	if err := tour.Check(run, p); err != nil || tour.Warning != "" {
		t.Fatalf("the shipped tour on its run: %v, warning %q", err, tour.Warning)
	}
	seedP := seed(t)
	other := RunID{Program: "llmd_nixl_pull.sq", Hash: ProgramHash(src), Args: ArgsOf(seedP), Seed: 1, Warmup: 200, Horizon: 2000}
	err = tour.Check(other, seedP)
	want := "../examples/pd-disaggregation/tours/coupling.yaml:13:1: the tour was made on instance examples/pd-disaggregation/instances/llmd_nixl_pull/pressure.sq: " +
		"blocksD 1200 (this run: 10000), Lambda 1.2 (this run: 0.6)"
	var le *lang.Error
	if err == nil || err.Error() != want || !asLangError(err, &le) ||
		le.Hint != "play it on the run it names: --instance examples/pd-disaggregation/instances/llmd_nixl_pull/pressure.sq --seed 1 --warmup 200 --horizon 2000" {
		t.Errorf("on the seed without the instance: %v (%+v)\nwant %s", err, le, want)
	}
	err = tour.Check(RunID{Program: "mg1.sq", Seed: 1}, p)
	if err == nil || !strings.Contains(err.Error(), "the tour was made on llmd_nixl_pull.sq; this run is of mg1.sq") {
		t.Errorf("on another program: %v", err)
	}
	short := run
	short.Horizon = 500
	if err := tour.Check(short, p); err != nil || tour.Warning != "the tour was made on a run to horizon 2000 (this run: 500): add --horizon 2000" {
		t.Errorf("another horizon: %v, warning %q", err, tour.Warning)
	}
	tour.Warning = ""
	run.Hash = "sha256:00"
	if err := tour.Check(run, p); err != nil || !strings.HasPrefix(tour.Warning, "the tour was made on another version of llmd_nixl_pull.sq") {
		t.Errorf("another version: %v, warning %q", err, tour.Warning)
	}
	bare, err := ParseTour("t.yaml", []byte("stops:\n  - at: 1\n"), p, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if err := bare.Check(run, p); err != nil || !strings.HasPrefix(bare.Warning, "this tour names no run") {
		t.Errorf("a tour with no run: %v, warning %q", err, bare.Warning)
	}
	// The warning is under the panes, wrapped: whole at 80 columns.
	m, _ := newProgModel(t, p, Options{Horizon: 2000, Tour: bare}, 80, 24)
	var shown []string
	for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		if strings.HasPrefix(l, "⚠") || len(shown) > 0 && strings.HasPrefix(l, "    ") {
			shown = append(shown, strings.TrimSpace(l))
		}
	}
	if got := strings.Join(shown, " "); got != "⚠ "+bare.Warning || len(shown) < 2 {
		t.Errorf("the warning is shown as %q, want %q on more than one line", got, "⚠ "+bare.Warning)
	}
}

func asLangError(err error, le **lang.Error) bool {
	if l, ok := err.(lang.ErrorList); ok && len(l) == 1 {
		*le = l[0]
		return true
	}
	return false
}

// TestTourOrderTrendsSpeed: stops out of order are refused; a stop picks
// the Trends rows and their order; going back (<) from a stop run to
// fast leaves the pace of the stop it lands on.
func TestTourOrderTrendsSpeed(t *testing.T) {
	p := pressure(t)
	_, err := ParseTour("t.yaml", []byte("stops:\n  - at: 20\n  - event: 5\n  - at: 10\n"), p, 2000)
	if err == nil || err.Error() != "t.yaml:4:5: stop 3 (at 10) is before stop 1 (at 20): stops are in the run's order" {
		t.Errorf("out of order: %v", err)
	}
	_, err = ParseTour("t.yaml", []byte("stops:\n  - at: 1\n    trends: [\"D[0] wait\"]\n"), p, 2000)
	if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:3:14: no Trends row `D[0] wait`") {
		t.Errorf("an unknown row: %v", err)
	}
	tour, err := LoadTour(tourPath, p, 2000)
	if err != nil {
		t.Fatal(err)
	}
	m, hs := newProgModel(t, p, Options{Horizon: 2000, Warmup: 200, Tour: tour, Title: "llmd_nixl_pull.sq"}, 160, 48)
	for i := 0; i < 6; i++ {
		hs.press(">")
		if m.tour.going >= 0 {
			hs.press(">") // jump there
		}
		hs.settle()
	}
	if m.tour.at != 5 {
		t.Fatalf("at stop %d, want 6", m.tour.at+1)
	}
	gp := m.panes[paneGauges].(*gaugesPane)
	var rows []string
	for _, r := range gp.visible() {
		rows = append(rows, r.name)
	}
	if strings.Join(rows, ", ") != "D[0] waiting, D[1] waiting, P.kv[0] leased, P.kv[0] oldest" {
		t.Errorf("stop 6's trends: %v", rows)
	}
	for m.tour.at < 7 {
		hs.press(">")
		if m.tour.going >= 0 {
			hs.press(">")
		}
		hs.settle()
	}
	if m.tour.at != 7 || m.speed != 64 {
		t.Fatalf("stop 8: at %d, speed %g", m.tour.at, m.speed)
	}
	hs.press("<")
	if m.tour.at != 6 || m.speed != 1 {
		t.Errorf("< from stop 8: at %d, speed %g; want stop 7 at the session's pace", m.tour.at, m.speed)
	}
}

// TestTrendsCommand: :trends picks the rows and their order; all, every
// one.
func TestTrendsCommand(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 48)
	hs.command(":", "trends D[1] waiting, P.kv[0] leased")
	gp := m.panes[paneGauges].(*gaugesPane)
	if v := gp.visible(); len(v) != 2 || v[0].name != "D[1] waiting" || v[1].name != "P.kv[0] leased" {
		t.Errorf(":trends: %v", gp.order)
	}
	hs.command(":", "trends all")
	if len(gp.visible()) != len(gp.rows) {
		t.Errorf(":trends all: %d rows of %d", len(gp.visible()), len(gp.rows))
	}
}

// TestQueryNamesInTUI: what the panes name, an expression takes: a pool
// as labelled, a gauge of the program, the counts the panes show.
func TestQueryNamesInTUI(t *testing.T) {
	p, err := lang.Load(seedPath, lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	m, hs := newProgModel(t, p, Options{Horizon: 100}, 160, 48)
	for _, e := range []string{"used(D.kv[0])", p.Gauges[1].Name, "preempted(D.kv[0])", "waiting(P[0])", "parked(D.kv[1])", "ttft"} {
		hs.command(":", "display "+e)
		if m.cmdErr != nil {
			t.Errorf("display %s: %s", e, m.cmdErr.msg)
			hs.press("esc")
		}
	}
	hs.command(":", "goto 50")
	if strip := m.watchStrip(); !strings.Contains(strip, "1 display used(D.kv[0]) = ") || !strings.Contains(strip, "6 display ttft = 0.") {
		t.Errorf("the strip: %s", strip)
	}
}
