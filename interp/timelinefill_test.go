package interp_test

import (
	"reflect"
	"testing"

	"github.com/serq/serq/interp"
)

// TestTimelineSparseAndRefill: StepNEvery lands where StepN does with
// checkpoints only at multiples of k times the spacing; RefillTraced fills
// in the others of the part it replays, without moving the run, and traces
// it as a straight run does; a seek through a filled-in checkpoint reaches
// a straight run's state.
func TestTimelineSparseAndRefill(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	opt := interp.Options{Horizon: 40, Warmup: 2, Seed: 1}
	straight := func(n uint64) *interp.Sim {
		s, _ := interp.New(p, opt)
		s.StepN(n)
		return s
	}
	s, _ := interp.New(p, opt)
	tl := interp.NewTimeline(s, 500)
	if got := tl.StepNEvery(10_123, 4); got != 10_123 || tl.Every() != 500 {
		t.Fatalf("StepNEvery ran %d events, spacing %d; want 10123 and 500", got, tl.Every())
	}
	if want := []uint64{0, 2000, 4000, 6000, 8000, 10000}; !reflect.DeepEqual(tl.CheckpointsBefore(10_123), want) {
		t.Fatalf("checkpoints at %v, want %v", tl.CheckpointsBefore(10_123), want)
	}
	if !interp.SameState(tl.Sim(), straight(10_123)) {
		t.Fatal("after StepNEvery the state is not a straight run's")
	}
	var traced []interp.TraceEvent
	tl.RefillTraced(4000, 9_700, func(e interp.TraceEvent) { traced = append(traced, e) }, true)
	if want := []uint64{0, 2000, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8000, 8500, 9000, 9500, 10000}; !reflect.DeepEqual(tl.CheckpointsBefore(10_123), want) {
		t.Fatalf("RefillTraced left checkpoints at %v, want %v", tl.CheckpointsBefore(10_123), want)
	}
	if tl.Sim().Events() != 10_123 {
		t.Fatalf("RefillTraced moved the run to #%d", tl.Sim().Events())
	}
	// The trace of events 4001…9700, as a straight run traces them.
	at4000 := straight(4000)
	var want []interp.TraceEvent
	at4000.SetTracer(func(e interp.TraceEvent) { want = append(want, e) })
	at4000.TraceIterations(true)
	for at4000.Events() < 9_700 && at4000.Step() {
	}
	if len(traced) == 0 || !reflect.DeepEqual(traced, want) {
		t.Fatalf("RefillTraced traced %d events, a straight run %d (or others)", len(traced), len(want))
	}
	if tl.Checkpoints() != 15 {
		t.Fatalf("%d checkpoints after the refill, want 15", tl.Checkpoints())
	}
	// From a filled-in checkpoint: #7000 + 321.
	before := tl.Replayed
	tl.SeekEvent(7321)
	if tl.Replayed-before != 321 || !interp.SameState(tl.Sim(), straight(7321)) {
		t.Fatalf("a seek to #7321 replayed %d events (want 321 from the checkpoint at #7000), or is not a straight run's state", tl.Replayed-before)
	}

	// Seeks back on a sparse timeline fill in what they replay.
	s2, _ := interp.New(p, opt)
	sp := interp.NewTimeline(s2, 500)
	sp.StepNEvery(10_123, 4)
	sp.SeekBackFilling(7321)
	if want := []uint64{0, 2000, 4000, 6000, 6500, 7000, 8000, 10000}; !reflect.DeepEqual(sp.CheckpointsBefore(10_123), want) ||
		!interp.SameState(sp.Sim(), straight(7321)) {
		t.Fatalf("SeekBackFilling(7321): checkpoints %v (want %v), or not a straight run's state", sp.CheckpointsBefore(10_123), want)
	}
	ref, _ := interp.New(p, opt)
	ref.RunUntil(3.3)
	sp.SeekTimeBackFilling(3.3)
	if sp.Sim().Now() != 3.3 || !interp.SameState(sp.Sim(), ref) || len(sp.CheckpointsBefore(10_123)) <= 8 {
		t.Fatalf("SeekTimeBackFilling(3.3): t %v, %d checkpoints, or not a straight run's state", sp.Sim().Now(), len(sp.CheckpointsBefore(10_123)))
	}
}
