package interp_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// spillBlocks: a block pool spills block by block into a bounded tier
// that makes room by lru and keeps what fits. s0 caches 30 (t=2); s1's 30
// at t=2 evicts two of s0's blocks (two spills: s0 has 20 in the tier);
// s2's 30 at t=3 evicts s0's last block (s0's tier entry would be 30, the
// tier holds 20) and two of s1's (s1's first block evicts a block of s0's
// entry, its second the rest of it).
const spillBlocks = `
  pool kv { cap 40; block 10; evict lru; spill tier via link (size / 10) when (1); }
  pool tier { cap 20; block 10; evict lru; }
  stage svc : fifo;
  stage link : fifo;
  stage gate : delay;
  workload { arrive batch(3); }
  server {
    run gate (cost(gate, 1 + serial));
    hold kv (cost(kv, 30)) { run svc (cost(svc, 1)); } cache (cost(kv, 30));
    run gate (cost(gate, 10 - serial));
    observe in_kv = cachedin(kv);
    observe in_tier = cachedin(tier);
  }`

func TestSpillBlocksIntoABoundedTier(t *testing.T) {
	r := pdReport(t, mainProgram(spillBlocks), 100)
	got := samplesOf(r)
	if !reflect.DeepEqual(got["in_kv"], []float64{0, 10, 30}) || !reflect.DeepEqual(got["in_tier"], []float64{0, 20, 0}) {
		t.Errorf("in_kv %v in_tier %v, want [0 10 30] and [0 20 0]", got["in_kv"], got["in_tier"])
	}
	kv, tier := poolRow(t, r, "kv"), poolRow(t, r, "tier")
	if kv.Spills != 5 || kv.EvictedUnits != 50 || kv.EvictedEntries != 1 {
		t.Errorf("kv spills %d evicted %g units %d entries, want 5, 50, 1", kv.Spills, kv.EvictedUnits, kv.EvictedEntries)
	}
	if tier.Spills != 0 || tier.EvictedUnits != 20 || tier.EvictedEntries != 1 || tier.MeanCached != 19.6 {
		t.Errorf("tier spills %d evicted %g units %d entries, mean cached %g; want 0, 20, 1, 19.6", tier.Spills, tier.EvictedUnits, tier.EvictedEntries, tier.MeanCached)
	}
	for _, s := range r.Stages {
		// five transfers of one block each (work 1) on the fifo link
		if s.Name == "link" && (s.Completed != 5 || s.MeanService != 1) {
			t.Errorf("link completed %d, mean service %g; want 5 and 1", s.Completed, s.MeanService)
		}
	}
}

// TestSpillWithoutBlocksMovesWholeEntries: without a block, a pool that
// spills evicts whole entries (what moves to the tier is the entry): s1's
// 25 at t=1 needs 15 of s0's 20, and all 20 go. An entry whose session
// has ended spills too, into an entry of its own (s1's, at s2's hold).
func TestSpillWithoutBlocksMovesWholeEntries(t *testing.T) {
	r := pdReport(t, mainProgram(`
  pool kv { cap 30; spill tier via link (0) when (1); }
  pool tier { cap inf; }
  stage svc : fifo;
  stage gate : delay;
  stage link : delay;
  workload { arrive batch(3); init { set c = serial == 0 ? 20 : 25; } }
  server {
    run gate (cost(gate, serial * 3));
    hold kv (cost(kv, c)) { run svc (cost(svc, 1)); } cache (cost(kv, c));
    observe tier_now = used(tier) + cachedin(tier);
  }`), 100)
	if got := samplesOf(r)["tier_now"]; !reflect.DeepEqual(got, []float64{0, 0, 0}) {
		t.Errorf("tier_now %v, want [0 0 0] (no session's own entry is in the tier while it holds)", got)
	}
	kv, tier := poolRow(t, r, "kv"), poolRow(t, r, "tier")
	if kv.Spills != 2 || kv.EvictedUnits != 45 || kv.EvictedEntries != 2 {
		t.Errorf("kv spills %d, evicted %g units %d entries; want 2, 45, 2", kv.Spills, kv.EvictedUnits, kv.EvictedEntries)
	}
	// tier: 20 from t=3 (s0), 45 from t=6 (s1's 25 too), to 100
	if want := (20*3 + 45*94) / 100.0; tier.MeanCached != want {
		t.Errorf("tier mean cached %g, want %g", tier.MeanCached, want)
	}
	for _, s := range r.Stages {
		if s.Name == "link" && s.Completed != 0 {
			t.Errorf("link completed %d: a spill of work 0 runs no job", s.Completed)
		}
	}
}

// TestSpillErrors: a `when` that is not 0 or 1, and a negative work, stop
// the run at the pool.
func TestSpillErrors(t *testing.T) {
	for _, tt := range []struct{ work, when, want string }{
		{"1", "size", "test.sq:4:21: at t=1: the `when` of pool `kv`'s spill is 20, not 0 or 1"},
		{"-size", "1", "test.sq:4:21: at t=1: the work of pool `kv`'s spill is -20: it must be finite and at least 0"},
	} {
		_, err := pdSimulate(t, mainProgram(`
  stage link : fifo;
  pool kv { cap 30; spill tier via link (`+tt.work+`) when (`+tt.when+`); }
  pool tier { cap inf; }
  stage svc : fifo;
  workload { arrive batch(2); init { set c = serial == 0 ? 20 : 25; } }
  server { hold kv (cost(kv, c)) { run svc (cost(svc, 1)); } cache (cost(kv, c)); }`), 100)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("work %s when %s: error %v, want %s", tt.work, tt.when, err, tt.want)
		}
	}
}

// TestSpillCheckpoint: a checkpoint taken while spill jobs are in flight
// resumes to the same report.
func TestSpillCheckpoint(t *testing.T) {
	p := pdLoad(t, mainProgram(spillBlocks))
	opt := interp.Options{Horizon: 100, Seed: 1}
	straight, _ := interp.New(p, opt)
	want := runToEnd(t, straight)
	for at := uint64(0); at < straight.Events(); at++ {
		s, _ := interp.New(p, opt)
		for s.Events() < at && s.Step() {
		}
		cp := s.Checkpoint()
		if got := runToEnd(t, cp.Resume()); !bytes.Equal(got, want) {
			t.Fatalf("the checkpoint at event %d resumes to another report", at)
		}
	}
}
