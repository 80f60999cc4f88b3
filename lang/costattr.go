package lang

import (
	"maps"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// A `set` in the server or a session may store a cost, `set c =
// cost(svc, n);`, to be spent later, `run svc (c);`. The attribute then
// has that cost type wherever it is read, and a read must come after a
// `set` on every path: the lowerer walks statements in order, and a
// branch keeps what both arms assign, a loop or a leg nothing of what its
// body does.

// costState is what the lowerer knows of the cost attributes.
type costState struct {
	types   map[int]typ  // each cost attribute's type, from its first `set`
	defined map[int]bool // cost attributes assigned on every path so far
}

// costSet records that slot was just assigned a value of type t.
func (l *lowerer) costSet(pos lexer.Position, name string, slot int, t typ) {
	cs := &l.costs
	if cs.types == nil {
		cs.types, cs.defined = map[int]typ{}, map[int]bool{}
	}
	prev, was := cs.types[slot]
	switch {
	case t.bad():
		return
	case !t.isCost() && was:
		l.errorf(pos, "`%s` holds %s elsewhere: a name is a cost or a number, not both", name, prev)
		return
	case !t.isCost():
		return
	case was && !sameTyp(prev, t):
		l.errorf(pos, "`%s` holds %s elsewhere, %s here: a cost keeps its resources", name, prev, t)
		return
	}
	cs.types[slot] = t
	cs.defined[slot] = true
}

// costRead is the type of attribute slot read at pos: its cost type if it
// holds one, which a `set` must have assigned on every path.
func (l *lowerer) costRead(pos lexer.Position, name string, slot int) typ {
	t, ok := l.costs.types[slot]
	if !ok {
		return nil
	}
	if !l.costs.defined[slot] {
		l.errorf(pos, "`%s` holds %s, read before every path assigns it", name, t)
		return badTyp
	}
	return t
}

// costSnapshot and costRestore bracket a construct whose body may not run
// (or runs in a leg of its own): what it assigns is not assigned after it.
func (l *lowerer) costSnapshot() map[int]bool { return maps.Clone(l.costs.defined) }

func (l *lowerer) costRestore(m map[int]bool) {
	if l.costs.defined != nil {
		l.costs.defined = m
	}
}

// costBranch keeps, after a branch, what was assigned before it and what
// both arms assign.
func (l *lowerer) costBranch(before, then, els map[int]bool) {
	if l.costs.defined == nil {
		return
	}
	out := maps.Clone(before)
	if out == nil {
		out = map[int]bool{}
	}
	for k := range then {
		if els[k] {
			out[k] = true
		}
	}
	l.costs.defined = out
}

// costReset starts a block that runs on its own (the server, a session,
// the workload's init and turn): nothing is assigned yet.
func (l *lowerer) costReset() {
	if l.costs.defined != nil {
		l.costs.defined = map[int]bool{}
	}
}

// serverResources are the resources the server runs, holds, grows or
// loads: the `cost(…)` keys a client session may not name.
func (l *lowerer) serverResources() map[string]bool {
	out := map[string]bool{}
	if l.prog.Server == nil {
		return out
	}
	pool := func(r model.Ref) { out["p:"+l.prog.PoolFams[r.Fam].Name] = true }
	var walk func(b *model.Block)
	walk = func(b *model.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			switch s.Op {
			case model.OpRun:
				for _, r := range s.Stages {
					out["s:"+l.prog.StageFams[r.Fam].Name] = true
				}
			case model.OpHold:
				for _, h := range s.Holds {
					pool(h.Pool)
				}
			case model.OpGrow, model.OpLoad:
				if s.Pool != nil {
					pool(*s.Pool)
				}
			}
			walk(s.Body)
			walk(s.Else)
		}
	}
	walk(l.prog.Server)
	return out
}

// clientCost refuses a client session's cost of a resource the server
// uses: the workload states demand, the deployment what serving costs.
func (l *lowerer) clientCost(c *syntax.Call, t typ) {
	if l.serverRes == nil {
		l.serverRes = l.serverResources()
	}
	for _, k := range t {
		if l.serverRes[k] {
			l.errorf(c.Pos, "the workload cannot cost `%s`, a resource the server uses: a session costs only its own (a think stage, a conversation's hold)", k[2:])
			return
		}
	}
}
