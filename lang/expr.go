package lang

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// fmtNum writes a number in messages as a program would.
var fmtNum = model.FormatNum

// expr lowers e in sc, folding constants.
func (l *lowerer) expr(e *syntax.Expr, sc *scope) (*model.Expr, typ) {
	if !l.withinLimits(e.Pos) {
		return model.Num(0), nil
	}
	l.exprDepth++
	defer func() { l.exprDepth-- }()
	c, ct := l.orExpr(e.Cond, sc)
	if e.Then == nil {
		return c, ct
	}
	a, at := l.expr(e.Then, sc)
	b, bt := l.expr(e.Else, sc)
	if !sameTyp(at, bt) {
		l.errorf(e.Pos, "the two arms of `?:` differ: %s and %s", at, bt)
	}
	if x, ok := c.IsConst(); ok {
		if x != 0 {
			return a, at
		}
		return b, at
	}
	return &model.Expr{Op: model.ECond, Args: []*model.Expr{c, a, b}}, at
}

func (l *lowerer) orExpr(e *syntax.OrExpr, sc *scope) (*model.Expr, typ) {
	x, t := l.andExpr(e.Left, sc)
	for _, r := range e.Rest {
		y, _ := l.andExpr(r, sc)
		x, t = fold(model.EOr, x, y), nil
	}
	return x, t
}

func (l *lowerer) andExpr(e *syntax.AndExpr, sc *scope) (*model.Expr, typ) {
	x, t := l.cmpExpr(e.Left, sc)
	for _, r := range e.Rest {
		y, _ := l.cmpExpr(r, sc)
		x, t = fold(model.EAnd, x, y), nil
	}
	return x, t
}

var cmpOps = map[string]model.ExprOp{"<": model.ELt, "<=": model.ELe, ">": model.EGt, ">=": model.EGe, "==": model.EEq, "!=": model.ENe}

func (l *lowerer) cmpExpr(e *syntax.CmpExpr, sc *scope) (*model.Expr, typ) {
	x, t := l.addExpr(e.Left, sc)
	if e.Op == "" {
		return x, t
	}
	y, u := l.addExpr(e.Right, sc)
	if !sameTyp(t, u) {
		l.errorf(e.Pos, "`%s` compares %s with %s: a cost and a bare number cannot mix", e.Op, t, u)
	}
	return fold(cmpOps[e.Op], x, y), nil
}

func (l *lowerer) addExpr(e *syntax.AddExpr, sc *scope) (*model.Expr, typ) {
	x, t := l.mulExpr(e.Left, sc)
	for _, r := range e.Rest {
		y, u := l.mulExpr(r.Right, sc)
		if !sameTyp(t, u) {
			l.errorf(r.Pos, "`%s` mixes %s and %s: a cost and a bare number cannot mix", r.Op, t, u)
		}
		op := model.EAdd
		if r.Op == "-" {
			op = model.ESub
		}
		x = fold(op, x, y)
	}
	return x, t
}

func (l *lowerer) mulExpr(e *syntax.MulExpr, sc *scope) (*model.Expr, typ) {
	x, t := l.unary(e.Left, sc)
	for _, r := range e.Rest {
		y, u := l.unary(r.Right, sc)
		switch {
		case t.isCost() && u.isCost():
			l.errorf(r.Pos, "`%s` of two costs: only a cost and a bare number multiply", r.Op)
		case r.Op == "/" && u.isCost():
			l.errorf(r.Pos, "dividing by %s: only a cost divided by a number stays a cost", u)
		case u.isCost():
			t = u
		}
		op := model.EMul
		if r.Op == "/" {
			op = model.EDiv
		}
		x = fold(op, x, y)
	}
	return x, t
}

func (l *lowerer) unary(e *syntax.Unary, sc *scope) (*model.Expr, typ) {
	switch {
	case e.Op == "-":
		x, t := l.unary(e.X, sc)
		return fold(model.ENeg, x), t
	case e.Op == "!":
		x, _ := l.unary(e.X, sc)
		return fold(model.ENot, x), nil
	case e.Draw != nil:
		return l.draw(e.Draw, sc), nil
	}
	x, t := l.atom(e.Pow.X, sc)
	if e.Pow.Exp == nil {
		return x, t
	}
	y, _ := l.unary(e.Pow.Exp, sc)
	if t.isCost() {
		l.errorf(e.Pos, "a cost raised to a power is no cost")
	}
	return fold(model.EPow, x, y), nil
}

