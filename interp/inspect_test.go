package interp_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
)

// queueProgram: four sessions at once ask 6 of a pool of 10; the first
// holds it for 5 s, the others queue in arrival order.
const queueProgram = `fn main() {
  pool kv { cap 10; }
  stage svc : fifo(4);
  workload { arrive batch(4); }
  server { hold kv (cost(kv, 6)) { run svc (cost(svc, 5)); } }
}
`

// TestPoolQueue: a pool's queue, head first, with what each asks and the
// pool that keeps it waiting.
func TestPoolQueue(t *testing.T) {
	p := loadInline(t, "queue.sq", queueProgram)
	s, err := interp.New(p, interp.Options{Horizon: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(1)
	var got []string
	for _, e := range s.PoolQueue(0) {
		got = append(got, fmt.Sprintf("s%d %g since %g %s blocked by %s", e.Who.Serial, e.Units, e.Since, strings.Join(e.Pools, "+"), e.Blocking))
	}
	want := "s1 6 since 0 kv blocked by kv; s2 6 since 0 kv blocked by kv; s3 6 since 0 kv blocked by kv"
	if strings.Join(got, "; ") != want {
		t.Errorf("queue of kv: %q, want %q", strings.Join(got, "; "), want)
	}
	if s.PoolQueue(7) != nil {
		t.Error("a pool out of range has a queue")
	}
}

// TestEngineBatch: an engine's iteration under way lists the residents it
// runs, the others apart, and ends when the calendar says.
func TestEngineBatch(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	s, _ := interp.New(p, interp.Options{Horizon: 100, Seed: 1})
	s.RunUntil(40)
	snap := s.Snapshot()
	seen := 0
	for i, st := range snap.Stages {
		b := s.EngineBatch(i)
		if (b == nil) != (st.Engine == nil) {
			t.Fatalf("stage %s: batch %v, engine %v", st.Label, b, st.Engine)
		}
		if b == nil {
			continue
		}
		seen++
		if b.Engine != st.Label || b.Running != st.Engine.Running || len(b.Batch) != st.Engine.Batch ||
			len(b.Batch)+len(b.Others) != st.Engine.Residents || b.Memory != st.Engine.Memory {
			t.Errorf("%s: batch %+v, snapshot %+v", st.Label, b, st.Engine)
		}
		if b.Running && !(b.Ends > s.Now()) {
			t.Errorf("%s iterates and ends at %g, now %g", st.Label, b.Ends, s.Now())
		}
		for _, e := range append(b.Batch, b.Others...) {
			if e.Mode != "prefill" && e.Mode != "decode" || e.Left > e.Tokens {
				t.Errorf("%s: resident %+v", st.Label, e)
			}
		}
	}
	if seen != 4 {
		t.Errorf("%d engines, want 4", seen)
	}
}

// TestPending: the calendar in the order the run takes it: the first
// event is the next one stepped, at NextTime.
func TestPending(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	s, _ := interp.New(p, interp.Options{Horizon: 100, Warmup: 10, Seed: 1})
	s.RunUntil(5)
	evs, n := s.Pending(5)
	if len(evs) != 5 || n < 5 || evs[0].T != s.NextTime() {
		t.Fatalf("pending %v of %d, next at %g", evs, n, s.NextTime())
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].T < evs[i-1].T {
			t.Errorf("pending out of order: %v", evs)
		}
	}
	kinds := map[interp.PendingKind]bool{}
	all, _ := s.Pending(0)
	for _, e := range all {
		kinds[e.Kind] = true
	}
	for _, k := range []interp.PendingKind{interp.PendArrival, interp.PendWarmup, interp.PendJobEnd} {
		if !kinds[k] {
			t.Errorf("no %s pending at t=5: %v", k, all)
		}
	}
}

// TestRunCounts: the counts since t = 0 are the run's whatever the
// warm-up: a run with a warm-up counts what the same run without one
// counts (the report's counts start at the warm-up).
func TestRunCounts(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "1100"))
	snap := func(warmup float64) *interp.Snapshot {
		s, _ := interp.New(p, interp.Options{Horizon: 300, Warmup: warmup, Seed: 1})
		s.RunUntil(300)
		return s.Snapshot()
	}
	a, b := snap(0), snap(200)
	pre := uint64(0)
	for i := range a.Pools {
		pa, pb := a.Pools[i], b.Pools[i]
		if pb.RunPreemptions != pa.Preemptions || pb.RunAdmissions != pa.Admissions || pa.RunPreemptions != pa.Preemptions {
			t.Errorf("%s: with warm-up %d/%d since t 0, without %d/%d", pa.Label, pb.RunPreemptions, pb.RunAdmissions, pa.Preemptions, pa.Admissions)
		}
		if pb.Preemptions > pb.RunPreemptions {
			t.Errorf("%s: %d preemptions since the warm-up, %d since t 0", pa.Label, pb.Preemptions, pb.RunPreemptions)
		}
		pre += pa.Preemptions
	}
	if pre == 0 {
		t.Error("no preemption in 300 s with 1,100 blocks a decoder")
	}
}

