package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/serq/serq/interp"
)

// runWithProgress runs the simulation. On a terminal, a run longer than a
// second shows a progress line on stderr (simulated time, events per
// second), erased at the end; elsewhere stderr stays silent. A signal
// caught by in stops the run with an *interruptedError; an error of
// failed (the --dump files' first write error), asked every 256 events,
// stops it with that error. gc, if not nil, is checked every 65 536 events.
func runWithProgress(sim *interp.Sim, stderr io.Writer, in *interrupts, failed func() error, gc *leanGC) error {
	f, ok := stderr.(*os.File)
	tty := ok && isatty.IsTerminal(f.Fd())
	start := time.Now()
	next := start.Add(time.Second)
	shown := false
	n := 0
	// In batches of 256 events (Sim.StepN: event for event as many Steps),
	// the checks between them.
	for sim.StepN(256) == 256 && !sim.Done() {
		n += 256
		if n&0xffff == 0 {
			gc.check()
		}
		if signalHook != nil {
			signalHook("run", in)
		}
		if failed != nil {
			if err := failed(); err != nil {
				if shown {
					fmt.Fprint(stderr, "\r\x1b[K")
				}
				return err
			}
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

// startGC raises the collector's target while serq starts (GOGC not
// set): the set-up — the CLI's model, the parser's build, the program's
// load — allocates a few megabytes that mostly stay live, and at the
// default target a collection falls in it, about 3 of a tiny run's
// 15 CPU-ms. loadedGC puts the default back once the program is loaded
// (a lean run then sets its own, leanGC) and when the language server
// starts; `serq fmt` and `serq sweep merge`, short-lived, keep it.
func startGC() {
	if ownGC() {
		debug.SetGCPercent(400)
	}
}

// ownGC reports whether serq sets the collector's target: the user set
// no GOGC.
func ownGC() bool { return os.Getenv("GOGC") == "" }

// tuiGC is the collector's target in serq tui (GOGC not set): 50 % over
// the live heap, not the default 100 %. Most of what the TUI keeps is its
// checkpoints (at most interp.DefaultCheckpointBudget, 256 MB), the rest
// what `serq run` keeps (32 MB for the seed at 32/32 to 2000 s) and the
// log's window: the heap peaks at (1 + GOGC/100) times what it keeps, so
// the peak stays within twice the checkpoints' memory while GOGC/100 is
// below (C − R)/(C + R), C the checkpoints and R the rest (0.76 at C 236
// MB, R 32 MB; tui's BenchmarkBigCheckpoints and bench/tui.sh measure
// them).
func tuiGC() {
	if ownGC() {
		debug.SetGCPercent(50)
	}
}

// loadedGC is the collector's default target after startGC.
func loadedGC() {
	if ownGC() {
		debug.SetGCPercent(100)
	}
}

// leanGC is the collector's target during a lean run (GOGC not set):
// 400 % over the live heap while the heap is small — the runtime scales
// its 4 MB minimum goal by it, to 16 MB, so a run whose heap stays under
// that collects nothing, for collecting is then a large part of a short
// run's time and memory no concern (the M/M/1 of bench/run.sh collects
// once at 200 %, never at 400 %, and takes 6 % less CPU so) — and 25 %
// once the heap's objects pass leanGCTight, for a long run's heap is
// mostly its observes' values, pointer-free chunks that only grow, and a
// quarter over them bounds the peak (the seed at 200 000 s: 57–70 MB;
// 131 MB without the tightening).
type leanGC struct {
	sample []metrics.Sample
	tight  bool
}

// leanGCTight is the heap (its objects, live or not yet swept) past which
// a lean run's GC target is 25 %.
const leanGCTight = 12 << 20

func newLeanGC() *leanGC {
	debug.SetGCPercent(400)
	return &leanGC{sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

// check tightens the target once the heap has grown past leanGCTight. A
// nil *leanGC does nothing.
func (g *leanGC) check() {
	if g == nil || g.tight {
		return
	}
	metrics.Read(g.sample)
	if v := g.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > leanGCTight {
		debug.SetGCPercent(25)
		g.tight = true
	}
}
