package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/serq/serq/internal/testutil"
)

// dumpFiles reads every file under dir, by path relative to it.
func dumpFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDumpGoldens: `serq run --dump` writes its files as the run goes (a
// lean run streaming to a sink), and they are the bytes the dump wrote from
// a run that kept every sample and change point: the goldens under
// testdata/dump were written by that dump, before the streaming. The
// examples chosen have observes of every kind (times, tests, token counts)
// and gauges that change at many instants.
func TestDumpGoldens(t *testing.T) {
	for _, c := range []struct {
		example string
		horizon float64
	}{
		{"single-turn/mg1.sq", 60},
		{"multi-turn/vllm.sq", 20},
		{"pd-disaggregation/vllm_nixl_push.sq", 20},
		{"pd-disaggregation/llmd_nixl_pull.sq", 15},
	} {
		name := strings.ReplaceAll(strings.TrimSuffix(c.example, ".sq"), "/", "_")
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			h := strconv.FormatFloat(c.horizon, 'g', -1, 64)
			w := strconv.FormatFloat(c.horizon/10, 'g', -1, 64)
			code, _, errs := serq(t, "run", "../../examples/"+c.example, "--horizon", h, "--warmup", w, "--seed", "2", "--dump", dir)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			got := dumpFiles(t, dir)
			golden := filepath.Join("testdata", "dump", name)
			want := map[string][]byte{}
			if !testutil.Update() {
				want = dumpFiles(t, golden)
			}
			var names []string
			for n := range got {
				names = append(names, n)
			}
			for n := range want {
				if _, ok := got[n]; !ok {
					t.Errorf("%s: not written", n)
				}
			}
			slices.Sort(names)
			for _, n := range names {
				testutil.Golden(t, filepath.Join(golden, filepath.FromSlash(n)), got[n])
			}
		})
	}
}

// TestDumpFailsEarly: a DIR that cannot be made fails before the run, with
// the file system's error, and leaves nothing behind.
func TestDumpFailsEarly(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "f")
	os.WriteFile(file, nil, 0o644)
	p := writeProgram(t, "p.sq", long)
	code, stdout, errs := serq(t, "run", p, "--horizon", "1e9", "--dump", filepath.Join(file, "out"))
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and none", code, stdout)
	}
	if want := p + ": cannot write " + filepath.Join(file, "out") + ": mkdir " + file + ": not a directory\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
}

// TestDumpRunFailureLeavesNothing: a run that fails (here, more sessions
// live than --max-live) leaves neither the files nor the directories the
// dump made, and the previous files of a DIR that was there.
func TestDumpRunFailureLeavesNothing(t *testing.T) {
	p := writeProgram(t, "p.sq", `fn main() {
  stage s : fifo(1);
  workload { arrive poisson(5); }
  server { run s (cost(s, 1)); observe x = 1; }
  gauge q = 1;
}
`)
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "b")
	code, _, _ := serq(t, "run", p, "--horizon", "1000", "--max-live", "50", "--dump", fresh)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(base, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s/a is left (%v): a failed run leaves no directory it made", base, err)
	}
	old := filepath.Join(base, "old")
	os.MkdirAll(filepath.Join(old, "gauge"), 0o755)
	os.WriteFile(filepath.Join(old, "x.csv"), []byte("old x\n"), 0o644)
	if code, _, _ := serq(t, "run", p, "--horizon", "1000", "--max-live", "50", "--dump", old); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	got := dumpFiles(t, old)
	if len(got) != 1 || string(got["x.csv"]) != "old x\n" {
		t.Errorf("the old DIR holds %q, want only the previous x.csv", got)
	}
	if _, err := os.Stat(filepath.Join(old, "gauge")); err != nil {
		t.Errorf("the old DIR's gauge directory: %v, want it kept", err)
	}
}

// TestDumpWriteFailureStopsTheRun: a dump file that cannot be written (a
// file size limit: the write fails with EFBIG) stops the run within 256
// events, not at its end (the horizon here is a day of events away: the
// deadline catches a run that goes on), and leaves no file.
func TestDumpWriteFailureStopsTheRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.sq"), []byte(long), 0o644)
	js, _ := json.Marshal([]string{"run", "p.sq", "--horizon", "1e12", "--dump", "out"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SERQ_HELPER_ARGS="+string(js), "SERQ_HELPER_FSIZE=65536")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatal("the run went on after the dump's write failed")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1; stderr %q", err, errb.String())
	}
	msg := errb.String()
	if !strings.HasPrefix(msg, "p.sq: cannot write out: write out/.response.csv.tmp") || !strings.HasSuffix(msg, ": file too large\n") || out.String() != "" {
		t.Errorf("stdout %q, stderr %q; want none and p.sq: cannot write out: write out/.response.csv.tmp…: file too large", out.String(), msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("out/ is left (%v)", err)
	}
}
