// Command fit fits the calibration `serq import vllm` writes into its
// programs on the measured runs of validation/groundtruth, and writes it
// to vllmimport/calibration.json (calib.Fit says how):
//
//	go run ./calib/cmd/fit [-groundtruth DIR] [-o FILE] [-jobs N] [-loo | -leave RUN]
//
// With -loo it fits, for each run in turn, on all the others, predicts
// that run, and prints the table of those predictions and their medians:
// the estimate of a run nobody calibrated against. -leave RUN does so for
// the one run whose name contains RUN (one twelfth of the time). It writes
// no calibration then.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/serq/serq/calib"
)

func main() {
	gt := flag.String("groundtruth", "validation/groundtruth", "the measured runs")
	out := flag.String("o", "vllmimport/calibration.json", "where to write the fitted calibration")
	loo := flag.Bool("loo", false, "leave one out: fit on all runs but one and predict it, for each run")
	leave := flag.String("leave", "", "leave out the one run whose name contains this: fit on the others and predict it")
	jobs := flag.Int("jobs", 0, "runs simulated at once (default: the CPUs)")
	flag.Parse()
	if err := run(*gt, *out, *loo, *leave, *jobs); err != nil {
		fmt.Fprintln(os.Stderr, "fit:", err)
		os.Exit(1)
	}
}

func run(gt, out string, loo bool, leave string, jobs int) error {
	exps, err := calib.Load(gt)
	if err != nil {
		return err
	}
	o := calib.FitOptions{Jobs: jobs, Log: os.Stderr}
	if loo || leave != "" {
		if loo && leave != "" {
			return fmt.Errorf("-loo and -leave: leave one run out, or each in turn, not both")
		}
		folds := make([]int, len(exps))
		for i := range folds {
			folds[i] = i
		}
		if leave != "" {
			i, err := calib.Find(exps, leave)
			if err != nil {
				return err
			}
			folds = []int{i}
		}
		var rows []calib.Row
		for _, i := range folds {
			r, cal, err := calib.LeaveOut(exps, i, o)
			if err != nil {
				return err
			}
			fmt.Printf("without %s: %s\n", exps[i].Name, calib.Describe(cal))
			rows = append(rows, r...)
		}
		fmt.Println()
		calib.WriteTable(os.Stdout, rows)
		if loo {
			fmt.Println()
			calib.WriteSummary(os.Stdout, rows)
		}
		return nil
	}
	cal, _, err := calib.Fit(exps, o)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(cal, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	// the residuals: every run simulated with what was fitted on all of them
	preds, err := calib.PredictAll(exps, cal, jobs)
	if err != nil {
		return err
	}
	rows := calib.Rows(exps, preds)
	calib.WriteValidation(os.Stdout, rows)
	return nil
}
