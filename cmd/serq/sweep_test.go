package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/serq/serq/report"
)

const seedProgram = "../../examples/pd-disaggregation/llmd_nixl_pull.sq"

// sweepFiles are the files every sweep writes.
var sweepFiles = []string{sweepRunsCSV, sweepRunsJSON, sweepSummary, sweepManifest}

// readDir returns the sweep files of dir by name.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range sweepFiles {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}

// sweepOK runs `serq sweep ARGS` and fails the test unless it exits 0
// with an empty stderr.
func sweepOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := serq(t, append([]string{"sweep"}, args...)...)
	if code != 0 || errs != "" {
		t.Fatalf("serq sweep %v: exit %d, stderr %q", args, code, errs)
	}
	return out
}

// seedSweep is a small sweep of the seed example: 4 points × 2 seeds.
func seedSweep(out string, extra ...string) []string {
	return append([]string{seedProgram, "--vary", "Lambda=0.3,0.6", "--vary", "thr=1:512:511",
		"--seeds", "3-4", "--horizon", "30", "--warmup", "2", "--out", out}, extra...)
}

func readCSV(t *testing.T, text string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestSweepRowsEqualRun: every row of a sweep, in runs.json and runs.csv,
// holds what `serq run --json` reports for the same inputs and seed.
func TestSweepRowsEqualRun(t *testing.T) {
	dir := t.TempDir()
	out := sweepOK(t, seedSweep(dir)...)
	if want := "sweep: 4 points × 2 seeds: 8 runs, 0 failed; wrote " + dir + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	files := readDir(t, dir)
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(files[sweepRunsJSON]))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, files[sweepRunsCSV])
	head := recs[0]
	if len(rows) != 8 || len(recs) != 9 {
		t.Fatalf("%d JSON rows and %d CSV rows, want 8", len(rows), len(recs)-1)
	}
	wantPoints := []string{"0.3 1", "0.3 1", "0.3 512", "0.3 512", "0.6 1", "0.6 1", "0.6 512", "0.6 512"}
	for i, row := range rows {
		in := row["inputs"].(map[string]any)
		seed := row["seed"].(json.Number).String()
		lambda, thr := in["Lambda"].(json.Number).String(), in["thr"].(json.Number).String()
		if got := lambda + " " + thr; got != wantPoints[i] || seed != strconv.Itoa(3+i%2) {
			t.Fatalf("row %d is point %s seed %s", i, got, seed)
		}
		code, js, errs := serq(t, "run", seedProgram, "--json", "--horizon", "30", "--warmup", "2", "--seed", seed,
			"--set", "Lambda="+lambda, "--set", "thr="+thr)
		if code != 0 {
			t.Fatalf("serq run: exit %d: %s", code, errs)
		}
		var rep map[string]any
		d := json.NewDecoder(strings.NewReader(js))
		d.UseNumber()
		if err := d.Decode(&rep); err != nil {
			t.Fatal(err)
		}
		// The value of a CSV column, from the report.
		want := map[string]any{}
		for name, o := range rep["observes"].(map[string]any) {
			for _, f := range []string{"count", "mean", "ci", "p99"} {
				want[name+"."+f] = o.(map[string]any)[f]
			}
		}
		for name, g := range rep["gauges"].(map[string]any) {
			want[name+".mean"] = g.(map[string]any)["mean"]
		}
		var rej, stuck int64
		for _, p := range rep["pools"].([]any) {
			r, _ := p.(map[string]any)["rejected"].(json.Number).Int64()
			s, _ := p.(map[string]any)["stuck"].(json.Number).Int64()
			rej, stuck = rej+r, stuck+s
		}
		want["rejected"], want["stuck"] = json.Number(strconv.FormatInt(rej, 10)), json.Number(strconv.FormatInt(stuck, 10))
		if len(want) != len(head)-5 {
			t.Fatalf("the report has %d values, runs.csv %d columns", len(want), len(head))
		}
		// runs.json: the same numbers, null where the report has null.
		got := map[string]any{"rejected": row["rejected"], "stuck": row["stuck"]}
		for name, o := range row["observes"].(map[string]any) {
			for f, v := range o.(map[string]any) {
				got[name+"."+f] = v
			}
		}
		for name, g := range row["gauges"].(map[string]any) {
			got[name+".mean"] = g.(map[string]any)["mean"]
		}
		for k, w := range want {
			if fmt.Sprint(got[k]) != fmt.Sprint(w) {
				t.Errorf("row %d %s: runs.json %v, serq run --json %v", i, k, got[k], w)
			}
		}
		// runs.csv: the same decimals; NaN or inf where JSON has null.
		rec := recs[i+1]
		for c := 4; c < len(head)-1; c++ {
			w := want[head[c]]
			if w == nil {
				if x, err := strconv.ParseFloat(rec[c], 64); err != nil || !math.IsNaN(x) && !math.IsInf(x, 0) {
					t.Errorf("row %d %s: runs.csv %q, serq run --json null", i, head[c], rec[c])
				}
			} else if rec[c] != w.(json.Number).String() {
				t.Errorf("row %d %s: runs.csv %q, serq run --json %v", i, head[c], rec[c], w)
			}
		}
		if rec[len(rec)-1] != "" || row["error"] != nil {
			t.Errorf("row %d has an error: %q", i, rec[len(rec)-1])
		}
	}
}

