package draw

import (
	"strings"
	"unicode/utf8"

	"github.com/serq/serq/model"
)

// Text renders the figure in box-drawing characters, at most width
// columns wide where it can (a box is never narrower than its title
// allows, and the side-by-side layout falls back to one column of boxes
// when it does not fit). With a non-nil live, every row of a box gets a
// second line with the live numbers of its pool or stage.
func Text(p *model.Program, width int, live Live) string {
	if width < 40 {
		width = 40
	}
	s := build(p)
	t := &textFig{s: s, width: width, live: live}
	return t.render()
}

// canvas is a grid of runes that grows downwards.
type canvas struct{ rows [][]rune }

func (c *canvas) set(x, y int, r rune) {
	if x < 0 || y < 0 {
		return
	}
	for len(c.rows) <= y {
		c.rows = append(c.rows, nil)
	}
	row := c.rows[y]
	for len(row) <= x {
		row = append(row, ' ')
	}
	row[x] = r
	c.rows[y] = row
}

// text writes s from (x, y) and returns the column after it.
func (c *canvas) text(x, y int, s string) int {
	for _, r := range s {
		c.set(x, y, r)
		x++
	}
	return x
}

func (c *canvas) hline(x0, x1, y int, r rune) {
	for x := x0; x <= x1; x++ {
		c.set(x, y, r)
	}
}

func (c *canvas) vline(x, y0, y1 int, r rune) {
	for y := y0; y <= y1; y++ {
		c.set(x, y, r)
	}
}

// frame draws a box of outer size w×h at (x, y) with title in its top
// border.
func (c *canvas) frame(x, y, w, h int, title string) {
	c.set(x, y, '┌')
	c.hline(x+1, x+w-2, y, '─')
	c.set(x+w-1, y, '┐')
	c.vline(x, y+1, y+h-2, '│')
	c.vline(x+w-1, y+1, y+h-2, '│')
	c.set(x, y+h-1, '└')
	c.hline(x+1, x+w-2, y+h-1, '─')
	c.set(x+w-1, y+h-1, '┘')
	if title != "" {
		c.text(x+2, y, " "+clip(title, w-6)+" ")
	}
}

