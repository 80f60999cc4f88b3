package lang

// The checks the reference's own test suite asked for (conformance/):
// where declarations and their first sites are, notes on a def's use
// site, the checks of claims, gauges, hidden headers, stale `set`s, a
// schedule's caps, and the names an aggregate's index, a queue or a share
// may not take.

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/internal/spell"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// nameAt is where a declaration writes its name: the first token after
// its keyword that is the name, or pos when the name is not written (an
// engine named after its queue).
func nameAt(pos lexer.Position, toks []lexer.Token, name string) lexer.Position {
	for i, t := range toks {
		if i > 0 && t.Value == name {
			return t.Pos
		}
	}
	return pos
}

// paramAt is where a def writes its parameter name.
func paramAt(d *syntax.DefItem, name string) lexer.Position {
	for i, t := range d.Tokens {
		if t.Value == "(" {
			return nameAt(d.Pos, d.Tokens[i:], name)
		}
	}
	return d.Pos
}

// site records where name is first declared, for the errors of a second
// declaration.
func (l *lowerer) site(name string, pos lexer.Position) {
	if l.sites == nil {
		l.sites = map[string]model.Pos{}
	}
	if _, ok := l.sites[name]; !ok {
		p := syntax.ToPos(pos)
		if p.File == "" {
			p.File = l.file
		}
		l.sites[name] = p
	}
}

// firstAt says where name was first declared: " (first at FILE:LINE:COL)",
// or nothing when that is not known.
func (l *lowerer) firstAt(name string) string {
	if p, ok := l.sites[name]; ok {
		return fmt.Sprintf(" (first at %s)", p)
	}
	return ""
}

// attrSites records where the program first assigns each attribute, in
// the order a reader meets them: the workload, the server, the queues'
// entries, the defs.
func (l *lowerer) attrSites() {
	rec := func(n string, pos lexer.Position) { l.site("attr "+n, pos) }
	if l.workload != nil {
		for _, it := range l.workload.Items {
			switch it := it.(type) {
			case *syntax.InitItem:
				walkSets(it.Body.Stmts, rec)
			case *syntax.TurnItem:
				walkSets(it.Body.Stmts, rec)
			case *syntax.SessionItem:
				walkSets(it.Body.Stmts, rec)
			}
		}
	}
	if l.server != nil {
		walkSets(l.server.Body.Stmts, rec)
	}
	for _, name := range sortedKeys(l.defs) {
		walkSets(l.defs[name].Stmts, rec)
	}
}

// suggestAt is suggest, saying where a suggested attribute is first
// assigned: "did you mean `granted`, set at lib.sq:2:7?".
func (l *lowerer) suggestAt(e *Error, name string, candidates []string) {
	best := spell.Nearest(name, candidates)
	if best == "" {
		return
	}
	if p, ok := l.sites["attr "+best]; ok {
		e.Hint = fmt.Sprintf("did you mean `%s`, set at %s?", best, p)
		return
	}
	e.Hint = "did you mean `" + best + "`?"
}

// hiddenNameAt is where a `hidden` item writes its i-th name.
func hiddenNameAt(h *syntax.HiddenItem, i int) lexer.Position {
	k := 0
	for _, t := range h.Tokens {
		if t.Value == h.Names[i] && t.Value != "hidden" {
			if k == countBefore(h.Names, i) {
				return t.Pos
			}
			k++
		}
	}
	return h.Pos
}

// countBefore counts the names before i equal to names[i].
func countBefore(names []string, i int) int {
	n := 0
	for _, x := range names[:i] {
		if x == names[i] {
			n++
		}
	}
	return n
}

// innerHold records, in the body of an enclosing hold, that the hold h
// has run: a later `cached` reads h's admission.
func innerHold(sc *scope, h *syntax.HoldStmt) {
	if sc.cachedAfter != nil && *sc.cachedAfter == "" && len(h.Pools) > 0 {
		*sc.cachedAfter = h.Pools[0].Pool.Name
	}
}

// loopHolds is innerHold for a loop's body: its next pass comes after any
// hold it holds.
func loopHolds(sc *scope, body []syntax.Stmt) {
	if sc.cachedAfter == nil || *sc.cachedAfter != "" {
		return
	}
	if h := firstHold(body); h != nil {
		innerHold(sc, h)
	}
}

