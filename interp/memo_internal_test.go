package interp

import (
	"math"
	"testing"

	"github.com/serq/serq/model"
)

// TestExprShapes: expressions of one shape, every field of every node
// alike, are shared; a difference anywhere (a number's bits, a slot, a
// function, a family, a member's index, an argument, a name) keeps them
// apart. The seed's engines at 4/4, each with its own copy of the same
// budget and cost, read one of each.
func TestExprShapes(t *testing.T) {
	mk := func(num float64, fam int, idx float64, name string) *model.Expr {
		return &model.Expr{Op: model.EAdd, Args: []*model.Expr{
			{Op: model.ENum, Num: num},
			{Op: model.EPool, Fn: model.PUsed, Ref: &model.Ref{Fam: fam, Index: &model.Expr{Op: model.ENum, Num: idx}}, Name: name},
		}}
	}
	m := exprShapes{}
	first := mk(1, 0, 2, "kv")
	if m.shared(first) != first || m.shared(mk(1, 0, 2, "kv")) != first || m.shared(nil) != nil {
		t.Fatal("the same shape is not shared")
	}
	for i, e := range []*model.Expr{mk(math.Copysign(0, -1), 0, 2, "kv"), mk(0, 0, 2, "kv"), mk(1, 1, 2, "kv"), mk(1, 0, 3, "kv"), mk(1, 0, 2, "reqs"),
		{Op: model.EAdd, Args: first.Args[:1]}, {Op: model.ESub, Args: first.Args}} {
		if m.shared(e) != e {
			t.Errorf("shape %d is taken for another's", i)
		}
	}
	p := loadSeedText(t, seedPath, "let NP = 2;", "let NP = 4;", "let ND = 2;", "let ND = 4;")
	s, err := New(p, Options{Horizon: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	costs, budgets := map[*model.Expr]bool{}, map[*model.Expr]bool{}
	for i := range s.engs {
		e := &s.engs[i]
		if e.costM.e == e.m.Cost && i > 0 {
			t.Errorf("engine %d reads its own copy of the cost", i)
		}
		costs[e.costM.e], budgets[e.budgetM.e] = true, true
	}
	if len(s.engs) != 8 || len(costs) != 1 || len(budgets) != 1 {
		t.Fatalf("%d engines read %d costs and %d budgets, want 8, 1 and 1", len(s.engs), len(costs), len(budgets))
	}
}
