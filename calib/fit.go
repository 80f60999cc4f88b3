package calib

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/serq/serq/hardware"
	"github.com/serq/serq/vllmimport"
)

// FitOptions control Fit.
type FitOptions struct {
	Jobs int       // experiments simulated at once (default GOMAXPROCS)
	Log  io.Writer // progress, if not nil
}

func (o FitOptions) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// Start is the calibration a fit starts from, values a GPU engineer would
// guess, for the constants a step of the fit holds while it sets others:
// 60 % of peak FLOP/s, 85 % of HBM bandwidth, 1.5 ms a step, 30 µs a
// request, 5 µs a step of an all-reduce, 5 ms for the client. No fit starts
// from an earlier fit's answer.
var Start = vllmimport.Calibration{EtaCompute: 0.6, EtaMemory: 0.85, TStep: 1.5e-3, TRequest: 30e-6, THop: 5e-6,
	TClient: 5e-3, LagSteps: 1}

// Fit fits a calibration on exps, in three steps, each on what identifies
// its constants, and only on the runs that kept up (whose clients did not
// time out): an overloaded run's figures are its queue's, which serq must
// predict (and does, from the constants fitted on the others).
//
//  1. token_ratio: the measured prompt tokens (less BOS) per random token
//     id of the profiles, averaged over the stages (every run's: it is the
//     tokenizer's, whatever the load).
//  2. The decode step, t_step, t_request, eta_memory and t_hop: a
//     weighted least squares of the stages' measured ITL against the
//     step's cost at the stage's mean batch. A decode step of these runs is
//     memory-bound in both its kinds of kernel (its products read the
//     weights, its attention the KV, in less time than their FLOPs take),
//     so its cost is linear in the constants: t_step + t_request · N +
//     bytes(N) / (eta_memory · HBM) + all-reduces · steps · t_hop, with N
//     the decodes a step, by Little's law the stage's rate
//     times its measured decode time (mean E2E − mean TTFT), and bytes(N)
//     the weights (a mixture of experts': those of the experts N tokens
//     touch) and N requests' KV at their mean context, prompt + (output −
//     2)/2 tokens, plus the token each writes.
//  3. eta_compute, t_client and lag_steps, from the stages' mean E2E, mean
//     TTFT and TTFT p90: the prefill of a prompt the cache does not hold
//     (the first of each of the 100 prompts) and the steps of the busiest
//     stages (where compute would make a decode step longer than its
//     reads) are what compute costs; t_client adds to every request's TTFT
//     and E2E alike and moves nothing else, so for each lag and each
//     eta_compute of a golden-section search the runs are simulated with
//     t_client 0 and the best t_client is found from the simulated figures.
//     The lag and eta_compute with the least sum of squared log errors are
//     kept.
//
// It returns the calibration and the objective of step 3.
func Fit(exps []*Experiment, o FitOptions) (vllmimport.Calibration, float64, error) {
	cal := Start
	cal.FittedOn = nil
	var up []*Experiment
	for _, e := range exps {
		if !e.Overloaded() {
			up = append(up, e)
			cal.FittedOn = append(cal.FittedOn, e.Name)
		}
	}
	if len(up) == 0 {
		return cal, 0, fmt.Errorf("no run that kept up to fit on")
	}
	r, err := TokenRatio(exps)
	if err != nil {
		return cal, 0, err
	}
	cal.TokenRatio = r
	o.logf("token_ratio %.4f", r)
	if err := fitStep(up, &cal); err != nil {
		return cal, 0, err
	}
	o.logf("decode step: t_step %.4g s, t_request %.4g s, eta_memory %.4f, t_hop %.4g s", cal.TStep, cal.TRequest, cal.EtaMemory, cal.THop)
	best, bestObj := cal, math.Inf(1)
	for _, lag := range []int{1, 0} {
		c := cal
		c.LagSteps = lag
		f := func(x float64) (float64, error) {
			c.EtaCompute = math.Exp(x)
			t, obj, err := fitClient(up, c, o)
			if err != nil {
				return 0, err
			}
			o.logf("  lag_steps %d, eta_compute %.4f: t_client %.4g s, objective %.5f", lag, c.EtaCompute, t, obj)
			return obj, nil
		}
		x, err := golden(f, math.Log(0.2), 0, 8)
		if err != nil {
			return cal, 0, err
		}
		c.EtaCompute = math.Exp(x)
		tBest, obj, err := fitClient(up, c, o)
		if err != nil {
			return cal, 0, err
		}
		c.TClient = tBest
		o.logf("lag_steps %d: eta_compute %.4f, t_client %.4g s, objective %.5f", lag, c.EtaCompute, tBest, obj)
		if obj < bestObj {
			best, bestObj = c, obj
		}
	}
	o.logf("fitted: %s", Describe(best))
	return best, bestObj, nil
}

