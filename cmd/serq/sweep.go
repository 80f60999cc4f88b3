package main

// `serq sweep`: the product of some of a program's inputs and a range of
// seeds, run in parallel, one interpreter per worker goroutine, written to
// a directory as a long CSV and a JSON (a row per point and seed), a
// summary per point across seeds, and a manifest (docs/sweeps.md).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
	"github.com/serq/serq/report"
)

type sweepCmd struct {
	loadFlags `embed:""`
	Vary      []string `name:"vary" sep:"none" placeholder:"NAME=V1,V2,…|A:B:STEP" help:"Vary an args.number input over a list or an inclusive range (repeatable; the first varied input is the plots' x axis)."`
	Seeds     string   `name:"seeds" default:"1" placeholder:"A-B|N,…" help:"Seeds of every point: a range A-B, or a comma-separated list (default 1)."`
	Horizon   *string  `placeholder:"T" help:"Simulated end time of every run, finite and > 0."`
	Warmup    *string  `placeholder:"T" help:"Statistics exclude [0, T) (default 0)."`
	Jobs      *string  `placeholder:"N" help:"Runs at once (default: the number of CPUs Go may use)."`
	Out       *string  `placeholder:"DIR" help:"Write runs.csv, runs.json, summary.csv and sweep.json into DIR (default: runs.csv to stdout)."`
	Shard     *string  `placeholder:"i/n" help:"Run only the i-th (0 ≤ i < n) of n disjoint parts of the sweep; combine them with serq sweep merge."`
	FailFast  bool     `name:"fail-fast" help:"Stop at the first run that fails (by default it is recorded and the sweep goes on)."`
	Plot      bool     `name:"plot" help:"Also write SVG and PNG charts into DIR (needs --out) and draw them in the terminal."`
	Metric    []string `name:"metric" sep:"none" placeholder:"NAME" help:"A metric to plot, such as ttft.mean, ttft.p99, kv_usage.mean, rejected, late_reads (repeatable; default: every observe's mean)."`
}

// sweepVary is one varied input and its values, in command-line order.
type sweepVary struct {
	Name   string
	Values []float64
}

// sweepSpec is what identifies a sweep: two runs of the same spec give
// the same files, and shards merge only when their specs are equal.
type sweepSpec struct {
	Version string // of the serq that ran it
	File    string // FILE as given
	SHA256  string // of FILE's bytes
	Sets    []string
	Defs    []string
	Args    []string // the program arguments after "--"
	Vary    []sweepVary
	Seeds   []uint64
	Horizon float64
	Warmup  float64
	Shards  int // n of --shard i/n; 1 unsharded

	// The metrics of FILE as loaded with the --sets, to check --metric
	// before running (not in the manifest).
	cols sweepColumns
}

// points is the number of input combinations.
func (s *sweepSpec) points() int {
	n := 1
	for _, v := range s.Vary {
		n *= len(v.Values)
	}
	return n
}

// runs is the number of runs: every point with every seed.
func (s *sweepSpec) runs() int { return s.points() * len(s.Seeds) }

// maxSweepRuns bounds a sweep's runs (every shard's together), checked
// before anything is allocated for them: a sweep keeps a row per run.
const maxSweepRuns = 1_000_000

// checkRuns refuses a sweep of more than maxSweepRuns runs; its count is
// computed exactly, however large.
func (s *sweepSpec) checkRuns() error {
	n := big.NewInt(int64(len(s.Seeds)))
	var parts []string
	for _, v := range s.Vary {
		n.Mul(n, big.NewInt(int64(len(v.Values))))
		parts = append(parts, plural(len(v.Values), "value")+" of "+v.Name)
	}
	if n.Cmp(big.NewInt(maxSweepRuns)) <= 0 {
		return nil
	}
	return usagef("the sweep is %s runs (%s, %s), more than %s, the limit\nhelp: vary fewer values or seeds, or split the study into sweeps",
		n, strings.Join(parts, " × "), plural(len(s.Seeds), "seed"), thousands(maxSweepRuns))
}

// thousands writes n with commas: 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// jobRange is the runs a shard does, in order: first, first+step, …, n
// of them; a range, not a list, however many.
type jobRange struct{ first, step, n int }

