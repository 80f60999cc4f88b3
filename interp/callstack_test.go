package interp_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
)

// TestRunErrorCalls checks a run error's serQ call stack: the entry the
// failing statement is in and the gateway's entry that called it,
// innermost first, on the fast path and the reference path alike; a run
// error outside any call has none.
func TestRunErrorCalls(t *testing.T) {
	// the program, then a hold outside any call that fails too
	src := strings.Replace(testutil.CallStackProgram, "gw.route (n); }", "gw.route (n); hold kv (cost(kv, n - 9)) { } }", 1)
	for _, c := range []struct {
		src, calls string
	}{
		{src, "[{P.prefill s.sq:9:17 1} {gw.route s.sq:12:12 0}]"},
		{strings.Replace(src, "gw.route (n);", "", 1), "[]"},
	} {
		for _, slow := range []bool{false, true} {
			s, err := interp.New(loadInline(t, "s.sq", c.src), interp.Options{Horizon: 10, Seed: 1, NoFastPath: slow})
			if err != nil {
				t.Fatal(err)
			}
			s.RunUntil(10)
			var re *interp.RunError
			if !errors.As(s.Err(), &re) {
				t.Fatalf("the run ends with %v, want a RunError", s.Err())
			}
			if got := fmt.Sprint(re.Calls); got != c.calls {
				t.Errorf("NoFastPath %v: calls %s, want %s (%v)", slow, got, c.calls, re)
			}
		}
	}
}
