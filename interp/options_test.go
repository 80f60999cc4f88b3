package interp_test

// Exact checks of pool, engine and workload options no other test covers:
// `queue by` (with `waited`), `reserve held`, `evict lru` / `evict by`,
// `preempt by … requeue tail` / `preempt lifo`, `granule`, `each at most`
// with `budget_left(E)` in a header, schedule bodies with registers, and
// the `closed`, `renewal` and finite (`--arrivals`) workloads
// (docs/engine.md §3–4, docs/language.md §5). Sessions start at chosen
// times by waiting on a delay stage `gate` for `serial`-dependent work;
// every expected number is derived by hand in the comment above it.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// optRun runs a program with the given options and returns its report and
// the run's error.
func optRun(t *testing.T, src string, opt interp.Options) (*interp.Report, error) {
	t.Helper()
	sim, err := interp.New(pdLoad(t, src), opt)
	if err != nil {
		t.Fatalf("interp.New: %v", err)
	}
	runErr := sim.Run(context.Background())
	return sim.Report(), runErr
}

// ------------------------------------------------------------ queue by

// `queue by` keys are read before each admission attempt, `waited` being
// the seconds since the hold joined the queue (docs/engine.md §3, queueing). A
// pool of 1; s0 holds it over [0, 10], each later holder for 10. s1, s2,
// s3 join at 1, 2, 3, s4 at 12. Keys (waited > 8.5 ? 0 : 1, -serial):
//
//	t=10: waited s1 9, s2 8, s3 7 → keys (0,-1) (1,-2) (1,-3): s1
//	t=20: s2 18, s3 17, s4 8 → (0,-2) (0,-3) (1,-4): s3
//	t=30: s2 28, s4 18 → (0,-2) (0,-4): s4
//	t=40: s2
//
// FIFO would give 10, 20, 30, 40 to s1…s4; `-serial` alone s3, s4, s2, s1.
func TestQueueByReadsWaited(t *testing.T) {
	src := mainProgram(`
  pool q { cap 1; queue by (waited > 8.5 ? 0 : 1, -serial); }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(5); }
  server {
    run gate (cost(gate, serial == 4 ? 12 : serial));
    hold q (cost(q, 1)) { observe admitted = now; run svc (cost(svc, 10)); }
  }`)
	wantBySession(t, pdReport(t, src, 100), "admitted",
		map[int64][]float64{0: {0}, 1: {10}, 2: {40}, 3: {20}, 4: {30}},
		"least (waited > 8.5 ? 0 : 1, -serial), waited re-read at each attempt")
}

// Equal keys go by enqueue order, not by serial. s0 holds the pool of 1
// over [0, 10]; s2, s3, s1 join at 1, 2, 3 with key 1, s4 at 4 with key 0.
// At 10 s4 (the least key); then s2, s3, s1 in the order they joined: 20,
// 30, 40.
func TestQueueByTiesGoByEnqueueOrder(t *testing.T) {
	src := mainProgram(`
  pool q { cap 1; queue by (serial == 4 ? 0 : 1); }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(5); }
  server {
    run gate (cost(gate, serial == 0 ? 0 : serial == 1 ? 3 : serial == 2 ? 1 : serial == 3 ? 2 : 4));
    hold q (cost(q, 1)) { observe admitted = now; run svc (cost(svc, 10)); }
  }`)
	wantBySession(t, pdReport(t, src, 100), "admitted",
		map[int64][]float64{0: {0}, 1: {40}, 2: {20}, 3: {30}, 4: {10}},
		"the least key first, equal keys in enqueue order")
}

// Only the selected hold is tried: if it does not fit, nobody behind it
// is admitted. A pool of 10; s0 holds 6 over [0, 10], s3 2 over [0, 3].
// s1 joins at 1 asking 4 (6 + 2 + 4 > 10: it waits); s2 joins at 2 asking
// 6 with the least key. At 3 s3 leaves (used 6): under `queue by` the
// selected s2 (6 + 6 > 10) does not fit and blocks s1, which would (6 + 4
// ≤ 10); both are admitted at 10 when s0 leaves (6 + 4 ≤ 10). Under fifo
// s1 is the head and is admitted at 3; s2 at 10.
func TestQueueBySelectedHeadBlocksTheRest(t *testing.T) {
	program := func(queue string) string {
		return mainProgram(`
  pool q { cap 10; ` + queue + ` }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(4); }
  server {
    run gate (cost(gate, serial == 3 ? 0 : serial));
    hold q (cost(q, serial == 0 ? 6 : serial == 1 ? 4 : serial == 2 ? 6 : 2)) {
      observe admitted = now;
      run svc (cost(svc, serial == 0 ? 10 : serial == 3 ? 3 : 1));
    }
  }`)
	}
	wantBySession(t, pdReport(t, program(`queue by (serial == 2 ? 0 : 1);`), 100), "admitted",
		map[int64][]float64{0: {0}, 1: {10}, 2: {10}, 3: {0}},
		"the selected s2 does not fit and blocks s1")
	wantBySession(t, pdReport(t, program(`queue fifo;`), 100), "admitted",
		map[int64][]float64{0: {0}, 1: {3}, 2: {10}, 3: {0}},
		"fifo: s1 is the head and fits at 3")
}

