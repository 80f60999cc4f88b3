package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// command types a command line and enters it.
func (hs *harness) command(kind, line string) {
	hs.press(kind)
	if line != "" {
		hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(line)})
	}
	hs.send(tea.KeyMsg{Type: tea.KeyEnter})
}

// runToStop runs the model's loop until it pauses.
func (hs *harness) runToStop() {
	hs.t.Helper()
	hs.press("space")
	for n := 0; hs.m.running; n++ {
		if n > 100000 || len(hs.ticks) == 0 {
			hs.t.Fatalf("the run loop stopped at t=%g without pausing", hs.m.now())
		}
		hs.deliver()
	}
}

// runOpts are the run's options of a model.
func runOpts(m *Model) interp.Options {
	return interp.Options{Horizon: m.opts.Horizon, Warmup: m.opts.Warmup, Seed: m.opts.Seed, Arrivals: m.opts.Arrivals}
}

// straight is a fresh run of the seed with the model's options, and the
// events it traced.
func straight(t *testing.T, m *Model) (*interp.Sim, *[]interp.TraceEvent) {
	t.Helper()
	s, err := interp.New(m.prog, runOpts(m))
	if err != nil {
		t.Fatal(err)
	}
	var log []interp.TraceEvent
	s.SetTracer(func(e interp.TraceEvent) { log = append(log, e) })
	return s, &log
}

func stepTo(s *interp.Sim, n uint64) {
	for s.Events() < n && s.Step() {
	}
}

// TestSeekEqualsStraightRun seeks forward and back across checkpoints, by
// event and by time, and steps back: each time the run's whole state is
// the state a straight run reaches at the same event, and so is the log.
func TestSeekEqualsStraightRun(t *testing.T) {
	m, hs := newModel(t, Options{CheckpointEvery: 4096}, 100, 30)
	check := func(what string, want *interp.Sim, log []interp.TraceEvent) {
		t.Helper()
		if m.frame.snap.Events != want.Events() || !sameJSON(t, m.frame.snap, want.Snapshot()) {
			t.Errorf("%s: the frame is at event %d, a straight run at %d, or its picture differs", what, m.frame.snap.Events, want.Events())
		}
		l := m.frame.log
		var w []interp.TraceEvent
		for _, e := range log {
			if l.Complete || e.Event > l.From {
				w = append(w, e)
			}
		}
		if got := l.Slice(0, l.Len()); len(got)+len(w) > 0 && !reflect.DeepEqual(got, w) {
			t.Errorf("%s: the log has %d events from #%d, a straight run traced %d there", what, len(got), l.From, len(w))
		}
	}
	for _, n := range []uint64{30000, 9000, 20001, 4096, 0, 12345} {
		hs.command(":", fmt.Sprintf("goto #%d", n))
		want, log := straight(t, m)
		stepTo(want, n)
		check(fmt.Sprintf("goto #%d", n), want, *log)
	}
	r := m.drv.dbg.Replayed()
	hs.press("b")
	want, log := straight(t, m)
	stepTo(want, 12344)
	check("goto #12345, b", want, *log)
	if m.drv.dbg.Replayed()-r > 4096 {
		t.Errorf("b replayed %d events, more than the checkpoint spacing 4096", m.drv.dbg.Replayed()-r)
	}
	for _, at := range []float64{40, 12.5, 12.5, 0} {
		hs.command(":", fmt.Sprintf("goto %g", at))
		want, log := straight(t, m)
		want.RunUntil(at)
		check(fmt.Sprintf("goto %g", at), want, *log)
		if m.now() != at {
			t.Errorf("goto %g: t = %g", at, m.now())
		}
	}
	// g opens the command line with goto typed.
	hs.press("g")
	if !m.cmdOpen || m.cmd.Value() != "goto " {
		t.Errorf("g: command line open %v with %q; want open with \"goto \"", m.cmdOpen, m.cmd.Value())
	}
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("#77")})
	hs.send(tea.KeyMsg{Type: tea.KeyEnter})
	if m.events() != 77 || m.cmdOpen {
		t.Errorf("g #77 enter: %d events, command line open %v; want 77, closed", m.events(), m.cmdOpen)
	}
}

