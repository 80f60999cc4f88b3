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

// opTimes keeps an operation's worst wall time and its CPU time (the
// process's, cpuTime), the worst and the total: on a machine shared with
// other work the wall time grows with the load, the CPU time does not,
// and an idle machine's wall time is at most the CPU time (a frame's work
// runs on one goroutine; the collector's, on the other core, is in the
// CPU time too).
type opTimes struct {
	wall, cpu, cpuSum time.Duration
	n                 int
}

// time runs f and notes its times.
func (o *opTimes) time(f func()) {
	t0, c0 := time.Now(), cpuTime()
	f()
	c := time.Duration(cpuTime() - c0)
	o.wall, o.cpu = max(o.wall, time.Since(t0)), max(o.cpu, c)
	o.cpuSum += c
	o.n++
}

func (o *opTimes) report(b *testing.B) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(o.wall), "worst-ms")
	b.ReportMetric(ms(o.cpu), "worst-cpu-ms")
	if o.n > 0 {
		b.ReportMetric(ms(o.cpuSum)/float64(o.n), "cpu-ms/op")
	}
}

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
	var o opTimes
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var f frameMsg
		o.time(func() { f = d.do(request{kind: reqSeekTime, dt: targets[i%len(targets)], view: noView}) })
		if f.snap.Time != targets[i%len(targets)] {
			b.Fatalf("goto %g: t %g", targets[i%len(targets)], f.snap.Time)
		}
	}
	o.report(b)
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
	var o opTimes
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d.do(request{kind: reqSeekEvent, n: bigEvents - uint64(i)*50_000, view: noView})
		b.StartTimer()
		var f frameMsg
		o.time(func() { f = d.do(request{kind: reqReverse, view: noView}) })
		if !f.stop.Found {
			b.Fatal("B found no lease")
		}
	}
	o.report(b)
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
		var o opTimes
		for i := 0; i < b.N; i++ {
			o.time(func() { d.do(request{kind: reqSeekTime, dt: targets[i%len(targets)], view: noView}) })
		}
		o.report(b)
	})
	b.Run("back", func(b *testing.B) {
		d.do(request{kind: reqSeekEvent, n: total / 2, view: noView})
		var o opTimes
		for i := 0; i < b.N; i++ {
			o.time(func() { d.do(request{kind: reqBack, n: 1, view: noView}) })
		}
		o.report(b)
	})
}
