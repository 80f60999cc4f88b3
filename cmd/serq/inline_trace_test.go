package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// traceCopy copies the replay fixture and its CSV into a fresh directory
// and returns the program's path there (a test may then remove the CSV).
func traceCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"replay.sq", "chat.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", "trace", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "replay.sq")
}

// TestInlineTraceSameReport: `serq ir --inline-trace` writes an ordered
// trace into the IR as explicit sessions; the IR runs without the CSV and
// reports, text and JSON, the same bytes as the program with its trace.
// Run over the fixture and every example that replays a trace.
func TestInlineTraceSameReport(t *testing.T) {
	files := []string{traceCopy(t)}
	for _, f := range testutil.Examples(t, "../../examples") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "trace \"") {
			files = append(files, f)
		}
	}
	for _, f := range files {
		for _, seed := range []string{"1", "7"} {
			settings := []string{"--horizon", "300", "--warmup", "30", "--seed", seed}
			_, ir, errs := serq(t, "ir", f, "--inline-trace")
			if errs != "" {
				t.Fatalf("serq ir %s --inline-trace: %s", f, errs)
			}
			if strings.Contains(ir, `"trace"`) || !strings.Contains(ir, `"sessions"`) {
				t.Fatalf("serq ir %s --inline-trace: want sessions and no trace file in the IR", f)
			}
			irFile := filepath.Join(t.TempDir(), "inlined.json")
			if err := os.WriteFile(irFile, []byte(ir), 0o644); err != nil {
				t.Fatal(err)
			}
			if f == files[0] {
				// the IR needs no CSV
				if err := os.Remove(filepath.Join(filepath.Dir(f), "chat.csv")); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				if code, _, _ := serq(t, "run", f, "--horizon", "1"); code != 1 {
					t.Fatalf("the fixture ran without its CSV")
				}
				f = traceCopy(t)
				files[0] = f
			}
			for _, json := range [][]string{nil, {"--json"}} {
				args := append(append([]string{"run", f}, settings...), json...)
				code, want, errs := serq(t, args...)
				if code != 0 || errs != "" {
					t.Fatalf("%v = %d, %s", args, code, errs)
				}
				args[1] = irFile
				code, got, errs := serq(t, args...)
				if code != 0 || errs != "" {
					t.Fatalf("%v = %d, %s", args, code, errs)
				}
				// the first line names the file run; the rest is the same
				if json == nil {
					want, got = want[strings.IndexByte(want, '\n'):], got[strings.IndexByte(got, '\n'):]
				}
				if got != want {
					t.Errorf("seed %s %v: the inlined IR reports\n%s\nthe program with its trace\n%s", seed, json, got, want)
				}
			}
		}
	}
}

// TestInlineTraceIR: the sessions in the order of their first rows, each
// with its turns, forced as recorded (0 without the column); `ordered`
// stays, the trace file goes.
func TestInlineTraceIR(t *testing.T) {
	f := traceCopy(t)
	code, out, errs := serq(t, "ir", f, "--inline-trace")
	if code != 0 || errs != "" {
		t.Fatalf("serq ir --inline-trace = %d, %s", code, errs)
	}
	var prog struct {
		Workload map[string]json.RawMessage `json:"workload"`
	}
	if err := json.Unmarshal([]byte(out), &prog); err != nil {
		t.Fatal(err)
	}
	var sessions [][]map[string]float64
	if err := json.Unmarshal(prog.Workload["sessions"], &sessions); err != nil {
		t.Fatal(err)
	}
	want := [][]map[string]float64{
		{{"new": 120, "out": 40, "think": 2.5, "forced": 0}, {"new": 60, "out": 25, "think": 1, "forced": 1}, {"new": 30, "out": 80, "think": 0, "forced": 0}},
		{{"new": 400, "out": 10, "think": 4, "forced": 0}},
		{{"new": 90, "out": 120, "think": 0.5, "forced": 0}, {"new": 45, "out": 60, "think": 3, "forced": 0}},
	}
	if got, _ := json.Marshal(sessions); string(got) != mustJSON(t, want) {
		t.Errorf("sessions = %s, want %s", got, mustJSON(t, want))
	}
	if string(prog.Workload["ordered"]) != "true" || prog.Workload["trace"] != nil {
		t.Errorf("ordered %s, trace %s; want true and none", prog.Workload["ordered"], prog.Workload["trace"])
	}
}

// TestInlineTraceReplaced: --trace F on an IR that inlined a trace
// replays F instead of the inlined sessions.
func TestInlineTraceReplaced(t *testing.T) {
	f := traceCopy(t)
	_, ir, _ := serq(t, "ir", f, "--inline-trace")
	irFile := filepath.Join(t.TempDir(), "inlined.json")
	if err := os.WriteFile(irFile, []byte(ir), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(f), "other.csv")
	if err := os.WriteFile(other, []byte("session,turn,new,out,think\nx,1,10,10,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := []string{"--horizon", "100", "--json", "--trace", other}
	_, want, _ := serq(t, append([]string{"run", f}, settings...)...)
	code, got, errs := serq(t, append([]string{"run", irFile}, settings...)...)
	if code != 0 || errs != "" || got != want || !strings.Contains(got, `"tokens":{"count":87,"mean":20,`) {
		t.Fatalf("run IR --trace = %d, %s\n%s\nwant\n%s", code, errs, got, want)
	}
	_, plain, _ := serq(t, "run", irFile, "--horizon", "100", "--json")
	if plain == got {
		t.Errorf("--trace changed nothing: the IR replays its inlined sessions still")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInlineTraceErrors: no trace, an unordered trace, a bad CSV (named
// with its row and column), and --trace replacing the CSV first.
func TestInlineTraceErrors(t *testing.T) {
	f := traceCopy(t)
	dir := filepath.Dir(f)
	src, _ := os.ReadFile(f)
	unordered := filepath.Join(dir, "unordered.sq")
	if err := os.WriteFile(unordered, []byte(strings.Replace(string(src), `"chat.csv" ordered;`, `"chat.csv";`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("session,turn,new,out,think\n1,1,10,oops,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	none := writeProgram(t, "none.sq", minimal)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ir", none, "--inline-trace"}, none + ": --inline-trace: the program replays no trace (its workload has no `trace \"…\";`)\n"},
		{[]string{"ir", unordered, "--inline-trace"}, unordered + ": --inline-trace: the trace is not ordered: each session samples a recorded one at random, so there are no explicit sessions to write\n" +
			"help: write `trace \"" + filepath.ToSlash(filepath.Join(dir, "chat.csv")) + "\" ordered;` to replay session i as recorded session i\n"},
		{[]string{"ir", f, "--inline-trace", "--trace", bad}, f + ": --inline-trace: " + bad + ":2:4: \"oops\" is not a number\n"},
		{[]string{"ir", none, "--trace", bad}, none + ": --trace: the program replays no trace (its workload has no `trace \"…\";`)\n"},
	} {
		code, out, errs := serq(t, tt.args...)
		if code != 1 || out != "" || errs != tt.want {
			t.Errorf("%v = %d, %q, %q; want 1, \"\", %q", tt.args, code, out, errs, tt.want)
		}
	}
}