// --------------------------------------------------------- reserve held

// `reserve held`: another live hold's unallocated reservation (reserve −
// alloc) counts against admission (docs/engine.md §3, fitting). A pool of 10;
// s0 holds 2 with `reserve (8)` over [0, 4] (6 reserved, unallocated);
// s1 asks at t = 1.
func TestReserveHeldCountsOthersReservationsAtAdmission(t *testing.T) {
	program := func(held, s0body string, ask int) string {
		return mainProgram(`
  pool kv { cap 10; ` + held + ` }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(2); }
  server {
    run gate (cost(gate, serial));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) reserve (cost(kv, 8)) { ` + s0body + ` }
    } else {
      hold kv (cost(kv, ` + strconv.Itoa(ask) + `)) { observe admitted = now; }
    }
  }`)
	}
	cases := []struct {
		name, held, s0body string
		ask                int
		want               float64
		why                string
	}{
		{"off", "", `run svc (cost(svc, 4));`, 3, 1,
			"without `reserve held` only used counts: 2 + 3 ≤ 10"},
		{"held", "reserve held;", `run svc (cost(svc, 4));`, 3, 4,
			"2 + 3 + (8 − 2) > 10: s1 waits for s0's scope end at 4"},
		{"held-exact", "reserve held;", `run svc (cost(svc, 4));`, 2, 1,
			"2 + 2 + 6 = 10 fits"},
		{"held-after-growth", "reserve held;", `grow kv (cost(kv, 3)); run svc (cost(svc, 4));`, 2, 1,
			"s0 grew to 5 at 0, leaving 3 reserved: 5 + 2 + 3 = 10 fits"},
		{"held-after-release", "reserve held;", `run svc (cost(svc, 0.5)); release kv; run svc (cost(svc, 3.5));`, 3, 1,
			"the reservation ends with the release at 0.5: 0 + 3 ≤ 10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantSamples(t, observations(t, program(c.held, c.s0body, c.ask), 100), "admitted", []float64{c.want}, c.why)
		})
	}
}

// `reserve held` and growth: a growth counts the others' outstanding
// reservations only. A pool of 10; s0 holds 2 `reserve (8)` from 0, s1
// holds 1 from 0.25 (2 + 1 + 6 = 9 ≤ 10). At 0.5 s0 grows by 4: 3 + 4 +
// 0 (s1 reserves nothing) ≤ 10, so s0 grows at once (had its own 6
// counted, 3 + 4 + 6 > 10); s0 now has 6 of 8, 2 outstanding. At 1 s1
// grows by 2: 7 + 2 + 2 > 10, so it waits for s0's scope end at 4. Without
// `reserve held` s1 grows at 1 (7 + 2 ≤ 10).
func TestReserveHeldCountsOthersReservationsAtGrowth(t *testing.T) {
	program := func(held string) string {
		return mainProgram(`
  pool kv { cap 10; ` + held + ` }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(2); }
  server {
    run gate (cost(gate, serial * 0.25));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) reserve (cost(kv, 8)) {
        run svc (cost(svc, 0.5)); grow kv (cost(kv, 4)); observe g0 = now; run svc (cost(svc, 3.5));
      }
    } else {
      hold kv (cost(kv, 1)) { run svc (cost(svc, 0.75)); grow kv (cost(kv, 2)); observe g1 = now; }
    }
  }`)
	}
	obs := observations(t, program("reserve held;"), 100)
	wantSamples(t, obs, "g0", []float64{0.5}, "a hold's own reservation does not count against its growth")
	wantSamples(t, obs, "g1", []float64{4}, "s0's 2 outstanding count against s1's growth")
	obs = observations(t, program(""), 100)
	wantSamples(t, obs, "g0", []float64{0.5}, "3 + 4 ≤ 10")
	wantSamples(t, obs, "g1", []float64{1}, "without `reserve held`, 7 + 2 ≤ 10")
}

// ------------------------------------------------------------- eviction

