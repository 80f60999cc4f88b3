package tui

import (
	"reflect"
	"testing"

	"github.com/serq/serq/interp"
)

// logEvents is every event a log view holds, oldest first.
func logEvents(v logView) []interp.TraceEvent { return v.slice(0, v.len()) }

// liveDriver is a driver on the seed that traces every event into its log,
// run n events from the start.
func liveDriver(t *testing.T, n uint64) *driver {
	t.Helper()
	d, err := newDriver(seed(t), interp.Options{Horizon: 2000, Seed: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	noView := viewReq{why: noSession, follow: noSession}
	d.do(request{kind: reqStep, n: n, view: noView})
	return d
}

// sameLog fails unless the two drivers are at the same event and their
// logs hold the same events.
func sameLog(t *testing.T, what string, live, got *driver) {
	t.Helper()
	if ev, g := live.sim().Events(), got.sim().Events(); ev != g {
		t.Fatalf("%s: at event %d, the live run at %d", what, g, ev)
	}
	a, b := logEvents(live.log.view()), logEvents(got.log.view())
	if len(a) != len(b) {
		t.Fatalf("%s: the log holds %d events, the live log %d", what, len(b), len(a))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("%s: event %d of the log is\n%+v\nthe live log's\n%+v", what, i, b[i], a[i])
		}
	}
}

// TestQuietLogRebuilt runs the seed in quiet batches (top speed, no log
// kept, StepN chunks) and checks that the log rebuilt when the next
// request comes is the one a run tracing every event live holds: after
// more than a ring of events, after quiet batches that follow a seek back,
// and after a breakpoint (events checked one by one, still quiet).
func TestQuietLogRebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: 2000 s of the seed, stepped")
	}
	noView := viewReq{why: noSession, follow: noSession}
	d, err := newDriver(seed(t), interp.Options{Horizon: 2000, Seed: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := d.do(request{kind: reqBatch, dt: 1e6, quiet: true, view: noView})
	n := f.snap.Events
	if !f.capped || !f.gapped || n <= maxQuietBatch || n > maxQuietBatch+quietTailEvents {
		t.Fatalf("quiet batch: capped %v, gapped %v, %d events; want capped and gapped a tail past %d", f.capped, f.gapped, n, maxQuietBatch)
	}
	if got := logEvents(f.log); len(got) < quietTail || got[len(got)-1].Event != n || got[0].Event <= maxQuietBatch {
		t.Fatalf("quiet batch: its log holds %d events, #%d to #%d; want the tail of %d lines after #%d, ending at #%d", len(got), got[0].Event, got[len(got)-1].Event, quietTail, maxQuietBatch, n)
	}
	sparse := d.tl.Checkpoints()
	if want := 1 + int(n/(quietSparse*checkpointEvery)); sparse != want {
		t.Errorf("a quiet batch of %d events took %d checkpoints, want %d (one every %d events)", n, sparse, want, quietSparse*checkpointEvery)
	}
	if f = d.do(request{kind: reqSnapshot, view: noView}); f.gapped {
		t.Fatal("a snapshot after a quiet batch: the log is still gapped")
	}
	if d.tl.Checkpoints() <= sparse {
		t.Errorf("the log's rebuild filled in no checkpoint: %d, as before", d.tl.Checkpoints())
	}
	live := liveDriver(t, n)
	sameLog(t, "after a quiet batch", live, d)
	if k := d.log.view().len(); k != logKeep {
		t.Errorf("after a quiet batch of %d events the log holds %d events, want the last %d", n, k, logKeep)
	}

	// Back to just after a checkpoint the rebuild filled in.
	at := uint64(15*checkpointEvery + 5)
	for _, dr := range []*driver{d, live} {
		dr.do(request{kind: reqSeekEvent, n: at, view: noView})
	}
	sameLog(t, "after a seek back to a filled-in checkpoint", live, d)
	for _, dr := range []*driver{d, live} {
		dr.do(request{kind: reqSeekEvent, n: n, view: noView})
	}

	// Back to 300,000 events (the log cut there, as a live log is), then
	// quiet again.
	for _, dr := range []*driver{d, live} {
		dr.do(request{kind: reqSeekEvent, n: 300_000, view: noView})
	}
	sameLog(t, "after a seek back", live, d)
	d.do(request{kind: reqBatch, dt: 1e6, quiet: true, view: noView})
	f = d.do(request{kind: reqStep, n: 1, view: noView})
	sameLog(t, "after a seek back and a quiet batch", liveDriver(t, f.snap.Events), d)

	// A breakpoint that never holds: the events are checked one by one.
	brk, err := compileQuery(d.prog, "used(D[0].kv) > 1e9")
	if err != nil {
		t.Fatal(err)
	}
	view := noView
	view.breaks = []breakpoint{{id: 1, kind: breakExpr, src: "used(D[0].kv) > 1e9", expr: brk}}
	d.do(request{kind: reqSeekEvent, n: 10_000, view: noView})
	f = d.do(request{kind: reqBatch, dt: 1e6, quiet: true, view: view})
	if f.hit != "" || f.snap.Events <= 10_000+maxQuietBatch {
		t.Fatalf("quiet batch with a breakpoint: hit %q at %d events", f.hit, f.snap.Events)
	}
	d.do(request{kind: reqSnapshot, view: noView})
	sameLog(t, "after a quiet batch with a breakpoint", liveDriver(t, f.snap.Events), d)
}

// TestTopSpeedThenPause: the model at top speed sends quiet batches (the
// frames hold only the log's tail), and once the run stops it asks for
// the whole log, which is then the one a run traced live holds.
func TestTopSpeedThenPause(t *testing.T) {
	m, _ := newModel(t, Options{Horizon: 1000, Speed: maxSpeed}, 120, 40)
	m.resume()
	gapped, frames := 0, 0
	drive(m, m.tick(tickMsg{gen: m.gen}), func(f frameMsg) {
		if frames++; f.gapped {
			gapped++
		}
	})
	if !m.frame.snap.Done || m.running || m.frame.gapped {
		t.Fatalf("top speed: done %v, running %v, the log gapped %v at t %g", m.frame.snap.Done, m.running, m.frame.gapped, m.now())
	}
	// Quiet batches of at most maxQuietBatch events (no wall-time budget
	// in tests), then the frame with the whole log.
	if gapped < 1 || gapped != frames-1 {
		t.Errorf("%d frames, %d of them with the log's tail only; want all but the last", frames, gapped)
	}
	live, err := newDriver(m.prog, m.drv.opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	live.do(request{kind: reqStep, n: m.events() + 1, view: viewReq{why: noSession, follow: noSession}})
	a, b := logEvents(live.log.view()), logEvents(m.frame.log)
	if len(a) != len(b) || len(a) != logKeep {
		t.Fatalf("the log after top speed holds %d events, a live run's %d (want %d)", len(b), len(a), logKeep)
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("event %d of the log after top speed differs from the live run's", i)
		}
	}
}

// TestSeekBackMendsLog: a goto back from the end of a run that went at top
// speed, after the log was made whole at the end, shows the log a live run
// holds where it lands (the part the window had dropped is replayed), and
// so does a step back from there: never an empty or shortened log.
func TestSeekBackMendsLog(t *testing.T) {
	noView := viewReq{why: noSession, follow: noSession}
	d, err := newDriver(seed(t), interp.Options{Horizon: 2000, Seed: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for !d.sim().Done() {
		d.do(request{kind: reqBatch, dt: 1e9, quiet: true, view: noView})
	}
	if f := d.do(request{kind: reqStep, n: 1, view: noView}); f.gapped || f.log.len() != logKeep {
		t.Fatalf("at the end: log of %d events (gapped %v), want %d", f.log.len(), f.gapped, logKeep)
	}
	same := func(what string, got logView, n uint64) {
		t.Helper()
		want := logEvents(liveDriver(t, n).log.view())
		if g := logEvents(got); len(g) != len(want) || !reflect.DeepEqual(g, want) {
			t.Fatalf("%s (#%d): the log holds %d events, a live run's %d, or others", what, n, len(g), len(want))
		}
	}
	f := d.do(request{kind: reqSeekEvent, n: 400_000, view: noView})
	same("goto #400000", f.log, 400_000)
	f = d.do(request{kind: reqBack, n: 1, view: noView})
	same("a step back", f.log, 399_999)
}
