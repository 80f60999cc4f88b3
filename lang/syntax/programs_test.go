package syntax_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
)

// checkFormatted formats src and checks that the result keeps the tokens
// and is its own format; it returns the result.
func checkFormatted(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	out, err := syntax.Format(name, src)
	if err != nil {
		t.Fatalf("Format(%s): %v", name, err)
	}
	if diff := cmp.Diff(syntax.CodeTokens(t, src), syntax.CodeTokens(t, out)); diff != "" {
		t.Fatalf("Format(%s) changed the tokens (-before +after):\n%s", name, diff)
	}
	again, err := syntax.Format(name, out)
	if err != nil {
		t.Fatalf("Format(Format(%s)): %v", name, err)
	}
	if diff := cmp.Diff(string(out), string(again)); diff != "" {
		t.Fatalf("Format(%s) is not idempotent (-once +twice):\n%s", name, diff)
	}
	return out
}

// TestFormatPrograms formats every .sq file of the repository (examples,
// the library, the chunks of lang/testdata/errors.sq and of the conformance
// cases): the result keeps
// the tokens, is idempotent, and a program that loads lowers to the same
// IR but for positions.
func TestFormatPrograms(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".sq") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "errors.sq" || strings.Contains(filepath.ToSlash(f), "conformance/testdata/") {
			for i, c := range testutil.Read(f, t) {
				if _, err := syntax.Parse("chunk.sq", []byte(c.Source)); err == nil {
					checkFormatted(t, f+" chunk "+string(rune('0'+i%10)), []byte(c.Source))
				}
			}
			continue
		}
		out := checkFormatted(t, f, src)
		before, err := lang.Load(f, lang.Options{})
		if err != nil {
			continue // a library: definitions only
		}
		after, err := lang.Load(f, lang.Options{ReadFile: func(p string) ([]byte, error) {
			if p == f {
				return out, nil
			}
			return os.ReadFile(p)
		}})
		if err != nil {
			t.Errorf("%s formatted does not load: %v", f, err)
			continue
		}
		if diff := cmp.Diff(testutil.IRWithoutPositions(t, before), testutil.IRWithoutPositions(t, after)); diff != "" {
			t.Errorf("%s: formatting changed the IR (-before +after):\n%s", f, diff)
		}
		loaded++
	}
	if loaded < 10 {
		t.Errorf("only %d programs loaded and compared; the examples are %d at least", loaded, 10)
	}
}
