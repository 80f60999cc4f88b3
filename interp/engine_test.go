package interp_test

// Deterministic engine tests on the step clock: `execute (1)` makes every
// iteration last 1, so a request's token times can be counted by hand
// (docs/engine.md §4). Each test's comment gives the count.

import (
	"testing"

	"github.com/serq/serq/interp"
)

// bySession is an observe's samples per session serial, in recording
// order.
func bySession(r *interp.Report, name string) map[int64][]float64 {
	out := map[int64][]float64{}
	for _, o := range r.Observes {
		if o.Name != name {
			continue
		}
		for _, s := range o.Samples {
			out[int64(s.Session)] = append(out[int64(s.Session)], s.Value)
		}
	}
	return out
}

// wantBySession compares bySession(r, name) with want.
func wantBySession(t *testing.T, r *interp.Report, name string, want map[int64][]float64, why string) {
	t.Helper()
	got := bySession(r, name)
	ok := len(got) == len(want)
	for k, w := range want {
		g := got[k]
		if len(g) != len(w) {
			ok = false
			break
		}
		for i := range w {
			if d := g[i] - w[i]; d > 1e-9 || d < -1e-9 {
				ok = false
			}
		}
	}
	if !ok {
		t.Errorf("%s by session = %v, want %v: %s", name, got, want, why)
	}
}

