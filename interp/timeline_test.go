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

// TestStepN: batches of StepN land on the state of as many Steps, take the
// checkpoints Step would, and stop at the run's end.
func TestStepN(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 20, Warmup: 2, Seed: 1}
	a, _ := interp.New(p, opt)
	b, _ := interp.New(p, opt)
	tla, tlb := interp.NewTimeline(a, 1000), interp.NewTimeline(b, 1000)
	for _, n := range []uint64{1, 999, 1, 2500, 7, 1} {
		if got := tla.StepN(n); got != n {
			t.Fatalf("StepN(%d) ran %d events", n, got)
		}
		for range n {
			tlb.Step()
		}
		if !interp.SameState(tla.Sim(), tlb.Sim()) || tla.Checkpoints() != tlb.Checkpoints() {
			t.Fatalf("after StepN to #%d: same state %v, checkpoints %d against %d",
				tla.Sim().Events(), interp.SameState(tla.Sim(), tlb.Sim()), tla.Checkpoints(), tlb.Checkpoints())
		}
	}
	for tlb.Step() {
	}
	rest := tlb.Sim().Events() - tla.Sim().Events()
	if got := tla.StepN(1 << 40); got != rest || !tla.Sim().Done() || !interp.SameState(tla.Sim(), tlb.Sim()) {
		t.Fatalf("StepN to the end ran %d events, want %d (done %v)", got, rest, tla.Sim().Done())
	}
	if got := tla.StepN(5); got != 0 {
		t.Fatalf("StepN after the end ran %d events", got)
	}
}

// TestTimelineBudget: the checkpoints' memory stays within the budget by
// doubling their spacing (the fewest doublings it allows), each checkpoint
// counts what its copy took, and a seek still lands on a straight run's
// state.
func TestTimelineBudget(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 40, Warmup: 2, Seed: 1}
	s, _ := interp.New(p, opt)
	tl := interp.NewTimeline(s, 1000)
	for tl.Step() {
	}
	full, n := tl.Bytes(), tl.Checkpoints()
	if full <= 0 || n < 10 {
		t.Fatalf("%d checkpoints of %d bytes", n, full)
	}
	s2, _ := interp.New(p, opt)
	tl2 := interp.NewTimeline(s2, 1000)
	tl2.SetBudget(full / 3)
	for tl2.Step() {
	}
	if tl2.Bytes() > full/3 || tl2.Every() != 4000 {
		t.Errorf("budget %d: %d bytes, spacing %d; want at most the budget, spacing 4000 (two doublings)", full/3, tl2.Bytes(), tl2.Every())
	}
	tl2.SeekEvent(7777)
	ref, _ := interp.New(p, opt)
	for ref.Events() < 7777 && ref.Step() {
	}
	if !interp.SameState(tl2.Sim(), ref) {
		t.Error("a seek under a budget is not at a straight run's state")
	}
}
