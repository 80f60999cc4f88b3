package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxServers bounds the servers of a fifo stage.
const MaxServers = 1 << 30

// IRError is an invariant of the IR that a program breaks.
type IRError struct {
	Path string // where, as a JSON path: "server.stmts[3].value.args[1]"
	Msg  string
}

func (e *IRError) Error() string { return "ir: " + e.Path + ": " + e.Msg }

// Validate checks every invariant the interpreter (and the figure and the
// TUI) rely on, so that a program read from JSON — hand-edited, truncated
// or produced by something other than package lang — gives an error here
// and never a panic later. It returns the first broken invariant as an
// [*IRError].
//
// Validate checks structure, not the language: that every index names
// something (a family, a member, an attribute, an observe, a context
// variable, a register, an engine, a pool), that each statement, schedule
// step and expression has the fields its kind uses and the arguments its
// operator or function takes, that families and members, stages and
// engines, pools and the engines admitting them agree, that an expression
// reads attributes only where a session is at hand and registers only in
// its engine's own expressions, and that the workload's arrival process
// has the constant it needs. It does not repeat the front end's typing
// rules (costs, moments, hidden attributes): a program those would refuse
// may pass, and runs with the interpreter's own run-time checks.
func (p *Program) Validate() error {
	v := &validator{p: p}
	v.program()
	if v.err != nil {
		return v.err
	}
	return nil
}

type validator struct {
	p   *Program
	err *IRError
}

func (v *validator) failf(path, format string, args ...any) {
	if v.err == nil {
		v.err = &IRError{Path: path, Msg: fmt.Sprintf(format, args...)}
	}
}

func (v *validator) ok() bool { return v.err == nil }

