package interp_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// runToEnd steps s to its end and returns its report as JSON.
func runToEnd(t *testing.T, s *interp.Sim) []byte {
	t.Helper()
	if err := s.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	return testutil.JSON(t, s.Report())
}

// TestCheckpointResume: for every example, a run resumed from checkpoints
// taken at several events reports the same bytes as the straight run, the
// original run is not disturbed by the checkpoint, and a checkpoint
// resumed twice gives the same run twice.
func TestCheckpointResume(t *testing.T) {
	for _, f := range testutil.Examples(t, "../examples") {
		rel, _ := filepath.Rel("../examples", f)
		t.Run(rel, func(t *testing.T) {
			p, err := lang.Load(f, lang.Options{Lib: lib.FS})
			if err != nil {
				t.Fatal(err)
			}
			opt := interp.Options{Horizon: 60, Warmup: 5, Seed: 3}
			if strings.Contains(f, "trace") {
				opt = interp.Options{Horizon: 600, Warmup: 5, Seed: 3}
			}
			straight, err := interp.New(p, opt)
			if err != nil {
				t.Fatal(err)
			}
			want := runToEnd(t, straight)
			total := straight.Events()
			for _, at := range []uint64{0, 1, total / 3, total - 1} {
				s, _ := interp.New(p, opt)
				for s.Events() < at && s.Step() {
				}
				cp := s.Checkpoint()
				if cp.Events() != s.Events() || cp.Time() != s.Now() {
					t.Fatalf("checkpoint at %d/%g, run at %d/%g", cp.Events(), cp.Time(), s.Events(), s.Now())
				}
				if got := runToEnd(t, s); !bytes.Equal(got, want) {
					t.Fatalf("the run a checkpoint was taken of at event %d reports differently", at)
				}
				for i := range 2 {
					if got := runToEnd(t, cp.Resume()); !bytes.Equal(got, want) {
						t.Fatalf("resume %d of the checkpoint at event %d reports differently:\n got %.300s\nwant %.300s", i, at, got, want)
					}
				}
			}
		})
	}
}

// TestCheckpointState: the state a resumed run reaches after k more events
// is the state the straight run has after the same events: the snapshot
// every event of the way, the whole state every 500 events.
func TestCheckpointState(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 30, Warmup: 2, Seed: 1}
	a, _ := interp.New(p, opt)
	for a.Events() < 5000 && a.Step() {
	}
	b := a.Checkpoint().Resume()
	for i := 0; i < 3000; i++ {
		a.Step()
		b.Step()
		if sa, sb := fmt.Sprint(a.Snapshot()), fmt.Sprint(b.Snapshot()); !reflect.DeepEqual(a.Snapshot(), b.Snapshot()) {
			t.Fatalf("after %d more events the snapshots differ:\n%s\n%s", i+1, sa, sb)
		}
		if i%500 == 0 && !interp.SameState(a, b) {
			t.Fatalf("after %d more events the states differ", i+1)
		}
	}
}

// TestCheckpointRestoresTheCollector: a checkpoint is copied with the
// collector off (go-clone writes pointers without write barriers) and
// puts the collector's target back as it found it, whatever it was.
func TestCheckpointRestoresTheCollector(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	s, _ := interp.New(p, interp.Options{Horizon: 30, Seed: 1})
	for s.Events() < 1000 && s.Step() {
	}
	defer debug.SetGCPercent(debug.SetGCPercent(73))
	s.Checkpoint().Resume()
	if got := debug.SetGCPercent(-1); got != 73 {
		t.Errorf("after a checkpoint and a resume the collector's target is %d, want 73", got)
	}
	s.Checkpoint()
	if got := debug.SetGCPercent(73); got != -1 {
		t.Errorf("with the collector off, a checkpoint leaves the target at %d, want -1 (off)", got)
	}
}
