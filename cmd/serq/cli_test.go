package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// minimal is the smallest valid program.
const minimal = "fn main() { stage s : delay; workload { arrive none; } server { run s (cost(s, 1)); } }\n"

// withInput reads one args.number input, r.
const withInput = `use "std/args";
fn main() {
  let r = args.number("r", 1);
  stage s : delay;
  workload { arrive none; }
  server { run s (cost(s, r)); }
}
`

const (
	checkUsage = "usage: serq check FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]\n"
	runUsage   = "usage: serq run FILE --horizon T [--warmup T] [--seed N] [--arrivals N] [--trace F] [--set name=expr]... " +
		"[--def name=expr]... [--json] [--dump DIR] [--plot DIR] [--max-live N] [-- --name value ...]\n"
	rootUsage = "usage: serq <check|ir|run|tui|draw|target|sweep|fmt|lsp> FILE [OPTIONS] | serq import vllm OPTIONS | serq --version\n"
)

// serq runs the CLI in process.
func serq(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeProgram writes src to name in a fresh temporary directory.
func writeProgram(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersion(t *testing.T) {
	for _, flag := range []string{"--version", "-V"} {
		code, out, errs := serq(t, flag)
		if code != 0 || out != "serq 0.1.0\n" || errs != "" {
			t.Errorf("serq %s = %d, %q, %q; want 0, %q, \"\"", flag, code, out, errs, "serq 0.1.0\n")
		}
	}
	code, out, errs := serq(t, "--version", "check")
	want := "error: `--version` takes no arguments, found `check`\n" + rootUsage
	if code != 2 || out != "" || errs != want {
		t.Errorf("serq --version check = %d, %q, %q; want 2, \"\", %q", code, out, errs, want)
	}
}

func TestUsageErrors(t *testing.T) {
	f := writeProgram(t, "ok.sq", minimal)
	tests := []struct {
		args []string
		want string // stderr
	}{
		{[]string{}, "error: missing command\nhelp: choose check, ir, run, tui, draw, target, sweep, fmt, lsp or import, or --version\n" + rootUsage},
		{[]string{"frob", f}, "error: unknown command `frob`\nhelp: choose check, ir, run, tui, draw, target, sweep, fmt, lsp or import, or --version\n" + rootUsage},
		{[]string{"check"}, "error: missing FILE\nhelp: supply a .sq program file\n" + checkUsage},
		{[]string{"check", "--set", "x=1", f}, "error: missing FILE\nhelp: supply a .sq program file\n" + checkUsage},
		{[]string{"check", f, "--bogus"}, "error: unknown option `--bogus`\nhelp: use the options in the usage below\n" + checkUsage},
		{[]string{"check", f, "extra"}, "error: unknown option `extra`\nhelp: use the options in the usage below\n" + checkUsage},
		{[]string{"check", f, "--horizon", "10"}, "error: --horizon is not supported by `check`\nhelp: --horizon applies to ir, run, tui, sweep\n" + checkUsage},
		{[]string{"check", f, "--set"}, "error: missing value for --set\nhelp: supply a value immediately after --set\n" + checkUsage},
		{[]string{"check", f, "--set", "--def", "a=1"}, "error: missing value for --set\nhelp: supply a value immediately after --set\n" + checkUsage},
		{[]string{"check", f, "--set", "1x=2"}, "error: invalid --set name `1x`; expected an identifier\nhelp: use --set name=expr with an input declared by args.number\n" + checkUsage},
		{[]string{"check", f, "--set", "a-b=2"}, "error: invalid --set name `a-b`; expected an identifier\nhelp: use --set name=expr with an input declared by args.number\n" + checkUsage},
		{[]string{"check", f, "--set", "rate"}, "error: invalid --set `rate`; expected name=expr\nhelp: use --set name=expr with an input declared by args.number\n" + checkUsage},
		{[]string{"check", f, "--set", "a=1,1x=2"}, "error: invalid expression in --set `a=1,1x=2`: "}, // not split at the comma; prefix
		{[]string{"check", f, "--def", "=1"}, "error: invalid --def name ``; expected an identifier\nhelp: use --def name=expr with a declared `def name(...) { expr }`\n" + checkUsage},
		{[]string{"check", f, "--", "--x"}, "error: missing value for program argument `--x`\n" + checkUsage},
		{[]string{"check", f, "--", "x"}, "error: unexpected program argument `x`; expected --name value\n" + checkUsage},
		{[]string{"check", f, "--", "--x", "nan"}, "error: invalid number `nan` for program argument `--x`\n" + checkUsage},
		{[]string{"check", f, "--", "--x=NaN"}, "error: invalid number `NaN` for program argument `--x`\n" + checkUsage},
		{[]string{"check", f, "--", "--x", "0x10"}, "error: invalid number `0x10` for program argument `--x`\n" + checkUsage},
		{[]string{"check", f, "--", "--1x", "2"}, "error: invalid argument name `1x`; expected an identifier\n" + checkUsage},
		{[]string{"run", f, "--horizon"}, "error: missing value for --horizon\nhelp: supply a value immediately after --horizon\n" + runUsage},
		{[]string{"run", f, "--horizon", "--json"}, "error: missing value for --horizon\nhelp: supply a value immediately after --horizon\n" + runUsage},
		{[]string{"run", f, "--horizon", "-3"}, "error: invalid value `-3` for --horizon; expected a finite positive number\nhelp: use --horizon 10\n" + runUsage},
		{[]string{"run", f, "--horizon", "inf"}, "error: invalid value `inf` for --horizon; expected a finite positive number\nhelp: use --horizon 10\n" + runUsage},
		{[]string{"run", f, "--horizon", "10", "--warmup", "-1"}, "error: invalid value `-1` for --warmup; expected a finite nonnegative number\nhelp: use --warmup 0\n" + runUsage},
		{[]string{"run", f, "--horizon", "10", "--seed", "-1"}, "error: invalid value `-1` for --seed; expected an unsigned integer\nhelp: use --seed 1\n" + runUsage},
		{[]string{"run", f, "--horizon", "10", "--arrivals", "0"}, "error: invalid value `0` for --arrivals; expected a positive integer\n" + runUsage},
	}
	for _, tt := range tests {
		code, out, errs := serq(t, tt.args...)
		if code != 2 || out != "" {
			t.Errorf("serq %q = %d, stdout %q; want 2, \"\"", tt.args, code, out)
		}
		if strings.HasSuffix(tt.want, ": ") { // a message from syntax.ParseExpr follows
			if !strings.HasPrefix(errs, tt.want) || !strings.HasSuffix(errs, checkUsage) {
				t.Errorf("serq %q stderr = %q, want %q…%q", tt.args, errs, tt.want, checkUsage)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, errs); diff != "" {
			t.Errorf("serq %q stderr (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"check", "--help"}, {"run", "-h"}} {
		code, out, errs := serq(t, args...)
		if code != 0 || !strings.Contains(out, "Usage: serq") || errs != "" {
			t.Errorf("serq %q = %d, %q, %q; want 0 and help on stdout", args, code, out, errs)
		}
	}
}

func TestCheck(t *testing.T) {
	f := writeProgram(t, "ok.sq", minimal)
	code, out, errs := serq(t, "check", f)
	re := regexp.MustCompile(`^OK: 0 pool\(s\), 1 stage\(s\), [0-9]+ attribute\(s\), [0-9]+ block\(s\)\n$`)
	if code != 0 || !re.MatchString(out) || errs != "" {
		t.Errorf("serq check %s = %d, %q, %q; want 0, %s, \"\"", f, code, out, errs, re)
	}
}

func TestCheckInputs(t *testing.T) {
	f := writeProgram(t, "in.sq", withInput)
	for _, args := range [][]string{
		{"check", f},
		{"check", f, "--set", "r=2 * 3"},
		{"check", f, "--set", "r=max(1, 2)"}, // not split at the comma
		{"check", f, "--", "--r", "1e3"},
		{"check", f, "--set", "r=-1", "--", "--r=2.5"}, // the program argument wins
	} {
		code, out, errs := serq(t, args...)
		if code != 0 || !strings.HasPrefix(out, "OK: ") || errs != "" {
			t.Errorf("serq %q = %d, %q, %q; want 0, OK", args, code, out, errs)
		}
	}
	// An unknown input is a link error: exit 1, no report.
	for _, args := range [][]string{
		{"check", f, "--", "--nope", "2"},
		{"check", f, "--set", "nope=2"},
	} {
		code, out, errs := serq(t, args...)
		if code != 1 || out != "" || !strings.Contains(errs, "nope") {
			t.Errorf("serq %q = %d, %q, %q; want 1, \"\", an error naming nope", args, code, out, errs)
		}
	}
}

func TestCheckSyntaxError(t *testing.T) {
	f := writeProgram(t, "bad.sq", "fn main() {\n\tstage s : delay; /* oops\n}\n")
	code, out, errs := serq(t, "check", f)
	want := f + ":2:19: unterminated block comment: `/*` has no closing `*/`\n" +
		" | \tstage s : delay; /* oops\n" +
		" | \t                 ^\n"
	if code != 1 || out != "" {
		t.Errorf("serq check %s = %d, %q; want 1, \"\"", f, code, out)
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("serq check %s stderr (-want +got):\n%s", f, diff)
	}
}

func TestCheckMissingFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "none.sq")
	code, out, errs := serq(t, "check", f)
	want := f + ": cannot read: no such file or directory\n"
	if code != 1 || out != "" || errs != want {
		t.Errorf("serq check %s = %d, %q, %q; want 1, \"\", %q", f, code, out, errs, want)
	}
}

func TestIR(t *testing.T) {
	f := writeProgram(t, "ok.sq", minimal)
	code, out, errs := serq(t, "ir", f)
	if code != 0 || errs != "" {
		t.Fatalf("serq ir %s = %d, %q; want 0, \"\"", f, code, errs)
	}
	if !strings.HasPrefix(out, "{\n  \"") || !strings.HasSuffix(out, "}\n") {
		t.Errorf("serq ir: want JSON indented by two spaces and newline-terminated, got %q", out)
	}
	// The IR is read back generically: model types marshal one way only.
	var prog struct {
		File   string `json:"file"`
		Stages []struct {
			Name string `json:"name"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &prog); err != nil {
		t.Fatalf("serq ir: %v", err)
	}
	if prog.File != f || len(prog.Stages) != 1 || prog.Stages[0].Name != "s" {
		t.Errorf("serq ir: file %q, stages %+v; want %q and the one stage s", prog.File, prog.Stages, f)
	}
}

func TestRunNotYet(t *testing.T) {
	f := writeProgram(t, "ok.sq", minimal)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", f}, f + ": no horizon: `serq run` needs --horizon T, the simulated end time\n"},
		{[]string{"run", f, "--horizon", "10", "--warmup", "10"}, f + ": warmup 10 is not below the horizon 10\n"},
		{[]string{"tui", f, "--horizon", "10", "--warmup", "10"}, f + ": warmup 10 is not below the horizon 10\n"},
		{[]string{"tui", f, "--warmup", "2e9"}, f + ": warmup 2e9 is not below the horizon 1e9 (the default of serq tui)\n"},
		// The TUI needs a terminal; it is tested in package tui.
		{[]string{"tui", f}, "serq tui: stdout is not a terminal: the TUI needs one (serq run prints a report anywhere)\n"},
		{[]string{"tui", f, "--horizon", "10", "--seed", "3"},
			"serq tui: stdout is not a terminal: the TUI needs one (serq run prints a report anywhere)\n"},
	}
	for _, tt := range tests {
		code, out, errs := serq(t, tt.args...)
		if code != 1 || out != "" || errs != tt.want {
			t.Errorf("serq %q = %d, %q, %q; want 1, \"\", %q", tt.args, code, out, errs, tt.want)
		}
	}
}

func TestProgramArgs(t *testing.T) {
	got, err := programArgs([]string{"--a", "1e3", "--b", "-2", "--c=inf", "--d", "+5", "--e=-inf", "--a", "0.25", "--f", "1e400"})
	if err != nil {
		t.Fatal(err)
	}
	want := []lang.Override{
		{Name: "a", Expr: "1000"}, {Name: "b", Expr: "-2"}, {Name: "c", Expr: "inf"},
		{Name: "d", Expr: "5"}, {Name: "e", Expr: "-inf"}, {Name: "a", Expr: "0.25"},
		{Name: "f", Expr: "inf"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("programArgs (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ args []string }{
		{[]string{"--x", "1_000"}}, {[]string{"--x", ""}}, {[]string{"--x", "--y"}},
		{[]string{"--x=1", "-y", "2"}}, {[]string{"--=1"}}, {[]string{"--"}},
	} {
		if _, err := programArgs(tt.args); err == nil {
			t.Errorf("programArgs(%q) = nil error, want one", tt.args)
		}
	}
}

func TestRenderLoadError(t *testing.T) {
	src := "fn main() {\n  stage s : fifo(0);\r\n\tlet x = y;\n}\n"
	e := &loadError{
		file:    "p.sq",
		sources: map[string][]byte{"p.sq": []byte(src)},
		err: lang.ErrorList{
			{Pos: model.Pos{File: "p.sq", Line: 2, Col: 18}, Msg: "fifo needs at least one server"},
			{Pos: model.Pos{File: "p.sq", Line: 3, Col: 10}, Msg: "undefined: y", Notes: []string{"in `f`, used at p.sq:9:1"}, Hint: "did you mean `x`?"},
			{Pos: model.Pos{Line: 9, Col: 1}, Msg: "past the end"},
			{Pos: model.Pos{File: "p.sq"}, Msg: "no position"},
		},
	}
	var b bytes.Buffer
	renderLoadError(&b, e)
	want := "p.sq:2:18: fifo needs at least one server\n" +
		" |   stage s : fifo(0);\n" +
		" |                  ^\n" +
		"p.sq:3:10: undefined: y\n" +
		" | \tlet x = y;\n" +
		" | \t        ^\n" +
		"note: in `f`, used at p.sq:9:1\n" +
		"hint: did you mean `x`?\n" +
		"p.sq:9:1: past the end\n" +
		"p.sq: no position\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("renderLoadError (-want +got):\n%s", diff)
	}
}

// TestRenderInternalError prints an internal error of the interpreter like
// a run error, then the stack it kept, for the bug report.
func TestRenderInternalError(t *testing.T) {
	e := &loadError{
		file:    "p.sq",
		sources: map[string][]byte{"p.sq": []byte("fn main() {\n  run s;\n}\n")},
		err:     &interp.RunError{Pos: model.Pos{File: "p.sq", Line: 2, Col: 3}, Time: 1.5, Session: -1, Msg: "internal error: boom", Stack: []byte("goroutine 1 [running]:\nmain.f()\n")},
	}
	var b bytes.Buffer
	renderLoadError(&b, e)
	want := "p.sq:2:3: at t=1.5: internal error: boom\n" +
		" |   run s;\n" +
		" |   ^\n" +
		"This is a bug in serq: please report it with the program and this stack:\n" +
		"goroutine 1 [running]:\nmain.f()\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("renderLoadError (-want +got):\n%s", diff)
	}
}

func TestUsageLines(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.Vars(importVars()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range parser.Model.Children {
		want := "serq " + c.Name + " FILE"
		switch c.Name {
		case "fmt":
			want = "serq fmt [--check] [FILE...]" // files, stdin without
		case "lsp":
			want = "serq lsp" // configured by its client
		case "import":
			want = "serq import vllm --model-config" // an importer, then its flags
		}
		if !strings.HasPrefix(usages[c.Name], want) {
			t.Errorf("usages[%q] = %q, want the command's usage line", c.Name, usages[c.Name])
		}
	}
}

// TestRunJSON runs two delayed sessions: a batch of 2 on a delay stage
// with work 1 and 2. Mean live (2·1 + 1·1)/10 = 0.3; the stage is busy 2 of
// 10; response 1 and 2: mean 1.5, cv2 0.5/1.5² = 0.2222…, p99 2.
func TestRunJSON(t *testing.T) {
	f := writeProgram(t, "two.sq", "fn main() { stage s : delay; workload { arrive batch(2); } server { run s (cost(s, 1 + serial)); } }\n")
	code, out, errs := serq(t, "run", f, "--horizon", "10", "--seed", "7", "--json")
	want := `{"serq_version":"0.1.0","horizon":10,"end":10,"warmup":0,"seed":7,"events":3,"arrivals":2,"ended":2,"turns":2,"mean_live":0.3,` +
		`"observes":{"response":{"count":2,"mean":1.5,"ci":null,"cv2":0.2222222222222222,"p99":2}},"gauges":{},` +
		`"stages":[{"name":"s","index":null,"mean_number":0.3,"utilization":0.2,"completed":2,"throughput":0.2,"mean_wait":0,"mean_service":1.5,` +
		`"iterations":0,"prefill_only":0,"decode_only":0,"mixed":0,"mean_decodes":0,"mean_decode_batch":null,"mean_decode_step":null,` +
		`"mean_itl":null,"itl_p50":null,"itl_p99":null,"idle_with_work":false}],"pools":[]}` + "\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("serq run --json = %d, %q, %q; want 0, %q, \"\"", code, out, errs, want)
	}
}

// TestInstance expands an instance file at its place: a later flag beats
// it, an earlier one is beaten by it.
func TestInstance(t *testing.T) {
	f := writeProgram(t, "in.sq", "use \"std/args\";\nfn main() { let r = args.number(\"r\", 1); stage s : delay; workload { arrive batch(1); } server { run s (cost(s, r)); } }\n")
	inst := writeProgram(t, "inst.sq", "// settings\nlet r = 3;\nrun { horizon 50; seed 9; }\n")
	code, out, errs := serq(t, "run", f, "--instance", inst, "--json")
	if code != 0 || !strings.Contains(out, `"horizon":50,"end":50,"warmup":0,"seed":9,`) || !strings.Contains(out, `"mean_service":3,`) {
		t.Errorf("serq run --instance = %d, %q, %q", code, out, errs)
	}
	code, out, _ = serq(t, "run", f, "--instance", inst, "--set", "r=2", "--horizon", "60", "--json")
	if code != 0 || !strings.Contains(out, `"horizon":60,`) || !strings.Contains(out, `"mean_service":2,`) {
		t.Errorf("later flags should beat the instance: %d, %q", code, out)
	}
	code, out, _ = serq(t, "run", f, "--horizon", "60", "--set", "r=2", "--instance", inst, "--json")
	if code != 0 || !strings.Contains(out, `"horizon":50,`) || !strings.Contains(out, `"mean_service":3,`) {
		t.Errorf("the instance should beat earlier flags: %d, %q", code, out)
	}
	bad := writeProgram(t, "bad.sq", "pool kv { cap 1; }\n")
	code, out, errs = serq(t, "check", f, "--instance", bad)
	if code != 1 || out != "" || !strings.HasPrefix(errs, bad+":1:1: an instance file holds only") {
		t.Errorf("a bad instance = %d, %q, %q", code, out, errs)
	}
}

// TestRunErrorSnippet: a run error at a statement is shown like a static
// one, with the simulated time and the session, exit 1, nothing on stdout.
func TestRunErrorSnippet(t *testing.T) {
	src := "fn main() {\n  stage s : delay;\n  workload { arrive batch(1); init { set x = 0.5; } }\n  server { branch (x) { run s (cost(s, 1)); } }\n}\n"
	f := writeProgram(t, "g.sq", src)
	code, out, errs := serq(t, "run", f, "--horizon", "10")
	want := f + ":4:12: at t=0: session 0: the guard of `branch` is 0.5, not 0 or 1\n" +
		" |   server { branch (x) { run s (cost(s, 1)); } }\n" +
		" |            ^\n"
	if code != 1 || out != "" || errs != want {
		t.Errorf("serq run = %d, %q, %q; want 1, \"\", %q", code, out, errs, want)
	}
}
