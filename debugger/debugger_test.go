package debugger

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

const seedPath = "../examples/pd-disaggregation/llmd_nixl_pull.sq"

var (
	seedOnce sync.Once
	seedProg *model.Program
	seedErr  error
)

// seed is the seed example, loaded once.
func seed(t testing.TB) *model.Program {
	t.Helper()
	seedOnce.Do(func() { seedProg, seedErr = lang.Load(seedPath, lang.Options{Lib: lib.FS}) })
	if seedErr != nil {
		t.Fatal(seedErr)
	}
	return seedProg
}

func load(t testing.TB, path string, sets ...string) *model.Program {
	t.Helper()
	var ov []lang.Override
	for _, s := range sets {
		name, expr, _ := strings.Cut(s, "=")
		ov = append(ov, lang.Override{Name: name, Expr: expr})
	}
	p, err := lang.Load(path, lang.Options{Lib: lib.FS, Sets: ov})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func inline(t testing.TB, name, src string) *model.Program {
	t.Helper()
	p, err := lang.LoadSource(name, []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newDebugger(t testing.TB, p *model.Program, opt interp.Options, every uint64) *Debugger {
	t.Helper()
	d, err := New(p, Config{Options: opt, CheckpointEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// straight is a straight run of p to event n, and what it traced.
func straight(t testing.TB, p *model.Program, opt interp.Options, n uint64) (*interp.Sim, []interp.TraceEvent) {
	t.Helper()
	s, err := interp.New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	var log []interp.TraceEvent
	s.SetTracer(func(e interp.TraceEvent) { log = append(log, e) })
	for s.Events() < n && s.Step() {
	}
	return s, log
}

// window is what a straight run traced in the log's window.
func window(trace []interp.TraceEvent, l Log) []interp.TraceEvent {
	var out []interp.TraceEvent
	for _, e := range trace {
		if e.Event > l.From || l.Complete {
			out = append(out, e)
		}
	}
	return out
}

func mustCreate(t testing.TB, d *Debugger, s Spec) *Breakpoint {
	t.Helper()
	b, err := d.Create(s)
	if err != nil {
		t.Fatalf("%+v: %v", s, err)
	}
	return b
}

// firstTrue is the first event after which src becomes true, stepping s on.
func firstTrue(t *testing.T, p *model.Program, s *interp.Sim, src string) uint64 {
	t.Helper()
	e, err := lang.CompileQuery(p, src)
	if err != nil {
		t.Fatal(err)
	}
	prev := holds(s.Query(e))
	for s.Step() {
		v := holds(s.Query(e))
		if v && !prev {
			return s.Events()
		}
		prev = v
	}
	t.Fatalf("%s never becomes true", src)
	return 0
}

// TestSeekIsStraightRun: seeks forward and back across checkpoints, by
// event and by time, and steps back, each land on the state a straight
// run reaches at the same event, with the log of the straight run's
// trace in its window; a seek back costs one span at most.
func TestSeekIsStraightRun(t *testing.T) {
	p := seed(t)
	opt := interp.Options{Horizon: 100, Seed: 1}
	d := newDebugger(t, p, opt, 4096)
	byTime := false
	check := func(what string) {
		t.Helper()
		want, trace := straight(t, p, opt, d.Events())
		if byTime {
			want.RunUntil(d.Now()) // a seek by time ends the instant, the clock at its time
		}
		if !interp.SameState(d.sim(), want) {
			t.Fatalf("%s: at event %d the state is not a straight run's", what, d.Events())
		}
		l := d.Log()
		if got, w := l.Slice(0, l.Len()), window(trace, l); len(got)+len(w) > 0 && !reflect.DeepEqual(got, w) || len(got) == 0 && d.Events() > 0 {
			t.Fatalf("%s: the log holds %d events after #%d, a straight run traced %d there", what, len(got), l.From, len(w))
		}
	}
	for _, n := range []uint64{30000, 9000, 20001, 4096, 0, 12345} {
		d.SeekEvent(n)
		if d.Events() != n {
			t.Fatalf("goto #%d: at #%d", n, d.Events())
		}
		check(fmt.Sprintf("goto #%d", n))
	}
	r := d.Replayed()
	d.Back(1)
	check("goto #12345, back 1")
	if d.Replayed()-r > 4096 {
		t.Errorf("a step back replayed %d events, more than the spacing 4096", d.Replayed()-r)
	}
	byTime = true
	for _, at := range []float64{40, 12.5, 12.5, 0, 60} {
		d.SeekTime(at)
		if d.Now() != at {
			t.Fatalf("goto %g: t %g", at, d.Now())
		}
		check(fmt.Sprintf("goto %g", at))
	}
	// a jump forward through a checkpoint of a part visited before: the
	// log is the replay from it, the charts the run's history
	d.SeekTime(10)
	r = d.Replayed()
	d.SeekTime(55)
	check("goto 10, goto 55")
	if n, _, every := d.Checkpoints(); d.Replayed()-r > every || n < 10 {
		t.Errorf("a jump replayed %d events (%d checkpoints %d apart)", d.Replayed()-r, n, every)
	}
	if s := d.Samples(); len(s) != historyCols {
		t.Errorf("a jump gave %d samples, want %d", len(s), historyCols)
	}
	byTime = false
	d.SeekAt(30)
	want, _ := straight(t, p, opt, 0)
	for want.NextTime() < 30 {
		want.Step()
	}
	want.Step()
	if d.Events() != want.Events() {
		t.Errorf("at 30: event %d, want the first event at or after 30, %d", d.Events(), want.Events())
	}
	check("at 30")
}

// TestBreakExpr: an expression breakpoint stops the run at the first
// event after which it becomes true, again at the next; Rewind goes back
// to the first; deleted, it stops nothing.
func TestBreakExpr(t *testing.T) {
	p := seed(t)
	opt := interp.Options{Horizon: 120, Seed: 1}
	d := newDebugger(t, p, opt, 0)
	const src = "used(D.kv[0]) > 12000"
	b := mustCreate(t, d, Spec{Kind: BreakExpr, Expr: src})
	s, _ := straight(t, p, opt, 0)
	e1 := firstTrue(t, p, s, src)
	t1 := s.Now()
	e2 := firstTrue(t, p, s, src)
	stop := d.RunTo(math.Inf(1), Limits{})
	if stop.Reason != AtBreakpoint || d.Events() != e1 || stop.Hit.ID != b.ID || stop.Hit.Event != e1 || stop.Hit.Time != t1 {
		t.Fatalf("stopped %+v at event %d, want a hit at %d", stop, d.Events(), e1)
	}
	if stop = d.RunTo(math.Inf(1), Limits{}); d.Events() != e2 || b.Hits != 2 {
		t.Fatalf("continued: %+v at %d (%d hits), want %d", stop, d.Events(), b.Hits, e2)
	}
	if stop = d.Rewind(); !stop.Found || d.Events() != e1 || stop.Hit.Event != e1 {
		t.Errorf("rewind from %d: %+v at %d, want %d", e2, stop, d.Events(), e1)
	}
	if stop = d.Rewind(); stop.Found || d.Events() != e1 {
		t.Errorf("rewind from the first: %+v at %d", stop, d.Events())
	}
	if err := d.Clear(b.ID); err != nil || len(d.Breakpoints()) != 0 {
		t.Fatalf("clear: %v, %d left", err, len(d.Breakpoints()))
	}
	if stop = d.RunTo(math.Inf(1), Limits{}); stop.Reason != Ended {
		t.Errorf("without breakpoints: %+v", stop)
	}
}

// TestBreakKinds: a time, an event count, a session's events, a class of
// event (anywhere and at one pool) and a line of the program each stop
// the run where a straight run shows it; Rewind goes back to the last.
func TestBreakKinds(t *testing.T) {
	p := load(t, seedPath, "blocksD=1100")
	opt := interp.Options{Horizon: 300, Seed: 1}
	// the first event at or after 30
	d := newDebugger(t, p, opt, 8192)
	mustCreate(t, d, Spec{Kind: BreakTime, T: 30})
	s, trace := straight(t, p, opt, math.MaxUint64)
	var firstAt30 uint64
	for _, e := range trace {
		if e.Time >= 30 {
			firstAt30 = e.Event
			break
		}
	}
	d.RunTo(math.Inf(1), Limits{})
	if want, _ := straight(t, p, opt, 0); true {
		for want.NextTime() < 30 {
			want.Step()
		}
		want.Step()
		if d.Events() != want.Events() || d.Events() > firstAt30 {
			t.Errorf("break t 30: at event %d, want %d", d.Events(), want.Events())
		}
	}
	// each kind against the straight run's trace
	tests := []struct {
		spec Spec
		want func(e interp.TraceEvent) bool
	}{
		{Spec{Kind: BreakSession, Session: 40}, func(e interp.TraceEvent) bool { return !e.System && e.Session == 40 }},
		{Spec{Kind: BreakOn, On: "preemption"}, func(e interp.TraceEvent) bool { return e.Kind == interp.EvPreempted }},
		{Spec{Kind: BreakOn, On: "preemption", Where: "D.kv[0]"}, func(e interp.TraceEvent) bool {
			return e.Kind == interp.EvPreempted && e.Where == "D.kv[0]"
		}},
		{Spec{Kind: BreakOn, On: "lease-end", Where: "P.kv"}, func(e interp.TraceEvent) bool {
			return (e.Kind == interp.EvLeaseEnded || e.Kind == interp.EvLeaseExpired || e.Kind == interp.EvLeaseLost) && strings.HasPrefix(e.Where, "P.kv[")
		}},
		{Spec{Kind: BreakOn, On: "admission"}, func(e interp.TraceEvent) bool { return e.Kind == interp.EvAdmitted }},
		{Spec{Kind: BreakOn, On: "lease"}, func(e interp.TraceEvent) bool { return e.Kind == interp.EvLeased }},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v %s %s", tt.spec.Kind, tt.spec.On, tt.spec.Where), func(t *testing.T) {
			var hits []uint64
			for _, e := range trace {
				if tt.want(e) && (len(hits) == 0 || hits[len(hits)-1] != e.Event) {
					hits = append(hits, e.Event)
				}
			}
			if len(hits) < 3 {
				t.Fatalf("the straight run has %d such events", len(hits))
			}
			d := newDebugger(t, p, opt, 8192)
			b := mustCreate(t, d, tt.spec)
			for k := 0; k < 3; k++ {
				stop := d.RunTo(math.Inf(1), Limits{})
				if stop.Reason != AtBreakpoint || d.Events() != hits[k] || stop.Hit.ID != b.ID {
					t.Fatalf("stop %d: %+v at %d, want %d", k, stop, d.Events(), hits[k])
				}
				if tt.spec.Kind == BreakOn && stop.Hit.Where == "" {
					t.Errorf("a class hit names no place: %+v", stop.Hit)
				}
			}
			if stop := d.Rewind(); !stop.Found || d.Events() != hits[1] {
				t.Errorf("rewind from %d: at %d, want %d", hits[2], d.Events(), hits[1])
			}
		})
	}
	// none at D.kv[1]: the run goes to its end
	d = newDebugger(t, p, opt, 8192)
	mustCreate(t, d, Spec{Kind: BreakOn, On: "preemption", Where: "D.kv[1]"})
	if stop := d.RunTo(math.Inf(1), Limits{}); stop.Reason != Ended || !interp.SameState(d.sim(), s) {
		t.Errorf("break on preemption at D.kv[1]: %+v at %d", stop, d.Events())
	}
}

// TestBreakLine: a breakpoint on a line stops the run when a session
// begins a statement there, names the session, and takes the base name;
// a line without a statement is refused with the nearest.
func TestBreakLine(t *testing.T) {
	p := inline(t, "lines.sq", `fn main() {
  pool kv { cap 10; }
  stage svc : fifo(4);
  workload { arrive batch(4); }
  server {
    hold kv (cost(kv, 6)) {
      run svc (cost(svc, 5));
    }
  }
}
`)
	opt := interp.Options{Horizon: 100, Seed: 1}
	d := newDebugger(t, p, opt, 0)
	b := mustCreate(t, d, Spec{Kind: BreakLine, File: "dir/lines.sq", Line: 7})
	if b.File != "lines.sq" || b.Src() != "lines.sq:7" {
		t.Errorf("the breakpoint reads %q", b.Src())
	}
	var got []string
	for {
		stop := d.RunTo(math.Inf(1), Limits{})
		if stop.Reason != AtBreakpoint {
			break
		}
		got = append(got, fmt.Sprintf("s%d@%g", stop.Hit.Who.Serial, stop.Hit.Time))
		if stop.Hit.Pos.Line != 7 {
			t.Errorf("hit at %v", stop.Hit.Pos)
		}
	}
	if strings.Join(got, " ") != "s0@0 s1@5 s2@10 s3@15" {
		t.Errorf("line 7 reached: %v", got)
	}
	_, err := d.Create(Spec{Kind: BreakLine, File: "lines.sq", Line: 2})
	var se *SpecError
	if err == nil || err.Error() != "no statement begins at lines.sq:2" || !asSpec(err, &se) || se.Hint != "the nearest are at lines.sq:4, lines.sq:6, lines.sq:7" {
		t.Errorf("line 2: %v %+v", err, se)
	}
	_, err = d.Create(Spec{Kind: BreakLine, File: "line.sq", Line: 7})
	if err == nil || !asSpec(err, &se) || se.Hint != "did you mean `lines.sq`?" {
		t.Errorf("line.sq: %v %+v", err, se)
	}
}

func asSpec(err error, se **SpecError) bool {
	e, ok := err.(*SpecError)
	*se = e
	return ok
}

// TestBreakOptions: a condition, ignore counts, a temporary breakpoint,
// disable and enable.
func TestBreakOptions(t *testing.T) {
	p := seed(t)
	opt := interp.Options{Horizon: 200, Seed: 1}
	_, trace := straight(t, p, opt, math.MaxUint64)
	var arrivals []uint64
	for _, e := range trace {
		if e.Kind == interp.EvArrived {
			arrivals = append(arrivals, e.Event)
		}
	}
	// a condition: the arrivals after t = 50
	d := newDebugger(t, p, opt, 0)
	b := mustCreate(t, d, Spec{Kind: BreakOn, On: "arrival", Cond: "now > 50"})
	stop := d.RunTo(math.Inf(1), Limits{})
	want := uint64(0)
	for _, e := range trace {
		if e.Kind == interp.EvArrived && e.Time > 50 {
			want = e.Event
			break
		}
	}
	if stop.Reason != AtBreakpoint || d.Events() != want || b.Hits != 1 {
		t.Errorf("on arrival if now > 50: %+v at %d (%d hits), want %d", stop, d.Events(), b.Hits, want)
	}
	// ignore the next 3
	d = newDebugger(t, p, opt, 0)
	b = mustCreate(t, d, Spec{Kind: BreakOn, On: "arrival", Ignore: 3})
	d.RunTo(math.Inf(1), Limits{})
	if d.Events() != arrivals[3] || b.Hits != 4 || b.Ignore != 0 {
		t.Errorf("ignore 3: at %d (%d hits, %d to ignore), want %d", d.Events(), b.Hits, b.Ignore, arrivals[3])
	}
	if err := d.Ignore(b.ID, 1); err != nil {
		t.Fatal(err)
	}
	d.RunTo(math.Inf(1), Limits{})
	if d.Events() != arrivals[5] {
		t.Errorf("ignore 1 more: at %d, want %d", d.Events(), arrivals[5])
	}
	// temporary: deleted when it stops the run
	d = newDebugger(t, p, opt, 0)
	tb := mustCreate(t, d, Spec{Kind: BreakOn, On: "arrival", Temporary: true})
	d.RunTo(math.Inf(1), Limits{})
	if d.Events() != arrivals[0] || d.Breakpoint(tb.ID) != nil {
		t.Errorf("temporary: at %d, still set %v", d.Events(), d.Breakpoint(tb.ID) != nil)
	}
	// disabled: stops nothing; enabled again, the next
	b = mustCreate(t, d, Spec{Kind: BreakOn, On: "arrival"})
	if err := d.Enable(b.ID, false); err != nil {
		t.Fatal(err)
	}
	d.RunTo(100, Limits{})
	if d.Now() != 100 || b.Hits != 0 {
		t.Errorf("disabled: at t %g with %d hits", d.Now(), b.Hits)
	}
	d.Enable(b.ID, true)
	d.RunTo(math.Inf(1), Limits{})
	next := uint64(0)
	for _, n := range arrivals {
		if n > 0 && trace[0].Time >= 0 {
			if e := eventTime(trace, n); e > 100 {
				next = n
				break
			}
		}
	}
	if d.Events() != next {
		t.Errorf("enabled again: at %d, want %d", d.Events(), next)
	}
	if err := d.Enable(99, true); err != ErrNoBreakpoint {
		t.Errorf("enable 99: %v", err)
	}
}

func eventTime(trace []interp.TraceEvent, n uint64) float64 {
	for _, e := range trace {
		if e.Event == n {
			return e.Time
		}
	}
	return math.NaN()
}

// TestWatch: a watchpoint stops the run when its value changes (the old
// and new values in the hit); a display shows its value and never stops.
func TestWatch(t *testing.T) {
	p := seed(t)
	opt := interp.Options{Horizon: 60, Seed: 1}
	d := newDebugger(t, p, opt, 0)
	disp := mustCreate(t, d, Spec{Kind: Display, Expr: "now"})
	w := mustCreate(t, d, Spec{Kind: Watch, Expr: "queued(D[0].kv) + queued(D[1].kv)"})
	e, _ := lang.CompileQuery(p, w.Expr)
	s, _ := interp.New(p, opt)
	prev := s.Query(e)
	for s.Step() && s.Query(e) == prev {
	}
	stop := d.RunTo(math.Inf(1), Limits{})
	if stop.Reason != AtBreakpoint || stop.Hit.ID != w.ID || d.Events() != s.Events() || stop.Hit.Old != prev || stop.Hit.New != s.Query(e) {
		t.Errorf("watch: %+v at %d, want a change %g → %g at %d", stop.Hit, d.Events(), prev, s.Query(e), s.Events())
	}
	if disp.Value != d.Now() || w.Value != s.Query(e) {
		t.Errorf("values shown: display %g (now %g), watch %g", disp.Value, d.Now(), w.Value)
	}
	d.Clear(w.ID)
	if stop := d.RunTo(math.Inf(1), Limits{}); stop.Reason != Ended || disp.Value != 60 {
		t.Errorf("a display alone: %+v, value %g", stop, disp.Value)
	}
}

// TestSpecErrors: a spec that does not compile says where, with the
// spelling it takes.
func TestSpecErrors(t *testing.T) {
	d := newDebugger(t, seed(t), interp.Options{Horizon: 100, Seed: 1}, 0)
	tests := []struct {
		spec        Spec
		field, want string
		hint        string
	}{
		{Spec{Kind: BreakExpr, Expr: "used(D.kv[9]) > 1"}, "expr", "<command>:1:11: index 9 of `D` is out of range: it has 2 members", ""},
		{Spec{Kind: BreakOn, On: "preempt"}, "on", "`preempt` is no class of event", "did you mean `preemption`?"},
		{Spec{Kind: BreakOn, On: "zzz"}, "on", "`zzz` is no class of event", "classes: " + strings.Join(ClassNames(), ", ")},
		{Spec{Kind: BreakOn, On: "preemption", Where: "D.kv[7]"}, "where", "`D.kv[7]` is no pool, stage or member of the program", "did you mean `D.kv[0]`?"},
		{Spec{Kind: BreakTime, T: 300}, "t", "t 300 is not in the run, from 0 to the horizon 100", ""},
		{Spec{Kind: BreakOn, On: "arrival", Cond: "nosuch > 1"}, "cond", "<command>:1:1: undefined: nosuch", ""},
	}
	for _, tt := range tests {
		_, err := d.Create(tt.spec)
		var se *SpecError
		if err == nil || !asSpec(err, &se) || se.Field != tt.field || err.Error() != tt.want || se.Hint != tt.hint {
			t.Errorf("%+v: %v (%+v), want %s: %s (%s)", tt.spec, err, se, tt.field, tt.want, tt.hint)
		}
	}
	if len(d.Breakpoints()) != 0 {
		t.Errorf("a refused spec set a breakpoint")
	}
}

// TestCancelSeek: a seek cancelled from another goroutine stops between
// two events, in the state a straight run has there, and says so.
func TestCancelSeek(t *testing.T) {
	p := seed(t)
	opt := interp.Options{Horizon: 2000, Seed: 1}
	d := newDebugger(t, p, opt, 0)
	go func() {
		for {
			if pr := d.Progress(); pr != nil && pr.Op == "seek" && pr.Events > 20000 {
				d.Cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	stop := d.SeekTime(2000)
	if stop.Reason != Cancelled || d.Now() >= 2000 || d.Events() < 20000 {
		t.Fatalf("cancelled seek: %+v at t %g, event %d", stop, d.Now(), d.Events())
	}
	want, trace := straight(t, p, opt, d.Events())
	if !interp.SameState(d.sim(), want) {
		t.Errorf("the state where the seek stopped is not a straight run's")
	}
	l := d.Log()
	if !reflect.DeepEqual(l.Slice(0, l.Len()), window(trace, l)) {
		t.Errorf("the log where the seek stopped is not the straight run's trace")
	}
	if d.Progress() != nil {
		t.Errorf("progress after the operation: %+v", d.Progress())
	}
	// the next operation is not cancelled by the old request
	if stop := d.Step(1); stop.Reason != Done {
		t.Errorf("a step after a cancelled seek: %+v", stop)
	}
}

// TestLogWindow: the log holds at most its size; Earlier extends it one
// span back, the straight run's trace; Search finds text and sessions.
func TestLogWindow(t *testing.T) {
	p := load(t, seedPath, "blocksD=1100")
	opt := interp.Options{Horizon: 200, Seed: 1}
	d, err := New(p, Config{Options: opt, CheckpointEvery: 8192, LogKeep: 5000})
	if err != nil {
		t.Fatal(err)
	}
	d.RunTo(150, Limits{})
	_, trace := straight(t, p, opt, d.Events())
	l := d.Log()
	if l.Len() > 5000 || l.Complete || !reflect.DeepEqual(l.Slice(0, l.Len()), window(trace, l)) {
		t.Fatalf("the log holds %d from #%d, complete %v", l.Len(), l.From, l.Complete)
	}
	from := l.From
	d.Earlier()
	l2 := d.Log()
	if l2.From >= from || l2.From%8192 != 0 || !reflect.DeepEqual(l2.Slice(0, l2.Len()), window(trace, l2)) {
		t.Errorf("earlier: from #%d to #%d, %d events", from, l2.From, l2.Len())
	}
	want := -1
	for i := 0; i < l2.Len(); i++ {
		if l2.At(i).Kind == interp.EvLeaseEnded {
			want = i
			break
		}
	}
	if i, j := l2.Search("lease on", -1, false), l2.Search("LEASE-ENDED", -1, false); want < 0 || i != want || j != want {
		t.Errorf("search lease: %d and %d, want %d", i, j, want)
	}
	last := l2.At(l2.Len() - 1)
	for last.System {
		last = l2.At(l2.Len() - 2)
	}
	q := fmt.Sprintf("s%d", last.Session)
	k := l2.Search(q, l2.Len(), true)
	if k < 0 || l2.At(k).Session != last.Session {
		t.Errorf("search %s backward: %d", q, k)
	}
	if l2.Search("no such text", -1, false) != -1 {
		t.Error("found text that is not there")
	}
}

// TestQuietRun: a run at top speed keeps no log; its log, read, is the
// replay of the span it stopped in; its samples stay bounded.
func TestQuietRun(t *testing.T) {
	p := seed(t)
	opt := interp.Options{Horizon: 2000, Seed: 1}
	d := newDebugger(t, p, opt, 0)
	for !d.Done() {
		d.RunTo(math.Inf(1), Limits{Quiet: true, Events: 300_000})
	}
	if s := d.Samples(); len(s) > sampleKeep || len(s) == 0 {
		t.Errorf("%d samples of a quiet run", len(s))
	}
	r := d.Replayed()
	l := d.Log()
	_, trace := straight(t, p, opt, math.MaxUint64)
	_, _, every := d.Checkpoints()
	if d.Replayed()-r > every || l.Len() == 0 || !reflect.DeepEqual(l.Slice(0, l.Len()), window(trace, l)) {
		t.Errorf("the log after a quiet run: %d events from #%d, replaying %d", l.Len(), l.From, d.Replayed()-r)
	}
}

// TestInspectors: a pool's queue, an engine's batch and the pending
// events, through the service.
func TestInspectors(t *testing.T) {
	p := inline(t, "q.sq", `fn main() {
  pool kv { cap 10; }
  stage svc : fifo(4);
  workload { arrive batch(4); }
  server { hold kv (cost(kv, 6)) { run svc (cost(svc, 5)); } }
}
`)
	d := newDebugger(t, p, interp.Options{Horizon: 100, Seed: 1}, 0)
	d.RunTo(1, Limits{})
	var q []string
	for _, e := range d.Queue(0) {
		q = append(q, fmt.Sprintf("s%d:%g", e.Who.Serial, e.Units))
	}
	if strings.Join(q, " ") != "s1:6 s2:6 s3:6" {
		t.Errorf("queue %v", q)
	}
	evs, n := d.Pending(0)
	if n != 1 || len(evs) != 1 || evs[0].Kind != interp.PendJobEnd || evs[0].T != 5 || evs[0].Who.Serial != 0 || evs[0].Where != "svc" {
		t.Errorf("pending %+v (%d)", evs, n)
	}
	if d.Batch(0) != nil {
		t.Error("a fifo stage has a batch")
	}
	ds := newDebugger(t, seed(t), interp.Options{Horizon: 100, Seed: 1}, 0)
	ds.RunTo(40, Limits{})
	for i, st := range ds.Snapshot().Stages {
		if b := ds.Batch(i); st.Engine != nil && (b == nil || len(b.Batch)+len(b.Others) != st.Engine.Residents) {
			t.Errorf("%s: batch %+v, engine %+v", st.Label, b, st.Engine)
		}
	}
}

// TestWhySteps: the why-chain through the service is typed: a head
// blocked by its second pool names that pool, and a transfer names the
// link that limits it.
func TestWhySteps(t *testing.T) {
	p := inline(t, "why.sq", `fn main() {
  pool slots { cap 4; }
  pool mem { cap 10; }
  workload { arrive batch(3); }
  stage a : delay;
  server { hold slots (cost(slots, 1)), mem (cost(mem, 6)) { run a (cost(a, 10)); } }
}
`)
	d := newDebugger(t, p, interp.Options{Horizon: 100, Seed: 1}, 0)
	d.RunTo(1, Limits{})
	var head *interp.WhyStep
	steps := d.Why(2)
	for i := range steps {
		if steps[i].Kind == interp.WhyHead && steps[i].Blocking {
			head = &steps[i]
			break
		}
	}
	if head == nil || head.Pool != "mem" || head.Units != 6 || head.Free != 4 {
		t.Fatalf("why of session 2:\n%s", interp.WhyDump(steps))
	}
	for _, st := range steps {
		if st.Kind == interp.WhyFits {
			t.Errorf("a blocked head fits:\n%s", interp.WhyDump(steps))
		}
	}
}

// TestNames: what a front end completes holds the panes' labels, the
// built-ins, the program's values and files.
func TestNames(t *testing.T) {
	d := newDebugger(t, seed(t), interp.Options{Horizon: 100, Seed: 1}, 0)
	n := d.Names()
	has := func(list []string, want ...string) {
		t.Helper()
		for _, w := range want {
			found := false
			for _, x := range list {
				found = found || x == w
			}
			if !found {
				t.Errorf("%q is not among %v", w, list)
			}
		}
	}
	has(n.Labels, "D.kv[0]", "P.nic[1]", "D[0]", "P.reqs[1]", "tool")
	has(n.Funcs, "used", "queued", "leases", "parked", "preempted", "running", "waiting", "mean")
	has(n.Values, "NP", "ttft", "now", d.prog.Gauges[0].Name)
	has(n.Classes, "preemption", "lease-end", "admission")
	has(n.Files, "llmd_nixl_pull.sq")
}
