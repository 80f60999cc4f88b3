package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Component is a pane as the root model sees it, soft-serve's contract for
// the parts of a screen: it takes the messages routed to it (the keys
// while it has the focus, a scroll of the wheel over it), draws itself in
// the size it was given, and names the keys it reacts to, from which the
// root assembles the help. The root keeps the keys of the whole program
// (quit, help, run and pause, stepping, pace, the command line, the panes'
// toggles and the focus) and routes every other key to the focused pane.
type Component interface {
	Update(msg tea.Msg) (Component, tea.Cmd)
	View() string
	SetSize(w, h int)
	ShortHelp() []key.Binding
}

// scrollMsg scrolls a pane by n lines (down when n > 0): the mouse wheel
// over it.
type scrollMsg struct{ n int }

// cursorPane is a pane with a cursor that the up and down keys move (the
// Leases pane's selected lease): move goes step rows and returns the line
// of the row it is on, false when there is no row to be on.
type cursorPane interface {
	move(step int) (int, bool)
}

// windowedPane is a pane that draws only the lines shown (the log, which
// may hold a hundred thousand): count is how many there are, window the
// lines [from, to). Its lines are never wrapped (they are scrolled
// sideways), and the box keeps a cursor on one of them.
type windowedPane interface {
	count() int
	window(from, to int) []string
}

// paneBox is the Component of one pane: its content (a pane: title, lines,
// the frames), the box drawn around it (a rounded border, or a thick one
// with ▶ before the title while focused, the visible range in the bottom
// border when the content does not fit), its scroll offset (for the log,
// counted from its end: the newest lines), its sideways scroll, and for
// the log a cursor (-1: on the newest line, following it). A line wider
// than the box is wrapped, its rest indented under it (the panes of
// words), or, for the log, the figure and the report, cut and scrolled
// sideways with { and }.
type paneBox struct {
	st      *Styles
	keys    *KeyMap
	n       int // the pane's number: its toggle key
	p       pane
	w, h    int // the box, border included
	off     int
	fromEnd bool
	focused bool
	hoff    int  // columns scrolled sideways
	wrap    bool // wrap long lines (else cut them, scrolled sideways)
	cursor  int  // the windowed pane's line under the cursor, -1: the newest
	// phys: for a wrapped pane, the first screen line of each content
	// line, at the last View (for show).
	phys []int
}

func newPaneBox(st *Styles, keys *KeyMap, i int, p pane) *paneBox {
	_, windowed := p.(windowedPane)
	return &paneBox{st: st, keys: keys, n: i + 1, p: p, fromEnd: i == paneLog,
		wrap: !windowed && i != paneDeploy && i != paneReport && i != paneGauges, cursor: -1}
}

// SetSize sets the box's size, border included; the content gets the rest.
func (b *paneBox) SetSize(w, h int) {
	b.w, b.h = w, h
	b.p.setSize(w-2, h-2)
}

// ShortHelp is the keys the pane reacts to while focused: the log's tail,
// and scrolling (a cursor's moves in the Leases pane and the log).
func (b *paneBox) ShortHelp() []key.Binding {
	if b.fromEnd {
		return []key.Binding{b.keys.Tail, b.keys.Up, b.keys.Down, b.keys.HLeft, b.keys.HRight}
	}
	if !b.wrap {
		return []key.Binding{b.keys.Up, b.keys.Down, b.keys.HLeft, b.keys.HRight}
	}
	return []key.Binding{b.keys.Up, b.keys.Down}
}

// atTop reports whether the box shows its first line (the log: its
// cursor is on it).
func (b *paneBox) atTop() bool {
	if wp, ok := b.p.(windowedPane); ok {
		return b.cursor == 0 || b.cursor < 0 && wp.count() <= 1
	}
	return b.off == 0
}

// Update scrolls: ↑/↓ (k/j) a line or the cursor a row, pgup/pgdown a
// page, G/end to the log's tail, { and } sideways, the wheel three lines.
func (b *paneBox) Update(msg tea.Msg) (Component, tea.Cmd) {
	switch msg := msg.(type) {
	case scrollMsg:
		b.scroll(msg.n)
	case tea.KeyMsg:
		k := b.keys
		switch {
		case b.fromEnd && key.Matches(msg, k.Tail):
			b.off, b.cursor = 0, -1
		case !b.wrap && key.Matches(msg, k.HLeft):
			b.hoff = max(0, b.hoff-8)
		case !b.wrap && key.Matches(msg, k.HRight):
			b.hoff += 8
		case key.Matches(msg, k.Up, k.Down):
			step := 1
			page := msg.String() == "pgup" || msg.String() == "pgdown"
			if page {
				step = max(1, b.h-3)
			}
			if key.Matches(msg, k.Up) {
				step = -step
			}
			if wp, ok := b.p.(windowedPane); ok {
				b.moveCursor(wp, step)
				return b, nil
			}
			if cp, ok := b.p.(cursorPane); ok && !page {
				if line, ok := cp.move(step); ok {
					b.show(line)
					return b, nil
				}
			}
			b.scroll(step)
		}
	}
	return b, nil
}

