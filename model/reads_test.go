package model

import (
	"fmt"
	"testing"
)

// TestReadsOf summarises an expression of every kind of read: the ops
// (the index's apart), the functions, each context variable, attribute
// and register once in walk order, the members, pictures and observes.
func TestReadsOf(t *testing.T) {
	attr := func(s int) *Expr { return &Expr{Op: EAttr, Slot: s} }
	ctx := func(c Ctx) *Expr { return &Expr{Op: ECtx, Slot: int(c)} }
	used := &Expr{Op: EPool, Fn: PUsed, Ref: &Ref{Fam: 0, Index: &Expr{Op: EAdd, Args: []*Expr{attr(3), Num(1)}}}}
	seen := &Expr{Op: ESeen, Slot: 0, Args: []*Expr{{Op: EStage, Fn: SQueue, Ref: &Ref{}}}}
	e := &Expr{Op: EAdd, Args: []*Expr{
		{Op: EFunc, Fn: FMax, Args: []*Expr{ctx(CtxBatchTokens), ctx(CtxNow)}},
		{Op: EMul, Args: []*Expr{used, {Op: EReg, Slot: 2}}},
		{Op: ESub, Args: []*Expr{ctx(CtxNow), attr(1)}},
		{Op: EAdd, Args: []*Expr{seen, {Op: EObsAgg, Fn: CTotal, Slot: 4}}},
	}}
	r := ReadsOf(e)
	for _, c := range []struct {
		what string
		got  any
		want any
	}{
		{"Ops", r.Ops, OpBits(EAdd, EFunc, ECtx, EMul, EPool, EAttr, ENum, EReg, ESub, ESeen, EStage, EObsAgg)},
		{"IndexOps", r.IndexOps, OpBits(EAdd, EAttr, ENum)},
		{"Fns", r.Fns, FuncBits(FMax, PUsed, SQueue, CTotal)},
		{"Ctx", fmt.Sprint(r.Ctx), fmt.Sprint([]Ctx{CtxBatchTokens, CtxNow})},
		{"Attrs", fmt.Sprint(r.Attrs), "[3 1]"},
		{"Regs", fmt.Sprint(r.Regs), "[2]"},
		{"Members", len(r.Members) == 2 && r.Members[0] == used && r.Members[1] == seen.Args[0], true},
		{"Seen", len(r.Seen) == 1 && r.Seen[0] == seen, true},
		{"Observes", fmt.Sprint(r.Observes), "[4]"},
		{"Only", r.Only(PureOps), false},
		{"Any", r.Any(OpBits(EDraw, EBudget)), false},
		{"CtxWithin", r.CtxWithin(CtxNow, CtxBatchTokens), true},
		{"CtxWithin now", r.CtxWithin(CtxNow), false},
		{"nil", fmt.Sprint(*ReadsOf(nil)), fmt.Sprint(Reads{})},
		{"PureOps", PureOps, OpBits(ENum, ENeg, ENot, EAdd, ESub, EMul, EDiv, EPow, ELt, ELe, EGt, EGe, EEq, ENe, EAnd, EOr, ECond, EFunc)},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}
