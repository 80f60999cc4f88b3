package tui

import (
	"math"
	"testing"

	"github.com/serq/serq/interp"
)

// TestGotoForwardJumps: a goto forward into a part of the run visited
// before resumes a checkpoint there instead of running the events; the
// state is a straight run's, the log the one traced live the first time,
// and the charts get the part jumped over from the run's history: each
// gauge's value and each observe's running mean as a straight run had
// them then, the pools' trends unknown.
func TestGotoForwardJumps(t *testing.T) {
	noView := viewReq{why: noSession, follow: noSession}
	opt := interp.Options{Horizon: 2000, Seed: 1}
	d, err := newDriver(seed(t), opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	first := d.do(request{kind: reqSeekTime, dt: 1500, view: noView})
	if len(first.samples) < 100 || first.gapped {
		t.Fatalf("the first goto 1500: %d chart samples, log gapped %v; want the events run, sampled", len(first.samples), first.gapped)
	}
	live := logEvents(first.log)
	d.do(request{kind: reqSeekTime, dt: 10, view: noView})
	at10 := d.sim()
	f := d.do(request{kind: reqSeekTime, dt: 1500, view: noView})
	if d.sim() == at10 {
		t.Fatal("goto 1500 again ran the events from t 10: it resumed no checkpoint")
	}
	ref, _ := interp.New(seed(t), opt)
	ref.RunUntil(1500)
	if f.snap.Time != 1500 || !interp.SameState(d.sim(), ref) {
		t.Fatalf("goto 1500 by a jump: t %g, the state is not a straight run's", f.snap.Time)
	}
	got := logEvents(f.log)
	if f.gapped || len(got) != len(live) || got[0] != live[0] || got[len(got)-1] != live[len(live)-1] {
		t.Fatalf("goto 1500 by a jump: %d log events (gapped %v), the first goto's log %d", len(got), f.gapped, len(live))
	}
	if len(f.samples) != historyCols || f.samples[0].t != 10 {
		t.Fatalf("goto 1500 by a jump: %d chart samples from t %g, want %d from 10", len(f.samples), f.samples[0].t, historyCols)
	}
	for _, j := range []int{0, 1, 77, historyCols - 1} {
		sm := f.samples[j]
		s, _ := interp.New(seed(t), opt)
		s.RunUntil(sm.t)
		want := sampleOf(s.Snapshot())
		for i := range want.gauges {
			if sm.gauges[i] != want.gauges[i] {
				t.Errorf("sample %d (t %g): gauge %d is %v, a straight run's %v", j, sm.t, i, sm.gauges[i], want.gauges[i])
			}
		}
		for i := range want.means {
			if sm.means[i] != want.means[i] && !(math.IsNaN(sm.means[i]) && math.IsNaN(want.means[i])) {
				t.Errorf("sample %d (t %g): observe %d's mean is %v, a straight run's %v", j, sm.t, i, sm.means[i], want.means[i])
			}
		}
		if p := sm.pools[0]; !math.IsNaN(p.used) || !math.IsNaN(p.leased) {
			t.Errorf("sample %d: a pool's trend is %+v over the jump, want unknown (NaN)", j, p)
		}
	}
}
