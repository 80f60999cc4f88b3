package interp_test

import (
	"context"
	"testing"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// benchRun runs p to horizon once per iteration and reports simulated
// events per wall-clock second beside the allocations.
func benchRun(b *testing.B, p *model.Program, opt interp.Options) {
	b.ReportAllocs()
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
