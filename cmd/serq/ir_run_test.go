package main

import (
	"strings"
	"testing"
)

// TestIRRecordsRunSettings: `serq ir` records the run settings it is given
// (the reference's execution_settings.rs), a run of that IR uses them,
// and a flag given to the run still wins.
func TestIRRecordsRunSettings(t *testing.T) {
	f := writeProgram(t, "m.sq", "fn main() { pool slots { cap 2; } stage svc : fifo; workload { arrive batch(4); session { set t0 = now; turn; observe latency = now - t0; } } server { hold slots (cost(slots, 1)) { run svc (cost(svc, 2)); } } gauge occupied = used(slots); }\n")
	ir := irOf(t, f, "--horizon", "10", "--seed", "7")
	code, fromIR, errs := serq(t, "run", ir, "--json")
	if code != 0 || errs != "" {
		t.Fatalf("serq run %s = %d, stderr %q", ir, code, errs)
	}
	_, fromSource, _ := serq(t, "run", f, "--horizon", "10", "--seed", "7", "--json")
	if fromIR != fromSource {
		t.Errorf("a run of the IR with its recorded settings:\n%s\nwant the source's:\n%s", fromIR, fromSource)
	}
	// four jobs of 2 s on one server: 2, 4, 6, 8; the pool holds 2, 2, 2,
	// 1 over [0, 8): a mean of 1.4 over the horizon of 10
	for _, want := range []string{`"horizon":10,"end":10,"warmup":0,"seed":7,`, `"occupied":{"mean":1.4,`} {
		if !strings.Contains(fromIR, want) {
			t.Errorf("the report lacks %s:\n%s", want, fromIR)
		}
	}
	code, out, _ := serq(t, "run", ir, "--seed", "8", "--json")
	if code != 0 || !strings.Contains(out, `"seed":8,`) {
		t.Errorf("serq run %s --seed 8 = %d, %s: the flag should win over the IR", ir, code, out)
	}
	// settings without a horizon, or a warm-up past it, are refused
	for _, args := range [][]string{{"--seed", "3"}, {"--horizon", "5", "--warmup", "5"}} {
		code, out, errs := serq(t, append([]string{"ir", f}, args...)...)
		if code != 1 || out != "" || errs == "" {
			t.Errorf("serq ir %v = %d, stdout %q, stderr %q; want exit 1 and an error", args, code, out, errs)
		}
	}
	// an IR without settings still needs the run's horizon
	bare := irOf(t, f)
	if code, _, errs := serq(t, "run", bare); code != 1 || !strings.Contains(errs, "no horizon") {
		t.Errorf("serq run %s = %d, %q; want no horizon", bare, code, errs)
	}
}
