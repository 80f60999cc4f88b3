package lang

import (
	"fmt"
	"math"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// bodies is phase 2: everything that reads attributes or resources.
func (l *lowerer) bodies() {
	p := l.prog
	for _, o := range l.opts.Defs {
		d, ok := l.defs[o.Name]
		if !ok || d.Expr == nil {
			l.errs = append(l.errs, &Error{Pos: model.Pos{File: l.file}, Msg: "--def " + o.Name + ": the program has no expression def `" + o.Name + "`"})
			continue
		}
		e, err := syntax.ParseExpr("--def "+o.Name, o.Expr)
		if err != nil {
			l.addErr(err)
			continue
		}
		l.defSubst[o.Name] = e
	}
	l.collectAttrs()
	for _, pd := range l.poolAST {
		l.poolOptions(pd)
	}
	l.spillCycles()
	for _, e := range l.engList {
		l.engineBody(e)
	}
	if l.server != nil {
		sc := &scope{l: l, mom: momSession, side: sideServer}
		l.costReset()
		p.Server = l.block(l.server.Body, sc)
		l.serverProgresses = l.progresses(p.Server)
	}
	l.workloadBody()
	if l.faultsAST != nil {
		l.faults(l.faultsAST)
	}
	l.checkRevealed(p.Server)
	// The automatic observes (docs/semantics.md, "Requests and their
	// automatic observes").
	if p.Server != nil {
		if _, ok := l.observes["ttft"]; !ok && l.hasDecodeRun() {
			p.AutoTTFT = l.newObserve("ttft")
		}
		if _, ok := l.observes["response"]; !ok {
			p.AutoResponse = l.newObserve("response")
		}
	}
	for _, g := range l.gaugeAST {
		at := nameAt(g.Pos, g.Tokens, g.Name)
		if l.gauges[g.Name] {
			l.errorf(at, "gauge `%s` is declared twice%s", g.Name, l.firstAt("gauge "+g.Name))
			continue
		}
		if _, ok := l.observes[g.Name]; ok {
			l.errorf(at, "`%s` names an observe already: an observe and a gauge may not share a name", g.Name)
		}
		l.site("gauge "+g.Name, at)
		l.gauges[g.Name] = true
		v, _ := l.expr(g.Expr, &scope{l: l, mom: momGauge})
		l.gaugeIndexes(g, v)
		p.Gauges = append(p.Gauges, model.Gauge{Name: g.Name, Expr: v, Pos: syntax.ToPos(g.Pos)})
	}
	for _, c := range l.claimAST {
		l.claim(c)
	}
	l.checkAggIndexes()
	l.checkShareUsed()
	switch {
	case l.forkPos != nil && l.joinPos == nil:
		l.errorf(*l.forkPos, "a program that forks a leg and never joins: write `join;` where the session needs the legs done")
	case l.joinPos != nil && l.forkPos == nil:
		l.errorf(*l.joinPos, "a `join` in a program that forks no leg waits for nothing")
	}
	if p.Inputs == nil {
		p.Inputs = []model.Input{}
	}
	if p.Consts == nil {
		p.Consts = []model.Const{}
	}
	if p.Observes == nil {
		p.Observes = []string{}
	}
	if p.Gauges == nil {
		p.Gauges = []model.Gauge{}
	}
	if p.Relations == nil {
		p.Relations = []model.Relation{}
	}
}

func (l *lowerer) mainPos() lexerPos {
	if l.workload != nil {
		return l.workload.Pos
	}
	return lexerPos{Filename: l.file, Line: 1, Column: 1}
}

func (l *lowerer) newObserve(name string) int {
	slot := len(l.prog.Observes)
	l.observes[name] = slot
	l.prog.Observes = append(l.prog.Observes, name)
	return slot
}

func (l *lowerer) hasDecodeRun() bool {
	found := false
	l.prog.Walk(func(s *model.Stmt) {
		found = found || s.Op == model.OpRun && s.Mode == model.ModeDecode
	})
	return found
}

// collectAttrs creates every attribute the program assigns, so that a read
// may precede the lowering of its assignment.
func (l *lowerer) collectAttrs() {
	add := func(n string) {
		if _, isConst := l.consts[n]; !isConst && !reservedNames[n] {
			l.attr(n)
		}
	}
	// What the workload's init and turn blocks assign is its Size: the
	// server reads it but may not assign it, wherever it is lowered.
	addSize := func(n string) {
		add(n)
		if slot, ok := l.attrs[n]; ok && !l.prog.Attrs[slot].Builtin {
			l.prog.Attrs[slot].Size = true
		}
	}
	if l.workload != nil {
		for _, it := range l.workload.Items {
			switch it := it.(type) {
			case *syntax.InitItem:
				collectSetNames(it.Body.Stmts, addSize)
			case *syntax.TurnItem:
				collectSetNames(it.Body.Stmts, addSize)
			case *syntax.SessionItem:
				collectSetNames(it.Body.Stmts, add)
			case *syntax.TraceItem:
				for _, n := range []string{"new", "out", "think", "forced"} {
					l.attr(n)
				}
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
			}
		}
		for _, n := range sortedKeys(q.attrs) {
			l.attr(q.name + "." + n)
		}
	}
	for _, name := range sortedKeys(l.defs) {
		collectSetNames(l.defs[name].Stmts, add)
	}
	l.attrSites()
	l.explainUndefs()
	if l.workload != nil {
		hidden := map[string]lexer.Position{}
		for _, it := range l.workload.Items {
			if h, ok := it.(*syntax.HiddenItem); ok {
				for i, n := range h.Names {
					slot, ok := l.attrs[n]
					at := hiddenNameAt(h, i)
					first, twice := hidden[n]
					if !twice {
						hidden[n] = at
					}
					switch {
					case twice:
						l.errorf(at, "hidden `%s` twice (first at %s)", n, syntax.ToPos(first))
					case n == "cached" || n == "computed":
						l.errorf(h.Pos, "`%s` is the scheduler's: it cannot be hidden", n)
					case !ok:
						l.errorf(h.Pos, "`hidden %s`: no statement sets `%s`", n, n)
					default:
						l.prog.Attrs[slot].Hidden = true
					}
				}
			}
		}
	}
}

// keys lowers sort keys; their moment refuses draws.
func (l *lowerer) keys(es []*syntax.Expr, sc *scope) []*model.Expr {
	var out []*model.Expr
	for _, e := range es {
		v, _ := l.expr(e, sc)
		out = append(out, v)
	}
	return out
}

func (l *lowerer) poolOptions(pd *poolDecl) {
	f := l.prog.PoolFams[pd.fam]
	for i := f.First; i < f.First+f.Count; i++ {
		pl := &l.prog.Pools[i]
		sc := &scope{l: l, q: pd.q}
		if pd.q != nil {
			sc.self = model.Num(float64(i - f.First))
		}
		for _, o := range pd.ast.Opts {
			switch o := o.(type) {
			case *syntax.EvictOpt:
				if !o.LRU {
					c := *sc
					c.mom = momEvict
					pl.Evict.Keys = l.keys(o.Keys, &c)
				}
			case *syntax.PreemptOpt:
				switch o.Policy {
				case "lifo":
					pl.Preempt = model.PreemptLIFO
				case "none":
					pl.Preempt = model.PreemptNone
				default:
					pl.Preempt = model.PreemptBy
					c := *sc
					c.mom = momPreempt
					pl.PreemptKeys = l.keys(o.Keys, &c)
					pl.RequeueTail = o.Requeue == "tail"
				}
			case *syntax.QueueOpt:
				if !o.FIFO {
					c := *sc
					c.mom = momSelect
					pl.QueueKeys = l.keys(o.Keys, &c)
				}
			case *syntax.ReserveOpt:
				pl.ReserveHeld = true
			case *syntax.SpillOpt:
				pl.Spill = l.spill(o, sc, i == f.First)
			}
		}
	}
}

// engineBody lowers an engine's clauses for each member.
func (l *lowerer) engineBody(e *engineDecl) {
	p := l.prog
	fam := p.StageFams[e.fam]
	it := l.engineClausesOf(e)
	if len(it.states) > 0 && fam.Array && e.q == nil {
		l.errorf(it.states[0].Pos, "`state` is not allowed on an engine family")
	}
	for _, s := range it.states {
		if reservedNames[s.Name] {
			l.errorf(s.Pos, "`%s` is a context variable or built-in and cannot name a register", s.Name)
		}
		e.regs[s.Name] = len(e.regs)
	}
	for m := 0; m < fam.Count; m++ {
		eng := l.engineMember(e, it, m)
		p.Stages[fam.First+m].Engine = len(p.Engines)
		p.Engines = append(p.Engines, eng)
	}
}

// engineClauses are the clauses of an engine's body, each nil when it
// has none.
type engineClauses struct {
	tokens *syntax.TokensCap
	sched  *syntax.ScheduleItem
	exec   *syntax.ExecuteItem
	gran   *syntax.GranuleItem
	states []*syntax.StateItem
}

// engineClausesOf collects an engine's clauses and refuses a body without
// `tokens cap`, `schedule` or `execute`, or with two schedules.
func (l *lowerer) engineClausesOf(e *engineDecl) engineClauses {
	var c engineClauses
	for _, it := range e.ast.Items {
		switch it := it.(type) {
		case *syntax.TokensCap:
			c.tokens = it
		case *syntax.ScheduleItem:
			if c.sched != nil {
				l.errorf(it.Pos, "engine `%s` has two schedules", e.name)
			}
			c.sched = it
		case *syntax.ExecuteItem:
			c.exec = it
		case *syntax.GranuleItem:
			c.gran = it
		case *syntax.StateItem:
			c.states = append(c.states, it)
		}
	}
	missing := func(what string) {
		l.errorf(e.ast.Pos, "engine `%s` needs `%s`", e.name, what)
	}
	if c.tokens == nil {
		missing("tokens cap B;")
	}
	if c.sched == nil {
		missing("schedule { … }")
	}
	if c.exec == nil {
		missing("execute (…);")
	}
	return c
}

// engineMember lowers the clauses for member m of the engine's family (a
// constant clause's own checks report for member 0 only).
func (l *lowerer) engineMember(e *engineDecl, it engineClauses, m int) model.Engine {
	p := l.prog
	fam := p.StageFams[e.fam]
	eng := model.Engine{Stage: fam.First + m, Memory: -1, Admits: []int{}}
	sc := &scope{l: l, eng: e, member: m, q: e.q, self: model.Num(float64(m))}
	if it.tokens != nil {
		c := *sc
		c.mom = momEngBudget
		eng.Budget, _ = l.expr(it.tokens.Cap, &c)
		if x, ok := eng.Budget.IsConst(); ok && !(x > 0) && m == 0 {
			l.errorf(it.tokens.Cap.Pos, "`tokens cap` must be positive, not %s", fmtNum(x))
		}
	}
	if it.gran != nil {
		x, ok := l.constValue(it.gran.Granule, "`granule`")
		if ok && !(x > 0) && m == 0 {
			l.errorf(it.gran.Granule.Pos, "`granule` must be a positive constant")
		}
		eng.Granule = model.F64(x)
	}
	for _, s := range it.states {
		x, _ := l.constValue(s.Value, "a register's initial value")
		eng.Regs = append(eng.Regs, model.Register{Name: s.Name, Init: model.F64(x)})
	}
	if it.sched != nil {
		l.schedule(e, it.sched, &eng, sc, m == 0)
	}
	if it.gran != nil && m == 0 {
		l.granuleFitsCap(it.gran, eng.Chunk)
	}
	if it.exec != nil {
		c := *sc
		c.mom = momEngCost
		eng.Cost, _ = l.expr(it.exec.Cost, &c)
	}
	if e.memory >= 0 {
		eng.Memory = p.PoolFams[e.memory].First + m
	}
	for _, pf := range e.admits {
		eng.Admits = append(eng.Admits, p.PoolFams[pf].First+m)
	}
	return eng
}

func isNotPreempted(e *model.Expr) bool {
	if e == nil {
		return false
	}
	isPre := func(x *model.Expr) bool { return x.Op == model.ECtx && model.Ctx(x.Slot) == model.CtxRunningPreempted }
	switch e.Op {
	case model.ENot:
		return isPre(e.Args[0])
	case model.EEq:
		z, ok := e.Args[1].IsConst()
		return ok && z == 0 && isPre(e.Args[0])
	}
	return false
}

// schedule lowers an engine's `schedule { … }` into eng: one of the two
// procedures with no body (vLLM's, `exclusive prefill`) when the schedule
// is written as one, else the steps of its body. report false lowers
// without reporting errors.
func (l *lowerer) schedule(e *engineDecl, s *syntax.ScheduleItem, eng *model.Engine, sc *scope, report bool) {
	sl := &schedLowerer{l: l, e: e, report: report}
	defer l.checkRegistersSet(e, eng, s.Pos, sl.errorf)
	sl.ks = sc.child()
	sl.ks.mom = momEngKeys
	// a schedule's lets are read in `each at most` only: `only`, `by` and
	// the guards see a let's name as a refusal that points at `def`
	sl.cs = sl.ks.child()
	// each let reads the ones before it (`let n = …; let c = n > 1 ? … : inf;`)
	ls := sc.child()
	ls.mom = momEngBudget
	for _, lt := range s.Lets {
		v, _ := l.expr(lt.Value, ls)
		ls.bind(lt.Name, &binding{val: v, kind: "let", decl: lt.Pos})
		sl.cs.bind(lt.Name, &binding{val: v, kind: "let", decl: lt.Pos})
		sl.ks.bind(lt.Name, &binding{refuse: fmt.Sprintf("`%s` is a schedule's `let`, read only in `each at most`: a predicate the statements share is written with `def %s() { … }`, read as `%s()`", lt.Name, lt.Name, lt.Name)})
	}
	sl.gs = *sc
	sl.gs.mom = momEngGuard
	if !schedReaches(s.Stmts) {
		sl.errorf(s.Pos, "every path of a schedule must reach an `advance running` or an `admit waiting`")
	}
	if sl.procedure(s, eng) {
		return
	}
	eng.Serve = model.ServeBody
	eng.Body = sl.steps(s.Stmts)
	eng.Chunk = sl.capExpr
	sl.capsAllOrNone(s.Pos)
}

// schedLowerer lowers one schedule: the scopes of its keys (ks), its
// `each at most` (cs, which sees the schedule's lets) and its guards (gs),
// and its one cap for the whole iteration, which every `each at most`
// must say alike.
type schedLowerer struct {
	l        *lowerer
	e        *engineDecl
	report   bool
	ks, cs   *scope
	gs       scope
	capText  string
	capExpr  *model.Expr
	capCount int // statements with an `each at most`
	capStmts int // statements that may have one
}

func (sl *schedLowerer) errorf(pos lexerPos, format string, args ...any) {
	if sl.report {
		sl.l.errorf(pos, format, args...)
	}
}

// procedure lowers the two schedules with no body (the first two
// schedules of docs/engine.md §4.1), `advance running; admit waiting while
// (running.preempted == 0);` (vLLM's) and `exclusive prefill; admit …`,
// and reports whether s is one of them.
func (sl *schedLowerer) procedure(s *syntax.ScheduleItem, eng *model.Engine) bool {
	if len(s.Stmts) != 2 {
		return false
	}
	adm, ok := s.Stmts[1].(*syntax.AdmitStmt)
	if !ok || adm.Only != nil || adm.While == nil {
		return false
	}
	if w, _ := sl.l.expr(adm.While, &sl.gs); !isNotPreempted(w) {
		return false
	}
	switch first := s.Stmts[0].(type) {
	case *syntax.AdvanceStmt:
		if first.Only != nil {
			return false
		}
		eng.Serve = model.ServeVLLM
		steps := sl.steps(s.Stmts)
		eng.Order = steps[0].Order
		eng.Chunk = sl.capExpr
		sl.capsAllOrNone(s.Pos)
		return true
	case *syntax.ExclusiveStmt:
		if e := sl.e; e.ast != nil {
			for _, it := range e.ast.Items {
				if g, ok := it.(*syntax.GranuleItem); ok {
					sl.errorf(g.Pos, "`granule` cannot be combined with `exclusive prefill`")
				}
			}
		}
		eng.Serve = model.ServeExclusive
		sl.checkCap(first.Cap)
		sl.checkCap(adm.Cap)
		eng.Chunk = sl.capExpr
		return true
	}
	return false
}

// capsAllOrNone refuses a schedule where some statements have an `each at
// most` and others not.
func (sl *schedLowerer) capsAllOrNone(pos lexerPos) {
	if sl.capCount > 0 && sl.capCount != sl.capStmts {
		sl.errorf(pos, "if one statement has `each at most`, all must")
	}
}

// checkCap checks a statement's `each at most` (c, nil when it has none)
// and makes it the schedule's cap.
func (sl *schedLowerer) checkCap(c *syntax.Expr) {
	sl.capStmts++
	if c == nil {
		return
	}
	sl.capCount++
	t := exprText(c)
	if infOperand(c) {
		sl.errorf(c.Pos, "`inf` inside an `each at most`'s arithmetic: `inf` is a whole cap (no cap), not an operand")
		return
	}
	if sl.capExpr != nil && t != sl.capText {
		sl.errorf(c.Pos, "every `each at most` of a schedule must say the same: `%s` and `%s` differ", sl.capText, t)
		return
	}
	v, _ := sl.l.expr(c, sl.cs)
	if x, ok := v.IsConst(); ok && !(x > 0) {
		sl.errorf(c.Pos, "`each at most` must be positive, not %s", fmtNum(x))
	} else if !ok {
		if msg := capShape(v); msg != "" {
			sl.errorf(c.Pos, "%s", msg)
		}
	}
	sl.capText, sl.capExpr = t, v
}

// schedReaches reports whether every path through ss reaches an
// `advance`, an `admit` or an `exclusive prefill`.
func schedReaches(ss []syntax.SchedStmt) bool {
	for _, st := range ss {
		switch st := st.(type) {
		case *syntax.AdvanceStmt, *syntax.AdmitStmt, *syntax.ExclusiveStmt:
			return true
		case *syntax.SchedBranch:
			if schedReaches(st.Then) && st.Else != nil && schedReaches(st.Else) {
				return true
			}
		}
	}
	return false
}

// steps lowers a schedule's statements to the engine's steps.
func (sl *schedLowerer) steps(ss []syntax.SchedStmt) []model.SchedStep {
	l := sl.l
	var out []model.SchedStep
	for _, st := range ss {
		switch st := st.(type) {
		case *syntax.AdvanceStmt:
			step := model.SchedStep{Op: model.SchedAdvance}
			if st.Only != nil {
				step.Only, _ = l.expr(st.Only, sl.ks)
			}
			switch {
			case st.Decode:
				step.Order = []*model.Expr{{Op: model.ECond, Args: []*model.Expr{
					{Op: model.ECtx, Slot: int(model.CtxDecoding), Name: "decoding"}, model.Num(0), model.Num(1)}}}
			case st.By != nil:
				step.Order = l.keys(st.By, sl.ks)
			}
			sl.checkCap(st.Cap)
			out = append(out, step)
		case *syntax.AdmitStmt:
			step := model.SchedStep{Op: model.SchedAdmit}
			if st.Only != nil {
				step.Only, _ = l.expr(st.Only, sl.ks)
			}
			if st.While != nil {
				step.While, _ = l.expr(st.While, &sl.gs)
			}
			sl.checkCap(st.Cap)
			out = append(out, step)
		case *syntax.ExclusiveStmt:
			sl.checkCap(st.Cap)
			sl.errorf(st.Pos, "`exclusive prefill` stands only as `exclusive prefill; admit waiting while (running.preempted == 0);`")
		case *syntax.SchedBranch:
			step := model.SchedStep{Op: model.SchedBranch}
			step.Cond, _ = l.expr(st.Cond, &sl.gs)
			step.Then = sl.steps(st.Then)
			step.Else = sl.steps(st.Else)
			out = append(out, step)
		case *syntax.SchedSet:
			r, ok := sl.e.regs[st.Name]
			if !ok {
				if owner := l.registerOwner(st.Name); owner != nil {
					sl.errorf(st.Pos, "`%s` is engine `%s`'s register: a schedule sets only its own engine's registers", st.Name, owner.name)
				} else {
					sl.errorf(st.Pos, "`%s` is no register of engine `%s`: declare `state %s = …;`", st.Name, sl.e.name, st.Name)
				}
				continue
			}
			step := model.SchedStep{Op: model.SchedSet, Reg: r}
			step.Value, _ = l.expr(st.Value, &sl.gs)
			out = append(out, step)
		}
	}
	return out
}

// registerOwner is the engine that declares a register `name` with
// `state`, nil for none; it reads the declarations, so it answers before
// the engines' bodies are lowered.
func (l *lowerer) registerOwner(name string) *engineDecl {
	for _, e := range l.engList {
		for _, it := range e.ast.Items {
			if st, ok := it.(*syntax.StateItem); ok && st.Name == name {
				return e
			}
		}
	}
	return nil
}

// checkRegistersSet refuses a register no `set` of the schedule writes (a
// schedule lowered to vLLM's procedure or `exclusive prefill` writes
// none): it would keep its first value for ever.
func (l *lowerer) checkRegistersSet(e *engineDecl, eng *model.Engine, pos lexerPos, errorf func(lexerPos, string, ...any)) {
	for _, name := range sortedKeys(e.regs) {
		r := e.regs[name]
		set := false
		var walk func([]model.SchedStep)
		walk = func(ss []model.SchedStep) {
			for _, st := range ss {
				set = set || (st.Op == model.SchedSet && st.Reg == r)
				walk(st.Then)
				walk(st.Else)
			}
		}
		walk(eng.Body)
		if !set {
			errorf(pos, "register `%s` is declared but nothing sets it: a schedule sets it with `set %s = …;`", name, name)
		}
	}
}

func (l *lowerer) workloadBody() {
	p := l.prog
	w := &p.Workload
	w.Init = &model.Block{Stmts: []*model.Stmt{}}
	w.Turn = &model.Block{Stmts: []*model.Stmt{}}
	var session *syntax.SessionItem
	if l.workload != nil && l.server == nil {
		l.errorf(l.workload.Pos, "a workload needs a `server`: each turn's request runs there (`server { … }` in `fn main`)")
	}
	if l.workload != nil {
		for _, it := range l.workload.Items {
			switch it := it.(type) {
			case *syntax.ArriveItem:
				l.arrival(it)
			case *syntax.TraceItem:
				if w.Trace != "" {
					l.errorf(it.Pos, "a second `trace`")
				}
				w.Trace = l.tracePath(it)
				w.Ordered = it.Ordered
			case *syntax.InitItem:
				l.costReset()
				w.Init = l.block(it.Body, &scope{l: l, mom: momInitTurn, side: sideInitTurn})
			case *syntax.TurnItem:
				l.costReset()
				w.Turn = l.block(it.Body, &scope{l: l, mom: momInitTurn, side: sideInitTurn})
			case *syntax.SessionItem:
				if session != nil {
					l.errorf(it.Pos, "a second `session`")
				}
				session = it
			case *syntax.TimeoutItem:
				l.timeout(it)
			}
		}
	}
	sc := &scope{l: l, mom: momSession, side: sideClient}
	if session != nil {
		l.costReset()
		w.Session = l.block(session.Body, sc)
		if !hasTurn(w.Session) {
			l.errorf(session.Pos, "the session never says `turn;`: a session submits its turns with it")
		}
	} else {
		l.prog.Blocks++
		w.Session = &model.Block{Stmts: []*model.Stmt{{Op: model.OpTurn, Pos: syntax.ToPos(l.mainPos())}}}
	}
	w.Session.Stmts = append(w.Session.Stmts, &model.Stmt{Op: model.OpEnd, Pos: syntax.ToPos(l.mainPos())})
}

func hasTurn(b *model.Block) bool {
	for _, s := range b.Stmts {
		if s.Op == model.OpTurn {
			return true
		}
		if s.Body != nil && hasTurn(s.Body) || s.Else != nil && hasTurn(s.Else) {
			return true
		}
	}
	return false
}

func (l *lowerer) arrival(a *syntax.ArriveItem) {
	w := &l.prog.Workload
	if len(a.Stages) > 0 {
		w.Arrive = model.ArriveConstant
		for _, st := range a.Stages {
			r, okR := l.constValue(st.Rate, "a stage's rate")
			d, okD := l.constValue(st.Duration, "a stage's duration")
			switch {
			case okR && !(r > 0 && !math.IsInf(r, 0)):
				l.errorf(st.Rate.Pos, "a stage's rate must be positive and finite, not %s", fmtNum(r))
			case okD && !(d > 0 && !math.IsInf(d, 0)):
				l.errorf(st.Duration.Pos, "a stage's duration must be positive and finite, not %s", fmtNum(d))
			case okR && okD && math.Floor(r*d) < 1:
				l.errorf(st.Pos, "a stage of rate %s for %s has no session: it sends floor(rate · duration) = 0", fmtNum(r), fmtNum(d))
			}
			w.Stages = append(w.Stages, model.ArriveStage{Rate: model.F64(r), Duration: model.F64(d)})
		}
		return
	}
	switch a.Kind {
	case "none":
		w.Arrive = model.ArriveNone
		return
	case "poisson":
		w.Arrive = model.ArrivePoisson
		x, ok := l.constValue(a.Arg, "a poisson rate")
		if ok && !(x > 0 && !math.IsInf(x, 0)) {
			l.errorf(a.Arg.Pos, "a poisson rate must be positive and finite, not %s", fmtNum(x))
		}
		w.Arg = model.Num(x)
	case "renewal":
		w.Arrive = model.ArriveRenewal
		sc := &scope{l: l, mom: momInitTurn}
		v, _ := l.expr(a.Arg, sc)
		if x, ok := v.IsConst(); ok && !(x > 0 && !math.IsInf(x, 0)) {
			l.errorf(a.Arg.Pos, "a renewal gap must be positive and finite, not %s", fmtNum(x))
		}
		v.Walk(func(e *model.Expr) bool {
			if e.Op == model.EAttr || e.Op == model.EPool || e.Op == model.EStage || e.Op == model.ECtx {
				l.errorf(a.Arg.Pos, "a renewal gap reads constants, functions and draws only")
				return false
			}
			return true
		})
		w.Arg = v
	case "closed", "batch":
		if a.Kind == "closed" {
			w.Arrive = model.ArriveClosed
		} else {
			w.Arrive = model.ArriveBatch
		}
		x, ok := l.constValue(a.Arg, "a session count")
		if ok && (x < 1 || x > 1e6 || x != math.Floor(x)) {
			l.errorf(a.Arg.Pos, "`%s` takes a whole number of sessions from 1 to 1000000, not %s", a.Kind, fmtNum(x))
		}
		w.Arg = model.Num(x)
	}
}

func (l *lowerer) claim(c *syntax.ClaimItem) {
	cl := model.Claim{Name: c.Name, Stage: -1, Pos: syntax.ToPos(c.Pos)}
	sc := &scope{l: l, mom: momClaim}
	switch {
	case c.AtEnd:
		cl.Kind = "at_end"
	case c.Kind == "every":
		cl.Kind = "every_iteration"
	default:
		cl.Kind = "some_iteration"
	}
	if c.Stage != nil {
		r, ok := l.resolveRes(refName(c.Stage), sc, resStage)
		if ok {
			cl.Stage = l.prog.StageFams[r.Fam].First
			if x, ok := r.ref.Index.IsConst(); ok {
				cl.Stage += int(x)
			}
			if l.prog.Stages[cl.Stage].Kind != model.Step {
				l.errorf(c.Stage.Pos, "claim `%s` reads the iterations of `%s`, which is no engine", c.Name, l.prog.Stages[cl.Stage].Label)
			}
		}
	}
	at := nameAt(c.Pos, c.Tokens, c.Name)
	if _, dup := l.claimNames[c.Name]; dup {
		l.errorf(at, "claim `%s`: declared twice (first at %s)", c.Name, l.claimNames[c.Name])
	} else {
		if l.claimNames == nil {
			l.claimNames = map[string]model.Pos{}
		}
		p := syntax.ToPos(at)
		if p.File == "" {
			p.File = l.file
		}
		l.claimNames[c.Name] = p
	}
	if c.Given != nil {
		cl.Given, _ = l.expr(c.Given, sc)
		l.claimReads(c.Given, cl.Given, "a claim's `given`", true)
	}
	es := *sc
	es.atEnd = c.AtEnd
	cl.Expr, _ = l.expr(c.Expr, &es)
	l.claimReads(c.Expr, cl.Expr, "a claim", c.AtEnd)
	// Only `given` reads a session's attributes: the claim itself is read
	// at an iteration or at the end, where there is no session.
	cl.Expr.Walk(func(e *model.Expr) bool {
		if e.Op == model.EAttr {
			l.errorf(c.Expr.Pos, "claim `%s` reads `%s`, an attribute: a claim reads the deployment and the observations; only its `given` reads a session's attributes", c.Name, e.Name)
			return false
		}
		return true
	})
	l.prog.Claims = append(l.prog.Claims, cl)
}

// granuleFitsCap refuses a granule above a constant per-run cap, or above
// the constant k of a cap `max(k, e)`: every chunk would round to 0 and
// the prefill would wait for ever. `granule inf` exceeds any such cap.
func (l *lowerer) granuleFitsCap(gran *syntax.GranuleItem, chunk *model.Expr) {
	x, isConst := l.constValueQuiet(gran.Granule)
	if !isConst || chunk == nil {
		return
	}
	limit, ok := chunk.IsConst()
	if !ok && chunk.Op == model.EFunc && chunk.Fn == model.FMax {
		for _, a := range chunk.Args {
			if k, isK := a.IsConst(); isK {
				limit, ok = k, true
			}
		}
	}
	if ok && x > limit {
		l.errorf(gran.Granule.Pos, "`granule %s` exceeds the per-run cap %s: every chunk would round to 0", fmtNum(x), fmtNum(limit))
	}
}

// constValueQuiet evaluates a constant expression without reporting.
func (l *lowerer) constValueQuiet(e *syntax.Expr) (float64, bool) {
	saved := len(l.errs)
	v, _ := l.expr(e, &scope{l: l, mom: momConst})
	l.errs = l.errs[:saved]
	return v.IsConst()
}
