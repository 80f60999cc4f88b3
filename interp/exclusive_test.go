package interp_test

import (
	"fmt"
	"reflect"
	"testing"
)

// TestEngineExclusivePrefill: step clock, budget 10. s0 (prompt 15) is
// admitted at 0 and prefills 10 in [0,1], then runs alone for its last 5
// in [1,2] although s1 (prompt 5) waits since 0.5. At 2 s0's first decode
// is chosen tentatively, s1 fits and displaces it: s1 prefills in [2,3].
// Both then decode 3 tokens together in [3,6].
func TestEngineExclusivePrefill(t *testing.T) {
	got := twoRequests(t, 10, "exclusive prefill; admit waiting while (running.preempted == 0);", 15, 5)
	if want := []float64{2, 3}; !reflect.DeepEqual(got["first"], want) {
		t.Errorf("first = %v, want %v", got["first"], want)
	}
	if want := []float64{6, 6}; !reflect.DeepEqual(got["last"], want) {
		t.Errorf("last = %v, want %v", got["last"], want)
	}
}

// twoRequests runs two requests on an engine of the given budget and
// schedule, on the step clock: s0 arrives at 0 with a prompt of p0, s1 at
// 0.5 with p1; each then decodes 3 tokens. It returns each request's
// first-token (end of prefill) and last-token times, by session.
func twoRequests(t *testing.T, budget int, schedule string, p0, p1 int) map[string][]float64 {
	t.Helper()
	src := mainProgram(fmt.Sprintf(`
  device gpu { kv cap 1000; }
  engine E on gpu {
    tokens cap %d;
    schedule { %s }
    execute (1);
  }
  pool kv on E.gpu { }
  stage gate : delay;
  workload { arrive batch(2); }
  server {
    run gate (cost(gate, serial * 0.5));
    set p = serial == 0 ? %d : %d;
    hold kv (cost(kv, p + 3)) {
      run E prefill (cost(E, p));
      observe first = now;
      run E decode (cost(E, 3));
      observe last = now;
    }
  }`, budget, schedule, p0, p1))
	return observations(t, src, 100)
}