func (l *lowerer) draw(d *syntax.Draw, sc *scope) *model.Expr {
	info, ok := dists[d.Name]
	if !ok {
		suggest(l.errorf(d.Pos, "unknown distribution `~%s`", d.Name), d.Name, sortedKeys(dists))
		return model.Num(0)
	}
	if len(d.Args) != info.Arity() {
		l.errorf(d.Pos, "`~%s` takes %s, not %d", d.Name, plural(info.Arity(), "argument"), len(d.Args))
		return model.Num(0)
	}
	if !sc.mom.draws() {
		l.errorf(d.Pos, "%sa draw `~%s` in %s: %s", sc.engineOf(), d.Name, momentNames[sc.mom], noDrawWhy[sc.mom])
	}
	if sc.draws != nil {
		*sc.draws = true
	}
	args := make([]*model.Expr, len(d.Args))
	for i, a := range d.Args {
		args[i], _ = l.expr(a, sc)
	}
	return &model.Expr{Op: model.EDraw, Fn: info.Fn, Args: args}
}

func (l *lowerer) atom(a *syntax.Atom, sc *scope) (*model.Expr, typ) {
	switch {
	case a.Number != nil:
		x, err := parseNumber(*a.Number)
		if err != nil {
			l.errorf(a.Pos, "malformed number %q", *a.Number)
		}
		return model.Num(x), nil
	case a.Paren != nil:
		return l.expr(a.Paren, sc)
	case a.Agg != nil:
		return l.aggregate(a.Agg, sc)
	case a.Call != nil:
		return l.call(a.Call, sc)
	}
	return l.name(a.Name, sc)
}

func (l *lowerer) aggregate(a *syntax.Aggregate, sc *scope) (*model.Expr, typ) {
	var n float64
	switch {
	case a.NNum != "":
		n, _ = parseNumber(a.NNum)
	case a.NName != "":
		v, ok := l.consts[a.NName]
		if !ok {
			l.errorf(a.Pos, "the size of `%s %s in %s` must be a constant's name, a number or a parenthesised constant", a.Op, a.Var, a.NName)
			return model.Num(0), nil
		}
		n = v
	default:
		x, ok := l.constValue(a.NParen, "an aggregate's size")
		if !ok {
			return model.Num(0), nil
		}
		n = x
	}
	if n != math.Floor(n) || n < 1 {
		l.errorf(a.Pos, "`%s %s in …` needs a whole number of terms, at least 1, not %s", a.Op, a.Var, fmtNum(n))
		return model.Num(0), nil
	}
	if sc.vars.lookup(a.Var) != nil || l.attrs[a.Var] != 0 || l.consts[a.Var] != 0 || reservedNames[a.Var] {
		if _, isConst := l.consts[a.Var]; isConst || sc.vars.lookup(a.Var) != nil || reservedNames[a.Var] {
			l.errorf(a.Pos, "the index `%s` of an aggregate must be a fresh name", a.Var)
		}
	}
	l.aggIndex(a.Var, a.Pos)
	if n > 4096 || l.aggTerms+int(n) > 4096 {
		l.aggTerms = 4097
		l.errorf(a.Pos, "aggregates unroll to more than 4096 terms in the whole program")
		return model.Num(0), nil
	}
	l.aggTerms += int(n)
	if l.aggTerms > 4096 {
		l.errorf(a.Pos, "aggregates unroll to more than 4096 terms in the whole program")
		return model.Num(0), nil
	}
	op := map[string]model.ExprOp{"sum": model.EAdd}[a.Op]
	var acc *model.Expr
	var t typ
	for k := 0; k < int(n); k++ {
		c := sc.child()
		c.bind(a.Var, &binding{val: model.Num(float64(k))})
		x, xt := l.expr(a.Body, c)
		t = xt
		if acc == nil {
			acc = x
			continue
		}
		if a.Op == "sum" {
			acc = fold(op, acc, x)
		} else {
			fn := model.FMax
			if a.Op == "min" {
				fn = model.FMin
			}
			acc = foldFunc(fn, acc, x)
		}
	}
	return acc, t
}

// QueryFuncs are the names of the debugger's built-in functions, for a
// front end's completion.
func QueryFuncs() []string {
	out := append(sortedKeys(queryOnlyFuncs), sortedKeys(queryPoolFuncs)...)
	sort.Strings(out)
	return out
}

