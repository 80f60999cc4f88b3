package lang

import (
	"math"
	"slices"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Failures and lease lifetimes (docs/language.md §9): the `faults` block,
// the workload's `timeout`, a lease's `renew every (h) for (x)`, a reading
// entry's `on expiry` and `on failure`, an entry call's `retry (n) after
// (b)`, a gateway's `picture` and `up(Q[i])`.
//
// A program that can fail a request (canFail: it states one of faults,
// timeout, renew, an entry policy or retry) gets the built-in attributes
// `failed` and `loaded`, its reading entries become OpReading statements
// and the flow, load and release of their transfers are marked Read. A
// program that states none of them lowers exactly as before, so its IR and
// its report are unchanged.

// walkStmts calls f with every statement of ss and of the blocks inside
// them, depth first.
func walkStmts(ss []syntax.Stmt, f func(syntax.Stmt)) {
	for _, s := range ss {
		f(s)
		switch s := s.(type) {
		case *syntax.HoldStmt:
			walkStmts(s.Body.Stmts, f)
		case *syntax.BranchStmt:
			walkStmts(s.Then.Stmts, f)
			if s.Else != nil {
				walkStmts(s.Else.Stmts, f)
			}
		case *syntax.WhileStmt:
			walkStmts(s.Body.Stmts, f)
		case *syntax.LoopStmt:
			walkStmts(s.Body.Stmts, f)
		case *syntax.ForkStmt:
			walkStmts(s.Body.Stmts, f)
		}
	}
}

// canFailOf reports whether the program states something that can fail a
// request: a `faults` block, a `timeout`, a renewed lease, a reading
// entry's policy or an entry call's `retry` (in main's items or in defs).
func canFailOf(main *syntax.MainItem, defs map[string]*syntax.DefItem) bool {
	can := false
	stmt := func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.HoldStmt:
			can = can || s.Renew != nil
		case *syntax.CallStmt:
			can = can || s.Retry != nil
		}
	}
	for _, it := range main.Items {
		switch it := it.(type) {
		case *syntax.FaultsItem:
			can = true
		case *syntax.WorkloadItem:
			for _, w := range it.Items {
				switch w := w.(type) {
				case *syntax.TimeoutItem:
					can = true
				case *syntax.SessionItem:
					walkStmts(w.Body.Stmts, stmt)
				}
			}
		case *syntax.ServerItem:
			walkStmts(it.Body.Stmts, stmt)
		case *syntax.QueueItem:
			for _, qi := range it.Items {
				if e, ok := qi.(*syntax.EntryItem); ok {
					can = can || len(e.On) > 0
					walkStmts(e.Body.Stmts, stmt)
				}
			}
		}
	}
	for _, d := range defs {
		walkStmts(d.Stmts, stmt)
	}
	return can
}

// canFailBuiltins declares `failed` and `loaded` after the other built-in
// attributes, in a program that can fail a request.
func (l *lowerer) canFailBuiltins(main *syntax.MainItem) {
	for _, it := range main.Items {
		if d, ok := it.(*syntax.DefItem); ok {
			if _, known := l.defs[d.Name]; !known {
				l.defs[d.Name] = d // read by canFailOf; def() registers it again
				defer delete(l.defs, d.Name)
			}
		}
	}
	l.canFail = canFailOf(main, l.defs)
	if l.canFail {
		l.prog.Builtin.Failed = l.builtinAttr("failed")
		l.prog.Builtin.Loaded = l.builtinAttr("loaded")
	}
}

// failBuiltin reports a name the run sets in a program that can fail.
func (l *lowerer) failBuiltin(name string) bool {
	return l.canFail && (name == "failed" || name == "loaded")
}

// queueIndex is q's index in prog.Queues.
func (l *lowerer) queueIndex(q *queueDecl) int { return slices.Index(l.qList, q) }

