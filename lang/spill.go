package lang

import (
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// spill lowers `spill T via S (work) when (cond);` for one member of a
// pool family (docs/engine.md §5): T is one pool, S one fifo, ps or delay
// stage; work and cond are read at each eviction, with the context of the
// `evict by` keys. report is false for the family's later members, whose
// errors would repeat the first's.
func (l *lowerer) spill(o *syntax.SpillOpt, sc *scope, report bool) *model.Spill {
	saved := len(l.errs)
	defer func() {
		if !report {
			l.errs = l.errs[:saved]
		}
	}()
	sp := &model.Spill{Tier: -1, Stage: -1, Pos: syntax.ToPos(o.Pos)}
	if r, ok := l.resolveRes(o.Tier, sc, resPool); ok {
		if i, ok := l.oneMember(o.Tier, r, "spill to"); ok {
			sp.Tier = l.prog.PoolFams[r.Fam].First + i
		}
	}
	if r, ok := l.resolveRes(o.Stage, sc, resStage); ok {
		if i, ok := l.oneMember(o.Stage, r, "spill via"); ok {
			st := &l.prog.Stages[l.prog.StageFams[r.Fam].First+i]
			if st.Kind == model.Step {
				err := l.errorf(o.Stage.Pos, "`spill … via %s`: `%s` is an engine; a spill is a job on a fifo, ps or delay stage", nameText(o.Stage), nameText(o.Stage))
				err.Hint = "declare a stage for the transfer, e.g. `stage link : fifo;`, and spill via it"
			} else {
				sp.Stage = l.prog.StageFams[r.Fam].First + i
			}
		}
	}
	c := *sc
	c.mom = momSpill
	sp.Work, _ = l.expr(o.Work, &c)
	sp.When, _ = l.expr(o.When, &c)
	return sp
}

// oneMember is the member a spill names: a single pool or stage, or one
// member of a family by a constant index.
func (l *lowerer) oneMember(n *syntax.Name, r resolved, what string) (int, bool) {
	var f model.Family
	if r.kind == resPool {
		f = l.prog.PoolFams[r.Fam]
	} else {
		f = l.prog.StageFams[r.Fam]
	}
	if r.ref.Index == nil {
		if f.Count != 1 {
			err := l.errorf(n.Pos, "`%s %s`: `%s` is a family of %d; a spill names one member", what, nameText(n), nameText(n), f.Count)
			err.Hint = "write `" + nameText(n) + "[i]` with a constant i"
			return 0, false
		}
		return 0, true
	}
	x, ok := r.ref.Index.IsConst()
	if !ok || x < 0 || x >= float64(f.Count) || x != float64(int(x)) {
		l.errorf(n.Pos, "`%s %s`: the index must be a constant from 0 to %d", what, nameText(n), f.Count-1)
		return 0, false
	}
	return int(x), true
}

// spillCycles refuses tiers that come back: a pool whose evicted units,
// tier after tier, would be written into it again. The error is at the
// spill of the first pool, in declaration order, on such a cycle.
func (l *lowerer) spillCycles() {
	pools := l.prog.Pools
	for _, pd := range l.poolAST {
		f := l.prog.PoolFams[pd.fam]
		var opt *syntax.SpillOpt
		for _, o := range pd.ast.Opts {
			if o, ok := o.(*syntax.SpillOpt); ok {
				opt = o
			}
		}
		if opt == nil {
			continue
		}
		for i := f.First; i < f.First+f.Count; i++ {
			seen := map[int]bool{}
			t := i
			for t >= 0 && pools[t].Spill != nil && !seen[t] {
				seen[t] = true
				t = pools[t].Spill.Tier
			}
			if t == i {
				chain := pools[i].Label
				for u := pools[i].Spill.Tier; ; u = pools[u].Spill.Tier {
					chain += " → " + pools[u].Label
					if u == i {
						break
					}
				}
				err := l.errorf(opt.Tier.Pos, "`spill %s`: the tiers come back to `%s` (%s); evicting into a tier must end", nameText(opt.Tier), pools[i].Label, chain)
				err.Hint = "spill into a pool that does not spill, or whose tiers end elsewhere"
				return
			}
		}
	}
}
