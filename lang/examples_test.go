package lang

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lib"
)

// TestExamplesCheck loads every example program and every library file.
func TestExamplesCheck(t *testing.T) {
	files := testutil.Examples(t, "../examples")
	for _, f := range files {
		if _, err := Load(f, Options{Lib: lib.FS}); err != nil {
			t.Errorf("Load(%s):\n%v", f, err)
		}
	}
}

// TestLibraryFiles parses each library and expands its defs in a program.
func TestLibraryFiles(t *testing.T) {
	entries, err := fs.ReadDir(lib.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sq") {
			continue
		}
		src := "use \"lib/" + e.Name() + "\";\nfn main() { }\n"
		dir := t.TempDir()
		path := filepath.Join(dir, "main.sq")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path, Options{Lib: lib.FS}); err != nil {
			t.Errorf("a program using %s: %v", e.Name(), err)
		}
	}
}
