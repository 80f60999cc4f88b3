package interp

import (
	"testing"

	"github.com/serq/serq/model"
)

// TestBuiltinsEvaluated evaluates every built-in of model.Predeclared that
// the interpreter computes: a pure function (its Eval), a distribution
// (draw), a stage's and a pool's observable and a debugger's (on a fifo
// stage and a pool), and an observation aggregate. An entry the
// interpreter does not know panics, and fails here.
func TestBuiltinsEvaluated(t *testing.T) {
	s, ss, _ := chooseSim(t, `fn main() {
  pool kv { cap 10; }
  stage s : fifo(1);
  workload { arrive poisson(1); }
  server { hold kv (cost(kv, 1)) { run s (cost(s, 1)); } observe r = 1; }
  claim c : at end (total(r) >= 0);
}`)
	for i := range model.Predeclared {
		b := &model.Predeclared[i]
		t.Run(b.Kind.String()+"/"+b.Name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s %s: %v", b.Kind, b.Name, r)
				}
			}()
			args := make([]*model.Expr, b.Arity())
			for k := range args {
				args[k] = model.Num(1)
			}
			switch {
			case b.Op == model.EFunc, b.Op == model.EDraw:
				s.eval(&model.Expr{Op: b.Op, Fn: b.Fn, Args: args}, ss)
			case b.Op == model.EStage:
				s.eval(&model.Expr{Op: b.Op, Fn: b.Fn, Ref: &model.Ref{}}, ss)
			case b.Op == model.EPool:
				s.eval(&model.Expr{Op: b.Op, Fn: b.Fn, Ref: &model.Ref{}}, ss)
			case b.Op == model.EObsAgg:
				s.eval(&model.Expr{Op: b.Op, Fn: b.Fn}, ss)
			case b.Kind == model.KContext:
				s.eval(&model.Expr{Op: model.ECtx, Slot: int(b.Ctx)}, ss)
			case b.Fn != model.FNone:
				t.Errorf("%s %s: a function of op %v that the test does not evaluate", b.Kind, b.Name, b.Op)
			}
		})
	}
}
