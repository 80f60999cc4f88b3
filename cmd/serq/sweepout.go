package main

// The files of a sweep (docs/sweeps.md): runs.csv and runs.json, a row per
// point and seed; summary.csv, a row per point and metric across seeds;
// sweep.json, the manifest that says what was swept and how much is done.
// Every file is written to a temporary file in DIR and renamed over the
// old one, so that a reader, a crash or a Ctrl-C never sees half a file;
// the CSVs' cells are neutralised against spreadsheet formulas
// (safeio.CSV), the JSON keeps the raw values.

import (
	"bufio"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/report"
)

// Names of the files in a sweep's DIR.
const (
	sweepRunsCSV  = "runs.csv"
	sweepRunsJSON = "runs.json"
	sweepSummary  = "summary.csv"
	sweepManifest = "sweep.json"
)

// sweepColumns are the observes and gauges of the rows, each in the order
// first met going through the rows in job order, and whether a row has
// the failures totals.
type sweepColumns struct {
	obs, gauges []string
	failures    bool
}

func columnsOf(rows []sweepRow) sweepColumns {
	var c sweepColumns
	for i := range rows {
		for _, o := range rows[i].Obs {
			if !slices.Contains(c.obs, o.Name) {
				c.obs = append(c.obs, o.Name)
			}
		}
		for _, g := range rows[i].Gauges {
			if !slices.Contains(c.gauges, g.Name) {
				c.gauges = append(c.gauges, g.Name)
			}
		}
		c.failures = c.failures || rows[i].Failures != nil
	}
	return c
}

// header is runs.csv's first line: point, the varied inputs, seed, four
// columns per observe, one per gauge, rejected, stuck, the failures
// totals of a program that can fail a request, error.
func (c sweepColumns) header(spec *sweepSpec) []string {
	h := []string{"point"}
	for _, v := range spec.Vary {
		h = append(h, v.Name)
	}
	h = append(h, "seed")
	for _, o := range c.obs {
		h = append(h, o+".count", o+".mean", o+".ci", o+".p99")
	}
	for _, g := range c.gauges {
		h = append(h, g+".mean")
	}
	h = append(h, "rejected", "stuck")
	if c.failures {
		h = append(h, failureMetrics[:]...)
	}
	return append(h, "error")
}

// writeSweepCSV writes runs.csv: floats as the text report's shortest
// decimals (NaN, inf), an empty cell where a run has no value.
func writeSweepCSV(w io.Writer, spec *sweepSpec, rows []sweepRow) error {
	cols := columnsOf(rows)
	cw := safeio.NewCSV(w)
	cw.Write(cols.header(spec))
	for i := range rows {
		r := &rows[i]
		p, seed := r.Job/len(spec.Seeds), spec.Seeds[r.Job%len(spec.Seeds)]
		rec := []string{strconv.Itoa(p)}
		for _, v := range spec.pointValues(p) {
			rec = append(rec, report.FormatFloat(v))
		}
		rec = append(rec, strconv.FormatUint(seed, 10))
		for _, name := range cols.obs {
			k := slices.IndexFunc(r.Obs, func(o sweepObs) bool { return o.Name == name })
			if k < 0 {
				rec = append(rec, "", "", "", "")
				continue
			}
			o := r.Obs[k]
			rec = append(rec, strconv.FormatUint(o.Count, 10), report.FormatFloat(o.Mean), report.FormatFloat(o.CI), report.FormatFloat(o.P99))
		}
		for _, name := range cols.gauges {
			k := slices.IndexFunc(r.Gauges, func(g sweepGauge) bool { return g.Name == name })
			if k < 0 {
				rec = append(rec, "")
				continue
			}
			rec = append(rec, report.FormatFloat(r.Gauges[k].Mean))
		}
		if r.Err != "" {
			rec = append(rec, "", "")
		} else {
			rec = append(rec, strconv.FormatUint(r.Rejected, 10), strconv.FormatUint(r.Stuck, 10))
		}
		if cols.failures {
			for k := range failureMetrics {
				cell := ""
				if r.Failures != nil {
					cell = strconv.FormatUint(r.Failures[k], 10)
				}
				rec = append(rec, cell)
			}
		}
		cw.Write(append(rec, r.Err))
	}
	return cw.Flush()
}

