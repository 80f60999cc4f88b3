package tui

import "math"

// series is a value over simulated time, known at the frames the TUI
// receives: each sample holds from its time until the next (gauges are
// piecewise constant between events, so this is exact when frames come
// at every change, and a fair picture otherwise). It keeps the integral
// ∫v dt in equal bins from time 0 and doubles the bins' width, merging
// pairs, when the run outgrows them, so memory stays bounded however long
// the run and a chart can show any span's time average.
type series struct {
	width float64   // bin width, s
	sum   []float64 // ∫ v dt per bin
	cov   []float64 // time with a known value per bin
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
	if s.ok && t > s.t && !math.IsNaN(s.v) {
		s.integrate(s.t, t, s.v)
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
// column with no known value.
func (s *series) columns(n int, end float64) []float64 {
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
	for i := range s.sum {
		a := float64(i) * s.width
		b := math.Min(a+s.width, end)
		if b <= a || s.cov[i] == 0 {
			continue
		}
		// A bin's samples lie before the last sample, which is before end.
		spread(a, b, s.sum[i], s.cov[i])
	}
	if s.ok && !math.IsNaN(s.v) && end > s.t {
		spread(s.t, end, s.v*(end-s.t), end-s.t)
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

// truncate forgets the values after t (the run went back to t): the bins
// after it are emptied, and the bin holding t keeps the share of its
// known time that lies before t (a fair picture, not an exact one: where
// in the bin the time was known is not kept). The value at t is unknown
// until the next add.
func (s *series) truncate(t float64) {
	if !s.ok || t >= s.t {
		return
	}
	if t <= 0 || s.width == 0 {
		*s = series{}
		return
	}
	i := int(t / s.width)
	if i < len(s.sum) {
		a := float64(i) * s.width
		if keep := t - a; s.cov[i] > keep {
			f := keep / s.cov[i]
			s.sum[i] *= f
			s.cov[i] = keep
		}
		s.sum, s.cov = s.sum[:i+1], s.cov[:i+1]
	}
	s.t, s.v = t, math.NaN()
}
