package tui

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// The benchmarks run the seed example to its horizon of 2000 s (about
// 2.2 M events), as issue 10 quotes them.

var (
	benchOnce   sync.Once
	benchProg   *model.Program
	benchEvents uint64 // events of the whole run
)

func benchSeed(b *testing.B) (*model.Program, uint64) {
	b.Helper()
	benchOnce.Do(func() {
		p, err := lang.Load(seedPath, lang.Options{Lib: lib.FS})
		if err != nil {
			b.Fatal(err)
		}
		s, err := interp.New(p, benchOpts)
		if err != nil {
			b.Fatal(err)
		}
		for s.Step() {
		}
		benchProg, benchEvents = p, s.Events()
	})
	return benchProg, benchEvents
}

var benchOpts = interp.Options{Horizon: 2000, Seed: 1}

func benchDriver(b *testing.B) *driver {
	b.Helper()
	p, _ := benchSeed(b)
	d, err := newDriver(p, benchOpts, 0)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkStepBack is one `b` at 10, 50 and 100 % of the run: a frame
// from the nearest checkpoint, as the TUI gets it.
func BenchmarkStepBack(b *testing.B) {
	_, total := benchSeed(b)
	for _, pct := range []uint64{10, 50, 100} {
		b.Run(fmt.Sprintf("%d%%", pct), func(b *testing.B) {
			d := benchDriver(b)
			d.do(request{kind: reqSeekEvent, n: total * pct / 100})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.do(request{kind: reqBack, n: 1})
			}
		})
	}
}

// BenchmarkSeekBack is a `goto #N` from the end of the run to 10, 50 and
// 100 % of it (each op a different N, always behind).
func BenchmarkSeekBack(b *testing.B) {
	_, total := benchSeed(b)
	for _, pct := range []uint64{10, 50, 100} {
		b.Run(fmt.Sprintf("%d%%", pct), func(b *testing.B) {
			d := benchDriver(b)
			d.do(request{kind: reqSeekEvent, n: total})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.do(request{kind: reqSeekEvent, n: total*pct/100 - uint64(i+1)*997})
			}
		})
	}
}

// BenchmarkCheckpointMemory runs the whole seed on a timeline and reports
// the heap its checkpoints keep beyond a plain run's (MB).
func BenchmarkCheckpointMemory(b *testing.B) {
	p, _ := benchSeed(b)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for i := 0; i < b.N; i++ {
		base := heap()
		s, _ := interp.New(p, benchOpts)
		for s.Step() {
		}
		plain := heap() - base
		s2, _ := interp.New(p, benchOpts)
		tl := interp.NewTimeline(s2, 0)
		for tl.Step() {
		}
		withCps := heap() - base - plain
		b.ReportMetric(float64(withCps-min(withCps, plain))/(1<<20), "MB-checkpoints")
		b.ReportMetric(float64(tl.Checkpoints()), "checkpoints")
		runtime.KeepAlive(s)
		runtime.KeepAlive(tl)
	}
}

// BenchmarkRun runs the first 200 s of the seed through the driver (as the
// run loop does, with the log, samples and checkpoints), without and with a
// breakpoint that never holds.
func BenchmarkRun(b *testing.B) {
	for _, tt := range []struct {
		name string
		brk  bool
	}{
		{"nobreak", false},
		{"break", true},
	} {
		b.Run(tt.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				d := benchDriver(b)
				if tt.brk {
					if _, err := d.dbg.Create(debugger.Spec{Kind: debugger.BreakExpr, Expr: "used(D[0].kv) > 1e9"}); err != nil {
						b.Fatal(err)
					}
				}
				f := d.do(request{kind: reqSlice, dt: 200, view: viewReq{why: noSession, follow: noSession}})
				if f.stop.Hit != nil || f.snap.Time != 200 {
					b.Fatalf("stopped at %g: %+v", f.snap.Time, f.stop)
				}
			}
			// CPU time is steadier than the wall clock on a shared machine.
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far, ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkGotoForward is `goto 1900` on the seed from t = 10 s: the first
// time (the events run, in StepN chunks) and again after going back to 10
// (a jump through the checkpoint before 1900, the charts read from the
// run's history, the log rebuilt by a replay of its span), CPU ms of each.
func BenchmarkGotoForward(b *testing.B) {
	noView := viewReq{why: noSession, follow: noSession}
	var first, again int64
	for i := 0; i < b.N; i++ {
		d := benchDriver(b)
		d.do(request{kind: reqSeekTime, dt: 10, view: noView})
		c0 := cpuTime()
		d.do(request{kind: reqSeekTime, dt: 1900, view: noView})
		first += cpuTime() - c0
		d.do(request{kind: reqSeekTime, dt: 10, view: noView})
		c0 = cpuTime()
		f := d.do(request{kind: reqSeekTime, dt: 1900, view: noView})
		again += cpuTime() - c0
		if f.snap.Time != 1900 || len(f.samples) != 256 {
			b.Fatalf("the second goto: t %g, %d chart samples; want a jump to 1900", f.snap.Time, len(f.samples))
		}
	}
	b.ReportMetric(float64(first)/1e6/float64(b.N), "first-cpu-ms")
	b.ReportMetric(float64(again)/1e6/float64(b.N), "jump-cpu-ms")
}

// BenchmarkQuietSeekBack is a `goto #N` to 10 and 50 % of the run
// after the whole run went at top speed (quiet batches, their checkpoints
// quietSparse times the spacing apart): each op a different N, always
// behind, most of them in parts no replay has filled in yet.
func BenchmarkQuietSeekBack(b *testing.B) {
	_, total := benchSeed(b)
	for _, pct := range []uint64{10, 50} {
		b.Run(fmt.Sprintf("%d%%", pct), func(b *testing.B) {
			d := benchDriver(b)
			for !d.dbg.Done() {
				d.do(request{kind: reqBatch, dt: 1e9, quiet: true, view: viewReq{why: noSession, follow: noSession}})
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.do(request{kind: reqSeekEvent, n: total*pct/100 - uint64(i+1)*99_991})
			}
		})
	}
}