// Which cached prefix survives an eviction. A pool of 30 in blocks of
// 10: s0 caches 20 at its release at 1, s1 10 at 2 (cached 30). At 3 s2
// holds 10 without `cache`: one block (10) must go.
//
//	evict lru:       s0's entry (released first) loses its tail block: s0 10, s1 10
//	evict by (-age): the oldest first (age s0 2, s1 1), as lru:          s0 10, s1 10
//	evict by (size): the smallest first, s1's 10:                         s0 20, s1 0
//	evict by (age):  the youngest first, s1's:                            s0 20, s1 0
//
// s0 and s1 read `cachedin(kv)` at 4. At 6 (s2 left at 5) s0 holds 20
// with `cache`: it consumes what is left of its entry — the head of a
// partially evicted one under lru — so `cached` is what `cachedin` said,
// and no more is evicted (0 + 10 + 20 ≤ 30 under lru).
func TestEvictionPolicyChoosesTheSurvivor(t *testing.T) {
	program := func(evict string) string {
		return mainProgram(`
  pool kv { cap 30; block 10; ` + evict + ` }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(3); }
  server {
    branch (serial < 2) {
      hold kv (cost(kv, serial == 0 ? 20 : 10)) { run svc (cost(svc, serial + 1)); } cache (cost(kv, 20));
      run gate (cost(gate, 3 - serial));
      observe left = cachedin(kv);
      branch (serial == 0) {
        run gate (cost(gate, 2));
        hold kv (cost(kv, 20)) { observe hit = cached; } cache (cost(kv, 0));
      }
    } else {
      run gate (cost(gate, 3));
      hold kv (cost(kv, 10)) { run svc (cost(svc, 2)); }
    }
  }`)
	}
	cases := []struct {
		evict  string
		s0, s1 float64
	}{
		{"evict lru;", 10, 10},
		{"evict by (-age);", 10, 10},
		{"evict by (size);", 20, 0},
		{"evict by (age);", 20, 0},
	}
	for _, c := range cases {
		t.Run(c.evict, func(t *testing.T) {
			r := pdReport(t, program(c.evict), 100)
			wantBySession(t, r, "left", map[int64][]float64{0: {c.s0}, 1: {c.s1}}, "the surviving cache after one block was evicted")
			wantBySession(t, r, "hit", map[int64][]float64{0: {c.s0}}, "s0 consumes the head its entry kept")
			if p := poolRow(t, r, "kv"); p.EvictedUnits != 10 {
				t.Errorf("evicted_units = %v, want 10: one block at 3, none at 6", p.EvictedUnits)
			}
		})
	}
}

// Eviction goes one block at a time from the tail, not by whole entries.
// A pool of 60 in blocks of 10: s0 caches 30 at 1, s1 30 at 2 (cached
// 60). At 3 s2 holds 45, rounded up to 50: 0 + 60 + 50 − 60 = 50 must go,
// under lru s0's three blocks (its entry is gone), then two blocks off
// the tail of s1's, which keeps its head: s0 0, s1 10.
func TestEvictionTakesBlocksFromTheTail(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 60; block 10; evict lru; }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(3); }
  server {
    branch (serial < 2) {
      hold kv (cost(kv, 30)) { run svc (cost(svc, serial + 1)); } cache (cost(kv, 30));
      run gate (cost(gate, 3 - serial));
      observe left = cachedin(kv);
    } else {
      run gate (cost(gate, 3));
      hold kv (cost(kv, 45)) { run svc (cost(svc, 2)); }
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "left", map[int64][]float64{0: {0}, 1: {10}}, "45 rounds up to 50: s0's three blocks, then two of s1's")
	if p := poolRow(t, r, "kv"); p.EvictedUnits != 50 || p.EvictedEntries != 1 {
		t.Errorf("evicted_units %v entries %d, want 50 and 1 (s0's entry is gone, s1's keeps its head)", p.EvictedUnits, p.EvictedEntries)
	}
}

// ----------------------------------------------------------- preemption

// preemptProgram: a pool of 10 with the given preempt option. s0 holds 2
// from 0, grows by 4 at 3 (used 10 + 4 > 10: a victim is needed) and ends
// at 4; s1 holds 4 from 1 and s2 4 from 2, each for 10; s3 joins the queue
// at 2.5 asking 4 and runs 1. Preempt keys k: s0 9, s1 0, s2 k2.
func preemptProgram(preempt string, k2 int) string {
	return mainProgram(`
  pool kv { cap 10; ` + preempt + ` }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(4); }
  server {
    set k = serial == 0 ? 9 : serial == 1 ? 0 : ` + strconv.Itoa(k2) + `;
    run gate (cost(gate, serial == 3 ? 2.5 : serial));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) { run svc (cost(svc, 3)); grow kv (cost(kv, 4)); observe grew = now; run svc (cost(svc, 1)); }
    } else {
      hold kv (cost(kv, 4)) { observe admitted = now; observe comp = computed; run svc (cost(svc, serial == 3 ? 1 : 10)); }
    }
  }`)
}