// shardJobs are shard i's runs: those j with j mod Shards = i.
func shardJobs(spec *sweepSpec, i int) jobRange {
	total := spec.runs()
	n := 0
	if i < total {
		n = (total-1-i)/spec.Shards + 1
	}
	return jobRange{first: i, step: spec.Shards, n: n}
}

// pointValues are the inputs' values at point p: the first varied input
// changes slowest.
func (s *sweepSpec) pointValues(p int) []float64 {
	vals := make([]float64, len(s.Vary))
	for k := len(s.Vary) - 1; k >= 0; k-- {
		n := len(s.Vary[k].Values)
		vals[k] = s.Vary[k].Values[p%n]
		p /= n
	}
	return vals
}

// sweepRow is one run: job j is point j / len(Seeds) with seed
// Seeds[j % len(Seeds)].
type sweepRow struct {
	Job      int
	Err      string // "" when the run succeeded
	Obs      []sweepObs
	Gauges   []sweepGauge
	Rejected uint64 // over every pool
	Stuck    uint64
	// Failures are the run's failures section, totalled over the pools;
	// nil when the program cannot fail a request (docs/cli.md §4).
	Failures *sweepFailures
}

// sweepFailures are the totals of a run's failures section: requests
// failed, calls made again and failed reads recomputed, and the leases'
// counts over every leased pool, in the order of failureMetrics.
type sweepFailures [len(failureMetrics)]uint64

// failureMetrics name the totals of sweepFailures: the columns of runs.csv
// and metrics of summary.csv after `stuck`, for a program that can fail a
// request.
var failureMetrics = [...]string{"failed_requests", "retries", "recomputes", "expired", "late_reads", "failed_reads", "lost", "stranded"}

// failuresOf totals a report's failures section; nil without one.
func failuresOf(f *interp.Failures) *sweepFailures {
	if f == nil {
		return nil
	}
	t := sweepFailures{f.Requests, f.Retries, f.Recomputes}
	for _, l := range f.Leases {
		for k, n := range []uint64{l.Expired, l.LateReads, l.FailedReads, l.Lost, l.Stranded} {
			t[3+k] += n
		}
	}
	return &t
}

type sweepObs struct {
	Name          string
	Count         uint64
	Mean, CI, P99 float64
}

type sweepGauge struct {
	Name string
	Mean float64
}

// sweepStopped is a sweep that wrote its files but did not succeed: it
// was interrupted, stopped by --fail-fast, or some of its runs failed.
type sweepStopped struct{ msg string }

func (e *sweepStopped) Error() string { return e.msg }

