// Package calib holds serq's predictions against measured vLLM runs: it
// simulates every experiment of validation/groundtruth from its
// configuration alone (the model's config.json, the GPU, vLLM's options,
// inference-perf's profile, through package vllmimport), compares each
// load stage's figures with the measurement and BLIS's prediction, and
// fits the calibration the programs use.
//
// # The plan
//
// Experiments (Load) are read from validation/groundtruth: vLLM's options
// from exp-config.yaml, the workload from profile.yaml read as the
// inference-perf of the runs read it, the measured distributions per stage
// from results/stage_<i>_lifecycle_metrics.json, BLIS's predictions from
// blis-predictions.json.
//
// A prediction (Predict) writes the experiment's program with a
// Calibration, runs it (seed 1), and summarises each stage as
// inference-perf does: the mean, p90 and p99 of E2E and TTFT over the
// requests that succeeded (numpy's linear percentiles), the mean ITL as
// BLIS defines it ((E2E − TTFT) / (output tokens − 1), averaged over
// requests), successes and failures. The measured ITL is the same
// quantity: with every request getting exactly output_len tokens
// (ignore_eos), the mean of (E2E − TTFT) / (output_len − 1) is (mean E2E −
// mean TTFT) / (output_len − 1). (inference-perf's own inter_token_latency
// averages the gaps between the lines of the event stream, two a token,
// and is about half of it.)
//
// The table (Table, `go run ./calib/cmd/validate`) prints, per experiment
// and stage, serq's figure, the measured one and the relative error, with
// BLIS's trained-physics prediction where blis-predictions.json has it,
// and the medians of the absolute errors; docs/validation.md shows it, and
// a test keeps that copy true.
//
// The fit (Fit, `go run ./calib/cmd/fit`) sets the calibration's constants
// from runs it is given and nothing else:
//
//   - token_ratio is the mean, over the runs, of the measured prompt
//     tokens (less the BOS token) per random token id of the profile;
//   - the seven step and client constants minimise the squared log errors
//     of the stages' mean E2E, mean TTFT, TTFT p90 and mean ITL (of an
//     overloaded run, whose clients time out, only its mean ITL: its
//     latencies are its queue's, which the fit must predict, not learn).
//     A run's figures are functions of its steps' durations, which are
//     the execute expression of the program on each step's batch. The fit
//     runs each experiment once with the current constants and records
//     every step's batch and every request's span of steps; with the
//     batches and spans frozen, each request's TTFT and E2E under other
//     constants is the sum of its steps' new durations (plus the client's
//     constants), which Nelder–Mead minimises over in milliseconds. The
//     new constants are simulated again, and this is repeated a fixed
//     number of times.
//
// Leave-one-out (`go run ./calib/cmd/fit -loo`) fits on all runs but one
// and predicts that one, for each run in turn: the honest estimate of a
// run nobody calibrated against.
package calib
