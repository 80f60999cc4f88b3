package interp_test

import (
	"testing"

	"github.com/serq/serq/interp"
)

// TestTimelineSeek: after any sequence of seeks and steps back (across
// checkpoints, backwards and forwards through parts visited before), the
// run's state is the state a straight run has after the same events.
func TestTimelineSeek(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 40, Warmup: 2, Seed: 1}
	straight := func(n uint64) *interp.Sim {
		s, _ := interp.New(p, opt)
		for s.Events() < n && s.Step() {
		}
		return s
	}
	s, _ := interp.New(p, opt)
	tl := interp.NewTimeline(s, 1000)
	for tl.Step() {
	}
	total := tl.Sim().Events()
	if tl.Checkpoints() < 5 {
		t.Fatalf("%d checkpoints over %d events", tl.Checkpoints(), total)
	}
	for _, n := range []uint64{total / 2, 10, 0, 3999, 4000, 4001, total - 1, 2500, total / 3} {
		tl.SeekEvent(n)
		if got := tl.Sim().Events(); got != n {
			t.Fatalf("seek to #%d landed at #%d", n, got)
		}
		if !interp.SameState(tl.Sim(), straight(n)) {
			t.Fatalf("the state after a seek to #%d is not a straight run's", n)
		}
	}
	tl.SeekEvent(3000)
	tl.Back(1)
	if tl.Sim().Events() != 2999 || !interp.SameState(tl.Sim(), straight(2999)) {
		t.Fatalf("a step back from #3000 is at #%d, or not a straight run's state", tl.Sim().Events())
	}
	// A seek by time: every event at or before t, the clock at t.
	tl.SeekTime(12.5)
	ref := straight(0)
	ref.RunUntil(12.5)
	if tl.Sim().Now() != 12.5 || tl.Sim().Events() != ref.Events() || !interp.SameState(tl.Sim(), ref) {
		t.Fatalf("seek to t=12.5: t=%v #%d, straight #%d", tl.Sim().Now(), tl.Sim().Events(), ref.Events())
	}
	// Reading a report or a snapshot leaves the state as it was.
	a, b := straight(5000), straight(5000)
	a.Report()
	a.Snapshot()
	if !interp.SameState(a, b) {
		t.Fatal("Report or Snapshot changed the run's state")
	}
}