// firstTrue is the first event after which src becomes true, stepping s on.
func firstTrue(t *testing.T, s *interp.Sim, src string) uint64 {
	t.Helper()
	e, err := lang.CompileQuery(seed(t), src)
	if err != nil {
		t.Fatal(err)
	}
	prev := s.Query(e) != 0
	for s.Step() {
		v := s.Query(e) != 0
		if v && !prev {
			return s.Events()
		}
		prev = v
	}
	t.Fatalf("%s never becomes true", src)
	return 0
}

// TestBreakExpr sets a breakpoint on an expression: the run stops at the
// first event after which it becomes true, again at the next, and B goes
// back to the first.
func TestBreakExpr(t *testing.T) {
	m, hs := newModel(t, Options{Speed: 100}, 120, 40)
	const src = "used(D[0].kv) > 12000"
	hs.command(":", "break "+src)
	if bps := m.bpList(); len(bps) != 1 || bpWords(bps[0]) != "1 break "+src {
		t.Fatalf("break: breakpoints %v", bps)
	}
	if v := m.View(); !strings.Contains(v, "◆ 1 break "+src) {
		t.Errorf("the view lacks the breakpoint strip:\n%s", v)
	}
	s, _ := straight(t, m)
	e1 := firstTrue(t, s, src)
	t1 := s.Now()
	e2 := firstTrue(t, s, src)
	hs.runToStop()
	if m.events() != e1 {
		t.Fatalf("the run stopped at event %d, want %d", m.events(), e1)
	}
	if want := fmt.Sprintf("⏹ break 1: %s became true at event #%s, t %.4f s", src, fmtCount(float64(e1)), t1); len(m.msg) != 1 || m.msg[0] != want {
		t.Errorf("message %q, want %q", m.msg, want)
	}
	hs.runToStop()
	if m.events() != e2 {
		t.Fatalf("continued: stopped at event %d, want %d", m.events(), e2)
	}
	hs.press("B")
	if m.events() != e1 {
		t.Errorf("B from event %d: at %d, want %d", e2, m.events(), e1)
	}
	hs.press("B")
	if m.events() != e1 || m.flash != "no earlier event where a breakpoint hit" {
		t.Errorf("B from the first: at %d, flash %q", m.events(), m.flash)
	}
	hs.command(":", "delete 1")
	if len(m.bpList()) != 0 {
		t.Errorf("delete 1: %v left", m.bpList())
	}
	hs.press("B")
	if m.flash != "no breakpoint to go back to: :break EXPR sets one" {
		t.Errorf("B without breakpoints: flash %q", m.flash)
	}
}

// TestBreakTimeAndSession: `break t T` stops at the first event at or after
// T, `break session N` at each event of session N (also across a step).
func TestBreakTimeAndSession(t *testing.T) {
	m, hs := newModel(t, Options{Speed: 100}, 120, 40)
	hs.command(":", "break t 30")
	s, _ := straight(t, m)
	for s.NextTime() < 30 {
		s.Step()
	}
	s.Step()
	hs.runToStop()
	if m.events() != s.Events() || m.now() != s.Now() {
		t.Fatalf("break t 30: stopped at event %d t %g, want %d t %g", m.events(), m.now(), s.Events(), s.Now())
	}
	if want := fmt.Sprintf("⏹ break 1: t 30 at event #%s, t %.4f s", fmtCount(float64(s.Events())), s.Now()); len(m.msg) != 1 || m.msg[0] != want {
		t.Errorf("message %q, want %q", m.msg, want)
	}
	hs.command(":", "delete 1")
	hs.command(":", "break session 40")
	var hits []uint64
	s.SetTracer(func(e interp.TraceEvent) {
		if e.Session == 40 && (len(hits) == 0 || hits[len(hits)-1] != e.Event) {
			hits = append(hits, e.Event)
		}
	})
	for len(hits) < 2 && s.Step() {
	}
	hs.runToStop()
	if len(hits) < 2 || m.events() != hits[0] {
		t.Fatalf("break session 40: stopped at event %d, want %v", m.events(), hits)
	}
	hs.runToStop()
	if m.events() != hits[1] {
		t.Errorf("break session 40, continued: at event %d, want %d", m.events(), hits[1])
	}
	hs.press("B")
	if m.events() != hits[0] {
		t.Errorf("B: at event %d, want %d", m.events(), hits[0])
	}
	if got := bpWords(m.bpList()[0]); got != "2 break session 40" {
		t.Errorf("the breakpoint is %q", got)
	}
}

