package tui

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/internal/safeio"
)

// tourState is a tour being played: the stop the screen is at, the event
// each stop visited was found at (so going back to one, or on to one seen
// before, is a seek through the checkpoints), and the stop being run to
// at a stop's speed.
type tourState struct {
	t      *Tour
	at     int // the current stop, -1 before the first
	seen   []bool
	events []uint64
	going  int // the stop run to at its speed, -1 for none
	id     int // the breakpoint id of the stop run to (< 0)
	nextID int
}

func newTourState(t *Tour) *tourState {
	return &tourState{t: t, at: -1, seen: make([]bool, len(t.Stops)), events: make([]uint64, len(t.Stops)), going: -1, nextID: -1}
}

// newID is a fresh breakpoint id for a stop: the driver takes the
// condition's value anew for it, so a condition that holds already must
// become false and true again, as for :break.
func (ts *tourState) newID() int {
	ts.id = ts.nextID
	ts.nextID--
	return ts.id
}

// breakOf is the breakpoint that stops a run at stop i (for its event or
// its condition), with id: the service compiles it, not set, for the runs
// to that stop alone.
func (m *Model) breakOf(i, id int) *debugger.Breakpoint {
	s := m.tour.t.Stops[i]
	spec := debugger.Spec{Kind: debugger.BreakExpr, Expr: s.When}
	if s.Kind == StopEvent {
		spec = debugger.Spec{Kind: debugger.BreakCount, Count: s.Event}
	}
	b, err := m.drv.dbg.Compile(spec)
	if err != nil {
		return nil // LoadTour compiled it already
	}
	b.ID = id
	return b
}

// stopKey goes to the next (dir 1) or previous (dir -1) stop.
func (m *Model) stopKey(dir int) tea.Cmd {
	if m.tour == nil {
		m.flash = "no tour: serq tui FILE --tour F.yaml"
		return nil
	}
	n := len(m.tour.t.Stops)
	i := m.tour.at + dir
	if m.tour.going >= 0 && dir > 0 {
		i = m.tour.going // a second > jumps to the stop being run to
	}
	switch {
	case i >= n:
		m.flash = fmt.Sprintf("the last stop (%d of %d): < goes back", n, n)
		return nil
	case i < 0:
		m.flash = fmt.Sprintf("the first stop (1 of %d): > goes on", n)
		return nil
	}
	return m.goStop(i, m.tour.going == i)
}

// goStop goes to stop i: a stop seen before by a seek, an unseen stop
// ahead at its speed (or at once with jump), an unseen condition by
// running forward until it becomes true.
func (m *Model) goStop(i int, jump bool) tea.Cmd {
	ts := m.tour
	s := ts.t.Stops[i]
	m.pause()
	m.queue = nil
	if m.frame == nil {
		return nil
	}
	if ts.seen[i] || s.Kind == StopTime && !(s.Speed > 0 && s.T > m.frame.snap.Time && !jump) {
		if s.Kind == StopTime {
			return m.enqueue(request{kind: reqSeekTime, dt: s.T, tour: i + 1})
		}
		return m.enqueue(request{kind: reqSeekEvent, n: ts.events[i], tour: i + 1})
	}
	if s.Kind == StopEvent && (s.Event <= m.frame.snap.Events || !(s.Speed > 0) || jump) {
		return m.enqueue(request{kind: reqSeekEvent, n: s.Event, tour: i + 1})
	}
	if s.Speed > 0 && !jump {
		m.speed = s.Speed
		cmd := m.resume()
		ts.going = i
		if s.Kind != StopTime {
			ts.newID()
		}
		m.flash = fmt.Sprintf("to stop %d of %d at %s s/s (> jumps there)", i+1, len(ts.t.Stops), fmtValue(s.Speed))
		return cmd
	}
	// A condition, at once: run forward until it becomes true.
	ts.newID()
	return m.enqueue(request{kind: reqSlice, dt: math.Max(0, m.opts.Horizon-m.frame.snap.Time), tour: i + 1})
}

// tourBreak is the breakpoint of the stop a request runs to, nil if none.
func (m *Model) tourBreak(r request) *debugger.Breakpoint {
	ts := m.tour
	if ts == nil {
		return nil
	}
	i := ts.going
	if r.tour > 0 && r.kind == reqSlice {
		i = r.tour - 1
	}
	if i < 0 || ts.t.Stops[i].Kind == StopTime {
		return nil
	}
	return m.breakOf(i, ts.id)
}

// tourCap is the time a batch must not run past: the stop at a time being
// run to.
func (m *Model) tourCap(r *request) {
	if ts := m.tour; ts != nil && ts.going >= 0 && ts.t.Stops[ts.going].Kind == StopTime {
		r.capT, r.capSet = ts.t.Stops[ts.going].T, true
	}
}

// tourFrame sees whether a frame reached a stop, and arrives there.
func (m *Model) tourFrame(f *frameMsg) tea.Cmd {
	ts := m.tour
	if ts == nil {
		return nil
	}
	if f.tour > 0 {
		i := f.tour - 1
		s := ts.t.Stops[i]
		if f.kind == reqSlice && !f.tourHit {
			m.flash = fmt.Sprintf("stop %d: `%s` did not become true before the run ended", i+1, s.When)
			return nil
		}
		return m.arrive(i, f)
	}
	if ts.going < 0 {
		return nil
	}
	i := ts.going
	s := ts.t.Stops[i]
	switch {
	case s.Kind == StopTime && f.snap.Time >= s.T,
		s.Kind != StopTime && f.tourHit:
		return m.arrive(i, f)
	}
	return nil
}

