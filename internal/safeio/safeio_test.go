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

func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, fifo, "/dev/zero", "/dev/null"} {
		_, err := Kind{What: "a source file", Limit: 1 << 20}.Read(p)
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Read(%s) = %v, want %v", p, err, ErrNotRegular)
		}
	}
}

func TestReadCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 1025)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Kind{What: "a source file", Limit: 1024}.Read(p)
	if err == nil || err.Error() != "larger than 1 KiB, the limit for a source file" {
		t.Fatalf("err = %v", err)
	}
	b, err := Kind{What: "a source file", Limit: 1025}.Read(p)
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

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// Files of Open are written as the caller goes, hidden until Commit, and
// renamed with Create's in the order closed.
func TestBatchOpen(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.csv"), filepath.Join(dir, "c.csv")
	os.WriteFile(a, []byte("old a\n"), 0o600)
	var b Batch
	fa, err := b.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := b.Open(c)
	if err != nil {
		t.Fatal(err)
	}
	fa.W.WriteString("new ")
	fc.W.WriteString("c\n")
	fa.W.WriteString("a\n")
	if got, _ := os.ReadFile(a); string(got) != "old a\n" {
		t.Errorf("a = %q before Commit", got)
	}
	if err := fc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fa.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fa.Close(); err != ErrClosed {
		t.Errorf("a second Close = %v, want ErrClosed", err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "new a\n", c: "c\n"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if fi, _ := os.Stat(c); fi.Mode().Perm() != 0o666&^umask() {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if got := dirNames(t, dir); got != "a.csv c.csv" {
		t.Errorf("the directory holds %q, want a.csv c.csv", got)
	}
}

// Abort removes an open file's temporary file; Commit removes one never
// closed and renames the rest.
func TestBatchOpenAbort(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	os.WriteFile(a, []byte("old a\n"), 0o600)
	var b Batch
	f, err := b.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	f.W.WriteString(strings.Repeat("x", 100<<10)) // past the buffer: on disk
	b.Abort()
	if err := f.Close(); err != ErrClosed {
		t.Errorf("Close after Abort = %v, want ErrClosed", err)
	}
	if got := dirNames(t, dir); got != "a.csv" {
		t.Errorf("the directory holds %q after Abort, want only a.csv", got)
	}
	if got, _ := os.ReadFile(a); string(got) != "old a\n" {
		t.Errorf("a = %q", got)
	}
	if _, err := b.Open(a); err != ErrClosed {
		t.Errorf("Open after Abort = %v, want ErrClosed", err)
	}

	var b2 Batch
	left, _ := b2.Open(filepath.Join(dir, "left.csv"))
	left.W.WriteString(strings.Repeat("y", 100<<10))
	done, _ := b2.Open(filepath.Join(dir, "done.csv"))
	done.W.WriteString("d\n")
	if err := done.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b2.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); got != "a.csv done.csv" {
		t.Errorf("the directory holds %q after Commit, want a.csv done.csv", got)
	}
}
