package interp_test

import (
	"testing"

	"github.com/serq/serq/interp"
)

// TestClaims: three requests (prompts 5, 8, 11, two decode tokens each) on
// an engine of budget 8, step clock. Every iteration takes min(8, demand)
// (8, 8, 8, 4, 1, 1: six iterations); the batch is full at 0, and not at
// the last three; session 1 (n = 8) breaks `given (n < 6)`; the
// observation aggregates are over all samples: prefix_total(5, 8, 11) =
// 5 + 13 + 24.
func TestClaims(t *testing.T) {
	src := mainProgram(`
  device gpu { kv cap 100000; }
  engine E on gpu {
    tokens cap 8;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool kv on E.gpu { }
  workload { arrive batch(3); init { set n = 5 + 3 * serial; } }
  server {
    hold kv (cost(kv, n + 2)) {
      run E prefill (cost(E, n));
      run E decode (cost(E, 2));
    }
    observe vol = n;
  }
  claim work_conserving : every iteration of E (batch.tokens == min(8, demand));
  claim ever_full : some iteration of E (batch.tokens == 8);
  claim never_nine : some iteration of E (batch.tokens == 9);
  claim served_grows : every iteration of E (served < 24 + 6);
  claim tiny given (n < 6) : at end (count(vol) == 3);
  claim order : at end (prefix_total(vol) == 5 + 13 + 24 && total(vol) == 24 && largest(vol) == 11 && smallest(vol) == 5);
  claim wrong : at end (count(vol) == 2);
  claim responses : at end (count(response) == 3 && largest(response) == 6);`)
	r := pdReport(t, src, 100)
	type want struct {
		kind              interp.ClaimKind
		result            interp.ClaimResult
		checked, failures uint64
		first             float64 // -1: none
		note              string
	}
	wants := map[string]want{
		"work_conserving": {interp.ClaimEveryIteration, interp.ClaimHolds, 6, 0, -1, ""},
		"ever_full":       {interp.ClaimSomeIteration, interp.ClaimWitnessed, 6, 3, 0, ""},
		"never_nine":      {interp.ClaimSomeIteration, interp.ClaimNotWitnessed, 6, 6, -1, ""},
		"served_grows":    {interp.ClaimEveryIteration, interp.ClaimHolds, 6, 0, -1, ""},
		"tiny":            {interp.ClaimAtEnd, interp.ClaimOutOfScope, 1, 0, -1, "session 1 fails `given`"},
		"order":           {interp.ClaimAtEnd, interp.ClaimHolds, 1, 0, -1, ""},
		"wrong":           {interp.ClaimAtEnd, interp.ClaimFails, 1, 1, 100, ""},
		"responses":       {interp.ClaimAtEnd, interp.ClaimHolds, 1, 0, -1, ""},
	}
	if len(r.Claims) != len(wants) {
		t.Fatalf("%d claims, want %d", len(r.Claims), len(wants))
	}
	for _, c := range r.Claims {
		w := wants[c.Name]
		first := -1.0
		if c.First != nil {
			first = *c.First
		}
		note := ""
		if c.Note != nil {
			note = *c.Note
		}
		if c.Kind != w.kind || c.Result != w.result || c.Checked != w.checked || c.Failures != w.failures || first != w.first || note != w.note {
			t.Errorf("claim %s = %v %v checked %d failures %d first %v note %q; want %+v", c.Name, c.Kind, c.Result, c.Checked, c.Failures, first, note, w)
		}
	}
}