// TestSweepJobs: --jobs 1 and --jobs 4 write the same bytes, and without
// --out the CSV on stdout is runs.csv.
func TestSweepJobs(t *testing.T) {
	one, four := t.TempDir(), t.TempDir()
	sweepOK(t, seedSweep(one, "--jobs", "1")...)
	sweepOK(t, seedSweep(four, "--jobs", "4")...)
	a, b := readDir(t, one), readDir(t, four)
	for _, f := range sweepFiles {
		if f == sweepManifest {
			continue
		}
		if a[f] != b[f] {
			t.Errorf("%s differs between --jobs 1 and --jobs 4", f)
		}
	}
	// The manifests differ only in nothing: --jobs and --out are not in it.
	if a[sweepManifest] != b[sweepManifest] {
		t.Errorf("sweep.json differs:\n%s\n%s", a[sweepManifest], b[sweepManifest])
	}
	args := seedSweep(one, "--jobs", "3")
	args = args[:len(args)-4] // no --out
	args = append(args, "--jobs", "3")
	if out := sweepOK(t, args...); out != a[sweepRunsCSV] {
		t.Errorf("stdout without --out is not runs.csv:\n%s", out)
	}
}

// TestSweepShardsMerge: shards 0/2 and 1/2 (and 0/3, 1/3, 2/3) merged are
// the unsharded sweep, byte for byte; bad merges are refused.
func TestSweepShardsMerge(t *testing.T) {
	whole := t.TempDir()
	sweepOK(t, seedSweep(whole)...)
	want := readDir(t, whole)
	for _, n := range []int{2, 3} {
		var dirs []string
		for i := range n {
			d := t.TempDir()
			out := sweepOK(t, seedSweep(d, "--shard", fmt.Sprintf("%d/%d", i, n))...)
			runs := (8 - i + n - 1) / n
			if w := fmt.Sprintf("sweep: 4 points × 2 seeds: %d runs (shard %d/%d), 0 failed; wrote %s\n", runs, i, n, d); out != w {
				t.Errorf("stdout %q, want %q", out, w)
			}
			dirs = append(dirs, d)
		}
		merged := filepath.Join(t.TempDir(), "merged")
		code, _, errs := serq(t, append([]string{"sweep", "merge", "--out", merged}, dirs[1:]...)...)
		if code != 2 || errs != fmt.Sprintf("error: shard(s) 0 of %d missing\nhelp: list the directory of every shard\nusage: %s\n", n, mergeUsage) {
			t.Errorf("merge without shard 0: exit %d, %q", code, errs)
		}
		// Shards given in any order.
		rev := append([]string{}, dirs...)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		code, out, errs := serq(t, append([]string{"sweep", "merge", "--out", merged}, rev...)...)
		if code != 0 || errs != "" || out != fmt.Sprintf("merge: %d shards, 8 runs; wrote %s\n", n, merged) {
			t.Fatalf("merge: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		// A DIR that cannot be written: exit 1, the reason on stderr.
		file := filepath.Join(merged, sweepRunsCSV)
		if code, _, errs := serq(t, append([]string{"sweep", "merge", "--out", file}, dirs...)...); code != 1 ||
			errs != "serq sweep merge: cannot write "+file+": mkdir "+file+": not a directory\n" {
			t.Errorf("merge into a file: exit %d, %q", code, errs)
		}
		got := readDir(t, merged)
		for _, f := range sweepFiles {
			if got[f] != want[f] {
				t.Errorf("%d shards: merged %s differs from the unsharded one:\n%s\nwant\n%s", n, f, got[f], want[f])
			}
		}
	}

	// Shards of different sweeps, a shard twice, an incomplete shard.
	a, b := t.TempDir(), t.TempDir()
	sweepOK(t, seedSweep(a, "--shard", "0/2")...)
	other := seedSweep(b, "--shard", "1/2")
	other[8] = "31" // the horizon
	sweepOK(t, other...)
	out := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{a, b}, "error: " + a + " and " + b + " are shards of different sweeps: they differ in horizon (30, 31)\n" +
			"help: merge the shards of one serq sweep command line\n"},
		{[]string{a, a}, "error: " + a + " and " + a + " are both shard 0/2\n"},
		{[]string{a, out}, "error: " + out + " is not a sweep's output: open " + filepath.Join(out, "sweep.json") + ": no such file or directory\n" +
			"help: list directories written by serq sweep --shard i/n --out DIR\n"},
		{[]string{}, "error: no shard directories\nhelp: list the --out directories of every shard\n"},
	}
	for _, tt := range tests {
		code, _, errs := serq(t, append([]string{"sweep", "merge", "--out", out}, tt.args...)...)
		if code != 2 || errs != tt.want+"usage: "+mergeUsage+"\n" {
			t.Errorf("merge %v: exit %d, stderr\n%s\nwant\n%s", tt.args, code, errs, tt.want)
		}
	}
	code, _, errs := serq(t, "sweep", "merge", a)
	if code != 2 || errs != "error: missing --out DIR\nhelp: name the directory to write the merged sweep into\nusage: "+mergeUsage+"\n" {
		t.Errorf("merge without --out: exit %d, %q", code, errs)
	}
	// An interrupted shard (its manifest says so) is refused.
	m := filepath.Join(a, sweepManifest)
	txt, _ := os.ReadFile(m)
	os.WriteFile(m, bytes.Replace(txt, []byte(`"complete": true`), []byte(`"complete": false`), 1), 0o644)
	code, _, errs = serq(t, "sweep", "merge", "--out", out, a)
	if code != 2 || !strings.HasPrefix(errs, "error: shard "+a+" is incomplete: 4 of its 4 runs done\n") {
		t.Errorf("incomplete shard: exit %d, %q", code, errs)
	}
}

