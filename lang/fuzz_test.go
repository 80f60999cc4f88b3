package lang

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/lib"
)

// FuzzLoad feeds arbitrary text to the parser and the lowering: any input
// must give a program or errors, never a panic. The corpus starts from the
// example programs.
func FuzzLoad(f *testing.F) {
	_ = filepath.WalkDir("../examples", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".sq") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	// and from the reference's own tests, as the conformance suite ports them
	if files, err := filepath.Glob("../conformance/testdata/*.sq"); err == nil {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				for _, chunk := range strings.Split(string(b), "\n---\n") {
					f.Add([]byte(chunk))
				}
			}
		}
	}
	f.Add([]byte("fn main() { stage s : fifo; workload { arrive poisson(1); } server { run s (cost(s, ~exp(1))); } }"))
	read := func(path string) ([]byte, error) {
		return fs.ReadFile(lib.FS, filepath.Base(path))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := LoadSource("fuzz/a/b.sq", src, Options{Lib: lib.FS, ReadFile: read})
		if err == nil && prog == nil {
			t.Fatal("no program and no error")
		}
		if err != nil && err.Error() == "" {
			t.Fatal("an empty error")
		}
	})
}
