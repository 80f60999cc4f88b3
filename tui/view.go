package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/lang"
)

// layout sizes the panes: the first visible ones two to a row, then the
// deployment figure and the report across the screen, then the log
// across the bottom; the log takes a quarter of the height, the figure
// and the report twice a row's share. A zoomed pane (z) takes the whole
// screen.
func (m *Model) layout() {
	m.help.Width = m.width
	m.rows = nil
	if m.width < minWidth || m.height < minHeight {
		return
	}
	m.footH = lipgloss.Height(m.footerView())
	body := m.height - 1 - m.footH
	if m.zoom >= 0 && m.shown[m.zoom] {
		m.rows = [][]int{{m.zoom}}
		m.rects[m.zoom] = rect{m.width, body}
		m.boxes[m.zoom].SetSize(m.width, body)
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

// helpView is the short help cut to the width, or the full help: every
// key of fullHelp, in its groups' order, packed in as many columns of
// "key desc" as the width takes (column by column), so every key shows on
// any screen from 80×24 (bubbles' help puts every group side by side and
// cuts them).
func (m *Model) helpView() string {
	if !m.help.ShowAll {
		return fit(m.help.ShortHelpView(m.keys.ShortHelp()), m.width)
	}
	var keys, descs []string
	keyW := 0
	for _, g := range m.fullHelp() {
		for _, b := range g {
			h := b.Help()
			keys, descs = append(keys, h.Key), append(descs, h.Desc)
			keyW = max(keyW, lipgloss.Width(h.Key))
		}
	}
	colW := 0
	entries := make([]string, len(keys))
	for i := range keys {
		entries[i] = m.st.Label.Render(padRight(keys[i], keyW)) + " " + m.st.Dim.Render(descs[i])
		colW = max(colW, lipgloss.Width(entries[i]))
	}
	const gap = 2
	cols := max(1, (m.width+gap)/(colW+gap))
	rows := (len(entries) + cols - 1) / cols
	lines := make([]string, rows)
	for i, e := range entries {
		r := i % rows
		if i >= rows {
			lines[r] += strings.Repeat(" ", gap)
		}
		lines[r] += padRight(e, colW)
	}
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
		append(append([]key.Binding{k.Command, k.Goto, k.Filter}, own...), k.Why, k.Follow, k.LogJump, k.LogWhy, k.Sort),
		append([]key.Binding{k.Panes, k.Deploy, k.Inspect, k.Inspector, k.Report, k.Zoom, k.Focus, k.FocusBack}, scroll...),
		{k.NextStop, k.PrevStop, k.Mark, k.Jump, k.Restart, k.Cancel, k.Help, k.Quit},
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
			m.st.Dim.Render("every pane is hidden: press 1…8 to show one")))
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
		d.blocked, d.stalled, d.notes, d.stale = f.jam.blocked, f.jam.stalled, f.notes, f.jam.stale
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
		d.busy = busyWords(m.inflight)
		if m.inflight != reqBatch && time.Since(m.busySince) >= progressAfter {
			if p := m.drv.dbg.Progress(); p != nil {
				d.busy = progressWords(m.inflight, p)
			}
		} else if m.inflight == reqBatch || m.inflight == reqStep || m.inflight == reqSnapshot || m.inflight == reqEdit {
			d.busy = ""
		}
	}
	return m.bar.view(m.width, d)
}

// progressWords is an operation's progress: "seek 42 % · 1,234,567
// events · esc cancels".
func progressWords(k reqKind, p *debugger.Progress) string {
	s := busyWords(k)
	if p.Fraction >= 0 {
		s += fmt.Sprintf(" %.0f %%", 100*p.Fraction)
	}
	if p.Events > 0 {
		s += " · " + plural64(p.Events, "event", "events")
	}
	return s + " · esc cancels"
}

// box draws pane i's Component, focused or not.
func (m *Model) box(i int) string {
	m.boxes[i].focused = i == m.focus
	return m.boxes[i].View()
}

// openCmd opens the command line (":" commands or the "/" filter) with
// text typed in.
func (m *Model) openCmd(kind, text string) {
	m.cmdOpen, m.cmdKind, m.cmdErr, m.comp = true, kind, nil, nil
	m.cmd.Prompt = kind
	m.cmd.SetValue(text)
	m.cmd.CursorEnd()
	m.cmd.Focus()
	m.histAt = len(m.hist)
}

func (m *Model) closeCmd() {
	m.cmdOpen, m.cmdErr, m.comp = false, nil, nil
	m.cmd.Blur()
	m.cmd.SetValue("")
}

// cmdKey handles a key while the command line is open.
func (m *Model) cmdKey(msg tea.KeyMsg) tea.Cmd {
	defer m.relayout()
	if msg.Type != tea.KeyTab {
		m.comp = nil
	}
	switch msg.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		m.closeCmd()
		return nil
	case tea.KeyTab:
		if m.cmdKind == ":" {
			m.complete()
		}
		return nil
	case tea.KeyEnter:
		line := m.cmd.Value()
		if m.cmdKind == "/" {
			m.closeCmd()
			m.logPane().setFilter(line)
			m.boxes[paneLog].off = 0
			if line = strings.TrimSpace(line); line != "" {
				m.flash = "log filtered by " + line + " (text, or a session: s35)"
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
// answer of `list`, then the command line with its error or its
// completions, or the help.
func (m *Model) footerView() string {
	var out []string
	if strip := m.watchStrip(); strip != "" {
		out = append(out, fit(strip, m.width))
	}
	out = append(out, m.captionView()...)
	for _, l := range m.msg {
		st := m.st.Dim
		if strings.HasPrefix(l, "⏹") || strings.HasPrefix(l, "⚠") {
			st = m.st.Warn
		}
		for _, w := range wrapLine(st.Render(l), m.width) {
			out = append(out, fit(w, m.width))
		}
	}
	if m.cmdOpen {
		out = append(out, fit(m.cmd.View(), m.width))
		switch e := m.cmdErr; {
		case e != nil:
			var b strings.Builder
			lang.WriteErrorUnder(&b, e.diag(), m.cmd.Value(), len(m.cmdKind))
			for i, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				st := m.st.Dim // the notes and the hint
				if i == 0 {
					st = m.st.Err
				}
				out = append(out, fit(st.Render(l), m.width))
			}
		case m.comp != nil && len(m.comp.all) > 1:
			out = append(out, fit(m.st.Dim.Render("tab: "+strings.Join(m.comp.all, "  ")), m.width))
		case m.cmdKind == "/":
			out = append(out, fit(m.st.Dim.Render("filter the log: any text of its lines (preempt, D.kv[0], lease-end), or a session: s35; enter on nothing clears"), m.width))
		default:
			out = append(out, fit(m.st.Dim.Render(m.commandHint()), m.width))
		}
	} else {
		out = append(out, m.helpView())
	}
	return strings.Join(out, "\n")
}

// watchStrip is one line: every breakpoint, and every watch and display
// with its value.
func (m *Model) watchStrip() string {
	if m.frame == nil || len(m.frame.bps) == 0 {
		return ""
	}
	var parts []string
	for _, b := range m.frame.bps {
		s := bpWords(b)
		if b.kind == debugger.Watch || b.kind == debugger.Display {
			v := fmtValue(b.value)
			if m.frame.kind == reqRestart {
				v = "…"
			}
			s += " = " + v
		}
		parts = append(parts, s)
	}
	return m.st.Label.Render("◆") + " " + strings.Join(parts, m.st.Status.Sep.Render(" │ "))
}
