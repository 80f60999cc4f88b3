package interp_test

import (
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
)

// TestFastPathCompiled holds the compiled statements to the reference
// path's evalWith (Options.NoFastPath compiles nothing): the same steps
// and the same report, bit for bit.
func TestFastPathCompiled(t *testing.T) {
	p := loadInline(t, "compiled.sq", testutil.CompiledProgram)
	differential(t, p, interp.Options{Horizon: 400, Warmup: 40, Seed: 7}, 0)
	differential(t, p, interp.Options{Horizon: 400, Warmup: 40, Seed: 8, Lean: true}, 0)
}