// entryPolicies checks a queue entry's `on expiry` and `on failure`
// clauses where it is declared; the calls read them (readPolicies).
func (l *lowerer) entryPolicies(q *queueDecl, e *syntax.EntryItem) {
	seen := map[string]bool{}
	for _, p := range e.On {
		at := nameAt(p.Pos, p.Tokens, p.Word)
		if e.From == "" {
			err := l.errorf(p.Pos, "`on %s` on entry `%s.%s`, which reads nothing: only an entry `… from P` reads a lease", p.What, q.name, e.Verb)
			err.Hint = "write the policy on the entry that reads the lease, `" + e.Verb + " (…) from P on " + p.What + " " + p.Word + " { … }`"
			continue
		}
		if seen[p.What] {
			l.errorf(p.Pos, "entry `%s.%s` says `on %s` twice", q.name, e.Verb, p.What)
		}
		seen[p.What] = true
		words := map[string][]string{"expiry": {"read", "decline"}, "failure": {"fail", "recompute"}}[p.What]
		if !slices.Contains(words, p.Word) {
			err := l.errorf(at, "`on %s %s`: a %s is met with `%s` or `%s`", p.What, p.Word,
				map[string]string{"expiry": "read of an expired lease", "failure": "failed read"}[p.What], words[0], words[1])
			suggest(err, p.Word, words)
		}
	}
}

// readPolicies are an entry's policies, vLLM's defaults where it states
// none: an expired lease is read anyway, and a failed read fails the
// request (kv_load_failure_policy "fail").
func readPolicies(e *syntax.EntryItem) (expiry, failure model.ReadPolicy) {
	expiry, failure = model.ReadAnyway, model.ReadFail
	for _, p := range e.On {
		switch p.What + " " + p.Word {
		case "expiry decline":
			expiry = model.ReadDecline
		case "failure recompute":
			failure = model.ReadRecompute
		}
	}
	return expiry, failure
}

// reading wraps the statements of a call of a reading entry (an entry
// `… from S` of a queue that pulls from S or that S pushes to) in an
// OpReading: while the session is there the reader's member renews the
// lease, and a failed read meets the entry's policy.
func (l *lowerer) reading(out []*model.Stmt, s *syntax.CallStmt, q *queueDecl, entry *syntax.EntryItem, idx *model.Expr, from *fromInfo) []*model.Stmt {
	if !l.canFail || from == nil || from.q.leases == "" {
		return out
	}
	fam, ok := from.q.pools[from.q.leases]
	if !ok {
		return out
	}
	expiry, failure := readPolicies(entry)
	st := &model.Stmt{Op: model.OpReading, Pos: syntax.ToPos(s.Pos), Body: &model.Block{Stmts: out},
		Reading: &model.Reading{Source: model.Ref{Fam: fam, Index: from.idx}, Queue: l.queueIndex(q), Index: idx,
			Expiry: expiry, Failure: failure}}
	if st.Body.Stmts == nil {
		st.Body.Stmts = []*model.Stmt{}
	}
	return one(st)
}

// retry wraps an entry call's statements in an OpTry: `retry (n) after
// (b)` makes the call again, b after it failed, up to n times.
func (l *lowerer) retry(out []*model.Stmt, s *syntax.CallStmt) []*model.Stmt {
	if s.Retry == nil {
		return out
	}
	n, ok := l.constValue(s.Retry, "a retry count")
	if ok && (n < 0 || n != math.Floor(n) || n > 1000) {
		l.errorf(s.Retry.Pos, "`retry (%s)`: a whole number of retries from 0 to 1000", fmtNum(n))
		n = 0
	}
	b := 0.0
	if s.Backoff != nil {
		if b, ok = l.constValue(s.Backoff, "a retry's backoff"); ok && !(b >= 0 && !math.IsInf(b, 0)) {
			l.errorf(s.Backoff.Pos, "`after (%s)`: a retry's backoff is a time, at least 0 and finite", fmtNum(b))
			b = 0
		}
	}
	body := &model.Block{Stmts: out}
	if body.Stmts == nil {
		body.Stmts = []*model.Stmt{}
	}
	return one(&model.Stmt{Op: model.OpTry, Pos: syntax.ToPos(s.Pos), N: model.Num(n), Value: model.Num(b), Body: body})
}