// TestSweepUsageErrors: bad command lines exit 2 with a clear message and
// the usage line, before anything runs or is written.
func TestSweepUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "never")
	base := []string{"sweep", seedProgram, "--horizon", "10", "--out", out}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "nope=1,2"}, "unknown input `nope` in --vary; the program's inputs are blocksD, thr, Lambda\nhelp: vary an input declared by args.number"},
		{[]string{"--vary", "thr="}, "--vary thr has no values\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{"--vary", "thr=512:1:1"}, "the range --vary thr=512:1:1 is reversed: 512 > 1\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{"--vary", "thr=1:512:0"}, "the step of --vary thr=1:512:0 is 0; expected a step > 0\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{"--vary", "thr=1:2"}, "invalid range `1:2` in --vary thr; expected A:B:STEP\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{"--vary", "thr=1,x"}, "invalid value `x` in --vary thr; expected a finite number\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{"--vary", "thr=1,1"}, "value 1 appears twice in --vary thr\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{"--vary", "thr=1", "--vary", "thr=2"}, "--vary thr is given twice\nhelp: list every value of an input in one --vary"},
		{[]string{"--vary", "1x=1"}, "invalid --vary `1x=1`; expected NAME=values\nhelp: use --vary NAME=V1,V2,… or --vary NAME=A:B:STEP (A ≤ B, STEP > 0)"},
		{[]string{}, "nothing to vary\nhelp: add --vary NAME=V1,V2,… or --vary NAME=A:B:STEP with an input declared by args.number"},
		{[]string{"--vary", "thr=1", "--seeds", "20-1"}, "invalid value `20-1` for --seeds; expected a range A-B with A ≤ B, or a list N,M,…\nhelp: use --seeds 1-20"},
		{[]string{"--vary", "thr=1", "--seeds", "1-x"}, "invalid value `1-x` for --seeds; expected a range A-B with A ≤ B, or a list N,M,…\nhelp: use --seeds 1-20"},
		{[]string{"--vary", "thr=1", "--seeds", "3,3"}, "invalid value `3,3` for --seeds; expected a range A-B with A ≤ B, or a list N,M,…\nhelp: use --seeds 1-20"},
		{[]string{"--vary", "thr=1", "--shard", "2/2"}, "shard index 2 is out of range for 2 shards; expected 0 ≤ i < 2\nhelp: shards are numbered from 0, as a Kubernetes completion index is"},
		{[]string{"--vary", "thr=1", "--shard", "-1/2"}, "shard index -1 is out of range for 2 shards; expected 0 ≤ i < 2\nhelp: shards are numbered from 0, as a Kubernetes completion index is"},
		{[]string{"--vary", "thr=1", "--shard", "1"}, "invalid value `1` for --shard; expected i/n\nhelp: use --shard 0/4 for the first of 4 parts"},
		{[]string{"--vary", "thr=1", "--jobs", "0"}, "invalid value `0` for --jobs; expected a positive integer\nhelp: use --jobs " + strconv.Itoa(defaultJobs())},
		{[]string{"--vary", "thr=1", "--metric", "ttft.mean"}, "--metric chooses what --plot draws\nhelp: add --plot"},
		{[]string{"--vary", "thr=1", "--warmup", "10"}, "warmup 10 is not below the horizon 10"},
	}
	for _, tt := range tests {
		code, stdout, errs := serq(t, append(append([]string{}, base...), tt.args...)...)
		if want := "error: " + tt.want + "\nusage: " + sweepUsage + "\n"; code != 2 || errs != want || stdout != "" {
			t.Errorf("sweep %v: exit %d, stdout %q, stderr\n%s\nwant\n%s", tt.args, code, stdout, errs, want)
		}
	}
	code, _, errs := serq(t, "sweep", seedProgram, "--vary", "thr=1")
	if code != 2 || errs != "error: missing --horizon\nhelp: every run of a sweep needs --horizon T, the simulated end time\nusage: "+sweepUsage+"\n" {
		t.Errorf("no horizon: exit %d, %q", code, errs)
	}
	code, _, errs = serq(t, "sweep", seedProgram, "--vary", "thr=1", "--horizon", "10", "--plot")
	if code != 2 || errs != "error: --plot needs --out DIR: the charts are files in DIR\nhelp: add --out sweep\nusage: "+sweepUsage+"\n" {
		t.Errorf("--plot without --out: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused sweep created %s", out)
	}
}

