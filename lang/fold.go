package lang

import "github.com/serq/serq/model"

// Constant folding: an operator or pure function over constants is
// computed at load time with model.EvalOp and model.EvalFunc, the
// operators' one semantics (interp checks it computes the same).

// fold builds an operator node, folding it when every operand is constant.
func fold(op model.ExprOp, args ...*model.Expr) *model.Expr {
	vals := make([]float64, len(args))
	for i, a := range args {
		x, ok := a.IsConst()
		if !ok {
			// Short-circuit operators fold on a decisive constant left side.
			if i == 1 {
				if l, ok := args[0].IsConst(); ok {
					if op == model.EAnd && l == 0 {
						return model.Num(0)
					}
					if op == model.EOr && l != 0 {
						return model.Num(1)
					}
				}
			}
			return &model.Expr{Op: op, Args: args}
		}
		vals[i] = x
	}
	return model.Num(model.EvalOp(op, vals))
}

func foldFunc(fn model.Func, args ...*model.Expr) *model.Expr {
	vals := make([]float64, len(args))
	for i, a := range args {
		x, ok := a.IsConst()
		if !ok {
			return &model.Expr{Op: model.EFunc, Fn: fn, Args: args}
		}
		vals[i] = x
	}
	return model.Num(model.EvalFunc(fn, vals))
}
