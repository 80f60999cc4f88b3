package model

import "slices"

// Reads summarises what an expression reads: the ops of its nodes, the
// functions its observables and aggregates apply, the context variables,
// attributes and registers it reads, and the members it names. It is what
// every fast path of the interpreter asks of an expression (may a memo
// keep its value, is a gauge a function of some pools, does a choose's
// index hold, …), computed once per expression by ReadsOf.
type Reads struct {
	// Ops has bit 1<<op for the op of every node, the member indexes'
	// nodes included; IndexOps those of the nodes of member indexes alone
	// (Ref.Index, at any depth).
	Ops, IndexOps uint64
	// Fns has bit 1<<fn for the function of every node that applies one.
	Fns uint64
	// Ctx, Attrs and Regs are the context variables, the attribute slots
	// and the registers read (of the engine evaluating it, or a gauge's
	// named one), each once, in the order of a depth-first walk.
	Ctx   []Ctx
	Attrs []int
	Regs  []int
	// Members are the nodes that name a member (a Ref: observables,
	// budgets, up and a gauge's registers), in walk order.
	Members []*Expr
	// Seen are the picture reads (ESeen), in walk order; Observes the
	// observe slots of the observation aggregates, each once.
	Seen     []*Expr
	Observes []int
}

// Bits are a set of ops: OpBits(EAdd, ESub).
func OpBits(ops ...ExprOp) uint64 {
	var b uint64
	for _, o := range ops {
		b |= 1 << o
	}
	return b
}

// FuncBits are a set of functions: FuncBits(PUsed, PFree).
func FuncBits(fns ...Func) uint64 {
	var b uint64
	for _, f := range fns {
		b |= 1 << f
	}
	return b
}

// PureOps are the ops whose nodes are a function of their operands alone
// (Operator.Pure): numbers, the operators and the pure functions.
var PureOps = func() uint64 {
	var b uint64
	for _, o := range Operators {
		if o.Pure {
			b |= 1 << o.Op
		}
	}
	return b
}()

// ReadsOf summarises e (nil reads nothing).
func ReadsOf(e *Expr) *Reads {
	r := &Reads{}
	r.add(e, false)
	return r
}

func (r *Reads) add(e *Expr, index bool) {
	if e == nil {
		return
	}
	r.Ops |= 1 << e.Op
	if index {
		r.IndexOps |= 1 << e.Op
	}
	if e.Fn != FNone {
		r.Fns |= 1 << e.Fn
	}
	switch e.Op {
	case ECtx:
		if c := Ctx(e.Slot); !slices.Contains(r.Ctx, c) {
			r.Ctx = append(r.Ctx, c)
		}
	case EAttr:
		if !slices.Contains(r.Attrs, e.Slot) {
			r.Attrs = append(r.Attrs, e.Slot)
		}
	case EReg:
		if !slices.Contains(r.Regs, e.Slot) {
			r.Regs = append(r.Regs, e.Slot)
		}
	case ESeen:
		r.Seen = append(r.Seen, e)
	case EObsAgg:
		if !slices.Contains(r.Observes, e.Slot) {
			r.Observes = append(r.Observes, e.Slot)
		}
	}
	if e.Ref != nil {
		r.Members = append(r.Members, e)
		r.add(e.Ref.Index, true)
	}
	for _, a := range e.Args {
		r.add(a, index)
	}
}

// Only reports whether every node is of an op of ops.
func (r *Reads) Only(ops uint64) bool { return r.Ops&^ops == 0 }

// Any reports whether some node is of an op of ops.
func (r *Reads) Any(ops uint64) bool { return r.Ops&ops != 0 }

// CtxWithin reports whether every context variable read is one of cs.
func (r *Reads) CtxWithin(cs ...Ctx) bool {
	for _, c := range r.Ctx {
		if !slices.Contains(cs, c) {
			return false
		}
	}
	return true
}
