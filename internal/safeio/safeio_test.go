package safeio

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, fifo, "/dev/zero", "/dev/null"} {
		_, err := ReadFile(p, 1<<20, "a source file")
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %v, want %v", p, err, ErrNotRegular)
		}
	}
}

func TestReadFileCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 1025)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, 1024, "a source file")
	if err == nil || err.Error() != "larger than 1 KiB, the limit for a source file" {
		t.Fatalf("err = %v", err)
	}
	b, err := ReadFile(p, 1025, "a source file")
	if err != nil || len(b) != 1025 {
		t.Fatalf("at the cap: %d bytes, %v", len(b), err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 1024: "1 KiB", 8 << 20: "8 MiB", 1 << 30: "1 GiB", 1500: "1500 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBatchReplacesASymlinkAndKeepsItsTarget(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	if err := os.Symlink(victim, out); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the symlink's target became %q", b)
	}
	fi, err := os.Lstat(out)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("out is %v, %v; want a regular file", fi, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "new\n" {
		t.Errorf("out = %q", b)
	}
}

func TestBatchAbortLeavesThePreviousFiles(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.csv"), filepath.Join(dir, "c.csv")
	os.WriteFile(a, []byte("old a\n"), 0o600)
	var b Batch
	if err := b.Create(a, func(w *bufio.Writer) error { _, err := w.WriteString("new a\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := b.Create(c, func(w *bufio.Writer) error { w.WriteString("half"); return boom }); err != boom {
		t.Fatalf("err = %v", err)
	}
	b.Abort()
	if got, _ := os.ReadFile(a); string(got) != "old a\n" {
		t.Errorf("a = %q", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the directory holds %d entries, want only a.csv: %v", len(ents), ents)
	}
	if err := b.Commit(); err != ErrClosed {
		t.Errorf("Commit after Abort = %v", err)
	}
}

func TestBatchCommitMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.csv")
	if err := WriteFile(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if want := 0o666 &^ umask(); fi.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
	}
}