// writeSweepJSON writes runs.json: an array with a row per line, keys in a
// fixed order, non-finite floats as null (as `serq run --json` has them).
func writeSweepJSON(w io.Writer, spec *sweepSpec, rows []sweepRow) error {
	failures := columnsOf(rows).failures
	var j report.JSONWriter
	j.Raw("[")
	for i := range rows {
		r := &rows[i]
		if i > 0 {
			j.Raw(",")
		}
		p, seed := r.Job/len(spec.Seeds), spec.Seeds[r.Job%len(spec.Seeds)]
		j.Raw("\n" + `{"point":` + strconv.Itoa(p) + `,"inputs":{`)
		for k, v := range spec.pointValues(p) {
			if k > 0 {
				j.Raw(",")
			}
			j.Str(spec.Vary[k].Name)
			j.Raw(":")
			j.Num(v)
		}
		j.Raw(`},"seed":`)
		j.Uint(seed)
		j.Raw(`,"observes":{`)
		for k, o := range r.Obs {
			if k > 0 {
				j.Raw(",")
			}
			j.Str(o.Name)
			j.Raw(`:{"count":`)
			j.Uint(o.Count)
			j.NumField("mean", o.Mean)
			j.NumField("ci", o.CI)
			j.NumField("p99", o.P99)
			j.Raw("}")
		}
		j.Raw(`},"gauges":{`)
		for k, g := range r.Gauges {
			if k > 0 {
				j.Raw(",")
			}
			j.Str(g.Name)
			j.Raw(`:{"mean":`)
			j.Num(g.Mean)
			j.Raw("}")
		}
		j.Raw("}")
		if r.Err != "" {
			j.Raw(`,"rejected":null,"stuck":null`)
		} else {
			j.UintField("rejected", r.Rejected)
			j.UintField("stuck", r.Stuck)
		}
		if failures {
			for k, m := range failureMetrics {
				if r.Failures == nil {
					j.Raw(`,"` + m + `":null`)
				} else {
					j.UintField(m, r.Failures[k])
				}
			}
		}
		if r.Err != "" {
			j.Raw(`,"error":`)
			j.Str(r.Err)
		} else {
			j.Raw(`,"error":null`)
		}
		j.Raw("}")
	}
	j.Raw("\n]\n")
	_, err := w.Write(j.Bytes())
	return err
}

// sweepStat is one metric at one point across its seeds.
type sweepStat struct {
	Point  int
	Metric string
	N      int     // seeds whose run gave a finite value
	Mean   float64 // NaN when N = 0
	CI     float64 // Student-t 95 % half-width across seeds; inf when N < 2
	Min    float64
	Max    float64
}

// metricNames are the summary's metrics: each observe's count, mean and
// p99, each gauge's mean, rejected and stuck, and the failures totals.
func (c sweepColumns) metricNames() []string {
	var m []string
	for _, o := range c.obs {
		m = append(m, o+".count", o+".mean", o+".p99")
	}
	for _, g := range c.gauges {
		m = append(m, g+".mean")
	}
	m = append(m, "rejected", "stuck")
	if c.failures {
		m = append(m, failureMetrics[:]...)
	}
	return m
}

// metricValue is row r's value of metric m; ok is false when the run has
// none (it failed, or has no such observe or gauge).
func metricValue(r *sweepRow, m string) (float64, bool) {
	if r.Err != "" {
		return 0, false
	}
	switch m {
	case "rejected":
		return float64(r.Rejected), true
	case "stuck":
		return float64(r.Stuck), true
	}
	if k := slices.Index(failureMetrics[:], m); k >= 0 {
		if r.Failures == nil {
			return 0, false
		}
		return float64(r.Failures[k]), true
	}
	dot := len(m) - 1
	for dot >= 0 && m[dot] != '.' {
		dot--
	}
	if dot < 0 {
		return 0, false
	}
	name, field := m[:dot], m[dot+1:]
	for _, o := range r.Obs {
		if o.Name == name {
			switch field {
			case "count":
				return float64(o.Count), true
			case "mean":
				return o.Mean, true
			case "ci":
				return o.CI, true
			case "p99":
				return o.P99, true
			}
			return 0, false
		}
	}
	for _, g := range r.Gauges {
		if g.Name == name && field == "mean" {
			return g.Mean, true
		}
	}
	return 0, false
}

// summarize is every metric at every point with a row, across the seeds.
func summarize(spec *sweepSpec, rows []sweepRow) []sweepStat {
	metrics := columnsOf(rows).metricNames()
	var out []sweepStat
	for lo := 0; lo < len(rows); {
		p := rows[lo].Job / len(spec.Seeds)
		hi := lo
		for hi < len(rows) && rows[hi].Job/len(spec.Seeds) == p {
			hi++
		}
		for _, m := range metrics {
			var xs []float64
			for i := lo; i < hi; i++ {
				if x, ok := metricValue(&rows[i], m); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
					xs = append(xs, x)
				}
			}
			out = append(out, acrossSeeds(p, m, xs))
		}
		lo = hi
	}
	return out
}

