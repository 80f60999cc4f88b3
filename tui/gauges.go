package tui

import (
	"math"
	"strings"

	"github.com/NimbleMarkets/ntcharts/sparkline"

	"github.com/serq/serq/model"
)

// gaugesPane draws an ntcharts sparkline per `gauge` of the program and
// for the running means of the automatic ttft and response observes, over
// simulated time from 0 to now: each column is the time average of its
// span. Values come from every frame and from the samples the driver takes
// while it runs many events, so a chart has a history however the run was
// stepped. The current value closes each row.
type gaugesPane struct {
	st     *Styles
	rows   []*gaugeRow
	w, h   int
	labelW int
	sparkW int
	sparkH int
	now    float64
	warmup float64
	frame  *frameMsg
}

// gaugeRow is one chart: a gauge, or an observe's running mean.
type gaugeRow struct {
	name    string
	gauge   int  // index into Snapshot.Gauges, or -1
	observe int  // index into Snapshot.Observes, or -1
	dur     bool // the value is a duration in seconds
	hist    series
	value   float64
	spark   sparkline.Model
}

const valueW = 10 // the value column

func newGaugesPane(st *Styles, p *model.Program, warmup float64) *gaugesPane {
	gp := &gaugesPane{st: st, warmup: warmup}
	for i, g := range p.Gauges {
		gp.rows = append(gp.rows, &gaugeRow{name: g.Name, gauge: i, observe: -1})
	}
	for _, name := range []string{"ttft", "response"} {
		for i, o := range p.Observes {
			if o == name {
				gp.rows = append(gp.rows, &gaugeRow{name: name + " mean", gauge: -1, observe: i, dur: true})
			}
		}
	}
	for _, r := range gp.rows {
		r.value = math.NaN()
		gp.labelW = max(gp.labelW, len(r.name))
	}
	gp.labelW = min(gp.labelW, 16)
	return gp
}

func (p *gaugesPane) title() string { return "Gauges" }

func (p *gaugesPane) setSize(w, h int) {
	p.w, p.h = w, h
	p.sparkW = w - p.labelW - valueW - 2
	if p.sparkW < 4 {
		p.sparkW = 0
	}
	p.sparkH = 1
	if n := len(p.rows); n > 0 {
		p.sparkH = max(1, min(3, (h-1)/n))
	}
	for _, r := range p.rows {
		if p.sparkW > 0 {
			r.spark = sparkline.New(p.sparkW, p.sparkH, sparkline.WithNoAutoMaxValue(), sparkline.WithStyle(p.st.Spark))
		}
	}
	p.redraw()
}

// setFrame records the frame's samples and values: after a restart the
// history starts over, and after going back it is cut at the new time.
func (p *gaugesPane) setFrame(f *frameMsg) {
	p.frame = f
	if f.kind == reqRestart {
		for _, r := range p.rows {
			r.hist = series{}
		}
	} else if f.back {
		for _, r := range p.rows {
			r.hist.truncate(f.snap.Time)
		}
	}
	for _, sm := range f.samples {
		for _, r := range p.rows {
			r.hist.add(sm.t, r.pick(sm.gauges, sm.means))
		}
	}
	cur := sampleOf(f.snap)
	for _, r := range p.rows {
		r.value = r.pick(cur.gauges, cur.means)
		r.hist.add(cur.t, r.value)
	}
	p.now = f.snap.Time
	p.redraw()
}

// pick returns the row's value among a sample's.
func (r *gaugeRow) pick(gauges, means []float64) float64 {
	switch {
	case r.gauge >= 0 && r.gauge < len(gauges):
		return gauges[r.gauge]
	case r.observe >= 0 && r.observe < len(means):
		return means[r.observe]
	}
	return math.NaN()
}

// redraw pushes every row's columns into its sparkline (retained mode:
// drawn in Update, only shown in View).
func (p *gaugesPane) redraw() {
	if p.sparkW == 0 {
		return
	}
	for _, r := range p.rows {
		cols := r.hist.columns(p.sparkW, p.now)
		top := 0.0
		for i, c := range cols {
			if math.IsNaN(c) || c < 0 {
				cols[i] = 0
				continue
			}
			top = math.Max(top, c)
		}
		if top == 0 {
			top = 1
		}
		r.spark.Clear()
		r.spark.SetMax(top)
		r.spark.PushAll(cols)
		r.spark.Draw()
	}
}

func (p *gaugesPane) lines() []string {
	st := p.st
	if len(p.rows) == 0 {
		return []string{st.Dim.Render("no gauge, and no ttft or response observe")}
	}
	var out []string
	for _, r := range p.rows {
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
		rows := strings.Split(r.spark.View(), "\n")
		for i := 0; i < p.sparkH; i++ {
			line := ""
			if i < len(rows) {
				line = rows[i]
			}
			l, v := strings.Repeat(" ", p.labelW), ""
			if i == 0 {
				l = label
			}
			if i == 0 {
				v = val
			}
			out = append(out, l+" "+fit(line, p.sparkW)+" "+padLeft(v, valueW))
		}
	}
	if p.sparkW > 0 {
		left, right := "0 s", fmtDur(p.now)
		mid := "time average per column"
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
