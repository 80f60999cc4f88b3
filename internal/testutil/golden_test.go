package testutil

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenTB is a testing.TB that keeps what a helper reports.
type goldenTB struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *goldenTB) Helper() {}
func (r *goldenTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *goldenTB) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.fatal = true
}
func (r *goldenTB) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// TestGolden: an equal file passes, a different one is reported as a diff
// naming the file and the changed line, a missing one says how to write it,
// and -update writes the file, creating its directory.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &goldenTB{TB: t}
	Golden(r, path, []byte("one\ntwo\n"))
	if len(r.errs) != 0 {
		t.Errorf("equal: %q", r.errs)
	}
	r = &goldenTB{TB: t}
	Golden(r, path, []byte("one\nthree\n"))
	if len(r.errs) != 1 || r.fatal || !strings.HasPrefix(r.errs[0], path+" differs") ||
		!strings.Contains(r.errs[0], "-want +got") || !strings.Contains(r.errs[0], "two") || !strings.Contains(r.errs[0], "three") {
		t.Errorf("different: %q", r.errs)
	}
	r = &goldenTB{TB: t}
	Golden(r, filepath.Join(dir, "missing.golden"), []byte("x"))
	if len(r.errs) != 1 || !r.fatal || !strings.Contains(r.errs[0], "go test -update writes it") {
		t.Errorf("missing: %q", r.errs)
	}
	if Update() {
		t.Skip("the rest sets -update itself")
	}
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("update", "false")
	sub := filepath.Join(dir, "sub", "b.golden")
	r = &goldenTB{TB: t}
	Golden(r, sub, []byte("new\n"))
	if b, err := os.ReadFile(sub); err != nil || string(b) != "new\n" || len(r.errs) != 0 {
		t.Errorf("update: wrote %q, %v; reported %q", b, err, r.errs)
	}
}
