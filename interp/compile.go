package interp

import (
	"math"
	"reflect"

	clone "github.com/huandu/go-clone"

	"github.com/serq/serq/model"
)

// Statements in specialised forms: the blocks sessions run, each
// statement's expression classified once, when the run is built, so that
// the commonest expressions of a session (a constant, an attribute, the
// clock, `now - attr`, `now - attr - attr`, `~exp(mean)`) are evaluated in
// one step instead of a walk of evalWith's recursion, and a `?:` whose
// condition is a constant is decided once. Each form does evalWith's float
// operations in evalWith's order (a product that is added again is
// rounded first, as evalWith's return rounds it), so a result is the same
// bit for bit; an expression of any other shape keeps its evalWith.
//
// A frame carries its block's compiled form (frame.cb). With
// Options.NoFastPath nothing is compiled: every frame's cb is nil and every
// statement is evaluated by evalWith, which the differential tests hold
// the compiled runs to.

// cprog is the compiled form of a program's session blocks. It is built
// once per run and never changed, like the program it reads: checkpoints
// share it (the init below). With NoFastPath it is empty: every block nil.
type cprog struct {
	blocks  map[*model.Block]*cblock
	init    *cblock // the workload's init block
	turn    *cblock // the workload's turn block
	session *cblock // the workload's session block
	server  *cblock // the server block
}

// cblock is a block's statements, in the block's order.
type cblock struct {
	stmts []cstmt
}

// cstmt is one statement: its Value's form, and the compiled blocks of
// its bodies.
type cstmt struct {
	op   model.Op
	slot int
	st   *model.Stmt
	val  cexpr
	body *cblock
	els  *cblock
}

func init() {
	// The compiled blocks are immutable, as the program is: a checkpoint
	// shares them instead of copying them.
	clone.MarkAsOpaquePointer(reflect.TypeOf((*cprog)(nil)))
	clone.MarkAsOpaquePointer(reflect.TypeOf((*cblock)(nil)))
}

// compileProgram compiles every block a session can run.
func (s *Sim) compileProgram() {
	c := &cprog{blocks: map[*model.Block]*cblock{}}
	w := &s.p.Workload
	c.init = c.block(w.Init)
	c.turn = c.block(w.Turn)
	c.session = c.block(w.Session)
	c.server = c.block(s.p.Server)
	s.cprog = c
}

// block compiles b (nil for a nil block), once.
func (c *cprog) block(b *model.Block) *cblock {
	if b == nil {
		return nil
	}
	if cb, ok := c.blocks[b]; ok {
		return cb
	}
	cb := &cblock{stmts: make([]cstmt, len(b.Stmts))}
	c.blocks[b] = cb
	for i, st := range b.Stmts {
		cs := &cb.stmts[i]
		cs.op, cs.slot, cs.st = st.Op, st.Slot, st
		cs.val = compileExpr(st.Value)
		cs.body = c.block(st.Body)
		cs.els = c.block(st.Else)
	}
	return cb
}

// of is b's compiled block (a hold's body, which admit pushes without
// its statement's), nil without a compiled program (NoFastPath) or for a
// block that is not a session's.
func (c *cprog) of(b *model.Block) *cblock { return c.blocks[b] }

// xform is the shape of a compiled expression.
type xform uint8

const (
	xGeneric xform = iota // evalWith(e)
	xLeaf                 // a
	xBin                  // a op1 b
	xBin2                 // (a op1 b) op2 c
	xExp                  // ~exp(a): -a · ln(1 − u)

	// the commonest of those, without the leaves' and operators' switches
	xNum            // a, a number
	xAttr           // a, an attribute
	xNow            // a, the clock
	xNowSubAttr     // now - a, a an attribute
	xNowSubAttrAttr // now - a - b, a and b attributes
	xExpNum         // ~exp(a), a a number
)

// leaf kinds: the operands a compiled expression reads directly.
const (
	lNum  uint8 = iota // num
	lAttr              // the session's attribute slot
	lNow               // the clock
	lCtx               // context variable slot
)

type xleaf struct {
	kind uint8
	slot int32
	num  float64
}

// cexpr is an expression in its compiled form; e is the expression itself
// (xGeneric evaluates it).
type cexpr struct {
	form     xform
	op1, op2 xop // xBin, xBin2
	a, b, c  xleaf
	e        *model.Expr
}

// xop is an arithmetic operator of a compiled expression.
type xop uint8

const (
	xAdd xop = iota
	xSub
	xMul
	xDiv
)

var xops = map[model.ExprOp]xop{model.EAdd: xAdd, model.ESub: xSub, model.EMul: xMul, model.EDiv: xDiv}

