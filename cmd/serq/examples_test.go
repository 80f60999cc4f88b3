package main

import (
	"flag"
	"github.com/serq/serq/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/")

// TestExampleReports runs every example for a short horizon with seed 1
// and compares the text report with a golden file, so that a change of
// behaviour anywhere shows up as a diff of numbers (go test ./cmd/serq
// -update refreshes the goldens after an intended change).
func TestExampleReports(t *testing.T) {
	files := testutil.Examples(t, "../../examples")
	for _, f := range files {
		rel, _ := filepath.Rel("../../examples", f)
		name := strings.ReplaceAll(strings.TrimSuffix(rel, ".sq"), string(filepath.Separator), "_")
		t.Run(name, func(t *testing.T) {
			code, out, errs := serq(t, "run", f, "--horizon", "300", "--warmup", "30", "--seed", "1")
			if code != 0 || errs != "" {
				t.Fatalf("serq run %s = %d, stderr %q", f, code, errs)
			}
			golden := filepath.Join("testdata", "run_"+name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				t.Errorf("serq run %s differs from %s:\n%s", f, golden, out)
			}
		})
	}
}
