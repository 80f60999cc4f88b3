package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
	"github.com/serq/serq/report"
)

const (
	pressurePath = "../examples/pd-disaggregation/instances/llmd_nixl_pull/pressure.sq"
	tourPath     = "../examples/pd-disaggregation/tours/coupling.yaml"
)

// pressure loads the seed with the pressure instance's bindings.
func pressure(t *testing.T) *model.Program {
	t.Helper()
	in, err := lang.ReadInstance(pressurePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := lang.Load(seedPath, lang.Options{Lib: lib.FS, Sets: in.Sets})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newProgModel is newModel for any program.
func newProgModel(t *testing.T, p *model.Program, opts Options, w, h int) (*Model, *harness) {
	t.Helper()
	opts.Tick = handTicks
	opts.BatchWall = -1
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	m, err := New(p, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := &harness{t: t, m: m}
	hs.run(m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return m, hs
}

// settle delivers ticks until the model stops running.
func (hs *harness) settle() {
	hs.t.Helper()
	for n := 0; hs.m.running; n++ {
		if n > 100000 || len(hs.ticks) == 0 {
			hs.t.Fatalf("the run loop stopped at t=%g without pausing", hs.m.now())
		}
		hs.deliver()
	}
}

// TestShippedTour plays the shipped tour headless, stop by stop, and back:
// each stop's time, event and followed session, and its caption under the
// panes.
func TestShippedTour(t *testing.T) {
	p := pressure(t)
	tour, err := LoadTour(tourPath, p, 2000)
	if err != nil {
		t.Fatal(err)
	}
	m, hs := newProgModel(t, p, Options{Horizon: 2000, Warmup: 200, Tour: tour, Title: "llmd_nixl_pull.sq"}, 160, 48)
	type at struct {
		time   string
		events uint64
		follow uint64
	}
	want := []at{
		{"7.960000", 5311, 12},
		{"7.963126", 5312, 12},
		{"7.985326", 5313, 12},
		{"7.992876", 5315, 12},
		{"8.017564", 5437, 12},
		{"67.482026", 100991, noSession},
		{"67.656094", 101408, noSession},
		{"400.000000", 809245, noSession},
	}
	if len(tour.Stops) != len(want) {
		t.Fatalf("the tour has %d stops, want %d", len(tour.Stops), len(want))
	}
	check := func(i int) {
		t.Helper()
		got := at{fmt.Sprintf("%.6f", m.now()), m.events(), m.follow}
		if got != want[i] {
			t.Errorf("stop %d: at t %s event %d following %d, want %+v", i+1, got.time, got.events, got.follow, want[i])
		}
		if m.tour.at != i {
			t.Errorf("stop %d: the tour is at stop %d", i+1, m.tour.at+1)
		}
		screen := m.View()
		head := fmt.Sprintf("▣ %d/%d %s · one request, then the coupling", i+1, len(want), tour.Stops[i].Name)
		if !strings.Contains(screen, head) {
			t.Errorf("stop %d: no caption head %q on the screen:\n%s", i+1, head, screen)
		}
		text := unfold(tour.Stops[i].Caption)
		var shown []string
		for _, l := range m.captionView()[1:] {
			shown = append(shown, strings.TrimSpace(l))
		}
		if got := strings.Join(shown, " "); got != text {
			t.Errorf("stop %d: the caption on the screen is %q, want %q", i+1, got, text)
		}
		for _, l := range m.captionView() {
			if !strings.Contains(screen, l) {
				t.Errorf("stop %d: the caption line %q is not on the screen", i+1, l)
			}
		}
	}
	for i := range want {
		hs.press(">")
		hs.settle()
		check(i)
	}
	hs.press(">")
	if m.flash != "the last stop (8 of 8): < goes back" {
		t.Errorf("> past the last stop: flash %q", m.flash)
	}
	for i := len(want) - 2; i >= 0; i-- {
		hs.press("<")
		hs.settle()
		check(i)
	}
	hs.press("<")
	if m.flash != "the first stop (1 of 8): > goes on" {
		t.Errorf("< before the first stop: flash %q", m.flash)
	}
	// On again: the stops seen are seeks, and land where they did.
	for i := 1; i < 3; i++ {
		hs.press(">")
		hs.settle()
		check(i)
	}
	if !m.shown[paneSession] || m.shown[paneGauges] || m.focus != paneSession {
		t.Errorf("stop 3: shown %v focus %d, want the first stop's panes, focus on the session", m.shown, m.focus)
	}
}

func tourErr(t *testing.T, src string) string {
	t.Helper()
	_, err := ParseTour("t.yaml", []byte(src), seed(t), 2000)
	if err == nil {
		return "no error"
	}
	var list lang.ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		return "not one lang error: " + err.Error()
	}
	return list[0].Error() + " | " + list[0].Hint
}

// TestTourErrors: a bad tour is refused at its line and column, with a
// hint.
func TestTourErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"stops:\n  - at: 2500\n", "t.yaml:2:9: at 2500 is past the horizon 2000 | the run ends at the horizon 2000: give a --horizon past it, or an earlier time"},
		{"stops:\n  - at: -1\n", "t.yaml:2:9: at -1 is before the start (t 0) | a time from 0 to the horizon"},
		{"stops:\n  - at: 1\n    captoin: hi\n", "t.yaml:3:5: unknown key `captoin` | a stop takes name, at, event, when, caption, show, focus, follow, trends, speed; did you mean `caption`?"},
		{"stops:\n  - when: used(Q[0].kv) > 3\n", "t.yaml:2:16: `Q[0].kv` is no pool | did you mean queue `D`?"},
		{"stops:\n  - when: \"used(D[0].kv) > x\"\n", "t.yaml:2:28: undefined: x | did you mean `B`?"},
		{"stops:\n  - at: 1\n    show: [leases, gauge]\n", "t.yaml:3:20: unknown pane `gauge` | did you mean `trends`?"},
		{"stops:\n  - at: 1\n    focus: chart\n", "t.yaml:3:12: unknown pane `chart` | panes: leases, kv, nic, trends, log, deploy, why, session, report, inspect"},
		{"stops:\n  - at: 1\n    focus: sesion\n", "t.yaml:3:12: unknown pane `sesion` | did you mean `session`?"},
		{"stops:\n  - caption: hi\n", "t.yaml:2:5: the stop does not say when it is | add `at: T` (a time), `event: N` or `when: EXPR` (a condition, as for :break)"},
		{"stops:\n  - at: 1\n    event: 3\n", "t.yaml:3:5: `at` and `event` both say when the stop is | a stop has one of at (a time), event (a number) or when (a condition)"},
		{"stops:\n  - event: 1.5\n", "t.yaml:2:12: `event` must be a whole number | an event number N ≥ 0: the state after N events"},
		{"stops:\n  - at: 1\n    follow: twelve\n", "t.yaml:3:13: `follow` must be a session number | a session's number, e.g. 35, or none"},
		{"stops:\n  - at: 1\n    speed: 0\n", "t.yaml:3:12: speed 0 is out of range | a speed in simulated s per s, from 1/1024 to 1048576"},
		{"title: x\n", "t.yaml:1:1: the tour has no stops | add `stops:` and a list of stops, each `- at: T` with `caption: …`"},
		{"stops:\n  at: 1\n", "t.yaml:2:3: `stops` is a list of stops | each stop is a list item: `- at: T`"},
		{"stop:\n  - at: 1\n", "t.yaml:1:1: unknown key `stop` | a tour takes title, run and stops; did you mean `stops`?"},
		{"stops: [\n", "t.yaml:1:8: sequence end token ']' not found | a tour is YAML: `stops:` and a list of stops, each `- at: T` with `caption: …`"},
	}
	for _, c := range cases {
		if got := tourErr(t, c.src); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// TestMarksSaveTour marks two moments, returns to one, saves the marks as
// a tour and plays it back.
func TestMarksSaveTour(t *testing.T) {
	run := RunID{Program: "llmd_nixl_pull.sq", Hash: "sha256:ab12", Instances: []string{"pressure.sq"},
		Args: []Arg{{"Lambda", 1.2}, {"blocksD", 1200}}, Seed: 1, Horizon: 2000}
	m, hs := newModel(t, Options{Run: run}, 160, 48)
	hs.command(":", "goto #500")
	hs.command(":", "trends D[0] waiting, P.kv[0] leased")
	hs.press("m", "b")
	hs.command(":", "trends all")
	hs.command(":", "follow 3")
	hs.command(":", "goto #200")
	hs.press("m", "a")
	hs.command(":", "goto #900")
	hs.press("'", "b")
	if m.events() != 500 || m.follow != noSession {
		t.Errorf("' b: event %d, follow %d; want 500, none", m.events(), m.follow)
	}
	hs.press("'", "z")
	if m.flash != "no mark z: m z marks the moment" {
		t.Errorf("' z: flash %q", m.flash)
	}
	path := filepath.Join(t.TempDir(), "marks.yaml")
	hs.command(":", "save tour "+path)
	if m.cmdOpen || m.flash != "saved 2 marks as a tour to "+path {
		t.Fatalf("save: open %v, err %v, flash %q", m.cmdOpen, m.cmdErr, m.flash)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantText := `# A tour of serq tui's marks: serq tui FILE --tour THIS
title: "llmd_nixl_pull.sq"
run:
  program: "llmd_nixl_pull.sq"
  hash: sha256:ab12
  instance: ["pressure.sq"]
  args: {Lambda: 1.2, blocksD: 1200}
  seed: 1
  warmup: 0
  horizon: 2000
stops:
  - name: "mark a"
    event: 200
    caption: "Mark a: t 0.0787 s, event 200."
    show: [leases, kv, nic, trends, session, log]
    focus: leases
    follow: 3
  - name: "mark b"
    event: 500
    caption: "Mark b: t 0.1398 s, event 500."
    show: [leases, kv, nic, trends, log]
    focus: leases
    follow: none
    trends: ["D[0] waiting", "P.kv[0] leased"]
`
	if string(b) != wantText {
		t.Errorf("saved tour:\n%s\nwant:\n%s", b, wantText)
	}
	tour, err := LoadTour(path, seed(t), 2000)
	if err != nil {
		t.Fatal(err)
	}
	m2, hs2 := newModel(t, Options{Tour: tour}, 160, 48)
	for i, ev := range []uint64{200, 500} {
		hs2.press(">")
		hs2.settle()
		if m2.events() != ev {
			t.Errorf("saved stop %d at event %d, want %d", i+1, m2.events(), ev)
		}
	}
	if m2.follow != noSession {
		t.Errorf("the second saved stop follows %d, want none", m2.follow)
	}
}

// TestReportAtDoneEqualsRun runs the seed with an instance that stops
// the workload after its arrivals to the end in the TUI: the report pane
// at DONE is the report serq run prints, and so is ReportText.
func TestReportAtDoneEqualsRun(t *testing.T) {
	dir := t.TempDir()
	inst := filepath.Join(dir, "few.sq")
	if err := os.WriteFile(inst, []byte("let Lambda = 2;\nrun { horizon 500; warmup 10; seed 7; arrivals 40; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := lang.ReadInstance(inst, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := lang.Load(seedPath, lang.Options{Lib: lib.FS, Sets: in.Sets})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Horizon: *in.Horizon, Warmup: *in.Warmup, Seed: *in.Seed, Arrivals: *in.Arrivals, Version: "test"}
	s, err := interp.New(p, interp.Options{Horizon: opts.Horizon, Warmup: opts.Warmup, Seed: opts.Seed, Arrivals: opts.Arrivals, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for s.Step() {
	}
	var want strings.Builder
	if err := report.Text(&want, s.Report()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(want.String(), "run: horizon 500 end 76.4121110906837 warmup 10 seed 7 events 61723 arrivals 40 ended 34 ") {
		t.Fatalf("the straight run's report does not mention its 40 arrivals:\n%s", want.String())
	}
	m, hs := newProgModel(t, p, opts, 160, 48)
	hs.press("R")
	if !m.shown[paneReport] || m.focus != paneReport {
		t.Fatalf("R: report shown %v, focus %d", m.shown[paneReport], m.focus)
	}
	rp := m.panes[paneReport].(*reportPane)
	if rp.done || rp.events != 0 || rp.title() != "Report · so far, t 0 s · R refreshes" {
		t.Errorf("R at the start: done %v events %d title %q", rp.done, rp.events, rp.title())
	}
	hs.command(":", "goto 500")
	if !m.frame.snap.Done {
		t.Fatalf("goto 500: the run is not over at t %g", m.now())
	}
	if !rp.done || rp.title() != "Report · the run's end" {
		t.Errorf("at DONE the report pane is not refreshed: done %v, title %q", rp.done, rp.title())
	}
	if got := strings.Join(rp.text, "\n") + "\n"; got != want.String() {
		t.Errorf("the report pane at DONE:\n%s\nserq run's report:\n%s", got, want.String())
	}
	if got, err := m.ReportText(); err != nil || got != want.String() {
		t.Errorf("ReportText = %q, %v; want serq run's report", got, err)
	}
	hs.press("R")
	if m.shown[paneReport] {
		t.Errorf("R on an up-to-date report does not hide it")
	}
}
