package interp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// withoutHistory is r with its samples and change points dropped, as a
// lean run reports it.
func withoutHistory(r *interp.Report) *interp.Report {
	c := *r
	c.Observes = append([]interp.ObserveRow(nil), r.Observes...)
	for i := range c.Observes {
		c.Observes[i].Samples = nil
	}
	c.Gauges = append([]interp.GaugeRow(nil), r.Gauges...)
	for i := range c.Gauges {
		c.Gauges[i].Points = nil
	}
	return &c
}

// leanPair runs p to its end, lean and not.
func leanPair(t *testing.T, p *model.Program, opt interp.Options) (full, lean *interp.Report) {
	t.Helper()
	lo := opt
	lo.Lean = true
	a, err := interp.New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := interp.New(p, lo)
	if err != nil {
		t.Fatal(err)
	}
	for a.Step() {
	}
	for b.Step() {
	}
	if (a.Err() == nil) != (b.Err() == nil) {
		t.Fatalf("errors: %v, lean %v", a.Err(), b.Err())
	}
	return a.Report(), b.Report()
}

// TestLeanReport: a lean run reports every statistic of every example
// bit for bit as a full one, without the samples and change points, and
// says the same of constant-zero observes.
func TestLeanReport(t *testing.T) {
	h := horizon(300)
	for _, path := range testutil.Examples(t, "../examples") {
		t.Run(strings.TrimPrefix(path, "../examples/"), func(t *testing.T) {
			p, err := lang.Load(path, lang.Options{Lib: lib.FS})
			if err != nil {
				t.Fatal(err)
			}
			full, lean := leanPair(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1})
			for i := range lean.Observes {
				if lean.Observes[i].Samples != nil {
					t.Errorf("observe %s: a lean run kept %d samples", lean.Observes[i].Name, len(lean.Observes[i].Samples))
				}
				if a, b := full.Observes[i].ConstantZero(), lean.Observes[i].ConstantZero(); a != b {
					t.Errorf("observe %s: constant zero %v, lean %v", full.Observes[i].Name, a, b)
				}
			}
			for _, g := range lean.Gauges {
				if g.Points != nil {
					t.Errorf("gauge %s: a lean run kept %d points", g.Name, len(g.Points))
				}
			}
			if d := reportDiff(withoutHistory(full), lean); d != "" {
				t.Fatalf("the lean report differs (-full +lean):\n%s", d)
			}
		})
	}
}

// TestLeanConstantZero: a test-valued observe that is 0 in every sample is
// noted as constant in a lean run too, and one that is not is not.
func TestLeanConstantZero(t *testing.T) {
	p := loadInline(t, "zero.sq", `fn main() {
  stage svc : fifo;
  workload { arrive poisson(1); }
  server { run svc (cost(svc, ~exp(2))); observe never = now < 0; observe sometimes = now > 50; }
}
`)
	full, lean := leanPair(t, p, interp.Options{Horizon: 100, Seed: 1})
	for i, want := range []bool{true, false} {
		if got := lean.Observes[i].ConstantZero(); got != want || full.Observes[i].ConstantZero() != want {
			t.Errorf("observe %s: constant zero %v (full %v), want %v", lean.Observes[i].Name, got, full.Observes[i].ConstantZero(), want)
		}
	}
}

// TestLeanPartial: a lean report taken before the end has the full
// report's statistics but the gauges' CI, which is +Inf (no estimate: the
// windows are the horizon's).
func TestLeanPartial(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 100, Warmup: 10, Seed: 1}
	lo := opt
	lo.Lean = true
	a, _ := interp.New(p, opt)
	b, _ := interp.New(p, lo)
	a.RunUntil(60)
	b.RunUntil(60)
	full, lean := withoutHistory(a.Report()), b.Report()
	if len(lean.Gauges) == 0 {
		t.Fatal("the seed has no gauges")
	}
	for i := range lean.Gauges {
		if !math.IsInf(lean.Gauges[i].CI, 1) {
			t.Errorf("gauge %s: CI %v before the end, want +Inf", lean.Gauges[i].Name, lean.Gauges[i].CI)
		}
		if math.IsInf(full.Gauges[i].CI, 1) {
			t.Errorf("gauge %s: the full run's CI is +Inf too: the test shows nothing", full.Gauges[i].Name)
		}
		full.Gauges[i].CI = lean.Gauges[i].CI
	}
	if d := reportDiff(full, lean); d != "" {
		t.Fatalf("the lean partial report differs (-full +lean):\n%s", d)
	}
}

// TestLeanCheckpoint: a lean run resumed from a checkpoint ends as the
// straight run does.
func TestLeanCheckpoint(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 60, Warmup: 6, Seed: 1, Lean: true}
	straight, _ := interp.New(p, opt)
	for straight.Step() {
	}
	s, _ := interp.New(p, opt)
	s.RunUntil(30)
	c := s.Checkpoint()
	for s.Step() { // the original goes on: the checkpoint must not change
	}
	r := c.Resume()
	for r.Step() {
	}
	for _, got := range []*interp.Sim{s, r} {
		if d := reportDiff(straight.Report(), got.Report()); d != "" {
			t.Fatalf("a lean run through a checkpoint differs (-straight +through):\n%s", d)
		}
	}
}
