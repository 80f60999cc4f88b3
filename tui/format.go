package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/serq/serq/interp"
)

// fmtCount writes a number as the log does (interp.WordNum): a whole
// number with thousands separators (1,488), any other with four
// significant digits below 1,000 and rounded above, NaN as "–".
func fmtCount(x float64) string { return interp.WordNum(x) }

// fmtValue writes a gauge or mean: four significant digits, NaN as "–".
func fmtValue(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e6 {
		return fmtCount(x)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// fmtDur writes a duration in seconds as the log does (interp.WordDur):
// 412 µs, 9.4 ms, 2.31 s, 1234 s.
func fmtDur(s float64) string { return interp.WordDur(s) }

// fmtSpan writes a slice length or a speed factor exactly enough to tell
// two powers of two apart: 100 ms, 1.6 s, 0.78 ms.
func fmtSpan(s float64) string {
	a := math.Abs(s)
	switch {
	case a < 1e-3:
		return strconv.FormatFloat(s*1e6, 'g', 3, 64) + " µs"
	case a < 1:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + " ms"
	}
	return strconv.FormatFloat(s, 'g', 4, 64) + " s"
}

// fmtSpeed writes a speed in simulated seconds per wall-clock second.
func fmtSpeed(x float64) string {
	return strconv.FormatFloat(x, 'g', 3, 64) + " s/s"
}

// fmtPct writes a fraction as a percentage.
func fmtPct(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	p := x * 100
	if p > 0 && p < 1 {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// Bar glyphs: meaning is in the glyph, colour only repeats it.
const (
	glyphUsed   = '█'
	glyphCached = '▒'
	glyphFree   = '░'
)

// bar draws a w-cell bar of used, then cached, then free, against cap. A
// segment that is not zero gets at least one cell.
func bar(st *Styles, w int, used, cached, cap float64) string {
	if w <= 0 {
		return ""
	}
	if !(cap > 0) || math.IsInf(cap, 0) {
		return st.Dim.Render(strings.Repeat("?", w))
	}
	cells := func(x float64) int {
		if !(x > 0) {
			return 0
		}
		n := int(math.Round(x / cap * float64(w)))
		if n < 1 {
			n = 1
		}
		return n
	}
	u := min(cells(used), w)
	c := min(cells(cached), w-u)
	f := w - u - c
	return st.Used.Render(strings.Repeat(string(glyphUsed), u)) +
		st.Cached.Render(strings.Repeat(string(glyphCached), c)) +
		st.Free.Render(strings.Repeat(string(glyphFree), f))
}

// fit truncates s to w cells (with an ellipsis) and pads it with spaces to
// exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if n := lipgloss.Width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// padRight left-aligns s in w cells.
func padRight(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// plural writes "1 lease", "2 leases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// fmtShort writes a count in at most about five cells: 1,488, 12.3k, 160k,
// 2.5M.
func fmtShort(x float64) string { return siCount(x, 1e4, fmtCount) }

// siCount writes x in three digits with a k, M or G suffix when |x| is at
// least from, and with small below it (or when x is not finite).
func siCount(x, from float64, small func(float64) string) string {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || a < from:
		return small(x)
	case a < 1e6:
		return strconv.FormatFloat(x/1e3, 'g', 3, 64) + "k"
	case a < 1e9:
		return strconv.FormatFloat(x/1e6, 'g', 3, 64) + "M"
	}
	return strconv.FormatFloat(x/1e9, 'g', 3, 64) + "G"
}

// plural64 writes a count with thousands separators and the right noun.
func plural64(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmtCount(float64(n)) + " " + many
}
