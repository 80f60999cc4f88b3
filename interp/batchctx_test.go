package interp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// The batch's count and exact context on a hand-built batch: a budget of
// 8 tokens, each run at most 4 per iteration, KV blocks of 4. s0
// prefills 10 tokens and s1 3, then each decodes 2 (the batches of
// TestEngineChunkedPrefillTokenTimes):
//
//	iteration  runs (K: the position before)         count  position  context_prefill  context_decode
//	1          s0 prefill 4 (K 0), s1 prefill 3 (K 0)  2      0         0                0
//	2          s0 prefill 4 (K 4), s1 decode at 3      2      16        4                3
//	3          s0 prefill 2 (K 8), s1 decode at 4      2      16        8                4
//	4          s0 decode at 10                         1      0         0                10
//	5          s0 decode at 11                         1      0         0                11
//
// Each case's `execute (1 + x)` makes the iterations last 1 + x, so the
// first and last tokens fall at the sums of those durations: s1's first
// token ends iteration 1, its last iteration 3; s0's first iteration 3,
// its last iteration 5.
func TestBatchContextHandBuilt(t *testing.T) {
	for _, c := range []struct {
		x         string
		durations [5]float64
	}{
		{"batch.count", [5]float64{3, 3, 3, 2, 2}},
		{"batch.position / 16", [5]float64{1, 2, 2, 1, 1}},
		{"batch.context_prefill / 4", [5]float64{1, 2, 3, 1, 1}},
		{"batch.context_decode", [5]float64{1, 4, 5, 11, 12}},
	} {
		t.Run(c.x, func(t *testing.T) {
			src := mainProgram(`
  device gpu { kv cap 100; }
  engine E on gpu {
    reqs cap 16;
    tokens cap 8;
    schedule {
      advance running each at most (4);
      admit waiting while (running.preempted == 0) each at most (4);
    }
    execute (1 + ` + c.x + `);
  }
  pool kv on gpu { block 4; preempt none; }
  pool reqs on E { queue fifo; }
  workload { arrive batch(2); session { turn; } }
  server {
    hold reqs (cost(reqs, 1)), kv (cost(kv, 4)) {
      run E prefill (cost(E, serial == 0 ? 10 : 3)) growing kv;
      observe first = now;
      run E decode (cost(E, 2)) growing kv;
      observe last = now;
    }
  }`)
			r := pdReport(t, src, 1000)
			end := [6]float64{}
			for i, d := range c.durations {
				end[i+1] = end[i] + d
			}
			wantBySession(t, r, "first", map[int64][]float64{0: {end[3]}, 1: {end[1]}}, c.x)
			wantBySession(t, r, "last", map[int64][]float64{0: {end[5]}, 1: {end[3]}}, c.x)
		})
	}
}

// A vLLM engine whose step reads the batch's count and exact context holds
// to the reference path: its quiet iterations move batch.context_decode on
// by a token per growing resident and read the cost again, the growth of a
// block among them.
func TestBatchContextFastPath(t *testing.T) {
	src := strings.Replace(vllmSingleTurn(t), "execute (c0 + max(hbm(batch.kv_decode + batch.kv_prefill), compute(batch.tokens)));",
		"execute (c0 + 3e-6 * batch.count + max(hbm(batch.context_decode + batch.context_prefill + 1e-3 * batch.position), compute(batch.tokens)));", 1)
	for _, lam := range []string{"2", "6"} {
		t.Run("Lambda "+lam, func(t *testing.T) {
			p := loadInline(t, "../examples/single-turn/vllm.sq", strings.Replace(src, `args.number("Lambda", 2)`, `args.number("Lambda", `+lam+`)`, 1))
			differential(t, p, interp.Options{Horizon: horizon(200), Warmup: 10, Seed: 7}, 0)
		})
	}
}

// vllmSingleTurn is examples/single-turn/vllm.sq's text.
func vllmSingleTurn(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../examples/single-turn/vllm.sq")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "execute (c0 + max(hbm(batch.kv_decode + batch.kv_prefill), compute(batch.tokens)));") {
		t.Fatal("the example's execute changed")
	}
	return string(b)
}
