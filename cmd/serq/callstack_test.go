package main

import (
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// TestRunErrorCallStack checks that a run error in an inlined entry says
// the serQ calls it went through, innermost first, under its quoted line.
func TestRunErrorCallStack(t *testing.T) {
	p := writeProgram(t, "stack.sq", testutil.CallStackProgram)
	code, stdout, stderr := serq(t, "run", p, "--horizon", "10")
	want := p + ":5:19: at t=0: session 0: the units of `kv` are -2: an amount must be at least 0\n" +
		" |     prefill (n) { hold kv (cost(kv, n - 5)) { run (cost(P, 1)); } }\n" +
		" |                   ^\n" +
		"note: in `P.prefill`, called at " + p + ":9:17\n" +
		"note: in `gw.route`, called at " + p + ":12:12\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", code, stdout, stderr, want)
	}
}