// queryCall lowers a call of a debugger-only built-in (model.KQueryOnly);
// ok is false for another name.
func (l *lowerer) queryCall(c *syntax.Call, sc *scope) (*model.Expr, bool) {
	b := queryOnlyFuncs[c.Func]
	if b == nil || sc.mom != momQuery || l.defs[c.Func] != nil {
		return nil, false
	}
	if b.Op != model.EObsAgg {
		return l.observable(c, sc, b.Op, b.Fn, resOf(b.Op)), true
	}
	var n *syntax.Name
	if len(c.Args) == 1 {
		n = nameOf(c.Args[0])
	}
	if n == nil || n.Index != nil || len(n.Path) > 0 {
		l.errorf(c.Pos, "`%s` takes the name of an observe", c.Func)
		return model.Num(0), true
	}
	slot, ok := l.observes[n.Name]
	if !ok {
		suggest(l.errorf(n.Pos, "`%s` is no observe of the program", n.Name), n.Name, sortedKeys(l.observes))
		return model.Num(0), true
	}
	return &model.Expr{Op: model.EObsAgg, Fn: b.Fn, Slot: slot, Name: n.Name}, true
}

// queryName lowers a name a debugger expression knows beyond the
// program's own: a gauge (its expression) or an observe (its running
// mean); ok is false for another.
func (l *lowerer) queryName(n *syntax.Name, sc *scope) (*model.Expr, bool) {
	if sc.mom != momQuery {
		return nil, false
	}
	for i := range l.prog.Gauges {
		if g := &l.prog.Gauges[i]; g.Name == n.Name && g.Expr != nil {
			return g.Expr, true
		}
	}
	if slot, ok := l.observes[n.Name]; ok {
		return &model.Expr{Op: model.EObsAgg, Fn: model.OMean, Slot: slot, Name: n.Name}, true
	}
	return nil, false
}

// call lowers a call: of a built-in function, an observable, a device's
// time resource, or an expression def.
func (l *lowerer) call(c *syntax.Call, sc *scope) (*model.Expr, typ) {
	if x, ok := l.queryCall(c, sc); ok {
		return x, nil
	}
	name := c.Func
	if formFuncs[name] != nil && (name != "up" || l.defs[name] == nil) {
		if x, t, ok := l.form(c, sc); ok {
			return x, t
		}
	}
	if b := pureFuncs[name]; b != nil {
		return l.pureCall(c, b, sc)
	}
	if b := observables[name]; b != nil {
		return l.observable(c, sc, b.Op, b.Fn, resOf(b.Op)), nil
	}
	if b := queryPoolFuncs[name]; b != nil && l.defs[name] == nil {
		if sc.mom != momQuery {
			l.errorf(c.Pos, "`%s` is a debugger built-in: it is read only in a break or watch expression of serq tui", name)
			return model.Num(0), nil
		}
		return l.observable(c, sc, b.Op, b.Fn, resOf(b.Op)), nil
	}
	if b := claimFuncs[name]; b != nil {
		return l.claimAgg(c, b, sc), nil
	}
	if sc.eng != nil {
		if r, ok := sc.eng.dev.funcs[c.Func]; ok {
			l.bindUse(c.Pos, c.Func, "time resource", c.Func, "", r.Pos)
			return l.deviceFunc(c, r, sc), nil
		}
	}
	if d, ok := l.defs[c.Func]; ok {
		return l.exprDef(c, d, sc)
	}
	for _, d := range l.allDevices() {
		if _, ok := d.funcs[c.Func]; ok {
			l.errorf(c.Pos, "time resource `%s` of device `%s` may be read only in its engine's `execute`", c.Func, d.short())
			return model.Num(0), nil
		}
	}
	names := append(sortedKeys(l.defs), callableNames()...)
	if sc.mom == momQuery {
		names = append(names, QueryFuncs()...)
	}
	suggest(l.errorf(c.Pos, "undefined function `%s`", c.Func), c.Func, names)
	return model.Num(0), nil
}

// resOf is the resource an observable's op reads.
func resOf(op model.ExprOp) resKind {
	if op == model.EStage {
		return resStage
	}
	return resPool
}

// pureCall lowers a call of a pure function b (`min`, `max`, `abs`,
// `sqrt`, …): the arguments' count and cost types, folded when constant.
func (l *lowerer) pureCall(c *syntax.Call, b *model.Builtin, sc *scope) (*model.Expr, typ) {
	args, name := c.Args, c.Func
	if len(args) != b.Arity() {
		l.errorf(c.Pos, "`%s` takes %s, not %d", name, plural(b.Arity(), "argument"), len(args))
		return model.Num(0), nil
	}
	xs := make([]*model.Expr, len(args))
	var t typ
	for i, a := range args {
		var at typ
		xs[i], at = l.expr(a, sc)
		if i == 0 {
			t = at
		} else if b.KeepsCost && !sameTyp(t, at) {
			l.errorf(c.Pos, "`%s` of %s and %s: a cost and a bare number cannot mix", name, t, at)
		}
	}
	if !b.KeepsCost {
		if t.isCost() {
			l.errorf(c.Pos, "`%s` of a cost is no cost", name)
		}
		t = nil
	}
	return foldFunc(b.Fn, xs...), t
}

