package tui

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// The big run of issue 27: the seed at 32 prefill and 32 decode
// instances, Λ 9.6, horizon 2000 (29.5 M events), run to its end through
// the driver as `goto 2000` runs it; then, as the TUI asks for them,
// seeks anywhere in the part visited (each a frame: the service's seek,
// the log's window, the snapshot), reverse continues, and the
// checkpoints' memory. The figures of the closing note:
//
//	go test ./tui -run '^$' -bench 'Big|SmallSeek' -benchtime 12x -timeout 30m
//
// (bench/tui.sh runs them and measures the peak RSS of serq tui at the
// same size). The run to the end takes some 20 s once; each benchmark
// reuses it.

var (
	bigOnce   sync.Once
	bigDrv    *driver
	bigEvents uint64
	bigHeap   uint64 // the heap the driver holds after the run, less the program's
)

// seedAt is the seed's text with its family sizes rewritten and Λ scaled
// with them (0.6 per 4 instances), as bench/run.sh and interp's
// BenchmarkSeedScale make it.
func seedAt(tb testing.TB, np, nd int) *model.Program {
	tb.Helper()
	src, err := os.ReadFile(seedPath)
	if err != nil {
		tb.Fatal(err)
	}
	text := strings.Replace(strings.Replace(string(src), "let NP = 2;", fmt.Sprintf("let NP = %d;", np), 1),
		"let ND = 2;", fmt.Sprintf("let ND = %d;", nd), 1)
	lambda := fmt.Sprintf("%g", 0.6*float64(np+nd)/4)
	p, err := lang.LoadSource(seedPath, []byte(text), lang.Options{Lib: lib.FS, Sets: []lang.Override{{Name: "Lambda", Expr: lambda}}})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

var noView = viewReq{why: noSession, follow: noSession, stale: 1}

func bigRun(b *testing.B) *driver {
	b.Helper()
	bigOnce.Do(func() {
		p := seedAt(b, 32, 32)
		h0 := heapNow()
		d, err := newDriver(p, interp.Options{Horizon: 2000, Seed: 1}, 0)
		if err != nil {
			b.Fatal(err)
		}
		f := d.do(request{kind: reqSeekTime, dt: 2000, view: noView})
		bigDrv, bigEvents, bigHeap = d, f.snap.Events, heapNow()-h0
	})
	return bigDrv
}

// BenchmarkBigGoto is `goto T` anywhere in the part visited, each a
// frame: T cycles through 500, 1000, 1900, 1950, 10 and 1999 s, so each
// seek goes somewhere else (back, or forward through a checkpoint).
func BenchmarkBigGoto(b *testing.B) {
	d := bigRun(b)
	targets := []float64{500, 1000, 1900, 1950, 10, 1999}
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		f := d.do(request{kind: reqSeekTime, dt: targets[i%len(targets)], view: noView})
		if dt := time.Since(t0); dt > worst {
			worst = dt
		}
		if f.snap.Time != targets[i%len(targets)] {
			b.Fatalf("goto %g: t %g", targets[i%len(targets)], f.snap.Time)
		}
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// BenchmarkBigReverse is B from the run's end with a breakpoint on a
// lease beginning at P.kv[0] (one in some 30 requests): the last hit is
// found in the span before, the run goes there.
func BenchmarkBigReverse(b *testing.B) {
	d := bigRun(b)
	bp, err := d.dbg.Create(debugger.Spec{Kind: debugger.BreakOn, On: "lease", Where: "P.kv[0]"})
	if err != nil {
		b.Fatal(err)
	}
	defer d.dbg.Clear(bp.ID)
	var worst time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d.do(request{kind: reqSeekEvent, n: bigEvents - uint64(i)*50_000, view: noView})
		b.StartTimer()
		t0 := time.Now()
		f := d.do(request{kind: reqReverse, view: noView})
		if dt := time.Since(t0); dt > worst {
			worst = dt
		}
		if !f.stop.Found {
			b.Fatal("B found no lease")
		}
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// BenchmarkBigCheckpoints reports the checkpoints kept after the run to
// its end: how many, their spacing, their memory as counted when made
// (Checkpoint.Bytes) and the heap the driver holds (the checkpoints and
// the run), MB.
func BenchmarkBigCheckpoints(b *testing.B) {
	d := bigRun(b)
	for i := 0; i < b.N; i++ {
		n, bytes, every := d.dbg.Checkpoints()
		b.ReportMetric(float64(n), "checkpoints")
		b.ReportMetric(float64(every), "spacing-events")
		b.ReportMetric(float64(bytes)/(1<<20), "counted-MB")
		b.ReportMetric(float64(bigHeap)/(1<<20), "heap-MB")
		b.ReportMetric(float64(bigEvents), "events")
	}
}

// BenchmarkSmallSeek is the seed at 2/2 (horizon 2000, 2.2 M events), run
// to its end: `goto T` anywhere visited and one step back (b) from the
// middle, each a frame, as issue 10 measured them.
func BenchmarkSmallSeek(b *testing.B) {
	p, total := benchSeed(b)
	d, err := newDriver(p, benchOpts, 0)
	if err != nil {
		b.Fatal(err)
	}
	d.do(request{kind: reqSeekEvent, n: total, view: noView})
	b.Run("goto", func(b *testing.B) {
		targets := []float64{500, 1000, 1900, 1950, 10, 1999}
		var worst time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			d.do(request{kind: reqSeekTime, dt: targets[i%len(targets)], view: noView})
			worst = max(worst, time.Since(t0))
		}
		b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	})
	b.Run("back", func(b *testing.B) {
		d.do(request{kind: reqSeekEvent, n: total / 2, view: noView})
		var worst time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			d.do(request{kind: reqBack, n: 1, view: noView})
			worst = max(worst, time.Since(t0))
		}
		b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	})
}
