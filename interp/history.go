package interp

import (
	"math"
	"sort"

	"github.com/serq/serq/interp/internal/stats"
)

// The run's own history, read without touching the run: what a driver
// that jumps forward (a checkpoint of a part visited before) charts for
// the part it did not step through. Each call reads the values at the
// times it is given, so its answer, and its cost past a pass over the
// observe's samples, is bounded by the chart's width.

// GaugeAt is gauge i's value at each of the times ts (ascending), read
// from its change points: the value after the last instant at or before
// each time; NaN before the first point, and for a lean run (which keeps
// none).
func (s *Sim) GaugeAt(i int, ts []float64) []float64 {
	out := make([]float64, len(ts))
	if i < 0 || i >= len(s.gauges) || s.gauges[i].Lean() {
		for j := range out {
			out[j] = math.NaN()
		}
		return out
	}
	pts := s.gauges[i].PointLog()
	n := pts.Len()
	for j, t := range ts {
		k := sort.Search(n, func(m int) bool { return pts.At(m).Time > t })
		out[j] = math.NaN()
		if k > 0 {
			out[j] = pts.At(k - 1).Value
		}
	}
	return out
}

// ObserveMeanAt is observe i's running mean at each of the times ts
// (ascending), as the run's own mean would have read then: the mean of its
// samples at or before each time (those after warm-up: the observe keeps
// no other); NaN before its first sample, and for a lean run (which keeps
// no sample times).
func (s *Sim) ObserveMeanAt(i int, ts []float64) []float64 {
	out := make([]float64, len(ts))
	for j := range out {
		out[j] = math.NaN()
	}
	if i < 0 || i >= len(s.obs) || s.obs[i].Lean() {
		return out
	}
	var w stats.Welford
	smp := s.obs[i].SampleLog()
	k, n := 0, smp.Len()
	for j, t := range ts {
		for ; k < n && smp.At(k).Time <= t; k++ {
			w.Add(smp.At(k).Value)
		}
		if w.Count() > 0 {
			out[j] = w.Mean()
		}
	}
	return out
}

// CheckpointBeforeTime is the event count of the latest checkpoint at or
// before time t (0, the start, if none): a seek to t jumps there when it
// is ahead of the run.
func (tl *Timeline) CheckpointBeforeTime(t float64) uint64 {
	return tl.before(func(c *Checkpoint) bool { return c.Time() <= t }).Events()
}