// failing is a program whose runs fail when r < 0.
const failing = `use "std/args";
fn main() {
  let r = args.number("r", 1);
  stage s : delay;
  workload { arrive poisson(1); init { set t0 = now; } }
  server { run s (cost(s, r)); observe w = now - t0; }
}
`

// TestSweepFailingPoint: a point whose runs fail is a row with the error
// and the sweep goes on (exit 1 at the end); --fail-fast stops it.
func TestSweepFailingPoint(t *testing.T) {
	prog := writeProgram(t, "fail.sq", failing)
	dir := t.TempDir()
	code, out, errs := serq(t, "sweep", prog, "--vary", "r=1,-1,2", "--seeds", "1-2", "--horizon", "5", "--out", dir, "--jobs", "2")
	if code != 1 || errs != "serq sweep: 2 of 6 runs failed; the error of each is in its row\n" ||
		out != "sweep: 3 points × 2 seeds: 6 runs, 2 failed; wrote "+dir+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	files := readDir(t, dir)
	msg := prog + ":6:19: the amount of `run s (…)` is -1: an amount may not be negative"
	want := "point,r,seed,w.count,w.mean,w.ci,w.p99,response.count,response.mean,response.ci,response.p99,rejected,stuck,error\n" +
		"0,1,1,9,1,inf,1.0000000000000002,9,1,inf,1.0000000000000002,0,0,\n" +
		"0,1,2,4,1,inf,1,4,1,inf,1,0,0,\n" +
		"1,-1,1,,,,,,,,,,," + msg + "\n" +
		"1,-1,2,,,,,,,,,,," + msg + "\n" +
		"2,2,1,8,2,inf,2,8,2,inf,2,0,0,\n" +
		"2,2,2,4,2,inf,2,4,2,inf,2,0,0,\n"
	if files[sweepRunsCSV] != want {
		t.Errorf("runs.csv:\n%s\nwant\n%s", files[sweepRunsCSV], want)
	}
	sum := sha256.Sum256([]byte(failing))
	wantManifest := `{
  "serq_version": "0.1.0",
  "file": ` + strconv.Quote(prog) + `,
  "sha256": "` + hex.EncodeToString(sum[:]) + `",
  "sets": [],
  "defs": [],
  "args": [],
  "vary": [
    {"name": "r", "values": [1, -1, 2]}
  ],
  "seeds": [1, 2],
  "horizon": 5,
  "warmup": 0,
  "points": 3,
  "runs": 6,
  "shard": null,
  "shard_runs": 6,
  "done": 6,
  "failed": 2,
  "complete": true
}
`
	if files[sweepManifest] != wantManifest {
		t.Errorf("sweep.json:\n%s\nwant\n%s", files[sweepManifest], wantManifest)
	}
	if !strings.Contains(files[sweepSummary], "1,-1,w.mean,0,NaN,inf,NaN,NaN\n") {
		t.Errorf("summary.csv has no empty row for the failing point:\n%s", files[sweepSummary])
	}

	// --fail-fast with one worker: the runs before the first failure, and it.
	ff := t.TempDir()
	code, out, errs = serq(t, "sweep", prog, "--vary", "r=1,-1,2", "--seeds", "1-2", "--horizon", "5", "--out", ff, "--jobs", "1", "--fail-fast")
	if code != 1 || out != "" || errs != "serq sweep: --fail-fast: the run of point 1 (r=-1) seed 1 failed: "+msg+": 3 of 6 runs done (written to "+ff+")\n" {
		t.Fatalf("--fail-fast: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	files = readDir(t, ff)
	if got := files[sweepRunsCSV]; got != strings.Join(strings.SplitAfter(want, "\n")[:4], "") {
		t.Errorf("--fail-fast runs.csv:\n%s", got)
	}
	if !strings.Contains(files[sweepManifest], `"shard_runs": 6,`+"\n"+`  "done": 3,`+"\n"+`  "failed": 1,`+"\n"+`  "complete": false`) {
		t.Errorf("--fail-fast sweep.json:\n%s", files[sweepManifest])
	}
}

// TestSweepCancel: cancelling a sweep stops its workers; the rows done are
// complete and in job order.
func TestSweepCancel(t *testing.T) {
	spec := &sweepSpec{File: seedProgram, Vary: []sweepVary{{"Lambda", []float64{0.3, 0.6, 0.9}}}, Seeds: []uint64{1, 2, 3, 4}, Horizon: 200, Shards: 1}
	c := &sweepCmd{loadFlags: loadFlags{File: seedProgram}}
	ld, err := c.loader(&env{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	jobs := shardJobs(spec, 0)
	calls := 0
	rows, err := runSweep(ctx, spec, ld, jobs, 2, false, func(done []sweepRow) {
		calls++
		if len(done) == 3 {
			cancel()
		}
	})
	if err == nil || err.Error() != "interrupted" {
		t.Fatalf("err %v", err)
	}
	if len(rows) != calls || len(rows) < 3 || len(rows) > 4 {
		t.Fatalf("%d rows, %d progress calls", len(rows), calls)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].Job <= rows[i-1].Job || rows[i].Err != "" || len(rows[i].Obs) != 7 {
			t.Errorf("row %d: %+v", i, rows[i])
		}
	}
}

// TestSweepInterruptHelper is `serq` itself when run by TestSweepInterrupt.
func TestSweepInterruptHelper(t *testing.T) {
	if os.Getenv("SERQ_SWEEP_HELPER") != "1" {
		t.Skip("run by TestSweepInterrupt")
	}
	args := strings.Split(os.Getenv("SERQ_ARGS"), "\x1f")
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// TestSweepInterrupt: SIGINT stops a sweep between events; it exits 1
// saying how much was done, and its files hold exactly those runs.
func TestSweepInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a sweep in a child process")
	}
	dir := t.TempDir()
	args := []string{"sweep", seedProgram, "--vary", "Lambda=0.2:2:0.2", "--seeds", "1-4", "--horizon", "300", "--jobs", "1", "--out", dir}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepInterruptHelper$")
	cmd.Env = append(os.Environ(), "SERQ_SWEEP_HELPER=1", "SERQ_ARGS="+strings.Join(args, "\x1f"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first row is saved as soon as it is done.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, sweepManifest)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no sweep.json after 60 s")
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v; stderr %q", err, stderr.String())
	}
	files := readDir(t, dir)
	recs := readCSV(t, files[sweepRunsCSV])
	done := len(recs) - 1
	if want := fmt.Sprintf("serq sweep: interrupted: %d of 40 runs done (written to %s)\n", done, dir); stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q, want %q", stdout.String(), stderr.String(), want)
	}
	if done < 1 || done >= 40 {
		t.Fatalf("%d runs done", done)
	}
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) || r[len(r)-1] != "" || r[4] == "" {
			t.Errorf("incomplete row %q", r)
		}
	}
	if !strings.Contains(files[sweepManifest], fmt.Sprintf(`"done": %d,`+"\n"+`  "failed": 0,`+"\n"+`  "complete": false`, done)) {
		t.Errorf("sweep.json:\n%s", files[sweepManifest])
	}
	var rows []any
	if err := json.Unmarshal([]byte(files[sweepRunsJSON]), &rows); err != nil || len(rows) != done {
		t.Errorf("runs.json: %d rows, %v", len(rows), err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// checkSVG parses an SVG as XML and returns its text.
func checkSVG(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	var text strings.Builder
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			text.Write(tok)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q", path, root)
	}
	return text.String()
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 200 {
		t.Errorf("%s: %v", path, b)
	}
}

// TestSweepPlot: --plot writes an SVG and a PNG per metric, the SVG naming
// its axes and lines, and draws each chart on stdout.
func TestSweepPlot(t *testing.T) {
	dir := t.TempDir()
	out := sweepOK(t, seedSweep(dir, "--plot", "--metric", "ttft.mean", "--metric", "kv_usage_max.mean")...)
	for _, m := range []string{"ttft_mean", "kv_usage_max_mean"} {
		text := checkSVG(t, filepath.Join(dir, "plot", m+".svg"))
		metric := strings.Replace(m, "_mean", ".mean", 1)
		for _, want := range []string{"llmd_nixl_pull.sq: " + metric + " over 2 seeds (95% CI across seeds)", "\nLambda\n", "\n" + metric + "\n", "\nthr=1\n", "\nthr=512\n"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s.svg does not say %q:\n%s", m, want, text)
			}
		}
		checkPNG(t, filepath.Join(dir, "plot", m+".png"))
		checkSVGText(t, filepath.Join(dir, "plot", m+".svg"))
	}
	// The terminal charts' x ticks are round, under their places.
	ticks := regexp.MustCompile(`└─+\n *(.*)\n`).FindAllStringSubmatch(out, -1)
	if len(ticks) != 2 {
		t.Errorf("stdout has %d x axes:\n%s", len(ticks), out)
	}
	for _, m := range ticks {
		if got := strings.Join(strings.Fields(m[1]), " "); got != "0.3 0.35 0.4 0.45 0.5 0.55 0.6" {
			t.Errorf("x ticks %q", got)
		}
	}
	for _, want := range []string{"\nttft.mean against Lambda (mean over 2 seeds)\n", "\nkv_usage_max.mean against Lambda (mean over 2 seeds)\n", "  ● thr=1\n", "  ■ thr=512\n", "└───"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not have %q:\n%s", want, out)
		}
	}
	// An unknown metric is refused before anything runs.
	never := filepath.Join(t.TempDir(), "never")
	code, _, errs := serq(t, append([]string{"sweep"}, seedSweep(never, "--plot", "--metric", "ttft.p50")...)...)
	if code != 2 || !strings.HasPrefix(errs, "error: unknown metric `ttft.p50` for --metric; the sweep's metrics are too_long.count, too_long.mean, too_long.p99, remote_tokens.count,") ||
		!strings.Contains(errs, ", response.p99, running_spread.mean, kv_usage_max.mean, kv_usage_mean.mean, load_spread.mean, rejected, stuck\n") {
		t.Errorf("unknown metric: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(never); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a sweep with an unknown metric created its DIR")
	}
}