func (c *canvas) String() string {
	var b strings.Builder
	for _, row := range c.rows {
		b.WriteString(strings.TrimRight(string(row), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// runeLen is the number of runes of s, which is its width in a terminal for
// every character the figure uses.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// clip cuts s to n runes, ending it with … when cut.
func clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if runeLen(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap breaks s into lines of at most n runes at spaces; the lines after
// the first start with indent.
func wrap(s string, n int, indent string) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case runeLen(line)+1+runeLen(w) <= n:
			line += " " + w
		default:
			lines = append(lines, clip(line, n))
			line = indent + w
		}
	}
	if line != "" {
		lines = append(lines, clip(line, n))
	}
	return lines
}

type textFig struct {
	s     *scene
	width int
	live  Live
	c     canvas
	y     int // the next free line
}

// boxText is a box's content laid out at an inner width.
type boxText struct {
	b      *box
	iw     int      // inner width
	lines  []string // content lines
	starts []int    // first line of each element
}

// layoutBox lays b out at most maxIW wide inside.
func (t *textFig) layoutBox(b *box, maxIW int) boxText {
	title := b.title
	if b.role != "" {
		title += " · " + b.role
	}
	iw := runeLen(title) + 4
	for _, e := range b.elems {
		one := e.head + " · " + e.detail
		n := runeLen(one)
		if n > maxIW {
			n = max(runeLen(e.head), 2+runeLen(e.detail))
		}
		iw = max(iw, n)
	}
	return t.boxAt(b, min(iw, maxIW))
}

// boxAt lays b out exactly iw wide inside.
func (t *textFig) boxAt(b *box, iw int) boxText {
	bt := boxText{b: b, iw: iw}
	for _, e := range b.elems {
		bt.starts = append(bt.starts, len(bt.lines))
		if one := e.head + " · " + e.detail; runeLen(one) <= iw {
			bt.lines = append(bt.lines, one)
		} else {
			bt.lines = append(bt.lines, clip(e.head, iw), clip("  "+e.detail, iw))
		}
		if t.live != nil {
			bt.lines = append(bt.lines, clip("  "+t.liveLine(e), iw))
		}
	}
	return bt
}

func (t *textFig) liveLine(e elem) string {
	switch {
	case e.pool >= 0:
		return t.live.PoolLine(e.pool)
	case e.stage >= 0:
		return t.live.StageLine(e.stage)
	}
	return ""
}

// drawBox draws bt at (x, y), h lines high in all, the NIC (if any) on
// its last content lines. It returns the line of each element's first line.
func (t *textFig) drawBox(bt boxText, x, y, h int) []int {
	title := bt.b.title
	if bt.b.role != "" {
		title += " · " + bt.b.role
	}
	t.c.frame(x, y, bt.iw+4, h, title)
	pad := h - 2 - len(bt.lines)
	rows := make([]int, len(bt.starts))
	for i, st := range bt.starts {
		end := len(bt.lines)
		if i+1 < len(bt.starts) {
			end = bt.starts[i+1]
		}
		off := 0
		if i == bt.b.nic {
			off = pad
		}
		rows[i] = y + 1 + st + off
		for l := st; l < end; l++ {
			t.c.text(x+2, y+1+l+off, bt.lines[l])
		}
	}
	return rows
}

func (t *textFig) render() string {
	s := t.s
	if len(s.cols) > 0 || len(s.gateways) > 0 {
		t.renderQueues()
	} else {
		t.renderChain()
	}
	t.renderOthers()
	return t.c.String()
}

// renderQueues draws the router, the columns of members and the links.
func (t *textFig) renderQueues() {
	s := t.s
	side := true
	maxIW := 44
	var cols [][]boxText
	var xs []int
	var total int
	gaps := t.gaps()
	for ; ; maxIW-- {
		cols, xs, total = t.layoutColumns(maxIW, gaps)
		if total <= t.width || maxIW <= 28 {
			break
		}
	}
	if total < t.width {
		cols, xs, total = t.grow(cols, xs, total, gaps)
	}
	if total > t.width {
		side = false
		maxIW = t.width - 4
		cols, _, _ = t.layoutColumns(maxIW, gaps)
		xs = make([]int, len(cols))
		total = 0
		for _, c := range cols {
			for _, bt := range c {
				total = max(total, bt.iw+4)
			}
		}
	}
	// Arrivals, then the router.
	t.c.text(0, t.y, s.arrivals)
	t.y++
	if len(s.gateways) > 0 {
		t.c.set(2, t.y, '│')
		t.c.set(2, t.y+1, '▼')
		t.y += 2
		var lines []string
		for _, g := range s.gateways {
			l := "entries: " + g.entries
			if len(s.gateways) > 1 {
				l = g.title + " · " + g.role + ", " + l
			}
			lines = append(lines, wrap(l, total-4, "  ")...)
		}
		title := "router"
		if len(s.gateways) == 1 {
			title = s.gateways[0].title + " · " + s.gateways[0].role
		}
		t.c.frame(0, t.y, total, len(lines)+2, title)
		for i, l := range lines {
			t.c.text(2, t.y+1+i, l)
		}
		t.y += len(lines) + 1 // the bottom border, which the arrows leave from
	}
	if !side {
		if len(s.gateways) > 0 {
			t.c.set(2, t.y, '┬')
			t.y++
		}
		for ci := range cols {
			if ci > 0 {
				t.y++
			}
			t.column(ci, 0, cols[ci], total, len(s.gateways) > 0)
		}
		t.legend()
		return
	}
	// The arrows from the router to each column.
	if len(s.gateways) > 0 {
		for ci := range cols {
			x := xs[ci] + 2
			t.c.set(x, t.y, '┬')
			room := t.width - x - 2
			if ci+1 < len(xs) {
				room = xs[ci+1] - x - 3
			}
			t.c.set(x, t.y+1, '│')
			t.c.text(x+2, t.y+1, clip(s.cols[ci].entries, room))
			t.c.set(x, t.y+2, '▼')
		}
		t.y += 3
	}
	// The members, row by row.
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	for r := 0; r < rows; r++ {
		h := 0
		for _, c := range cols {
			if r < len(c) {
				h = max(h, len(c[r].lines)+2)
			}
		}
		at := make([][]int, len(cols))
		for ci, c := range cols {
			if r < len(c) {
				at[ci] = t.drawBox(c[r], xs[ci], t.y, h)
			}
		}
		if r == 0 {
			for _, l := range s.links {
				t.connect(l, cols, xs, at)
			}
		}
		t.y += h
	}
	t.legend()
}

// grow widens the columns side by side to fill the figure's width: each
// takes an equal share of the columns left over (the last one the rest),
// its boxes laid out again at the new inner width, so a line split in two
// at the narrower width may now fit in one. It returns the columns, their
// x and the total width.
func (t *textFig) grow(cols [][]boxText, xs []int, total int, gaps []int) ([][]boxText, []int, int) {
	if len(cols) == 0 || total >= t.width {
		return cols, xs, total
	}
	slack := t.width - total
	per := slack / len(cols)
	x := 0
	for ci := range cols {
		add := per
		if ci == len(cols)-1 {
			add = slack - per*(len(cols)-1)
		}
		iw := cols[ci][0].iw + add
		c := &t.s.cols[ci]
		for bi := range c.boxes {
			cols[ci][bi] = t.boxAt(&c.boxes[bi], iw)
		}
		xs[ci] = x
		x += iw + 4
		if ci+1 < len(cols) {
			x += gaps[ci]
		}
	}
	return cols, xs, x
}

// gaps is the space between each column and the next: room for a link's
// connectors when one joins them.
func (t *textFig) gaps() []int {
	g := make([]int, len(t.s.cols))
	for i := range g {
		g[i] = 3
	}
	for _, l := range t.s.links {
		a, b := min(l.src, l.dst), max(l.src, l.dst)
		if b == a+1 {
			g[a] = 14
		}
	}
	return g
}

// layoutColumns lays out every box at most maxIW wide inside and places
// the columns side by side; it returns their x and the total width.
func (t *textFig) layoutColumns(maxIW int, gaps []int) ([][]boxText, []int, int) {
	cols := make([][]boxText, len(t.s.cols))
	xs := make([]int, len(t.s.cols))
	x := 0
	for ci := range t.s.cols {
		c := &t.s.cols[ci]
		iw := 0
		for bi := range c.boxes {
			iw = max(iw, t.layoutBox(&c.boxes[bi], maxIW).iw)
		}
		for bi := range c.boxes {
			bt := t.layoutBox(&c.boxes[bi], iw)
			bt.iw = iw
			cols[ci] = append(cols[ci], bt)
		}
		xs[ci] = x
		x += iw + 4
		if ci+1 < len(t.s.cols) {
			x += gaps[ci]
		}
	}
	return cols, xs, x
}

// column draws one column's members one under another (the narrow layout).
func (t *textFig) column(ci, x int, c []boxText, total int, arrow bool) {
	if arrow {
		t.c.set(x+2, t.y, '│')
		t.c.text(x+4, t.y, clip(t.s.cols[ci].entries, total-6))
		t.c.set(x+2, t.y+1, '▼')
		t.y += 2
	}
	for _, bt := range c {
		h := len(bt.lines) + 2
		t.drawBox(bt, x, t.y, h)
		t.y += h
	}
}

// connect draws link l between the first members of its two columns: the
// transfer's arrow between their pools and the read's double line between
// their NICs.
func (t *textFig) connect(l link, cols [][]boxText, xs []int, at [][]int) {
	a, b := l.src, l.dst
	if at[a] == nil || at[b] == nil || a == b {
		return
	}
	left, right := min(a, b), max(a, b)
	if right != left+1 {
		return
	}
	bl, br := cols[left][0], cols[right][0]
	x0 := xs[left] + bl.iw + 3 // the left box's right border
	x1 := xs[right]            // the right box's left border
	mid := (x0 + x1) / 2
	if bl.b.kv >= 0 && br.b.kv >= 0 {
		yl, yr := at[left][bl.b.kv], at[right][br.b.kv]
		t.c.set(x0, yl, '├')
		t.c.set(x1, yr, '┤')
		if yl == yr {
			t.c.hline(x0+1, x1-1, yl, '─')
		} else {
			t.c.hline(x0+1, mid-1, yl, '─')
			t.c.hline(mid+1, x1-1, yr, '─')
			t.c.vline(mid, min(yl, yr), max(yl, yr), '│')
			if yl < yr {
				t.c.set(mid, yl, '┐')
				t.c.set(mid, yr, '└')
			} else {
				t.c.set(mid, yl, '┘')
				t.c.set(mid, yr, '┌')
			}
		}
		if a == left {
			t.c.set(x1-1, yr, '▶')
		} else {
			t.c.set(x0+1, yl, '◀')
		}
		t.c.text((x0+x1)/2-1, min(yl, yr)-1, "KV")
	}
	if bl.b.nic >= 0 && br.b.nic >= 0 {
		yl, yr := at[left][bl.b.nic], at[right][br.b.nic]
		if yl == yr {
			t.c.set(x0, yl, '╞')
			t.c.set(x1, yr, '╡')
			t.c.hline(x0+1, x1-1, yl, '═')
			word := " " + l.verb() + " "
			t.c.text(x0+1+(x1-x0-1-runeLen(word))/2, yl, word)
		}
	}
}

// verb is what the reader does: read for pull, write for push.
func (l link) verb() string {
	if strings.Contains(l.rel, " push ") {
		return "write"
	}
	return "read"
}

// legend says in words what the connectors stand for.
func (t *textFig) legend() {
	for _, l := range t.s.links {
		t.y++
		lines := wrap("─▶ "+l.move+", "+l.after, t.width, "   ")
		holds := "══ " + l.rel + "; holds " + l.srcNIC + " and " + l.dstNIC + " at once"
		if l.share != "" {
			holds += ", " + l.share
		}
		lines = append(lines, wrap(holds, t.width, "   ")...)
		for _, s := range lines {
			t.c.text(0, t.y, s)
			t.y++
		}
	}
}

// renderChain draws a program without queues: its stations one under
// another in the order sessions reach them.
func (t *textFig) renderChain() {
	t.c.text(0, t.y, t.s.arrivals)
	t.y++
	for _, b := range t.s.chain {
		t.c.set(2, t.y, '│')
		t.c.set(2, t.y+1, '▼')
		t.y += 2
		bt := t.layoutBox(&b, t.width-4)
		h := len(bt.lines) + 2
		t.drawBox(bt, 0, t.y, h)
		t.y += h
	}
}

// renderOthers lists the stages and pools that no box holds.
func (t *textFig) renderOthers() {
	if len(t.s.others) == 0 {
		return
	}
	var parts []string
	for _, e := range t.s.others {
		parts = append(parts, e.head+" ("+e.detail+")")
	}
	t.y++
	for _, s := range wrap("also: "+strings.Join(parts, ", "), t.width, "      ") {
		t.c.text(0, t.y, s)
		t.y++
	}
}
