package tui

import (
	"math"
	"testing"
)

func TestSeriesColumns(t *testing.T) {
	var s series
	s.add(0, 1)
	s.add(2, 3) // 1 on [0, 2), 3 from 2 on
	got := s.columns(4, 4, 4)
	want := []float64{1, 1, 3, 3}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("columns(4, 4, 4) = %v, want %v", got, want)
		}
	}
	if got := s.columns(1, 4, 4); math.Abs(got[0]-2) > 1e-9 {
		t.Errorf("columns(1, 4, 4) = %v, want the time average 2", got)
	}
	// Past maxBins bins of the first width the bins merge; averages stay.
	s.add(5000, 1)
	if s.width == firstWidth || len(s.sum) > maxBins {
		t.Errorf("after t=5000: width %g, %d bins; want merged bins", s.width, len(s.sum))
	}
	got = s.columns(1, 6000, 6000)
	wantAvg := (1*2 + 3*4998 + 1*1000) / 6000.0
	if math.Abs(got[0]-wantAvg) > 1e-9 {
		t.Errorf("columns(1, 6000, 6000) = %v, want %g", got, wantAvg)
	}
	// An unknown value (NaN) leaves its span out of the averages.
	var u series
	u.add(0, math.NaN())
	u.add(1, 4)
	got = u.columns(2, 2, 2)
	if !math.IsNaN(got[0]) || got[1] != 4 {
		t.Errorf("NaN then 4: columns = %v, want [NaN 4]", got)
	}
}

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtCount(1488), "1,488"},
		{fmtCount(-1234567), "-1,234,567"},
		{fmtCount(849.75), "849.8"},
		{fmtCount(math.NaN()), "–"},
		{fmtShort(160000), "160k"},
		{fmtShort(2500000), "2.5M"},
		{fmtDur(0.0031), "3.1 ms"},
		{fmtDur(0.0004), "400 µs"},
		{fmtDur(48.33), "48.33 s"},
		{fmtSpan(0.1), "100 ms"},
		{fmtSpan(1.6), "1.6 s"},
		{fmtSpeed(0.5), "0.5 s/s"},
		{fmtPct(0.009), "0.9%"},
		{bar(DefaultStyles(), 10, 1, 2, 100), "█▒░░░░░░░░"},
		{bar(DefaultStyles(), 4, 0, 0, 0), "????"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestSeriesRewind: going back to t keeps what came after it, shown only
// up to the run's time; passing the part again (the same values: the run
// is deterministic) or over it with unknown values changes no bin, and the
// series goes on past the part visited.
func TestSeriesRewind(t *testing.T) {
	var s series
	s.add(0, 1)
	s.add(2, 3)
	s.add(4, 5) // 1 on [0, 2), 3 on [2, 4), 5 from 4 on
	s.add(5, 5)
	s.rewind(3)
	if s.t != 3 || !math.IsNaN(s.v) {
		t.Fatalf("rewind(3): last sample at %g = %g, want 3 and unknown", s.t, s.v)
	}
	check := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("%s: columns = %v, want %v", what, got, want)
			}
		}
	}
	// At time 3 the chart ends at 3: the column [3, 4) is cut at 3.
	nan := math.NaN()
	check("at 3", s.columns(5, 5, 3), []float64{1, 1, 3, nan, nan})
	s.add(3, 3)
	// A jump over [3, 5] with unknown values (pools have no history).
	s.add(4, nan)
	s.add(5, 5)
	check("jumped to 5", s.columns(5, 5, 5), []float64{1, 1, 3, 3, 5})
	s.add(6, 7) // on past the part visited: 5 on [5, 6), 7 from 6
	check("on to 8", s.columns(4, 8, 8), []float64{1, 3, 5, 7})
	if s.hi != 6 {
		t.Errorf("visited up to %g, want 6", s.hi)
	}
	s.rewind(7) // after the last sample: nothing to move
	if s.t != 6 || s.v != 7 {
		t.Errorf("rewind past the last sample changed it: %g = %g", s.t, s.v)
	}
}

func TestScaleNum(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0, "0"}, {16.45, "16"}, {812, "812"}, {5280, "5.28k"}, {19200, "19.2k"}, {160000, "160k"}, {1.5e6, "1.5M"}, {math.NaN(), "–"}} {
		if got := scaleNum(c.x); got != c.want {
			t.Errorf("scaleNum(%g) = %q, want %q", c.x, got, c.want)
		}
	}
}
