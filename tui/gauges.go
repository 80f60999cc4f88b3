package tui

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/NimbleMarkets/ntcharts/sparkline"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/model"
)

// gaugesPane is the Trends pane: an ntcharts sparkline per trend of the
// run, over simulated time from 0 to now, each column the time average of
// its span: first the coupling's automatic series (per leasing pool its
// leased units and its oldest lease's age, per engine memory pool its used
// units and the requests waiting to enter its engine, at any of the pools
// it admits), then each `gauge` of the program, then the running mean of
// each observe. A tour or :trends picks the rows shown and their order.
// Values come from every frame and from the samples the service takes
// while it runs many events (bounded: series merge their bins as the run
// grows), so a chart has a history however the run was stepped. Each row
// ends with the value now and the chart's scale: from the least to the
// greatest of its columns and its value now (a pool's units against its
// cap). A narrow pane drops the scale, then shortens the labels, to keep
// its sparklines.
//
// A chart is drawn again only when its columns change: ntcharts draws a
// canvas cell by cell, which costs more than the rest of the screen.
type gaugesPane struct {
	st     *Styles
	rows   []*gaugeRow
	order  []int // the rows shown, in order (a tour's or :trends'); nil: all
	scaleW int   // the scale column, 0 when dropped
	w, h   int
	labelW int
	sparkW int
	sparkH int
	now    float64
	end    float64 // the charts' end time: chartEnd(now)
	warmup float64
	frame  *frameMsg
}

// gaugeRow is one chart.
type gaugeRow struct {
	name    string
	gauge   int // index into Snapshot.Gauges, or -1
	observe int // index into Snapshot.Observes, or -1
	pool    int // index into Snapshot.Pools, or -1
	field   poolField
	dur     bool    // the value is a duration in seconds
	cap     float64 // > 0: the chart's top is the pool's cap
	hist    series
	value   float64
	spark   sparkline.Model
	// The columns' heights and the top last drawn, and the chart's text
	// then.
	drawn []int
	top   float64
	lo    float64
	// scaleHi is the greatest column drawn.
	scaleHi float64
	view    string
	fresh   bool // drawn at the current size
}

type poolField int

const (
	fieldLeased poolField = iota
	fieldOldest
	fieldUsed
	fieldWaiting
)

const (
	valueW   = 10 // the value column
	scaleW   = 13 // the scale column
	minSpark = 10 // the narrowest sparkline worth drawing before dropping the scale
)

func newGaugesPane(st *Styles, p *model.Program, warmup float64) *gaugesPane {
	gp := &gaugesPane{st: st, warmup: warmup}
	leasing := map[int]bool{}
	for _, i := range leasingPools(p) {
		leasing[i] = true
		label := p.Pools[i].Label
		gp.rows = append(gp.rows,
			&gaugeRow{name: label + " leased", gauge: -1, observe: -1, pool: i, field: fieldLeased, cap: poolCap(p, i)},
			&gaugeRow{name: label + " oldest", gauge: -1, observe: -1, pool: i, field: fieldOldest, dur: true})
	}
	// Engine memory pools: those that lease last (their queue is the
	// prefill's, the decoders' the coupling's).
	var engine []int
	for _, k := range []bool{false, true} {
		for _, i := range enginePools(p) {
			if leasing[i] == k {
				engine = append(engine, i)
			}
		}
	}
	for _, i := range engine {
		label := p.Pools[i].Label
		eng := p.Stages[p.Pools[i].MemoryOf].Label
		gp.rows = append(gp.rows,
			&gaugeRow{name: label + " used", gauge: -1, observe: -1, pool: i, field: fieldUsed, cap: poolCap(p, i)},
			&gaugeRow{name: eng + " waiting", gauge: -1, observe: -1, pool: i, field: fieldWaiting})
	}
	for i, g := range p.Gauges {
		gp.rows = append(gp.rows, &gaugeRow{name: g.Name, gauge: i, observe: -1, pool: -1})
	}
	for i, o := range p.Observes {
		gp.rows = append(gp.rows, &gaugeRow{name: o + " mean", gauge: -1, observe: i, pool: -1, dur: o == "ttft" || o == "response"})
	}
	for _, r := range gp.rows {
		r.value = math.NaN()
		gp.labelW = max(gp.labelW, len(r.name))
	}
	gp.labelW = min(gp.labelW, 18)
	return gp
}

// row is the index of the row named, -1 if none.
func (p *gaugesPane) row(name string) int {
	for i, r := range p.rows {
		if r.name == name {
			return i
		}
	}
	return -1
}

