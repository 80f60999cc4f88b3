package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fullWriter fails every write, as stdout on /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

func TestFailedStdoutIsExit1(t *testing.T) {
	p := writeProgram(t, "p.sq", minimal)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"check", p},
		{"ir", p},
		{"run", p, "--horizon", "10"},
		{"run", p, "--horizon", "10", "--json"},
		{"draw", p},
		{"draw", p, "--format", "txt"},
		{"--version"},
		{"run", "--help"},
		{"run", p, "--horizon", "10", "--dump", filepath.Join(dir, "d")},
	} {
		var errb strings.Builder
		code := run(args, fullWriter{}, &errb)
		if code != 1 {
			t.Errorf("serq %s > /dev/full: exit %d, want 1", strings.Join(args, " "), code)
		}
		if want := "serq: cannot write the output: no space left on device\n"; !strings.HasSuffix(errb.String(), want) {
			t.Errorf("serq %s > /dev/full: stderr %q, want it to end %q", strings.Join(args, " "), errb.String(), want)
		}
	}
}

func TestDumpDoesNotWriteThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	p := writeProgram(t, "p.sq", "fn main() { stage s : delay; workload { arrive poisson(1); } server { run s (cost(s, 1)); observe response = 1; } }\n")
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	if err := os.Symlink("../victim.txt", filepath.Join(out, "response.csv")); err != nil {
		t.Fatal(err)
	}
	code, _, errs := serq(t, "run", p, "--horizon", "5", "--dump", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the symlink's target became %q", b)
	}
	fi, err := os.Lstat(filepath.Join(out, "response.csv"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("response.csv: %v, %v; want a regular file in place of the symlink", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "response.csv")); !strings.HasPrefix(string(b), "time,session,turn,value\n") {
		t.Errorf("response.csv = %q", b)
	}
}

func TestDumpRefusesASymlinkedGaugeDirectory(t *testing.T) {
	dir := t.TempDir()
	p := writeProgram(t, "p.sq", "fn main() { pool kv { cap 10; } gauge u = used(kv); stage s : delay; workload { arrive poisson(1); } server { run s (cost(s, 1)); } }\n")
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(out, "gauge")); err != nil {
		t.Fatal(err)
	}
	// The program declares a gauge: its file goes to out/gauge, which is
	// a symlink, so the run must fail with exit 1 and write nothing.
	code, stdout, errs := serq(t, "run", p, "--horizon", "5", "--dump", out)
	if code != 1 {
		t.Errorf("exit %d (stdout %q), want 1: a dump into a symlinked gauge directory is refused", code, stdout)
	}
	want := "cannot write " + out + ": " + filepath.Join(out, "gauge") + " is not a directory (a symlink is not followed)\n"
	if !strings.HasSuffix(errs, want) {
		t.Errorf("stderr %q, want it to end %q", errs, want)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the symlink's target holds %v", ents)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("out holds %v, want only the symlink: a failed dump changes no file", ents)
	}
}

func TestDrawOutDoesNotWriteThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	p := writeProgram(t, "p.sq", minimal)
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	out := filepath.Join(dir, "fig.svg")
	os.Symlink(victim, out)
	if code, _, errs := serq(t, "draw", p, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the symlink's target became %q", b)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "<svg") && !strings.HasPrefix(string(b), "<?xml") {
		t.Errorf("fig.svg = %.40q", b)
	}
}

func TestTUISignalsStopAndExit128PlusTheSignal(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGHUP, 129}, {syscall.SIGINT, 130}, {syscall.SIGQUIT, 131}, {syscall.SIGTERM, 143}} {
		err := runTUI(func(ctx context.Context) error {
			syscall.Kill(os.Getpid(), c.sig)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Second):
				return errors.New("the context was not cancelled")
			}
		})
		var ierr *interruptedError
		if !errors.As(err, &ierr) || ierr.code() != c.code {
			t.Errorf("%v: err %v, want an interruptedError with exit %d", c.sig, err, c.code)
			continue
		}
		if want := "interrupted by " + sigName(c.sig) + ": the TUI stopped and restored the terminal"; err.Error() != want {
			t.Errorf("%v: %q, want %q", c.sig, err, want)
		}
	}
}
