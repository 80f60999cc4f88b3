package debugger

import (
	"math"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// Sample is the trends at one time: what a front end's charts read
// between the pictures it takes after each operation.
type Sample struct {
	T      float64
	Pools  []interp.PoolTrend // per pool of the program; NaN fields where unknown (a part jumped over)
	Gauges []float64          // per gauge
	Means  []float64          // per observe: its running mean, NaN before a sample
}

// TrendsNow is the trends now, as a sample.
func (d *Debugger) TrendsNow() Sample { return d.hist.sample(d.sim()) }

// Samples are the trends taken since the last call, in time order (at
// most sampleKeep of them), and drops them.
func (d *Debugger) Samples() []Sample {
	out := d.hist.samples
	d.hist.samples = nil
	d.hist.gap = sampleGap
	return out
}

// sampler takes the trends as an operation runs: one per 1/sampleShare
// of the clock (so a chart from 0 to now always has some hundreds), at
// most sampleKeep between two Samples (past it every other one is
// dropped and the gap doubles: a long operation's samples thin out
// evenly, and a front end's history stays bounded).
type sampler struct {
	p       *model.Program
	samples []Sample
	next    float64
	gap     int // take one sample out of gap due (1, 2, 4, …)
	due     int
}

const (
	sampleShare = 256
	sampleKeep  = 1024
	sampleGap   = 1
	// minSampleGap is the least time from one sample to the next, so
	// that sampling moves on at t = 0, where t/sampleShare is 0.
	minSampleGap = 1e-9
)

func nextSample(t float64) float64 { return t + math.Max(t/sampleShare, minSampleGap) }

// maybe takes a sample when one is due.
func (h *sampler) maybe(s *interp.Sim) {
	if h.p == nil {
		return
	}
	t := s.Now()
	if t < h.next {
		return
	}
	h.next = nextSample(t)
	if h.gap == 0 {
		h.gap = sampleGap
	}
	if h.due++; h.due < h.gap {
		return
	}
	h.due = 0
	h.samples = append(h.samples, h.sample(s))
	if len(h.samples) > sampleKeep {
		k := 0
		for i := 0; i < len(h.samples); i += 2 {
			h.samples[k] = h.samples[i]
			k++
		}
		h.samples = h.samples[:k]
		h.gap *= 2
	}
}

func (h *sampler) sample(s *interp.Sim) Sample {
	p := h.p
	sm := Sample{T: s.Now(), Pools: make([]interp.PoolTrend, len(p.Pools)), Gauges: make([]float64, len(p.Gauges)),
		Means: make([]float64, len(p.Observes))}
	s.Trends(sm.Pools, sm.Gauges, sm.Means)
	return sm
}

// rewound starts sampling again after the run went back to t: the
// samples taken before are of the part now ahead.
func (h *sampler) rewound(t float64) {
	h.samples = nil
	h.next = nextSample(t)
}

// historyCols is how many samples of the run's history a jump forward
// gives the charts: more than a chart has columns.
const historyCols = 256

// jumped gives the charts the part a jump forward went over, from t0 to
// now, from the run's own history: each gauge's value and each observe's
// running mean at historyCols times. The pools' trends have no history
// in the run: they are unknown (NaN) over the part, and a front end shows
// what it kept of it from when the run passed it before.
func (h *sampler) jumped(s *interp.Sim, p *model.Program, t0 float64) {
	t1 := s.Now()
	h.samples = nil
	if !(t1 > t0) {
		h.next = nextSample(t1)
		return
	}
	ts := make([]float64, historyCols)
	for i := range ts {
		ts[i] = t0 + (t1-t0)*float64(i)/historyCols
	}
	gs := make([][]float64, len(p.Gauges))
	for i := range gs {
		gs[i] = s.GaugeAt(i, ts)
	}
	ms := make([][]float64, len(p.Observes))
	for i := range ms {
		ms[i] = s.ObserveMeanAt(i, ts)
	}
	nan := math.NaN()
	unknown := interp.PoolTrend{Used: nan, Queued: nan, Leased: nan, Oldest: nan, Waiting: nan}
	for j, t := range ts {
		sm := Sample{T: t, Pools: make([]interp.PoolTrend, len(p.Pools)), Gauges: make([]float64, len(gs)), Means: make([]float64, len(ms))}
		for i := range gs {
			sm.Gauges[i] = gs[i][j]
		}
		for i := range ms {
			sm.Means[i] = ms[i][j]
		}
		for i := range sm.Pools {
			sm.Pools[i] = unknown
		}
		h.samples = append(h.samples, sm)
	}
	h.next = nextSample(t1)
}
