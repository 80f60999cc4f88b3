package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// TestExampleReports runs every example for a short horizon with seed 1
// and compares the text report with a golden file, so that a change of
// behaviour anywhere shows up as a diff of numbers (go test ./cmd/serq
// -update refreshes the goldens after an intended change).
func TestExampleReports(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: every example run to its golden report")
	}
	files := testutil.Examples(t, "../../examples")
	for _, f := range files {
		rel, _ := filepath.Rel("../../examples", f)
		name := strings.ReplaceAll(strings.TrimSuffix(rel, ".sq"), string(filepath.Separator), "_")
		t.Run(name, func(t *testing.T) {
			code, out, errs := serq(t, "run", f, "--horizon", "300", "--warmup", "30", "--seed", "1")
			if code != 0 || errs != "" {
				t.Fatalf("serq run %s = %d, stderr %q", f, code, errs)
			}
			testutil.Golden(t, filepath.Join("testdata", "run_"+name+".golden"), []byte(out))
		})
	}
}