// firstHold is the first hold statement in ss, at any depth.
func firstHold(ss []syntax.Stmt) *syntax.HoldStmt {
	for _, s := range ss {
		var inner []syntax.Stmt
		switch s := s.(type) {
		case *syntax.HoldStmt:
			return s
		case *syntax.BranchStmt:
			inner = s.Then.Stmts
			if s.Else != nil {
				inner = append(append([]syntax.Stmt(nil), inner...), s.Else.Stmts...)
			}
		case *syntax.WhileStmt:
			inner = s.Body.Stmts
		case *syntax.LoopStmt:
			inner = s.Body.Stmts
		case *syntax.ForkStmt:
			inner = s.Body.Stmts
		}
		if h := firstHold(inner); h != nil {
			return h
		}
	}
	return nil
}

// noteStaleSet records whether the `set` of name just lowered reads a
// session's cache (`cachedin(P)`): its value is then the cache as it was at
// the `set`, not at a later hold's admission.
func (l *lowerer) noteStaleSet(name string, out []*model.Stmt) {
	if l.stale == nil {
		l.stale = map[string]string{}
	}
	delete(l.stale, name)
	for _, st := range out {
		if st.Op != model.OpSet {
			continue
		}
		st.Value.Walk(func(e *model.Expr) bool {
			if e.Op == model.EPool && e.Fn == model.PCachedIn && e.Ref != nil {
				l.stale[name] = "cachedin(" + l.prog.PoolFams[e.Ref.Fam].Name + ")"
				return false
			}
			return true
		})
	}
}

// checkStaleHeader refuses a hold header that reads an attribute a `set`
// above it computed from `cachedin`: the header is read at admission, the
// `set` before the session queued.
func (l *lowerer) checkStaleHeader(h *syntax.HoldStmt, out []*model.Stmt) {
	if len(l.stale) == 0 {
		return
	}
	for _, st := range out {
		if st.Op != model.OpHold {
			continue
		}
		for i, hp := range st.Holds {
			if i >= len(h.Pools) {
				break
			}
			for _, x := range []*model.Expr{hp.Units, hp.Reserve} {
				x.Walk(func(e *model.Expr) bool {
					if e.Op != model.EAttr {
						return true
					}
					read, ok := l.stale[e.Name]
					if !ok {
						return true
					}
					err := l.errorf(h.Pools[i].Pos, "`%s` reads %s before the session queues, but the hold on `%s` is read at admission", e.Name, read, h.Pools[i].Pool.Name)
					err.Hint = fmt.Sprintf("bind it in the header: `at admission (%s = …)`", e.Name)
					delete(l.stale, e.Name)
					return false
				})
			}
		}
	}
}

// undef is an "undefined" error at a moment that reads no attribute.
type undef struct {
	err  *Error
	name string
	mom  moment
}

// explainUndefs says, of a name reported undefined where no session is,
// that it is a session attribute, once the attributes are known: a ps
// capacity is read before the workload that sets `prompt` is lowered.
func (l *lowerer) explainUndefs() {
	for _, u := range l.undefs {
		if _, ok := l.attrs[u.name]; ok {
			u.err.Msg = fmt.Sprintf("`%s` is a session attribute: %s reads no session", u.name, momentNames[u.mom])
			u.err.Hint = "" // a suggestion for a name that is defined
		}
	}
	l.undefs = nil
}

// claimReads refuses what a claim may not read: `now` in its `given`
// (read once per session, after init), the deployment's state in its
// `given` or at its end (stateless, noState), and `busy`/`work` anywhere:
// their time integrals belong to the stage table, not to one iteration.
func (l *lowerer) claimReads(src *syntax.Expr, e *model.Expr, what string, noState bool) {
	e.Walk(func(x *model.Expr) bool {
		switch {
		case x.Op == model.ECtx && model.Ctx(x.Slot) == model.CtxNow && what != "a claim":
			l.errorf(src.Pos, "%s may not read `now`: it is read once per session, after its init", what)
			return false
		case x.Op == model.EStage && (x.Fn == model.SBusy || x.Fn == model.SWork):
			name := "busy"
			if x.Fn == model.SWork {
				name = "work"
			}
			if noState {
				l.errorf(src.Pos, "`%s(…)` reads the deployment's state, which %s may not read", name, what)
			} else {
				l.errorf(src.Pos, "%s may not read `%s(…)`: read it in a gauge", what, name)
			}
			return false
		case noState && what == "a claim" && x.Op == model.ECtx && model.Ctx(x.Slot) != model.CtxNow:
			l.errorf(src.Pos, "`%s` exists only in a claim over iterations: a claim `at end` reads `now` and the observations", x.Name)
			return false
		case noState && (x.Op == model.EStage || x.Op == model.EPool):
			l.errorf(src.Pos, "%s may not read the deployment's state", what)
			return false
		}
		return true
	})
}

