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
0.6428 s  session 2 turn 1  observed too_long, 0
0.6428 s  session 2 turn 1  routed j = 0 (keys 0 (0) · 1 (0))
0.6428 s  session 2 turn 1  routed i = 0 (keys 0 (1, 0) · 1 (1, 0))
0.6428 s  session 2 turn 1  admitted at P.reqs[0], 1
0.6428 s  session 2 turn 1  admitted at P.kv[0], 2864
0.6428 s  session 2 turn 1  joined prefill on P[0], 2849
0.6998 s  session 2 turn 1  finished prefill on P[0]
0.6998 s  session 2 turn 1  released P.reqs[0], 1
0.6998 s  session 2 turn 1  leased P.kv[0], 2864
0.6998 s  session 2 turn 1  admitted at D.kv[0], 2864
0.6998 s  session 2 turn 1  admitted at D.reqs[0]
0.6998 s  session 2 turn 1  observed remote_tokens, 2849
0.6998 s  session 2 turn 1  started on D.nic.latency[0], 0.002
0.7018 s  session 2 turn 1  finished on D.nic.latency[0], 0.002
0.7018 s  session 2 turn 1  started a flow on P.nic[0] + D.nic[0], 2849
0.7160 s  session 2 turn 1  lease ended P.kv[0], 0.016245 (2864 units)
0.7160 s  session 2 turn 1  released P.kv[0], 2864
0.7160 s  session 2 turn 1  cached at P.kv[0], 2848
0.7160 s  session 2 turn 1  admitted at D.reqs[0], 1
0.7160 s  session 2 turn 1  joined prefill on D[0], 1
0.7162 s  session 2 turn 1  finished prefill on D[0]
0.7162 s  session 2 turn 1  observed ttft, 0.0734307
0.7162 s  session 2 turn 1  joined decode on D[0], 205
0.7585 s  session 2 turn 1  finished decode on D[0]
0.7585 s  session 2 turn 1  released D.reqs[0], 1
0.7585 s  session 2 turn 1  released D.kv[0], 3056
0.7585 s  session 2 turn 1  cached at D.kv[0], 3040
0.7585 s  session 2 turn 1  released D.reqs[0]
0.7585 s  session 2 turn 1  observed lease, 0.016245
0.7585 s  session 2 turn 1  observed remote, 1
0.7585 s  session 2 turn 1  observed response, 0.115644
0.7585 s  session 2 turn 1  started on tool, 0.587678
1.3461 s  session 2 turn 1  finished on tool, 0.587678
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
0.0000 s  session 0 turn 1  started on svc, 2
0.0000 s  session 1 turn 1  queued at svc, 2
2.0000 s  session 0 turn 1  finished on svc, 2
2.0000 s  session 1 turn 1  started on svc, 2
2.0000 s  session 0 turn 1  observed response, 2
2.0000 s  session 0 turn 1  ended
4.0000 s  session 1 turn 1  finished on svc, 2
4.0000 s  session 1 turn 1  observed response, 4
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
			if e.What == "iteration on" {
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
	if want := "0.0000 s  iteration on P[0], 0.02952 (batch of 1: 1476 prefill tokens, 0 decode(s), 1476 tokens)"; n == 0 || first != want {
		t.Errorf("%d iterations traced, the first %q, want %q", n, first, want)
	}
}
