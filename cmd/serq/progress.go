package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/serq/serq/interp"
)

// runWithProgress runs the simulation. On a terminal, a run longer than a
// second shows a progress line on stderr (simulated time, events per
// second), erased at the end; elsewhere stderr stays silent. A signal
// caught by in stops the run with an *interruptedError.
func runWithProgress(sim *interp.Sim, stderr io.Writer, in *interrupts) error {
	f, ok := stderr.(*os.File)
	tty := ok && isatty.IsTerminal(f.Fd())
	start := time.Now()
	next := start.Add(time.Second)
	shown := false
	n := 0
	// batches of 256 events (StepN takes runs of engine iterations inside
	// a batch on its fast path), a signal looked for after each
	for sim.StepN(256) == 256 {
		n += 256
		if signalHook != nil {
			signalHook("run", in)
		}
		if sig := in.caught(); sig != nil {
			if shown {
				fmt.Fprint(stderr, "\r\x1b[K")
			}
			return &interruptedError{sig: sig, what: fmt.Sprintf("the run stopped at t=%.6g after %d events; no report written", sim.Now(), sim.Events())}
		}
		if !tty || n&1023 != 0 {
			continue
		}
		if now := time.Now(); now.After(next) {
			next = now.Add(250 * time.Millisecond)
			rate := float64(sim.Events()) / now.Sub(start).Seconds()
			fmt.Fprintf(stderr, "\r\x1b[Kserq: t=%.6g  %d events  %.0f events/s", sim.Now(), sim.Events(), rate)
			shown = true
		}
	}
	if shown {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	return sim.Err()
}
