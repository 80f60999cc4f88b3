package interp_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// FuzzRun mutates the example programs: whatever loads must run (a short
// horizon, a bounded number of events) to a report or a run error, never
// a panic. The corpus starts from the examples.
func FuzzRun(f *testing.F) {
	for _, p := range testutil.Examples(f, "../examples") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, b := range testutil.HostileSeeds() {
		f.Add(b)
	}
	f.Add([]byte(testutil.SpillProgram))
	f.Add([]byte(testutil.FaultsProgram))
	read := func(path string) ([]byte, error) { return fs.ReadFile(lib.FS, filepath.Base(path)) }
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := lang.LoadSource("fuzz/a/b.sq", src, lang.Options{Lib: lib.FS, ReadFile: read})
		if err != nil {
			return
		}
		sim, err := interp.New(prog, interp.Options{Horizon: 20, Warmup: 2, Seed: 1})
		if err != nil {
			return
		}
		for n := 0; n < 20000 && sim.Step(); n++ {
		}
		_ = sim.Report()
		if err := sim.Err(); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err) // the interpreter's recover must not hide a broken invariant
		}
	})
}