// TestQueryCounts: the debugger's built-ins read what the snapshot shows.
func TestQueryCounts(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "1100"))
	s, _ := interp.New(p, interp.Options{Horizon: 300, Warmup: 100, Seed: 1})
	s.RunUntil(250)
	snap := s.Snapshot()
	q := func(src string) float64 {
		t.Helper()
		e, err := lang.CompileQuery(p, src)
		if err != nil {
			t.Fatal(err)
		}
		return s.Query(e)
	}
	for _, ps := range snap.Pools {
		if !strings.Contains(ps.Label, "kv") {
			continue
		}
		if got := q(fmt.Sprintf("parked(%s)", ps.Label)); got != float64(ps.Parked) {
			t.Errorf("parked(%s) = %g, snapshot %d", ps.Label, got, ps.Parked)
		}
		if got := q(fmt.Sprintf("preempted(%s)", ps.Label)); got != float64(ps.RunPreemptions) {
			t.Errorf("preempted(%s) = %g, snapshot %d", ps.Label, got, ps.RunPreemptions)
		}
		if got := q(fmt.Sprintf("evicted(%s)", ps.Label)); got != float64(ps.RunEvictions) {
			t.Errorf("evicted(%s) = %g, snapshot %d", ps.Label, got, ps.RunEvictions)
		}
		if got := q(fmt.Sprintf("leased(%s)", ps.Label)); got != ps.Leased {
			t.Errorf("leased(%s) = %g, snapshot %g", ps.Label, got, ps.Leased)
		}
	}
	for _, st := range snap.Stages {
		if st.Engine == nil {
			continue
		}
		if got := q(fmt.Sprintf("running(%s)", st.Label)); got != float64(st.Engine.Residents) {
			t.Errorf("running(%s) = %g, residents %d", st.Label, got, st.Engine.Residents)
		}
		if got := q(fmt.Sprintf("waiting(%s)", st.Label)); got != float64(st.Engine.Waiting) {
			t.Errorf("waiting(%s) = %g, snapshot %d", st.Label, got, st.Engine.Waiting)
		}
	}
	for _, o := range snap.Observes {
		if got := q("count(" + o.Name + ")"); got != float64(o.Count) {
			t.Errorf("count(%s) = %g, snapshot %d", o.Name, got, o.Count)
		}
		if got := q(o.Name); got != o.Mean && !(math.IsNaN(got) && o.Count == 0) {
			t.Errorf("%s = %g, mean %g", o.Name, got, o.Mean)
		}
		if got := q("last(" + o.Name + ")"); got != o.Last && !(math.IsNaN(got) && o.Count == 0) {
			t.Errorf("last(%s) = %g, last %g", o.Name, got, o.Last)
		}
	}
	for _, g := range snap.Gauges {
		if got := q(g.Name); got != g.Value {
			t.Errorf("%s = %g, gauge %g", g.Name, got, g.Value)
		}
	}
}

// TestReach: the statement hook sees each statement a session begins, at
// its line, and changes nothing.
func TestReach(t *testing.T) {
	p := loadInline(t, "reach.sq", queueProgram)
	s, _ := interp.New(p, interp.Options{Horizon: 100, Seed: 1})
	plain, _ := interp.New(p, interp.Options{Horizon: 100, Seed: 1})
	lines := map[int][]uint64{}
	s.SetReach(func(r interp.Reach) {
		if r.Pos.File != "reach.sq" {
			t.Errorf("reached %v", r.Pos)
		}
		lines[r.Pos.Line] = append(lines[r.Pos.Line], r.Who.Serial)
	})
	for s.Step() {
		plain.Step()
	}
	for plain.Step() {
	}
	if fmt.Sprint(lines[5]) != "[0 1 2 3 0 1 2 3]" { // the hold, then the run in its body, on one line
		t.Errorf("line 5 reached by %v", lines[5])
	}
	if !interp.SameState(s, plain) {
		t.Error("a run with a statement hook is not the plain run")
	}
}

// TestWhyBottleneck: a transfer's why names the link that limits it, the
// most used of the stages it crosses (as the snapshot shows their use),
// whenever those differ.
func TestWhyBottleneck(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("Lambda", "3"))
	s, _ := interp.New(p, interp.Options{Horizon: 60, Seed: 1})
	differ := 0
	for s.Step() && differ < 20 {
		snap := s.Snapshot()
		util := map[string]float64{}
		for _, st := range snap.Stages {
			util[st.Label] = st.Util
		}
		for _, st := range snap.Stages {
			for _, f := range st.Flows {
				if len(f.Stages) < 2 || util[f.Stages[0]] == util[f.Stages[1]] || f.Stages[0] != st.Label {
					continue
				}
				want := f.Stages[0]
				if util[f.Stages[1]] > util[want] {
					want = f.Stages[1]
				}
				for _, w := range s.Why(f.Session) {
					if w.Kind == interp.WhyTransfer && len(w.Stages) == 2 {
						differ++
						if w.Bottleneck != want || math.Abs(w.Util-util[want]) > 1e-9 {
							t.Fatalf("t %g: s%d transfers on %v (use %v): bottleneck %s at %g, want %s",
								s.Now(), f.Session, f.Stages, util, w.Bottleneck, w.Util, want)
						}
					}
				}
			}
		}
	}
	if differ == 0 {
		t.Fatal("no transfer over links of different use")
	}
}
