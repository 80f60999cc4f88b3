package interp_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// benchRun runs p to horizon once per iteration, lean as `serq run` runs
// it, and reports simulated events per wall-clock second and ns per event
// beside the allocations.
func benchRun(b *testing.B, p *model.Program, opt interp.Options) {
	b.ReportAllocs()
	opt.Lean = true
	var events uint64
	for b.Loop() {
		r, err := interp.Run(context.Background(), p, opt)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(events)/s, "events/s")
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(events), "ns/event")
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkMM1 is examples/single-turn/mg1.sq at its defaults, M/M/1 at
// rho = 0.8, three observes per request, at bench/run.sh's horizon 250 000
// and warm-up 25 000 (400 000 events a run): ns/op is `serq run`'s wall
// time less the process start and the text report.
func BenchmarkMM1(b *testing.B) {
	p := loadExample(b, "single-turn/mg1.sq", sets("law", "1"))
	benchRun(b, p, interp.Options{Horizon: 250000, Warmup: 25000, Seed: 1})
}

// BenchmarkMM1Bare is the smallest M/M/1: no observe of its own (only the
// automatic `response`), the service drawn in the run's work.
func BenchmarkMM1Bare(b *testing.B) {
	const src = `fn main() {
  stage svc : fifo;
  workload { arrive poisson(0.8); }
  server { run svc (cost(svc, ~exp(1))); }
}
`
	p := loadInline(b, "mm1.sq", src)
	benchRun(b, p, interp.Options{Horizon: 250000, Warmup: 25000, Seed: 1})
}