// arrive puts the screen in stop i's state: its panes and focus, the
// session followed, its speed, and its caption under the panes.
func (m *Model) arrive(i int, f *frameMsg) tea.Cmd {
	ts := m.tour
	s := ts.t.Stops[i]
	m.pause()
	m.queue = nil
	ts.at, ts.seen[i], ts.events[i] = i, true, f.snap.Events
	if s.Show != nil {
		for j := range m.shown {
			m.shown[j] = containsInt(s.Show, j)
		}
		if !m.shown[m.focus] {
			m.cycleFocus(1)
		}
	}
	if s.Focus >= 0 {
		m.shown[s.Focus] = true
		m.focus = s.Focus
	}
	// The stop's speed, or the session's own: coming back from a stop run
	// to fast, the pace is not that stop's.
	m.speed = m.opts.Speed
	if s.Speed > 0 {
		m.speed = s.Speed
	}
	if gp, ok := m.panes[paneGauges].(*gaugesPane); ok && s.Trends != nil {
		var rows []int
		for _, name := range s.Trends {
			if k := gp.row(name); k >= 0 {
				rows = append(rows, k)
			}
		}
		gp.pick(rows)
	}
	m.zoom = -1
	m.layout()
	// the newest of a story is what a caption speaks of
	m.boxes[paneSession].off = 1 << 30
	var cmd tea.Cmd
	if s.FollowSet && s.Follow != m.follow {
		cmd = m.setFollow(s.Follow)
	}
	m.flash = fmt.Sprintf("stop %d of %d", i+1, len(ts.t.Stops))
	return cmd
}

// captionView is the current stop's caption: a title line, then the
// caption wrapped to the width (at most maxCaption lines).
func (m *Model) captionView() []string {
	ts := m.tour
	if ts == nil || ts.at < 0 {
		return nil
	}
	s := ts.t.Stops[ts.at]
	head := fmt.Sprintf("▣ %d/%d", ts.at+1, len(ts.t.Stops))
	if s.Name != "" {
		head += " " + s.Name
	}
	if ts.t.Title != "" {
		head += m.st.Dim.Render(" · " + ts.t.Title)
	}
	head += m.st.Dim.Render(" · > next, < back")
	out := []string{fit(m.st.Label.Render(head), m.width)}
	if s.Caption == "" {
		return out
	}
	wrapped := strings.Split(ansi.Wordwrap(unfold(s.Caption), max(10, m.width-2), ""), "\n")
	for k, l := range wrapped {
		if k == maxCaption {
			out[len(out)-1] = fit(out[len(out)-1]+" …", m.width)
			break
		}
		out = append(out, fit("  "+l, m.width))
	}
	return out
}

const maxCaption = 5

// unfold joins a caption's lines within each paragraph (a blank line ends
// one), so it is wrapped to the screen's width, not the file's.
func unfold(c string) string {
	var paras []string
	for _, p := range strings.Split(c, "\n\n") {
		paras = append(paras, strings.Join(strings.Fields(p), " "))
	}
	return strings.Join(paras, "\n")
}

// markKey takes the letter after m (set) or ' (go to).
func (m *Model) markKey(kind rune, msg tea.KeyMsg) tea.Cmd {
	if msg.Type != tea.KeyRunes || len(msg.Runes) != 1 || !unicode.IsLetter(msg.Runes[0]) || msg.Runes[0] > unicode.MaxASCII {
		m.flash = "a mark is a letter a-z or A-Z"
		return nil
	}
	r := msg.Runes[0]
	if kind == 'm' {
		if m.frame == nil {
			return nil
		}
		if m.marks == nil {
			m.marks = map[rune]mark{}
		}
		mk := mark{events: m.frame.snap.Events, time: m.frame.snap.Time, follow: m.follow, shown: m.shown, focus: m.focus}
		if gp, ok := m.panes[paneGauges].(*gaugesPane); ok && gp.order != nil {
			for _, k := range gp.order {
				mk.trends = append(mk.trends, gp.rows[k].name)
			}
		}
		m.marks[r] = mk
		m.flash = fmt.Sprintf("mark %c: t %s, event %s (' %c returns; :save tour F writes the marks)", r,
			fmtDur(m.frame.snap.Time), fmtCount(float64(m.frame.snap.Events)), r)
		return nil
	}
	mk, ok := m.marks[r]
	if !ok {
		m.flash = fmt.Sprintf("no mark %c: m %c marks the moment", r, r)
		return nil
	}
	m.pause()
	m.queue = nil
	m.shown = mk.shown
	m.focus = mk.focus
	if gp, ok := m.panes[paneGauges].(*gaugesPane); ok {
		var rows []int
		for _, name := range mk.trends {
			rows = append(rows, gp.row(name))
		}
		if mk.trends == nil {
			rows = nil
		}
		gp.pick(rows)
	}
	m.layout()
	var cmds []tea.Cmd
	if mk.follow != m.follow {
		cmds = append(cmds, m.setFollow(mk.follow))
	}
	cmds = append(cmds, m.enqueue(request{kind: reqSeekEvent, n: mk.events}))
	m.flash = fmt.Sprintf("mark %c", r)
	return tea.Batch(cmds...)
}

// saveTour writes the marks as a tour to path.
func (m *Model) saveTour(path string) error {
	if len(m.marks) == 0 {
		return fmt.Errorf("no mark to save: m then a letter marks the moment")
	}
	if err := safeio.WriteFile(path, []byte(tourText(m.opts.Title, m.opts.Run, m.marks))); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, unwrapPathErr(err))
	}
	m.flash = fmt.Sprintf("saved %d marks as a tour to %s", len(m.marks), path)
	return nil
}
