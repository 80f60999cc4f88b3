package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain makes the test binary serq itself when SERQ_HELPER_ARGS is
// set (a JSON list of arguments): the signal tests run it as a child, so
// that a signal reaches a real process. SERQ_HELPER_SIGNAL=WHERE:SIG
// sends the process SIG when it reaches WHERE ("run" or "dump"), then
// waits until serq has caught it; SERQ_HELPER_FSIZE=N limits the size of
// the files it writes to N bytes.
func TestMain(m *testing.M) {
	if args := os.Getenv("SERQ_HELPER_ARGS"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			panic(err)
		}
		if n, err := strconv.ParseUint(os.Getenv("SERQ_HELPER_FSIZE"), 10, 64); err == nil {
			// a file size limit, so that a write fails (EFBIG: Go ignores
			// SIGXFSZ)
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				panic(err)
			}
		}
		where, sig, _ := strings.Cut(os.Getenv("SERQ_HELPER_SIGNAL"), ":")
		sent := false
		signalHook = func(w string, in *interrupts) {
			if w != where || sent {
				return
			}
			sent = true
			num := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT}[sig]
			syscall.Kill(os.Getpid(), num)
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if catching != nil && catching.stopped() {
					return
				}
			}
		}
		os.Exit(run(list, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// serqChild runs the test binary as serq with args in dir, sending a
// signal at where.
func serqChild(t *testing.T, dir, where, sig string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SERQ_HELPER_ARGS="+string(js), "SERQ_HELPER_SIGNAL="+where+":"+sig)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// long runs for many events and observes every one.
const long = `fn main() {
  stage s : fifo(1);
  workload { arrive poisson(0.5); }
  server { run s (cost(s, ~exp(1))); observe x = 1; }
}
`

func TestSignalStopsTheRun(t *testing.T) {
	for _, c := range []struct {
		sig  string
		code int
	}{{"INT", 130}, {"TERM", 143}, {"HUP", 129}, {"QUIT", 131}} {
		t.Run(c.sig, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "p.sq"), []byte(long), 0o644)
			code, out, errs := serqChild(t, dir, "run", c.sig, "run", "p.sq", "--horizon", "1e7", "--dump", "out")
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if out != "" {
				t.Errorf("stdout %q, want none", out)
			}
			want := "serq run: interrupted by SIG" + c.sig + ": the run stopped at t=244.878 after 256 events; no report written\n"
			if errs != want {
				t.Errorf("stderr %q, want %q", errs, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
				t.Errorf("out/ exists (%v): nothing is written before the run ends", err)
			}
		})
	}
}

func TestSignalDuringADumpKeepsThePreviousFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.sq"), []byte(strings.Replace(long, "observe x = 1;", "observe x = 1; observe y = 2;", 1)), 0o644)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "x.csv"), []byte("old x\n"), 0o644)
	code, stdout, errs := serqChild(t, dir, "dump", "TERM", "run", "p.sq", "--horizon", "20000", "--dump", "out")
	if code != 143 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 143 and none", code, stdout)
	}
	if want := "serq run: interrupted by SIGTERM: the dump was abandoned, no file in out changed; no report written\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "x.csv" {
		t.Errorf("out/ holds %v, want only the previous x.csv (no partial or temporary file)", names)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "x.csv")); string(b) != "old x\n" {
		t.Errorf("x.csv = %q, want the previous content", b)
	}
}

// A SIGTERM during fmt's write left its temporary file (81–200 MB, when
// fmt padded comments without bound) behind: the signal removes it, the
// file stays as it was, and fmt exits 143.
func TestSignalDuringFmtLeavesNoTemporary(t *testing.T) {
	for _, c := range []struct {
		sig  string
		code int
	}{{"TERM", 143}, {"INT", 130}, {"HUP", 129}, {"QUIT", 131}} {
		dir := t.TempDir()
		src := "fn main() {\nstage s : delay;\n}\n"
		os.WriteFile(filepath.Join(dir, "p.sq"), []byte(src), 0o644)
		code, stdout, errs := serqChild(t, dir, "fmt", c.sig, "fmt", "p.sq")
		if code != c.code || stdout != "" || errs != "" {
			t.Errorf("SIG%s: exit %d, stdout %q, stderr %q; want %d and nothing printed", c.sig, code, stdout, errs, c.code)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || ents[0].Name() != "p.sq" {
			t.Errorf("SIG%s: the directory holds %v, want p.sq alone", c.sig, ents)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "p.sq")); string(b) != src {
			t.Errorf("SIG%s: p.sq became %q", c.sig, b)
		}
	}
}
