package model

import "math"

// EvalOp applies a pure operator to evaluated operands: it is the
// semantics of the operators. The constant folder (lang) computes with it;
// the interpreter evaluates the same operators inline on its hot path, and
// interp's TestEvalAgreesWithModel checks the two on every operator and
// pure function over every combination of edge values (signed zeros, the
// extremes, the infinities, NaN), so a folded constant and a computed
// value never differ. An operator added here is refused by that test until
// the interpreter and the test know it.
func EvalOp(op ExprOp, v []float64) float64 {
	switch op {
	case ENeg:
		return -v[0]
	case ENot:
		return b2f(v[0] == 0)
	case EAdd:
		return v[0] + v[1]
	case ESub:
		return v[0] - v[1]
	case EMul:
		return v[0] * v[1]
	case EDiv:
		return v[0] / v[1]
	case EPow:
		return math.Pow(v[0], v[1])
	case ELt:
		return b2f(v[0] < v[1])
	case ELe:
		return b2f(v[0] <= v[1])
	case EGt:
		return b2f(v[0] > v[1])
	case EGe:
		return b2f(v[0] >= v[1])
	case EEq:
		return b2f(v[0] == v[1])
	case ENe:
		return b2f(v[0] != v[1])
	case EAnd:
		return b2f(v[0] != 0 && v[1] != 0)
	case EOr:
		return b2f(v[0] != 0 || v[1] != 0)
	case ECond:
		if v[0] != 0 {
			return v[1]
		}
		return v[2]
	}
	panic("model: EvalOp of " + op.String())
}

// EvalFunc applies a pure function (its Predeclared entry's Eval); like
// EvalOp, it is what the folder computes with and what the interpreter is
// checked against.
func EvalFunc(f Func, v []float64) float64 {
	b := f.Info()
	if b == nil || b.Eval == nil {
		panic("model: EvalFunc of " + f.String())
	}
	if len(v) == 1 {
		return b.Eval(v[0], 0)
	}
	return b.Eval(v[0], v[1])
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
