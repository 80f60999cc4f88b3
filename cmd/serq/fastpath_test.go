package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// TestFastPathBytes: `serq run` on the interpreter's fast paths (dirty
// sets, gauge trees, memoized engine expressions, quiet engine iterations
// taken in runs by StepN, indexed chooses) and on its reference path
// (--no-fast-path) writes the same bytes — the text report, the JSON and
// every --dump file — for every example, the seed under pressure, a
// program of indexed chooses (testutil.ChooseProgram) and one of scanned
// chooses (testutil.ScanProgram). The interp package's
// differential tests compare the runs step by step.
func TestFastPathBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: every example run on both paths")
	}
	type run struct{ name, file string }
	var runs []run
	for _, f := range testutil.Examples(t, "../../examples") {
		rel, _ := filepath.Rel("../../examples", f)
		runs = append(runs, run{rel, f})
	}
	runs = append(runs, run{"pressure", "../../examples/pd-disaggregation/llmd_nixl_pull.sq"})
	chooses := filepath.Join(t.TempDir(), "choose.sq")
	if err := os.WriteFile(chooses, []byte(testutil.ChooseProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	runs = append(runs, run{"indexed chooses", chooses})
	scans := filepath.Join(t.TempDir(), "scan.sq")
	if err := os.WriteFile(scans, []byte(testutil.ScanProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	runs = append(runs, run{"scanned chooses", scans})
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			args := []string{"run", r.file, "--horizon", "300", "--warmup", "30", "--seed", "3"}
			var prog []string
			if r.name == "pressure" {
				prog = []string{"--", "--blocksD", "1200", "--Lambda", "1.2"}
			}
			out := func(extra ...string) string {
				a := append(append(append([]string{}, args...), extra...), prog...)
				code, stdout, stderr := serq(t, a...)
				if code != 0 || stderr != "" {
					t.Fatalf("serq %v = %d, stderr %q", a, code, stderr)
				}
				return stdout
			}
			fast, ref := t.TempDir(), t.TempDir()
			if a, b := out("--dump", fast), out("--dump", ref, "--no-fast-path"); a != b {
				t.Fatalf("the text reports differ:\n%s\nreference:\n%s", a, b)
			}
			if a, b := out("--json"), out("--json", "--no-fast-path"); a != b {
				t.Fatalf("the JSON reports differ:\n%s\nreference:\n%s", a, b)
			}
			if a, b := dumpFiles(t, fast), dumpFiles(t, ref); len(b) == 0 || len(a) != len(b) {
				t.Fatalf("the dump has %d files, the reference's %d", len(a), len(b))
			} else {
				for name, want := range b {
					if got, ok := a[name]; !ok || string(got) != string(want) {
						t.Fatalf("%s differs (in the dump: %v):\n%s", name, ok, firstDiff(string(got), string(want)))
					}
				}
			}
		})
	}
}

// firstDiff is the first line where two texts differ, with its number.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return "one is a prefix of the other"
}
