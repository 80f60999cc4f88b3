package main

import "testing"

// TestJSONDeterminism: the same program, seed and arguments give
// byte-identical `serq run --json` output (issue 3), and another seed
// does not. The interp package's TestDeterminism compares whole reports,
// samples included; this one is the CLI's own bytes.
func TestJSONDeterminism(t *testing.T) {
	cases := [][]string{
		{"../../examples/single-turn/mg1.sq", "--horizon", "20000", "--warmup", "2000", "--", "--law", "3", "--cv2", "9"},
		{"../../examples/multi-turn/closed.sq", "--horizon", "5000", "--warmup", "500", "--set", "N=4"},
		{"../../examples/pd-disaggregation/llmd_nixl_pull.sq", "--horizon", "40", "--warmup", "4", "--", "--thr", "1"},
	}
	for _, c := range cases {
		t.Run(c[0], func(t *testing.T) {
			args := append([]string{"run", c[0], "--json", "--seed", "5"}, c[1:]...)
			code1, out1, err1 := serq(t, args...)
			code2, out2, err2 := serq(t, args...)
			if code1 != 0 || code2 != 0 || err1 != "" || err2 != "" {
				t.Fatalf("serq %v: exit %d/%d, stderr %q/%q", args, code1, code2, err1, err2)
			}
			if out1 != out2 {
				t.Fatalf("serq %v: two runs differ:\n%s\n%s", args, out1, out2)
			}
			args[4] = "6"
			if _, out3, _ := serq(t, args...); out3 == out1 {
				t.Errorf("seeds 5 and 6 give the same JSON")
			}
			t.Logf("%d bytes, identical", len(out1))
		})
	}
}