// TestWatch: a display shows an expression's value live and never stops
// the run; a watch stops it when its value changes.
func TestWatch(t *testing.T) {
	m, hs := newModel(t, Options{Horizon: 60, Speed: 100}, 120, 40)
	hs.command(":", "display queued(D[0].kv) + 1")
	hs.command(":", "display now")
	hs.command(":", "goto 10")
	if v := m.View(); !strings.Contains(v, "◆ 1 display queued(D[0].kv) + 1 = 1 │ 2 display now = 10") {
		t.Errorf("the display strip is wrong:\n%s", v)
	}
	hs.command(":", "list")
	if !reflect.DeepEqual(m.msg, []string{"1 display queued(D[0].kv) + 1", "2 display now"}) {
		t.Errorf("list: %q", m.msg)
	}
	hs.press("n")
	if m.msg != nil {
		t.Errorf("the list stays after a key: %q", m.msg)
	}
	// Displays never stop the run.
	hs.runToStop()
	if m.state() != stateDone {
		t.Errorf("with displays only, the run stopped at t %g", m.now())
	}
	// A watch stops it where its value changes.
	hs.press("r")
	hs.command(":", "delete all")
	hs.command(":", "watch queued(D[0].kv) + queued(D[1].kv)")
	s, _ := straight(t, m)
	e, _ := lang.CompileQuery(m.prog, "queued(D[0].kv) + queued(D[1].kv)")
	prev := s.Query(e)
	for s.Step() && s.Query(e) == prev {
	}
	hs.runToStop()
	want := fmt.Sprintf("⏹ watch 3: queued(D[0].kv) + queued(D[1].kv) changed %s → %s at event #%s, t %.4f s",
		fmtValue(prev), fmtValue(s.Query(e)), fmtCount(float64(s.Events())), s.Now())
	if m.events() != s.Events() || len(m.msg) != 1 || m.msg[0] != want {
		t.Errorf("watch: at %d, %q; want %d, %q", m.events(), m.msg, s.Events(), want)
	}
}

