package interp

import (
	"math"

	"github.com/serq/serq/model"
)

// Staged arrivals, `arrive constant(rate, duration), …;`: inference-perf's
// constant load type (its loadgen/load_timer.py ConstantLoadTimer). A
// stage sends n = floor(rate · duration) sessions: n gaps are drawn
// exponential of mean 1/rate from the arrival stream when the stage
// starts, then scaled so that they sum to the duration, and the sessions
// arrive at the stage's start plus their running sums (the last one at its
// end). The next stage starts when the duration is over. After the last
// stage nothing more arrives, and the run ends once every session has
// ended (as with --arrivals).
type arrivalStages struct {
	stage   int       // the stage being sent; len(Stages) once all are
	started bool      // stage has started
	start   float64   // its start
	times   []float64 // its arrival times still to come, the next first
}

// nextConstant is the time of the next staged arrival; ok is false once
// every stage has been sent.
func (s *Sim) nextConstant() (t float64, ok bool) {
	a := &s.arrStages
	stages := s.p.Workload.Stages
	for len(a.times) == 0 {
		if a.stage >= len(stages) {
			return 0, false
		}
		if a.started {
			a.start += float64(stages[a.stage].Duration)
			a.stage++
			a.started = false
			continue
		}
		a.started = true
		a.times = s.stageTimes(stages[a.stage], a.start)
	}
	t, a.times = a.times[0], a.times[1:]
	return t, true
}

// stageTimes draws a stage's arrival times.
func (s *Sim) stageTimes(st model.ArriveStage, start float64) []float64 {
	rate, dur := float64(st.Rate), float64(st.Duration)
	n := int(math.Floor(rate * dur))
	gaps := make([]float64, n)
	total := 0.0
	for i := range gaps {
		gaps[i] = -math.Log(1-s.arrStream.u()) / rate
		total += gaps[i]
	}
	scale := dur / total
	t := start
	for i, g := range gaps {
		t += g * scale
		gaps[i] = t
	}
	return gaps
}