// rowNames are the rows' names, in the pane's order.
func (p *gaugesPane) rowNames() []string {
	out := make([]string, len(p.rows))
	for i, r := range p.rows {
		out[i] = r.name
	}
	return out
}

// pick shows these rows in this order (nil: every row).
func (p *gaugesPane) pick(rows []int) {
	w, h := p.w, p.h
	p.order = rows
	p.w, p.h = -1, -1
	if w > 0 {
		p.setSize(w, h) // lay the rows out again
	}
}

// visible are the rows shown, in order.
func (p *gaugesPane) visible() []*gaugeRow {
	if p.order == nil {
		return p.rows
	}
	out := make([]*gaugeRow, len(p.order))
	for i, k := range p.order {
		out[i] = p.rows[k]
	}
	return out
}

// enginePools are the pools that are an engine's memory.
func enginePools(p *model.Program) []int {
	var out []int
	for i, pl := range p.Pools {
		if pl.MemoryOf >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// poolCap is pool i's cap when finite, else 0.
func poolCap(p *model.Program, i int) float64 {
	if c := float64(p.Pools[i].Cap); c > 0 && !math.IsInf(c, 0) {
		return c
	}
	return 0
}

func (p *gaugesPane) title() string { return "Trends" }

func (p *gaugesPane) setSize(w, h int) {
	if w == p.w && h == p.h {
		return
	}
	p.w, p.h = w, h
	for _, r := range p.rows {
		p.labelW = max(p.labelW, len(r.name))
	}
	p.labelW = min(p.labelW, 18)
	// A narrow pane drops the scale, then shortens the labels, before it
	// drops the sparklines.
	p.scaleW = scaleW
	p.sparkW = w - p.labelW - valueW - p.scaleW - 3
	if p.sparkW < minSpark {
		p.scaleW = 0
		p.sparkW = w - p.labelW - valueW - 2
	}
	if p.sparkW < minSpark {
		p.labelW = max(8, w-valueW-2-minSpark)
		p.sparkW = w - p.labelW - valueW - 2
	}
	if p.sparkW < 4 {
		p.sparkW = 0
	}
	p.sparkH = 1
	if n := len(p.visible()); n > 0 {
		p.sparkH = max(1, min(3, (h-1)/n))
	}
	for _, r := range p.rows {
		r.fresh = false
		if p.sparkW > 0 {
			r.spark = sparkline.New(p.sparkW, p.sparkH, sparkline.WithNoAutoMaxValue(), sparkline.WithStyle(p.st.Spark))
		}
	}
	p.redraw()
}

// setFrame records the frame's samples and values: after a restart the
// history starts over; after going back the charts end at the new time
// and keep the part after it for when the run passes it again.
func (p *gaugesPane) setFrame(f *frameMsg) {
	p.frame = f
	if f.kind == reqRestart {
		for _, r := range p.rows {
			r.hist = series{}
		}
	} else if f.back {
		for _, r := range p.rows {
			r.hist.rewind(f.snap.Time)
		}
	}
	for _, sm := range f.samples {
		for _, r := range p.rows {
			r.hist.add(sm.T, r.pick(&sm))
		}
	}
	cur := f.trends
	for _, r := range p.rows {
		r.value = r.pick(&cur)
		r.hist.add(cur.T, r.value)
	}
	p.now = f.snap.Time
	p.redraw()
}

// pick returns the row's value among a sample's.
func (r *gaugeRow) pick(sm *debugger.Sample) float64 {
	switch {
	case r.gauge >= 0 && r.gauge < len(sm.Gauges):
		return sm.Gauges[r.gauge]
	case r.observe >= 0 && r.observe < len(sm.Means):
		return sm.Means[r.observe]
	case r.pool >= 0 && r.pool < len(sm.Pools):
		ps := sm.Pools[r.pool]
		switch r.field {
		case fieldLeased:
			return ps.Leased
		case fieldOldest:
			return ps.Oldest
		case fieldUsed:
			return ps.Used
		case fieldWaiting:
			return ps.Waiting
		}
	}
	return math.NaN()
}

// redraw pushes the rows' columns into their sparklines (retained mode:
// drawn in Update, only shown in View), for the rows whose columns or
// size changed.
func (p *gaugesPane) redraw() {
	if p.sparkW == 0 {
		return
	}
	p.end = chartEnd(p.now)
	levels := 8 * p.sparkH
	for _, r := range p.visible() {
		cols := r.hist.columns(p.sparkW, p.end, p.now)
		// Columns after now have no value yet.
		for i := range cols {
			if float64(i)*p.end/float64(p.sparkW) >= p.now {
				cols[i] = math.NaN()
			}
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, c := range cols {
			if math.IsNaN(c) {
				cols[i] = 0
				continue
			}
			lo, hi = math.Min(lo, c), math.Max(hi, c)
			if c < 0 {
				cols[i] = 0
			}
		}
		if math.IsInf(lo, 1) {
			lo, hi = 0, 0
		}
		// the scale holds the value now too, which a column's time
		// average may not reach
		if !math.IsNaN(r.value) {
			lo, hi = math.Min(lo, r.value), math.Max(hi, r.value)
		}
		top := hi
		if top <= 0 {
			top = 1
		}
		r.lo, r.scaleHi = lo, hi
		// The chart is drawn again only when a column's height in eighths
		// of a cell, or the top, changed.
		q := make([]int, len(cols))
		for i, c := range cols {
			q[i] = int(math.Round(c / top * float64(levels)))
		}
		if r.fresh && top == r.top && slices.Equal(q, r.drawn) {
			continue
		}
		r.drawn, r.top, r.fresh = q, top, true
		r.spark.Clear()
		r.spark.SetMax(top)
		r.spark.PushAll(cols)
		r.spark.Draw()
		r.view = r.spark.View()
	}
}

// scaleNum writes a count of units rounded, in three digits: 16, 812,
// 5.28k, 160k, 1.5M.
func scaleNum(x float64) string { return siCount(math.Round(x), 1e3, fmtValue) }

// scaleValue is a bound of a row's scale that is not a pool's units: two
// significant digits below 10 (a column is a time average: a count of
// waiting requests averages 0.075, not 0.07492), else as scaleNum.
func scaleValue(x float64) string {
	if math.IsNaN(x) || math.Abs(x) >= 10 || x == math.Trunc(x) {
		return scaleNum(x)
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}

// chartEnd is the time the charts end at: 1, 2 or 5 times a power of ten
// seconds, the first not before now, so the columns keep their spans (and
// the charts need no drawing) until the run passes it.
func chartEnd(now float64) float64 {
	if !(now > 0) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(now)))
	for _, k := range []float64{1, 2, 5, 10} {
		if k*e >= now {
			return k * e
		}
	}
	return 10 * e
}

// scale is the row's scale: the chart runs from 0 (or its least column,
// if below) to its greatest column; for a pool's units, against the cap.
func (r *gaugeRow) scale() string {
	if r.cap > 0 {
		return scaleNum(math.Min(0, r.lo)) + "–" + scaleNum(r.scaleHi) + "/" + scaleNum(r.cap)
	}
	f := scaleValue
	if r.dur {
		f = fmtDur
	}
	return f(math.Min(0, r.lo)) + "–" + f(r.scaleHi)
}

func (p *gaugesPane) lines() []string {
	st := p.st
	if len(p.rows) == 0 {
		return []string{st.Dim.Render("no trend: the program has no leasing or engine pool, gauge or observe")}
	}
	var out []string
	for _, r := range p.visible() {
		val := fmtValue(r.value)
		if r.dur {
			val = fmtDur(r.value)
		}
		if math.IsNaN(r.value) && r.observe >= 0 {
			val = "no sample"
			if p.now < p.warmup {
				val = "warm-up"
			}
		}
		label := st.Label.Render(fit(r.name, p.labelW))
		if p.sparkW == 0 {
			out = append(out, label+" "+padLeft(val, max(0, p.w-p.labelW-1)))
			continue
		}
		rows := strings.Split(r.view, "\n")
		for i := 0; i < p.sparkH; i++ {
			line := ""
			if i < len(rows) {
				line = rows[i]
			}
			l, v, sc := strings.Repeat(" ", p.labelW), "", ""
			if i == 0 {
				l, v, sc = label, val, r.scale()
			}
			row := l + " " + fit(line, p.sparkW) + " " + padLeft(v, valueW)
			if p.scaleW > 0 {
				row += " " + st.Dim.Render(fit(sc, p.scaleW))
			}
			out = append(out, row)
		}
	}
	if p.sparkW > 0 {
		left, right := "0 s", fmtDur(p.end)
		mid := "now " + fmtDur(p.now) + " · time average per column"
		gap := p.sparkW - len(left) - len([]rune(right))
		axis := left + strings.Repeat(" ", max(1, gap)) + right
		if gap > len(mid)+2 {
			pad := gap - len(mid)
			axis = left + strings.Repeat(" ", pad/2) + mid + strings.Repeat(" ", pad-pad/2) + right
		}
		out = append(out, strings.Repeat(" ", p.labelW+1)+st.Dim.Render(axis))
	}
	return out
}