// TokenRatio is the measured prompt tokens, less the BOS token, per random
// token id of the profiles, averaged over the experiments' stages.
func TokenRatio(exps []*Experiment) (float64, error) {
	sum, n := 0.0, 0
	for _, e := range exps {
		in, err := e.Input(Start)
		if err != nil {
			return 0, err
		}
		ids := float64(in.Profile.SystemLen + in.Profile.QuestionLen)
		for _, s := range e.Stages {
			sum += (s.PromptLen - 1) / ids
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("no stages to fit the token ratio on")
	}
	return sum / float64(n), nil
}

// stepRow is a stage's decode step: its measured ITL and the terms its
// cost is linear in.
type stepRow struct {
	itl   float64
	terms [4]float64 // 1, N, bytes(N)/HBM, all-reduces · steps
}

// decodeRows are the stages' decode steps.
func decodeRows(exps []*Experiment) ([]stepRow, error) {
	var rows []stepRow
	for _, e := range exps {
		in, err := e.Input(Start)
		if err != nil {
			return nil, err
		}
		c, err := hardware.Derive(in.Model, in.GPU, in.Options.Serving())
		if err != nil {
			return nil, err
		}
		for s, m := range e.Stages {
			n := e.Rates[s] * (m.E2E.Mean - m.TTFT.Mean)
			ctx := (m.PromptLen - 1) + float64(e.OutputLen-2)/2 // its tokens (BOS included) before its mean decode
			weights := c.DenseBytes
			if c.Experts > 1 {
				weights += c.ExpertBytes * hardware.ExpertsTouched(c.Experts, c.ActiveK, n)
			}
			bytes := weights + c.KVBytesPerToken*n*(ctx+1)
			rows = append(rows, stepRow{itl: m.ITL, terms: [4]float64{1, n, bytes / in.GPU.HBM, float64(c.AllReduces * c.AllReduceSteps)}})
		}
	}
	return rows, nil
}

// fitStep sets t_step, t_request, eta_memory and t_hop by least squares of
// the stages' relative ITL errors, the constants kept at least 0 (the
// subset of them fitted, the others 0, with the least error).
func fitStep(exps []*Experiment, cal *vllmimport.Calibration) error {
	rows, err := decodeRows(exps)
	if err != nil {
		return err
	}
	return solveStep(rows, cal)
}

// solveStep is fitStep's least squares over the rows.
func solveStep(rows []stepRow, cal *vllmimport.Calibration) error {
	best, bestErr := []float64(nil), math.Inf(1)
	for mask := 1; mask < 16; mask++ {
		if mask&4 == 0 {
			continue // the bytes are always read
		}
		var cols []int
		for k := range 4 {
			if mask&(1<<k) != 0 {
				cols = append(cols, k)
			}
		}
		a := mat.NewDense(len(rows), len(cols), nil)
		b := mat.NewVecDense(len(rows), nil)
		for i, r := range rows {
			for j, k := range cols {
				a.Set(i, j, r.terms[k]/r.itl)
			}
			b.SetVec(i, 1)
		}
		var x mat.VecDense
		if err := x.SolveVec(a, b); err != nil {
			continue
		}
		full := make([]float64, 4)
		ok := true
		for j, k := range cols {
			full[k] = x.AtVec(j)
			ok = ok && full[k] >= 0
		}
		if !ok {
			continue
		}
		sq := 0.0
		for _, r := range rows {
			p := 0.0
			for k := range 4 {
				p += full[k] * r.terms[k]
			}
			sq += (p/r.itl - 1) * (p/r.itl - 1)
		}
		if sq < bestErr {
			best, bestErr = full, sq
		}
	}
	if best == nil {
		return fmt.Errorf("no decode step fits the ITLs with constants of at least 0")
	}
	cal.TStep, cal.TRequest, cal.THop = best[0], best[1], best[3]
	cal.EtaMemory = 1 / best[2]
	if cal.EtaMemory > 1 {
		return fmt.Errorf("the decode steps fit %.3g of the HBM's bandwidth, beyond the datasheet", cal.EtaMemory)
	}
	return nil
}

// fitClient simulates the runs with t_client 0 and finds the t_client that
// minimises the squared log errors of their mean E2E, mean TTFT and TTFT
// p90 when added to every request's.
func fitClient(exps []*Experiment, cal vllmimport.Calibration, o FitOptions) (float64, float64, error) {
	cal.TClient = 0
	preds, err := PredictAll(exps, cal, o.Jobs)
	if err != nil {
		return 0, 0, err
	}
	obj := func(t float64) float64 {
		sum := 0.0
		for i, e := range exps {
			for s, m := range e.Stages {
				p := preds[i].Stages[s]
				sum += sqLog(p.E2E.Mean+t, m.E2E.Mean) + sqLog(p.TTFT.Mean+t, m.TTFT.Mean) + sqLog(p.TTFT.P90+t, m.TTFT.P90)
			}
		}
		return sum
	}
	t, _ := golden(func(t float64) (float64, error) { return obj(t), nil }, 0, 0.2, 40)
	return t, obj(t), nil
}

// sqLog is the squared log error of p against m (large when either is not
// positive).
func sqLog(p, m float64) float64 {
	if !(p > 0) || !(m > 0) {
		return 100
	}
	l := math.Log(p / m)
	return l * l
}

// golden minimises f over [a, b] by n golden-section steps.
func golden(f func(float64) (float64, error), a, b float64, n int) (float64, error) {
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, err := f(c)
	if err != nil {
		return 0, err
	}
	fd, err := f(d)
	if err != nil {
		return 0, err
	}
	for range n {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			if fc, err = f(c); err != nil {
				return 0, err
			}
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			if fd, err = f(d); err != nil {
				return 0, err
			}
		}
	}
	if fc < fd {
		return c, nil
	}
	return d, nil
}

