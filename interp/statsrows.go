package interp

import "github.com/serq/serq/interp/internal/stats"

// A run's samples and a gauge's change points, as the report and the
// dump sink have them (package stats keeps them).
type (
	Sample    = stats.Sample
	TimePoint = stats.TimePoint
)

// observeRow is an observe's row of the report. test says whether the
// observed expression is a test (its top-level operator a comparison,
// `&&`, `||` or `!`); buf is the quantile's buffer a report shares
// (stats.ObserveStat.Summary). The row shares the sample slice.
func observeRow(o *stats.ObserveStat, name string, test bool, buf *[]int64) ObserveRow {
	sum := o.Summary(buf)
	return ObserveRow{AllZero: sum.AllZero, Name: name, Count: sum.Count, Mean: sum.Mean, CI: sum.CI, CV2: sum.CV2,
		P99: sum.P99, Test: test, Samples: o.Samples()}
}

// gaugeRow is a gauge's row of the report, over [warmup, end].
func gaugeRow(g *stats.TimeAvg, name string, warmup, end float64) GaugeRow {
	pts := g.Points()
	ts := g.Stats(warmup, end)
	if g.Lean() {
		pts = nil
	}
	return GaugeRow{Name: name, Mean: ts.Mean, CI: ts.CI, Min: ts.Min, Max: ts.Max, Points: pts}
}