func (c *sweepCmd) Run(e *env) error {
	spec, err := c.spec(e)
	if err != nil {
		return err
	}
	jobs := defaultJobs()
	if c.Jobs != nil {
		n, err := strconv.Atoi(strings.TrimPrefix(*c.Jobs, "+"))
		if err != nil || n < 1 {
			return usagef("invalid value `%s` for --jobs; expected a positive integer\nhelp: use --jobs %d", *c.Jobs, jobs)
		}
		jobs = n
	}
	shard := 0
	if c.Shard != nil {
		if shard, spec.Shards, err = parseShard(*c.Shard); err != nil {
			return err
		}
	}
	if c.Plot && c.Out == nil {
		return usagef("--plot needs --out DIR: the charts are files in DIR\nhelp: add --out sweep")
	}
	if len(c.Metric) > 0 && !c.Plot {
		return usagef("--metric chooses what --plot draws\nhelp: add --plot")
	}
	if c.Plot {
		// Checked before running; checked again with the rows, whose
		// observes could differ if an input changed the program's shape.
		if _, err := plotMetrics(c.Metric, spec.cols); err != nil {
			return err
		}
	}
	if c.Out != nil {
		if err := os.MkdirAll(*c.Out, 0o777); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot create %s: %w", *c.Out, err)}
		}
		// DIR is the sweep's until it ends: another serq writing it is
		// refused.
		unlock, err := safeio.LockDir(*c.Out)
		if err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Out, err)}
		}
		defer unlock()
	}
	ld, err := c.loader(e)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	mine := shardJobs(spec, shard)
	bar := newSweepBar(e.stderr, mine.n)
	// The files are saved after the first run, then every 2 s, or every
	// 10 saving times if saving gets slow (a large sweep), and at the end.
	var nextSave time.Time
	rows, runErr := runSweep(ctx, spec, ld, mine, jobs, c.FailFast, func(done []sweepRow) {
		bar.add()
		if c.Out != nil && time.Now().After(nextSave) {
			start := time.Now()
			_ = writeSweepDir(*c.Out, spec, shardOf(spec, shard), done, mine.n)
			nextSave = time.Now().Add(max(checkpointEvery, 10*time.Since(start)))
		}
	})
	bar.finish()

	if c.Out == nil {
		// The runs done, interrupted or not: complete rows are not lost.
		if err := writeSweepCSV(e.stdout, spec, rows); err != nil {
			return err
		}
	} else if err := writeSweepDir(*c.Out, spec, shardOf(spec, shard), rows, mine.n); err != nil {
		return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Out, err)}
	}
	failed := 0
	for i := range rows {
		if rows[i].Err != "" {
			failed++
		}
	}
	if runErr != nil {
		where := ""
		if c.Out != nil {
			where = " (written to " + *c.Out + ")"
		}
		return &sweepStopped{fmt.Sprintf("%s: %d of %d runs done%s", runErr, len(rows), mine.n, where)}
	}
	if c.Out != nil {
		fmt.Fprintf(e.stdout, "sweep: %s × %s: %s", plural(spec.points(), "point"), plural(len(spec.Seeds), "seed"), plural(len(rows), "run"))
		if spec.Shards > 1 {
			fmt.Fprintf(e.stdout, " (shard %d/%d)", shard, spec.Shards)
		}
		fmt.Fprintf(e.stdout, ", %d failed; wrote %s\n", failed, *c.Out)
	}
	if c.Plot {
		sum := summarize(spec, rows)
		metrics, err := plotMetrics(c.Metric, columnsOf(rows))
		if err != nil {
			return err
		}
		if err := writeSweepPlots(*c.Out, spec, sum, metrics); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write the charts into %s: %w", *c.Out, err)}
		}
		drawSweepCharts(e.stdout, spec, sum, metrics)
	}
	if failed > 0 {
		return &sweepStopped{fmt.Sprintf("%d of %d runs failed; the error of each is in its row", failed, len(rows))}
	}
	return nil
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// checkpointEvery is the least time between two saves of a running
// sweep's files.
const checkpointEvery = 2 * time.Second

// defaultJobs is the number of runs at once without --jobs: the CPUs Go
// may use (GOMAXPROCS).
func defaultJobs() int { return runtime.GOMAXPROCS(0) }

// shardOf is the shard label of the manifest: "" unsharded.
func shardOf(spec *sweepSpec, i int) string {
	if spec.Shards <= 1 {
		return ""
	}
	return strconv.Itoa(i) + "/" + strconv.Itoa(spec.Shards)
}