// renew lowers a lease's `renew every (h) for (x)`: both constants, h
// shorter than the lease and x longer than h, and a lease that something
// reads.
func (l *lowerer) renew(st *model.Stmt, s *syntax.HoldStmt, sc *scope) {
	r := s.Renew
	every, ok1 := l.constValue(r.Every, "a renewal interval")
	dur, ok2 := l.constValue(r.For, "a renewal's extension")
	if !ok1 || !ok2 {
		return
	}
	switch {
	case !(every > 0) || math.IsInf(every, 0):
		l.errorf(r.Every.Pos, "`renew every (%s)`: the interval of renewals is a time, positive and finite", fmtNum(every))
		return
	case !(dur > 0) || math.IsInf(dur, 0):
		l.errorf(r.For.Pos, "`renew … for (%s)`: what a renewal adds is a time, positive and finite", fmtNum(dur))
		return
	case dur <= every:
		err := l.errorf(r.For.Pos, "a renewal for %s s every %s s lets the lease lapse between renewals: `for` must be longer than `every`", fmtNum(dur), fmtNum(every))
		err.Hint = "vLLM renews every lease/6 for 2·lease/3: `renew every (5) for (20)` for a lease of 30 s"
		return
	}
	if t, ok := st.LeaseFor.IsConst(); ok {
		switch {
		case math.IsInf(t, 1):
			err := l.errorf(r.Pos, "an infinite lease needs no renewal")
			err.Hint = "give the lease a duration, `lease " + l.refText(s.Lease) + " (30) renew every (5) for (20)`, or drop `renew`"
			return
		case every >= t:
			err := l.errorf(r.Every.Pos, "the lease lasts %s s and is renewed every %s s: it expires before its first renewal", fmtNum(t), fmtNum(every))
			err.Hint = "renew more often than the lease lasts: vLLM renews every lease/6"
			return
		}
	}
	if sc.q == nil || !l.isRead(sc.q) {
		who := "the server"
		if sc.q != nil {
			who = "`" + sc.q.name + "`"
		}
		err := l.errorf(r.Pos, "nothing reads a lease of %s: a lease is renewed by the entry that reads it", who)
		err.Hint = "renew a lease taken in a queue's entry that another queue pulls from (`D pull P …`) or that pushes (`P push D …`)"
		return
	}
	st.Renew = &model.Renew{Every: model.F64(every), For: model.F64(dur)}
}

// isRead reports whether some relation reads q's leases.
func (l *lowerer) isRead(q *queueDecl) bool {
	for _, r := range l.rels {
		if r.source == q {
			return true
		}
	}
	return false
}

// timeout lowers the workload's `timeout (e)`: read at each turn with the
// turn's attributes (it may draw, from the turn's stream); positive.
func (l *lowerer) timeout(it *syntax.TimeoutItem) {
	w := &l.prog.Workload
	if w.Timeout != nil {
		l.errorf(it.Pos, "a second `timeout`: a workload has at most one")
		return
	}
	sc := &scope{l: l, mom: momInitTurn, side: sideInitTurn}
	var draws bool
	v, t := l.value(it.Value, sc, &draws)
	if t.isCost() {
		l.errorf(it.Value.Pos, "a timeout is a time, not %s", t)
	}
	if x, ok := v.IsConst(); ok && !(x > 0) {
		l.errorf(it.Value.Pos, "`timeout (%s)`: a client's time budget is positive (`inf` for none)", fmtNum(x))
	}
	w.Timeout = v
}

// faults lowers the `faults` block: each line's target, its times and
// its mode.
func (l *lowerer) faults(it *syntax.FaultsItem) {
	for _, f := range it.Lines {
		if mf, ok := l.faultLine(f); ok {
			l.prog.Faults = append(l.prog.Faults, mf)
		}
	}
}

