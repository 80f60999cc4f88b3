package interp_test

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// The differential tests of the fast paths (the dirty sets, the gauge
// trees, the memoized engine expressions, quiet engine iterations): a run
// with Options.NoFastPath, which scans every pool, engine, stage and gauge
// after every event, evaluates every expression afresh and takes every
// engine iteration through the settle, and the same run on the fast paths
// step alike — the same clock and event count after every Step — and end
// with the same report, bit for bit (floats compared by their bits, NaN
// included): the report is all that `serq run` renders as text, JSON and
// --dump CSVs (cmd/serq's TestFastPathBytes compares those bytes). A third
// run advances by StepN in batches of changing sizes, which take runs of
// quiet iterations off the calendar and cut them at the batch's end: after
// each batch it has the clock, the event count and the next event of the
// Step-by-Step runs, and it ends in the same state (SameState) with the same
// report.

// sameBits compares floats by their bits.
var sameBits = cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })

// reportDiff is empty when two reports are equal bit for bit.
func reportDiff(a, b *interp.Report) string { return cmp.Diff(a, b, sameBits) }

// differential steps p with and without the fast paths in lock step, at
// most maxSteps events (0: to the end), and fails at the first difference.
func differential(t testing.TB, p *model.Program, opt interp.Options, maxSteps int) {
	t.Helper()
	ref := opt
	ref.NoFastPath = true
	fast, err1 := interp.New(p, opt)
	slow, err2 := interp.New(p, ref)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("New: %v, reference %v", err1, err2)
	}
	if err1 != nil {
		return
	}
	batched, err := interp.New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for batch := 0; maxSteps == 0 || n < maxSteps; batch++ {
		size := batchSizes[batch%len(batchSizes)]
		if maxSteps > 0 {
			size = min(size, uint64(maxSteps-n))
		}
		got := batched.StepN(size)
		steps := got
		if batched.Done() {
			steps++ // the Step that ends the run takes no event
		}
		going := true
		for k := uint64(0); k < steps && going; k++ {
			a, b := fast.Step(), slow.Step()
			if a != b || fast.Events() != slow.Events() || math.Float64bits(fast.Now()) != math.Float64bits(slow.Now()) ||
				math.Float64bits(fast.NextTime()) != math.Float64bits(slow.NextTime()) {
				t.Fatalf("step %d: fast path at t=%v after %d events (next %v, going %v), reference at t=%v after %d (next %v, going %v)",
					n, fast.Now(), fast.Events(), fast.NextTime(), a, slow.Now(), slow.Events(), slow.NextTime(), b)
			}
			going = a
			n++
		}
		if batched.Events() != fast.Events() || math.Float64bits(batched.Now()) != math.Float64bits(fast.Now()) ||
			math.Float64bits(batched.NextTime()) != math.Float64bits(fast.NextTime()) || batched.Done() != fast.Done() {
			t.Fatalf("StepN(%d) took %d events, to t=%v after %d (next %v, done %v); Step to t=%v after %d (next %v, done %v)",
				size, got, batched.Now(), batched.Events(), batched.NextTime(), batched.Done(), fast.Now(), fast.Events(), fast.NextTime(), fast.Done())
		}
		if !going || got < size {
			break
		}
	}
	if fmt.Sprint(fast.Err()) != fmt.Sprint(slow.Err()) || fmt.Sprint(batched.Err()) != fmt.Sprint(slow.Err()) {
		t.Fatalf("errors differ: fast path %v, StepN %v, reference %v", fast.Err(), batched.Err(), slow.Err())
	}
	if !interp.SameState(batched, fast) {
		t.Fatal("StepN and Step end in different states")
	}
	want := slow.Report()
	if d := reportDiff(fast.Report(), want); d != "" {
		t.Fatalf("reports differ (-fast path +reference):\n%s", d)
	}
	if d := reportDiff(batched.Report(), want); d != "" {
		t.Fatalf("reports differ (-StepN +reference):\n%s", d)
	}
}

// batchSizes are the StepN batches of the differential run, in turn: small
// and odd sizes cut runs of quiet iterations in their middle.
var batchSizes = []uint64{1, 2, 3, 7, 64, 1, 333, 4096, 5, 100000}

// TestFastPathExamples holds every example, and the seed at 8/8 and with
// its pressure instance, to the reference path.
func TestFastPathExamples(t *testing.T) {
	h := horizon(300)
	for _, path := range testutil.Examples(t, "../examples") {
		t.Run(strings.TrimPrefix(path, "../examples/"), func(t *testing.T) {
			p, err := lang.Load(path, lang.Options{Lib: lib.FS})
			if err != nil {
				t.Fatal(err)
			}
			differential(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1}, 0)
		})
	}
	t.Run("seed 8x8", func(t *testing.T) {
		differential(t, seedAt(t, 8, 8), interp.Options{Horizon: h / 3, Warmup: h / 30, Seed: 2}, 0)
	})
	t.Run("seed pressure", func(t *testing.T) {
		p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "1200", "Lambda", "1.2"))
		differential(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 3}, 0)
	})
	t.Run("vllm gauges", func(t *testing.T) {
		// gauges read at every instant's end (a stage's observables), so
		// that a run of quiet iterations ends each instant as Step does
		src, err := os.ReadFile("../examples/single-turn/vllm.sq")
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(src), "  pool reqs on vllm { queue fifo; }",
			"  pool reqs on vllm { queue fifo; }\n  gauge batch = busy(vllm) + queue(vllm);", 1)
		p, err := lang.LoadSource("../examples/single-turn/vllm.sq", []byte(text), lang.Options{Lib: lib.FS})
		if err != nil {
			t.Fatal(err)
		}
		differential(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 5}, 0)
	})
	t.Run("rich program", func(t *testing.T) {
		p := loadInline(t, "rich.sq", testutil.RichProgram)
		differential(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1}, 0)
	})
	t.Run("indexed chooses", func(t *testing.T) {
		p := loadInline(t, "choose.sq", testutil.ChooseProgram)
		differential(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1}, 0)
	})
	t.Run("scanned chooses", func(t *testing.T) {
		p := loadInline(t, "scan.sq", testutil.ScanProgram)
		differential(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1}, 0)
	})
}