// blocksize lowers `blocksize(POOL)`: the pool's declared block, a
// constant.
func (l *lowerer) blocksize(c *syntax.Call, sc *scope) *model.Expr {
	args := c.Args
	if len(args) != 1 {
		l.errorf(c.Pos, "`blocksize` takes 1 argument, not %d", len(args))
		return model.Num(0)
	}
	if sc.mom == momConst {
		l.errorf(c.Pos, "`blocksize` is not allowed in a constant position")
	}
	n := nameOf(args[0])
	if n == nil {
		l.errorf(args[0].Pos, "`blocksize` takes a pool, not an expression")
		return model.Num(0)
	}
	if n.Index != nil && argDraws(n.Index) {
		l.errorf(n.Index.Pos, "the index of `blocksize(%s)` draws: every member has the family's block, so name one with a number", nameText(n))
		return model.Num(0)
	}
	r, ok := l.resolveRes(n, sc, resPool)
	if !ok {
		return model.Num(0)
	}
	b := l.prog.Pools[l.prog.PoolFams[r.Fam].First].Block
	if b == 0 {
		l.errorf(c.Pos, "pool `%s` declares no `block`", l.prog.PoolFams[r.Fam].Name)
	}
	return model.Num(float64(b))
}

// claimAgg lowers an observation aggregate of `claim … at end`
// (`total(x)`, `count(x)`, …) over the observe it names.
func (l *lowerer) claimAgg(c *syntax.Call, b *model.Builtin, sc *scope) *model.Expr {
	args, name := c.Args, c.Func
	if sc.mom != momClaim || !sc.atEnd {
		l.errorf(c.Pos, "`%s` is an observation aggregate: it is read only in `claim … at end`", name)
		return model.Num(0)
	}
	var n *syntax.Name
	if len(args) == 1 {
		n = nameOf(args[0])
	}
	if n == nil || n.Index != nil || len(n.Path) > 0 {
		l.errorf(c.Pos, "`%s` takes the name of an observe", name)
		return model.Num(0)
	}
	slot, ok := l.observes[n.Name]
	if !ok {
		suggest(l.errorf(n.Pos, "`%s` is no observe of the program", n.Name), n.Name, sortedKeys(l.observes))
		return model.Num(0)
	}
	return &model.Expr{Op: model.EObsAgg, Fn: b.Fn, Slot: slot, Name: n.Name}
}

func (l *lowerer) allDevices() []*deviceDecl {
	var ds []*deviceDecl
	for _, k := range sortedKeys(l.devices) {
		ds = append(ds, l.devices[k])
	}
	for _, q := range l.qList {
		if q.dev != nil {
			ds = append(ds, q.dev)
		}
	}
	return ds
}

func (l *lowerer) costCall(c *syntax.Call, sc *scope) (*model.Expr, typ) {
	if len(c.Args) < 2 {
		l.errorf(c.Pos, "`cost` takes the resources and then the amount: `cost(kv, n)`")
		return model.Num(0), nil
	}
	var t typ
	bad := false
	fs := *sc
	fs.family = true
	for _, a := range c.Args[:len(c.Args)-1] {
		n := nameOf(a)
		if n == nil {
			l.errorf(a.Pos, "`cost` names resources first: `%s` is not a pool or stage", exprText(a))
			bad = true
			continue
		}
		if n.Index != nil && argDraws(n.Index) {
			l.errorf(n.Index.Pos, "the index of `%s` in `cost(…)` draws: a cost names a family or a member written as a number or an attribute", n.Name)
			bad = true
			continue
		}
		r, ok := l.resolveRes(n, &fs, resAny)
		if !ok {
			bad = true
			continue
		}
		t = append(t, r.key)
	}
	x, xt := l.expr(c.Args[len(c.Args)-1], sc)
	if xt.isCost() && !xt.bad() {
		l.errorf(c.Pos, "a cost cannot be wrapped again: %s is a cost already", xt)
	}
	if bad {
		return x, badTyp
	}
	sort.Strings(t)
	t = dedupStrings(t)
	switch sc.side {
	case sideInitTurn:
		l.errorf(c.Pos, "the workload's `init` and `turn` blocks state sizes, not costs: `cost(…)` belongs in the server")
		return x, badTyp
	case sideClient:
		l.clientCost(c, t)
	}
	if t == nil {
		t = typ{}
	}
	return x, t
}