func (l *lowerer) faultLine(f *syntax.FaultLine) (model.Fault, bool) {
	mf := model.Fault{Label: l.refText(f.Target), Queue: -1, Stage: -1, Index: -1, Pos: syntax.ToPos(f.Pos)}
	if !l.faultTarget(f.Target, &mf) {
		return mf, false
	}
	law := func(e *syntax.Expr, what string, inf bool) *model.Expr {
		sc := &scope{l: l, mom: momInitTurn}
		v, _ := l.expr(e, sc)
		v.Walk(func(x *model.Expr) bool {
			switch x.Op {
			case model.EAttr, model.EPool, model.EStage, model.ECtx, model.EUp, model.EBudget:
				l.errorf(e.Pos, "%s reads constants, functions and draws only", what)
				return false
			}
			return true
		})
		if x, ok := v.IsConst(); ok && (!(x > 0) || math.IsInf(x, 1) && !inf) {
			l.errorf(e.Pos, "%s must be positive%s, not %s", what, map[bool]string{true: "", false: " and finite"}[inf], fmtNum(x))
		}
		return v
	}
	if f.At != nil {
		t, ok := l.constValue(f.At, "a fault's time")
		if ok && !(t >= 0 && !math.IsInf(t, 0)) {
			l.errorf(f.At.Pos, "`down at (%s)`: a fault's time is at least 0 and finite", fmtNum(t))
		}
		mf.At = model.Num(t)
	} else {
		mf.After = law(f.After, "a time to failure", false)
	}
	if f.For != nil {
		mf.For = law(f.For, "a time to repair", true)
	}
	switch {
	case f.Mode != "" && mf.Queue >= 0:
		err := l.errorf(f.Pos, "`%s`: a member fails whole, its requests with it; `stall` and `fail` are a stage's", f.Mode)
		err.Hint = "a NIC stalls: `" + mf.Label + ".nic down … stall;`"
	case f.Mode == "stall" && l.prog.Stages[l.prog.StageFams[mf.Stage].First].Kind != model.PS:
		l.errorf(f.Pos, "`stall`: only a shared (ps) stage stalls, its flows waiting at rate 0; `%s` is a %s stage", mf.Label,
			l.prog.Stages[l.prog.StageFams[mf.Stage].First].Kind)
	case f.Mode == "stall" && !l.prog.Stages[l.prog.StageFams[mf.Stage].First].Shared:
		err := l.errorf(f.Pos, "`stall`: only a shared (ps) stage stalls, its flows waiting at rate 0; no flow crosses `%s`", mf.Label)
		err.Hint = "let it `fail`, or make its runs flows (`run " + mf.Label + ", …`)"
	}
	mf.Stall = f.Mode == "stall"
	return mf, true
}

// faultTarget resolves a fault line's target: a queue member (`D[0]`, or
// `D` for each member of a family), or a stage (`D[0].nic`, `link[1]`).
func (l *lowerer) faultTarget(r *syntax.Ref, mf *model.Fault) bool {
	memberIndex := func(count int, array bool) (int, bool) {
		if r.Index == nil {
			if array {
				return -1, true
			}
			return 0, true
		}
		x, ok := l.constValue(r.Index, "a faulty member's index")
		if ok && (x != math.Floor(x) || x < 0 || x >= float64(count)) {
			l.errorf(r.Index.Pos, "index %s of `%s` is out of range: it has %s", fmtNum(x), r.Name, plural(count, "member"))
			return 0, false
		}
		return int(x), ok
	}
	if q, ok := l.queues[r.Name]; ok {
		if r.Member == "" {
			if roleIs(q, "gateway") {
				l.errorf(r.Pos, "gateway `%s` does not fail: the router is no member of the deployment here", q.name)
				return false
			}
			i, ok := memberIndex(q.count, q.array)
			mf.Queue, mf.Index = l.queueIndex(q), i
			return ok
		}
		n := refName(r)
		if r.Index == nil {
			n.Index = nil
		}
		fam := -1
		switch {
		case r.Member == "nic" && q.nicFam >= 0:
			fam = q.nicFam
		case q.pools[r.Member] >= 0 && hasKey(q.pools, r.Member):
			err := l.errorf(r.Pos, "pool `%s.%s` fails with its member: a member fails whole", q.name, r.Member)
			err.Hint = "write `" + q.name + indexText(r) + " down …;`"
			return false
		default:
			if f, ok := l.stageFams[q.name+"."+r.Member]; ok {
				fam = f
			}
		}
		if fam < 0 {
			suggest(l.errorf(r.Pos, "queue `%s` has no stage `%s`", q.name, r.Member), r.Member, []string{"nic"})
			return false
		}
		i, ok := memberIndex(q.count, q.array)
		mf.Stage, mf.Index = fam, i
		return ok
	}
	full := r.Name + dotted(r.Member)
	if fam, ok := l.stageFams[full]; ok {
		f := l.prog.StageFams[fam]
		i, ok := memberIndex(f.Count, f.Array)
		mf.Stage, mf.Index = fam, i
		return ok
	}
	if _, ok := l.poolFams[full]; ok {
		l.errorf(r.Pos, "pool `%s` does not fail alone: a queue's member fails whole, a stage by itself", full)
		return false
	}
	names := append(sortedKeys(l.queues), sortedKeys(l.stageFams)...)
	suggest(l.errorf(r.Pos, "`%s` is no queue or stage that can fail", full), full, names)
	return false
}

func hasKey[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }

