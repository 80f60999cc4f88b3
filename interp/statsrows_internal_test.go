package interp

import (
	"math"
	"slices"
	"testing"

	"github.com/serq/serq/interp/internal/stats"
)

// TestConstantZero checks the report's note of a test-valued observe that
// was always 0: at 40 samples or more, and not once a sample is 1.
func TestConstantZero(t *testing.T) {
	zeros := func(n int, test bool) ObserveRow {
		var o stats.ObserveStat
		for range n {
			o.Add(0, 0, 0, 0)
		}
		return observeRow(&o, "z", test, nil)
	}
	for _, c := range []struct {
		n    int
		test bool
		want bool
	}{{40, true, true}, {39, true, false}, {40, false, false}, {100, true, true}} {
		r := zeros(c.n, c.test)
		if got := r.ConstantZero(); got != c.want {
			t.Errorf("ConstantZero(%d zeros, test %v) = %v, want %v", c.n, c.test, got, c.want)
		}
	}
	r := zeros(40, true)
	r.Samples = append(slices.Clone(r.Samples), Sample{Value: 1})
	if r.ConstantZero() {
		t.Errorf("ConstantZero with a 1 among the zeros")
	}
}

// TestObserveRow checks an observe's row: its name and test flag, the
// summary's numbers and the samples.
func TestObserveRow(t *testing.T) {
	var o stats.ObserveStat
	for i := range 40 {
		o.Add(float64(i), uint64(100+i), uint32(i%3), float64((i/2)%2))
	}
	r := observeRow(&o, "hit", true, nil)
	if r.Name != "hit" || !r.Test || r.Count != 40 || r.Mean != 0.5 || r.P99 != 1 || r.CI != o.CI() || r.CV2 != o.CV2() ||
		len(r.Samples) != 40 || r.Samples[3] != (Sample{Time: 3, Session: 103, Turn: 0, Value: 1}) || r.ConstantZero() {
		t.Errorf("row = %+v", r)
	}
}

// TestGaugeRow: 0 from 0, 4 from 1, 2 from 3; warm-up 2, end 4: 4 on
// [2,3), 2 on [3,4]: mean 3, min 2, max 4; windows of 0.1: ten of 4, ten
// of 2, CI 2.093·sqrt((20·1/19)/20) = 2.093/sqrt(19). A lean gauge's row
// has the same numbers and no points.
func TestGaugeRow(t *testing.T) {
	for _, lean := range []bool{false, true} {
		var g stats.TimeAvg
		if lean {
			g.LeanOver(2, 4)
		}
		g.Record(0, 0)
		g.Record(1, 4)
		g.Record(3, 2)
		r := gaugeRow(&g, "load", 2, 4)
		wantPoints := 3
		if lean {
			wantPoints = 0
		}
		if r.Name != "load" || math.Abs(r.Mean-3) > 1e-12 || r.Min != 2 || r.Max != 4 || len(r.Points) != wantPoints {
			t.Errorf("lean %v: row = %+v", lean, r)
		}
		if want := 2.093 / math.Sqrt(19); math.Abs(r.CI-want) > 1e-9 {
			t.Errorf("lean %v: CI = %v, want %v", lean, r.CI, want)
		}
	}
}
