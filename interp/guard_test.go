package interp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/serq/serq/interp"
)

const overload = `fn main() {
  stage svc : fifo(1);
  workload { arrive poisson(1000); }
  server { run svc (cost(svc, 1)); }
}`

func TestMaxLiveStopsAnOverloadedRun(t *testing.T) {
	p := loadInline(t, "overload.sq", overload)
	sim, err := interp.New(p, interp.Options{Horizon: 1e6, Seed: 1, MaxLive: 50})
	if err != nil {
		t.Fatal(err)
	}
	err = sim.Run(context.Background())
	var perr *interp.ProgressError
	if !errors.As(err, &perr) || !perr.Live {
		t.Fatalf("err = %v, want a ProgressError of live sessions", err)
	}
	const want = "overload.sq:4:12: at t=0.0442409: 51 sessions and legs live at once, more than the bound 50: work arrives faster than it is served; 51 of them wait here"
	if err.Error() != want {
		t.Errorf("err =\n%s\nwant\n%s", err, want)
	}
	if r := sim.Report(); r.Arrivals != 51 || r.Ended != 0 {
		t.Errorf("the report so far: %d arrivals, %d ended; want 51, 0", r.Arrivals, r.Ended)
	}
}

func TestDefaultMaxLive(t *testing.T) {
	if interp.DefaultMaxLive != 1_000_000 {
		t.Errorf("DefaultMaxLive = %d; docs/cli.md says 1000000", interp.DefaultMaxLive)
	}
}

func TestVanishingAdvanceIsAStall(t *testing.T) {
	p := loadInline(t, "tiny.sq", `fn main() {
  stage s : delay;
  workload { arrive closed(1); }
  server { loop { run s (cost(s, 1e-300)); } }
}`)
	sim, err := interp.New(p, interp.Options{Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = sim.Run(context.Background())
	var perr *interp.ProgressError
	if !errors.As(err, &perr) || perr.Live {
		t.Fatalf("err = %v, want a ProgressError of a stalled clock", err)
	}
	if got := sim.Events(); got != 1<<20 {
		t.Errorf("stopped after %d events, want one window of %d", got, 1<<20)
	}
}
