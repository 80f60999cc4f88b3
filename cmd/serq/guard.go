package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/report"
)

// maxLive validates --max-live: a positive integer, 0 when not given
// (interp's default).
func (c *runCmd) maxLive() (int, error) {
	if c.MaxLive == nil {
		return 0, nil
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(*c.MaxLive, "+"), 10, 31)
	if err != nil || n == 0 {
		return 0, usagef("invalid value `%s` for --max-live; expected a positive integer\nhelp: use --max-live %d", *c.MaxLive, interp.DefaultMaxLive)
	}
	return int(n), nil
}

// renderPartial follows the message of a run stopped by a progress guard
// with how to go on and the report up to the stop, on stderr: stdout
// holds a report only when the run succeeds.
func renderPartial(w io.Writer, e *loadError) {
	var perr *interp.ProgressError
	if errors.As(e.err, &perr) {
		if perr.Live {
			fmt.Fprintf(w, "hint: raise the bound with --max-live N, or lower the arrival rate\n")
		} else {
			fmt.Fprintf(w, "hint: lower --horizon, or make each step advance the clock\n")
		}
	}
	fmt.Fprintf(w, "the report so far:\n")
	if err := report.Text(w, e.partial); err != nil {
		fmt.Fprintf(w, "(cannot write the report: %v)\n", err)
	}
}