// TestCommandErrors: every bad command shows a message with a caret at its
// column, keeps the command line open with the text, and changes nothing.
func TestCommandErrors(t *testing.T) {
	tests := []struct {
		kind, line string
		col        int
		msg        string
	}{
		{":", "", 0, "empty command"},
		{":", "   ", 0, "empty command"},
		{":", "frob 1", 0, "unknown command `frob`"},
		{":", "break", 5, "`break` needs what to stop at: EXPR | t T | #N | session N | FILE:LINE | on CLASS [at POOL] … [if COND]"},
		{":", "break nosuch(D[0].kv) > 1", 6, "undefined function `nosuch`"},
		{":", "break used(D[9].kv) > 1", 13, "index 9 of `D` is out of range: it has 2 members"},
		{":", "break used(D[0].kv) >", 21, "unexpected end of file"},
		{":", "break ~exp(1) > 1", 6, "a draw `~exp` in a debugger expression: a debugger expression watches the run, it does not draw"},
		{":", "watch serial > 3", 6, "`serial` is an attribute: a debugger expression may not read it"},
		{":", "watch nosuch + 1", 6, "undefined: nosuch"},
		{":", "break t 3000", 8, "3000 is past the horizon 2,000"},
		{":", "break t -1", 8, "-1 is before the start (t 0)"},
		{":", "break session x", 14, "`x` is not a session number (35 or s35)"},
		{":", "goto 2000.5", 5, "2000.5 is past the horizon 2,000"},
		{":", "goto -3", 5, "-3 is before the start (t 0)"},
		{":", "goto #-3", 6, "`#-3` is not an event number: #N, N ≥ 0"},
		{":", "goto nan", 5, "`nan` is not a time in seconds"},
		{":", "goto", 4, "`goto` needs a time T or an event #N"},
		{":", "goto 1 2", 7, "`goto` takes one time or #event"},
		{":", "delete 4", 7, "no breakpoint, watch or display 4 (list shows them)"},
		{":", "break on preempt", 9, "`preempt` is no class of event"},
		{":", "break on preemption at D.kv[9]", 23, "`D.kv[9]` is no pool, stage or member of the program"},
		{":", "break llmd_nixl_pull.sq:3", 6, "no statement begins at llmd_nixl_pull.sq:3"},
		{":", "break used(D.kv[0]) > 1 if nosuch", 27, "undefined: nosuch"},
		{":", "watch used(D.kv[9])", 16, "index 9 of `D` is out of range: it has 2 members"},
		{":", "condition 9 now > 1", 10, "no breakpoint, watch or display 9 (list shows them)"},
		{":", "ignore 1", 8, "`ignore` takes a breakpoint's number and a count: ignore 2 5"},
		{":", "queue D.kv[7]", 6, "no pool `D.kv[7]`"},
		{":", "batch P.kv[0]", 6, "no engine `P.kv[0]`"},
		{":", "trends D.kv[0] use", 7, "no Trends row `D.kv[0] use`"},
		{":", "zoom panes", 5, "unknown pane `panes`"},
		{":", "help frob", 5, "unknown command `frob`"},
		{":", "follow abc", 7, "`abc` is not a session number (35 or s35)"},
		{":", "stale 0", 6, "`0` is not a positive time in seconds"},
		{":", "list x", 5, "`list` takes nothing"},
		{":", "unfollow 3", 9, "`unfollow` takes nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			m, hs := newModel(t, Options{}, 120, 40)
			hs.press("nnn")
			before := m.frame
			hs.command(tt.kind, tt.line)
			if m.cmdErr == nil {
				t.Fatalf("no error")
			}
			if m.cmdErr.col != tt.col || m.cmdErr.msg != tt.msg {
				t.Errorf("error at %d %q, want at %d %q", m.cmdErr.col, m.cmdErr.msg, tt.col, tt.msg)
			}
			if !m.cmdOpen || m.cmd.Value() != tt.line {
				t.Errorf("command line open %v with %q, want open with the line", m.cmdOpen, m.cmd.Value())
			}
			if m.frame != before || len(m.drv.dbg.Breakpoints()) != 0 || m.follow != noSession || m.stale != 1 || m.busy {
				t.Errorf("the error changed the state")
			}
			caret := strings.Repeat(" ", 1+tt.col) + "^ " + tt.msg
			if v := m.View(); !strings.Contains(v, "\n"+caret) {
				t.Errorf("the view lacks the caret line %q:\n%s", caret, v)
			}
			// Typing clears the error; esc closes the line.
			hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
			if m.cmdErr != nil {
				t.Errorf("typing kept the error")
			}
			hs.send(tea.KeyMsg{Type: tea.KeyEsc})
			if m.cmdOpen {
				t.Errorf("esc: the command line is open")
			}
		})
	}
}

// TestCommandHistory: ↑/↓ walk the commands entered, failed ones too.
// TestPaneHint: an unknown pane's hint is the nearest pane when there is
// one, whole at 80 columns (the panes' list would cut it), else the list.
func TestPaneHint(t *testing.T) {
	tests := []struct{ line, hint string }{
		{"zoom trnds", "did you mean `trends`?"},
		{"zoom gauge", "did you mean `trends`?"},
		{"zoom xyzzy", "panes: leases, kv, nic, trends, log, deploy, why, session, report, inspect"},
	}
	for _, tt := range tests {
		m, hs := newModel(t, Options{}, 80, 24)
		hs.command(":", tt.line)
		if m.cmdErr == nil || m.cmdErr.hint != tt.hint {
			t.Fatalf("%s: error %+v, want the hint %q", tt.line, m.cmdErr, tt.hint)
		}
		// lang.WriteErrorUnder's hint line, under the caret at column 5.
		line := "\n" + strings.Repeat(" ", 1+5) + "  hint: " + tt.hint
		if tt.hint[0] == 'd' && !strings.Contains(m.View(), line) {
			t.Errorf("%s: the 80-column view lacks %q:\n%s", tt.line, line, m.View())
		}
	}
}

func TestCommandHistory(t *testing.T) {
	m, hs := newModel(t, Options{}, 120, 40)
	hs.command(":", "goto 1")
	hs.command(":", "frob")
	hs.send(tea.KeyMsg{Type: tea.KeyEsc})
	hs.press(":")
	for _, want := range []string{"frob", "goto 1", "goto 1"} {
		hs.send(tea.KeyMsg{Type: tea.KeyUp})
		if m.cmd.Value() != want {
			t.Errorf("↑: %q, want %q", m.cmd.Value(), want)
		}
	}
	hs.send(tea.KeyMsg{Type: tea.KeyDown})
	hs.send(tea.KeyMsg{Type: tea.KeyDown})
	if m.cmd.Value() != "" {
		t.Errorf("↓ past the newest: %q, want empty", m.cmd.Value())
	}
}