// moveCursor moves the log's cursor step lines (from the newest when it
// follows the tail) and scrolls to keep it in view; on the newest line
// it follows the tail again.
func (b *paneBox) moveCursor(wp windowedPane, step int) {
	n := wp.count()
	if lp, ok := b.p.(*logPane); ok {
		n = len(lp.rows)
	}
	if n == 0 {
		return
	}
	c := b.cursor
	if c < 0 {
		c = n - 1
	}
	c = max(0, min(n-1, c+step))
	b.cursor = c
	if c == n-1 && step > 0 {
		b.cursor, b.off = -1, 0
		return
	}
	// keep the cursor's line in view: off counts from the end
	ch := b.h - 2
	total := wp.count()
	start := max(0, total-ch) - b.off
	switch {
	case c < start:
		b.off = max(0, total-ch) - c
	case c >= start+ch:
		b.off = max(0, max(0, total-ch)-(c-ch+1))
	}
}

// scroll moves the view n lines down (up when n < 0).
func (b *paneBox) scroll(n int) {
	if b.fromEnd {
		n = -n
	}
	b.off = max(0, b.off+n)
}

// show scrolls so that content line l is in view.
func (b *paneBox) show(l int) {
	if b.wrap && l < len(b.phys) {
		l = b.phys[l]
	}
	ch := b.h - 2
	if l < b.off {
		b.off = l
	} else if ch > 0 && l >= b.off+ch {
		b.off = l - ch + 1
	}
}

// wrapLine wraps a line to width w at its blanks, dots and arrows (never
// inside a number such as 2,400): its first screen line, then the rest
// indented two cells past the line's own indent (a why-chain's step stays
// under its arrow), four at least.
func wrapLine(s string, w int) []string {
	if w <= 8 || lipgloss.Width(s) <= w {
		return []string{s}
	}
	plain := ansi.Strip(s)
	ind := len(plain) - len(strings.TrimLeft(plain, " "))
	ind = min(max(ind+2, 4), w/2)
	pad := strings.Repeat(" ", ind)
	first := strings.SplitN(ansi.Wrap(s, w, " ·→"), "\n", 2)[0]
	rest := strings.TrimLeft(ansi.Cut(s, lipgloss.Width(first), lipgloss.Width(s)), " ")
	out := []string{first}
	for _, l := range strings.Split(ansi.Wrap(rest, w-ind, " ·→"), "\n") {
		out = append(out, pad+strings.TrimLeft(l, " "))
	}
	return out
}

// View draws the box with its content scrolled.
func (b *paneBox) View() string {
	cw, ch := b.w-2, b.h-2
	bs, ts := b.st.Pane.Border, b.st.Pane.Title
	border := lipgloss.RoundedBorder()
	num := fmt.Sprint(b.n)
	if b.n-1 == paneInspect {
		num = "i"
	}
	title := fmt.Sprintf(" %s %s ", num, b.p.title())
	if b.focused {
		bs, ts = b.st.Pane.FocusedBorder, b.st.Pane.FocusedTitle
		border = lipgloss.ThickBorder()
		title = fmt.Sprintf(" ▶ %s %s ", num, b.p.title())
	}
	var lines []string
	total := 0
	wp, windowed := b.p.(windowedPane)
	if !windowed {
		lines = b.p.lines()
		if b.wrap {
			b.phys = b.phys[:0]
			var wrapped []string
			for _, l := range lines {
				b.phys = append(b.phys, len(wrapped))
				wrapped = append(wrapped, wrapLine(l, cw)...)
			}
			lines = wrapped
		}
		total = len(lines)
	} else {
		total = wp.count()
	}
	maxOff := max(0, total-ch)
	b.off = min(b.off, maxOff)
	start := b.off
	if b.fromEnd {
		start = maxOff - b.off
	}
	if windowed {
		lines = make([]string, start, start+ch)
		lines = append(lines, wp.window(start, min(total, start+ch))...)
	}
	scroll := ""
	if total > ch && ch > 0 {
		arrows := ""
		if start > 0 {
			arrows += "↑"
		}
		if start < maxOff {
			arrows += "↓"
		}
		scroll = fmt.Sprintf(" %d-%d of %d %s ", start+1, start+ch, total, arrows)
	}
	if b.hoff > 0 {
		scroll += fmt.Sprintf("← %d ", b.hoff)
	}
	cur := -1
	if windowed && b.focused {
		if lp, ok := b.p.(*logPane); ok && len(lp.rows) > 0 {
			cur = b.cursor
			if cur < 0 {
				cur = len(lp.rows) - 1
			}
		}
	}
	var sb strings.Builder
	sb.WriteString(edge(border.TopLeft, border.Top, border.TopRight, ts.Render(title), cw, bs))
	left, right := bs.Render(border.Left), bs.Render(border.Right) // styled once, not per line
	for j := 0; j < ch; j++ {
		line := ""
		if k := start + j; k < len(lines) {
			line = lines[k]
			if b.hoff > 0 && !b.wrap {
				line = ansi.Cut(line, b.hoff, b.hoff+cw+1)
			}
			if k == cur {
				line = b.st.Cursor.Render("▸") + ansi.Cut(line, 1, cw+b.hoff+1)
			}
		}
		sb.WriteString("\n" + left + fit(line, cw) + right)
	}
	sb.WriteString("\n" + edge(border.BottomLeft, border.Bottom, border.BottomRight, b.st.Pane.Scroll.Render(scroll), cw, bs))
	return sb.String()
}

// edge draws a top or bottom border of inner width cw with a label after
// one border glyph.
func edge(left, fill, right, label string, cw int, bs lipgloss.Style) string {
	lw := lipgloss.Width(label)
	if lw > cw-1 {
		label = fit(label, max(0, cw-1))
		lw = lipgloss.Width(label)
	}
	if lw == 0 {
		return bs.Render(left + strings.Repeat(fill, cw) + right)
	}
	return bs.Render(left+fill) + label + bs.Render(strings.Repeat(fill, cw-1-lw)+right)
}
