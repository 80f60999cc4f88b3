package interp_test

import (
	"bytes"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
)

// TestChooseIndexSeed32: the seed at 32/32, whose router picks among 32
// decoders by an index, steps as the reference path's scan does.
func TestChooseIndexSeed32(t *testing.T) {
	differential(t, seedAt(t, 32, 32), interp.Options{Horizon: horizon(30), Warmup: 2, Seed: 4}, 0)
}

// TestChooseIndexEngineKeys: the seed at 8/8 with the router choosing the
// decoder by the engines' states, in an index (TestChooseIndexSeedRouter),
// steps as the scan does.
func TestChooseIndexEngineKeys(t *testing.T) {
	differential(t, seedAt(t, 8, 8, interp.EngineRouter), interp.Options{Horizon: horizon(40), Warmup: 2, Seed: 5}, 0)
}

// TestChooseIndexCheckpoint: a run resumed from a checkpoint taken while
// the indexes have candidates to read again is in the straight run's state
// (the indexes included) event after event and reports the same bytes.
func TestChooseIndexCheckpoint(t *testing.T) {
	p := loadInline(t, "choose.sq", testutil.ChooseProgram)
	opt := interp.Options{Horizon: 200, Warmup: 20, Seed: 2}
	straight, _ := interp.New(p, opt)
	for straight.Events() < 1501 && straight.Step() {
	}
	resumed := straight.Checkpoint().Resume()
	if !interp.SameState(straight, resumed) {
		t.Fatal("the resumed run is not in the checkpointed state")
	}
	for i := 1; i <= 2000; i++ {
		straight.Step()
		resumed.Step()
		if i%100 == 0 && !interp.SameState(straight, resumed) {
			t.Fatalf("%d events after the checkpoint the states differ", i)
		}
	}
	want := runToEnd(t, straight)
	if got := runToEnd(t, resumed); !bytes.Equal(got, want) {
		t.Fatalf("the resumed run reports differently:\n got %.300s\nwant %.300s", got, want)
	}
}

// TestChooseIndexRangeError: a candidate whose pool index is out of range
// leaves the choose to the scan, which stops the run with its error, the
// same on both paths.
func TestChooseIndexRangeError(t *testing.T) {
	p := loadInline(t, "range.sq", `fn main() {
  pool slot[3] { cap 3; }
  stage svc : fifo;
  workload { arrive poisson(1); }
  server {
    choose j in 3 by (used(slot[j + 1]));
    hold slot[j] (cost(slot[j], 1)) { run svc (cost(svc, 1)); }
  }
}
`)
	const want = "range.sq:6:5: at t=0: session 0: index 3 of `slot` is out of range: it has 3 member(s)"
	for _, slow := range []bool{false, true} {
		s, _ := interp.New(p, interp.Options{Horizon: 10, Seed: 1, NoFastPath: slow})
		for s.Step() {
		}
		if s.Err() == nil || s.Err().Error() != want {
			t.Errorf("NoFastPath %v: the run ends with %v, want %q", slow, s.Err(), want)
		}
	}
}