// FuzzCommand: no command line panics, and one that fails changes nothing.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"", "break used(D[0].kv) > 1", "break t 5", "break session 3", "watch now", "list",
		"delete 1", "goto 5", "goto #100", "follow 3", "unfollow", "why 2", "stale 0.5", "break ((", "goto #",
		"break max k in ND (used(D[k].kv))", "break leases(P[0].kv) > 0", "break oldest_lease(P[0].kv) > 1",
		"watch 1/0", "break \x00", "goto 1e309", "break t NaN", "delete -1"} {
		f.Add(s)
	}
	p, err := lang.Load(seedPath, lang.Options{Lib: lib.FS})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := New(p, Options{Horizon: 100, Seed: 1, Tick: handTicks})
		if err != nil {
			t.Fatal(err)
		}
		type state struct {
			breaks      int
			follow, why uint64
			stale       float64
			queue       int
			busy        bool
			flash, fltr string
		}
		get := func() state {
			return state{len(m.drv.dbg.Breakpoints()), m.follow, m.whyPane().serial, m.stale, len(m.queue), m.busy, m.flash, m.logPane().filter}
		}
		before := get()
		if _, cerr := m.command(line); cerr != nil {
			if after := get(); after != before {
				t.Errorf("%q failed (%s) and changed the state: %+v → %+v", line, cerr.msg, before, after)
			}
			if cerr.col < 0 || cerr.col > len([]rune(line)) {
				t.Errorf("%q: caret column %d outside the line", line, cerr.col)
			}
		}
	})
}

// TestFollowAndFilter follows a session with a lease and filters the log.
func TestFollowAndFilter(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 60)
	hs.command(":", "goto #30120")
	// The leases pane has the focus: ↓ selects the first lease.
	hs.press("j")
	sel := m.leasesPane().selected()
	if sel == noSession {
		t.Fatalf("j in the leases pane selected nothing:\n%s", m.View())
	}
	lease := m.frame.snap.Pools[leasingPools(seed(t))[0]].Leases[0]
	if sel != lease.Session {
		t.Errorf("selected s%d, want the first lease's s%d", sel, lease.Session)
	}
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("▸ · s%d t%d", sel, lease.Turn)) && !strings.Contains(v, fmt.Sprintf("▸ ⇄ moving s%d t%d", sel, lease.Turn)) {
		t.Errorf("the selection is not marked:\n%s", v)
	}
	hs.press("f")
	if m.follow != sel || !m.shown[paneSession] {
		t.Fatalf("f: following %d, session pane shown %v", m.follow, m.shown[paneSession])
	}
	sp := strings.Join(m.sessionPane().lines(), "\n")
	for _, want := range []string{fmt.Sprintf("now turn %d · waits: %s", lease.Turn, lease.Waits), "  at llmd_nixl_pull.sq:", "story"} {
		if !strings.Contains(sp, want) {
			t.Errorf("the session pane lacks %q:\n%s", want, sp)
		}
	}
	var story int
	for i := 0; i < m.frame.log.Len(); i++ {
		if e := m.frame.log.At(i); e.Session == sel {
			story++
			es := []*interp.TraceEvent{e}
			for i+1 < m.frame.log.Len() && interp.SameAdmission(e, m.frame.log.At(i+1)) {
				i++
				es = append(es, m.frame.log.At(i))
			}
			if !strings.Contains(sp, "  "+storyText(es)) {
				t.Errorf("the story lacks %q", storyText(es))
			}
		}
	}
	if story == 0 {
		t.Errorf("no event of s%d in the log", sel)
	}
	lp := m.logPane()
	lines := lp.window(0, lp.count())
	marked, rows := 0, 0
	for i, l := range lines {
		if e := lp.event(i); e != nil && !e.System && e.Session == sel {
			rows++
		}
		if strings.HasPrefix(l, "● ") {
			marked++
			if !strings.Contains(l, fmt.Sprintf("session %d ", sel)) {
				t.Errorf("a marked log line is of another session: %q", l)
			}
		}
	}
	if marked != rows || rows == 0 || rows > story {
		t.Errorf("%d log lines marked, want the %d of its %d events", marked, rows, story)
	}
	// Filter by session, then by text, then clear.
	hs.command("/", fmt.Sprintf("s%d", sel))
	if !strings.HasSuffix(lp.title(), fmt.Sprintf(" · / s%d · %s", sel, plural(rows, "match", "matches"))) {
		t.Errorf("filtered title %q", lp.title())
	}
	for _, l := range lp.window(0, rows) {
		if !strings.Contains(l, fmt.Sprintf("session %d ", sel)) {
			t.Errorf("filter s%d shows %q", sel, l)
		}
	}
	hs.press("/")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlU}) // the line opens with the filter in force
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("D.kv[1]")})
	hs.press("enter")
	if len(lp.rows) == 0 {
		t.Errorf("no event at D.kv[1]")
	}
	for _, l := range lp.window(0, len(lp.rows)) {
		if !strings.Contains(l, "D.kv[1]") {
			t.Errorf("filter D.kv[1] shows %q", l)
		}
	}
	// the filter is a text search: a kind's words find its lines
	hs.press("/")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("LEASE ON")})
	hs.press("enter")
	if len(lp.rows) == 0 {
		t.Errorf("/LEASE ON finds nothing")
	}
	for i := range lp.rows {
		if e := lp.event(i); e.Kind != interp.EvLeaseEnded && e.Kind != interp.EvLeaseExpired {
			t.Errorf("/LEASE ON shows %s", e)
		}
	}
	for i := 0; i < numPanes && m.focus != paneLog; i++ {
		hs.press("tab")
	}
	if m.focus != paneLog {
		t.Fatalf("focus %d, want the log", m.focus)
	}
	n := len(lp.rows)
	hs.press("k", "k", "k")
	if b := m.boxes[paneLog]; b.cursor != n-4 {
		t.Errorf("k k k: the log's cursor on line %d, want %d", b.cursor, n-4)
	}
	hs.press("G")
	if b := m.boxes[paneLog]; b.off != 0 || b.cursor != -1 {
		t.Errorf("G: log offset %d, cursor %d, want the tail", b.off, b.cursor)
	}
	hs.press("/")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	hs.press("enter")
	if lp.filter != "" || strings.Contains(lp.title(), "/") {
		t.Errorf("an empty filter did not clear: %q", lp.title())
	}
	hs.command(":", "unfollow")
	if m.follow != noSession || strings.Contains(strings.Join(lp.window(0, lp.count()), "\n"), "●") {
		t.Errorf("unfollow: still following %d", m.follow)
	}
}