// plainAt records where the plain `let` name was declared, for a `--set`
// that names it.
func (l *lowerer) plainAt(name string, at lexer.Position) {
	if l.plainLets == nil {
		l.plainLets = map[string]lexer.Position{}
	}
	l.plainLets[name] = at
}

// setInputDep records that constant name is bound to input in.
func (l *lowerer) setInputDep(name string, in *inputDecl) {
	if l.constInput == nil {
		l.constInput = map[string]*inputDecl{}
	}
	l.constInput[name] = in
	delete(l.plainLets, name)
}

// noteInputDep records whether the constant name, a `let` of e, reads an
// input: a later `let` of the same name shadows the earlier one, so a
// fixed shadow of an input may size an array and a shadow computed from
// it may not.
func (l *lowerer) noteInputDep(name string, e *syntax.Expr) {
	var dep *inputDecl
	for _, t := range e.Tokens {
		if in := l.constInput[t.Value]; in != nil && t.Type == syntax.Lexer().Symbols()["Ident"] {
			dep = in
			break
		}
	}
	if l.constInput == nil {
		l.constInput = map[string]*inputDecl{}
	}
	if dep == nil {
		delete(l.constInput, name)
	} else {
		l.constInput[name] = dep
	}
}

// aggIndexUse is an aggregate's index, `k` of `sum k in n (…)`.
type aggIndexUse struct {
	name string
	pos  lexer.Position
}

func (l *lowerer) aggIndex(name string, pos lexer.Position) {
	l.aggIdx = append(l.aggIdx, aggIndexUse{name, pos})
}

// checkAggIndexes refuses an aggregate's index named like something else
// of the program, whatever the order the two are declared in: inside the
// aggregate the index would hide it.
func (l *lowerer) checkAggIndexes() {
	for _, a := range l.aggIdx {
		_, isConst := l.consts[a.name]
		_, isPool := l.poolFams[a.name]
		_, isStage := l.stageFams[a.name]
		_, isQueue := l.queues[a.name]
		slot, isAttr := l.attrs[a.name]
		what := ""
		switch {
		case isConst:
			what = "a `let` constant"
		case isAttr && !l.prog.Attrs[slot].Builtin:
			what = "a session attribute"
		case isPool:
			what = "a pool"
		case isStage:
			what = "a stage"
		case isQueue:
			what = "a queue"
		default:
			continue
		}
		l.errorf(a.pos, "`%s`, an aggregate's index, is also %s: the index takes a name of its own", a.name, what)
	}
	l.aggIdx = nil
}

// gaugeIndexes refuses a gauge whose member index reads the deployment's
// state: it could leave the array at run time, and a gauge may not fail
// the run. A constant index is folded and checked where it is read.
func (l *lowerer) gaugeIndexes(g *syntax.GaugeItem, v *model.Expr) {
	v.Walk(func(e *model.Expr) bool {
		if (e.Op == model.EPool || e.Op == model.EStage) && e.Ref != nil && e.Ref.Index != nil {
			if _, ok := e.Ref.Index.IsConst(); !ok {
				l.errorf(g.Expr.Pos, "gauge `%s`: a gauge's member index is a number in range, not read from the state", g.Name)
				return false
			}
		}
		return true
	})
}

// posText writes a parser position as FILE:LINE:COL.
func (l *lowerer) posText(pos lexer.Position) string {
	p := syntax.ToPos(pos)
	if p.File == "" {
		p.File = l.file
	}
	return p.String()
}

// checkShareUsed refuses a program's `share` that no run over several
// stages reads: it would say how flows share stages where there are none.
func (l *lowerer) checkShareUsed() {
	if l.share == nil || len(l.rels) > 0 {
		return
	}
	flows := false
	l.prog.Walk(func(st *model.Stmt) {
		flows = flows || st.Op == model.OpRun && len(st.Stages) > 1
	})
	if !flows {
		l.errorf(l.share.Pos, "`share %s` without a run over several stages: no flow shares a stage", l.share.Policy)
	}
}

