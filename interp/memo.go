package interp

import (
	"math"
	"strconv"
	"strings"

	"github.com/serq/serq/model"
)

// exprShapes finds expressions of the same shape. Each member of a family
// of instances has its own copy of its engine's budget, chunk and cost,
// most often the same tree (a device's functions of the batch's context);
// the engines read one copy of each shape, which at scale stays in the
// cache (64 engines read their cost again at every growth of a batch's
// blocks). Expressions are never written, so a shared one reads as its
// copy does.
type exprShapes map[string]*model.Expr

// shared is the first expression met of e's shape (e if none; nil for nil).
func (m exprShapes) shared(e *model.Expr) *model.Expr {
	if e == nil {
		return nil
	}
	var b strings.Builder
	exprKey(&b, e)
	k := b.String()
	if x, ok := m[k]; ok {
		return x
	}
	m[k] = e
	return e
}

// exprKey writes e's shape: every field of every node.
func exprKey(b *strings.Builder, e *model.Expr) {
	if e == nil {
		b.WriteString("_")
		return
	}
	b.WriteByte('(')
	for _, n := range []uint64{uint64(e.Op), math.Float64bits(e.Num), uint64(e.Slot), uint64(e.Fn)} {
		b.WriteString(strconv.FormatUint(n, 16))
		b.WriteByte(' ')
	}
	b.WriteString(strconv.Quote(e.Name))
	if e.Ref != nil {
		b.WriteString(" ref ")
		b.WriteString(strconv.Itoa(e.Ref.Fam))
		exprKey(b, e.Ref.Index)
	}
	for _, a := range e.Args {
		exprKey(b, a)
	}
	b.WriteByte(')')
}

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
	ctx   []model.Ctx // context slots read
	regs  []int       // registers read
	in    []uint64
	val   float64
	valid bool
}

// memo is the memo of e, by what it reads.
func (s *Sim) memo(e *model.Expr) exprMemo { return newExprMemo(e, s.readsOf(e)) }

func newExprMemo(e *model.Expr, r *model.Reads) exprMemo {
	m := exprMemo{e: e, pure: e != nil && r.Only(model.PureOps|model.OpBits(model.ECtx, model.EReg)), ctx: r.Ctx, regs: r.Regs}
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