// TestRunPlot: serq run --plot DIR charts every gauge over time and every
// observe's CDF.
func TestRunPlot(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := serq(t, "run", seedProgram, "--horizon", "20", "--plot", dir)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, g := range []string{"running_spread", "kv_usage_max", "kv_usage_mean", "load_spread"} {
		text := checkSVG(t, filepath.Join(dir, "gauge_"+g+".svg"))
		if !strings.Contains(text, "llmd_nixl_pull.sq: gauge "+g+" (seed 1)\n") || !strings.Contains(text, "\ntime\n") {
			t.Errorf("gauge_%s.svg:\n%s", g, text)
		}
		checkPNG(t, filepath.Join(dir, "gauge_"+g+".png"))
	}
	for _, o := range []string{"too_long", "remote_tokens", "lease", "local_tokens", "remote", "ttft", "response"} {
		text := checkSVG(t, filepath.Join(dir, "cdf_"+o+".svg"))
		if !strings.Contains(text, "llmd_nixl_pull.sq: observe "+o+", CDF of ") || !strings.Contains(text, "\nfraction of samples ≤ x\n") {
			t.Errorf("cdf_%s.svg:\n%s", o, text)
		}
		checkPNG(t, filepath.Join(dir, "cdf_"+o+".png"))
	}
}

