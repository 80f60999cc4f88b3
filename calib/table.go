package calib

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Metrics are the figures the table compares, in its column order.
var Metrics = []string{"e2e_mean", "e2e_p90", "e2e_p99", "ttft_mean", "ttft_p90", "ttft_p99", "itl_mean"}

// MetricNames are the columns' headings.
var MetricNames = []string{"E2E mean", "E2E p90", "E2E p99", "TTFT mean", "TTFT p90", "TTFT p99", "ITL mean"}

// values is a stage's figures in Metrics' order, seconds.
func measuredValues(m Measured) []float64 {
	return []float64{m.E2E.Mean, m.E2E.P90, m.E2E.P99, m.TTFT.Mean, m.TTFT.P90, m.TTFT.P99, m.ITL}
}

func predictedValues(p Predicted) []float64 {
	return []float64{p.E2E.Mean, p.E2E.P90, p.E2E.P99, p.TTFT.Mean, p.TTFT.P90, p.TTFT.P99, p.ITL}
}

// Row is one experiment's stage: the measurement, serq's prediction and
// BLIS's (nil where blis-predictions.json has none).
type Row struct {
	Exp      *Experiment
	Stage    int
	Measured []float64
	Serq     []float64
	BLIS     []float64 // seconds
	MOk      int       // measured successes and failures
	MFail    int
	SOk      int
	SFail    int
}

// Rows pairs the experiments' measurements with predictions.
func Rows(exps []*Experiment, preds []*Prediction) []Row {
	var rows []Row
	for i, e := range exps {
		for s, m := range e.Stages {
			p := preds[i].Stages[s]
			r := Row{Exp: e, Stage: s, Measured: measuredValues(m), Serq: predictedValues(p),
				MOk: m.Successes, MFail: m.Failures, SOk: p.Successes, SFail: p.Failures}
			if b := e.BLIS[s]; b != nil {
				r.BLIS = make([]float64, len(Metrics))
				for k, name := range Metrics {
					if v, ok := b[name]; ok {
						r.BLIS[k] = v / 1000
					} else {
						r.BLIS[k] = math.NaN()
					}
				}
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// relErr is (p − m) / m.
func relErr(p, m float64) float64 { return (p - m) / m }

// Summary is the medians of the absolute relative errors per metric over a
// set of rows, and the largest.
type Summary struct {
	N      int
	Median []float64
	Max    []float64
}

// Summarise is the errors of the predictions (serq's, or BLIS's with blis)
// over the rows that have them.
func Summarise(rows []Row, blis bool) Summary {
	s := Summary{Median: make([]float64, len(Metrics)), Max: make([]float64, len(Metrics))}
	for k := range Metrics {
		var errs []float64
		for _, r := range rows {
			pred := r.Serq
			if blis {
				pred = r.BLIS
			}
			if pred == nil || math.IsNaN(pred[k]) {
				continue
			}
			errs = append(errs, math.Abs(relErr(pred[k], r.Measured[k])))
		}
		if k == 0 {
			s.N = len(errs)
		}
		s.Median[k], s.Max[k] = median(errs), maxOf(errs)
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func maxOf(xs []float64) float64 {
	m := math.NaN()
	for _, x := range xs {
		if math.IsNaN(m) || x > m {
			m = x
		}
	}
	return m
}

// fmtSec writes seconds: ms below one second.
func fmtSec(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case math.Abs(x) < 1:
		return fmt.Sprintf("%.1f ms", x*1000)
	default:
		return fmt.Sprintf("%.2f s", x)
	}
}

func fmtErr(p, m float64) string {
	if math.IsNaN(p) || math.IsNaN(m) || m == 0 {
		return ""
	}
	return fmt.Sprintf(" (%+.1f %%)", 100*relErr(p, m))
}

// WriteTable writes the rows as a Markdown table: per stage the
// measurement, serq's prediction and, where there is one, BLIS's, each
// prediction with its error.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "| run | stage | | %s | ok / failed |\n", strings.Join(MetricNames, " | "))
	fmt.Fprintf(w, "|---|---|---|%s---|\n", strings.Repeat("---|", len(Metrics)))
	for _, r := range rows {
		rate := r.Exp.stageRate(r.Stage)
		cells := func(vals []float64, withErr bool) string {
			var c []string
			for k, v := range vals {
				s := fmtSec(v)
				if withErr {
					s += fmtErr(v, r.Measured[k])
				}
				c = append(c, s)
			}
			return strings.Join(c, " | ")
		}
		fmt.Fprintf(w, "| %s | %d (%g/s) | measured | %s | %d / %d |\n", r.Exp.Short(), r.Stage, rate, cells(r.Measured, false), r.MOk, r.MFail)
		fmt.Fprintf(w, "| | | serq | %s | %d / %d |\n", cells(r.Serq, true), r.SOk, r.SFail)
		if r.BLIS != nil {
			fmt.Fprintf(w, "| | | BLIS | %s | |\n", cells(r.BLIS, true))
		}
	}
}

// WriteSummary writes the medians and largest errors of serq's
// predictions, and BLIS's and serq's over the stages BLIS predicted.
func WriteSummary(w io.Writer, rows []Row) {
	var withBLIS []Row
	for _, r := range rows {
		if r.BLIS != nil {
			withBLIS = append(withBLIS, r)
		}
	}
	fmt.Fprintf(w, "| absolute error | stages | %s |\n", strings.Join(MetricNames, " | "))
	fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---|", len(Metrics)))
	line := func(name string, s Summary, which []float64) {
		var c []string
		for _, v := range which {
			c = append(c, fmt.Sprintf("%.1f %%", 100*v))
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", name, s.N, strings.Join(c, " | "))
	}
	all := Summarise(rows, false)
	line("serq, median", all, all.Median)
	line("serq, largest", all, all.Max)
	var up, over []Row
	for _, r := range rows {
		if r.Exp.Overloaded() {
			over = append(over, r)
		} else {
			up = append(up, r)
		}
	}
	if len(up) > 0 && len(over) > 0 {
		su, so := Summarise(up, false), Summarise(over, false)
		line("serq, median of the runs that kept up", su, su.Median)
		line("serq, median of the overloaded runs", so, so.Median)
	}
	if len(withBLIS) > 0 {
		sb, bb := Summarise(withBLIS, false), Summarise(withBLIS, true)
		line("serq, median where BLIS predicted", sb, sb.Median)
		line("BLIS trained-physics, median", bb, bb.Median)
	}
}

// stageRate is the stage's request rate from the profile.
func (e *Experiment) stageRate(s int) float64 {
	if s < len(e.Rates) {
		return e.Rates[s]
	}
	return math.NaN()
}

// WriteValidation is what `go run ./calib/cmd/validate` prints: the table,
// then the summary.
func WriteValidation(w io.Writer, rows []Row) {
	WriteTable(w, rows)
	fmt.Fprintln(w)
	WriteSummary(w, rows)
}