func dedupStrings(s []string) []string {
	if len(s) == 0 {
		return s
	}
	out := s[:1]
	for _, x := range s[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func (l *lowerer) observable(c *syntax.Call, sc *scope, op model.ExprOp, fn model.Func, want resKind) *model.Expr {
	if len(c.Args) != 1 {
		l.errorf(c.Pos, "`%s` takes 1 argument, not %d", c.Func, len(c.Args))
		return model.Num(0)
	}
	if !sc.mom.observables() {
		l.errorf(c.Pos, "`%s` reads the deployment's state, which %s may not", c.Func, momentNames[sc.mom])
		return model.Num(0)
	}
	switch {
	case sc.mom == momGauge && (c.Func == "work" || c.Func == "cachedin"):
		l.errorf(c.Pos, "a gauge may not read `%s`", c.Func)
	case c.Func == "work" && (sc.mom == momEngKeys || sc.mom == momEngGuard):
		l.errorf(c.Pos, "`work` may not be read in %s", momentNames[sc.mom])
	case c.Func == "cachedin" && !(sc.mom == momSession || sc.mom == momAdmit):
		l.errorf(c.Pos, "`cachedin` reads the session's own cache: not in %s", momentNames[sc.mom])
	}
	n := nameOf(c.Args[0])
	if n == nil {
		l.errorf(c.Args[0].Pos, "`%s` takes a %s, not an expression", c.Func, want)
		return model.Num(0)
	}
	r, ok := l.resolveRes(n, sc, want)
	if !ok {
		return model.Num(0)
	}
	ref := r.ref
	e := &model.Expr{Op: op, Fn: fn, Ref: &ref}
	if fn == model.SEstLambda || fn == model.SEstRho || fn == model.SEstWait {
		return e
	}
	return seen(sc, e)
}

func (l *lowerer) budgetLeft(c *syntax.Call, sc *scope) *model.Expr {
	if len(c.Args) != 1 {
		l.errorf(c.Pos, "`budget_left` takes 1 argument, not %d", len(c.Args))
		return model.Num(0)
	}
	if !(sc.mom == momSession || sc.mom == momAdmit || sc.mom == momSelect) {
		l.errorf(c.Pos, "`budget_left` may not be read in %s", momentNames[sc.mom])
		return model.Num(0)
	}
	n := nameOf(c.Args[0])
	if n == nil {
		l.errorf(c.Pos, "`budget_left` takes an engine")
		return model.Num(0)
	}
	r, ok := l.resolveRes(n, sc, resStage)
	if !ok {
		return model.Num(0)
	}
	if l.prog.Stages[l.prog.StageFams[r.Fam].First].Kind != model.Step {
		l.errorf(c.Pos, "`budget_left` takes an engine; `%s` is a %s stage", l.prog.StageFams[r.Fam].Name,
			l.prog.Stages[l.prog.StageFams[r.Fam].First].Kind)
		return model.Num(0)
	}
	ref := r.ref
	return &model.Expr{Op: model.EBudget, Ref: &ref}
}

func (l *lowerer) deviceFunc(c *syntax.Call, r *syntax.Resource, sc *scope) *model.Expr {
	if sc.mom != momEngCost {
		l.errorf(c.Pos, "time resource `%s` may be read only in the engine's `execute`", c.Func)
		return model.Num(0)
	}
	if len(c.Args) != len(r.Params) {
		l.errorf(c.Pos, "`%s` takes %s, not %d", c.Func, plural(len(r.Params), "argument"), len(c.Args))
		return model.Num(0)
	}
	inner := sc.child()
	for i, p := range r.Params {
		v, t := l.expr(c.Args[i], sc)
		inner.bind(p, &binding{val: v, typ: t})
	}
	v, _ := l.expr(r.Body, inner)
	return v
}

// exprDef expands an expression def at its use.
func (l *lowerer) exprDef(c *syntax.Call, d *syntax.DefItem, sc *scope) (*model.Expr, typ) {
	body := d.Expr
	if o, ok := l.defSubst[d.Name]; ok {
		body = o
	}
	if body == nil {
		l.errorf(c.Pos, "def `%s` holds statements: use it as a statement, `%s(…);`", d.Name, d.Name)
		return model.Num(0), nil
	}
	l.bindUse(c.Pos, d.Name, "def", d.Name, d.Name, atSite)
	if len(c.Args) != len(d.Params) {
		l.errorf(c.Pos, "def `%s` takes %s, not %d", d.Name, plural(len(d.Params), "argument"), len(c.Args))
		return model.Num(0), nil
	}
	if sc.depth > 64 {
		l.errorf(c.Pos, "def `%s` expands too deeply: a def may use only earlier defs", d.Name)
		return model.Num(0), nil
	}
	for _, n := range sc.defStack {
		if n == d.Name {
			l.errorf(c.Pos, "def `%s` uses itself: no recursion", d.Name)
			return model.Num(0), nil
		}
	}
	inner := sc.child()
	inner.depth++
	inner.defStack = append(append([]string(nil), sc.defStack...), d.Name)
	bs := make([]*binding, len(d.Params))
	for i, p := range d.Params {
		bs[i] = &binding{ast: c.Args[i], sc: sc, pos: c.Args[i].Pos, kind: "parameter", decl: paramAt(d, p)}
		inner.bind(p, bs[i])
	}
	mark := len(l.errs)
	v, t := l.expr(body, inner)
	l.noteUse(mark, d, c.Pos)
	for i, b := range bs {
		if b.reads > 1 && argDraws(c.Args[i]) {
			l.errorf(c.Args[i].Pos, "a drawing argument goes to parameter `%s` of `%s`, which reads it %d times", d.Params[i], d.Name, b.reads)
		}
	}
	return v, t
}

func argDraws(e *syntax.Expr) bool {
	for _, t := range e.Tokens {
		if t.Value == "~" {
			return true
		}
	}
	return false
}

// nameOf returns the bare reference an expression is, or nil.
func nameOf(e *syntax.Expr) *syntax.Name {
	u := soleUnary(e)
	if u == nil || u.Op != "" || u.Pow == nil || u.Pow.Exp != nil || u.Pow.X.Name == nil {
		return nil
	}
	return u.Pow.X.Name
}

// soleUnary returns the single operand an expression consists of, or nil
// when it has an operator above the unary level.
func soleUnary(e *syntax.Expr) *syntax.Unary {
	if e == nil || e.Then != nil || len(e.Cond.Rest) > 0 {
		return nil
	}
	and := e.Cond.Left
	if len(and.Rest) > 0 || and.Left.Op != "" {
		return nil
	}
	add := and.Left.Left
	if len(add.Rest) > 0 || len(add.Left.Rest) > 0 {
		return nil
	}
	return add.Left.Left
}

func refName(r *syntax.Ref) *syntax.Name {
	n := &syntax.Name{Pos: r.Pos, Name: r.Name, Index: r.Index}
	if r.Member != "" {
		n.Path = []string{r.Member}
	}
	return n
}

// nameText is a name as written: `D[j].kv`.
func nameText(n *syntax.Name) string {
	s := n.Name
	if n.Index != nil {
		s += "[" + exprText(n.Index) + "]"
	}
	for _, p := range n.Path {
		s += "." + p
	}
	return s
}

// name resolves an identifier, a `Q.x` attribute, an engine value or a
// bound name.
func (l *lowerer) name(n *syntax.Name, sc *scope) (*model.Expr, typ) {
	if n.Index == nil && len(n.Path) == 0 {
		return l.ident(n, sc)
	}
	if len(n.Path) == 1 && n.Index == nil && (n.Name == "running" || n.Name == "waiting" || n.Name == "batch") {
		return l.ctx(n, n.Name+"."+n.Path[0], sc), nil
	}
	if len(n.Path) == 1 {
		if q, ok := l.queues[n.Name]; ok {
			attr := q.name + "." + n.Path[0]
			if _, ok := l.attrs[attr]; ok || q.attrs[n.Path[0]] {
				if n.Index != nil {
					l.errorf(n.Pos, "`%s` is the request's: write `%s` without the member index", attr, attr)
					return model.Num(0), nil
				}
				if sc.side == sideEntry && sc.q != q {
					l.errorf(n.Pos, "an entry of `%s` cannot read `%s`, another queue's attribute: pass it as a parameter", sc.q.name, attr)
				}
				if sc.mom.scheduler() && !(sc.mom == momAdmit) {
					l.errorf(n.Pos, "`%s` is an attribute: %s may not read it", attr, momentNames[sc.mom])
				}
				l.bindUse(n.Pos, attr, "attribute", attr, "qattr "+attr+"|attr "+attr, atSite)
				return &model.Expr{Op: model.EAttr, Slot: l.attr(attr), Name: attr}, nil
			}
		}
	}
	// A bare reference to a resource used as a value.
	if _, ok := l.resolveResQuiet(n, sc); ok {
		l.errorf(n.Pos, "`%s` is a resource, not a number: read it with used(…), queue(…) or another observable", nameText(n))
		return model.Num(0), nil
	}
	l.errorf(n.Pos, "undefined: %s", nameText(n))
	return model.Num(0), nil
}

func (l *lowerer) ctx(n *syntax.Name, full string, sc *scope) *model.Expr {
	var c model.Ctx = -1
	for i, s := range model.CtxNames {
		if s == full {
			c = model.Ctx(i)
		}
	}
	if c < 0 {
		l.errorf(n.Pos, "undefined: %s", full)
		return model.Num(0)
	}
	for _, a := range ctxAllowed[sc.mom] {
		if a != c {
			continue
		}
		if c == model.CtxWaitingCount && sc.eng != nil && sc.member == 0 && l.prog.StageFams[sc.eng.fam].Array {
			e := l.errorf(n.Pos, "%s`waiting.count` cannot be read in an engine family", sc.engineOf())
			e.Hint = "only an engine of one reads `waiting.count` (docs/engine.md §4.2)"
		}
		return &model.Expr{Op: model.ECtx, Slot: int(c), Name: full}
	}
	msg := fmt.Sprintf("%s`%s` cannot be read in %s", sc.engineOf(), full, momentNames[sc.mom])
	if where := ctxMoments(c); len(where) > 0 && len(where) <= 3 {
		msg += ": it is read only in " + joinOr(where)
	}
	l.errorf(n.Pos, "%s", msg)
	return model.Num(0)
}

// joinOr lists words: "a", "a or b", "a, b or c".
func joinOr(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// ctxMoments names the moments that may read c, claims aside.
func ctxMoments(c model.Ctx) []string {
	var where []string
	for m := momConst; m < momClaim; m++ {
		for _, a := range ctxAllowed[m] {
			if a == c {
				where = append(where, momentNames[m])
			}
		}
	}
	return where
}

var oldCtxNames = map[string]string{"n": "present", "ntok": "batch.tokens", "ndec": "batch.decoding", "npre": "batch.prefilled",
	"nres": "running.count", "kvb": "batch.kv_decode", "kvp": "batch.kv_prefill", "attn": "batch.attention",
	"residents": "running.count", "decoders": "running.decoding", "preempted": "running.preempted"}

// ident lowers a bare name: a binding, `inf`, `self`, a constant, a
// context variable, an engine register, a gauge's register, or an
// attribute; anything else is an error.
func (l *lowerer) ident(n *syntax.Name, sc *scope) (*model.Expr, typ) {
	name := n.Name
	if x, t, ok := l.boundName(n, sc); ok {
		return x, t
	}
	switch name {
	case "inf":
		return model.Num(math.Inf(1)), nil
	case "self":
		if sc.self == nil {
			l.errorf(n.Pos, "`self` is the member index: it is read only inside a queue")
			return model.Num(0), nil
		}
		return sc.self, nil
	}
	if v, ok := l.consts[name]; ok {
		if l.inputOf(name) != nil {
			l.bindUse(n.Pos, name, "input", name, "input "+name, atSite)
		} else {
			l.bindUse(n.Pos, name, "let", name, name, atSite)
		}
		return model.Num(v), nil
	}
	if l.misreadCache(n, sc) {
		return model.Num(0), nil
	}
	if sc.mom == momClaim {
		// A claim's own names (the reference's tests/claims.rs): `tokens`,
		// the batch's tokens, and `arrived`, the sessions started so far.
		switch name {
		case "tokens":
			x := l.ctx(n, "batch.tokens", sc)
			x.Name = name
			return x, nil
		case "arrived":
			return l.ctx(n, name, sc), nil
		}
	}
	for i, s := range model.CtxNames {
		if s == name && model.Ctx(i) != model.CtxArrived { // `arrived` is a claim's alone
			return l.ctx(n, model.CtxNames[i], sc), nil
		}
	}
	if sc.eng != nil {
		if r, ok := sc.eng.regs[name]; ok {
			return &model.Expr{Op: model.EReg, Slot: r, Name: name}, nil
		}
	}
	if sc.mom == momGauge {
		if x, ok := l.gaugeRegister(n); ok {
			return x, nil
		}
	}
	// The source of a `from` entry is a resource, whatever attribute
	// shares its name.
	if sc.from != nil && name == sc.from.name {
		l.undefined(n, sc)
		return model.Num(0), nil
	}
	if x, ok := l.queryName(n, sc); ok {
		return x, nil
	}
	// Attributes.
	if sc.side == sideEntry && sc.q != nil {
		if x, ok := l.entryRead(n, sc); ok {
			return x, nil
		}
	} else if slot, ok := l.attrs[name]; ok {
		x := l.attrRead(n, name, sc)
		return x, l.costRead(n.Pos, name, slot)
	}
	l.undefined(n, sc)
	return model.Num(0), nil
}

// boundName reads a name bound in sc (a def's parameter, a `choose`
// variable, a schedule's let, …); ok is false when none is bound.
func (l *lowerer) boundName(n *syntax.Name, sc *scope) (x *model.Expr, t typ, ok bool) {
	b := sc.vars.lookup(n.Name)
	if b == nil {
		return nil, nil, false
	}
	if b.refuse != "" {
		l.errorf(n.Pos, "%s", b.refuse)
		return model.Num(0), nil, true
	}
	if b.kind != "" {
		l.bindUse(n.Pos, n.Name, b.kind, n.Name, "", b.decl)
	}
	b.reads++
	switch {
	case b.body:
		if !b.used {
			b.used, b.slot = true, l.bindingAttr(b.attr)
		}
		return &model.Expr{Op: model.EAttr, Slot: b.slot, Name: n.Name}, nil, true
	case b.ast != nil:
		x, t := l.expr(b.ast, b.sc)
		return x, t, true
	}
	return b.val, b.typ, true
}

// misreadCache refuses `computed` in a preempt key and `cached` where a
// hold's admission did not set it (no `cache` clause, or after an inner
// hold); it reports whether it did.
func (l *lowerer) misreadCache(n *syntax.Name, sc *scope) bool {
	switch {
	case n.Name == "computed" && sc.mom == momPreempt:
		l.errorf(n.Pos, "`computed` is what a re-executed hold reached; a preempt key reads the candidate's place as `position`")
	case n.Name == "cached" && sc.noCache && sc.mom == momSession:
		e := l.errorf(n.Pos, "`cached` is read in a hold on `%s` that has no `cache` clause: it is 0 there", sc.cachedIn)
		e.Hint = "add `cache (…)` to consume the session's cached prefix, or `cache (0)` to consume and keep nothing"
	case n.Name == "cached" && sc.mom == momSession && sc.cachedAfter != nil && *sc.cachedAfter != "":
		e := l.errorf(n.Pos, "`cached` is read after the hold on `%s` in the body of the hold on `%s`: that admission set it", *sc.cachedAfter, sc.cachedIn)
		e.Hint = "read it above the inner hold: `set c = cached;`"
	default:
		return false
	}
	return true
}

// entryRead reads an attribute inside a queue's entry: the queue's own
// (`Q.x`), or a hidden or built-in attribute of the session; a session
// attribute the entry was not passed is an error. ok is false when name
// is no attribute.
func (l *lowerer) entryRead(n *syntax.Name, sc *scope) (*model.Expr, bool) {
	name := n.Name
	if sc.q.attrs[name] {
		return l.attrRead(n, sc.q.name+"."+name, sc), true
	}
	slot, ok := l.attrs[name]
	if !ok {
		return nil, false
	}
	if l.prog.Attrs[slot].Hidden || l.prog.Attrs[slot].Builtin {
		return l.attrRead(n, name, sc), true
	}
	l.errorf(n.Pos, "an entry of `%s` cannot read the session's `%s`: pass it as a parameter", sc.q.name, name)
	return model.Num(0), true
}

// undefined reports a name that means nothing in sc: a retired context
// name, a resource read as a number, a renamed built-in, or an undefined
// name (with a suggestion, kept for the check that finds it is an
// attribute declared later).
func (l *lowerer) undefined(n *syntax.Name, sc *scope) {
	name := n.Name
	if nw, ok := oldCtxNames[name]; ok && sc.mom >= momPs {
		l.errorf(n.Pos, "`%s` is retired: write `%s`", name, nw)
		return
	}
	if _, ok := l.resolveResQuiet(n, sc); ok {
		l.errorf(n.Pos, "`%s` is a resource, not a number: read it with used(…), queue(…) or another observable", name)
		return
	}
	switch name {
	case "queued":
		l.errorf(n.Pos, "`queued` is now `waiting`")
		return
	case "tokens":
		l.errorf(n.Pos, "`tokens` is `batch.tokens`, which exists only in a schedule's guard or an engine's `execute`")
		return
	}
	if owner := l.registerOwner(name); owner != nil {
		l.errorf(n.Pos, "`%s` is engine `%s`'s register: %s may not read it (its engine's clauses and a gauge do)", name, owner.name, momentNames[sc.mom])
		return
	}
	e := l.errorf(n.Pos, "undefined: %s", name)
	l.suggestAt(e, name, l.visibleNames(sc))
	if !sc.mom.readsAttrs() {
		l.undefs = append(l.undefs, undef{e, name, sc.mom})
	}
}

func (l *lowerer) attrRead(n *syntax.Name, name string, sc *scope) *model.Expr {
	l.bindUse(n.Pos, n.Name, "attribute", name, "attr "+name+"|qattr "+name, atSite)
	slot := l.attr(name)
	a := l.prog.Attrs[slot]
	switch {
	case !sc.mom.readsAttrs():
		l.errorf(n.Pos, "`%s` is an attribute: %s may not read it", name, momentNames[sc.mom])
	case a.Hidden && sc.mom.scheduler():
		l.errorf(n.Pos, "`%s` is hidden: %s may not read it (the scheduler does not know it)", name, momentNames[sc.mom])
	}
	return &model.Expr{Op: model.EAttr, Slot: slot, Name: name}
}
