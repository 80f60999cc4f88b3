package tui

import (
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// burst reports whether a key message is a burst of text: several
// characters that arrived at once (typed faster than the terminal is
// read, or pasted), other than one key repeated (a key held down).
func burst(msg tea.KeyMsg) bool {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 {
		return false
	}
	if msg.Paste {
		return true
	}
	for _, r := range msg.Runes[1:] {
		if r != msg.Runes[0] {
			return true
		}
	}
	return false
}

// burstKeys takes a burst as text, never as key bindings (`break` typed
// fast is no b, r, e, a and k): into the command line when it is open;
// else a burst that begins with `:` or `/` opens that line with the rest,
// and any other opens the command line with it, for the user to enter or
// leave with esc.
func (m *Model) burstKeys(msg tea.KeyMsg) tea.Cmd {
	text := string(msg.Runes)
	if m.cmdOpen {
		return m.cmdKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes, Paste: true})
	}
	m.flash, m.msg = "", nil
	switch {
	case strings.HasPrefix(text, ":"):
		m.openCmd(":", text[1:])
	case strings.HasPrefix(text, "/"):
		m.openCmd("/", text[1:])
	default:
		m.openCmd(":", text)
		m.flash = "keys typed at once are text: enter runs them as a command, esc drops them"
	}
	m.relayout()
	return nil
}

// key handles one key press.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 {
		// one key repeated (held down): each press
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	cmd := m.key1(msg)
	m.relayout()
	return cmd
}

func (m *Model) key1(msg tea.KeyMsg) tea.Cmd {
	m.flash = ""
	if !m.stopShown() {
		m.msg = nil // a stop's line stays until the run moves (enqueue)
	}
	if p := m.pending; p != 0 {
		m.pending = 0
		return m.markKey(p, msg)
	}
	// The focused pane's own keys first: the log's cursor (enter, w, f),
	// the Leases pane's sort.
	if cmd, ok := m.paneOwnKey(msg); ok {
		return cmd
	}
	for _, keys := range []func(tea.KeyMsg) (tea.Cmd, bool){m.runKey, m.paceKey, m.paneKey, m.debugKey, m.tourKey} {
		if cmd, ok := keys(msg); ok {
			return cmd
		}
	}
	// Not a key of the whole program: the focused pane's.
	return m.route(m.focus, msg)
}

const overMsg = "the run is over: r restarts, b goes back"

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
			m.flash = overMsg
		default:
			return m.resume(), true
		}
	case key.Matches(msg, k.Step):
		m.pause()
		if m.over() {
			m.flash = overMsg
			return nil, true
		}
		return m.enqueue(request{kind: reqStep, n: 1}), true
	case key.Matches(msg, k.Slice, k.Slices):
		m.pause()
		if m.over() {
			m.flash = overMsg
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

// paneKey handles the panes' toggles, the zoom and the focus.
func (m *Model) paneKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Panes):
		m.toggle(int(msg.String()[0] - '1'))
	case key.Matches(msg, k.Inspect):
		m.toggle(paneWhy + int(msg.String()[0]-'7'))
	case key.Matches(msg, k.Deploy):
		m.toggle(paneDeploy)
	case key.Matches(msg, k.Inspector):
		m.toggle(paneInspect)
		if m.shown[paneInspect] {
			return m.enqueue(request{kind: reqSnapshot}), true
		}
	case key.Matches(msg, k.Zoom):
		if m.zoom >= 0 {
			m.zoom = -1
			m.flash = "every pane"
		} else {
			m.zoom = m.focus
			m.flash = "zoomed: z shows every pane"
		}
		m.layout()
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

// paneOwnKey handles the keys of the focused pane that act on the run:
// in the log, enter goes to the moment of the line under the cursor, w
// asks why its session waits, f follows it; in the Leases pane, s sorts.
func (m *Model) paneOwnKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case m.focus == paneLog && m.shown[paneLog]:
		lp := m.logPane()
		e, ok := lp.selected(m.boxes[paneLog])
		switch {
		case key.Matches(msg, k.LogJump):
			if !ok {
				m.flash = "no line under the cursor"
				return nil, true
			}
			m.pause()
			m.queue = nil
			m.flash = "to the moment of that line: event " + fmtCount(float64(e.Event))
			return m.enqueue(request{kind: reqSeekEvent, n: e.Event}), true
		case key.Matches(msg, k.LogWhy):
			if !ok || e.System {
				m.flash = "the line under the cursor is of no session"
				return nil, true
			}
			return m.setWhy(e.Session), true
		case key.Matches(msg, k.Follow):
			if !ok || e.System {
				m.flash = "the line under the cursor is of no session"
				return nil, true
			}
			if e.Session == m.follow {
				return m.setFollow(noSession), true
			}
			return m.setFollow(e.Session), true
		case key.Matches(msg, k.Up) && m.boxes[paneLog].atTop() && !m.busy:
			if f := m.frame; f != nil && !f.log.Complete && lp.filter == "" {
				m.flash = "the log's earlier span…"
				return m.enqueue(request{kind: reqEarlier}), true
			}
		}
	case m.focus == paneLeases && m.shown[paneLeases]:
		if lp, ok := m.panes[paneLeases].(*leasesPane); ok && key.Matches(msg, k.Sort) {
			lp.order = (lp.order + 1) % numLeaseOrders
			m.flash = "leases by " + leaseOrderNames[lp.order]
			return nil, true
		}
	}
	return nil, false
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
	if m.zoom >= 0 && !m.shown[m.zoom] {
		m.zoom = -1
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
			if m.zoom >= 0 {
				m.zoom = j
				m.layout()
			}
			return
		}
	}
}
