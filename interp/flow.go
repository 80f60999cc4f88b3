package interp

import (
	"math"

	"github.com/serq/serq/model"
)

// flowSet keeps the jobs on shared stages: every job on a stage that some
// multi-stage run names is a flow, its rate set by the program's `share`.
type flowSet struct {
	s          *Sim
	sv         shareSolver
	rule       shareRule
	phi        []float64 // per stage index
	flowStages [][]int32 // per flow id
	stageFlows [][]int32 // per stage index
	rates      []float64
	rem        []float64
	last       []float64
	sess       []*session
	free       []int32
	touched    []int32
	rateSum    []float64 // per stage: Σ rates of its flows
}

func (fs *flowSet) init(s *Sim) {
	fs.s = s
	switch s.p.Share {
	case "maxmin":
		fs.rule = shareMaxMin
	case "bottleneck":
		fs.rule = shareBottleneck
	}
	n := len(s.p.Stages)
	fs.phi = make([]float64, n)
	fs.stageFlows = make([][]int32, n)
	fs.rateSum = make([]float64, n)
	for i, m := range s.p.Stages {
		if m.Shared && m.Phi != nil {
			fs.phi[i], _ = m.Phi.IsConst()
		}
	}
}

func (s *Sim) startFlow(ss *session, refs []model.Ref, work float64) bool {
	fs := &s.flows
	var id int32
	if n := len(fs.free); n > 0 {
		id = fs.free[n-1]
		fs.free = fs.free[:n-1]
	} else {
		id = int32(len(fs.flowStages))
		fs.flowStages = append(fs.flowStages, nil)
		fs.rates = append(fs.rates, 0)
		fs.rem = append(fs.rem, 0)
		fs.last = append(fs.last, 0)
		fs.sess = append(fs.sess, nil)
	}
	stages := fs.flowStages[id][:0]
	for i := range refs {
		m, ok := s.member(&refs[i], ss, true)
		if !ok {
			return false
		}
		stages = append(stages, int32(m))
	}
	fs.flowStages[id] = stages
	fs.rates[id], fs.rem[id], fs.last[id], fs.sess[id] = 0, work, s.now, ss
	for _, st := range stages {
		fs.stageFlows[st] = append(fs.stageFlows[st], id)
		fs.touched = append(fs.touched, st)
		stg := &s.stages[st]
		stg.present++
		stg.joins++
		stg.num.Set(s.now, float64(stg.present))
	}
	if s.tracer != nil {
		var names []string
		for _, k := range stages {
			names = append(names, s.stages[k].m.Label)
		}
		s.trace(ss, EvTransfer, joinLabels(names), work)
	}
	j := &ss.job
	j.flow, j.work, j.enq, j.start, j.stage = id, work, s.now, s.now, -1
	ss.state = sBlocked
	return false
}

func (s *Sim) flowDone(ss *session) {
	fs := &s.flows
	id := ss.job.flow
	for _, st := range fs.flowStages[id] {
		list := fs.stageFlows[st]
		for k, f := range list {
			if f == id {
				copy(list[k:], list[k+1:])
				list = list[:len(list)-1]
				break
			}
		}
		fs.stageFlows[st] = list
		fs.touched = append(fs.touched, st)
		stg := &s.stages[st]
		stg.present--
		fs.rateSum[st] -= fs.rates[id]
		stg.num.Set(s.now, float64(stg.present))
		stg.util.Set(s.now, flowUtil(math.Max(0, fs.rateSum[st]), fs.phi[st]))
		s.completed(stg, ss)
	}
	fs.flowStages[id] = fs.flowStages[id][:0]
	fs.rates[id] = 0
	fs.sess[id] = nil
	fs.free = append(fs.free, id)
	ss.job.flow = -1
	s.makeReady(ss)
}

// reschedule recomputes the rates of the components the settle touched.
func (fs *flowSet) reschedule() {
	if len(fs.touched) == 0 {
		return
	}
	s := fs.s
	stages, flows := fs.sv.component(fs.touched, fs.flowStages, fs.stageFlows)
	fs.touched = fs.touched[:0]
	for _, f := range flows {
		fs.rem[f] -= fs.rates[f] * (s.now - fs.last[f])
		fs.last[f] = s.now
	}
	fs.sv.solveComponent(fs.rule, fs.phi, fs.flowStages, stages, flows, fs.rates)
	for _, st := range stages {
		sum := 0.0
		for _, f := range fs.stageFlows[st] {
			sum += fs.rates[f]
		}
		fs.rateSum[st] = sum
		s.stages[st].util.Set(s.now, flowUtil(sum, fs.phi[st]))
	}
	for _, f := range flows {
		ss := fs.sess[f]
		ss.gen++
		if fs.rates[f] == 0 {
			continue // a stalled stage's flow (faults.go): it waits
		}
		dt := math.Max(0, fs.rem[f]) / fs.rates[f]
		s.schedule(s.now+dt, evFlowDone, 0, ss.gen, ss)
	}
}

// flowUtil is a shared stage's utilisation: its flows' rates over its
// capacity, 0 while a fault stalls it (capacity 0).
func flowUtil(sum, phi float64) float64 {
	if phi == 0 {
		return 0
	}
	return sum / phi
}

func (fs *flowSet) observable(stg *stage, f model.Func) float64 {
	list := fs.stageFlows[stg.index]
	switch f {
	case model.SQueue, model.SBusy:
		return float64(len(list))
	case model.SWork:
		w := 0.0
		for _, id := range list {
			w += fs.rem[id] - fs.rates[id]*(fs.s.now-fs.last[id])
		}
		return w
	}
	return 0
}
