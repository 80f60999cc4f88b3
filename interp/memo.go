package interp

import (
	"math"

	"github.com/serq/serq/model"
)

// exprMemo evaluates an engine's expression (its budget, chunk or cost)
// again only when what it reads changed. An expression that reads nothing
// but constants, context variables (the clock among them) and the engine's
// registers is a function of those inputs: when they are, bit for bit,
// the last evaluation's, its value is the last value. Most iterations of a
// steady batch read the same inputs; any other expression is evaluated
// every time.
type exprMemo struct {
	e     *model.Expr
	pure  bool
	ctx   []int // context slots read
	regs  []int // registers read
	in    []uint64
	val   float64
	valid bool
}

func newExprMemo(e *model.Expr) exprMemo {
	m := exprMemo{e: e, pure: e != nil}
	if e == nil {
		return m
	}
	e.Walk(func(x *model.Expr) bool {
		switch x.Op {
		case model.ECtx:
			m.ctx = append(m.ctx, x.Slot)
		case model.EReg:
			m.regs = append(m.regs, x.Slot)
		case model.ENum, model.ENeg, model.ENot, model.EAdd, model.ESub, model.EMul, model.EDiv, model.EPow,
			model.ELt, model.ELe, model.EGt, model.EGe, model.EEq, model.ENe, model.EAnd, model.EOr, model.ECond, model.EFunc:
		default:
			m.pure = false
		}
		return m.pure
	})
	m.in = make([]uint64, len(m.ctx)+len(m.regs))
	return m
}

// eval is the expression's value now (curEng is the engine).
func (s *Sim) memoEval(m *exprMemo) float64 {
	if !m.pure || s.noFastPath {
		return s.eval(m.e, nil)
	}
	same := m.valid
	k := 0
	for _, c := range m.ctx {
		v := s.ctx[c]
		if model.Ctx(c) == model.CtxNow {
			v = s.now
		}
		b := math.Float64bits(v)
		if b != m.in[k] {
			same = false
			m.in[k] = b
		}
		k++
	}
	for _, r := range m.regs {
		b := math.Float64bits(s.curEng.regs[r])
		if b != m.in[k] {
			same = false
			m.in[k] = b
		}
		k++
	}
	if same {
		return m.val
	}
	m.val = s.eval(m.e, nil)
	m.valid = true
	return m.val
}
