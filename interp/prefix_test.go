package interp_test

import (
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// Shared prefixes by hand. A KV pool of 40 units in blocks of 4, evicted
// least recently released first; session i arrives at 2(i+1) and holds for
// 1 its u units under the chain (g: 10), then its own content, and caches
// all of it. A chain's node (g) holds the blocks that end within its 10
// units: [0, 8); the session's own content starts at 8.
//
//	s0 (g 1, 16) at 2: nothing cached: hit 0. Leaves g1 [0,8) and own0 [8,16).
//	s1 (g 1, 16) at 4: g1 is full, own1 absent: hit 8. Leaves own1 [8,16), g1.
//	s2 (g 2, 16) at 6: hit 0. Leaves own2, g2: the cache is full (40).
//	s3 (g 1, 40) at 8: hit 8 (g1, pinned: 32 cached left); the other 32 units
//	    evict own0, own1, own2, then g2 (a leaf once own2 is gone).
//	s4 (g 2, 16) at 10: g2 was evicted: hit 0.
//	s5 (g 1, 16) at 12: g1 is still cached: hit 8.
func TestPrefixSharedAndEvicted(t *testing.T) {
	src := mainProgram(`
  stage d : delay;
  pool kv { cap 40; block 4; evict lru; }
  workload {
    arrive renewal(2);
    init { set g = serial == 2 || serial == 4 ? 2 : 1; set u = serial == 3 ? 40 : 16; }
  }
  server {
    hold kv (cost(kv, u)) prefix (g: 10) {
      observe hit = cached;
      run d (cost(d, 1));
    } cache (cost(kv, u));
    observe g_seen = g;
  }`)
	r := pdReport(t, src, 13.5)
	wantBySession(t, r, "hit", map[int64][]float64{0: {0}, 1: {8}, 2: {0}, 3: {8}, 4: {0}, 5: {8}},
		"a second session of the same chain hits its blocks; an evicted chain misses")
	var evicted float64
	for _, p := range r.Pools {
		if p.Name == "kv" {
			evicted = p.EvictedUnits
		}
	}
	// s3's 32 units (own0, own1, own2, g2), then s4's 16 (own3, s3's 32,
	// loses half) and s5's 8 (own3 again: the least recently released, g1
	// pinned by s5)
	if evicted != 56 {
		t.Errorf("%v units evicted, want 56", evicted)
	}
}

// A chain's blocks are shared as soon as a prefill computes them: s0's
// prompt of 16 tokens, chain (g: 10, q: 6), is computed in the iteration
// [1.5, 2.5] and then decodes until 12.5. s1, the same prompt, arrives at
// 3 and is admitted at 3.5 while s0 still runs: it hits the 16 units of
// s0's nodes, which its `reuse` caps at 12 (vLLM never reuses the last
// token's block). s2, another question of the same g, hits g's 8 units.
func TestPrefixSharedWhileRunning(t *testing.T) {
	src := mainProgram(`
  device gpu { kv cap 1000; }
  engine E on gpu {
    reqs cap 16;
    tokens cap 100;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool kv on gpu { block 4; evict lru; preempt lifo; }
  pool reqs on E { queue fifo; }
  workload { arrive renewal(1.5); init { set q = serial == 2 ? 2 : 1; } }
  server {
    hold reqs (cost(reqs, 1)), kv (cost(kv, 16)) reuse (cost(kv, reqs, 12)) prefix (1: 10, q: 6) {
      observe hit = cached;
      run E prefill (cost(E, 16 - cached)) growing kv;
      run E decode (cost(E, 10)) growing kv;
    } cache (cost(kv, reqs, 26));
  }`)
	r := pdReport(t, src, 6)
	wantBySession(t, r, "hit", map[int64][]float64{0: {0}, 1: {12}, 2: {8}}, "shared as the prefill computes them")
}

// A vLLM engine whose requests share system prompts and repeat questions,
// under memory pressure (evictions of shared nodes, preemptions that
// publish and unpin), holds to the reference path.
func TestPrefixFastPath(t *testing.T) {
	src := vllmSingleTurn(t)
	for _, r := range [][2]string{
		{"set n = ceil(~uniform(1000, 3000));", "set g = floor(~uniform(0, 4)); set qq = floor(~uniform(0, 30)); set n = 600;"},
		{"    hold reqs (cost(reqs, 1)), kv (cost(kv, min(known, reused + budget_left(vllm)))) reserve (cost(kv, known))\n",
			"    hold reqs (cost(reqs, 1)), kv (cost(kv, min(known, reused + budget_left(vllm)))) reserve (cost(kv, known))\n         reuse (cost(kv, reqs, reusable(known, bs))) prefix (g: 100, qq: 500)\n"},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("the example changed: no %q", r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	for _, c := range [][2]string{{"600", "2"}, {"120", "6"}} {
		t.Run("blocks "+c[0]+" Lambda "+c[1], func(t *testing.T) {
			p := loadInline(t, "../examples/single-turn/vllm.sq", strings.NewReplacer(
				`args.number("blocks", 10000)`, `args.number("blocks", `+c[0]+`)`,
				`args.number("Lambda", 2)`, `args.number("Lambda", `+c[1]+`)`).Replace(src))
			differential(t, p, interp.Options{Horizon: horizon(300), Warmup: 10, Seed: 11}, 0)
		})
	}
}
