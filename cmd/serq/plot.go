package main

// Charts: `serq sweep --plot` draws each chosen metric against the first
// varied input, a line per combination of the other inputs, with error
// bars across seeds, as SVG and PNG (gonum/plot) and in the terminal
// (ntcharts); `serq run --plot DIR` draws a run's gauges over time and
// each observe's empirical CDF (docs/sweeps.md).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/report"
)

// plotMetrics checks the --metric names against the metrics of cols; none
// given means every observe's mean.
func plotMetrics(asked []string, cols sweepColumns) ([]string, error) {
	known := cols.metricNames()
	if len(asked) == 0 {
		var out []string
		for _, o := range cols.obs {
			out = append(out, o+".mean")
		}
		return out, nil
	}
	for _, m := range asked {
		if !slices.Contains(known, m) {
			return nil, usagef("unknown metric `%s` for --metric; the sweep's metrics are %s\nhelp: an observe's NAME.count, NAME.mean or NAME.p99, a gauge's NAME.mean, rejected or stuck, and for a program that can fail a request the failures totals (late_reads, …)",
				m, strings.Join(known, ", "))
		}
	}
	return asked, nil
}

// sweepLine is one line of a sweep chart: the points whose inputs other
// than the first are the same.
type sweepLine struct {
	label    string // "thr=512 blocksD=10000", or the metric with one input
	x, y, ci []float64
	key      int
}

// sweepLines are metric m's lines, in point order.
func sweepLines(spec *sweepSpec, sum []sweepStat, m string) []sweepLine {
	var lines []sweepLine
	inner := spec.points() / len(spec.Vary[0].Values) // points per value of the first input
	for _, s := range sum {
		if s.Metric != m || math.IsNaN(s.Mean) {
			continue
		}
		key := s.Point % inner
		k := slices.IndexFunc(lines, func(l sweepLine) bool { return l.key == key })
		if k < 0 {
			vals := spec.pointValues(s.Point)
			var parts []string
			for i := 1; i < len(spec.Vary); i++ {
				parts = append(parts, spec.Vary[i].Name+"="+report.FormatFloat(vals[i]))
			}
			label := strings.Join(parts, " ")
			if label == "" {
				label = m
			}
			lines = append(lines, sweepLine{label: label, key: key})
			k = len(lines) - 1
		}
		l := &lines[k]
		l.x = append(l.x, spec.pointValues(s.Point)[0])
		l.y = append(l.y, s.Mean)
		ci := s.CI
		if math.IsInf(ci, 0) || math.IsNaN(ci) {
			ci = 0 // one seed: no bar
		}
		l.ci = append(l.ci, ci)
	}
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].key < lines[b].key })
	return lines
}

// errPoints are a line's points with their error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// sweepPlot is metric m's chart.
func sweepPlot(spec *sweepSpec, sum []sweepStat, m string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s over %s (95%% CI across seeds)", filepath.Base(spec.File), m, plural(len(spec.Seeds), "seed"))
	p.X.Label.Text = spec.Vary[0].Name
	p.Y.Label.Text = m
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	for i, l := range sweepLines(spec, sum, m) {
		pts := errPoints{XYs: make(plotter.XYs, len(l.x)), YErrors: make(plotter.YErrors, len(l.x))}
		for k := range l.x {
			pts.XYs[k] = plotter.XY{X: l.x[k], Y: l.y[k]}
			pts.YErrors[k].Low, pts.YErrors[k].High = l.ci[k], l.ci[k]
		}
		line, dots, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		dots.Color = plotutil.Color(i)
		dots.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		p.Add(line, dots, bars)
		p.Legend.Add(l.label, line, dots)
	}
	padAxes(p)
	return p, nil
}

// padAxes widens the axes' ranges by 4 % of their span on each side, so
// that a marker or an error bar at the data's edge is drawn whole (the
// data area clips what crosses it).
func padAxes(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
			continue
		}
		pad := (a.Max - a.Min) * 0.04
		if pad == 0 {
			pad = max(math.Abs(a.Min)*0.04, 0.5)
		}
		a.Min, a.Max = a.Min-pad, a.Max+pad
	}
}

// plotFileName is a metric's file name without extension: "ttft.mean" is
// "ttft_mean".
func plotFileName(m string) string { return strings.ReplaceAll(m, ".", "_") }

