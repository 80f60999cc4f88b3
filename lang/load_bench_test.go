package lang_test

import (
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// benchmarkLoad loads path as `serq run` does (the library embedded).
func benchmarkLoad(b *testing.B, path string) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lang.Load(path, lang.Options{Lib: lib.FS}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadSeed is the load (read, parse, lower, check) of the seed
// program, the fixed cost of every run of it.
func BenchmarkLoadSeed(b *testing.B) {
	benchmarkLoad(b, "../examples/pd-disaggregation/llmd_nixl_pull.sq")
}

// BenchmarkLoadMG1 is the load of the M/G/1 example that bench/run.sh
// compares with the hand-written floor.
func BenchmarkLoadMG1(b *testing.B) {
	benchmarkLoad(b, "../examples/single-turn/mg1.sq")
}
