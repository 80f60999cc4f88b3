package interp_test

import (
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// storyOf runs s to the horizon and returns the traced events of one
// session's first turn, one line each.
func storyOf(t *testing.T, s *interp.Sim, serial uint64) string {
	t.Helper()
	var b strings.Builder
	s.SetTracer(func(e interp.TraceEvent) {
		if e.Session == serial && e.Turn <= 1 {
			b.WriteString(e.String() + "\n")
		}
	})
	for s.Step() {
	}
	return b.String()
}

// The whole story of one request of the seed, in the log's words: its
// arrival, the router's choice with every candidate's keys, queueing and
// admissions, the prefill, the lease, the read, the decode and its end.
func TestTraceStory(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	s, err := interp.New(p, interp.Options{Horizon: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := storyOf(t, s, 2)
	want := `0.6428 s  session 2 turn 0  arrived
0.6428 s  session 2 turn 1  observed too_long = 0
0.6428 s  session 2 turn 1  routed j = 0 · keys j=0: 0 · j=1: 0
0.6428 s  session 2 turn 1  routed i = 0 · keys i=0: (1, 0) · i=1: (1, 0)
0.6428 s  session 2 turn 1  admitted at P.reqs[0] (1 unit)
0.6428 s  session 2 turn 1  admitted at P.kv[0] (2,864 units)
0.6428 s  session 2 turn 1  joined P[0] to prefill 2,849 tokens
0.6998 s  session 2 turn 1  finished its prefill on P[0]
0.6998 s  session 2 turn 1  released P.reqs[0] (1 unit)
0.6998 s  session 2 turn 1  leased 2,864 units of P.kv[0]
0.6998 s  session 2 turn 1  admitted at D.kv[0] (2,864 units)
0.6998 s  session 2 turn 1  admitted at D.reqs[0]
0.6998 s  session 2 turn 1  observed remote_tokens = 2,849
0.6998 s  session 2 turn 1  posted its read on D.nic[0]: 2.0 ms of latency
0.7018 s  session 2 turn 1  its read's 2.0 ms of latency on D.nic[0] is over
0.7018 s  session 2 turn 1  started a transfer of 2,849 units on P.nic[0] + D.nic[0]
0.7160 s  session 2 turn 1  its lease on P.kv[0] ended after 16.2 ms (2,864 units)
0.7160 s  session 2 turn 1  released P.kv[0] (2,864 units)
0.7160 s  session 2 turn 1  cached 2,848 units at P.kv[0]
0.7160 s  session 2 turn 1  admitted at D.reqs[0] (1 unit)
0.7160 s  session 2 turn 1  joined D[0] to prefill 1 token
0.7162 s  session 2 turn 1  finished its prefill on D[0]
0.7162 s  session 2 turn 1  observed ttft = 0.07343
0.7162 s  session 2 turn 1  joined D[0] to decode 205 tokens
0.7585 s  session 2 turn 1  finished its decode on D[0]
0.7585 s  session 2 turn 1  released D.reqs[0] (1 unit)
0.7585 s  session 2 turn 1  released D.kv[0] (3,056 units)
0.7585 s  session 2 turn 1  cached 3,040 units at D.kv[0]
0.7585 s  session 2 turn 1  released D.reqs[0]
0.7585 s  session 2 turn 1  observed lease = 0.01624
0.7585 s  session 2 turn 1  observed remote = 1
0.7585 s  session 2 turn 1  observed response = 0.1156
0.7585 s  session 2 turn 1  started on tool (work 0.5877)
1.3461 s  session 2 turn 1  finished on tool (work 0.5877)
`
	if got != want {
		t.Errorf("story of session 2:\n%s\nwant:\n%s", got, want)
	}
}

// A job that finds every server of a fifo busy is queued, not started: it
// starts when a server frees (issue: the log said "started on" at once).
func TestTraceFifoQueued(t *testing.T) {
	p := loadInline(t, "fifo.sq", `fn main() {
  stage svc : fifo;
  workload { arrive batch(2); }
  server { run svc (cost(svc, 2)); }
}
`)
	s, err := interp.New(p, interp.Options{Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	s.SetTracer(func(e interp.TraceEvent) { b.WriteString(e.String() + "\n") })
	for s.Step() {
	}
	want := `0.0000 s  session 0 turn 0  arrived
0.0000 s  session 1 turn 0  arrived
0.0000 s  session 0 turn 1  started on svc (work 2)
0.0000 s  session 1 turn 1  queued at svc (work 2)
2.0000 s  session 0 turn 1  finished on svc (work 2)
2.0000 s  session 1 turn 1  started on svc (work 2)
2.0000 s  session 0 turn 1  observed response = 2
2.0000 s  session 0 turn 1  ended
4.0000 s  session 1 turn 1  finished on svc (work 2)
4.0000 s  session 1 turn 1  observed response = 4
4.0000 s  session 1 turn 1  ended
`
	if got := b.String(); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
}

// Iterations are traced only on request, each with its batch.
func TestTraceIterations(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	var first string
	n := 0
	for _, on := range []bool{false, true} {
		s, _ := interp.New(p, interp.Options{Horizon: 1, Seed: 1})
		s.TraceIterations(on)
		n = 0
		s.SetTracer(func(e interp.TraceEvent) {
			if e.Kind == interp.EvIteration {
				if n == 0 {
					first = e.String()
				}
				n++
			}
		})
		for s.Step() {
		}
		if !on && n != 0 {
			t.Fatalf("%d iterations traced without TraceIterations", n)
		}
	}
	if want := "0.0000 s  P[0] iterates for 29.5 ms: a batch of 1, 1,476 prefill tokens, 0 decodes, 1,476 tokens in all"; n == 0 || first != want {
		t.Errorf("%d iterations traced, the first %q, want %q", n, first, want)
	}
}

// A fork leg's events are the session's, with the leg named: its observe
// of 0 is traced and worded as any other (issue 30: the leg's "observed …
// 0" once showed in one renderer and not the others; TraceEvent.Text is
// now the only one).
func TestTraceForkLeg(t *testing.T) {
	p := pdLoad(t, mainProgram(`
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    fork { run svc (cost(svc, 2)); observe leg_zero = 0; }
    run svc (cost(svc, 1));
    join;
    observe joined = now;
  }`))
	s, err := interp.New(p, interp.Options{Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	s.SetTracer(func(e interp.TraceEvent) {
		if e.Kind == interp.EvObserved {
			got = append(got, e.String())
		}
	})
	for s.Step() {
	}
	want := []string{"2.0000 s  session 0 leg 1 turn 1  observed leg_zero = 0", "2.0000 s  session 0 turn 1  observed joined = 2",
		"2.0000 s  session 0 turn 1  observed response = 2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("observes traced:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
