package testutil

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Examples lists the example programs under dir (the repository's
// examples/ folder, relative to the calling test's package), in walk
// order, skipping instance files (instances/ folders hold settings, not
// programs). It fails the test when it finds fewer than 9.
func Examples(tb testing.TB, dir string) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "instances" {
			return filepath.SkipDir
		}
		if err == nil && strings.HasSuffix(p, ".sq") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) < 9 {
		tb.Fatalf("found %d example programs under %s, want at least 9", len(files), dir)
	}
	return files
}
