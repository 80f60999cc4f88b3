package interp

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/serq/serq/model"
)

// evalEdges are the operand values the agreement test combines: signed
// zeros, units, fractions, the extremes of float64, the infinities and NaN.
var evalEdges = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, -2.5, 3,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN()}

// sameFloat is equality of results: the same bits, or both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b)
}

// pureOps are the operators model.EvalOp defines: every op it does not
// panic on. The constant folder (lang's fold) computes with EvalOp.
func pureOps() []model.ExprOp {
	var ops []model.ExprOp
	for op := model.ENum; op <= model.EObsAgg; op++ {
		func() {
			defer func() { _ = recover() }()
			model.EvalOp(op, []float64{1, 2, 3})
			ops = append(ops, op)
		}()
	}
	return ops
}

// pureFuncs are the functions model.EvalFunc defines (lang's foldFunc
// computes with it): every Func it does not panic on.
func pureFuncs() []model.Func {
	var fns []model.Func
	for fn := model.FNone; fn == model.FNone || fn.Info() != nil; fn++ {
		func() {
			defer func() { _ = recover() }()
			model.EvalFunc(fn, []float64{1, 2})
			fns = append(fns, fn)
		}()
	}
	return fns
}

// TestEvalAgreesWithModel runs the interpreter's evaluator and model's
// EvalOp and EvalFunc (what the constant folder computes with) on every
// operator and pure function over every combination of edge values: a
// folded constant and the value computed at run time never differ. Every
// op and function is given three operands; each reads only its own.
func TestEvalAgreesWithModel(t *testing.T) {
	ops, fns := pureOps(), pureFuncs()
	// The operators of model.Operators (those a program writes) and the
	// pure functions of model.Predeclared.
	var wantOps []model.ExprOp
	for _, o := range model.Operators {
		if o.Symbol != "" {
			wantOps = append(wantOps, o.Op)
		}
	}
	if fmt.Sprint(ops) != fmt.Sprint(wantOps) {
		t.Fatalf("model.EvalOp defines %v, model.Operators has %v", ops, wantOps)
	}
	var wantFns []model.Func
	for _, b := range model.Predeclared {
		if b.Kind == model.KFunction {
			wantFns = append(wantFns, b.Fn)
		}
	}
	slices.Sort(wantFns)
	if fmt.Sprint(fns) != fmt.Sprint(wantFns) {
		t.Fatalf("model.EvalFunc defines %v, model.Predeclared's functions are %v", fns, wantFns)
	}
	var s Sim
	n := 0
	for _, a := range evalEdges {
		for _, b := range evalEdges {
			for _, c := range evalEdges {
				vals := []float64{a, b, c}
				args := []*model.Expr{model.Num(a), model.Num(b), model.Num(c)}
				for _, op := range ops {
					want := model.EvalOp(op, vals)
					got := s.evalWith(&model.Expr{Op: op, Args: args}, nil, nil)
					if !sameFloat(got, want) {
						t.Errorf("%v over (%v, %v, %v): interp %v, model.EvalOp %v", op, a, b, c, got, want)
					}
					n++
				}
				for _, fn := range fns {
					want := model.EvalFunc(fn, vals[:2])
					got := s.evalWith(&model.Expr{Op: model.EFunc, Fn: fn, Args: args[:2]}, nil, nil)
					if !sameFloat(got, want) {
						t.Errorf("%v over (%v, %v): interp %v, model.EvalFunc %v", fn, a, b, got, want)
					}
					n++
				}
			}
		}
	}
	if want := len(evalEdges) * len(evalEdges) * len(evalEdges) * (len(wantOps) + len(wantFns)); n != want {
		t.Errorf("%d evaluations, want %d", n, want)
	}
}