// capShape says what is wrong with a computed `each at most (c)`, or "":
// a computed cap is `max(k, e)` with k a constant above 0 (a run is never
// given 0), or a `?:` whose arms are such caps; `inf` is a whole cap,
// never an operand.
func capShape(v *model.Expr) string {
	if x, ok := v.IsConst(); ok {
		if !(x > 0) {
			return fmt.Sprintf("`each at most` could give a run %s: a run would be given nothing", fmtNum(x))
		}
		return ""
	}
	hasInf := false
	v.Walk(func(e *model.Expr) bool {
		if x, ok := e.IsConst(); ok && math.IsInf(x, 1) && e != v {
			hasInf = true
		}
		return !hasInf
	})
	switch {
	case v.Op == model.ECond && len(v.Args) == 3:
		for _, arm := range v.Args[1:] {
			if x, ok := arm.IsConst(); ok && math.IsInf(x, 1) {
				continue
			}
			if msg := capShape(arm); msg != "" {
				return msg
			}
		}
		return ""
	case hasInf:
		return "`inf` inside an `each at most`'s arithmetic: `inf` is a whole cap (no cap), not an operand"
	case v.Op == model.EFunc && v.Fn == model.FMin:
		return "a cap that shrinks writes its floor: `max(1, min(k, e))`"
	case v.Op == model.EFunc && v.Fn == model.FMax && len(v.Args) == 2:
		for _, a := range v.Args {
			if k, ok := a.IsConst(); ok {
				if !(k > 0) {
					return fmt.Sprintf("`each at most (max(%s, …))`: a run could be given %s", fmtNum(k), fmtNum(k))
				}
				return ""
			}
		}
	}
	return "a computed `each at most` is `max(k, e)` with `k` a constant above 0, so that no run is given 0"
}

// infOperand reports an `inf` written as an operand of an expression (as
// in `min(inf, 4)`), not as the whole expression or a whole arm of `?:`.
func infOperand(e *syntax.Expr) bool {
	var toks []lexer.Token
	for _, t := range e.Tokens {
		if strings.TrimSpace(t.Value) != "" && !strings.HasPrefix(t.Value, "//") && !strings.HasPrefix(t.Value, "/*") {
			toks = append(toks, t)
		}
	}
	for i, t := range toks {
		if t.Value != "inf" {
			continue
		}
		prevOK := i == 0 || toks[i-1].Value == "?" || toks[i-1].Value == ":"
		nextOK := i == len(toks)-1 || toks[i+1].Value == ":" || toks[i+1].Value == ")" && i == len(toks)-2
		if !(prevOK && nextOK) {
			return true
		}
	}
	return false
}

// gaugeRegister reads, in a gauge, the register of the one engine that
// declares name (engines with registers are single, never families): the
// gauge samples it as the engine's iterations leave it.
func (l *lowerer) gaugeRegister(n *syntax.Name) (*model.Expr, bool) {
	var found []*engineDecl
	for _, e := range l.engList {
		if _, ok := e.regs[n.Name]; ok {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return nil, false
	case 1:
		e := found[0]
		return &model.Expr{Op: model.EReg, Slot: e.regs[n.Name], Name: n.Name, Ref: &model.Ref{Fam: e.fam}}, true
	}
	var names []string
	for _, e := range found {
		names = append(names, e.name)
	}
	l.errorf(n.Pos, "register `%s` is declared by engines %s: a gauge cannot tell which", n.Name, strings.Join(names, ", "))
	return model.Num(0), true
}

// checkDefOrder refuses a def whose body uses a def defined after it, in
// its file or a library read after it: only earlier definitions can be used
// (docs/language.md §3.1). It reads l.defOrder, the defs in the order
// they were defined.
func (l *lowerer) checkDefOrder() {
	seq := map[string]int{}
	for i, d := range l.defOrder {
		seq[d.Name] = i
	}
	for i, d := range l.defOrder {
		walkSyntax(reflect.ValueOf(d), func(x any) {
			name, pos := "", lexer.Position{}
			switch x := x.(type) {
			case *syntax.Call:
				name, pos = x.Func, x.Pos
			case *syntax.CallStmt:
				if x.Verb == "" && x.Index == nil {
					name, pos = x.Queue, x.Pos
				}
			}
			if j, ok := seq[name]; ok && j > i {
				e := l.errorf(pos, "`%s` uses `%s`, which is defined after it", d.Name, name)
				e.Hint = fmt.Sprintf("only earlier definitions can be used: move `def %s` (at %s) before `def %s`",
					name, syntax.ToPos(l.defOrder[j].Pos), d.Name)
			}
		})
	}
}

// walkSyntax calls f on every pointer to a struct of the syntax tree under v.
func walkSyntax(v reflect.Value, f func(any)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
			f(v.Interface())
		}
		walkSyntax(v.Elem(), f)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(lexer.Position{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && v.Type().Field(i).Type != reflect.TypeOf([]lexer.Token(nil)) {
				walkSyntax(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkSyntax(v.Index(i), f)
		}
	}
}