// TestFastPathDetects is the differential's own check: two runs that do
// differ (another seed) are found different, at a step or in the report.
func TestFastPathDetects(t *testing.T) {
	p := loadExample(t, "single-turn/mg1.sq", nil)
	a, _ := interp.Run(context.Background(), p, interp.Options{Horizon: 100, Seed: 1})
	b, _ := interp.Run(context.Background(), p, interp.Options{Horizon: 100, Seed: 2})
	if reportDiff(a, b) == "" {
		t.Fatal("the reports of seeds 1 and 2 compare equal")
	}
	c, _ := interp.Run(context.Background(), p, interp.Options{Horizon: 100, Seed: 1, NoFastPath: true})
	if d := reportDiff(a, c); d != "" {
		t.Fatalf("the reference path's report differs:\n%s", d)
	}
	nan := &interp.Report{MeanLive: math.NaN()}
	if reportDiff(nan, &interp.Report{MeanLive: math.NaN()}) != "" || reportDiff(nan, &interp.Report{MeanLive: math.Inf(1)}) == "" {
		t.Fatal("floats are not compared by their bits")
	}
}

// FuzzFastPath mutates the example programs: whatever loads and runs steps
// alike on both paths (a short horizon, a bounded number of events).
func FuzzFastPath(f *testing.F) {
	_ = filepath.WalkDir("../examples", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "instances" {
			return filepath.SkipDir
		}
		if err == nil && strings.HasSuffix(p, ".sq") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	f.Add([]byte(testutil.RichProgram))
	f.Add([]byte(testutil.ChooseProgram))
	f.Add([]byte(testutil.EngineChooseProgram))
	f.Add([]byte(testutil.ScanProgram))
	f.Add([]byte(testutil.FaultsProgram))
	read := func(path string) ([]byte, error) { return fs.ReadFile(lib.FS, filepath.Base(path)) }
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := lang.LoadSource("fuzz/a/b.sq", src, lang.Options{Lib: lib.FS, ReadFile: read})
		if err != nil {
			return
		}
		differential(t, prog, interp.Options{Horizon: 20, Warmup: 2, Seed: 1}, 20000)
	})
}

// TestFastPathTrace: with a tracer (of everything but engine iterations,
// as the TUI's log has it by default) the quiet iterations still run, and
// the trace is the reference path's event for event, stepped by Step and
// by StepN alike, for every example and the seed under pressure.
func TestFastPathTrace(t *testing.T) {
	h := horizon(300) / 3
	run := func(p *model.Program, opt interp.Options, batched bool) ([]interp.TraceEvent, *interp.Sim) {
		s, err := interp.New(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		var evs []interp.TraceEvent
		s.SetTracer(func(e interp.TraceEvent) { evs = append(evs, e) })
		if batched {
			for i := 0; s.StepN(batchSizes[i%len(batchSizes)]) > 0; i++ {
			}
		} else {
			for s.Step() {
			}
		}
		return evs, s
	}
	check := func(t *testing.T, p *model.Program, opt interp.Options) {
		ref := opt
		ref.NoFastPath = true
		want, slow := run(p, ref, false)
		for _, batched := range []bool{false, true} {
			got, fast := run(p, opt, batched)
			if d := cmp.Diff(want, got, sameBits); d != "" {
				t.Fatalf("StepN %v: the traces differ (-reference +fast path):\n%s", batched, d)
			}
			if d := reportDiff(fast.Report(), slow.Report()); d != "" {
				t.Fatalf("StepN %v: reports differ (-fast path +reference):\n%s", batched, d)
			}
		}
	}
	for _, path := range testutil.Examples(t, "../examples") {
		t.Run(strings.TrimPrefix(path, "../examples/"), func(t *testing.T) {
			p, err := lang.Load(path, lang.Options{Lib: lib.FS})
			if err != nil {
				t.Fatal(err)
			}
			check(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1})
		})
	}
	t.Run("seed pressure", func(t *testing.T) {
		p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "1200", "Lambda", "1.2"))
		check(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 3})
	})
	t.Run("indexed chooses", func(t *testing.T) {
		check(t, loadInline(t, "choose.sq", testutil.ChooseProgram), interp.Options{Horizon: h, Warmup: h / 10, Seed: 3})
	})
	t.Run("scanned chooses", func(t *testing.T) {
		check(t, loadInline(t, "scan.sq", testutil.ScanProgram), interp.Options{Horizon: h, Warmup: h / 10, Seed: 3})
	})
}
