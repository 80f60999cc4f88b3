package interp_test

import (
	"testing"

	"github.com/serq/serq/interp"
)

// TestHoldHeaderReadOnceAndOverCap: a hold's header is read once, before
// any of its pools is allocated, so s0 takes 5 of b (used(a) was 0), not
// 25. s1, at t=1, asks b for 5 + 20·1 = 25 > cap 10: its demand reads the
// state, so it is not rejected; it waits, and the report says so on b's
// row, naming a, the pool whose queue it waits in.
func TestHoldHeaderReadOnceAndOverCap(t *testing.T) {
	src := mainProgram(`
  pool a { cap 100; }
  pool b { cap 10; }
  stage svc : delay;
  workload { arrive batch(2); }
  server {
    run svc (cost(svc, serial));
    hold a (cost(a, 1)), b (cost(b, 5 + 20 * used(a))) { observe got_b = used(b); run svc (cost(svc, 100)); }
  }`)
	r := pdReport(t, src, 10)
	if got := samplesOf(r)["got_b"]; len(got) != 1 || got[0] != 5 {
		t.Errorf("got_b = %v, want [5]", got)
	}
	var a, b *interp.PoolRow
	for i := range r.Pools {
		switch r.Pools[i].Name {
		case "a":
			a = &r.Pools[i]
		case "b":
			b = &r.Pools[i]
		}
	}
	if a.OverCap != nil || b.OverCap == nil || *b.OverCap != (interp.OverCap{Queue: "a", Need: 25}) {
		t.Errorf("over_cap a %v b %v, want nil and {a 25}", a.OverCap, b.OverCap)
	}
	if a.Rejected != 0 || b.Rejected != 0 {
		t.Errorf("rejected %d, %d: a state-dependent demand waits", a.Rejected, b.Rejected)
	}
}