// spec validates the sweep's flags and loads FILE once, so that a program
// that does not load, or a --vary naming no input, is reported before any
// run.
func (c *sweepCmd) spec(e *env) (*sweepSpec, error) {
	spec := &sweepSpec{Version: version, File: c.File, Sets: c.Set, Defs: c.Def, Args: e.progArgs, Shards: 1}
	if c.Horizon == nil {
		return nil, usagef("missing --horizon\nhelp: every run of a sweep needs --horizon T, the simulated end time")
	}
	var err error
	if spec.Horizon, err = timeValue("--horizon", *c.Horizon, true); err != nil {
		return nil, err
	}
	if c.Warmup != nil {
		if spec.Warmup, err = timeValue("--warmup", *c.Warmup, false); err != nil {
			return nil, err
		}
	}
	if spec.Warmup >= spec.Horizon {
		return nil, usagef("warmup %s is not below the horizon %s", *c.Warmup, *c.Horizon)
	}
	if spec.Seeds, err = parseSeeds(c.Seeds); err != nil {
		return nil, err
	}
	if len(c.Vary) == 0 {
		return nil, usagef("nothing to vary\nhelp: add --vary NAME=V1,V2,… or --vary NAME=A:B:STEP with an input declared by args.number")
	}
	for _, v := range c.Vary {
		sv, err := parseVary(v)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(spec.Vary, func(o sweepVary) bool { return o.Name == sv.Name }) {
			return nil, usagef("--vary %s is given twice\nhelp: list every value of an input in one --vary", sv.Name)
		}
		spec.Vary = append(spec.Vary, sv)
	}
	if err := spec.checkRuns(); err != nil {
		return nil, err
	}
	if filepath.Ext(c.File) == ".json" {
		return nil, usagef("an IR file has its inputs bound already: --vary does not apply\nhelp: sweep the program text (.sq)")
	}
	prog, err := c.load(e)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, in := range prog.Inputs {
		names = append(names, in.Name)
	}
	for _, v := range spec.Vary {
		if !slices.Contains(names, v.Name) {
			declared := "the program declares no inputs"
			if len(names) > 0 {
				declared = "the program's inputs are " + strings.Join(names, ", ")
			}
			return nil, usagef("unknown input `%s` in --vary; %s\nhelp: vary an input declared by args.number", v.Name, declared)
		}
	}
	spec.cols.obs = prog.Observes
	for _, g := range prog.Gauges {
		spec.cols.gauges = append(spec.cols.gauges, g.Name)
	}
	spec.cols.failures = prog.Builtin.Failed != 0
	src, err := lang.ReadSource(c.File)
	if err != nil {
		return nil, &loadError{file: c.File, err: err}
	}
	sum := sha256.Sum256(src)
	spec.SHA256 = hex.EncodeToString(sum[:])
	return spec, nil
}

// parseVary reads NAME=V1,V2,… or NAME=A:B:STEP.
func parseVary(s string) (sweepVary, error) {
	const help = "help: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || !isIdent(name) {
		return sweepVary{}, usagef("invalid --vary `%s`; expected NAME=values\n%s", s, help)
	}
	v := sweepVary{Name: name}
	if strings.TrimSpace(list) == "" {
		return v, usagef("--vary %s has no values\n%s", name, help)
	}
	num := func(t string) (float64, error) {
		x, ok := parseNumber(strings.TrimSpace(t))
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, usagef("invalid value `%s` in --vary %s; expected a finite number\n%s", strings.TrimSpace(t), name, help)
		}
		return x, nil
	}
	if parts := strings.Split(list, ":"); len(parts) > 1 {
		if len(parts) != 3 {
			return v, usagef("invalid range `%s` in --vary %s; expected A:B:STEP\n%s", list, name, help)
		}
		var abs [3]float64
		for i, p := range parts {
			x, err := num(p)
			if err != nil {
				return v, err
			}
			abs[i] = x
		}
		a, b, step := abs[0], abs[1], abs[2]
		switch {
		case step <= 0:
			return v, usagef("the step of --vary %s=%s is %s; expected a step > 0\n%s", name, list, report.FormatFloat(step), help)
		case a > b:
			return v, usagef("the range --vary %s=%s is reversed: %s > %s\n%s", name, list, report.FormatFloat(a), report.FormatFloat(b), help)
		case (b-a)/step > maxVaryValues:
			return v, usagef("the range --vary %s=%s has more than %d values\n%s", name, list, maxVaryValues, help)
		}
		// A + k·STEP up to B, rounded to the decimals the range was written
		// with, so that 0.1:0.5:0.1 gives 0.3 and not 0.30000000000000004; a
		// value past B by less than rangeTol steps (rounding error) is kept.
		dec := max(decimals(parts[0]), decimals(parts[2]))
		for k := 0; ; k++ {
			x := a + float64(k)*step
			if dec <= 15 {
				x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'f', dec, 64), 64)
			}
			if x > b+step*rangeTol {
				break
			}
			v.Values = append(v.Values, x)
		}
		return v, nil
	}
	seen := map[float64]bool{}
	for _, t := range strings.Split(list, ",") {
		x, err := num(t)
		if err != nil {
			return v, err
		}
		if seen[x] {
			return v, usagef("value %s appears twice in --vary %s\n%s", report.FormatFloat(x), name, help)
		}
		seen[x] = true
		v.Values = append(v.Values, x)
	}
	return v, nil
}