// Describe lists a calibration's constants.
func Describe(c vllmimport.Calibration) string {
	return fmt.Sprintf("eta_compute=%.4g eta_memory=%.4g t_step=%.4g t_request=%.4g t_hop=%.4g t_client=%.4g token_ratio=%.4g lag_steps=%d",
		c.EtaCompute, c.EtaMemory, c.TStep, c.TRequest, c.THop, c.TClient, c.TokenRatio, c.LagSteps)
}

// LeaveOut fits on all experiments but exps[i] and predicts that one: a
// run nobody calibrated against, predicted from its configuration alone
// (one fold of a leave-one-out).
func LeaveOut(exps []*Experiment, i int, o FitOptions) ([]Row, vllmimport.Calibration, error) {
	e := exps[i]
	rest := append(append([]*Experiment(nil), exps[:i]...), exps[i+1:]...)
	o.logf("leaving out %s", e.Name)
	cal, _, err := Fit(rest, o)
	if err != nil {
		return nil, cal, err
	}
	p, err := Predict(e, cal)
	if err != nil {
		return nil, cal, err
	}
	return Rows([]*Experiment{e}, []*Prediction{p}), cal, nil
}

// PredictAll simulates the experiments, jobs at a time (0: GOMAXPROCS).
func PredictAll(exps []*Experiment, cal vllmimport.Calibration, jobs int) ([]*Prediction, error) {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	out := make([]*Prediction, len(exps))
	errs := make([]error, len(exps))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for i, e := range exps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = Predict(e, cal)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
