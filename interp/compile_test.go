package interp_test

import (
	"testing"

	"github.com/serq/serq/interp"
)

// compiledProgram has a statement of each compiled form (compile.go) in
// the init, turn, session and server blocks and in the bodies of a
// branch, an else, a while, a hold and a fork leg: constants, attributes,
// the clock, `now - a`, `now - a - b`, the other arithmetic over leaves
// (a product that is then added among them), `~exp` of a number and of an
// attribute.
const compiledProgram = `fn main() {
  stage s : fifo(2);
  stage d : delay;
  stage think : delay;
  pool slots { cap 3; }
  workload {
    arrive poisson(1.5);
    init { set t0 = now; set a = ~exp(0.5); set b = ~exp(a); set c = a * b + 1; set k = 2; }
    turn { set m = ~exp(1); }
    session { turn; while (turn_no < 3) { run think (cost(think, m)); turn; } end; }
  }
  server {
    set t1 = now;
    run s (cost(s, a));
    observe wait = now - t0;
    observe less = now - t0 - a;
    observe ratio = a / b;
    observe mix = (a - b) * c;
    observe fma = a * b + c;
    observe two = k;
    observe clock = now;
    observe one = 1;
    branch (a > b) { observe big = now - t1; } else { observe small = c - 1; }
    hold slots (cost(slots, 1)) { run d (cost(d, b)); observe held = now - t1 - b; }
    fork { run d (cost(d, c)); observe leg = now - t1; }
    join;
  }
}
`

// TestFastPathCompiled holds the compiled statements to the reference
// path's evalWith (Options.NoFastPath compiles nothing): the same steps
// and the same report, bit for bit.
func TestFastPathCompiled(t *testing.T) {
	p := loadInline(t, "compiled.sq", compiledProgram)
	differential(t, p, interp.Options{Horizon: 400, Warmup: 40, Seed: 7}, 0)
	differential(t, p, interp.Options{Horizon: 400, Warmup: 40, Seed: 8, Lean: true}, 0)
}
