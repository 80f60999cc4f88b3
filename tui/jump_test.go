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
	if testing.Short() {
		t.Skip("slow: 2000 s of the seed, stepped")
	}
	noView := viewReq{why: noSession, follow: noSession}
	opt := interp.Options{Horizon: 2000, Seed: 1}
	d, err := newDriver(seed(t), opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	first := d.do(request{kind: reqSeekTime, dt: 1500, view: noView})
	if len(first.samples) < 100 {
		t.Fatalf("the first goto 1500: %d chart samples; want the events run, sampled", len(first.samples))
	}
	live := first.log.Slice(0, first.log.Len())
	d.do(request{kind: reqSeekTime, dt: 10, view: noView})
	r := d.dbg.Replayed()
	f := d.do(request{kind: reqSeekTime, dt: 1500, view: noView})
	if _, _, every := d.dbg.Checkpoints(); d.dbg.Replayed()-r > every {
		t.Fatalf("goto 1500 again replayed %d events: it resumed no checkpoint", d.dbg.Replayed()-r)
	}
	ref, _ := interp.New(seed(t), opt)
	ref.RunUntil(1500)
	if f.snap.Time != 1500 || f.snap.Events != ref.Events() {
		t.Fatalf("goto 1500 by a jump: t %g, event %d; a straight run's %d", f.snap.Time, f.snap.Events, ref.Events())
	}
	got := f.log.Slice(0, f.log.Len())
	if len(got) != len(live) || got[0] != live[0] || got[len(got)-1] != live[len(live)-1] {
		t.Fatalf("goto 1500 by a jump: %d log events, the first goto's log %d", len(got), len(live))
	}
	if len(f.samples) != historySamples || f.samples[0].T != 10 {
		t.Fatalf("goto 1500 by a jump: %d chart samples from t %g, want %d from 10", len(f.samples), f.samples[0].T, historySamples)
	}
	for _, j := range []int{0, 1, 77, historySamples - 1} {
		sm := f.samples[j]
		s, _ := interp.New(seed(t), opt)
		s.RunUntil(sm.T)
		want := s.Snapshot()
		for i, g := range want.Gauges {
			if sm.Gauges[i] != g.Value {
				t.Errorf("sample %d (t %g): gauge %d is %v, a straight run's %v", j, sm.T, i, sm.Gauges[i], g.Value)
			}
		}
		for i, o := range want.Observes {
			w := math.NaN()
			if o.Count > 0 {
				w = o.Mean
			}
			if sm.Means[i] != w && !(math.IsNaN(sm.Means[i]) && math.IsNaN(w)) {
				t.Errorf("sample %d (t %g): observe %d's mean is %v, a straight run's %v", j, sm.T, i, sm.Means[i], w)
			}
		}
		if p := sm.Pools[0]; !math.IsNaN(p.Used) || !math.IsNaN(p.Leased) {
			t.Errorf("sample %d: a pool's trend is %+v over the jump, want unknown (NaN)", j, p)
		}
	}
}

// TestJumpKeepsPoolTrends: the pools' trends, which have no history in
// the run, keep what the charts saw of a part when the run goes back and
// then jumps over it again: every column of a leasing pool's chart up to
// the jump's end has a value, the same as before the step back.
func TestJumpKeepsPoolTrends(t *testing.T) {
	noView := viewReq{why: noSession, follow: noSession}
	opt := interp.Options{Horizon: 2000, Seed: 1}
	p := seed(t)
	d, err := newDriver(p, opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	gp := newGaugesPane(DefaultStyles(), p, 0)
	gp.setSize(120, 40)
	var leased *gaugeRow
	for _, r := range gp.rows {
		if r.field == fieldLeased && leased == nil {
			leased = r
		}
	}
	if leased == nil {
		t.Fatal("the seed has no leasing pool row")
	}
	const w = 64
	f1 := d.do(request{kind: reqSeekTime, dt: 1500, view: noView})
	gp.setFrame(&f1)
	before := leased.hist.columns(w, 1500, 1500)
	f2 := d.do(request{kind: reqSeekTime, dt: 10, view: noView})
	gp.setFrame(&f2)
	if got := leased.hist.columns(w, 1500, 10); !math.IsNaN(got[w-1]) {
		t.Fatalf("at t 10 the chart shows %v at t 1500", got[w-1])
	}
	f := d.do(request{kind: reqSeekTime, dt: 1500, view: noView})
	if len(f.samples) != historySamples {
		t.Fatalf("the second goto 1500 gave %d samples: it did not jump", len(f.samples))
	}
	gp.setFrame(&f)
	after := leased.hist.columns(w, 1500, 1500)
	for i := range before {
		if math.IsNaN(after[i]) || after[i] != before[i] {
			t.Fatalf("column %d of %s after the jump is %v, before the step back %v", i, leased.name, after[i], before[i])
		}
	}
}

// historySamples is how many samples of the run's history a jump gives
// the charts (debugger's historyCols).
const historySamples = 256
