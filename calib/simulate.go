package calib

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/serq/serq/hardware"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/vllmimport"
)

// GPU is the GPU of the measured runs.
const GPU = "H100"

// Seed is the seed every prediction runs with.
const Seed = 1

// Input is the vllmimport input of an experiment with a calibration.
func (e *Experiment) Input(cal vllmimport.Calibration) (*vllmimport.Input, error) {
	m, err := hardware.ReadModel(e.ModelConfig)
	if err != nil {
		return nil, err
	}
	g, err := hardware.LookupGPU(GPU)
	if err != nil {
		return nil, err
	}
	p, err := vllmimport.ReadProfile(e.Profile, "0.2")
	if err != nil {
		return nil, err
	}
	o := vllmimport.Options{TP: e.TP, MaxBatched: e.MaxBatched, MaxSeqs: e.MaxSeqs, MaxModelLen: e.MaxModelLen}
	if err := o.Resolve(g, m.MaxPositions); err != nil {
		return nil, err
	}
	return &vllmimport.Input{Model: m, ModelName: path.Base(e.ModelID), GPU: g, GPUName: GPU, Options: o, Profile: p, Cal: cal,
		Command: e.Command()}, nil
}

// Command is the `serq import vllm` command line of the experiment, with
// paths relative to the repository's root.
func (e *Experiment) Command() string {
	rel := func(p string) string {
		if i := strings.Index(p, "validation/groundtruth/"); i >= 0 {
			return p[i:]
		}
		return p
	}
	return fmt.Sprintf("serq import vllm --model-config %s --gpu %s --workload inference-perf:%s --tensor-parallel-size %d --max-num-batched-tokens %d --max-num-seqs %d --max-model-len %d",
		rel(filepath.ToSlash(e.ModelConfig)), GPU, rel(filepath.ToSlash(e.Profile)), e.TP, e.MaxBatched, e.MaxSeqs, e.MaxModelLen)
}

// Program writes the experiment's program with a calibration.
func (e *Experiment) Program(cal vllmimport.Calibration) ([]byte, *vllmimport.Plan, error) {
	in, err := e.Input(cal)
	if err != nil {
		return nil, nil, err
	}
	pl, err := vllmimport.NewPlan(in)
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := vllmimport.Write(&b, *in); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), pl, nil
}

// Prediction is a simulated run's figures per load stage.
type Prediction struct {
	Stages []Predicted
	End    float64 // when the run ended
	Events uint64
}

// Predicted is one stage's simulated figures, seconds.
type Predicted struct {
	Successes, Failures int
	E2E, TTFT           Dist
	ITL                 float64
}

// Predict simulates an experiment with a calibration.
func Predict(e *Experiment, cal vllmimport.Calibration) (*Prediction, error) {
	src, pl, err := e.Program(cal)
	if err != nil {
		return nil, err
	}
	prog, err := lang.LoadSource(e.Name+".sq", src, lang.Options{Lib: lib.FS})
	if err != nil {
		return nil, fmt.Errorf("%s: the written program does not load: %v", e.Name, err)
	}
	s, err := interp.New(prog, interp.Options{Horizon: pl.Horizon, Seed: Seed})
	if err != nil {
		return nil, err
	}
	if err := s.Run(context.Background()); err != nil {
		return nil, fmt.Errorf("%s: %v", e.Name, err)
	}
	r := s.Report()
	pred := &Prediction{End: r.End, Events: r.Events}
	byStage := map[int][]*request{}
	for _, q := range requests(r) {
		byStage[q.stage] = append(byStage[q.stage], q)
	}
	for i := range e.Stages {
		pred.Stages = append(pred.Stages, summarise(byStage[i]))
	}
	return pred, nil
}

// request is one simulated request.
type request struct {
	session        uint64
	stage          int
	failed         bool
	ttft, e2e, itl float64
	ok             bool // it has ttft, e2e and itl
}

// requests joins a report's per-request observes by session.
func requests(r *interp.Report) []*request {
	by := map[uint64]*request{}
	get := func(s uint64) *request {
		q := by[s]
		if q == nil {
			q = &request{session: s}
			by[s] = q
		}
		return q
	}
	for _, o := range r.Observes {
		for _, x := range o.Samples {
			q := get(x.Session)
			switch o.Name {
			case "stage":
				q.stage = int(x.Value)
			case "failed":
				q.failed = true
			case "ttft":
				q.ttft = x.Value
			case "e2e":
				q.e2e = x.Value
				q.ok = true
			case "itl":
				q.itl = x.Value
			}
		}
	}
	out := make([]*request, 0, len(by))
	for _, q := range by {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].session < out[j].session })
	return out
}

// summarise is a stage's figures over its requests.
func summarise(reqs []*request) Predicted {
	var p Predicted
	var e2e, ttft []float64
	itl := 0.0
	for _, q := range reqs {
		if q.failed || !q.ok {
			p.Failures++
			continue
		}
		p.Successes++
		e2e = append(e2e, q.e2e)
		ttft = append(ttft, q.ttft)
		itl += q.itl
	}
	p.E2E, p.TTFT = dist(e2e), dist(ttft)
	if p.Successes > 0 {
		p.ITL = itl / float64(p.Successes)
	} else {
		p.ITL = math.NaN()
	}
	return p
}

// dist is the mean, p90 and p99 of xs (numpy's linear percentiles).
func dist(xs []float64) Dist { return distInPlace(append([]float64(nil), xs...)) }

// distInPlace is dist, sorting xs.
func distInPlace(s []float64) Dist {
	if len(s) == 0 {
		return Dist{math.NaN(), math.NaN(), math.NaN()}
	}
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Dist{sum / float64(len(s)), percentile(s, 90), percentile(s, 99)}
}

// percentile is numpy's percentile of sorted s with linear interpolation.
func percentile(s []float64, p float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	x := p / 100 * float64(len(s)-1)
	i := int(math.Floor(x))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}