// acrossSeeds is the mean of xs with the Student-t 95 % half-width of the
// mean, s·t(0.975, n−1)/√n.
func acrossSeeds(p int, m string, xs []float64) sweepStat {
	s := sweepStat{Point: p, Metric: m, N: len(xs), Mean: math.NaN(), CI: math.Inf(1), Min: math.NaN(), Max: math.NaN()}
	if len(xs) == 0 {
		return s
	}
	sum := 0.0
	s.Min, s.Max = xs[0], xs[0]
	for _, x := range xs {
		sum += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	n := float64(len(xs))
	s.Mean = sum / n
	if len(xs) < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	s.CI = t * sd / math.Sqrt(n)
	return s
}

// writeSummaryCSV writes summary.csv: a row per point and metric.
func writeSummaryCSV(w io.Writer, spec *sweepSpec, sum []sweepStat) error {
	cw := safeio.NewCSV(w)
	h := []string{"point"}
	for _, v := range spec.Vary {
		h = append(h, v.Name)
	}
	cw.Write(append(h, "metric", "seeds", "mean", "ci", "min", "max"))
	for _, s := range sum {
		rec := []string{strconv.Itoa(s.Point)}
		for _, v := range spec.pointValues(s.Point) {
			rec = append(rec, report.FormatFloat(v))
		}
		rec = append(rec, s.Metric, strconv.Itoa(s.N), report.FormatFloat(s.Mean), report.FormatFloat(s.CI), report.FormatFloat(s.Min), report.FormatFloat(s.Max))
		cw.Write(rec)
	}
	return cw.Flush()
}

// writeManifest writes sweep.json: the spec, the shard ("" unsharded),
// and how many of the shard's runs are done and failed.
func writeManifest(w io.Writer, spec *sweepSpec, shard string, rows []sweepRow, want int) error {
	failed := 0
	for i := range rows {
		if rows[i].Err != "" {
			failed++
		}
	}
	var j report.JSONWriter
	strs := func(key string, xs []string) {
		j.Raw(",\n  \"" + key + `": [`)
		for i, x := range xs {
			if i > 0 {
				j.Raw(", ")
			}
			j.Str(x)
		}
		j.Raw("]")
	}
	j.Raw("{\n  \"serq_version\": ")
	j.Str(spec.Version)
	j.Raw(",\n  \"file\": ")
	j.Str(spec.File)
	j.Raw(",\n  \"sha256\": ")
	j.Str(spec.SHA256)
	strs("sets", spec.Sets)
	strs("defs", spec.Defs)
	strs("args", spec.Args)
	j.Raw(",\n  \"vary\": [")
	for i, v := range spec.Vary {
		if i > 0 {
			j.Raw(",")
		}
		j.Raw("\n    {\"name\": ")
		j.Str(v.Name)
		j.Raw(`, "values": [`)
		for k, x := range v.Values {
			if k > 0 {
				j.Raw(", ")
			}
			j.Num(x)
		}
		j.Raw("]}")
	}
	j.Raw("\n  ],\n  \"seeds\": [")
	for i, s := range spec.Seeds {
		if i > 0 {
			j.Raw(", ")
		}
		j.Uint(s)
	}
	j.Raw("],\n  \"horizon\": ")
	j.Num(spec.Horizon)
	j.Raw(",\n  \"warmup\": ")
	j.Num(spec.Warmup)
	j.Raw(",\n  \"points\": " + strconv.Itoa(spec.points()))
	j.Raw(",\n  \"runs\": " + strconv.Itoa(spec.runs()))
	j.Raw(",\n  \"shard\": ")
	if shard == "" {
		j.Raw("null")
	} else {
		j.Str(shard)
	}
	j.Raw(",\n  \"shard_runs\": " + strconv.Itoa(want))
	j.Raw(",\n  \"done\": " + strconv.Itoa(len(rows)))
	j.Raw(",\n  \"failed\": " + strconv.Itoa(failed))
	j.Raw(",\n  \"complete\": " + strconv.FormatBool(len(rows) == want))
	j.Raw("\n}\n")
	_, err := w.Write(j.Bytes())
	return err
}

// writeSweepDir writes the four files of a sweep into dir as one batch
// (internal/safeio): each renamed into place in turn, the manifest last,
// so that a manifest saying "complete" follows complete data.
func writeSweepDir(dir string, spec *sweepSpec, shard string, rows []sweepRow, want int) error {
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{sweepRunsCSV, func(w io.Writer) error { return writeSweepCSV(w, spec, rows) }},
		{sweepRunsJSON, func(w io.Writer) error { return writeSweepJSON(w, spec, rows) }},
		{sweepSummary, func(w io.Writer) error { return writeSummaryCSV(w, spec, summarize(spec, rows)) }},
		{sweepManifest, func(w io.Writer) error { return writeManifest(w, spec, shard, rows, want) }},
	}
	var b safeio.Batch
	defer b.Abort()
	for _, f := range files {
		if err := b.Create(filepath.Join(dir, f.name), func(w *bufio.Writer) error { return f.write(w) }); err != nil {
			return err
		}
	}
	return b.Commit()
}
