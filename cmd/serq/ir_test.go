package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// irOf prints f's IR with `serq ir` into a .json file of a fresh directory.
func irOf(t *testing.T, f string, args ...string) string {
	t.Helper()
	code, out, errs := serq(t, append([]string{"ir", f}, args...)...)
	if code != 0 || errs != "" {
		t.Fatalf("serq ir %s = %d, stderr %q", f, code, errs)
	}
	return writeProgram(t, strings.TrimSuffix(filepath.Base(f), ".sq")+".json", out)
}

// TestIRExamples runs every example from its IR: the report, the check
// line and the figure are those of the source, and `serq ir` of the IR
// prints it again unchanged.
func TestIRExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: every example run from its IR")
	}
	files := testutil.Examples(t, "../../examples")
	for _, f := range files {
		rel, _ := filepath.Rel("../../examples", f)
		t.Run(strings.TrimSuffix(rel, ".sq"), func(t *testing.T) {
			ir := irOf(t, f)
			same := func(args ...string) {
				t.Helper()
				code, want, errs := serq(t, append([]string{args[0], f}, args[1:]...)...)
				if code != 0 || errs != "" {
					t.Fatalf("serq %s %s = %d, stderr %q", args[0], f, code, errs)
				}
				code, got, errs := serq(t, append([]string{args[0], ir}, args[1:]...)...)
				if code != 0 || errs != "" {
					t.Fatalf("serq %s %s = %d, stderr %q", args[0], ir, code, errs)
				}
				if got != want {
					t.Errorf("serq %s of the IR differs from the source's:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
				}
			}
			same("run", "--horizon", "300", "--warmup", "30", "--seed", "1")
			same("check")
			same("draw")
			same("draw", "--format", "txt")
			same("ir")
		})
	}
}

// TestIRSettings: the run settings still apply to an IR file, and so does
// an instance that sets only them.
func TestIRSettings(t *testing.T) {
	f := writeProgram(t, "in.sq", "use \"std/args\";\nfn main() { let r = args.number(\"r\", 1); stage s : delay; workload { arrive batch(1); } server { run s (cost(s, r)); } }\n")
	ir := irOf(t, f, "--set", "r=3")
	inst := writeProgram(t, "inst.sq", "run { horizon 50; seed 9; }\n")
	code, out, errs := serq(t, "run", ir, "--instance", inst, "--json")
	if code != 0 || errs != "" || !strings.Contains(out, `"horizon":50,"end":50,"warmup":0,"seed":9,`) || !strings.Contains(out, `"mean_service":3,`) {
		t.Errorf("serq run IR --instance = %d, %q, %q", code, out, errs)
	}
	code, out, errs = serq(t, "run", ir, "--horizon", "20", "--warmup", "2", "--seed", "4", "--json")
	if code != 0 || errs != "" || !strings.Contains(out, `"horizon":20,"end":20,"warmup":2,"seed":4,`) {
		t.Errorf("serq run IR with settings = %d, %q, %q", code, out, errs)
	}
}

// TestIRRefusesInputs: an IR file's inputs are bound already.
func TestIRRefusesInputs(t *testing.T) {
	f := writeProgram(t, "in.sq", withInput)
	ir := irOf(t, f)
	inst := writeProgram(t, "inst.sq", "let r = 3;\n")
	want := ir + ": an IR file has its inputs bound already: --set, --def and program arguments do not apply\n" +
		"help: pass them when producing the IR (serq ir … --set …)\n"
	for _, args := range [][]string{
		{"run", ir, "--horizon", "10", "--set", "r=2"},
		{"run", ir, "--horizon", "10", "--", "--r", "2"},
		{"check", ir, "--def", "d=1"},
		{"check", ir, "--instance", inst},
		{"ir", ir, "--set", "r=2"},
		{"draw", ir, "--", "--r=2"},
		{"tui", ir, "--set", "r=2"},
	} {
		code, out, errs := serq(t, args...)
		if code != 1 || out != "" || errs != want {
			t.Errorf("serq %s = %d, %q, %q; want 1, \"\", %q", strings.Join(args, " "), code, out, errs, want)
		}
	}
}

// TestIRErrors: a malformed or corrupt IR file is an error, exit 1.
func TestIRErrors(t *testing.T) {
	src := "fn main() { stage s : delay; workload { arrive batch(2); init { set w = 1 + serial; } } server { run s (cost(s, w)); } }\n"
	ir, err := os.ReadFile(irOf(t, writeProgram(t, "ok.sq", src)))
	if err != nil {
		t.Fatal(err)
	}
	text := string(ir)
	tests := []struct {
		name, src, want string
	}{
		{"truncated", text[:len(text)/2], "unexpected end of JSON input"},
		{"not JSON", "stage s : delay;\n", "invalid character 's' looking for beginning of value"},
		{"unknown kind", strings.Replace(text, `"kind": "delay"`, `"kind": "dealy"`, 1),
			`"kind": unknown stage kind "dealy" (want fifo, ps, delay, step)`},
		{"bad slot", strings.Replace(text, `"slot": 5`, `"slot": 99`, 1),
			"ir: workload.init.stmts[0]: slot 99 is no attribute (the program has 6)"},
		{"no session", strings.Replace(text, `"session": {`, `"session": null, "x": {`, 1),
			"ir: workload.session: missing block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.src == text {
				t.Fatal("the edit changed nothing")
			}
			f := writeProgram(t, "bad.json", tt.src)
			for _, cmd := range []string{"check", "run", "ir", "draw"} {
				code, out, errs := serq(t, cmd, f, "--horizon", "10")
				if cmd != "run" {
					code, out, errs = serq(t, cmd, f)
				}
				if want := f + ": " + tt.want + "\n"; code != 1 || out != "" || errs != want {
					t.Errorf("serq %s = %d, %q, %q; want 1, \"\", %q", cmd, code, out, errs, want)
				}
			}
		})
	}
	code, out, errs := serq(t, "check", filepath.Join(t.TempDir(), "none.json"))
	if code != 1 || out != "" || !strings.HasSuffix(errs, "none.json: cannot read: no such file or directory\n") {
		t.Errorf("serq check of a missing IR = %d, %q, %q", code, out, errs)
	}
}