// writeSweepPlots writes DIR/plot/<metric>.svg and .png for each metric.
func writeSweepPlots(dir string, spec *sweepSpec, sum []sweepStat, metrics []string) error {
	pdir := filepath.Join(dir, "plot")
	if err := os.MkdirAll(pdir, 0o777); err != nil {
		return err
	}
	var names []string
	for _, m := range metrics {
		names = append(names, plotFileName(m))
	}
	files, err := safeio.FileNames("metric", names, "")
	if err != nil {
		return err
	}
	var b safeio.Batch
	defer b.Abort()
	for i, m := range metrics {
		p, err := sweepPlot(spec, sum, m)
		if err != nil {
			return err
		}
		if err := savePlot(&b, p, filepath.Join(pdir, files[i]), true); err != nil {
			return err
		}
	}
	return b.Commit()
}

// savePlot adds p to the batch out as base.svg and base.png, 16 × 10 cm
// (the PNG at 150 dpi). A legend (legend: p has one) is drawn right of the plot, outside the
// data. In the SVG, each text names generic serif after the font its
// width was measured in (Liberation Serif) and keeps that width
// (textLength), so that a viewer without the font draws it no wider.
func savePlot(out *safeio.Batch, p *plot.Plot, base string, legend bool) error {
	w, h := 16*vg.Centimeter, 10*vg.Centimeter
	for _, format := range []string{"svg", "png"} {
		var b bytes.Buffer
		var err error
		if format == "svg" {
			c := vgsvg.New(w, h)
			rec := &textWidths{Canvas: c}
			drawWithLegend(p, draw.New(rec), legend)
			if _, err = c.WriteTo(&b); err == nil {
				b = *bytes.NewBuffer(rec.fix(b.Bytes()))
			}
		} else {
			c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(150))}
			drawWithLegend(p, draw.New(c), legend)
			_, err = c.WriteTo(&b)
		}
		if err != nil {
			return err
		}
		if err := out.Create(base+"."+format, func(w *bufio.Writer) error {
			_, err := w.Write(b.Bytes())
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// drawWithLegend draws p on c within a margin of 1 mm, its legend (when
// it has one) in a column of its own at the right, level with the top of
// the data area.
func drawWithLegend(p *plot.Plot, c draw.Canvas, legend bool) {
	// A margin: a text drawn at the canvas's edge is cut there.
	c = draw.Crop(c, vg.Millimeter, -vg.Millimeter, vg.Millimeter, -vg.Millimeter)
	if !legend {
		p.Draw(c)
		return
	}
	// The title is centred over the whole canvas (over the plot alone, a
	// long one would run off its left edge), as plot.Draw places it.
	q := *p
	q.Title.Text = ""
	q.Legend = plot.NewLegend()
	if t := p.Title; t.Text != "" {
		c.FillText(t.TextStyle, vg.Point{X: c.Center().X, Y: c.Max.Y + t.TextStyle.FontExtents().Descent}, t.Text)
		c.Max.Y -= t.TextStyle.Rectangle(t.Text).Size().Y + t.Padding
	}
	leg := p.Legend
	r := leg.Rectangle(c)
	width := r.Max.X - r.Min.X + 2*vg.Millimeter
	q.Draw(draw.Crop(c, 0, -width, 0, 0))
	leg.Top, leg.Left = true, true
	leg.Draw(draw.Crop(c, c.Max.X-width+vg.Millimeter, 0, 0, 0))
}

// textWidths is an SVG canvas that notes the width of each text it draws,
// in order.
type textWidths struct {
	*vgsvg.Canvas
	widths []vg.Length
}

func (t *textWidths) FillString(f font.Face, pt vg.Point, str string) {
	t.widths = append(t.widths, f.Width(str))
	t.Canvas.FillString(f, pt, str)
}

// svgText is a text element of vgsvg's output and the font family it names.
var svgText = regexp.MustCompile(`<text ([^>]*?)font-family:([^;"]*);`)

// fix gives each text of svg its measured width and a generic family.
func (t *textWidths) fix(svg []byte) []byte {
	k := 0
	return svgText.ReplaceAllFunc(svg, func(m []byte) []byte {
		sub := svgText.FindSubmatch(m)
		attrs := string(sub[1])
		if k < len(t.widths) {
			attrs = fmt.Sprintf(`textLength="%.5g" lengthAdjust="spacingAndGlyphs" %s`, t.widths[k].Points(), attrs)
		}
		k++
		return []byte(fmt.Sprintf("<text %sfont-family:'%s',serif;", attrs, sub[2]))
	})
}

// chartMarks mark the points of a terminal chart's lines, one per line.
var chartMarks = []rune{'●', '■', '▲', '◆', '✚', '✖'}

// drawSweepCharts draws each metric's chart as text: a title, an ntcharts
// line chart (a line per combination of the other inputs, their means
// across seeds), and the legend.
func drawSweepCharts(w io.Writer, spec *sweepSpec, sum []sweepStat, metrics []string) {
	for _, m := range metrics {
		lines := sweepLines(spec, sum, m)
		if len(lines) == 0 {
			fmt.Fprintf(w, "\n%s: no values\n", m)
			continue
		}
		minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, l := range lines {
			for k := range l.x {
				minX, maxX = min(minX, l.x[k]), max(maxX, l.x[k])
				minY, maxY = min(minY, l.y[k]), max(maxY, l.y[k])
			}
		}
		if maxX == minX {
			maxX = minX + 1
		}
		if maxY == minY {
			maxY = minY + 1
		}
		xs, ys := niceTicks(minX, maxX, 6), niceTicks(minY, maxY, 4)
		minX, maxX = min(minX, xs[0]), max(maxX, xs[len(xs)-1])
		minY, maxY = min(minY, ys[0]), max(maxY, ys[len(ys)-1])
		// The chart's own labels fall where its columns do (0.4215); its
		// axes are drawn with blank labels as wide as the ticks' and the
		// ticks written at their places.
		wide := 0
		for _, v := range ys {
			wide = max(wide, len(report.FormatFloat(v)))
		}
		blank := func(int, float64) string { return strings.Repeat(" ", wide) }
		c := linechart.New(72, 16, minX, maxX, minY, maxY,
			linechart.WithXYSteps(12, 3),
			linechart.WithXLabelFormatter(blank), linechart.WithYLabelFormatter(blank))
		c.DrawXYAxisAndLabel()
		// A point (x, y) is drawn at column o.X+1+ScaleFloat64Point's X and
		// row o.Y-1-its Y.
		o := c.Origin()
		next := 0 // the first column free for an x label
		for _, v := range xs {
			s := report.FormatFloat(v)
			col := o.X + 1 + int(math.Round(c.ScaleFloat64Point(canvas.Float64Point{X: v, Y: minY}).X))
			col = min(col, c.Canvas.Width()-len(s))
			if col >= next {
				c.Canvas.SetString(canvas.Point{X: col, Y: o.Y + 1}, s)
				next = col + len(s) + 1
			}
		}
		for _, v := range ys {
			s := report.FormatFloat(v)
			row := o.Y - 1 - int(math.Round(c.ScaleFloat64Point(canvas.Float64Point{X: minX, Y: v}).Y))
			c.Canvas.SetString(canvas.Point{X: o.X - len(s), Y: row}, s)
		}
		var legend []string
		for i, l := range lines {
			st := lipgloss.NewStyle().Foreground(lipgloss.ANSIColor(uint(1 + i%6)))
			for k := 1; k < len(l.x); k++ {
				c.DrawBrailleLineWithStyle(canvas.Float64Point{X: l.x[k-1], Y: l.y[k-1]}, canvas.Float64Point{X: l.x[k], Y: l.y[k]}, st)
			}
			mark := chartMarks[i%len(chartMarks)]
			for k := range l.x {
				c.DrawRuneWithStyle(canvas.Float64Point{X: l.x[k], Y: l.y[k]}, mark, st)
			}
			legend = append(legend, st.Render(fmt.Sprintf("  %c %s", mark, l.label)))
		}
		fmt.Fprintf(w, "\n%s against %s (mean over %s)\n%s\n%s\n", m, spec.Vary[0].Name, plural(len(spec.Seeds), "seed"), c.View(), strings.Join(legend, "\n"))
	}
}

// niceTicks are the multiples in [lo, hi] (widened to the nearest ones
// outside) of the smallest step of 1, 2 or 5 times a power of ten that
// makes at most n+1 of them.
func niceTicks(lo, hi float64, n int) []float64 {
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(m*step) <= float64(n)+1e-9 {
			step *= m
			break
		}
	}
	first, last := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	var out []float64
	for k := first; k <= last; k++ {
		// Rounded to the step's decimals: 3 × 0.1 is 0.3, not 0.30000000000000004.
		d := max(0, -math.Floor(math.Log10(step)))
		out = append(out, math.Round(k*step*math.Pow(10, d))/math.Pow(10, d))
	}
	return out
}

// maxPlotPoints bounds the points of a run chart: a longer gauge series is
// drawn as its time average over this many equal windows, a larger sample
// as this many quantiles.
const maxPlotPoints = 2000

// writeRunPlots writes DIR/gauge_<name>.svg/.png, a gauge's value over
// time, and DIR/cdf_<name>.svg/.png, an observe's empirical CDF, for every
// gauge and every observe with samples.
//
// The names are the program's, made file names that stay in DIR
// (safeio.FileNames); the charts are written as one batch, renamed into
// place together or not at all, with DIR locked against another serq.
func writeRunPlots(dir, file string, r *interp.Report) error {
	var names []string
	for i := range r.Gauges {
		names = append(names, "gauge_"+r.Gauges[i].Name)
	}
	for i := range r.Observes {
		names = append(names, "cdf_"+r.Observes[i].Name)
	}
	files, err := safeio.FileNames("chart", names, "")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	unlock, err := safeio.LockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	var b safeio.Batch
	defer b.Abort()
	base := filepath.Base(file)
	for i := range r.Gauges {
		g := &r.Gauges[i]
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: gauge %s (seed %d)", base, g.Name, r.Seed)
		p.X.Label.Text = "time"
		p.Y.Label.Text = g.Name
		pts := gaugeSeries(g.Points, r.End)
		if len(g.Points) > maxPlotPoints {
			p.Title.Text += fmt.Sprintf(", time average per 1/%d of the run", maxPlotPoints)
		}
		if err := addLine(p, pts); err != nil {
			return err
		}
		if err := savePlot(&b, p, filepath.Join(dir, files[i]), false); err != nil {
			return err
		}
	}
	for i := range r.Observes {
		o := &r.Observes[i]
		if len(o.Samples) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: observe %s, CDF of %d samples (seed %d)", base, o.Name, len(o.Samples), r.Seed)
		p.X.Label.Text = o.Name
		p.Y.Label.Text = "fraction of samples ≤ x"
		p.Y.Min, p.Y.Max = 0, 1
		if err := addLine(p, cdfSeries(o.Samples)); err != nil {
			return err
		}
		if err := savePlot(&b, p, filepath.Join(dir, files[len(r.Gauges)+i]), false); err != nil {
			return err
		}
	}
	return b.Commit()
}

// addLine draws pts as one line over a grid; the title names it.
func addLine(p *plot.Plot, pts plotter.XYs) error {
	p.Add(plotter.NewGrid())
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(0)
	p.Add(l)
	return nil
}

// gaugeSeries is a gauge's step function from 0 to end: each value held
// until the next change; past maxPlotPoints changes, the time average
// over maxPlotPoints equal windows.
func gaugeSeries(pts []interp.TimePoint, end float64) plotter.XYs {
	if len(pts) == 0 {
		return plotter.XYs{{X: 0, Y: 0}, {X: end, Y: 0}}
	}
	if len(pts) <= maxPlotPoints {
		var xy plotter.XYs
		for k, q := range pts {
			next := end
			if k+1 < len(pts) {
				next = pts[k+1].Time
			}
			xy = append(xy, plotter.XY{X: q.Time, Y: q.Value}, plotter.XY{X: next, Y: q.Value})
		}
		return xy
	}
	w := end / maxPlotPoints
	xy := make(plotter.XYs, maxPlotPoints)
	k := 0
	for b := range xy {
		lo, hi := float64(b)*w, float64(b+1)*w
		area := 0.0
		for k+1 < len(pts) && pts[k+1].Time <= lo {
			k++
		}
		for j := k; j < len(pts) && pts[j].Time < hi; j++ {
			from := max(pts[j].Time, lo)
			to := hi
			if j+1 < len(pts) {
				to = min(pts[j+1].Time, hi)
			}
			area += pts[j].Value * max(to-from, 0)
		}
		xy[b] = plotter.XY{X: (lo + hi) / 2, Y: area / w}
	}
	return xy
}

// cdfSeries is the empirical CDF of the samples' values: a step up of 1/n
// at each sorted value; past maxPlotPoints samples, maxPlotPoints
// quantiles.
func cdfSeries(samples []interp.Sample) plotter.XYs {
	vs := make([]float64, len(samples))
	for i, s := range samples {
		vs[i] = s.Value
	}
	sort.Float64s(vs)
	n := float64(len(vs))
	var xy plotter.XYs
	if len(vs) <= maxPlotPoints {
		for i, v := range vs {
			xy = append(xy, plotter.XY{X: v, Y: float64(i) / n}, plotter.XY{X: v, Y: float64(i+1) / n})
		}
		return xy
	}
	for q := 0; q <= maxPlotPoints; q++ {
		f := float64(q) / maxPlotPoints
		i := min(int(f*(n-1)), len(vs)-1)
		xy = append(xy, plotter.XY{X: vs[i], Y: f})
	}
	return xy
}