// maxVaryValues bounds a range, so that a typo in STEP is not a sweep of
// a billion points.
const maxVaryValues = 100000

// rangeTol is the fraction of a range's STEP by which a value may pass B
// and still be in the range.
const rangeTol = 1e-9

// decimals is the number of digits after the point in a number as
// written (20 when it has an exponent: no rounding).
func decimals(s string) int {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "eE") {
		return 20
	}
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// parseSeeds reads A-B (inclusive) or a comma-separated list of seeds.
func parseSeeds(s string) ([]uint64, error) {
	bad := func() error {
		return usagef("invalid value `%s` for --seeds; expected a range A-B with A ≤ B, or a list N,M,…\nhelp: use --seeds 1-20", s)
	}
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, err1 := parseCount(a)
		hi, err2 := parseCount(b)
		if err1 != nil || err2 != nil || lo > hi || hi-lo >= maxVaryValues {
			return nil, bad()
		}
		var out []uint64
		for x := lo; ; x++ {
			out = append(out, x)
			if x == hi {
				return out, nil
			}
		}
	}
	var out []uint64
	seen := map[uint64]bool{}
	for _, t := range strings.Split(s, ",") {
		x, err := parseCount(strings.TrimSpace(t))
		if err != nil || seen[x] {
			return nil, bad()
		}
		seen[x] = true
		out = append(out, x)
	}
	return out, nil
}

// parseShard reads i/n with 0 ≤ i < n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 {
		return 0, 0, usagef("invalid value `%s` for --shard; expected i/n\nhelp: use --shard 0/4 for the first of 4 parts", s)
	}
	if i < 0 || i >= n {
		return 0, 0, usagef("shard index %d is out of range for %d shards; expected 0 ≤ i < %d\nhelp: shards are numbered from 0, as a Kubernetes completion index is", i, n, n)
	}
	return i, n, nil
}

// sweepLoader loads FILE with a point's inputs bound. The files are read
// once and kept, so that every point sees the same text.
type sweepLoader struct {
	file string
	opts lang.Options
	mu   sync.Mutex
	src  map[string][]byte
}

func (c *sweepCmd) loader(e *env) (*sweepLoader, error) {
	ld := &sweepLoader{file: c.File, opts: lang.Options{Lib: lib.FS}, src: map[string][]byte{}}
	var err error
	if ld.opts.Sets, err = overrides("--set", c.Set, "use --set name=expr with an input declared by args.number"); err != nil {
		return nil, err
	}
	if ld.opts.Defs, err = overrides("--def", c.Def, "use --def name=expr with a declared `def name(...) { expr }`"); err != nil {
		return nil, err
	}
	args, err := programArgs(e.progArgs)
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	ld.opts.Sets = append(ld.opts.Sets, args...)
	ld.opts.ReadFile = func(p string) ([]byte, error) {
		ld.mu.Lock()
		defer ld.mu.Unlock()
		if b, ok := ld.src[p]; ok {
			return b, nil
		}
		b, err := lang.ReadSource(p)
		if err == nil {
			ld.src[p] = b
		}
		return b, err
	}
	return ld, nil
}

// load loads the program with vary's inputs set to vals.
func (ld *sweepLoader) load(vary []sweepVary, vals []float64) (*model.Program, error) {
	opts := ld.opts
	opts.Sets = slices.Clone(opts.Sets)
	for k, v := range vary {
		opts.Sets = append(opts.Sets, lang.Override{Name: v.Name, Expr: numberExpr(vals[k])})
	}
	return lang.Load(ld.file, opts)
}

