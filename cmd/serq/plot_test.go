package main

import (
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/report"
)

// box is a rectangle in the canvas's points.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) inside(o box) bool {
	const eps = 1e-6
	return b.x0 >= o.x0-eps && b.y0 >= o.y0-eps && b.x1 <= o.x1+eps && b.y1 <= o.y1+eps
}

// affine is a 2D transform: (x, y) -> (a x + b y + e, c x + d y + f).
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.b*y + m.e, m.c*x + m.d*y + m.f
}

func (m affine) then(n affine) affine { // m after n: m(n(p))
	return affine{m.a*n.a + m.b*n.c, m.a*n.b + m.b*n.d, m.c*n.a + m.d*n.c, m.c*n.b + m.d*n.d,
		m.a*n.e + m.b*n.f + m.e, m.c*n.e + m.d*n.f + m.f}
}

type drawnText struct {
	text string
	box  box
}

type drawnPath struct {
	color  color.Color
	stroke bool
	arc    bool
	pts    [][2]float64
	box    box
}

// recorder is a vg.Canvas that notes the boxes of what is drawn on it.
type recorder struct {
	w, h  vg.Length
	m     affine
	stack []affine
	color color.Color
	texts []drawnText
	paths []drawnPath
}

func newRecorder(w, h vg.Length) *recorder {
	return &recorder{w: w, h: h, m: affine{a: 1, d: 1}, color: color.Black}
}

func (r *recorder) Size() (vg.Length, vg.Length)        { return r.w, r.h }
func (r *recorder) SetLineWidth(vg.Length)              {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *recorder) SetColor(c color.Color)              { r.color = c }
func (r *recorder) Push()                               { r.stack = append(r.stack, r.m) }
func (r *recorder) Pop()                                { r.m, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1] }
func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}
func (r *recorder) Rotate(t float64) {
	r.m = r.m.then(affine{a: math.Cos(t), b: -math.Sin(t), c: math.Sin(t), d: math.Cos(t)})
}
func (r *recorder) Translate(p vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: p.X.Points(), f: p.Y.Points()})
}
func (r *recorder) Scale(x, y float64) { r.m = r.m.then(affine{a: x, d: y}) }

func (r *recorder) boxOf(pts [][2]float64) box {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		x, y := r.m.apply(p[0], p[1])
		b = box{min(b.x0, x), min(b.y0, y), max(b.x1, x), max(b.y1, y)}
	}
	return b
}

func (r *recorder) path(p vg.Path, stroke bool) {
	d := drawnPath{color: r.color, stroke: stroke}
	var raw [][2]float64
	for _, c := range p {
		switch c.Type {
		case vg.MoveComp, vg.LineComp:
			raw = append(raw, [2]float64{c.Pos.X.Points(), c.Pos.Y.Points()})
		case vg.ArcComp:
			d.arc = true
			rad := c.Radius.Points()
			raw = append(raw, [2]float64{c.Pos.X.Points() - rad, c.Pos.Y.Points() - rad}, [2]float64{c.Pos.X.Points() + rad, c.Pos.Y.Points() + rad})
		}
	}
	for _, q := range raw {
		x, y := r.m.apply(q[0], q[1])
		d.pts = append(d.pts, [2]float64{x, y})
	}
	d.box = r.boxOf(raw)
	r.paths = append(r.paths, d)
}

func (r *recorder) Stroke(p vg.Path) { r.path(p, true) }
func (r *recorder) Fill(p vg.Path)   { r.path(p, false) }

func (r *recorder) FillString(f font.Face, pt vg.Point, s string) {
	e := f.Extents()
	x0, y0 := pt.X.Points(), pt.Y.Points()-e.Descent.Points()
	x1, y1 := x0+f.Width(s).Points(), pt.Y.Points()+e.Ascent.Points()
	r.texts = append(r.texts, drawnText{s, r.boxOf([][2]float64{{x0, y0}, {x1, y1}, {x0, y1}, {x1, y0}})})
}

// draw records p drawn as savePlot draws it.
func recordPlot(p *plot.Plot, legend bool) *recorder {
	r := newRecorder(16*vg.Centimeter, 10*vg.Centimeter)
	drawWithLegend(p, draw.New(r), legend)
	return r
}

// segmentHits says whether the segment a-b meets the box.
func segmentHits(a, b [2]float64, bx box) bool {
	// Liang–Barsky clipping.
	t0, t1 := 0.0, 1.0
	dx, dy := b[0]-a[0], b[1]-a[1]
	for _, c := range [][2]float64{{-dx, a[0] - bx.x0}, {dx, bx.x1 - a[0]}, {-dy, a[1] - bx.y0}, {dy, bx.y1 - a[1]}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
	}
	return t0 <= t1
}

