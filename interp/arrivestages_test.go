package interp_test

import (
	"math"
	"testing"
)

// `arrive constant(8, 10), constant(2, 5);` sends floor(8·10) = 80
// sessions in (0, 10], the last at 10, then floor(2·5) = 10 in (10, 15],
// the last at 15, in order; the run ends when the last session does
// (15 + its 0.5 of work), before the horizon.
func TestArriveConstantStages(t *testing.T) {
	src := mainProgram(`
  stage s : delay;
  workload { arrive constant(8, 10), constant(2, 5); }
  server { observe t = now; run s (cost(s, 0.5)); }`)
	r := pdReport(t, src, 100)
	var times []float64
	for _, o := range r.Observes {
		if o.Name == "t" {
			for _, x := range o.Samples {
				times = append(times, x.Value)
			}
		}
	}
	if len(times) != 90 {
		t.Fatalf("%d arrivals, want 90", len(times))
	}
	for i, x := range times {
		lo, hi := 0.0, 10.0
		if i >= 80 {
			lo, hi = 10, 15
		}
		if !(x > lo && x <= hi+1e-9) || i > 0 && x < times[i-1] {
			t.Errorf("arrival %d at %v: want it in (%v, %v], after the one before", i, x, lo, hi)
		}
	}
	if math.Abs(times[79]-10) > 1e-9 || math.Abs(times[89]-15) > 1e-9 {
		t.Errorf("the stages' last arrivals at %v and %v, want 10 and 15", times[79], times[89])
	}
	if math.Abs(r.End-15.5) > 1e-9 {
		t.Errorf("the run ended at %v, want 15.5", r.End)
	}
}
