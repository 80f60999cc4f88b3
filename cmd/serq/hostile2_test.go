package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The second round of hostile input (issue 28) where a txtar case of
// testdata/hostile cannot say it: a terminal, concurrency, file contents.

// tui --record link.cast wrote through the symlink and was not atomic:
// the cast is renamed into place at the end, the link replaced, its
// target untouched.
func TestTUIRecordReplacesASymlink(t *testing.T) {
	seed := "../../examples/pd-disaggregation/llmd_nixl_pull.sq"
	dir := t.TempDir()
	victim, cast := filepath.Join(dir, "victim"), filepath.Join(dir, "link.cast")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, cast); err != nil {
		t.Fatal(err)
	}
	p := startPTY(t, []string{"tui", seed, "--horizon", "20", "--record", cast}, "NO_COLOR=1")
	p.waitFor("PAUSED", 60*time.Second)
	if names := dirEntries(t, dir); !slices.Contains(names, "link.cast") || len(names) != 3 {
		t.Errorf("while recording the directory holds %q, want the link, its target and a temporary", names)
	}
	p.ptmx.Write([]byte("q"))
	if err := p.wait(60*time.Second, "q"); err != nil {
		t.Fatalf("serq tui: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target became %q", b)
	}
	fi, err := os.Lstat(cast)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("link.cast is %v, %v; want a regular file", fi, err)
	}
	if b, _ := os.ReadFile(cast); !strings.HasPrefix(string(b), `{"version":2,`) {
		t.Errorf("the cast begins %.40q", b)
	}
	if got := dirEntries(t, dir); strings.Join(got, " ") != "link.cast victim" {
		t.Errorf("the directory holds %q, want link.cast victim", got)
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// Sixteen concurrent runs dumping into one directory left the files of
// four different seeds mixed, with no error. A run writing a directory
// locks it: the others are refused at once, and every file in it is one
// run's.
func TestConcurrentDumpsIntoOneDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	seed := "../../examples/single-turn/mmc.sq"
	type result struct {
		code           int
		stdout, stderr string
	}
	results := make([]result, 16)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			r := &results[i]
			r.code, r.stdout, r.stderr = serq(t, "run", seed, "--horizon", "2000", "--seed", fmt.Sprint(i+1), "--dump", dir)
		})
	}
	wg.Wait()
	var won []int
	for i, r := range results {
		switch {
		case r.code == 0:
			won = append(won, i+1)
		case r.code != 1 || r.stderr != seed+": cannot write "+dir+": another serq is writing it\n":
			t.Errorf("seed %d: exit %d, stderr %q", i+1, r.code, r.stderr)
		}
	}
	if len(won) == 0 {
		t.Fatal("no run wrote the directory")
	}
	// The files are those of one run that wrote them, alone.
	got := treeFiles(t, dir)
	for _, s := range won {
		want := filepath.Join(t.TempDir(), "want")
		if code, _, stderr := serq(t, "run", seed, "--horizon", "2000", "--seed", fmt.Sprint(s), "--dump", want); code != 0 {
			t.Fatal(stderr)
		}
		if maps.Equal(treeFiles(t, want), got) {
			return
		}
	}
	t.Errorf("the directory's files are no single run's (runs that wrote it: seeds %v)", won)
}

// treeFiles are the files under dir by path, with their contents.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The 64/64 seed's IR (2.3 MB) was refused by run ("larger than 1 MiB")
// though families up to 4096 are allowed: an IR may be 1 GiB.
func TestLargeIRRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a run of 64 prefill and 64 decode instances")
	}
	src, err := os.ReadFile("../../examples/pd-disaggregation/llmd_nixl_pull.sq")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(strings.Replace(string(src), "let NP = 2;", "let NP = 64;", 1), "let ND = 2;", "let ND = 64;", 1)
	dir := t.TempDir()
	prog, ir := filepath.Join(dir, "seed64.sq"), filepath.Join(dir, "seed64.json")
	if err := os.WriteFile(prog, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := serq(t, "ir", prog, "--horizon", "20")
	if code != 0 {
		t.Fatal(stderr)
	}
	if len(out) < 2<<20 {
		t.Fatalf("the IR is %d bytes, want over 2 MiB", len(out))
	}
	os.WriteFile(ir, []byte(out), 0o644)
	_, want, _ := serq(t, "run", prog, "--horizon", "20")
	if code, got, stderr := serq(t, "run", ir); code != 0 || got != want {
		t.Errorf("run of the IR: exit %d, %s\n%s\nwant:\n%s", code, stderr, got, want)
	}
}