// checkRecorded checks that every text lies inside the canvas, and, for a
// sweep chart, that the legend's labels meet no stroked line (they stand
// outside the data) and that every circle marker lies whole inside the
// data area (the box of the grid lines).
func checkRecorded(t *testing.T, name string, r *recorder, legend []string) {
	t.Helper()
	canvas := box{0, 0, r.w.Points(), r.h.Points()}
	for _, tx := range r.texts {
		if !tx.box.inside(canvas) {
			t.Errorf("%s: the text %q at %+v is not inside the canvas %+v", name, tx.text, tx.box, canvas)
		}
	}
	if len(legend) == 0 {
		return
	}
	// The grid's horizontal lines span the data area's width, its vertical
	// ones its height.
	grid := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range r.paths {
		switch {
		case p.color != plotter.DefaultGridLineStyle.Color:
		case p.box.y0 == p.box.y1:
			grid.x0, grid.x1 = min(grid.x0, p.box.x0), max(grid.x1, p.box.x1)
		case p.box.x0 == p.box.x1:
			grid.y0, grid.y1 = min(grid.y0, p.box.y0), max(grid.y1, p.box.y1)
		}
	}
	circles := 0
	for _, p := range r.paths {
		cx, cy := (p.box.x0+p.box.x1)/2, (p.box.y0+p.box.y1)/2
		if p.arc && (box{cx, cy, cx, cy}).inside(grid) { // a data marker, not the legend's
			circles++
			if !p.box.inside(grid) {
				t.Errorf("%s: a marker at %+v is cut by the data area %+v", name, p.box, grid)
			}
		}
	}
	if circles == 0 {
		t.Errorf("%s: no circle markers", name)
	}
	for _, tx := range r.texts {
		for _, l := range legend {
			if tx.text != l {
				continue
			}
			for _, p := range r.paths {
				for k := 1; p.stroke && k < len(p.pts); k++ {
					if segmentHits(p.pts[k-1], p.pts[k], tx.box) {
						t.Fatalf("%s: the legend's %q at %+v is drawn over a line (%v to %v)", name, l, tx.box, p.pts[k-1], p.pts[k])
					}
				}
			}
		}
	}
}

// sweepFixture is the seed's sweep of three inputs (the shipped study's
// title and legend, the longest there are) whose first line is 1 at every
// point: a line along the data's top edge, where the legend once stood.
func sweepFixture() (*sweepSpec, []sweepStat) {
	spec := &sweepSpec{File: "examples/pd-disaggregation/llmd_nixl_pull.sq", Vary: []sweepVary{
		{Name: "Lambda", Values: []float64{0.2, 0.6, 1, 1.4}},
		{Name: "thr", Values: []float64{1, 512}}, {Name: "blocksD", Values: []float64{1100, 10000}}},
		Seeds: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	var sum []sweepStat
	for i := range 16 {
		v := 1.0
		if i%4 != 0 {
			v = 0.5 + 0.02*float64(i)
		}
		sum = append(sum, sweepStat{Point: i, Metric: "remote.mean", Mean: v, CI: 0.05 * float64(i%2)})
	}
	return spec, sum
}

// TestPlotBoxes draws a sweep chart and a run's charts on a recording
// canvas: texts inside the canvas, the legend off the lines, the markers
// at the data's edges whole.
func TestPlotBoxes(t *testing.T) {
	spec, sum := sweepFixture()
	p, err := sweepPlot(spec, sum, "remote.mean")
	if err != nil {
		t.Fatal(err)
	}
	checkRecorded(t, "sweep remote.mean", recordPlot(p, true), []string{"thr=1 blocksD=1100", "thr=512 blocksD=10000"})

	dir := t.TempDir()
	rep := &interp.Report{Seed: 1, End: 100,
		Gauges:   []interp.GaugeRow{{Name: "a_rather_long_gauge_name_for_the_title", Points: []interp.TimePoint{{Time: 0, Value: 1}, {Time: 50, Value: 3}}}},
		Observes: []interp.ObserveRow{{Name: "ttft", Samples: []interp.Sample{{Value: 0.5}, {Value: 2}}}}}
	if err := writeRunPlots(dir, "examples/pd-disaggregation/llmd_nixl_pull.sq", rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"gauge_a_rather_long_gauge_name_for_the_title.svg", "cdf_ttft.svg"} {
		checkSVGText(t, filepath.Join(dir, f))
	}
}

// svgTextTag is a text element's opening tag.
var svgTextTag = regexp.MustCompile(`<text [^>]*>`)

// checkSVGText checks that every text of an SVG keeps its measured width
// (textLength) and names a generic family after Liberation Serif, so that
// it is drawn no wider where that font is missing.
func checkSVGText(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tags := svgTextTag.FindAllString(string(b), -1)
	if len(tags) == 0 {
		t.Fatalf("%s: no text", path)
	}
	for _, tag := range tags {
		if !regexp.MustCompile(`textLength="[0-9.]+" lengthAdjust="spacingAndGlyphs"`).MatchString(tag) ||
			!strings.Contains(tag, "font-family:'Liberation Serif',serif;") {
			t.Errorf("%s: %s", filepath.Base(path), tag)
		}
	}
}

// TestNiceTicks: the terminal chart's ticks are round.
func TestNiceTicks(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0.2, 1.4, 6, "0.2 0.4 0.6 0.8 1 1.2 1.4"},
		{0.3, 0.6, 6, "0.3 0.35 0.4 0.45 0.5 0.55 0.6"},
		{0.5109, 1, 4, "0.4 0.6 0.8 1"},
		{0.02374, 0.0577, 4, "0.02 0.03 0.04 0.05 0.06"},
		{0, 2000, 6, "0 500 1000 1500 2000"},
	} {
		var got []string
		for _, v := range niceTicks(tt.lo, tt.hi, tt.n) {
			got = append(got, report.FormatFloat(v))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("niceTicks(%g, %g, %d) = %q, want %q", tt.lo, tt.hi, tt.n, got, tt.want)
		}
	}
}
