package vllmimport

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// Calibration is the fitted constants a written program's step and
// client use, the same for every model and GPU: efficiencies against the
// datasheet and fixed overheads, each a physical quantity. calib fits
// them (`go run ./calib/cmd/fit`) on validation/groundtruth and writes
// calibration.json, which the binary embeds.
type Calibration struct {
	EtaCompute float64 `json:"eta_compute"` // the fraction of peak FLOP/s a step's matrix products reach
	EtaMemory  float64 `json:"eta_memory"`  // the fraction of HBM bandwidth its reads reach
	TStep      float64 `json:"t_step"`      // fixed per step: scheduling, input preparation, the sampler (s)
	TRequest   float64 `json:"t_request"`   // per request in a step (s)
	THop       float64 `json:"t_hop"`       // per step of a ring all-reduce: its latency (s)
	// TClient is what the client sees besides the engine's steps: the API
	// server's HTTP and tokenizing before the engine, detokenizing and
	// streaming after it (s). The client's figures cannot tell the parts
	// apart (each adds to TTFT and E2E alike), so it is one constant, spent
	// before the request reaches the engine.
	TClient float64 `json:"t_client"`
	// TokenRatio is how many tokens the model's tokenizer counts per random
	// token id inference-perf decodes to text (decoding and encoding again
	// does not give the ids back): fitted on the measured prompt lengths.
	TokenRatio float64 `json:"token_ratio"`
	// LagSteps is how many steps after the one that samples a token the
	// client receives it: 1 when vLLM processes a step's outputs while the
	// next step runs (asynchronous scheduling), else 0. Chosen by the fit.
	LagSteps int `json:"lag_steps"`
	// FittedOn names the runs of validation/groundtruth the step's and the
	// client's constants were fitted on (token_ratio reads every run's
	// prompt lengths, which are inputs, not predictions).
	FittedOn []string `json:"fitted_on,omitempty"`
}

//go:embed calibration.json
var calibrationJSON []byte

// DefaultCalibration is the calibration the binary carries.
func DefaultCalibration() (Calibration, error) {
	var c Calibration
	if err := json.Unmarshal(calibrationJSON, &c); err != nil {
		return c, fmt.Errorf("vllmimport/calibration.json: %v", err)
	}
	return c, nil
}
