package safeio

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestKindRefusesNamesItDoesNotTake(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("let SECRET_TOKEN = 424242;\n"), 0o600)
	k := Kind{What: "a library", Exts: []string{".sq"}, Limit: 1 << 20}
	_, err := k.Read(secret)
	if err == nil || err.Error() != "open "+secret+": a library is a .sq file" {
		t.Fatalf("err = %v", err)
	}
	tour := Kind{What: "a tour", Exts: []string{".yaml", ".yml"}, Limit: 1 << 20, Quote: []string{".yaml"}}
	if err := tour.Check("t.json", 0); err == nil || err.Error() != "open t.json: a tour is a .yaml or .yml file" {
		t.Errorf("err = %v", err)
	}
	if err := tour.Check("t.yml", 1<<20+1); err == nil || err.Error() != "open t.yml: larger than 1 MiB, the limit for a tour" {
		t.Errorf("err = %v", err)
	}
	if !tour.Quotes("a/t.yaml") || tour.Quotes("shadow") || (Kind{}).Quotes("x.sq") {
		t.Error("Quotes")
	}
}

func TestFileNames(t *testing.T) {
	for in, want := range map[string]string{
		"response": "response", "ttft_mean": "ttft_mean", "../../etc/x": "_.._.._etc_x", "..": "_..", ".hidden": "_.hidden",
		"": "_", "a/b": "a_b", "D.kv[0]": "D.kv_0_", "response\x1b]0;X\x07": "response__0_X_", "é": "é",
		strings.Repeat("x", 300): strings.Repeat("x", 200),
	} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
	got, err := FileNames("observe", []string{"a", "../b"}, ".csv")
	if err != nil || strings.Join(got, " ") != "a.csv _.._b.csv" {
		t.Errorf("FileNames = %q, %v", got, err)
	}
	_, err = FileNames("observe", []string{"x", "a/b", "A_b"}, ".csv")
	if err == nil || err.Error() != `the observes "a/b" and "A_b" would both be written to A_b.csv` {
		t.Errorf("err = %v", err)
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "a\tb\nc": "a\tb\nc", "\x1b]0;X\x07title": "]0;Xtitle", "\x1b[2Jcls": "[2Jcls",
		"csi\u009b31m": "csi31m", "del\x7f": "del", "bad\xffutf8": "bad\ufffdutf8", "é\x00": "é",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := PrintableLine("a\nb\tc\x1b"); got != "a b c" {
		t.Errorf("PrintableLine = %q", got)
	}
}

func TestCSVCells(t *testing.T) {
	for in, want := range map[string]string{
		"=1+cmd|x": "'=1+cmd|x", `=HYPERLINK("http:x").sq:1:1: e`: `'=HYPERLINK("http:x").sq:1:1: e`,
		"+x": "'+x", "-x": "'-x", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx", "'quoted": "''quoted",
		"-1.5": "-1.5", "+2": "+2", "-inf": "-inf", "NaN": "NaN", "plain": "plain", "": "", "a=b": "a=b",
	} {
		got := CSVCell(in)
		if got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
		if back := CSVValue(got); back != in {
			t.Errorf("CSVValue(%q) = %q, want %q", got, back, in)
		}
	}
	var b strings.Builder
	w := NewCSV(&b)
	w.Write([]string{"point", "=1+cmd|x"})
	w.Write([]string{"0", "-2", "=cmd|' /C calc'!A0"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "point,'=1+cmd|x\n0,-2,'=cmd|' /C calc'!A0\n"; b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A second lock on a directory is refused until the first is released,
// and the lock leaves nothing in the directory.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock: %v, want ErrLocked", err)
	}
	unlock()
	again, err := LockDir(dir)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	again()
	if got := dirNames(t, dir); got != "" {
		t.Errorf("the directory holds %q", got)
	}
}

// A signal that ends a process under Guard removes the temporary files
// of its batches under way first, and ends it with 128 plus the
// signal's number.
// The process is this test's binary again (guardChild), stopped by
// SIGTERM while its write is under way.
func TestGuardRemovesTemporariesOnASignal(t *testing.T) {
	if os.Getenv("SAFEIO_GUARD_CHILD") != "" {
		guardChild()
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestGuardRemovesTemporariesOnASignal$")
		cmd.Env = append(os.Environ(), "SAFEIO_GUARD_CHILD="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "writing\n" {
			t.Fatalf("child: %q, %v", line, err)
		}
		if got := dirNames(t, dir); !strings.HasPrefix(got, ".out.sq.tmp") {
			t.Fatalf("before the signal the directory holds %q, want a temporary", got)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: the child ended with %v, want exit status %d", sig, err, 128+int(sig))
		}
		if got := dirNames(t, dir); got != "" {
			t.Errorf("%v: the directory holds %q after the signal, want nothing", sig, got)
		}
	}
}

// guardChild writes DIR/out.sq under Guard, 1 MiB then blocking, and
// says "writing" once the temporary file holds the first MiB.
func guardChild() {
	defer Guard()()
	var b Batch
	b.Create(filepath.Join(os.Getenv("SAFEIO_GUARD_CHILD"), "out.sq"), func(w *bufio.Writer) error {
		w.WriteString(strings.Repeat("x", 1<<20))
		w.Flush()
		os.Stdout.WriteString("writing\n")
		time.Sleep(time.Minute)
		return nil
	})
	os.Exit(3) // not reached: the signal ends the process
}