// BenchmarkSeed is the seed program, llm-d P/D over NIXL in pull mode, at
// a short horizon: engines, pools, queues and flows together.
func BenchmarkSeed(b *testing.B) {
	p := loadExample(b, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	benchRun(b, p, interp.Options{Horizon: 20, Warmup: 2, Seed: 1})
}

// seedAt is the seed program with np prefill and nd decode instances and
// the arrival rate scaled with them (0.6 per pair): the family sizes are
// plain lets (an input may not size a family), so the variant is the
// seed's text with its two lets rewritten (and any more replacements,
// each made once), loaded beside the seed so its `use` resolves.
func seedAt(t testing.TB, np, nd int, more ...[2]string) *model.Program {
	t.Helper()
	const path = "../examples/pd-disaggregation/llmd_nixl_pull.sq"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for _, r := range append([][2]string{
		{"let NP = 2;", fmt.Sprintf("let NP = %d;", np)},
		{"let ND = 2;", fmt.Sprintf("let ND = %d;", nd)},
	}, more...) {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the seed has no %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	lambda := fmt.Sprintf("%g", 0.6*float64(np+nd)/4)
	p, err := lang.LoadSource(path, []byte(text), lang.Options{Lib: lib.FS, Sets: sets("Lambda", lambda)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkSeedScale is the seed at 2/2, 8/8 and 32/32 (Λ 0.6, 2.4, 9.6)
// at horizon 100, warm-up 10: ns/event (ns/op over events/op) is the cost
// per event, which should not grow with the deployment.
func BenchmarkSeedScale(b *testing.B) {
	for _, n := range []int{2, 8, 32} {
		p := seedAt(b, n, n)
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			benchRun(b, p, interp.Options{Horizon: 100, Warmup: 10, Seed: 1})
		})
	}
}

// BenchmarkSeedTable is the seed at its table's settings (horizon 2000,
// warm-up 200, seed 1: 2.2 M events), the run `serq run` times.
func BenchmarkSeedTable(b *testing.B) {
	p := loadExample(b, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	benchRun(b, p, interp.Options{Horizon: 2000, Warmup: 200, Seed: 1})
}

// BenchmarkSeedStep is BenchmarkSeedTable driven one Step at a time, as
// the TUI steps: quiet iterations one event each on their cheaper path,
// none taken in runs off the calendar (StepN and Run take them so).
func BenchmarkSeedStep(b *testing.B) {
	p := loadExample(b, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	b.ReportAllocs()
	var events uint64
	for b.Loop() {
		s, err := interp.New(p, interp.Options{Horizon: 2000, Warmup: 200, Seed: 1, Lean: true})
		if err != nil {
			b.Fatal(err)
		}
		for s.Step() {
		}
		events += s.Events()
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(events), "ns/event")
}

// discardSink is a DumpSink that counts what it is handed and keeps none.
type discardSink struct{ samples, points uint64 }

func (d *discardSink) Sample(int, interp.Sample)   { d.samples++ }
func (d *discardSink) Point(int, interp.TimePoint) { d.points++ }

// BenchmarkSeedMemory is the long-horizon memory case: the seed, lean as
// `serq run` runs it, at horizons 2000 and 20000 (warm-up 200), with the
// live heap at the end of the run (before the report) in MB: flat in the
// horizon but for one float64 per observe sample. The dump variants hand
// every sample and change point to a sink, as `serq run --dump` does: the
// same live heap. Horizon 200000 (about two minutes a run) is bench/run.sh's
// LONG=1 row.
func BenchmarkSeedMemory(b *testing.B) {
	p := loadExample(b, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	for _, c := range []struct {
		h    float64
		dump bool
	}{{2000, false}, {20000, false}, {2000, true}, {20000, true}} {
		name := fmt.Sprintf("h%g", c.h)
		if c.dump {
			name += "/dump"
		}
		h := c.h
		b.Run(name, func(b *testing.B) {
			var mb float64
			for b.Loop() {
				opt := interp.Options{Horizon: h, Warmup: 200, Seed: 1, Lean: true}
				sink := &discardSink{}
				if c.dump {
					opt.Dump = sink
				}
				s, err := interp.New(p, opt)
				if err != nil {
					b.Fatal(err)
				}
				for s.Step() {
				}
				b.StopTimer()
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				runtime.KeepAlive(s)
				mb = float64(m.HeapAlloc) / (1 << 20)
				if c.dump && (sink.samples == 0 || sink.points == 0) {
					b.Fatalf("the sink got %d samples and %d points", sink.samples, sink.points)
				}
				b.StartTimer()
			}
			b.ReportMetric(mb, "live-MB")
		})
	}
}

// seedTimeline runs the seed example (horizon 2000, warm-up 200) to its
// end on a Timeline and returns it with the run's event count.
func seedTimeline(b *testing.B) (*interp.Timeline, uint64) {
	b.Helper()
	p := loadExample(b, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	s, err := interp.New(p, interp.Options{Horizon: 2000, Warmup: 200, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	tl := interp.NewTimeline(s, 0)
	for tl.Step() {
	}
	return tl, tl.Sim().Events()
}

// BenchmarkTimelineBack is one step back at 10 %, 50 % and 100 % of the
// seed run (2.2 M events): a resume of the nearest checkpoint and the
// events since it.
func BenchmarkTimelineBack(b *testing.B) {
	tl, total := seedTimeline(b)
	for _, pct := range []uint64{10, 50, 100} {
		at := total * pct / 100
		b.Run(fmt.Sprintf("at%d%%", pct), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				tl.SeekEvent(at)
				b.StartTimer()
				tl.Back(1)
			}
		})
	}
}

// BenchmarkTimelineSeek is a seek from the end of the seed run to 10 %,
// 50 % and 100 % of it (backwards: the worst case is a checkpoint's span
// of replay).
func BenchmarkTimelineSeek(b *testing.B) {
	tl, total := seedTimeline(b)
	for _, pct := range []uint64{10, 50, 100} {
		at := total*pct/100 - 1
		b.Run(fmt.Sprintf("to%d%%", pct), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				tl.SeekEvent(total)
				b.StartTimer()
				tl.SeekEvent(at)
			}
		})
	}
}

// BenchmarkTimelineRun is the seed run on a Timeline (checkpoints as it
// goes) against the plain run, and the heap the checkpoints hold at the
// end of the run (live heap with the timeline minus live heap with the
// plain run's Sim).
func BenchmarkTimelineRun(b *testing.B) {
	p := loadExample(b, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 2000, Warmup: 200, Seed: 1}
	live := func(keep any) uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(keep)
		return m.HeapAlloc
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			s, _ := interp.New(p, opt)
			for s.Step() {
			}
		}
	})
	b.Run("timeline", func(b *testing.B) {
		var mb float64
		for b.Loop() {
			s, _ := interp.New(p, opt)
			tl := interp.NewTimeline(s, 0)
			for tl.Step() {
			}
			b.StopTimer()
			with := live(tl)
			plain, _ := interp.New(p, opt)
			for plain.Step() {
			}
			tl = nil
			without := live(plain)
			mb = (float64(with) - float64(without)) / (1 << 20)
			b.StartTimer()
		}
		b.ReportMetric(mb, "checkpoint-MB")
	})
}
