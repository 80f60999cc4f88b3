package lang

import (
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

func (l *lowerer) block(b *syntax.Block, sc *scope) *model.Block {
	l.prog.Blocks++
	out := &model.Block{Stmts: []*model.Stmt{}}
	for _, s := range b.Stmts {
		out.Stmts = append(out.Stmts, l.stmt(s, sc)...)
	}
	return out
}

func (l *lowerer) stmtsOf(ss []syntax.Stmt, sc *scope) []*model.Stmt {
	var out []*model.Stmt
	for _, s := range ss {
		out = append(out, l.stmt(s, sc)...)
	}
	return out
}

func one(s *model.Stmt) []*model.Stmt { return []*model.Stmt{s} }

// value lowers an expression of a statement, recording whether it draws.
func (l *lowerer) value(e *syntax.Expr, sc *scope, draws *bool) (*model.Expr, typ) {
	c := *sc
	c.draws = draws
	if c.mom != momInitTurn {
		c.mom = momSession
	}
	return l.expr(e, &c)
}

// stmt lowers one statement in sc: the checks that hold for every
// statement (the lowering limits, what `init` and `turn` may hold), then
// the statement's own lowering.
func (l *lowerer) stmt(s syntax.Stmt, sc *scope) []*model.Stmt {
	if !l.withinLimits(stmtPos(s)) {
		return nil
	}
	if sc.side == sideInitTurn {
		switch s.(type) {
		case *syntax.SetStmt, *syntax.ObserveStmt, *syntax.DeclStmt:
		default:
			l.errorf(stmtPos(s), "the workload's `init` and `turn` blocks hold only `set`, `observe` and `Size`")
			return nil
		}
	}
	switch s := s.(type) {
	case *syntax.TurnStmt:
		return l.turnStmt(s, sc)
	case *syntax.SetStmt:
		out := l.set(s.Pos, s.Name, s.Value, sc, false)
		l.noteStaleSet(s.Name, out)
		return out
	case *syntax.DeclStmt:
		return l.declStmt(s, sc)
	case *syntax.ObserveStmt:
		return l.observe(s, sc)
	case *syntax.HoldStmt:
		out := l.hold(s, sc)
		l.checkStaleHeader(s, out)
		innerHold(sc, s)
		return out
	case *syntax.GrowStmt:
		return l.poolStmt(model.OpGrow, s.Pos, "grow", s.Pool, s.Amount, sc)
	case *syntax.LoadStmt:
		return l.poolStmt(model.OpLoad, s.Pos, "load", s.Pool, s.Amount, sc)
	case *syntax.ReleaseStmt:
		return l.poolStmt(model.OpRelease, s.Pos, "release", s.Pool, nil, sc)
	case *syntax.DropStmt:
		return l.poolStmt(model.OpDrop, s.Pos, "drop", s.Pool, nil, sc)
	case *syntax.RunStmt:
		return l.run(s, sc)
	case *syntax.BranchStmt:
		return l.branch(s, sc)
	case *syntax.WhileStmt:
		return l.while(s, sc)
	case *syntax.LoopStmt:
		return l.loop(s, sc)
	case *syntax.ForkStmt:
		return l.fork(s, sc)
	case *syntax.JoinStmt:
		return l.join(s, sc)
	case *syntax.ChooseStmt:
		return l.choose(s, sc)
	case *syntax.EndStmt:
		return l.end(s, sc)
	case *syntax.MarkStmt:
		return l.mark(s, sc)
	case *syntax.ToolStmt:
		return l.tool(s, sc)
	case *syntax.TransferStmt:
		return l.transfer(s, sc)
	case *syntax.CallStmt:
		if s.Verb != "" {
			return l.entryCall(s, sc)
		}
		return l.stmtDef(s, sc)
	case *syntax.RetiredStmt:
		return l.retired(s)
	}
	return nil
}

// turnStmt lowers `turn;`, which only the session may write.
func (l *lowerer) turnStmt(s *syntax.TurnStmt, sc *scope) []*model.Stmt {
	switch {
	case sc.inFork:
		l.errorf(s.Pos, "a `fork`'s leg may not `turn`")
	case sc.side != sideClient:
		l.errorf(s.Pos, "`turn;` belongs in the workload's `session`, not in the server")
	}
	return one(&model.Stmt{Op: model.OpTurn, Pos: syntax.ToPos(s.Pos)})
}

// declStmt lowers `Size x = e;` and `Cost x = e;` (a record too: one set
// per field).
func (l *lowerer) declStmt(s *syntax.DeclStmt, sc *scope) []*model.Stmt {
	if s.Kind == "Size" && sc.side != sideInitTurn {
		l.errorf(s.Pos, "`Size %s` declares a workload quantity: it belongs in the workload's `init` or `turn`", s.Name)
	}
	if s.Fields == nil {
		return l.set(s.Pos, s.Name, s.Value, sc, s.Kind == "Size")
	}
	var out []*model.Stmt
	for _, f := range s.Fields {
		out = append(out, l.set(f.Pos, s.Name+"."+f.Name, f.Value, sc, false)...)
	}
	return out
}

// branch lowers `branch (c) { … } else { … }` and `branch with (p)`: the
// costs set in either arm are merged after it.
func (l *lowerer) branch(s *syntax.BranchStmt, sc *scope) []*model.Stmt {
	st := &model.Stmt{Op: model.OpBranch, Pos: syntax.ToPos(s.Pos)}
	if s.With {
		p, _ := l.value(s.Cond, sc, &st.Draws)
		st.Value = &model.Expr{Op: model.EDraw, Fn: model.DBernoulli, Args: []*model.Expr{p}}
		st.Draws = true
	} else {
		st.Value = l.guard(s.Cond, sc, &st.Draws, "branch")
	}
	before := l.costSnapshot()
	st.Body = l.block(s.Then, sc)
	then := l.costSnapshot()
	l.costRestore(maps.Clone(before))
	if s.Else != nil {
		st.Else = l.block(s.Else, sc)
	}
	l.costBranch(before, then, l.costSnapshot())
	return one(st)
}

// while lowers `while (c) { … }`, which must make progress.
func (l *lowerer) while(s *syntax.WhileStmt, sc *scope) []*model.Stmt {
	st := &model.Stmt{Op: model.OpWhile, Pos: syntax.ToPos(s.Pos)}
	st.Value = l.guard(s.Cond, sc, &st.Draws, "while")
	loopHolds(sc, s.Body.Stmts)
	before := l.costSnapshot()
	st.Body = l.block(s.Body, sc)
	l.costRestore(before)
	if x, ok := st.Value.IsConst(); !(ok && x == 0) && !l.progresses(st.Body) {
		l.errorf(s.Pos, "a loop without progress: every path through the body must reach a `run` of work, a `hold` whose body does, or `end`")
	}
	return one(st)
}

// loop lowers `loop { … }`, which must make progress.
func (l *lowerer) loop(s *syntax.LoopStmt, sc *scope) []*model.Stmt {
	st := &model.Stmt{Op: model.OpLoop, Pos: syntax.ToPos(s.Pos)}
	loopHolds(sc, s.Body.Stmts)
	before := l.costSnapshot()
	st.Body = l.block(s.Body, sc)
	l.costRestore(before)
	if !l.progresses(st.Body) {
		l.errorf(s.Pos, "a loop without progress: every path through the body must reach a `run` of work, a `hold` whose body does, or `end`")
	}
	return one(st)
}

// fork lowers `fork { … }`: a leg that may not turn, fork, join or end.
func (l *lowerer) fork(s *syntax.ForkStmt, sc *scope) []*model.Stmt {
	switch {
	case sc.inFork:
		l.errorf(s.Pos, "a `fork`'s leg may not fork")
	case sc.preemptBy != "":
		l.errorf(s.Pos, "`fork` inside a hold of `%s`, which may preempt it", sc.preemptBy)
	}
	if l.forkPos == nil {
		l.forkPos = &s.Pos
	}
	c := sc.child()
	c.inFork = true
	c.holds = nil
	before := l.costSnapshot()
	body := l.block(s.Body, c)
	l.costRestore(before)
	return one(&model.Stmt{Op: model.OpFork, Pos: syntax.ToPos(s.Pos), Body: body})
}

// join lowers `join;`.
func (l *lowerer) join(s *syntax.JoinStmt, sc *scope) []*model.Stmt {
	if sc.inFork {
		l.errorf(s.Pos, "a `fork`'s leg may not `join`")
	}
	if l.joinPos == nil {
		l.joinPos = &s.Pos
	}
	return one(&model.Stmt{Op: model.OpJoin, Pos: syntax.ToPos(s.Pos)})
}

// end lowers `end;`, which ends the session (not in an entry or a leg).
func (l *lowerer) end(s *syntax.EndStmt, sc *scope) []*model.Stmt {
	switch {
	case sc.inFork:
		l.errorf(s.Pos, "a `fork`'s leg may not `end`")
	case sc.side == sideEntry:
		l.errorf(s.Pos, "`end;` ends a session: it belongs in the session or the server, not in an entry")
	}
	return one(&model.Stmt{Op: model.OpEnd, Pos: syntax.ToPos(s.Pos)})
}

// mark lowers an entry's `mark x;`: `set Q.x = now`.
func (l *lowerer) mark(s *syntax.MarkStmt, sc *scope) []*model.Stmt {
	if sc.side != sideEntry {
		l.errorf(s.Pos, "`mark %s;` records a moment of a queue entry: it belongs inside an entry", s.Name)
		return nil
	}
	name := sc.q.name + "." + s.Name
	return one(&model.Stmt{Op: model.OpSet, Pos: syntax.ToPos(s.Pos), Slot: l.attr(name),
		Value: &model.Expr{Op: model.ECtx, Slot: int(model.CtxNow), Name: "now"}})
}

// retired refuses a statement of an older dialect with the message naming
// its new form.
func (l *lowerer) retired(s *syntax.RetiredStmt) []*model.Stmt {
	switch s.Word {
	case "prefill", "decode":
		l.errorf(s.Pos, "`%s` is no statement: the mode of a run is written `run E %s (cost(E, n)) growing kv;`", s.Word, s.Word)
	default:
		msg, _ := syntax.Retired(s.Word)
		l.errorf(s.Pos, "%s", msg)
	}
	return nil
}

func stmtPos(s syntax.Stmt) lexer.Position {
	switch s := s.(type) {
	case *syntax.TurnStmt:
		return s.Pos
	case *syntax.SetStmt:
		return s.Pos
	case *syntax.ObserveStmt:
		return s.Pos
	case *syntax.DeclStmt:
		return s.Pos
	case *syntax.HoldStmt:
		return s.Pos
	case *syntax.GrowStmt:
		return s.Pos
	case *syntax.DropStmt:
		return s.Pos
	case *syntax.ReleaseStmt:
		return s.Pos
	case *syntax.LoadStmt:
		return s.Pos
	case *syntax.RunStmt:
		return s.Pos
	case *syntax.BranchStmt:
		return s.Pos
	case *syntax.WhileStmt:
		return s.Pos
	case *syntax.LoopStmt:
		return s.Pos
	case *syntax.ForkStmt:
		return s.Pos
	case *syntax.JoinStmt:
		return s.Pos
	case *syntax.ChooseStmt:
		return s.Pos
	case *syntax.EndStmt:
		return s.Pos
	case *syntax.MarkStmt:
		return s.Pos
	case *syntax.ToolStmt:
		return s.Pos
	case *syntax.TransferStmt:
		return s.Pos
	case *syntax.CallStmt:
		return s.Pos
	case *syntax.RetiredStmt:
		return s.Pos
	}
	return lexer.Position{}
}

// stmtWord names a statement by its keyword, for messages.
func stmtWord(s syntax.Stmt) string {
	switch s := s.(type) {
	case *syntax.TurnStmt:
		return "`turn`"
	case *syntax.SetStmt:
		return "`set`"
	case *syntax.ObserveStmt:
		return "`observe`"
	case *syntax.DeclStmt:
		return "`" + s.Kind + "`"
	case *syntax.HoldStmt:
		return "`hold`"
	case *syntax.GrowStmt:
		return "`grow`"
	case *syntax.DropStmt:
		return "`drop`"
	case *syntax.ReleaseStmt:
		return "`release`"
	case *syntax.LoadStmt:
		return "`load`"
	case *syntax.RunStmt:
		return "`run`"
	case *syntax.BranchStmt:
		return "`branch`"
	case *syntax.WhileStmt:
		return "`while`"
	case *syntax.LoopStmt:
		return "`loop`"
	case *syntax.ForkStmt:
		return "`fork`"
	case *syntax.JoinStmt:
		return "`join`"
	case *syntax.ChooseStmt:
		return "`choose`"
	case *syntax.EndStmt:
		return "`end`"
	case *syntax.MarkStmt:
		return "`mark`"
	case *syntax.ToolStmt:
		return "`tool`"
	case *syntax.TransferStmt:
		return "`transfer`"
	case *syntax.CallStmt:
		if s.Verb != "" {
			return "`" + s.Queue + "." + s.Verb + "(…)`"
		}
		return "`" + s.Queue + "(…)`"
	case *syntax.RetiredStmt:
		return "`" + s.Word + "`"
	}
	return "a statement"
}

// attrName is the attribute a statement in sc assigns when it says name.
func attrName(sc *scope, name string) string {
	if sc.side == sideEntry {
		return sc.q.name + "." + name
	}
	return name
}

func (l *lowerer) set(pos lexer.Position, name string, e *syntax.Expr, sc *scope, size bool) []*model.Stmt {
	switch {
	case name == "more", name == "turn_no":
		// a program may renumber its turns; the turn stream counts them itself
	case reservedNames[name]:
		l.errorf(pos, "`%s` is a context variable or built-in: a `set` may not assign it", name)
		return nil
	case l.failBuiltin(name):
		l.errorf(pos, "`%s` is built in: the run sets it when a request fails or a read loads", name)
		return nil
	}
	if _, ok := l.consts[name]; ok {
		l.errorf(pos, "`%s` is a constant: a name may not be both a `let` and an attribute", name)
		return nil
	}
	full := attrName(sc, name)
	slot := l.attr(full)
	a := &l.prog.Attrs[slot]
	if sc.side == sideInitTurn {
		a.Size = true
	} else if a.Size && sc.side == sideServer && !sc.inFork {
		l.errorf(pos, "`%s` is the workload's (set in `init`/`turn`): the server reads it but may not assign it; assign another attribute", name)
	}
	_ = size
	st := &model.Stmt{Op: model.OpSet, Pos: syntax.ToPos(pos), Slot: slot}
	var t typ
	st.Value, t = l.value(e, sc, &st.Draws)
	l.costSet(pos, name, slot, t)
	return one(st)
}

func isTestExpr(e *syntax.Expr) bool {
	if e.Then != nil {
		return false
	}
	if len(e.Cond.Rest) > 0 || len(e.Cond.Left.Rest) > 0 || e.Cond.Left.Left.Op != "" {
		return true
	}
	u := soleUnary(e)
	switch {
	case u == nil:
		return false
	case u.Op == "!":
		return true
	case u.Pow != nil && u.Pow.Exp == nil && u.Pow.X.Paren != nil:
		return isTestExpr(u.Pow.X.Paren)
	}
	return false
}

func (l *lowerer) observe(s *syntax.ObserveStmt, sc *scope) []*model.Stmt {
	if l.gauges[s.Name] {
		l.errorf(s.Pos, "`%s` names a gauge already: an observe and a gauge may not share a name", s.Name)
	}
	slot, ok := l.observes[s.Name]
	if !ok {
		slot = len(l.prog.Observes)
		l.observes[s.Name] = slot
		l.prog.Observes = append(l.prog.Observes, s.Name)
	}
	st := &model.Stmt{Op: model.OpObserve, Pos: syntax.ToPos(s.Pos), Slot: slot, Test: isTestExpr(s.Value)}
	st.Value, _ = l.value(s.Value, sc, &st.Draws)
	return one(st)
}

// guard lowers a branch or while guard; a constant one must be 0 or 1.
func (l *lowerer) guard(e *syntax.Expr, sc *scope, draws *bool, what string) *model.Expr {
	g, _ := l.value(e, sc, draws)
	if x, ok := g.IsConst(); ok && x != 0 && x != 1 {
		if !(x > 0 && x < 1) {
			l.errorf(e.Pos, "the guard of `%s` is %s, not 0 or 1: a guard is a test", what, fmtNum(x))
			return g
		}
		err := l.errorf(e.Pos, "the guard of `%s` is %s, not 0 or 1: a draw written as a test?", what, fmtNum(x))
		err.Hint = "a guard is a test; to branch with probability p, write `branch with (p)`"
	}
	return g
}

func (l *lowerer) choose(s *syntax.ChooseStmt, sc *scope) []*model.Stmt {
	if reservedNames[s.Name] {
		l.errorf(s.Pos, "`%s` is a context variable or built-in: `choose` may not assign it", s.Name)
		return nil
	}
	if _, ok := l.consts[s.Name]; ok {
		l.errorf(s.Pos, "`%s` is a constant: `choose` needs an attribute", s.Name)
		return nil
	}
	if l.failBuiltin(s.Name) {
		l.errorf(s.Pos, "`%s` is built in: the run sets it when a request fails", s.Name)
		return nil
	}
	st := &model.Stmt{Op: model.OpChoose, Pos: syntax.ToPos(s.Pos), Slot: l.attr(attrName(sc, s.Name)), Among: l.among(s)}
	st.N, _ = l.value(s.N, sc, &st.Draws)
	l.chooseCount(s, st.N)
	for _, k := range s.Keys {
		v, _ := l.value(k, sc, &st.Draws)
		st.Keys = append(st.Keys, v)
	}
	return one(st)
}

// amount checks a consumer's typed amount: want is the cost type it needs.
func (l *lowerer) amount(e *syntax.Expr, got typ, want typ, what string) {
	if sameTyp(got, want) {
		return
	}
	if !got.isCost() {
		err := l.errorf(e.Pos, "%s needs %s, not a bare number", what, want)
		err.Hint = "write `" + strings.TrimSuffix(want.String(), ")") + ", " + exprText(e) + ")`"
		return
	}
	l.errorf(e.Pos, "%s needs %s, not %s", what, want, got)
}

// checkAmount refuses a constant amount that is negative or NaN.
func (l *lowerer) checkAmount(e *syntax.Expr, v *model.Expr, what string) {
	switch x, ok := v.IsConst(); {
	case !ok:
	case math.IsNaN(x):
		l.errorf(e.Pos, "the amount of %s is NaN: an amount must be a number", what)
	case x < 0:
		l.errorf(e.Pos, "the amount of %s is %s: an amount may not be negative", what, fmtNum(x))
	}
}

func (l *lowerer) refText(r *syntax.Ref) string {
	return nameText(refName(r))
}

// hold lowers `hold POOL (units) … { body }`: its admission bindings, the
// pools it takes, its clauses, its body, and the checks over them all.
func (l *lowerer) hold(s *syntax.HoldStmt, sc *scope) []*model.Stmt {
	st := &model.Stmt{Op: model.OpHold, Pos: syntax.ToPos(s.Pos)}
	hs := sc.child()
	hs.mom = momAdmit
	hs.draws = nil
	binds := l.admissionBindings(s, sc, hs)
	held, want, preemptBy := l.holdPools(st, s, sc, hs)
	sortTyp(want)
	l.holdClauses(st, s, hs, held, want)
	l.holdBody(st, s, sc, binds, held, preemptBy)
	if st.Lease > 0 {
		l.leasedFams[st.Holds[st.Lease-1].Pool.Fam] = true
	}
	if preemptBy != "" {
		l.preemptedIndices(s, hs, preemptBy)
	}
	l.indexKept(st, s)
	return one(st)
}

// admissionBind is a binding of a hold's `at admission (x = e)`.
type admissionBind struct {
	name string
	b    *binding
	e    *syntax.Expr
}

// admissionBindings lowers a hold's admission bindings in its header
// scope hs, each a fresh name.
func (l *lowerer) admissionBindings(s *syntax.HoldStmt, sc, hs *scope) []admissionBind {
	var binds []admissionBind
	for _, b := range s.Bindings {
		_, isConst := l.consts[b.Name]
		slot, isAttr := l.attrs[attrName(sc, b.Name)]
		switch {
		case reservedNames[b.Name] || hs.vars.lookup(b.Name) != nil:
			l.errorf(b.Pos, "`%s` cannot name an admission binding: it must be a fresh name", b.Name)
		case isConst:
			l.errorf(b.Pos, "`%s` is a constant: an admission binding takes a fresh name", b.Name)
		case isAttr && !l.bindingAttrs[slot]:
			l.errorf(b.Pos, "`%s` is an attribute already: an admission binding takes a fresh name", b.Name)
		}
		v, t := l.expr(b.Value, hs)
		bb := &binding{val: v, typ: t, pos: b.Pos}
		hs.bind(b.Name, bb)
		binds = append(binds, admissionBind{b.Name, bb, b.Value})
	}
	return binds
}

// holdPools lowers the pools a hold takes, with their units and
// reserves, into st.Holds. It returns them as held pools, the cost type
// of the whole hold, and the pool that may preempt the hold (an enclosing
// hold's, else the first preempting pool of this one).
func (l *lowerer) holdPools(st *model.Stmt, s *syntax.HoldStmt, sc, hs *scope) (held []*heldPool, want typ, preemptBy string) {
	seen := map[string]bool{}
	preemptBy = sc.preemptBy // the pool that may preempt this hold, as written
	for _, hp := range s.Pools {
		r, ok := l.resolveRes(refName(hp.Pool), hs, resPool)
		if !ok {
			continue
		}
		// Two members of a family are two pools; which member a computed
		// index names only the run can tell (it fails on the same one twice).
		member := "whole"
		if r.ref.Index != nil {
			member = fmt.Sprintf("computed %d", len(seen))
			if x, ok := r.ref.Index.IsConst(); ok {
				member = fmtNum(x)
			}
		}
		k := fmt.Sprintf("%d %s", r.Fam, member)
		if seen[k] {
			l.errorf(hp.Pos, "the hold names pool `%s` twice", l.refText(hp.Pool))
		}
		seen[k] = true
		want = append(want, r.key)
		units, ut := l.expr(hp.Units, hs)
		what := "`hold " + l.refText(hp.Pool) + " (…)`"
		l.amount(hp.Units, ut, typ{r.key}, what)
		l.checkAmount(hp.Units, units, what)
		h := model.HoldPool{Pool: r.ref, Units: units}
		if hp.Reserve != nil {
			rv, rt := l.expr(hp.Reserve, hs)
			what := "`reserve (…)` of `" + l.refText(hp.Pool) + "`"
			l.amount(hp.Reserve, rt, typ{r.key}, what)
			l.checkAmount(hp.Reserve, rv, what)
			h.Reserve = rv
		}
		l.neverFits(hp, r, units, h.Reserve)
		st.Holds = append(st.Holds, h)
		pool := l.prog.Pools[l.prog.PoolFams[r.Fam].First]
		if pool.Preempt != model.PreemptNone && preemptBy == "" {
			preemptBy = l.refText(hp.Pool)
		}
		held = append(held, &heldPool{fam: r.Fam, text: l.refText(hp.Pool), key: r.key, ref: r.ref})
	}
	return held, want, preemptBy
}

// holdClauses lowers a hold's `reuse`, `cache` and `lease` clauses, whose
// amounts are of the hold's cost type want.
func (l *lowerer) holdClauses(st *model.Stmt, s *syntax.HoldStmt, hs *scope, held []*heldPool, want typ) {
	if s.Reuse != nil {
		if s.Cache == nil {
			l.errorf(s.Reuse.Pos, "`reuse` needs a `cache` clause: without one the hold does not touch the session's cache")
		}
		v, t := l.expr(s.Reuse, hs)
		l.amount(s.Reuse, t, want, "`reuse (…)`")
		l.checkAmount(s.Reuse, v, "`reuse (…)`")
		st.Reuse = v
	}
	if s.Prefix != nil {
		l.holdPrefix(st, s, hs, held)
	}
	if s.Cache != nil {
		cs := hs.child()
		cs.mom = momSession
		v, t := l.expr(s.Cache, cs)
		l.amount(s.Cache, t, want, "`cache (…)`")
		l.checkAmount(s.Cache, v, "`cache (…)`")
		st.HasCache, st.Cache = true, v
	}
	if s.Lease != nil {
		found := -1
		text := l.refText(s.Lease)
		for i, h := range held {
			if h.text == text {
				found = i
			}
		}
		if found < 0 {
			l.errorf(s.Lease.Pos, "`lease %s`: the hold does not take that pool", text)
		} else {
			st.Lease = found + 1
		}
		ls := hs.child()
		ls.mom = momSession
		var lt typ
		st.LeaseFor, lt = l.expr(s.LeaseFor, ls)
		if lt.isCost() && !lt.bad() {
			l.errorf(s.LeaseFor.Pos, "a lease duration is time, not %s: write the seconds, `lease %s (7)`", lt, text)
		}
		if s.Renew != nil {
			l.renew(st, s, hs)
		}
	}
}

// holdBody lowers a hold's body in a scope that knows the pools held; the
// admission bindings the body reads become attributes set at its top.
func (l *lowerer) holdBody(st *model.Stmt, s *syntax.HoldStmt, sc *scope, binds []admissionBind, held []*heldPool, preemptBy string) {
	bs := sc.child()
	bs.holds = append(append([]*heldPool(nil), sc.holds...), held...)
	bs.preemptBy = preemptBy
	bs.noCache = s.Cache == nil
	bs.cachedAfter = new(string)
	if len(s.Pools) > 0 {
		bs.cachedIn = l.refText(s.Pools[0].Pool)
	}
	var bodyBinds []*binding
	for _, b := range binds {
		bb := &binding{body: true, attr: attrName(sc, b.name), pos: b.b.pos}
		bs.bind(b.name, bb)
		bodyBinds = append(bodyBinds, bb)
	}
	st.Body = l.block(s.Body, bs)
	var pre []*model.Stmt
	for i, bb := range bodyBinds {
		if !bb.used {
			continue
		}
		if readsLive(binds[i].b.val) {
			l.errorf(binds[i].e.Pos, "the body reads `%s`, which reads live state at admission: read it in the header only, or `set` it in the body", binds[i].name)
		}
		pre = append(pre, &model.Stmt{Op: model.OpSet, Pos: syntax.ToPos(bb.pos), Slot: bb.slot, Value: binds[i].b.val})
	}
	if len(pre) > 0 {
		st.Body.Stmts = append(pre, st.Body.Stmts...)
	}
}

// preemptedIndices refuses a computed pool index that reads the clock or
// moving state in a hold that preemptBy may preempt.
func (l *lowerer) preemptedIndices(s *syntax.HoldStmt, hs *scope, preemptBy string) {
	for _, hp := range s.Pools {
		if hp.Pool.Index == nil {
			continue
		}
		if r, ok := l.resolveResQuiet(refName(hp.Pool), hs); ok && r.ref.Index != nil && readsMoving(r.ref.Index) {
			l.errorf(hp.Pool.Index.Pos, "the index of `%s` reads the clock or moving state, and `%s` may preempt it: a preempted hold re-reads its indices when it is admitted again",
				l.refText(hp.Pool), preemptBy)
		}
	}
}

// indexKept refuses a hold whose body changes an attribute that one of
// its pool indices reads: the hold must keep naming one member.
func (l *lowerer) indexKept(st *model.Stmt, s *syntax.HoldStmt) {
	reads := map[int]string{}
	var text string
	for i, h := range st.Holds {
		h.Pool.Index.Walk(func(e *model.Expr) bool {
			if e.Op == model.EAttr {
				reads[e.Slot] = l.prog.Attrs[e.Slot].Name
				if text == "" && i < len(s.Pools) {
					text = l.refText(s.Pools[i].Pool)
				}
			}
			return true
		})
	}
	if len(reads) == 0 {
		return
	}
	reported := map[int]bool{}
	changed := func(pos model.Pos, slot int) {
		if name, ok := reads[slot]; ok && !reported[slot] {
			reported[slot] = true
			l.errs = append(l.errs, &Error{Pos: pos, Msg: fmt.Sprintf(
				"the hold of `%s` must keep naming one member, but its body changes `%s`, which the index reads", text, name)})
		}
	}
	var walk func(b *model.Block)
	walk = func(b *model.Block) {
		if b == nil {
			return
		}
		for _, x := range b.Stmts {
			switch x.Op {
			case model.OpSet, model.OpChoose:
				changed(x.Pos, x.Slot)
			case model.OpTurn:
				for _, slot := range l.turnSlots() {
					changed(x.Pos, slot)
				}
			case model.OpFork:
				continue // a leg's sets are its own
			}
			walk(x.Body)
			walk(x.Else)
		}
	}
	walk(st.Body)
}

// turnSlots are the attributes a `turn;` may change: those the workload's
// `turn` block, the server and the entries it calls assign.
func (l *lowerer) turnSlots() []int {
	if l.turnSet != nil {
		return l.turnSet
	}
	l.turnSet = []int{}
	add := func(n string) {
		if slot, ok := l.attrs[n]; ok {
			l.turnSet = append(l.turnSet, slot)
		}
	}
	if l.workload != nil {
		for _, it := range l.workload.Items {
			if t, ok := it.(*syntax.TurnItem); ok {
				collectSetNames(t.Body.Stmts, add)
			}
		}
	}
	if l.server != nil {
		collectSetNames(l.server.Body.Stmts, add)
	}
	for _, q := range l.qList {
		for _, e := range q.entries {
			if serverSide(q, e) {
				collectSetNames(e.Body.Stmts, add)
			} else {
				collectSetNames(e.Body.Stmts, func(n string) { add(q.name + "." + n) })
			}
		}
	}
	return l.turnSet
}

func sortTyp(t typ) {
	for i := 1; i < len(t); i++ {
		for j := i; j > 0 && t[j] < t[j-1]; j-- {
			t[j], t[j-1] = t[j-1], t[j]
		}
	}
}

// readsLive reports an expression reading pool or stage state, the clock
// or the session's cache position.
func readsLive(e *model.Expr) bool {
	live := false
	e.Walk(func(x *model.Expr) bool {
		switch x.Op {
		case model.EPool, model.EStage, model.EBudget, model.ECtx:
			live = true
		}
		return !live
	})
	return live
}

func readsMoving(e *model.Expr) bool {
	m := false
	e.Walk(func(x *model.Expr) bool {
		switch x.Op {
		case model.EPool, model.EStage, model.EBudget, model.ECtx:
			m = true
		case model.EAttr:
			if x.Name == "computed" || x.Name == "cached" {
				m = true
			}
		}
		return !m
	})
	return m
}

// neverFits reports a constant hold above the pool's cap.
func (l *lowerer) neverFits(hp *syntax.HoldPool, r resolved, units, reserve *model.Expr) {
	pool := l.prog.Pools[l.prog.PoolFams[r.Fam].First]
	need, ok := units.IsConst()
	if !ok {
		return
	}
	if reserve != nil {
		rv, ok := reserve.IsConst()
		if !ok {
			return
		}
		need = math.Max(need, rv)
	}
	asked := fmtNum(need)
	if b := float64(pool.Block); b > 0 && need != math.Ceil(need/b)*b {
		need = math.Ceil(need/b) * b
		asked += fmt.Sprintf(" (%s in blocks of %s)", fmtNum(need), fmtNum(b))
	}
	if need > float64(pool.Cap) {
		l.errorf(hp.Pos, "the hold asks `%s` for %s, above its cap %s: it could never be admitted", pool.Name, asked, fmtNum(float64(pool.Cap)))
	}
}

// enclosing finds the innermost hold of the reference as written.
func (sc *scope) enclosing(text string) *heldPool {
	for i := len(sc.holds) - 1; i >= 0; i-- {
		if sc.holds[i].text == text {
			return sc.holds[i]
		}
	}
	return nil
}

func (l *lowerer) poolStmt(op model.Op, pos lexer.Position, word string, ref *syntax.Ref, amount *syntax.Expr, sc *scope) []*model.Stmt {
	r, ok := l.resolveRes(refName(ref), sc, resPool)
	if !ok {
		return nil
	}
	text := l.refText(ref)
	st := &model.Stmt{Op: op, Pos: syntax.ToPos(pos)}
	st.Pool = &r.ref
	if op != model.OpDrop && sc.enclosing(text) != nil {
		l.rereadIndex(ref, r, word)
	}
	if op != model.OpDrop && sc.enclosing(text) == nil {
		sameFam := false
		for _, h := range sc.holds {
			sameFam = sameFam || h.fam == r.Fam
		}
		switch {
		case sameFam:
			l.errorf(pos, "`%s %s` names the pool differently from its hold: name it as the hold does, index included", word, text)
		case op == model.OpRelease && l.isLeased(r.Fam):
		default:
			l.errorf(pos, "`%s %s` outside a hold of `%s`", word, text, text)
		}
		if op == model.OpGrow && l.isLeased(r.Fam) && !sameFam {
			l.errs[len(l.errs)-1].Msg += ": it acts on an enclosing hold's allocation (a lease is not a hold)"
		}
	}
	if amount != nil {
		v, t := l.value(amount, sc, &st.Draws)
		what := "`" + word + " " + text + " (…)`"
		l.amount(amount, t, typ{r.key}, what)
		l.checkAmount(amount, v, what)
		st.Value = v
	}
	return one(st)
}

// rereadIndex refuses a statement that names its hold's pool by an index
// that reads the state or the clock: evaluated again, it may name another
// member than the one the hold took.
func (l *lowerer) rereadIndex(ref *syntax.Ref, r resolved, word string) {
	if ref.Index != nil && r.ref.Index != nil && readsMoving(r.ref.Index) {
		l.errorf(ref.Index.Pos, "the index of `%s` reads the state or the clock: `%s` reads it again and may name another member than the hold took", l.refText(ref), word)
	}
}

// isLeased reports whether some hold of the program leases the family.
func (l *lowerer) isLeased(fam int) bool { return l.leasedFams[fam] }

func (l *lowerer) run(s *syntax.RunStmt, sc *scope) []*model.Stmt {
	st := &model.Stmt{Op: model.OpRun, Pos: syntax.ToPos(s.Pos)}
	var want typ
	if len(s.Stages) == 0 {
		if sc.side != sideEntry || sc.q.stageFam < 0 {
			l.errorf(s.Pos, "`run (w);` runs on the queue's own stage: it belongs in a queue entry")
			return nil
		}
		r, _ := l.member(sc.q.stageFam, sc.self, resStage)
		st.Stages = append(st.Stages, r.ref)
		want = typ{r.key}
	}
	for _, ref := range s.Stages {
		r, ok := l.resolveRes(refName(ref), sc, resStage)
		if !ok {
			return nil
		}
		st.Stages = append(st.Stages, r.ref)
		want = append(want, r.key)
	}
	sortTyp(want)
	first := l.prog.Stages[l.prog.StageFams[st.Stages[0].Fam].First]
	switch {
	case len(st.Stages) > 1:
		if s.Mode != "" || s.Growing != nil {
			l.errorf(s.Pos, "a run over several stages is a flow: it takes no mode and no `growing`")
		}
		if l.prog.Share == "" {
			l.errorf(s.Pos, "a run over several stages needs the program's `share maxmin;` or `share bottleneck;`")
		}
		seen := map[int]bool{}
		for _, r := range st.Stages {
			fam := l.prog.StageFams[r.Fam]
			sg := l.prog.Stages[fam.First]
			if sg.Kind != model.PS || !sg.PhiConst {
				l.errorf(s.Pos, "stage `%s` of a flow must be `ps(φ)` with a constant φ", fam.Name)
			}
			if seen[r.Fam] {
				l.errorf(s.Pos, "a flow names stage `%s` twice", fam.Name)
			}
			seen[r.Fam] = true
		}
		l.markShared(st.Stages)
	case first.Kind == model.Step:
		switch s.Mode {
		case "prefill":
			st.Mode = model.ModePrefill
		case "decode":
			st.Mode = model.ModeDecode
		default:
			l.errorf(s.Pos, "a run on engine `%s` needs a mode: `run %s prefill (…)` or `run %s decode (…)`", first.Name, first.Name, first.Name)
		}
	default:
		if s.Mode != "" {
			l.errorf(s.Pos, "`%s` is a %s stage: a mode is only for engines", first.Name, first.Kind)
		}
		if s.Growing != nil {
			l.errorf(s.Pos, "`growing` is only for runs on an engine")
		}
	}
	work, wt := l.value(s.Work, sc, &st.Draws)
	what := "`run (…)`"
	if len(s.Stages) > 0 {
		names := make([]string, len(s.Stages))
		for i, r := range s.Stages {
			names[i] = l.refText(r)
		}
		what = "`run " + strings.Join(names, ", ") + " (…)`"
	}
	l.amount(s.Work, wt, want, what)
	l.checkAmount(s.Work, work, what)
	st.Value = work
	if s.Growing != nil && first.Kind == model.Step {
		r, ok := l.resolveRes(refName(s.Growing), sc, resPool)
		if ok {
			if sc.enclosing(l.refText(s.Growing)) == nil {
				l.errorf(s.Growing.Pos, "`growing %s` outside a hold of `%s`", l.refText(s.Growing), l.refText(s.Growing))
			} else {
				l.rereadIndex(s.Growing, r, "growing")
			}
			st.Growing = &r.ref
		}
	}
	return one(st)
}

func (l *lowerer) markShared(refs []model.Ref) {
	for _, r := range refs {
		f := l.prog.StageFams[r.Fam]
		for i := f.First; i < f.First+f.Count; i++ {
			l.prog.Stages[i].Shared = true
		}
	}
}

func (l *lowerer) tool(s *syntax.ToolStmt, sc *scope) []*model.Stmt {
	st := &model.Stmt{Op: model.OpRun, Pos: syntax.ToPos(s.Pos)}
	switch {
	case len(s.On) > 0:
		for _, ref := range s.On {
			r, ok := l.resolveRes(refName(ref), sc, resStage)
			if !ok {
				return nil
			}
			st.Stages = append(st.Stages, r.ref)
		}
		if len(st.Stages) > 1 {
			l.markShared(st.Stages)
		}
	default:
		fam := l.toolFam
		if fam < 0 {
			fam = l.implicitTool()
		}
		f := l.prog.StageFams[fam]
		var idx *model.Expr
		if s.Index != nil {
			if !f.Array {
				l.errorf(s.Pos, "stage `tool` is no array: write `tool (…);`")
			}
			idx = l.index(&syntax.Name{Pos: s.Pos, Name: "tool", Index: s.Index}, sc, f.Count)
		} else if f.Array {
			l.errorf(s.Pos, "stage `tool` is an array of %d: write `tool[i] (…);`", f.Count)
		}
		st.Stages = []model.Ref{{Fam: fam, Index: idx}}
	}
	if l.prog.Stages[l.prog.StageFams[st.Stages[0].Fam].First].Kind == model.Step {
		l.errorf(s.Pos, "`tool` runs on a plain stage, not on an engine")
	}
	v, t := l.value(s.Amount, sc, &st.Draws)
	if t.isCost() {
		l.errorf(s.Amount.Pos, "`tool` converts a plain quantity itself: pass a number, not %s", t)
	}
	l.checkAmount(s.Amount, v, "`tool`")
	st.Value = v
	if s.Growing != nil {
		l.errorf(s.Growing.Pos, "`growing` is only for runs on an engine")
	}
	return one(st)
}

// transfer lowers `transfer (n) [on S] from A to B (m)`: the runs that
// carry the tokens (transferRuns), then loading B and releasing A.
func (l *lowerer) transfer(s *syntax.TransferStmt, sc *scope) []*model.Stmt {
	var draws bool
	amount, t := l.value(s.Amount, sc, &draws)
	if t.isCost() {
		l.errorf(s.Amount.Pos, "`transfer` converts a plain quantity itself: pass a number, not %s", t)
	}
	l.checkAmount(s.Amount, amount, "`transfer (…)`")
	out, ok := l.transferRuns(s, sc, amount, draws)
	if !ok {
		return nil
	}
	out = l.transferEnds(s, sc, out)
	if l.canFail && len(out) == 4 && sc.side == sideEntry && sc.from != nil && (sc.q.pull != nil || sc.q.push != nil) && s.Index == nil && len(s.On) == 0 {
		// a read of the lease (faults.go): its flow, load and release
		out[1].Read, out[2].Read, out[3].Read = true, true, true
	}
	return out
}

// transferRuns lowers the runs of a transfer of amount: over the links of
// a queue's `pull` or `push` (the link's latency first), over the stages
// named by `on` (each one's latency first), or on the stage named `link`
// or `transfer`. ok is false after an error.
func (l *lowerer) transferRuns(s *syntax.TransferStmt, sc *scope, amount *model.Expr, draws bool) (out []*model.Stmt, ok bool) {
	pos := syntax.ToPos(s.Pos)
	switch {
	case sc.side == sideEntry && sc.from != nil && s.Index == nil && len(s.On) == 0 && (sc.q.pull != nil || sc.q.push != nil):
		rel := sc.q.pull
		if rel == nil {
			rel = sc.q.push
		}
		if rel.source != sc.from.q {
			return nil, false // the call `from` the wrong queue is reported where it stands
		}
		if s.From.Name != sc.from.name || s.From.Index != nil || s.From.Member != "" {
			l.errorf(s.From.Pos, "a read takes from the entry's source: write `transfer (…) from %s to …`", sc.from.name)
			return nil, false
		}
		latIdx := sc.self
		if rel.kind == "push" {
			latIdx = sc.from.idx
		}
		out = append(out, &model.Stmt{Op: model.OpRun, Pos: pos, Stages: []model.Ref{{Fam: rel.latFam, Index: latIdx}},
			Value: model.Num(rel.latency)})
		flow := []model.Ref{{Fam: rel.source.nicFam, Index: sc.from.idx}, {Fam: rel.reader.nicFam, Index: sc.self}}
		l.markShared(flow)
		out = append(out, &model.Stmt{Op: model.OpRun, Pos: pos, Stages: flow, Value: amount, Draws: draws})
	case sc.side == sideEntry && sc.from != nil && s.Index == nil && len(s.On) == 0:
		l.errorf(s.Pos, "a bare `transfer` in queue `%s`, which pulls from nothing: declare `%s pull %s latency x share maxmin;`", sc.q.name, sc.q.name, sc.from.q.name)
		return nil, false
	case len(s.On) > 0:
		var refs []model.Ref
		for _, ref := range s.On {
			r, ok := l.resolveRes(refName(ref), sc, resStage)
			if !ok {
				return nil, false
			}
			refs = append(refs, r.ref)
			if lat, ok := l.stageFams[l.prog.StageFams[r.Fam].Name+".latency"]; ok {
				out = append(out, &model.Stmt{Op: model.OpRun, Pos: pos, Stages: []model.Ref{{Fam: lat, Index: r.ref.Index}}, Value: l.serveLatency(r.Fam)})
			}
		}
		if len(refs) > 1 {
			l.markShared(refs)
		}
		out = append(out, &model.Stmt{Op: model.OpRun, Pos: pos, Stages: refs, Value: amount, Draws: draws})
	default:
		fam := -1
		n := 0
		for _, name := range []string{"link", "transfer"} {
			if f, ok := l.stageFams[name]; ok {
				fam = f
				n++
			}
		}
		if n != 1 {
			l.errorf(s.Pos, "`transfer` without `on` runs on the stage named `link` or `transfer`: the program declares %s", map[bool]string{true: "both", false: "neither"}[n == 2])
			return nil, false
		}
		f := l.prog.StageFams[fam]
		var idx *model.Expr
		if s.Index != nil {
			idx = l.index(&syntax.Name{Pos: s.Pos, Name: f.Name, Index: s.Index}, sc, f.Count)
		}
		out = append(out, &model.Stmt{Op: model.OpRun, Pos: pos, Stages: []model.Ref{{Fam: fam, Index: idx}}, Value: amount, Draws: draws})
	}
	return out, true
}

// transferEnds appends to out the load of the transfer's destination and
// the release of its source.
func (l *lowerer) transferEnds(s *syntax.TransferStmt, sc *scope, out []*model.Stmt) []*model.Stmt {
	pos := syntax.ToPos(s.Pos)
	to := refName(s.To)
	rt, ok := l.resolveRes(to, sc, resPool)
	if !ok {
		return nil
	}
	if sc.enclosing(l.refText(s.To)) == nil {
		l.errorf(s.To.Pos, "`transfer … to %s` outside a hold of `%s`: the destination's hold must cover the tokens", l.refText(s.To), l.refText(s.To))
	}
	var ld bool
	n, nt := l.value(s.Load, sc, &ld)
	if nt.isCost() {
		l.errorf(s.Load.Pos, "`transfer` converts a plain quantity itself: pass a number, not %s", nt)
	}
	l.checkAmount(s.Load, n, "`transfer … to "+l.refText(s.To)+" (…)`")
	out = append(out, &model.Stmt{Op: model.OpLoad, Pos: pos, Pool: &rt.ref, Value: n, Draws: ld})
	rf, ok := l.resolveRes(refName(s.From), sc, resPool)
	if !ok {
		return nil
	}
	if sc.enclosing(l.refText(s.From)) == nil && !l.isLeased(rf.Fam) {
		l.errorf(s.From.Pos, "`transfer from %s`: nothing holds or leases `%s`", l.refText(s.From), l.refText(s.From))
	}
	out = append(out, &model.Stmt{Op: model.OpRelease, Pos: pos, Pool: &rf.ref})
	return out
}

func (l *lowerer) serveLatency(fam int) *model.Expr {
	name := l.prog.StageFams[fam].Name
	if q, ok := l.queues[name]; ok {
		for _, it := range q.ast.Items {
			if s, ok := it.(*syntax.ServeItem); ok && s.Latency != nil {
				v, _ := l.constValue(s.Latency, "a serve latency")
				return model.Num(v)
			}
		}
	}
	return model.Num(0)
}

// entryCall lowers a call of a queue's entry, `Q[i].verb(args) [from
// P[j]]`: the entry's body inlined with its parameters bound, on the
// member's side (a gateway's on the server's).
func (l *lowerer) entryCall(s *syntax.CallStmt, sc *scope) []*model.Stmt {
	switch sc.side {
	case sideClient:
		l.errorf(s.Pos, "`%s.%s(…)` belongs in the server: a session's statements run on the client", s.Queue, s.Verb)
		return nil
	case sideInitTurn:
		return nil
	}
	q, ok := l.queues[s.Queue]
	if !ok {
		suggest(l.errorf(s.Pos, "`%s` is no queue", s.Queue), s.Queue, sortedKeys(l.queues))
		return nil
	}
	entry := l.entryOf(s, q)
	if entry == nil {
		return nil
	}
	if s.To != nil {
		l.errorf(s.To.Pos, "an entry call takes no `to`: its body's `transfer … to P (n)` says where the KV goes")
	}
	l.bindUse(s.Pos, s.Queue, "queue", q.name, q.name, atSite)
	l.bindUse(verbAt(s), s.Verb, "entry", q.name+"."+s.Verb, "", entry.Pos)
	if sc.depth > 16 {
		l.errorf(s.Pos, "entry calls nest too deeply")
		return nil
	}
	idx := l.entryIndex(s, q, sc)
	if len(s.Args) != len(entry.Params) {
		l.errorf(s.Pos, "entry `%s.%s` takes %s, not %d", q.name, s.Verb, plural(len(entry.Params), "argument"), len(s.Args))
		return nil
	}
	es := sc.child()
	es.depth++
	es.vars = &vars{m: map[string]*binding{}}
	for i, p := range entry.Params {
		if argDraws(s.Args[i]) {
			l.errorf(s.Args[i].Pos, "an entry's arguments may not draw")
		}
		v, t := l.value(s.Args[i], sc, nil)
		es.bind(p, &binding{val: v, typ: t, kind: "parameter", decl: entryParamAt(entry, p)})
	}
	if serverSide(q, entry) {
		es.side = sideServer
		es.q = nil
		es.self = nil
		es.from = nil
		es.picture = q.picture
	} else {
		es.side = sideEntry
		es.q = q
		es.self = idx
		es.entry = entry
		es.from = nil
		es.picture = 0
	}
	if s.From != nil {
		from, ok := l.entryFrom(s, q, entry, sc)
		if !ok {
			return nil
		}
		es.from = from
	}
	es.call = l.inlined(q.name+"."+s.Verb, s.Pos, sc)
	out := l.stmtsOf(entry.Body.Stmts, es)
	markCall(out, es.call)
	l.prog.Blocks++
	out = l.reading(out, s, q, entry, idx, es.from)
	return l.retry(out, s)
}

// entryOf is the entry of queue q the call s names (by verb, and with or
// without `from`), nil after an error.
func (l *lowerer) entryOf(s *syntax.CallStmt, q *queueDecl) *syntax.EntryItem {
	var entry *syntax.EntryItem
	for _, e := range q.entries {
		if e.Verb == s.Verb && (e.From != "") == (s.From != nil) {
			entry = e
		}
	}
	if entry == nil {
		form := ""
		if s.From != nil {
			form = " … from"
		}
		l.errorf(s.Pos, "queue `%s` has no entry `%s%s`", q.name, s.Verb, form)
		return nil
	}
	return entry
}

// entryIndex is the member of queue q an entry call names: its index, or
// 0 for a queue of one.
func (l *lowerer) entryIndex(s *syntax.CallStmt, q *queueDecl, sc *scope) *model.Expr {
	var idx *model.Expr
	switch {
	case s.Index != nil:
		switch {
		case !q.array && q.count == 1 && roleIs(q, "gateway"):
			l.errorf(s.Pos, "gateway `%s` is no family: write `%s.%s(…)`", q.name, q.name, s.Verb)
		case !q.array:
			l.errorf(s.Pos, "`%s` is one queue, not a family: write `%s.%s(…)`", q.name, q.name, s.Verb)
		}
		idx = l.index(&syntax.Name{Pos: s.Pos, Name: q.name, Index: s.Index}, sc, q.count)
	case q.count == 1:
		idx = model.Num(0)
	default:
		l.errorf(s.Pos, "`%s` is a family of %d: write `%s[i].%s(…)`", q.name, q.count, q.name, s.Verb)
		idx = model.Num(0)
	}
	return idx
}

// entryFrom is the source of an entry call `… from P[i]`: a queue whose
// entries lease, the one q reads from if it pulls or is pushed to. ok is
// false after an error that stops the call.
func (l *lowerer) entryFrom(s *syntax.CallStmt, q *queueDecl, entry *syntax.EntryItem, sc *scope) (*fromInfo, bool) {
	src, ok := l.queues[s.From.Name]
	switch {
	case ok && s.From.Member != "":
		l.errorf(s.From.Pos, "`from %s`: a call takes from a queue, whose entries lease: write `from %s`", l.refText(s.From), strings.TrimSuffix(l.refText(s.From), "."+s.From.Member))
		return nil, false
	case !ok:
		l.errorf(s.From.Pos, "`from %s`: `%s` is no queue", l.refText(s.From), s.From.Name)
		return nil, false
	case src.leases == "":
		l.errorf(s.From.Pos, "`from %s`: every entry of `%s` must lease a pool on every path", l.refText(s.From), src.name)
		return nil, false
	case src.noLease != "":
		l.errorf(s.From.Pos, "`from %s`: `%s.%s` leases nothing on some path, and every entry of `%s` must lease a pool on every path", l.refText(s.From), src.name, src.noLease, src.name)
		return nil, false
	}
	rel := q.pull
	if rel == nil {
		rel = q.push
	}
	if rel != nil && rel.source != src {
		l.errorf(s.From.Pos, "an entry of `%s` is called `from %s`, but `%s` reads from `%s`", q.name, src.name, q.name, rel.source.name)
	}
	var sidx *model.Expr
	switch {
	case s.From.Index != nil:
		sidx = l.index(refName(s.From), sc, src.count)
	case src.count == 1:
		sidx = model.Num(0)
	default:
		l.errorf(s.From.Pos, "`%s` is a family of %d: write `from %s[i]`", src.name, src.count, src.name)
		sidx = model.Num(0)
	}
	return &fromInfo{name: entry.From, q: src, idx: sidx}, true
}

// serverSide reports whether entry e of q is the server's own: a
// gateway's `route`, whose statements are the server's. Its other entries
// (`queue gw : gateway, prefill`) are entries like any queue's.
func serverSide(q *queueDecl, e *syntax.EntryItem) bool {
	return e.Verb == "route" && roleIs(q, "gateway")
}

func roleIs(q *queueDecl, role string) bool {
	for _, r := range q.roles {
		if r == role {
			return true
		}
	}
	return false
}

func (l *lowerer) stmtDef(s *syntax.CallStmt, sc *scope) []*model.Stmt {
	d, ok := l.defs[s.Queue]
	if !ok {
		if m, retired := syntax.Retired(s.Queue); retired {
			l.errorf(s.Pos, "%s", m)
			return nil
		}
		if s.Queue == "prefill" || s.Queue == "decode" {
			l.errorf(s.Pos, "`%s` is no statement: the mode of a run is written `run E %s (cost(E, n)) growing kv;`", s.Queue, s.Queue)
			return nil
		}
		suggest(l.errorf(s.Pos, "undefined statement `%s(…)`", s.Queue), s.Queue, sortedKeys(l.defs))
		return nil
	}
	l.bindUse(s.Pos, d.Name, "def", d.Name, d.Name, atSite)
	if d.Expr != nil {
		l.errorf(s.Pos, "def `%s` is an expression: use its value, e.g. `set x = %s(…);`", d.Name, d.Name)
		return nil
	}
	if s.From != nil || s.To != nil {
		l.errorf(s.Pos, "a statement def takes no `from`/`to`")
	}
	if s.Retry != nil {
		l.errorf(s.Retry.Pos, "`retry` makes an entry call again: a statement def takes none")
	}
	if len(s.Args) != len(d.Params) {
		l.errorf(s.Pos, "def `%s` takes %s, not %d", d.Name, plural(len(d.Params), "argument"), len(s.Args))
		return nil
	}
	for _, n := range sc.defStack {
		if n == d.Name {
			l.errorf(s.Pos, "def `%s` uses itself: no recursion", d.Name)
			return nil
		}
	}
	inner := sc.child()
	inner.depth++
	inner.defStack = append(append([]string(nil), sc.defStack...), d.Name)
	for i, p := range d.Params {
		inner.bind(p, &binding{ast: s.Args[i], sc: sc, pos: s.Args[i].Pos, kind: "parameter", decl: paramAt(d, p)})
	}
	mark := len(l.errs)
	inner.call = l.inlined(d.Name, s.Pos, sc)
	out := l.stmtsOf(d.Stmts, inner)
	markCall(out, inner.call)
	l.noteUse(mark, d, s.Pos)
	return out
}

// inlined records a call that the lowering inlines, of name at pos in
// sc, and returns its number for markCall.
func (l *lowerer) inlined(name string, pos lexer.Position, sc *scope) int {
	p := syntax.ToPos(pos)
	if p.File == "" {
		p.File = l.file
	}
	l.prog.Calls = append(l.prog.Calls, model.Call{Name: name, Pos: p, Caller: sc.call})
	return len(l.prog.Calls)
}

// markCall marks the statements of an inlined call's body (and of the
// blocks inside them) as the call's, but for those an inner call marked.
func markCall(out []*model.Stmt, call int) {
	for _, st := range out {
		if st.Call == 0 {
			st.Call = call
		}
		for _, b := range []*model.Block{st.Body, st.Else} {
			if b != nil {
				markCall(b.Stmts, call)
			}
		}
	}
}

// progresses reports whether every path through b reaches a run of
// non-zero work, a hold whose body does, or `end`.
func (l *lowerer) progresses(b *model.Block) bool {
	for _, s := range b.Stmts {
		if l.stmtProgresses(s) {
			return true
		}
	}
	return false
}

func (l *lowerer) stmtProgresses(s *model.Stmt) bool {
	switch s.Op {
	case model.OpRun:
		x, ok := s.Value.IsConst()
		return !ok || x > 0
	case model.OpHold:
		return l.progresses(s.Body)
	case model.OpEnd:
		return true
	case model.OpTurn:
		return l.serverProgresses
	case model.OpBranch:
		return l.progresses(s.Body) && s.Else != nil && l.progresses(s.Else)
	case model.OpLoop:
		return l.progresses(s.Body)
	}
	return false
}

// bindingAttr is the attribute an admission binding the body reads
// becomes; such attributes may be bound again by another hold.
func (l *lowerer) bindingAttr(name string) int {
	if l.bindingAttrs == nil {
		l.bindingAttrs = map[int]bool{}
	}
	_, existed := l.attrs[name]
	slot := l.attr(name)
	if !existed {
		l.bindingAttrs[slot] = true
	}
	return slot
}

// holdPrefix lowers a hold's `prefix (key: length, …)`: the content chain
// its pools with a block share their cache by (interp/prefix.go). Keys and
// lengths are read when the hold is reached, so they read attributes and
// constants, not live state.
func (l *lowerer) holdPrefix(st *model.Stmt, s *syntax.HoldStmt, hs *scope, held []*heldPool) {
	pos := s.Prefix[0].Pos
	if s.Cache == nil {
		l.errorf(pos, "`prefix` needs a `cache` clause: the chain names the content that the hold's cache is shared by")
	}
	blocks := false
	for _, h := range held {
		p := &l.prog.Pools[l.prog.PoolFams[h.fam].First]
		if p.Block > 0 {
			blocks = true
			if p.Spill != nil {
				l.errorf(pos, "`prefix` shares `%s`'s cache across sessions, and `%s` spills: a shared prefix cannot spill into one session's tier", h.text, h.text)
			}
		}
	}
	if !blocks {
		l.errorf(pos, "`prefix`: none of the hold's pools has a `block`, and a cache is shared by whole blocks").Hint = "declare `block` on the pool that holds the KV"
	}
	for _, seg := range s.Prefix {
		for _, x := range []*syntax.Expr{seg.Key, seg.Length} {
			v, t := l.expr(x, hs)
			if t.isCost() && !t.bad() {
				l.errorf(x.Pos, "a prefix's key and length are numbers, not %s", t)
			}
			if readsLive(v) {
				l.errorf(x.Pos, "a prefix's key and length are read when the hold is reached: they read attributes and constants, not live state")
			}
			if x == seg.Key {
				st.Prefix = append(st.Prefix, model.Segment{Key: v})
			} else {
				st.Prefix[len(st.Prefix)-1].Length = v
			}
		}
	}
}