// compileExpr classifies e (nil: a generic form that is never evaluated).
func compileExpr(e *model.Expr) cexpr {
	x := classify(e)
	switch {
	case x.form == xLeaf && x.a.kind == lNum:
		x.form = xNum
	case x.form == xLeaf && x.a.kind == lAttr:
		x.form = xAttr
	case x.form == xLeaf && x.a.kind == lNow:
		x.form = xNow
	case x.form == xBin && x.op1 == xSub && x.a.kind == lNow && x.b.kind == lAttr:
		x.form = xNowSubAttr
	case x.form == xBin2 && x.op1 == xSub && x.op2 == xSub && x.a.kind == lNow && x.b.kind == lAttr && x.c.kind == lAttr:
		x.form = xNowSubAttrAttr
	case x.form == xExp && x.a.kind == lNum:
		x.form = xExpNum
	}
	return x
}

// classify is compileExpr's general forms.
func classify(e *model.Expr) cexpr {
	// a ?: on a constant is its chosen arm: evalWith evaluates only that
	for e != nil && e.Op == model.ECond && e.Args[0].Op == model.ENum {
		if e.Args[0].Num != 0 {
			e = e.Args[1]
		} else {
			e = e.Args[2]
		}
	}
	x := cexpr{e: e}
	if e == nil {
		return x
	}
	if l, ok := leafOf(e); ok {
		x.form, x.a = xLeaf, l
		return x
	}
	if e.Op == model.EDraw && e.Fn == model.DExp && len(e.Args) == 1 {
		if l, ok := leafOf(e.Args[0]); ok {
			x.form, x.a = xExp, l
		}
		return x
	}
	if !arith(e.Op) {
		return x
	}
	l, r := e.Args[0], e.Args[1]
	b, ok := leafOf(r)
	if !ok {
		return x
	}
	if a, ok := leafOf(l); ok {
		x.form, x.op1, x.a, x.b = xBin, xops[e.Op], a, b
		return x
	}
	if !arith(l.Op) {
		return x
	}
	a, ok1 := leafOf(l.Args[0])
	m, ok2 := leafOf(l.Args[1])
	if ok1 && ok2 {
		x.form, x.op1, x.op2, x.a, x.b, x.c = xBin2, xops[l.Op], xops[e.Op], a, m, b
	}
	return x
}

func arith(op model.ExprOp) bool {
	_, ok := xops[op]
	return ok
}

func leafOf(e *model.Expr) (xleaf, bool) {
	switch e.Op {
	case model.ENum:
		return xleaf{kind: lNum, num: e.Num}, true
	case model.EAttr:
		return xleaf{kind: lAttr, slot: int32(e.Slot)}, true
	case model.ECtx:
		if model.Ctx(e.Slot) == model.CtxNow {
			return xleaf{kind: lNow}, true
		}
		return xleaf{kind: lCtx, slot: int32(e.Slot)}, true
	}
	return xleaf{}, false
}

func (s *Sim) leaf(l *xleaf, ss *session) float64 {
	switch l.kind {
	case lNum:
		return l.num
	case lAttr:
		return ss.attrs[l.slot]
	case lNow:
		return s.now
	}
	return s.ctx[l.slot]
}

// binop is evalWith's arithmetic, each result rounded to float64.
func binop(op xop, a, b float64) float64 {
	switch op {
	case xAdd:
		return float64(a + b)
	case xSub:
		return float64(a - b)
	case xMul:
		return float64(a * b)
	}
	return float64(a / b)
}

// cval evaluates a compiled expression for session ss, drawing from st.
func (s *Sim) cval(x *cexpr, ss *session, st *stream) float64 {
	switch x.form {
	case xNum:
		return x.a.num
	case xAttr:
		return ss.attrs[x.a.slot]
	case xNow:
		return s.now
	case xNowSubAttr:
		return s.now - ss.attrs[x.b.slot]
	case xNowSubAttrAttr:
		return float64(s.now-ss.attrs[x.b.slot]) - ss.attrs[x.c.slot]
	case xExpNum:
		return -x.a.num * math.Log(1-st.u())
	case xLeaf:
		return s.leaf(&x.a, ss)
	case xBin:
		return binop(x.op1, s.leaf(&x.a, ss), s.leaf(&x.b, ss))
	case xBin2:
		return binop(x.op2, binop(x.op1, s.leaf(&x.a, ss), s.leaf(&x.b, ss)), s.leaf(&x.c, ss))
	case xExp:
		return -s.leaf(&x.a, ss) * math.Log(1-st.u())
	}
	return s.evalWith(x.e, ss, st)
}

// value is a statement's Value for session ss: by its compiled form when
// the statement has one (cs), else by eval.
func (s *Sim) value(cs *cstmt, e *model.Expr, ss *session) float64 {
	if cs == nil {
		return s.eval(e, ss)
	}
	return s.cval(&cs.val, ss, ss.stream)
}

// bodyBlock and elseBlock are a compiled statement's bodies, nil without
// one.
func (cs *cstmt) bodyBlock() *cblock {
	if cs == nil {
		return nil
	}
	return cs.body
}

func (cs *cstmt) elseBlock() *cblock {
	if cs == nil {
		return nil
	}
	return cs.els
}