// Chunked prefill: budget 8 tokens, each run at most 4 per iteration. s0
// prefills 10 tokens, s1 3; each then decodes 2.
//
//	[0,1] admit s0: prefill 4 (6 left); admit s1: prefill 3 (done)  7 tokens
//	[1,2] s0 prefill 4 (2 left); s1 decode 1                       5
//	[2,3] s0 prefill 2 (done); s1 decode 1 (done)                  3
//	[3,4] s0 decode 1
//	[4,5] s0 decode 1 (done)
//
// First tokens (prefill ends): s1 at 1, s0 at 3. Last tokens: s1 at 3,
// s0 at 5.
func TestEngineChunkedPrefillTokenTimes(t *testing.T) {
	src := mainProgram(`
  device gpu { }
  engine E on gpu {
    reqs cap 16;
    tokens cap 8;
    schedule {
      advance running each at most (4);
      admit waiting while (running.preempted == 0) each at most (4);
    }
    execute (1);
  }
  pool reqs on E { queue fifo; }
  workload { arrive batch(2); session { turn; } }
  server {
    hold reqs (cost(reqs, 1)) {
      run E prefill (cost(E, serial == 0 ? 10 : 3));
      observe first = now;
      run E decode (cost(E, 2));
      observe last = now;
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "first", map[int64][]float64{0: {3}, 1: {1}}, "chunks of at most 4 in a budget of 8")
	wantBySession(t, r, "last", map[int64][]float64{0: {5}, 1: {3}}, "one decode token per iteration")
	if got := r.Stages[0].Iterations; got != 5 {
		t.Errorf("E ran %d iterations, want 5", got)
	}
}

// The request cap: `reqs cap 1` runs one request at a time. Each prefills
// 2 tokens (one iteration) and decodes 2 (two iterations): 3 iterations a
// request. s0 is admitted at 0, first token at 1, last at 3, and its
// scope's end frees the slot for the iteration at 3: s1 is admitted at 3
// (first 4, last 6), s2 at 6 (first 7, last 9).
func TestEngineRequestCap(t *testing.T) {
	src := mainProgram(`
  device gpu { }
  engine E on gpu {
    reqs cap 1;
    tokens cap 100;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool reqs on E { queue fifo; }
  workload { arrive batch(3); session { turn; } }
  server {
    hold reqs (cost(reqs, 1)) {
      observe admitted = now;
      run E prefill (cost(E, 2));
      observe first = now;
      run E decode (cost(E, 2));
      observe last = now;
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "admitted", map[int64][]float64{0: {0}, 1: {3}, 2: {6}}, "one slot")
	wantBySession(t, r, "first", map[int64][]float64{0: {1}, 1: {4}, 2: {7}}, "the prefill takes one iteration")
	wantBySession(t, r, "last", map[int64][]float64{0: {3}, 1: {6}, 2: {9}}, "two decode iterations")
}

// Head-of-line blocking: a KV of 10 tokens. s0 holds 6 and decodes 5
// tokens, [0,5]; s1 asks 6 (6 + 6 > 10: no room until s0's scope ends at
// 5); s2 asks 2, which would fit at once but waits behind s1, the head.
// At 5 both s1 and s2 are admitted (6 + 2 ≤ 10). The same holds whether
// the engine admits the pool at its iteration boundary (`on E.gpu`) or the
// settle does as soon as the head fits (`on gpu`).
func TestEngineHeadOfLineBlocking(t *testing.T) {
	for _, owner := range []string{"E.gpu", "gpu"} {
		t.Run(owner, func(t *testing.T) {
			src := mainProgram(`
  device gpu { kv cap 10; }
  engine E on gpu {
    tokens cap 100;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool kv on ` + owner + ` { queue fifo; }
  workload { arrive batch(3); session { turn; } }
  server {
    hold kv (cost(kv, serial == 2 ? 2 : 6)) {
      observe admitted = now;
      run E decode (cost(E, serial == 0 ? 5 : 1));
      observe last = now;
    }
  }`)
			r := pdReport(t, src, 100)
			wantBySession(t, r, "admitted", map[int64][]float64{0: {0}, 1: {5}, 2: {5}}, "s2 waits behind s1, the head that does not fit")
			wantBySession(t, r, "last", map[int64][]float64{0: {5}, 1: {6}, 2: {6}}, "s1 and s2 decode in the iteration [5,6]")
		})
	}
}

// Self-preemption: a KV of 30 tokens in blocks of 10, preempt lifo. s0
// holds 20 and s1 10, both admitted at 0; each prefills 10 (growing) and
// decodes (s0 5 tokens, s1 3). s0's 15 tokens fit its 20; s1's first
// decode token needs a block more (20 + 20 > 30) and s1, the last
// admitted, is the victim: it preempts itself, ends the iteration's
// advance (s0, served first, keeps its token), re-enters its hold at the
// head and is admitted again at once (10 fit), prefilling anew:
//
//	[0,1] s0 prefill 10, s1 prefill 10          first: s0 1, s1 1
//	[1,2] s0 decode (1); s1 grows: preempted #1, re-admitted at 1
//	[2,3] s0 decode (2); s1 prefill 10          first: s1 3
//	[3,4] s0 decode (3); s1 grows: preempted #2
//	[4,5] s0 decode (4); s1 prefill 10          first: s1 5
//	[5,6] s0 decode (5, done at 6); s1 grows: preempted #3
//	[6,7] s1 prefill 10 (s0's 20 are free)      first: s1 7
//	[7,8] [8,9] [9,10] s1 decodes 3, growing to 20 (10 + 20 ≤ 30)
//
// Three preemptions; s0's last token at 6, s1's at 10.
func TestEngineSelfPreemption(t *testing.T) {
	src := mainProgram(`
  device gpu { kv cap 30; }
  engine E on gpu {
    tokens cap 100;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool kv on gpu { block 10; preempt lifo; }
  workload { arrive batch(2); session { turn; } }
  server {
    hold kv (cost(kv, serial == 0 ? 20 : 10)) {
      run E prefill (cost(E, 10)) growing kv;
      observe first = now;
      run E decode (cost(E, serial == 0 ? 5 : 3)) growing kv;
      observe last = now;
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "first", map[int64][]float64{0: {1}, 1: {1, 3, 5, 7}}, "s1 prefills again after each preemption")
	wantBySession(t, r, "last", map[int64][]float64{0: {6}, 1: {10}}, "s1 decodes once s0's blocks are free")
	if p := poolRow(t, r, "kv"); p.Preemptions != 3 {
		t.Errorf("kv preemptions = %d, want 3", p.Preemptions)
	}
}