// runSweep runs the jobs of the range (indices into the spec's runs) on `workers`
// goroutines, each with its own interpreter, and returns the rows done, in
// job order. A failing run is a row with its error; with failFast it also
// stops the sweep. Cancelling ctx stops the workers between events; the
// runs cut short are not rows. progress is called, on the calling
// goroutine, after each row with the rows so far (in job order).
func runSweep(ctx context.Context, spec *sweepSpec, ld *sweepLoader, jobs jobRange, workers int, failFast bool, progress func([]sweepRow)) ([]sweepRow, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan int)
	done := make(chan *sweepRow)
	var wg sync.WaitGroup
	for range min(workers, jobs.n) {
		wg.Go(func() {
			for j := range todo {
				row, ok := runOne(ctx, spec, ld, j)
				if !ok {
					continue
				}
				done <- row
			}
		})
	}
	go func() {
		defer close(todo)
		for k, j := 0, jobs.first; k < jobs.n; k, j = k+1, j+jobs.step {
			select {
			case todo <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()

	var rows []sweepRow
	var stopErr error
	for row := range done {
		if stopErr != nil {
			continue // stopping: a run finished meanwhile is not written
		}
		i, _ := slices.BinarySearchFunc(rows, row.Job, func(r sweepRow, j int) int { return r.Job - j })
		rows = slices.Insert(rows, i, *row)
		progress(rows)
		if failFast && row.Err != "" {
			p, s := row.Job/len(spec.Seeds), spec.Seeds[row.Job%len(spec.Seeds)]
			stopErr = fmt.Errorf("--fail-fast: the run of point %d (%s) seed %d failed: %s", p, pointLabel(spec, p), s, row.Err)
			cancel()
		}
	}
	if stopErr == nil && ctx.Err() != nil && len(rows) < jobs.n {
		stopErr = errors.New("interrupted")
	}
	return rows, stopErr
}

// runOne runs job j; ok is false when ctx stopped it.
func runOne(ctx context.Context, spec *sweepSpec, ld *sweepLoader, j int) (*sweepRow, bool) {
	if ctx.Err() != nil {
		return nil, false
	}
	row := &sweepRow{Job: j}
	p, seed := j/len(spec.Seeds), spec.Seeds[j%len(spec.Seeds)]
	prog, err := ld.load(spec.Vary, spec.pointValues(p))
	if err != nil {
		row.Err = oneLine(err.Error())
		return row, true
	}
	rep, err := interp.Run(ctx, prog, interp.Options{Horizon: spec.Horizon, Warmup: spec.Warmup, Seed: seed, Version: version, Lean: true, OpenTrace: interp.TraceKind.Opener()}) // a row needs the statistics alone
	if err != nil {
		if ctx.Err() != nil {
			return nil, false
		}
		row.Err = oneLine(err.Error())
		return row, true
	}
	for i := range rep.Observes {
		o := &rep.Observes[i]
		row.Obs = append(row.Obs, sweepObs{Name: o.Name, Count: o.Count, Mean: o.Mean, CI: o.CI, P99: o.P99})
	}
	for i := range rep.Gauges {
		row.Gauges = append(row.Gauges, sweepGauge{Name: rep.Gauges[i].Name, Mean: rep.Gauges[i].Mean})
	}
	for i := range rep.Pools {
		row.Rejected += rep.Pools[i].Rejected
		row.Stuck += rep.Pools[i].Stuck
	}
	row.Failures = failuresOf(rep.Failures)
	return row, true
}

// oneLine joins an error's lines with "; " for a CSV cell, without
// control characters (a program's strings quoted in it included).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(safeio.Printable(s), "\n", " ; ")), " ")
}

// pointLabel is "Lambda=0.6 thr=512".
func pointLabel(spec *sweepSpec, p int) string {
	vals := spec.pointValues(p)
	var parts []string
	for k, v := range spec.Vary {
		parts = append(parts, v.Name+"="+report.FormatFloat(vals[k]))
	}
	return strings.Join(parts, " ")
}

// sweepBar is the progress bar on a terminal's stderr; elsewhere nothing.
type sweepBar struct{ bar *progressbar.ProgressBar }

func newSweepBar(stderr io.Writer, total int) *sweepBar {
	f, ok := stderr.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return &sweepBar{}
	}
	return &sweepBar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("sweep"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
	)}
}

func (b *sweepBar) add() {
	if b.bar != nil {
		_ = b.bar.Add(1)
	}
}

func (b *sweepBar) finish() {
	if b.bar != nil {
		_ = b.bar.Exit()
	}
}
