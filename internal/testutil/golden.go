package testutil

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	// The one -update flag of the repository is x/exp/golden's, which the
	// TUI's screenshot tests use: imported here, it is registered once in
	// every test binary that compares golden files, and `go test ./...
	// -update` rewrites them all.
	_ "github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"
)

// Update reports whether the tests run with -update: golden files are then
// rewritten instead of compared.
func Update() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with the golden file at path (relative to the test's
// package directory) and reports a difference as a cmp.Diff (-want +got).
// Under -update it writes got to path instead, creating its directory.
func Golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (go test -update writes it)", err)
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		tb.Errorf("%s differs (go test -update rewrites it) (-want +got):\n%s", path, diff)
	}
}