func at(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func dot(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// scope is where an expression is read.
type scope struct {
	what    string // for messages: "a gauge"
	session bool   // read for a session: attributes are at hand
	engine  int    // the engine whose registers it may read; -1 none
	budget  bool   // budget_left may be read (not where budget_left itself evaluates)
}

var (
	scStmt     = &scope{what: "a statement", session: true, engine: -1, budget: true}
	scPoolKeys = &scope{what: "a pool's keys", session: true, engine: -1, budget: true}
	scPhi      = &scope{what: "a ps capacity", engine: -1, budget: true}
	scGauge    = &scope{what: "a gauge", engine: -1, budget: true}
	scClaim    = &scope{what: "a claim's expression", engine: -1, budget: true}
	scGiven    = &scope{what: "a claim's given", session: true, engine: -1, budget: true}
	scArrival  = &scope{what: "the arrival process", engine: -1, budget: true}
)

func (v *validator) program() {
	p := v.p
	v.families("stage_families", p.StageFams, len(p.Stages), "stage")
	v.families("pool_families", p.PoolFams, len(p.Pools), "pool")
	if !v.ok() {
		return
	}
	switch p.Share {
	case "", "maxmin", "bottleneck":
	default:
		v.failf("share", "unknown share policy %q (want maxmin or bottleneck)", p.Share)
	}
	if r := p.Run; r != nil {
		switch {
		case !(r.Horizon > 0) || math.IsInf(r.Horizon, 0):
			v.failf("run.horizon", "the horizon must be finite and > 0, not %v", r.Horizon)
		case !(r.Warmup >= 0) || r.Warmup >= r.Horizon:
			v.failf("run.warmup", "the warm-up must be at least 0 and below the horizon %v, not %v", r.Horizon, r.Warmup)
		}
	}
	for i := range p.Stages {
		v.stage(i)
	}
	for i := range p.Pools {
		v.pool(i)
	}
	for i := range p.Engines {
		v.engine(i)
	}
	b := &p.Builtin
	for _, f := range []struct {
		name string
		slot int
	}{{"serial", b.Serial}, {"turn_no", b.TurnNo}, {"cached", b.Cached}, {"computed", b.Computed}, {"more", b.More}} {
		v.attrSlot(dot("builtins", f.name), f.slot)
	}
	if (b.Failed == 0) != (b.Loaded == 0) {
		v.failf("builtins.failed", "failed and loaded come together: both slots or neither")
	}
	if b.Failed != 0 {
		v.attrSlot("builtins.failed", b.Failed)
		v.attrSlot("builtins.loaded", b.Loaded)
	}
	for _, f := range []struct {
		name string
		slot int
	}{{"auto_ttft", p.AutoTTFT}, {"auto_response", p.AutoResponse}} {
		if f.slot != -1 {
			v.observeSlot(f.name, f.slot, "; -1 means none")
		}
	}
	if !v.ok() {
		return
	}
	// Expressions and statements, now that every index they may use is known
	// to be sound.
	for i := range p.Stages {
		if phi := p.Stages[i].Phi; phi != nil {
			v.expr(dot(at("stages", i), "phi"), phi, scPhi)
		}
	}
	for i := range p.Pools {
		pl := &p.Pools[i]
		path := at("pools", i)
		v.exprs(dot(path, "evict.keys"), pl.Evict.Keys, scPoolKeys)
		v.exprs(dot(path, "preempt_keys"), pl.PreemptKeys, scPoolKeys)
		v.exprs(dot(path, "queue_keys"), pl.QueueKeys, scPoolKeys)
		if sp := pl.Spill; sp != nil {
			v.expr(dot(path, "spill.work"), sp.Work, scPoolKeys)
			v.expr(dot(path, "spill.when"), sp.When, scPoolKeys)
		}
	}
	for i := range p.Engines {
		v.engineExprs(i)
	}
	v.workload()
	if p.Server != nil {
		v.block("server", p.Server)
	}
	for i := range p.Gauges {
		v.expr(dot(at("gauges", i), "expr"), p.Gauges[i].Expr, scGauge)
	}
	for i := range p.Claims {
		v.claim(i)
	}
	for i := range p.Queues {
		v.queue(i)
	}
	for i, r := range p.Relations {
		if r.Stage != -1 {
			v.famIndex(dot(at("relations", i), "latency_stage"), r.Stage, true)
		}
	}
	for i := range p.Faults {
		v.fault(i)
	}
	for i, pic := range p.Pictures {
		path := at("pictures", i)
		v.queueIndex(dot(path, "queue"), pic.Queue)
		for _, f := range []struct {
			name string
			x    F64
		}{{"refresh", pic.Refresh}, {"delay", pic.Delay}, {"detect", pic.Detect}} {
			if x := float64(f.x); !(x >= 0) || math.IsInf(x, 0) {
				v.failf(dot(path, f.name), "a time, at least 0 and finite, not %s", FormatNum(x))
			}
		}
	}
}

// canFail reports whether the program has the built-ins of a program that
// can fail a request.
func (v *validator) canFail() bool { return v.p.Builtin.Failed != 0 }

func (v *validator) queueIndex(path string, q int) bool {
	if q < 0 || q >= len(v.p.Queues) {
		v.failf(path, "queue %d is no queue (the program has %d)", q, len(v.p.Queues))
		return false
	}
	return true
}

// fault checks a line of the faults block: one target, a time or a law,
// and a stall only on a ps stage.
func (v *validator) fault(i int) {
	p := v.p
	f := &p.Faults[i]
	path := at("faults", i)
	if !v.canFail() {
		v.failf(path, "a program with faults has the built-ins failed and loaded")
		return
	}
	count := 0
	switch {
	case (f.Queue >= 0) == (f.Stage >= 0):
		v.failf(path, "a fault names a queue or a stage family: one of them, the other -1")
		return
	case f.Queue >= 0:
		if !v.queueIndex(dot(path, "queue"), f.Queue) {
			return
		}
		count = p.Queues[f.Queue].Count
		if f.Stall {
			v.failf(dot(path, "stall"), "a queue's member does not stall: only a ps stage does")
		}
	default:
		if !v.famIndex(dot(path, "stage"), f.Stage, true) {
			return
		}
		fam := p.StageFams[f.Stage]
		count = fam.Count
		if f.Stall && p.Stages[fam.First].Kind != PS {
			v.failf(dot(path, "stall"), "only a ps stage stalls; `%s` is a %s stage", fam.Name, p.Stages[fam.First].Kind)
		}
	}
	if f.Index < -1 || f.Index >= count {
		v.failf(dot(path, "index"), "index %d is out of range: the family has %d member(s) (-1 for each)", f.Index, count)
	}
	switch {
	case (f.At == nil) == (f.After == nil):
		v.failf(path, "a fault has a time `at` or a law `after`: one of them")
	case f.At != nil:
		v.expr(dot(path, "at"), f.At, scArrival)
		if x, ok := f.At.IsConst(); !ok || !(x >= 0) || math.IsInf(x, 0) {
			v.failf(dot(path, "at"), "a fault's time is a constant, at least 0 and finite")
		}
	default:
		v.expr(dot(path, "after"), f.After, scArrival)
	}
	if f.For != nil {
		v.expr(dot(path, "for"), f.For, scArrival)
	}
}

func (v *validator) families(path string, fams []Family, n int, what string) {
	for i, f := range fams {
		switch {
		case f.Count < 1:
			v.failf(dot(at(path, i), "count"), "a family has at least one member, not %d", f.Count)
		case f.First < 0 || f.First > n-f.Count:
			v.failf(at(path, i), "members %d to %d are not all %ss: the program has %d", f.First, f.First+f.Count-1, what, n)
		}
	}
}

// famIndex checks a stage (or pool) family index.
func (v *validator) famIndex(path string, f int, stage bool) bool {
	n, what := len(v.p.PoolFams), "pool"
	if stage {
		n, what = len(v.p.StageFams), "stage"
	}
	if f < 0 || f >= n {
		v.failf(path, "%s family %d does not exist (the program has %d)", what, f, n)
		return false
	}
	return true
}

// family is stage (or pool) family f, which famIndex has checked.
func (v *validator) family(f int, stage bool) Family {
	if stage {
		return v.p.StageFams[f]
	}
	return v.p.PoolFams[f]
}

// member checks that member i of a family's list names family fam and
// lies in it.
func (v *validator) member(path string, i, fam int, stage bool) {
	if !v.famIndex(dot(path, "family"), fam, stage) {
		return
	}
	f := v.family(fam, stage)
	if i < f.First || i >= f.First+f.Count {
		v.failf(dot(path, "family"), "family %d (`%s`) has members %d to %d, not %d", fam, f.Name, f.First, f.First+f.Count-1, i)
	}
}

func (v *validator) stage(i int) {
	p := v.p
	st := &p.Stages[i]
	path := at("stages", i)
	v.member(path, i, st.Fam, true)
	if !v.ok() {
		return
	}
	if st.Kind < 0 || st.Kind > Step {
		v.failf(dot(path, "kind"), "kind %d is no stage kind", st.Kind)
		return
	}
	if first := &p.Stages[p.StageFams[st.Fam].First]; st.Kind != first.Kind {
		v.failf(dot(path, "kind"), "a %s stage in family `%s`, whose first member is a %s stage", st.Kind, p.StageFams[st.Fam].Name, first.Kind)
	}
	if st.Kind == FIFO && (st.Servers < 1 || st.Servers > MaxServers) {
		v.failf(dot(path, "servers"), "a fifo stage has from 1 to %d servers, not %d", MaxServers, st.Servers)
	}
	if st.Kind == PS && st.Phi == nil {
		v.failf(dot(path, "phi"), "missing: a ps stage needs its capacity")
	}
	switch {
	case st.Kind != Step && st.Engine != -1:
		v.failf(dot(path, "engine"), "a %s stage has no engine: want -1, not %d", st.Kind, st.Engine)
	case st.Kind == Step && (st.Engine < 0 || st.Engine >= len(p.Engines)):
		v.failf(dot(path, "engine"), "engine %d does not exist (the program has %d)", st.Engine, len(p.Engines))
	case st.Kind == Step && p.Engines[st.Engine].Stage != i:
		v.failf(dot(path, "engine"), "engine %d runs stage %d, not this one", st.Engine, p.Engines[st.Engine].Stage)
	}
	if st.Shared {
		switch {
		case st.Kind == Step:
			v.failf(dot(path, "shared"), "an engine's stage cannot carry flows")
		case p.Share == "":
			v.failf(dot(path, "shared"), "a stage carrying flows needs the program's share policy (\"share\" is empty)")
		}
	}
}

// stageIndex checks a stage index that must be an engine's.
func (v *validator) engineStage(path string, s int) bool {
	p := v.p
	if s < 0 || s >= len(p.Stages) {
		v.failf(path, "stage %d does not exist (the program has %d)", s, len(p.Stages))
		return false
	}
	if p.Stages[s].Kind != Step {
		v.failf(path, "stage %d (`%s`) is a %s stage, not an engine", s, p.Stages[s].Label, p.Stages[s].Kind)
		return false
	}
	return true
}

func (v *validator) pool(i int) {
	p := v.p
	pl := &p.Pools[i]
	path := at("pools", i)
	v.member(path, i, pl.Fam, false)
	if c := float64(pl.Cap); math.IsNaN(c) || c < 0 {
		v.failf(dot(path, "cap"), "a pool's cap must be at least 0, not %s", FormatNum(c))
	}
	if b := float64(pl.Block); math.IsNaN(b) || b < 0 || math.IsInf(b, 0) {
		v.failf(dot(path, "block"), "a pool's block must be finite and at least 0, not %s", FormatNum(b))
	}
	if pl.Preempt < 0 || pl.Preempt > PreemptBy {
		v.failf(dot(path, "preempt"), "preempt %d is no preempt policy", pl.Preempt)
	}
	if pl.AdmitVia != -1 && v.engineStage(dot(path, "admit_via"), pl.AdmitVia) {
		e := p.Stages[pl.AdmitVia].Engine
		if e >= 0 && e < len(p.Engines) && !containsInt(p.Engines[e].Admits, i) {
			v.failf(dot(path, "admit_via"), "engine %d (stage `%s`) does not admit this pool", e, p.Stages[pl.AdmitVia].Label)
		}
	}
	if pl.Spill != nil {
		v.spill(i)
	}
	if pl.MemoryOf != -1 && v.engineStage(dot(path, "memory_of"), pl.MemoryOf) {
		e := p.Stages[pl.MemoryOf].Engine
		if e >= 0 && e < len(p.Engines) && p.Engines[e].Memory != i {
			v.failf(dot(path, "memory_of"), "engine %d (stage `%s`) has memory %d, not this pool", e, p.Stages[pl.MemoryOf].Label, p.Engines[e].Memory)
		}
	}
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func (v *validator) poolIndex(path string, i int) bool {
	if i < 0 || i >= len(v.p.Pools) {
		v.failf(path, "pool %d does not exist (the program has %d)", i, len(v.p.Pools))
		return false
	}
	return true
}

func (v *validator) engine(i int) {
	p := v.p
	e := &p.Engines[i]
	path := at("engines", i)
	if e.Stage < 0 || e.Stage >= len(p.Stages) {
		v.failf(dot(path, "stage"), "stage %d does not exist (the program has %d)", e.Stage, len(p.Stages))
		return
	}
	if p.Stages[e.Stage].Engine != i {
		v.failf(dot(path, "stage"), "stage %d (`%s`) names engine %d, not this one", e.Stage, p.Stages[e.Stage].Label, p.Stages[e.Stage].Engine)
	}
	if e.Memory != -1 && v.poolIndex(dot(path, "memory"), e.Memory) && p.Pools[e.Memory].MemoryOf != e.Stage {
		v.failf(dot(path, "memory"), "pool %d (`%s`) is the memory of stage %d, not of this engine's", e.Memory, p.Pools[e.Memory].Label, p.Pools[e.Memory].MemoryOf)
	}
	for k, a := range e.Admits {
		if v.poolIndex(at(dot(path, "admits"), k), a) && p.Pools[a].AdmitVia != e.Stage {
			v.failf(at(dot(path, "admits"), k), "pool %d (`%s`) is admitted via stage %d, not this engine's", a, p.Pools[a].Label, p.Pools[a].AdmitVia)
		}
	}
	if e.Serve < 0 || e.Serve > ServeBody {
		v.failf(dot(path, "serve"), "serve %d is no serve kind", e.Serve)
	}
}

func (v *validator) engineExprs(i int) {
	e := &v.p.Engines[i]
	path := at("engines", i)
	budget := &scope{what: "an engine's tokens cap", engine: i}
	cost := &scope{what: "an engine's execute", engine: i, budget: true}
	v.expr(dot(path, "budget"), e.Budget, budget)
	if e.Chunk != nil {
		v.expr(dot(path, "chunk"), e.Chunk, &scope{what: "an engine's chunk", engine: i})
	}
	v.expr(dot(path, "cost"), e.Cost, cost)
	v.exprs(dot(path, "order"), e.Order, &scope{what: "a schedule's keys", session: true, engine: i, budget: true})
	v.steps(dot(path, "body"), e.Body, i)
}

func (v *validator) steps(path string, steps []SchedStep, eng int) {
	keys := &scope{what: "a schedule's keys", session: true, engine: eng, budget: true}
	guard := &scope{what: "a schedule's guard", engine: eng, budget: true}
	for k := range steps {
		st := &steps[k]
		sp := at(path, k)
		switch st.Op {
		case SchedAdvance:
			if st.Only != nil {
				v.expr(dot(sp, "only"), st.Only, keys)
			}
			v.exprs(dot(sp, "order"), st.Order, keys)
		case SchedAdmit:
			if st.While != nil {
				v.expr(dot(sp, "while"), st.While, guard)
			}
			if st.Only != nil {
				v.expr(dot(sp, "only"), st.Only, keys)
			}
		case SchedBranch:
			v.expr(dot(sp, "cond"), st.Cond, guard)
			v.steps(dot(sp, "then"), st.Then, eng)
			v.steps(dot(sp, "else"), st.Else, eng)
		case SchedSet:
			if n := len(v.p.Engines[eng].Regs); st.Reg < 0 || st.Reg >= n {
				v.failf(dot(sp, "reg"), "register %d does not exist: engine %d has %d", st.Reg, eng, n)
			}
			v.expr(dot(sp, "value"), st.Value, guard)
		default:
			v.failf(dot(sp, "op"), "op %d is no schedule step", st.Op)
		}
	}
}

func (v *validator) attrSlot(path string, slot int) bool {
	if n := len(v.p.Attrs); slot < 0 || slot >= n {
		v.failf(path, "slot %d is no attribute (the program has %d)", slot, n)
		return false
	}
	return true
}

func (v *validator) observeSlot(path string, slot int, note string) {
	if n := len(v.p.Observes); slot < 0 || slot >= n {
		v.failf(path, "slot %d is no observe (the program has %d)%s", slot, n, note)
	}
}

func (v *validator) workload() {
	w := &v.p.Workload
	switch w.Arrive {
	case ArrivePoisson:
		if x, ok := v.constArg(); ok && !(x > 0 && !math.IsInf(x, 0)) {
			v.failf("workload.arg", "a poisson rate must be positive and finite, not %s", FormatNum(x))
		}
	case ArriveClosed, ArriveBatch:
		if x, ok := v.constArg(); ok && !(x >= 1 && x <= 1e6 && x == math.Floor(x)) {
			v.failf("workload.arg", "a %s workload takes a whole number of sessions from 1 to 1000000, not %s", w.Arrive.name(), FormatNum(x))
		}
	case ArriveRenewal:
		v.expr("workload.arg", w.Arg, scArrival)
	case ArriveConstant:
		if len(w.Stages) == 0 {
			v.failf("workload.stages", "a constant workload needs at least one stage")
		}
		for i, st := range w.Stages {
			if r, d := float64(st.Rate), float64(st.Duration); !(r > 0 && d > 0 && !math.IsInf(r, 0) && !math.IsInf(d, 0)) {
				v.failf(fmt.Sprintf("workload.stages[%d]", i), "a stage's rate and duration must be positive and finite, not %s and %s", FormatNum(r), FormatNum(d))
			}
		}
	case ArriveNone:
		if w.Arg != nil {
			v.expr("workload.arg", w.Arg, scArrival)
		}
	default:
		v.failf("workload.arrive", "arrive %d is no arrival process", w.Arrive)
	}
	if w.Trace != "" && !strings.HasSuffix(w.Trace, ".csv") {
		v.failf("workload.trace", "a trace is a .csv file, not %q", w.Trace)
	}
	v.traceSessions(w)
	if w.Timeout != nil {
		if !v.canFail() {
			v.failf("workload.timeout", "a timeout is in a program with the built-ins failed and loaded")
		}
		v.expr("workload.timeout", w.Timeout, scStmt)
	}
	for _, b := range []struct {
		name string
		b    *Block
	}{{"init", w.Init}, {"turn", w.Turn}, {"session", w.Session}} {
		path := dot("workload", b.name)
		if b.b == nil {
			v.failf(path, "missing block")
			continue
		}
		v.block(path, b.b)
	}
}

func (k ArrivalKind) name() string {
	if k < 0 || int(k) >= len(arrivalKindNames) {
		return "?"
	}
	return arrivalKindNames[k]
}

// constArg is the workload's constant argument.
func (v *validator) constArg() (float64, bool) {
	w := &v.p.Workload
	if w.Arg == nil {
		v.failf("workload.arg", "missing: a %s workload needs its constant", w.Arrive.name())
		return 0, false
	}
	v.expr("workload.arg", w.Arg, scArrival)
	x, ok := w.Arg.IsConst()
	if v.ok() && !ok {
		v.failf("workload.arg", "a %s workload needs a constant, not a %q expression", w.Arrive.name(), w.Arg.Op.String())
	}
	return x, ok && v.ok()
}

func (v *validator) claim(i int) {
	p := v.p
	c := &p.Claims[i]
	path := at("claims", i)
	switch c.Kind {
	case "every_iteration", "some_iteration":
		v.engineStage(dot(path, "stage"), c.Stage)
	case "at_end":
		if c.Stage != -1 && (c.Stage < 0 || c.Stage >= len(p.Stages)) {
			v.failf(dot(path, "stage"), "stage %d does not exist (the program has %d)", c.Stage, len(p.Stages))
		}
	default:
		v.failf(dot(path, "kind"), "unknown claim kind %q (want every_iteration, some_iteration or at_end)", c.Kind)
	}
	if c.Given != nil {
		v.expr(dot(path, "given"), c.Given, scGiven)
	}
	v.expr(dot(path, "expr"), c.Expr, scClaim)
}

func (v *validator) queue(i int) {
	q := &v.p.Queues[i]
	path := at("queues", i)
	if q.Count < 0 {
		v.failf(dot(path, "count"), "a queue has no negative count: %d", q.Count)
	}
	for k := range i {
		if v.p.Queues[k].Name == q.Name {
			v.failf(dot(path, "name"), "queue `%s` is also queues[%d]", q.Name, k)
			return
		}
	}
	// The queue's resources have a member per queue member.
	fam := func(path string, f int, stage bool) {
		if !v.famIndex(path, f, stage) {
			return
		}
		if fm := v.family(f, stage); fm.Count != q.Count {
			v.failf(path, "family %d (`%s`) has %d member(s), and queue `%s` %d", f, fm.Name, fm.Count, q.Name, q.Count)
		}
	}
	if q.Stage != -1 {
		fam(dot(path, "stage"), q.Stage, true)
	}
	if q.Nic != -1 {
		fam(dot(path, "nic"), q.Nic, true)
	}
	for k, f := range q.Pools {
		fam(at(dot(path, "pools"), k), f, false)
	}
	if q.Leases != -1 {
		fam(dot(path, "leases"), q.Leases, false)
	}
}

// Statements.

func (v *validator) block(path string, b *Block) {
	for k, st := range b.Stmts {
		v.stmt(at(dot(path, "stmts"), k), st)
		if !v.ok() {
			return
		}
	}
}

// body checks a block a statement needs.
func (v *validator) body(path string, b *Block, op Op) {
	if b == nil {
		v.failf(path, "missing: %q needs its block", op.String())
		return
	}
	v.block(path, b)
}

// loopBody checks the block a loop repeats: the interpreter's livelock
// guard counts statements, so an empty one would spin without end.
func (v *validator) loopBody(path string, b *Block, op Op) {
	if b != nil && len(b.Stmts) == 0 {
		v.failf(dot(path, "stmts"), "missing: %q repeats its block, and an empty one would spin without end", op.String())
		return
	}
	v.body(path, b, op)
}

func (v *validator) stmt(path string, st *Stmt) {
	if st == nil {
		v.failf(path, "missing statement")
		return
	}
	if st.Op < 0 || int(st.Op) >= len(opNames) {
		v.failf(dot(path, "op"), "op %d is no statement kind", st.Op)
		return
	}
	if st.Mode < 0 || int(st.Mode) >= len(runModeNames) {
		v.failf(dot(path, "mode"), "mode %d is no run mode", st.Mode)
		return
	}
	value := func() { v.expr(dot(path, "value"), st.Value, scStmt) }
	pool := func() {
		if st.Pool == nil {
			v.failf(dot(path, "pool"), "missing: %q needs its pool", st.Op.String())
			return
		}
		v.ref(dot(path, "pool"), st.Pool, false, scStmt)
	}
	switch st.Op {
	case OpSet:
		v.attrSlot(path, st.Slot)
		value()
	case OpObserve:
		v.observeSlot(path, st.Slot, "")
		value()
	case OpHold:
		v.hold(path, st)
	case OpGrow, OpLoad:
		pool()
		value()
	case OpDrop, OpRelease:
		pool()
	case OpRun:
		v.run(path, st)
	case OpBranch:
		value()
		v.body(dot(path, "body"), st.Body, st.Op)
		if st.Else != nil {
			v.block(dot(path, "else"), st.Else)
		}
	case OpWhile:
		value()
		v.loopBody(dot(path, "body"), st.Body, st.Op)
	case OpLoop:
		v.loopBody(dot(path, "body"), st.Body, st.Op)
	case OpFork:
		v.body(dot(path, "body"), st.Body, st.Op)
	case OpChoose:
		v.attrSlot(path, st.Slot)
		v.expr(dot(path, "n"), st.N, scStmt)
		v.exprs(dot(path, "keys"), st.Keys, scStmt)
		if st.Among != 0 {
			if !v.canFail() {
				v.failf(dot(path, "among"), "a choose among a queue's members is in a program with the built-ins failed and loaded")
				return
			}
			v.queueIndex(dot(path, "among"), st.Among-1)
		}
	case OpReading:
		v.reading(path, st)
	case OpTry:
		if !v.canFail() {
			v.failf(path, "a retried call is in a program with the built-ins failed and loaded")
			return
		}
		v.expr(dot(path, "n"), st.N, scStmt)
		value()
		n, ok1 := st.N.IsConst()
		b, ok2 := st.Value.IsConst()
		if v.ok() && (!ok1 || !ok2 || !(n >= 0 && n <= 1000 && n == math.Floor(n)) || !(b >= 0) || math.IsInf(b, 0)) {
			v.failf(path, "a retry has a constant count from 0 to 1000 and a constant backoff, at least 0 and finite")
			return
		}
		v.body(dot(path, "body"), st.Body, st.Op)
	}
	if st.Read && st.Op != OpRun && st.Op != OpLoad && st.Op != OpRelease {
		v.failf(dot(path, "read"), "only a read's flow, load and release are marked read, not %q", st.Op.String())
	}
	if st.Read && !v.canFail() {
		v.failf(dot(path, "read"), "a read is marked in a program with the built-ins failed and loaded")
	}
	if st.Among != 0 && st.Op != OpChoose {
		v.failf(dot(path, "among"), "only a choose has candidates among a queue's members")
	}
	if st.Renew != nil && st.Op != OpHold {
		v.failf(dot(path, "renew"), "only a hold's lease renews")
	}
	if st.Reading != nil && st.Op != OpReading {
		v.failf(dot(path, "reading"), "only a reading entry reads")
	}
}

// reading checks an entry that reads a lease: its source, its reader and
// its policies.
func (v *validator) reading(path string, st *Stmt) {
	r := st.Reading
	if r == nil {
		v.failf(dot(path, "reading"), "missing: a reading entry names what it reads")
		return
	}
	if !v.canFail() {
		v.failf(path, "a reading entry is in a program with the built-ins failed and loaded")
		return
	}
	v.ref(dot(path, "reading.source"), &r.Source, false, scStmt)
	if v.queueIndex(dot(path, "reading.queue"), r.Queue) && r.Index != nil {
		v.expr(dot(path, "reading.index"), r.Index, scStmt)
	}
	if r.Expiry != ReadAnyway && r.Expiry != ReadDecline {
		v.failf(dot(path, "reading.expiry"), "an expired lease is read or declined, not %q", r.Expiry.String())
	}
	if r.Failure != ReadFail && r.Failure != ReadRecompute {
		v.failf(dot(path, "reading.failure"), "a failed read fails or recomputes, not %q", r.Failure.String())
	}
	v.body(dot(path, "body"), st.Body, st.Op)
}

func (v *validator) hold(path string, st *Stmt) {
	if len(st.Holds) == 0 {
		v.failf(dot(path, "holds"), "missing: a hold holds at least one pool")
		return
	}
	for k := range st.Holds {
		hp := &st.Holds[k]
		hpath := at(dot(path, "holds"), k)
		v.ref(dot(hpath, "pool"), &hp.Pool, false, scStmt)
		v.expr(dot(hpath, "units"), hp.Units, scStmt)
		if hp.Reserve != nil {
			v.expr(dot(hpath, "reserve"), hp.Reserve, scStmt)
		}
	}
	if st.Reuse != nil {
		v.expr(dot(path, "reuse"), st.Reuse, scStmt)
	}
	for k := range st.Prefix {
		spath := at(dot(path, "prefix"), k)
		v.expr(dot(spath, "key"), st.Prefix[k].Key, scStmt)
		v.expr(dot(spath, "length"), st.Prefix[k].Length, scStmt)
	}
	if st.HasCache {
		if st.Cache == nil {
			v.failf(dot(path, "cache"), "missing: a hold with has_cache needs its cache length")
		} else {
			v.expr(dot(path, "cache"), st.Cache, scStmt)
		}
	}
	switch {
	case st.Lease < 0 || st.Lease > len(st.Holds):
		v.failf(dot(path, "lease"), "lease %d names no pool of the hold (1 to %d, or 0 for none)", st.Lease, len(st.Holds))
	case st.Lease > 0 && st.LeaseFor == nil:
		v.failf(dot(path, "lease_for"), "missing: a lease needs its duration")
	case st.Lease > 0:
		v.expr(dot(path, "lease_for"), st.LeaseFor, scStmt)
	}
	if r := st.Renew; r != nil {
		every, dur := float64(r.Every), float64(r.For)
		switch {
		case st.Lease == 0:
			v.failf(dot(path, "renew"), "a renewal needs a lease")
		case !v.canFail():
			v.failf(dot(path, "renew"), "a renewed lease is in a program with the built-ins failed and loaded")
		case !(every > 0) || math.IsInf(every, 0) || !(dur > every) || math.IsInf(dur, 0):
			v.failf(dot(path, "renew"), "a renewal every %s for %s: both positive and finite, for longer than every", FormatNum(every), FormatNum(dur))
		}
	}
	v.body(dot(path, "body"), st.Body, st.Op)
}

func (v *validator) run(path string, st *Stmt) {
	p := v.p
	if len(st.Stages) == 0 {
		v.failf(dot(path, "stages"), "missing: a run names at least one stage")
		return
	}
	for k := range st.Stages {
		v.ref(at(dot(path, "stages"), k), &st.Stages[k], true, scStmt)
	}
	if !v.ok() {
		return
	}
	if len(st.Stages) > 1 {
		// A flow: every member the reference may pick carries flows.
		for k, r := range st.Stages {
			f := p.StageFams[r.Fam]
			for m := f.First; m < f.First+f.Count; m++ {
				if !p.Stages[m].Shared {
					v.failf(at(dot(path, "stages"), k), "a run over several stages is a flow, but stage %d (`%s`) is not shared", m, p.Stages[m].Label)
					return
				}
			}
			for j := range k {
				if sameMember(&st.Stages[j], &r) {
					v.failf(at(dot(path, "stages"), k), "a flow names stage `%s` twice", p.Stages[f.First].Label)
					return
				}
			}
		}
	} else if f := p.StageFams[st.Stages[0].Fam]; p.Stages[f.First].Kind == Step && st.Mode == ModeNone {
		v.failf(dot(path, "mode"), "missing: a run on engine `%s` needs mode prefill or decode", f.Name)
	}
	v.expr(dot(path, "value"), st.Value, scStmt)
	if st.Growing != nil {
		v.ref(dot(path, "growing"), st.Growing, false, scStmt)
	}
}

// sameMember reports two references to one member, both constant.
func sameMember(a, b *Ref) bool {
	if a.Fam != b.Fam {
		return false
	}
	x, okx := a.Index.IsConst()
	y, oky := b.Index.IsConst()
	return (a.Index == nil || okx) && (b.Index == nil || oky) && x == y
}

// Expressions.

func (v *validator) ref(path string, r *Ref, stage bool, sc *scope) {
	if !v.famIndex(dot(path, "family"), r.Fam, stage) {
		return
	}
	if r.Index == nil {
		return
	}
	v.expr(dot(path, "index"), r.Index, sc)
	// A constant index is taken as it stands (the interpreter checks only
	// the computed ones).
	if x, ok := r.Index.IsConst(); ok {
		f := v.family(r.Fam, stage)
		if !(x >= 0 && x < float64(f.Count) && x == math.Floor(x)) {
			v.failf(dot(path, "index"), "index %s is out of range: family `%s` has %d member(s)", FormatNum(x), f.Name, f.Count)
		}
	}
}

func (v *validator) exprs(path string, es []*Expr, sc *scope) {
	for k, e := range es {
		v.expr(at(path, k), e, sc)
	}
}

func (v *validator) expr(path string, e *Expr, sc *scope) {
	if !v.ok() {
		return
	}
	if e == nil {
		v.failf(path, "missing expression")
		return
	}
	if e.Op < 0 || int(e.Op) >= len(Operators) {
		v.failf(path, "op %d is no expression op", e.Op)
		return
	}
	if e.Fn < 0 || int(e.Fn) >= len(funcInfo) {
		v.failf(path, "fn %d is no function", e.Fn)
		return
	}
	op, info := e.Op.String(), e.Op.Info()
	// The function an op applies (Builtins: its Fn's Op is this op, and a
	// debugger's is no part of a program), and its arity.
	fn := e.Fn.Info()
	switch {
	case !info.Fn && e.Fn != FNone:
		v.failf(path, "fn %q does not apply to op %q", e.Fn.String(), op)
		return
	case info.Fn && e.Fn == FNone:
		v.failf(path, "missing: op %q needs its fn", op)
		return
	case info.Fn && (fn.Op != e.Op || fn.Kind == KQuery):
		v.failf(path, "fn %q does not apply to op %q", e.Fn.String(), op)
		return
	}
	switch args := info.Args; {
	case args < 0:
		if len(e.Args) != fn.Arity() {
			what := "function"
			if e.Op == EDraw {
				what = "distribution"
			}
			v.failf(path, "%s %s takes %d argument(s), not %d", what, e.Fn.String(), fn.Arity(), len(e.Args))
			return
		}
	case len(e.Args) != args:
		v.failf(path, "op %q takes %d argument(s), not %d", op, args, len(e.Args))
		return
	}
	refOp := info.Ref
	switch {
	case refOp && e.Ref == nil:
		v.failf(dot(path, "ref"), "missing: op %q needs its ref", op)
		return
	case !refOp && e.Ref != nil:
		v.failf(dot(path, "ref"), "op %q takes no ref", op)
		return
	}
	p := v.p
	switch e.Op {
	case EAttr:
		if !sc.session {
			v.failf(path, "attribute %s is read in %s, where there is no session", slotName(e), sc.what)
			return
		}
		v.attrSlot(path, e.Slot)
	case ECtx:
		if e.Slot < 0 || e.Slot >= int(NumCtx) {
			v.failf(path, "slot %d is no context variable (there are %d)", e.Slot, NumCtx)
		}
	case EReg:
		eng := sc.engine
		if eng < 0 && e.Ref != nil {
			// a gauge names the engine's stage
			if e.Ref.Fam < 0 || e.Ref.Fam >= len(p.StageFams) || e.Ref.Index != nil {
				v.failf(path, "register %s names no single engine stage", slotName(e))
				return
			}
			eng = p.Stages[p.StageFams[e.Ref.Fam].First].Engine
		}
		if eng < 0 {
			v.failf(path, "register %s is read in %s, outside an engine", slotName(e), sc.what)
			return
		}
		if n := len(p.Engines[eng].Regs); e.Slot < 0 || e.Slot >= n {
			v.failf(path, "slot %d is no register of engine %d (it has %d)", e.Slot, eng, n)
		}
	case EObsAgg:
		v.observeSlot(path, e.Slot, "")
	case EUp:
		if !v.queueIndex(dot(path, "ref.family"), e.Ref.Fam) {
			return
		}
		if e.Ref.Index != nil {
			v.expr(dot(path, "ref.index"), e.Ref.Index, sc)
			if x, ok := e.Ref.Index.IsConst(); ok && !(x >= 0 && x < float64(p.Queues[e.Ref.Fam].Count) && x == math.Floor(x)) {
				v.failf(dot(path, "ref.index"), "index %s is out of range: queue `%s` has %d member(s)", FormatNum(x), p.Queues[e.Ref.Fam].Name, p.Queues[e.Ref.Fam].Count)
			}
		}
	case ESeen:
		if e.Slot < 0 || e.Slot >= len(p.Pictures) {
			v.failf(path, "slot %d is no picture (the program has %d)", e.Slot, len(p.Pictures))
			return
		}
		switch a := e.Args[0]; {
		case a.Op == EUp, a.Op == EPool, a.Op == EStage && a.Fn <= SWork:
		default:
			v.failf(dot(path, "args[0]"), "a picture shows an observable of a pool, a stage or a member, not %q", a.Op.String())
			return
		}
	case EStage, EPool:
		v.ref(dot(path, "ref"), e.Ref, e.Op == EStage, sc)
	case EBudget:
		if !sc.budget {
			v.failf(path, "budget_left is read in %s, which budget_left itself evaluates", sc.what)
			return
		}
		if !v.famIndex(dot(path, "ref.family"), e.Ref.Fam, true) {
			return
		}
		if f := p.StageFams[e.Ref.Fam]; p.Stages[f.First].Kind != Step {
			v.failf(dot(path, "ref.family"), "budget_left reads an engine, and `%s` is a %s stage", f.Name, p.Stages[f.First].Kind)
			return
		}
		v.ref(dot(path, "ref"), e.Ref, true, sc)
	}
	for k, a := range e.Args {
		v.expr(at(dot(path, "args"), k), a, sc)
	}
}

// slotName names an attribute or register read for a message.
func slotName(e *Expr) string {
	if e.Name != "" {
		return fmt.Sprintf("%d (`%s`)", e.Slot, e.Name)
	}
	return strconv.Itoa(e.Slot)
}

// traceSessions checks an inlined trace: replayed in order, instead of a
// trace file, every recorded session with a turn and no NaN.
func (v *validator) traceSessions(w *Workload) {
	if len(w.Sessions) == 0 {
		return
	}
	if w.Trace != "" {
		v.failf("workload.sessions", "inlined sessions replace the trace: a workload has not both (trace %q)", w.Trace)
	}
	if !w.Ordered {
		v.failf("workload.sessions", "inlined sessions are replayed in order: the workload must be ordered")
	}
	for i, turns := range w.Sessions {
		path := fmt.Sprintf("workload.sessions[%d]", i)
		if len(turns) == 0 {
			v.failf(path, "a recorded session has at least one turn")
		}
		for j, t := range turns {
			for _, f := range []struct {
				name string
				x    F64
			}{{"new", t.New}, {"out", t.Out}, {"think", t.Think}, {"forced", t.Forced}} {
				if math.IsNaN(float64(f.x)) {
					v.failf(fmt.Sprintf("%s[%d].%s", path, j, f.name), "not a number")
				}
			}
		}
	}
}

// spill checks a pool's offload tier: another pool, reached by a job on a
// stage that is no engine, and a chain of tiers that never comes back.
func (v *validator) spill(i int) {
	p := v.p
	sp := p.Pools[i].Spill
	path := dot(at("pools", i), "spill")
	if v.poolIndex(dot(path, "tier"), sp.Tier) {
		seen := map[int]bool{i: true}
		for t := sp.Tier; ; {
			if seen[t] {
				v.failf(dot(path, "tier"), "the spill tiers come back to pool %d (`%s`): evicting into a tier must end", t, p.Pools[t].Label)
				break
			}
			seen[t] = true
			next := p.Pools[t].Spill
			if next == nil || next.Tier < 0 || next.Tier >= len(p.Pools) {
				break
			}
			t = next.Tier
		}
	}
	if sp.Stage < 0 || sp.Stage >= len(p.Stages) {
		v.failf(dot(path, "stage"), "stage %d does not exist (the program has %d)", sp.Stage, len(p.Stages))
	} else if p.Stages[sp.Stage].Kind == Step {
		v.failf(dot(path, "stage"), "stage %d (`%s`) is an engine: a spill is a job on a fifo, ps or delay stage", sp.Stage, p.Stages[sp.Stage].Label)
	}
}
