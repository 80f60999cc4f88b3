// Command validate simulates every measured run of validation/groundtruth
// from its configuration and prints, per run and load stage, serq's
// prediction beside the measurement and BLIS's, with the errors, then the
// medians (docs/validation.md shows its output):
//
//	go run ./calib/cmd/validate [-groundtruth DIR] [-calibration FILE]
//
// The calibration is the one `serq import vllm` carries
// (vllmimport/calibration.json) unless -calibration names another.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/serq/serq/calib"
	"github.com/serq/serq/vllmimport"
)

func main() {
	gt := flag.String("groundtruth", "validation/groundtruth", "the measured runs")
	calFile := flag.String("calibration", "", "a calibration JSON file (default: the one serq carries)")
	jobs := flag.Int("jobs", 0, "runs simulated at once (default: the CPUs)")
	flag.Parse()
	if err := run(*gt, *calFile, *jobs); err != nil {
		fmt.Fprintln(os.Stderr, "validate:", err)
		os.Exit(1)
	}
}

func run(gt, calFile string, jobs int) error {
	exps, err := calib.Load(gt)
	if err != nil {
		return err
	}
	cal, err := vllmimport.DefaultCalibration()
	if err != nil {
		return err
	}
	if calFile != "" {
		b, err := os.ReadFile(calFile)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &cal); err != nil {
			return fmt.Errorf("%s: %v", calFile, err)
		}
	}
	preds, err := calib.PredictAll(exps, cal, jobs)
	if err != nil {
		return err
	}
	rows := calib.Rows(exps, preds)
	calib.WriteValidation(os.Stdout, rows)
	return nil
}