// TestWhyPane: enter on a selected lease opens the why pane with interp's
// chain, indented by depth.
func TestWhyPane(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 60)
	hs.command(":", "goto #30120")
	hs.press("j", "enter")
	sel := m.leasesPane().selected()
	if !m.shown[paneWhy] || m.whyPane().serial != sel {
		t.Fatalf("enter: why pane shown %v for s%d, want s%d", m.shown[paneWhy], m.whyPane().serial, sel)
	}
	var want []string
	for _, l := range m.drv.dbg.Why(sel) {
		text := whyWords(l, m.frame.snap.Time)
		s := strings.Repeat("  ", l.Depth) + text
		if l.Depth > 0 {
			s = strings.Repeat("  ", l.Depth) + "→ " + text
		}
		want = append(want, s)
	}
	if len(want) == 0 {
		t.Fatalf("interp has no why for s%d", sel)
	}
	if got := m.whyPane().lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("why pane:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(m.View(), fmt.Sprintf("Why · s%d", sel)) {
		t.Errorf("the view lacks the why pane")
	}
	// The focus stays on the leases: j selects the next one, enter asks why.
	if m.focus != paneLeases {
		t.Errorf("enter moved the focus to %d", m.focus)
	}
	hs.press("j", "enter")
	if next := m.leasesPane().selected(); next == sel || m.whyPane().serial != next {
		t.Errorf("j enter: selected s%d, why of s%d; want the next lease after s%d", next, m.whyPane().serial, sel)
	}
	hs.command(":", "why 999999")
	if got := m.whyPane().lines(); len(got) != 1 || got[0] != "session 999999 is not live now" {
		t.Errorf("why of no session: %q", got)
	}
}