// The victim and where it re-queues (docs/engine.md §3.2). Admission seqs:
// s0 1, s1 2, s2 3. In every case s0 grows at 3 once the victim's 4 are
// free (6 + 4 = 10), and leaves at 4 (used 4).
//
//	lifo: the victim is s2 (admitted last); it re-queues at the head,
//	  ahead of s3: at 4 s2 is admitted (4 + 4), s3 waits (8 + 4 > 10)
//	  until s1 leaves at 11.                    s1 [1]  s2 [2 4]  s3 [11]
//	by (k) requeue tail: the victim is s1 (least k); it re-queues behind
//	  s3: at 4 s3 is admitted (s2's 4 + 4), s1 waits until s3 leaves at 5.
//	                                            s1 [1 5]  s2 [2]  s3 [4]
//	by (k) (requeue head): s1 again, ahead of s3: s1 at 4, s3 when s2
//	  leaves at 12.                             s1 [1 4]  s2 [2]  s3 [12]
//	by (k) with k2 = 0: s1 and s2 tie; the one admitted last (s2) goes, as
//	  under lifo.
//
// The re-executed hold reads `computed` = the victim's position: 0, as
// nothing advanced its allocation of 4 (the reference's #326: a preempted
// hold caches, and comes back with, only what it computed).
func TestPreemptVictimAndRequeuePlace(t *testing.T) {
	cases := []struct {
		name, preempt string
		k2            int
		admitted      map[int64][]float64
		comp          map[int64][]float64
	}{
		{"lifo", "preempt lifo;", 5,
			map[int64][]float64{1: {1}, 2: {2, 4}, 3: {11}},
			map[int64][]float64{1: {0}, 2: {0, 0}, 3: {0}}},
		{"by-k-requeue-tail", "preempt by (k) requeue tail;", 5,
			map[int64][]float64{1: {1, 5}, 2: {2}, 3: {4}},
			map[int64][]float64{1: {0, 0}, 2: {0}, 3: {0}}},
		{"by-k-requeue-head", "preempt by (k) requeue head;", 5,
			map[int64][]float64{1: {1, 4}, 2: {2}, 3: {12}},
			map[int64][]float64{1: {0, 0}, 2: {0}, 3: {0}}},
		{"by-k-default-head", "preempt by (k);", 5,
			map[int64][]float64{1: {1, 4}, 2: {2}, 3: {12}},
			map[int64][]float64{1: {0, 0}, 2: {0}, 3: {0}}},
		{"by-k-tie-last-admitted", "preempt by (k);", 0,
			map[int64][]float64{1: {1}, 2: {2, 4}, 3: {11}},
			map[int64][]float64{1: {0}, 2: {0, 0}, 3: {0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := pdReport(t, preemptProgram(c.preempt, c.k2), 100)
			wantSamples(t, samplesOf(r), "grew", []float64{3}, "s0 grows once the victim's units are free")
			wantBySession(t, r, "admitted", c.admitted, "the victim and its place in the queue")
			wantBySession(t, r, "comp", c.comp, "`computed` is the victim's position on re-execution")
			if p := poolRow(t, r, "kv"); p.Preemptions != 1 {
				t.Errorf("preemptions = %d, want 1", p.Preemptions)
			}
		})
	}
}

// `lifo` is `by (-admission) requeue head` (docs/engine.md §3.2): the
// victim is the holder admitted last. Here two holders also entered a
// nested hold on another pool, so "admitted last" could mean the hold on
// kv or the session's latest admission; the program makes both readings
// agree. s0 holds 2 of kv from 0 (seq 1); s1 4 of kv from 1 (seq 2); s2 4
// of kv from 1.2 (seq 3); s1 enters aux at 1.5 (seq 4), s2 at 1.7 (seq 5).
// At 3 s0 grows by 4 (10 + 4 > 10): s2 is last by its hold on kv (3 > 2)
// and by its latest admission (5 > 4). It re-enters at the head and is
// admitted when s0 leaves at 4 (4 + 4 ≤ 10); s1 is never preempted.
func TestPreemptLifoIsByMinusAdmission(t *testing.T) {
	program := func(preempt string) string {
		return mainProgram(`
  pool kv { cap 10; ` + preempt + ` }
  pool aux { cap 10; }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(3); }
  server {
    run gate (cost(gate, serial == 2 ? 1.2 : serial));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) { run svc (cost(svc, 3)); grow kv (cost(kv, 4)); run svc (cost(svc, 1)); }
    } else {
      hold kv (cost(kv, 4)) {
        observe admitted = now;
        run svc (cost(svc, 0.5));
        hold aux (cost(aux, 1)) { run svc (cost(svc, 10)); }
      }
    }
  }`)
	}
	want := map[int64][]float64{1: {1}, 2: {1.2, 4}}
	for _, p := range []string{"preempt by (-admission) requeue head;", "preempt lifo;"} {
		t.Run(p, func(t *testing.T) {
			r := pdReport(t, program(p), 100)
			wantBySession(t, r, "admitted", want, "the victim is s2, admitted last")
			if p := poolRow(t, r, "kv"); p.Preemptions != 1 {
				t.Errorf("preemptions = %d, want 1", p.Preemptions)
			}
		})
	}
}

// Where the victim re-queues is the preempting pool's `requeue` option,
// even when the victim's hold waits in another pool's queue (its first
// pool's). preemptProgram's scenario, with s1, s2, s3 holding `slots (1),
// kv (4)`: they wait in slots' queue (fifo, no preempt option of its
// own). kv says `preempt by (k) requeue tail`: at 3 the victim s1 joins
// slots' queue behind s3 (waiting since 2.5 for kv): s3 at 4, s1 at 5.
func TestRequeuePlaceIsThePreemptingPools(t *testing.T) {
	src := mainProgram(`
  pool slots { cap 10; }
  pool kv { cap 10; preempt by (k) requeue tail; }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(4); }
  server {
    set k = serial == 0 ? 9 : serial == 1 ? 0 : 5;
    run gate (cost(gate, serial == 3 ? 2.5 : serial));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) { run svc (cost(svc, 3)); grow kv (cost(kv, 4)); observe grew = now; run svc (cost(svc, 1)); }
    } else {
      hold slots (cost(slots, 1)), kv (cost(kv, 4)) { observe admitted = now; run svc (cost(svc, serial == 3 ? 1 : 10)); }
    }
  }`)
	r := pdReport(t, src, 100)
	wantSamples(t, samplesOf(r), "grew", []float64{3}, "s1's 4 are freed at 3")
	wantBySession(t, r, "admitted", map[int64][]float64{1: {1, 5}, 2: {2}, 3: {4}},
		"kv's `requeue tail` puts s1 behind s3 in slots' queue")
}

// With `requeue tail` the victim re-enters as a newcomer, so `queue by`
// keys decide among it and later waiters even when it is at the front
// (only a hold resumed at the head goes first: docs/engine.md §3.2).
// A pool of 10, `queue by (k)`, `preempt by (-admission) requeue tail`:
// s0 holds 2 from 0 and grows by 4 at 3, ending at 4; s1 and s2 hold 4
// from 1 and 2 for 10. At 3 the victim is s2 (admitted last); it joins
// the empty queue. s3 joins at 3.5 with a smaller key (0 < 1). At 4 (used
// 4) s3 is selected and admitted (8); s2 (8 + 4 > 10) waits for s1's end
// at 11.
func TestRequeueTailIsANewcomerUnderQueueBy(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 10; queue by (k); preempt by (-admission) requeue tail; }
  stage gate : delay;
  stage svc : delay;
  workload { arrive batch(4); }
  server {
    set k = serial == 3 ? 0 : 1;
    run gate (cost(gate, serial == 3 ? 3.5 : serial));
    branch (serial == 0) {
      hold kv (cost(kv, 2)) { run svc (cost(svc, 3)); grow kv (cost(kv, 4)); run svc (cost(svc, 1)); }
    } else {
      hold kv (cost(kv, 4)) { observe admitted = now; run svc (cost(svc, 10)); }
    }
  }`)
	wantBySession(t, pdReport(t, src, 100), "admitted",
		map[int64][]float64{1: {1}, 2: {2, 11}, 3: {4}},
		"s3's smaller key wins over the re-queued s2")
}

// -------------------------------------------------------------- granule

// granuleEngine is an engine E on gpu with a request pool reqs (16), the
// given tokens cap, items and schedule, and `execute (exec)`.
func granuleEngine(tokens, items, schedule, exec string) string {
	return `
  device gpu { }
  engine E on gpu {
    reqs cap 16;
    tokens cap ` + tokens + `;
    ` + items + `
    schedule { ` + schedule + ` }
    execute (` + exec + `);
  }
  pool reqs on E { }
  stage gate : delay;`
}

const vllmSchedule = `advance running; admit waiting while (running.preempted == 0);`

// `granule 4`: a prefill gets all it has left or a multiple of 4
// (docs/engine.md §4), also when the budget cuts it. Budget 10; s0
// prefills 7, s1 13, both admitted at 0.
//
//	[0,1] s0 7 (all it has); s1: min(13, 3 left) = 3 → 0     7 tokens
//	[1,2] s1 min(13, 10) = 10 → 8 (5 left)                   8
//	[2,3] s1 5 (all it has)                                  5
//
// First tokens: s0 1, s1 3. Without a granule s1 takes 3 then 10: 2.
func TestGranuleRoundsABudgetCutChunk(t *testing.T) {
	program := func(items string) string {
		return mainProgram(granuleEngine("10", items, vllmSchedule, "1") + `
  workload { arrive batch(2); }
  server {
    hold reqs (cost(reqs, 1)) { run E prefill (cost(E, serial == 0 ? 7 : 13)); observe first = now; }
  }`)
	}
	r := pdReport(t, program("granule 4;"), 100)
	wantBySession(t, r, "first", map[int64][]float64{0: {1}, 1: {3}}, "s1's chunks are 0, 8, 5")
	if got := r.Stages[0].Iterations; got != 3 {
		t.Errorf("E ran %d iterations, want 3", got)
	}
	wantBySession(t, pdReport(t, program(""), 100), "first", map[int64][]float64{0: {1}, 1: {2}}, "without a granule s1 takes 3, then 10")
}

// `granule 4` under `each at most (6)`: a chunk cut by the per-run cap is
// a multiple of 4. Budget 100; s0 prefills 15: min(15, 6) = 6 → 4 at
// [0,1] (11 left), [1,2] (7 left), and min(7, 6) = 6 → 4 at [2,3] (3
// left); 3 (all it has) at [3,4]. First token 4; without the granule 6,
// 6, 3: 3.
func TestGranuleRoundsACapCutChunk(t *testing.T) {
	program := func(items string) string {
		return mainProgram(granuleEngine("100", items,
			`advance running each at most (6); admit waiting while (running.preempted == 0) each at most (6);`, "1") + `
  workload { arrive batch(1); }
  server { hold reqs (cost(reqs, 1)) { run E prefill (cost(E, 15)); observe first = now; } }`)
	}
	wantSamples(t, observations(t, program("granule 4;"), 100), "first", []float64{4}, "chunks 4, 4, 4, 3")
	wantSamples(t, observations(t, program(""), 100), "first", []float64{3}, "chunks 6, 6, 3")
}

// `granule inf`: a whole prefill or nothing. Budget 10, `execute (1 +
// batch.tokens)`; s0 prefills 7 and s1 5, both admitted at 0.
//
//	[0,8]   s0 7; s1 would get 3 of 5: nothing        7 tokens, lasts 1 + 7
//	[8,14]  s1 5                                      5 tokens, lasts 1 + 5
//
// First tokens: s0 8, s1 14 (a partial 3 for s1 would make the first
// iteration [0, 11]).
func TestGranuleInfIsAWholePrefillOrNothing(t *testing.T) {
	src := mainProgram(granuleEngine("10", "granule inf;", vllmSchedule, "1 + batch.tokens") + `
  workload { arrive batch(2); }
  server {
    hold reqs (cost(reqs, 1)) { run E prefill (cost(E, serial == 0 ? 7 : 5)); observe first = now; }
  }`)
	wantBySession(t, pdReport(t, src, 100), "first", map[int64][]float64{0: {8}, 1: {14}}, "s1 gets nothing rather than 3")
}

// A chunk the granule rounds to 0 passes the prefill over and forbids any
// later admission in that iteration (docs/engine.md §4). `granule 4`,
// `each at most (running.count > 1 ? 2 : 8)` (a `?:` of constants; the
// cap is read as the iteration starts). s0 decodes 4 tokens from 0; s1
// joins at 0.5 and prefills 13; s2 joins at 1.5 and prefills 2.
//
//	[0,1] (cap 8) s0 decode
//	[1,2] (cap 8) s0 decode; admit s1: min(13, 8) = 8 → 8 (5 left)
//	[2,3] (cap 2) s0 decode; s1 min(5, 2) = 2 < 5 → 0: passed over, and s2
//	      (whose 2 would be its whole prefill) is not admitted
//	[3,4] (cap 2) s0 decode (done at 4); s1 passed over again; s2 waits
//	[4,5] (cap 8) s1 5 (done); admit s2: 2 (done)
//
// s2 is admitted at 4 and both first tokens are at 5.
func TestGranuleZeroChunkForbidsLaterAdmissions(t *testing.T) {
	src := mainProgram(granuleEngine("100", "granule 4;",
		`advance running each at most (running.count > 1 ? 2 : 8); admit waiting while (running.preempted == 0) each at most (running.count > 1 ? 2 : 8);`, "1") + `
  workload { arrive batch(3); }
  server {
    run gate (cost(gate, serial == 0 ? 0 : serial - 0.5));
    hold reqs (cost(reqs, 1)) {
      observe admitted = now;
      branch (serial == 0) { run E decode (cost(E, 4)); observe last = now; }
      else { run E prefill (cost(E, serial == 1 ? 13 : 2)); observe first = now; }
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "admitted", map[int64][]float64{0: {0}, 1: {1}, 2: {4}}, "s2 is not admitted while s1 is passed over")
	wantBySession(t, r, "first", map[int64][]float64{1: {5}, 2: {5}}, "s1's 5 and s2's 2 at [4,5]")
	wantBySession(t, r, "last", map[int64][]float64{0: {4}}, "s0 decodes one token per iteration")
}

// `granule g` may not exceed a constant per-run cap, nor the k of
// `max(k, e)` (docs/engine.md §4.1): with g 8 and a cap of 4 every chunk
// would round to 0 and a long prefill would never run. A granule within
// the cap, or with a `?:` cap (not a constant), links.
func TestGranuleMayNotExceedAConstantCap(t *testing.T) {
	program := func(granule, capExpr string) string {
		return mainProgram(granuleEngine("100", granule,
			`advance running each at most (`+capExpr+`); admit waiting while (running.preempted == 0) each at most (`+capExpr+`);`, "1") + `
  workload { arrive batch(1); }
  server { hold reqs (cost(reqs, 1)) { run E prefill (cost(E, 13)); } }`)
	}
	cases := []struct {
		name, granule, capExpr, want string
	}{
		{"above-constant-cap", "granule 8;", "4", "granule"},
		{"above-max-k", "granule 8;", "max(4, running.count)", "granule"},
		{"inf-above-constant-cap", "granule inf;", "4", "granule"},
		{"within-cap-links", "granule 4;", "4", ""},
		{"conditional-cap-links", "granule 4;", "running.count > 1 ? 2 : 8", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := linkError(t, program(c.granule, c.capExpr))
			switch {
			case c.want == "" && msg != "":
				t.Errorf("does not link, want it to:\n%s", msg)
			case c.want != "" && msg == "":
				t.Errorf("links, want an error containing %q", c.want)
			case c.want != "" && !strings.Contains(msg, c.want):
				t.Errorf("error does not contain %q:\n%s", c.want, msg)
			}
		})
	}
}

// `budget_left(E)` in the header of a hold whose first pool E admits is
// the iteration's remaining budget. Budget 10, `each at most (4)`; s0, s1,
// s2 each prefill 6, all admitted at 0. Each header asks a plain pool
// `probe` for budget_left(E) units; the body reads it back (used(probe))
// and releases it before reaching E.
//
//	admit s0: header 10; s0 prefills min(6, 4) = 4 → left 6
//	admit s1: header 6;  4 → left 2
//	admit s2: header 2;  min(4, 2) = 2 → left 0
//
// Outside a header, budget_left(E) plans the next iteration: B − Σ want
// over the residents as they stand. At the server's start (t = 0, before
// any iteration) nobody is resident: 10 for all three.
func TestBudgetLeftInAHeaderIsTheIterationsRemainder(t *testing.T) {
	src := mainProgram(granuleEngine("10", "",
		`advance running each at most (4); admit waiting while (running.preempted == 0) each at most (4);`, "1") + `
  pool probe { cap 100; }
  workload { arrive batch(3); }
  server {
    observe plan = budget_left(E);
    hold reqs (cost(reqs, 1)), probe (cost(probe, budget_left(E))) {
      observe header = used(probe);
      release probe;
      run E prefill (cost(E, 6));
      observe first = now;
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "header", map[int64][]float64{0: {10}, 1: {6}, 2: {2}}, "each newcomer sees what the earlier ones left")
	wantBySession(t, r, "plan", map[int64][]float64{0: {10}, 1: {10}, 2: {10}}, "no resident yet: the whole budget")
	// [0,1] s0 4, s1 4, s2 2; [1,2] s0 2 (done), s1 2 (done), s2 4 (done).
	wantBySession(t, r, "first", map[int64][]float64{0: {2}, 1: {2}, 2: {2}}, "4 + 4 + 2, then 2 + 2 + 4")
}

// ------------------------------------------------- schedule bodies

// registerEngine: E admits reqs (8) with the schedule body
//
//	set turn = 1 - turn; branch (turn == 1) { admit waiting; } advance running;
//
// (not one of the two standard shapes, so a body): admissions happen every
// other attempt, the register flipping at each.
func registerEngine() string {
	return `
  device gpu { }
  engine E on gpu {
    reqs cap 8;
    tokens cap 100;
    state turn = 0;
    schedule { set turn = 1 - turn; branch (turn == 1) { admit waiting; } advance running; }
    execute (1);
  }
  pool reqs on E { }
  stage gate : delay;`
}

// A register set at each iteration steers admissions, and its set is
// undone when the attempt schedules nothing (docs/engine.md §4). s0
// holds the plain pool kv (10) over [0, 2.5] away from E. s1 waits in
// reqs from 0.5 asking kv 10 too; s2 joins at 3, s3 at 4.7 (kv 0 each).
//
//	0.5  attempt: turn 0 → 1, admit: s1 does not fit kv; nothing
//	     scheduled → undone: turn 0
//	2.5  (kv free) turn 0 → 1: admit s1 (decodes 8: [2.5, 10.5])
//	3.5  turn 1 → 0: no admission (s2 waits)
//	4.5  turn 0 → 1: admit s2
//	5.5  turn 1 → 0 (s3 waits since 4.7)
//	6.5  turn 0 → 1: admit s3
//
// Had the set at 0.5 stood, the attempt at 2.5 would flip turn to 0 and
// admit nobody, and with nothing else to wake E, s1 would wait for ever.
func TestScheduleRegisterSteersAdmissionsAndIsUndone(t *testing.T) {
	src := mainProgram(registerEngine() + `
  pool kv { cap 10; }
  workload { arrive batch(4); }
  server {
    branch (serial == 0) {
      hold kv (cost(kv, 10)) { run gate (cost(gate, 2.5)); }
    } else {
      run gate (cost(gate, serial == 1 ? 0.5 : serial == 2 ? 3 : 4.7));
      hold reqs (cost(reqs, 1)), kv (cost(kv, serial == 1 ? 10 : 0)) {
        observe admitted = now;
        run E decode (cost(E, serial == 1 ? 8 : 1));
        observe last = now;
      }
    }
  }`)
	r := pdReport(t, src, 100)
	wantBySession(t, r, "admitted", map[int64][]float64{1: {2.5}, 2: {4.5}, 3: {6.5}}, "admissions at every other attempt")
	wantBySession(t, r, "last", map[int64][]float64{1: {10.5}, 2: {5.5}, 3: {7.5}}, "one decode token per iteration")
}

// An attempt that admits somebody keeps its register sets even if it
// schedules no token: "undone if the attempt schedules no token, preempts
// nobody and admits nobody" (docs/engine.md §4). s0 is admitted at 0 and
// goes to `gate` for 2 before decoding 1; s1 joins at 1 and decodes 1.
//
//	0  turn 0 → 1: admit s0 (no token: it runs gate); kept: turn 1
//	1  turn 1 → 0: no admission; nothing, nobody admitted → undone: turn 1
//	2  (s0 resident) turn 1 → 0: no admission; s0 decodes [2,3]
//	3  turn 0 → 1: admit s1; [3,4]
//
// s1 is admitted at 3. (Undoing the set at 0 as well would admit s1 at 1.)
func TestScheduleRegisterKeptWhenTheAttemptAdmits(t *testing.T) {
	src := mainProgram(registerEngine() + `
  workload { arrive batch(2); }
  server {
    run gate (cost(gate, serial));
    hold reqs (cost(reqs, 1)) {
      observe admitted = now;
      branch (serial == 0) { run gate (cost(gate, 2)); }
      run E decode (cost(E, 1));
    }
  }`)
	wantBySession(t, pdReport(t, src, 100), "admitted", map[int64][]float64{0: {0}, 1: {3}}, "the attempt at 0 admitted s0: its set stands")
}

// ------------------------------------------------------------- workload

// `closed(2)`: two sessions at 0, a new one whenever one ends. Session i
// serves i + 1: s0 [0,1], s1 [0,2], s2 [1,4], s3 [2,6], s4 [4,9], s5
// [6,12], s6 [9,16]. To horizon 10: 7 arrivals, 5 ended, always 2 live.
func TestClosedWorkloadReplacesEachEndedSession(t *testing.T) {
	src := mainProgram(`
  stage svc : delay;
  workload { arrive closed(2); }
  server { observe start = now; run svc (cost(svc, serial + 1)); }`)
	r := pdReport(t, src, 10)
	wantSamples(t, samplesOf(r), "start", []float64{0, 0, 1, 2, 4, 6, 9}, "a new session whenever one ends")
	if r.Arrivals != 7 || r.Ended != 5 {
		t.Errorf("arrivals %d ended %d, want 7 and 5", r.Arrivals, r.Ended)
	}
	if d := r.MeanLive - 2; d > 1e-9 || d < -1e-9 {
		t.Errorf("mean_live = %v, want 2", r.MeanLive)
	}
}

// `renewal(gap)`: the first arrival comes after one gap (unlike poisson's
// at 0): 2.5, 5, 7.5 to horizon 9.
func TestRenewalFirstArrivalAfterOneGap(t *testing.T) {
	src := mainProgram(`
  workload { arrive renewal(2.5); }
  server { observe at = now; }`)
	r := pdReport(t, src, 9)
	wantSamples(t, samplesOf(r), "at", []float64{2.5, 5, 7.5}, "arrivals at k · 2.5, k ≥ 1")
	if r.Arrivals != 3 {
		t.Errorf("arrivals = %d, want 3", r.Arrivals)
	}
}

// A finite run (`--arrivals N`): exactly N arrivals, then drain; the
// report's `end` is when the last session ends; the horizon is a deadline
// (docs/language.md §5, docs/cli.md §2). renewal(2) with each session
// serving 5: arrivals at 2, 4, 6, …; with N = 3 the sessions end at 7, 9,
// 11.
func TestFiniteRunEndsWhenTheLastSessionEnds(t *testing.T) {
	const src = `fn main() {
  stage svc : delay;
  workload { arrive renewal(2); }
  server { observe at = now; run svc (cost(svc, 5)); }
}
`
	r, err := optRun(t, src, interp.Options{Horizon: 100, Seed: 1, Arrivals: 3})
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	if r.End != 11 || r.Horizon != 100 {
		t.Errorf("end %v horizon %v, want 11 and 100", r.End, r.Horizon)
	}
	if r.Arrivals != 3 || r.Ended != 3 {
		t.Errorf("arrivals %d ended %d, want 3 and 3", r.Arrivals, r.Ended)
	}
	wantSamples(t, samplesOf(r), "at", []float64{2, 4, 6}, "three arrivals, no more")

	// poisson: one arrival at 0; with N = 1 the run ends with it at 5.
	poisson := strings.Replace(src, "renewal(2)", "poisson(1)", 1)
	r, err = optRun(t, poisson, interp.Options{Horizon: 100, Seed: 1, Arrivals: 1})
	if err != nil {
		t.Fatalf("the poisson run failed: %v", err)
	}
	if r.End != 5 || r.Arrivals != 1 {
		t.Errorf("poisson: end %v arrivals %d, want 5 and 1", r.End, r.Arrivals)
	}

	errorCases := []struct {
		name string
		opt  interp.Options
		want string
	}{
		// The third session ends at 11, after the deadline 10.
		{"live-at-horizon", interp.Options{Horizon: 10, Seed: 1, Arrivals: 3}, "the horizon 10 passed with 1 session(s) still live"},
		// Arrivals at 2, 4, 6, 8, 10 (at the horizon still counts): 5 of 6.
		{"too-few-arrivals", interp.Options{Horizon: 10, Seed: 1, Arrivals: 6}, "the horizon 10 passed with 5 of 6 arrivals"},
		// Drained at 11, before the warm-up's end at 20.
		{"drained-in-warmup", interp.Options{Horizon: 100, Warmup: 20, Seed: 1, Arrivals: 3}, "the run drained at t=11, at or before the warm-up 20"},
	}
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := optRun(t, src, c.opt)
			if err == nil {
				t.Fatalf("the run succeeded; want an error containing %q", c.want)
			}
			var re *interp.RunError
			if !errors.As(err, &re) {
				t.Errorf("the error is a %T, want *interp.RunError: %v", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}

	// --arrivals needs an open workload.
	closed := strings.Replace(src, "renewal(2)", "closed(1)", 1)
	if _, err := interp.New(pdLoad(t, closed), interp.Options{Horizon: 100, Seed: 1, Arrivals: 3}); err == nil ||
		!strings.Contains(err.Error(), "needs an open workload") {
		t.Errorf("closed workload with Arrivals: error %v, want one saying it needs an open workload", err)
	}
}