func indexText(r *syntax.Ref) string {
	if r.Index == nil {
		return ""
	}
	return "[" + exprText(r.Index) + "]"
}

// picture records a gateway's `picture refresh (T) delay (d) detect (t)`.
func (l *lowerer) picture(q *queueDecl, it *syntax.PictureItem) {
	if !roleIs(q, "gateway") {
		err := l.errorf(it.Pos, "`picture` is a router's view: it belongs in a gateway, not in `%s`", q.name)
		err.Hint = "declare it in the queue whose `route` chooses: `queue gw : gateway { picture refresh (0.05); route { … } }`"
		return
	}
	if q.picture > 0 {
		l.errorf(it.Pos, "gateway `%s` has a second `picture`", q.name)
		return
	}
	pic := model.Picture{Queue: l.queueIndex(q)}
	seen := map[string]bool{}
	for _, o := range it.Opts {
		if seen[o.Word] {
			l.errorf(o.Pos, "`picture` says `%s` twice", o.Word)
			continue
		}
		seen[o.Word] = true
		v, ok := l.constValue(o.Value, "a picture's "+o.Word)
		if !ok {
			continue
		}
		if !(v >= 0 && !math.IsInf(v, 0)) {
			l.errorf(o.Value.Pos, "`%s (%s)`: a time, at least 0 and finite", o.Word, fmtNum(v))
			continue
		}
		switch o.Word {
		case "refresh":
			pic.Refresh = model.F64(v)
		case "delay":
			pic.Delay = model.F64(v)
		case "detect":
			pic.Detect = model.F64(v)
		}
	}
	l.prog.Pictures = append(l.prog.Pictures, pic)
	q.picture = len(l.prog.Pictures)
}

// seen wraps an observable read in a gateway with a picture: the router
// reads the picture, not the deployment.
func seen(sc *scope, e *model.Expr) *model.Expr {
	if sc.picture == 0 || sc.mom != momSession {
		return e
	}
	return &model.Expr{Op: model.ESeen, Slot: sc.picture - 1, Args: []*model.Expr{e}}
}

// up lowers `up(Q[i])`: 1 while queue member Q[i] is up (in a gateway
// with a picture, as the router sees it).
func (l *lowerer) up(c *syntax.Call, sc *scope) *model.Expr {
	if len(c.Args) != 1 {
		l.errorf(c.Pos, "`up` takes 1 argument, not %d", len(c.Args))
		return model.Num(0)
	}
	if !(sc.mom == momSession || sc.mom == momGauge || sc.mom == momQuery) {
		l.errorf(c.Pos, "`up` reads the deployment's state, which %s may not", momentNames[sc.mom])
		return model.Num(0)
	}
	n := nameOf(c.Args[0])
	var q *queueDecl
	if n != nil && len(n.Path) == 0 {
		q = l.queues[n.Name]
	}
	if q == nil {
		err := l.errorf(c.Args[0].Pos, "`up` takes a queue's member, `Q[i]`")
		if n != nil {
			suggest(err, n.Name, sortedKeys(l.queues))
		}
		return model.Num(0)
	}
	var idx *model.Expr
	switch {
	case n.Index != nil:
		idx = l.index(n, sc, q.count)
	case q.count == 1:
		idx = model.Num(0)
	default:
		l.errorf(c.Args[0].Pos, "`%s` is a family of %d: write `up(%s[i])`", q.name, q.count, q.name)
		return model.Num(0)
	}
	return seen(sc, &model.Expr{Op: model.EUp, Ref: &model.Ref{Fam: l.queueIndex(q), Index: idx}})
}

// among is, for a `choose` in a program that can fail, 1 + the queue whose
// members its keys index with the chosen name (`D[j]…` for `choose j`),
// when they index one queue's members only: a member seen down is then no
// candidate. 0 otherwise.
func (l *lowerer) among(s *syntax.ChooseStmt) int {
	if !l.canFail {
		return 0
	}
	found := map[*queueDecl]bool{}
	for _, k := range s.Keys {
		t := k.Tokens
		for i := 0; i+3 < len(t); i++ {
			if q, ok := l.queues[t[i].Value]; ok && t[i+1].Value == "[" && t[i+2].Value == s.Name && t[i+3].Value == "]" {
				found[q] = true
			}
		}
	}
	if len(found) != 1 {
		return 0
	}
	for q := range found {
		return l.queueIndex(q) + 1
	}
	return 0
}