// jammed is the seed with decoders' KV too small for some prompts.
func jammed(t *testing.T) *model.Program {
	t.Helper()
	p, err := lang.Load(seedPath, lang.Options{Lib: lib.FS, Sets: []lang.Override{{Name: "blocksD", Expr: "150"}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJammed: the status bar says BLOCKED while a queue head can never
// fit, and at the horizon DONE says how many leases are stale and how many
// sessions are live.
func TestJammed(t *testing.T) {
	m, err := New(jammed(t), Options{Horizon: 100, Seed: 1, Tick: handTicks, Title: "jammed"})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: m}
	hs.run(m.Init())
	hs.send(tea.WindowSizeMsg{Width: 200, Height: 60})
	hs.command(":", "goto 60")
	status := strings.SplitN(m.View(), "\n", 2)[0]
	if !strings.Contains(status, "⏸ PAUSED │ ⚠ BLOCKED D.kv[0] │ ⚠ BLOCKED D.kv[1] │ ⚠ STALLED │ t 60.0000 s") ||
		!strings.Contains(status, "over: D.kv[0] head asks 2,496 > cap") {
		t.Errorf("at 60 s: status %q", status)
	}
	hs.command(":", "goto 100")
	status = strings.SplitN(m.View(), "\n", 2)[0]
	j := jamOf(m.drv.dbg, 1)
	want := fmt.Sprintf("■ DONE │ ⚠ BLOCKED D.kv[0] │ ⚠ BLOCKED D.kv[1] │ ⚠ STALLED │ %s · %s │", plural(j.stale, "stale lease", "stale leases"),
		plural(m.frame.snap.Live, "session live", "sessions live"))
	if !strings.Contains(status, want) || j.stale == 0 {
		t.Errorf("at the horizon: status %q, want %q", status, want)
	}
	if !strings.Contains(status, "rej: ") {
		t.Errorf("the report's notes are not shown: %q", status)
	}
	hs.command(":", "stale 0.5")
	if m.leasesPane().title() != "Leases · stale > 500 ms" {
		t.Errorf("stale 0.5: title %q", m.leasesPane().title())
	}
}

// TestBreakAfterClockMove: a condition that a slice's clock move makes true
// stops the run at the next event, not never.
func TestBreakAfterClockMove(t *testing.T) {
	m, hs := newModel(t, Options{Slice: 10}, 120, 40)
	hs.command(":", "break now >= 30")
	hs.press("right", "right", "right")
	if m.now() != 30 || m.msg != nil {
		t.Fatalf("three slices of 10: t %g, message %q; want 30 and no stop", m.now(), m.msg)
	}
	hs.press("right")
	s, _ := straight(t, m)
	for s.NextTime() < 30 {
		s.Step()
	}
	s.Step()
	if m.events() != s.Events() || len(m.msg) != 1 || !strings.HasPrefix(m.msg[0], "⏹ break 1: now >= 30 became true at event #") {
		t.Errorf("the next slice: at event %d (%q), want a stop at event %d", m.events(), m.msg, s.Events())
	}
}

// TestAt: --at T starts paused at the first event at or after T.
func TestAt(t *testing.T) {
	m, hs := newModel(t, Options{At: 30, AtSet: true}, 120, 40)
	s, _ := straight(t, m)
	for s.NextTime() < 30 {
		s.Step()
	}
	s.Step()
	if m.events() != s.Events() || m.now() != s.Now() || m.running {
		t.Errorf("--at 30: event %d at t %g (running %v), want %d at %g paused", m.events(), m.now(), m.running, s.Events(), s.Now())
	}
	hs.press("n")
	if m.events() != s.Events()+1 {
		t.Errorf("n after --at: event %d", m.events())
	}
}

// `:iterations on` logs each engine iteration's batch; a bad argument is
// refused at its column.
func TestCommandIterations(t *testing.T) {
	m, hs := newModel(t, Options{Horizon: 100}, 100, 30)
	hs.command(":", "iterations maybe")
	if m.cmdErr == nil || m.cmdErr.col != 11 || m.cmdErr.msg != "`iterations` takes on or off" {
		t.Fatalf("error %+v", m.cmdErr)
	}
	hs.press("esc")
	hs.command(":", "iterations on")
	if m.cmdErr != nil || !m.iters {
		t.Fatalf("iterations on: error %+v, iters %v", m.cmdErr, m.iters)
	}
	hs.press("l")
	n := 0
	for i := 0; i < m.frame.log.Len(); i++ {
		if e := m.frame.log.At(i); e.Kind == interp.EvIteration && e.System {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no iteration in the log after a slice with :iterations on")
	}
}
