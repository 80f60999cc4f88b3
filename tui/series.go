package tui

import "math"

// series is a value over simulated time, known at the frames the TUI
// receives: each sample holds from its time until the next (gauges are
// piecewise constant between events, so this is exact when frames come
// at every change, and a fair picture otherwise). It keeps the integral
// ∫v dt in equal bins from time 0 and doubles the bins' width, merging
// pairs, when the run outgrows them, so memory stays bounded however long
// the run and a chart can show any span's time average.
//
// Going back keeps the bins after the new time: the run is deterministic
// (the TUI never changes a result), so the part after it, once visited,
// holds the same values when the run passes it again or jumps over it.
// Bins are filled only past hi, the end of the part visited, and a chart
// shows them only up to the run's current time.
type series struct {
	width float64   // bin width, s
	sum   []float64 // ∫ v dt per bin
	cov   []float64 // time with a known value per bin
	hi    float64   // the bins hold the run's values up to hi
	t     float64   // the last sample's time
	v     float64   // its value; NaN: unknown from t on
	ok    bool      // whether there is a last sample
}

const (
	maxBins    = 1024
	firstWidth = 1.0 / 1024 // s
)

// add records that the value is v from t on.
func (s *series) add(t, v float64) {
	if a := math.Max(s.t, s.hi); s.ok && t > a && !math.IsNaN(s.v) {
		s.integrate(a, t, s.v)
		s.hi = t
	}
	if !s.ok || t >= s.t {
		s.t, s.v, s.ok = t, v, true
	}
}

func (s *series) integrate(a, b, v float64) {
	if s.width == 0 {
		s.width = firstWidth
	}
	for b > s.width*maxBins {
		s.grow()
	}
	i := int(a / s.width)
	for a < b {
		end := float64(i+1) * s.width
		if end <= a {
			i++
			continue
		}
		end = math.Min(end, b)
		for len(s.sum) <= i {
			s.sum = append(s.sum, 0)
			s.cov = append(s.cov, 0)
		}
		s.sum[i] += v * (end - a)
		s.cov[i] += end - a
		a = end
		i++
	}
}

// grow doubles the bin width.
func (s *series) grow() {
	n := (len(s.sum) + 1) / 2
	for i := 0; i < n; i++ {
		j := 2 * i
		sum, cov := s.sum[j], s.cov[j]
		if j+1 < len(s.sum) {
			sum += s.sum[j+1]
			cov += s.cov[j+1]
		}
		s.sum[i], s.cov[i] = sum, cov
	}
	s.sum, s.cov = s.sum[:n], s.cov[:n]
	s.width *= 2
}

// columns returns n time averages over [0, end] split evenly, NaN for a
// column with no known value; values after cut (the run's time, when it
// went back from a later part) are left out.
func (s *series) columns(n int, end, cut float64) []float64 {
	out := make([]float64, n)
	if n <= 0 || !(end > 0) {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	sum := make([]float64, n)
	cov := make([]float64, n)
	cw := end / float64(n)
	spread := func(a, b, total, covered float64) {
		if b <= a {
			return
		}
		for c := int(a / cw); c < n && float64(c)*cw < b; c++ {
			lo, hi := math.Max(a, float64(c)*cw), math.Min(b, float64(c+1)*cw)
			if hi <= lo {
				continue
			}
			f := (hi - lo) / (b - a)
			sum[c] += f * total
			cov[c] += f * covered
		}
	}
	ahead := s.hi > cut // bins after cut hold a part visited before
	for i := range s.sum {
		a := float64(i) * s.width
		b := math.Min(a+s.width, end)
		if ahead {
			b = math.Min(b, cut)
		}
		if b <= a || s.cov[i] == 0 {
			continue
		}
		// A bin's samples lie before the last sample, which is before end;
		// a bin cut at cut keeps its average.
		spread(a, b, s.sum[i], s.cov[i])
	}
	if a := math.Max(s.t, s.hi); s.ok && !ahead && !math.IsNaN(s.v) && end > a {
		spread(a, end, s.v*(end-a), end-a)
	}
	for i := range out {
		if cov[i] > 0 {
			out[i] = sum[i] / cov[i]
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

// rewind moves the series back to t (the run went back to t). The bins
// after t are kept: when the run passes them again it finds the values
// they hold (the run is deterministic), and a chart shows them only up to
// the run's time. The value at t is unknown until the next add.
func (s *series) rewind(t float64) {
	if !s.ok || t >= s.t {
		return
	}
	s.t, s.v = t, math.NaN()
}