// CSV formula injection: a program named =HYPERLINK("http:x").sq whose
// runs fail, and a varied input named =1+cmd|x in a tampered shard,
// passed into runs.csv and summary.csv as formulas. Every CSV cell a
// spreadsheet would read as one gets a leading '; runs.json keeps the raw
// text.
func TestSweepCSVCellsAreNeutralised(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	name := `=HYPERLINK("http:x").sq`
	src := "use \"std/args\";\nfn main() {\n  let lam = args.number(\"lam\", 3);\n  stage s : fifo(lam - 1);\n  workload { arrive poisson(lam); }\n  server { run s (cost(s, 1)); }\n}\n"
	os.WriteFile(name, []byte(src), 0o644)
	code, _, stderr := serq(t, "sweep", name, "--vary", "lam=1,2", "--horizon", "5", "--out", "o")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	runs, _ := os.ReadFile("o/runs.csv")
	lines := strings.Split(string(runs), "\n")
	if want := `0,1,1,,,,,,,"'=HYPERLINK(""http:x"").sq:4:18: a fifo stage has a whole number of servers, at least 1, not 0"`; lines[1] != want {
		t.Errorf("runs.csv's failed row:\n%s\nwant:\n%s", lines[1], want)
	}
	var rows []map[string]any
	b, _ := os.ReadFile("o/runs.json")
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if e, _ := rows[0]["error"].(string); !strings.HasPrefix(e, name+":4:18:") {
		t.Errorf("runs.json keeps %q, want the raw error", e)
	}

	// A tampered shard: its varied input renamed, in the manifest and the
	// header.
	code, _, stderr = serq(t, "sweep", name, "--vary", "lam=2,3", "--horizon", "5", "--out", "s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"s/sweep.json", "s/runs.csv"} {
		b, _ := os.ReadFile(f)
		os.WriteFile(f, []byte(strings.Replace(string(b), "lam", "=1+cmd|x", 1)), 0o644)
	}
	// … and a row's error cell (its last) made a formula.
	b, _ = os.ReadFile("s/runs.csv")
	rows2 := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	rows2[1] += `=cmd|' /C calc'!A0`
	os.WriteFile("s/runs.csv", []byte(strings.Join(rows2, "\n")+"\n"), 0o644)
	// The runs.csv header, written raw by the tamperer, reads back as the
	// name; merged, it is neutralised again.
	if code, _, stderr := serq(t, "sweep", "merge", "--out", "m", "s"); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"m/runs.csv", "m/summary.csv"} {
		b, _ := os.ReadFile(f)
		if head := strings.SplitN(string(b), "\n", 2)[0]; !strings.HasPrefix(head, "point,'=1+cmd|x,") {
			t.Errorf("%s's header: %s", f, head)
		}
	}
	if b, _ := os.ReadFile("m/runs.json"); !strings.Contains(string(b), `"inputs":{"=1+cmd|x":2}`) ||
		!strings.Contains(string(b), `"error":"=cmd|' /C calc'!A0"`) {
		t.Errorf("runs.json keeps no raw name or error: %.400s", b)
	}
	if b, _ := os.ReadFile("m/runs.csv"); !strings.Contains(string(b), ",'=cmd|' /C calc'!A0\n") {
		t.Errorf("m/runs.csv:\n%s", b)
	}
}