// TestParseVary: lists and ranges, the range's values rounded to the
// decimals it was written with.
func TestParseVary(t *testing.T) {
	tests := map[string]string{
		"x=1,2.5,-3":     "1 2.5 -3",
		"x=0.1:0.5:0.1":  "0.1 0.2 0.3 0.4 0.5",
		"x=1:10:4":       "1 5 9",
		"x=2:2:1":        "2",
		"x=0:1:0.25":     "0 0.25 0.5 0.75 1",
		"x = 1e3 , 2e3 ": "1000 2000",
	}
	for in, want := range tests {
		v, err := parseVary(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var got []string
		for _, x := range v.Values {
			got = append(got, report.FormatFloat(x))
		}
		if v.Name != "x" || strings.Join(got, " ") != want {
			t.Errorf("%s: %s %v, want %s", in, v.Name, got, want)
		}
	}
}

// TestAcrossSeeds: the mean and the Student-t 95 % half-width.
func TestAcrossSeeds(t *testing.T) {
	s := acrossSeeds(0, "m", []float64{1, 2, 3, 4})
	// sd = 1.2909944, t(0.975, 3) = 3.1824463, half-width = t·sd/2.
	if s.N != 4 || s.Mean != 2.5 || math.Abs(s.CI-2.0542603) > 1e-6 || s.Min != 1 || s.Max != 4 {
		t.Errorf("%+v", s)
	}
	if s := acrossSeeds(0, "m", []float64{7}); s.Mean != 7 || !math.IsInf(s.CI, 1) {
		t.Errorf("one seed: %+v", s)
	}
	if s := acrossSeeds(0, "m", nil); !math.IsNaN(s.Mean) || s.N != 0 {
		t.Errorf("no seed: %+v", s)
	}
}

// BenchmarkSweep runs a 10-point × 5-seed sweep of the seed example at
// horizon 100 with one worker and with GOMAXPROCS workers; the ratio of
// the two is the sweep's parallel speed-up.
func BenchmarkSweep(b *testing.B) {
	spec := &sweepSpec{File: seedProgram, Vary: []sweepVary{{"Lambda", []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}}},
		Seeds: []uint64{1, 2, 3, 4, 5}, Horizon: 100, Shards: 1}
	c := &sweepCmd{loadFlags: loadFlags{File: seedProgram}}
	ld, err := c.loader(&env{})
	if err != nil {
		b.Fatal(err)
	}
	jobs := shardJobs(spec, 0)
	for _, workers := range []int{1, defaultJobs()} {
		b.Run(fmt.Sprintf("jobs=%d", workers), func(b *testing.B) {
			for b.Loop() {
				if _, err := runSweep(context.Background(), spec, ld, jobs, workers, false, func([]sweepRow) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// exampleSweepArgs returns the arguments of the `serq sweep` command in a
// script or manifest of examples/sweeps: from "serq sweep" to the end of
// the command (shell continuation lines, or a YAML folded block).
func exampleSweepArgs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "serq sweep examples/")
	if i < 0 {
		t.Fatalf("%s: no serq sweep", path)
	}
	var cmd strings.Builder
	for _, line := range strings.Split(text[i+len("serq sweep "):], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasSuffix(line, ":") {
			break
		}
		more := strings.HasSuffix(line, `\`)
		cmd.WriteString(strings.TrimSuffix(line, `\`) + " ")
		if !more && !strings.HasSuffix(path, ".yaml") {
			break
		}
	}
	return strings.Fields(strings.NewReplacer(`"`, "").Replace(cmd.String()))
}

// TestSweepExamples: the sweeps of examples/sweeps are valid command lines
// (inputs, ranges, seeds, shards, metrics), run here at a horizon of 1 with
// one seed.
func TestSweepExamples(t *testing.T) {
	for _, f := range []string{"study.sh", "lease.sh", "slurm-array.sh", "indexed-job.yaml"} {
		t.Run(f, func(t *testing.T) {
			args := exampleSweepArgs(t, filepath.Join("../../examples/sweeps", f))
			for k := range args {
				switch {
				case k > 0 && args[k-1] == "--horizon":
					args[k] = "1"
				case k > 0 && args[k-1] == "--warmup":
					args[k] = "0"
				case k > 0 && args[k-1] == "--seeds":
					args[k] = "1"
				case k > 0 && args[k-1] == "--out":
					args[k] = t.TempDir()
				case strings.HasPrefix(args[k], "$"): // the scheduler's index and sizes
					args[k] = strings.NewReplacer("$JOB_COMPLETION_INDEX/4", "1/4", "$i/$SHARDS", "1/4", "${SLURM_CPUS_PER_TASK:-1}", "2").Replace(args[k])
				}
			}
			args[0] = "../../" + args[0]
			code, _, errs := serq(t, append([]string{"sweep"}, args...)...)
			if code != 0 || errs != "" {
				t.Fatalf("serq sweep %v: exit %d, %s", args, code, errs)
			}
		})
	}
}

// TestCommonRandomNumbers: the streams docs/sweeps.md says are shared. The
// arrival stream depends on the seed alone, so the routing threshold does
// not change the arrivals, and doubling Λ halves the same gaps: as many
// sessions arrive by t = 50 at Λ = 0.6 as by t = 100 at Λ = 0.3. Another
// seed is another path.
func TestCommonRandomNumbers(t *testing.T) {
	arrivals := func(seed, horizon string, sets ...string) string {
		args := []string{"run", seedProgram, "--json", "--seed", seed, "--horizon", horizon}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		code, out, errs := serq(t, args...)
		if code != 0 {
			t.Fatalf("serq %v: %s", args, errs)
		}
		var rep struct{ Arrivals int }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return strconv.Itoa(rep.Arrivals)
	}
	for _, seed := range []string{"1", "2", "3"} {
		a := arrivals(seed, "50", "Lambda=0.6", "thr=512")
		if b := arrivals(seed, "50", "Lambda=0.6", "thr=1"); b != a {
			t.Errorf("seed %s: %s arrivals with thr=512, %s with thr=1", seed, a, b)
		}
		if c := arrivals(seed, "100", "Lambda=0.3"); c != a {
			t.Errorf("seed %s: %s arrivals by 50 at Λ=0.6, %s by 100 at Λ=0.3", seed, a, c)
		}
	}
	if arrivals("1", "50", "Lambda=0.6") == arrivals("2", "50", "Lambda=0.6") &&
		arrivals("2", "50", "Lambda=0.6") == arrivals("3", "50", "Lambda=0.6") {
		t.Errorf("seeds 1, 2 and 3 give the same arrivals")
	}
}

// TestSweepFailures: a program that can fail a request has the failures
// totals in its rows (runs.csv, runs.json), each what `serq run --json`
// reports summed over the leased pools, as metrics of summary.csv, and
// through a sharded sweep's merge byte for byte.
func TestSweepFailures(t *testing.T) {
	const incident = "../../examples/faults/incident.sq"
	args := func(out string, extra ...string) []string {
		return append([]string{incident, "--vary", "lease=10,30", "--seeds", "1-2", "--horizon", "200", "--warmup", "20", "--out", out}, extra...)
	}
	dir := t.TempDir()
	sweepOK(t, args(dir)...)
	files := readDir(t, dir)
	recs := readCSV(t, files[sweepRunsCSV])
	head := recs[0]
	tail := "rejected,stuck,failed_requests,retries,recomputes,expired,late_reads,failed_reads,lost,stranded,error"
	if got := strings.Join(head[len(head)-11:], ","); got != tail {
		t.Fatalf("runs.csv ends with %s, want %s", got, tail)
	}
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(files[sweepRunsJSON]))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	late := map[string]int64{}
	for i, row := range rows {
		lease, seed := row["inputs"].(map[string]any)["lease"].(json.Number).String(), row["seed"].(json.Number).String()
		code, js, errs := serq(t, "run", incident, "--json", "--horizon", "200", "--warmup", "20", "--seed", seed, "--set", "lease="+lease)
		if code != 0 {
			t.Fatalf("serq run: exit %d: %s", code, errs)
		}
		var rep struct {
			Failures struct {
				Requests, Retries, Recomputes int64
				Leases                        []struct {
					Expired     int64
					LateReads   int64 `json:"late_reads"`
					FailedReads int64 `json:"failed_reads"`
					Lost        int64
					Stranded    int64
				}
			}
		}
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatal(err)
		}
		f := rep.Failures
		want := []int64{f.Requests, f.Retries, f.Recomputes, 0, 0, 0, 0, 0}
		for _, l := range f.Leases {
			for k, n := range []int64{l.Expired, l.LateReads, l.FailedReads, l.Lost, l.Stranded} {
				want[3+k] += n
			}
		}
		for k, m := range failureMetrics {
			w := strconv.FormatInt(want[k], 10)
			if got := row[m].(json.Number).String(); got != w {
				t.Errorf("row %d %s: runs.json %s, serq run --json %s", i, m, got, w)
			}
			if got := recs[i+1][len(head)-9+k]; got != w {
				t.Errorf("row %d %s: runs.csv %s, serq run --json %s", i, m, got, w)
			}
		}
		late[lease] += want[4]
	}
	// The incident's point: a 10 s lease is read after it expired far more
	// often than a 30 s one.
	if late["10"] <= late["30"] || late["30"] == 0 {
		t.Errorf("late reads over two seeds: lease 10 %d, lease 30 %d", late["10"], late["30"])
	}
	for _, m := range failureMetrics {
		if !strings.Contains(files[sweepSummary], ",10,"+m+",2,") {
			t.Errorf("summary.csv has no %s at lease 10:\n%s", m, files[sweepSummary])
		}
	}
	// Two shards merged are the sweep.
	var dirs []string
	for i := range 2 {
		d := t.TempDir()
		sweepOK(t, args(d, "--shard", fmt.Sprintf("%d/2", i))...)
		dirs = append(dirs, d)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if code, _, errs := serq(t, append([]string{"sweep", "merge", "--out", merged}, dirs...)...); code != 0 {
		t.Fatalf("merge: exit %d, %s", code, errs)
	}
	got := readDir(t, merged)
	for _, f := range sweepFiles {
		if got[f] != files[f] {
			t.Errorf("merged %s differs from the unsharded one:\n%s\nwant\n%s", f, got[f], files[f])
		}
	}
	// --metric late_reads is a metric to plot.
	sweepOK(t, args(t.TempDir(), "--plot", "--metric", "late_reads")...)
}
