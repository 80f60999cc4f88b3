package model

import (
	"fmt"
	"math"
	"strings"
)

// The built-ins and the operators, each described once. Every consumer
// reads these tables: lang lowers a call by its entry (name, arity, cost
// typing, the moments it may be read in), the validator checks an IR's
// function against its op and arity, the interpreter evaluates a pure
// function with its Eval, the language server's hover says its Doc, and
// docs/language.md's tables are written from them (BuiltinTable,
// OperatorTable; `go test ./model -update` rewrites them). Adding a
// built-in is one entry here (and, for a new kind of read, its
// evaluation in the interpreter): CONTRIBUTING.md shows it, and a test of
// each consumer fails until it is known there: lang's TestBuiltinsLowered,
// interp's TestBuiltinsEvaluated and TestEvalAgreesWithModel, lsp's
// TestBuiltinDocs and model's TestLanguageDocTables.

// BuiltinKind is what kind of name a built-in is.
type BuiltinKind uint8

const (
	KFunction   BuiltinKind = iota // a pure function, f(x, …): folded when its arguments are constants
	KDraw                          // a distribution, ~f(…): a fresh sample at each evaluation
	KObservable                    // a stage or pool observable, f(s) or f(p): the deployment's state now
	KAggregate                     // an observation aggregate, f(o): read only in `claim … at end`
	KForm                          // a form of its own: cost, budget_left, blocksize, up
	KQuery                         // a debugger observable, read only in serq tui's break and watch expressions
	KQueryOnly                     // a debugger built-in known only in a debugger expression: elsewhere the name is free
	KContext                       // a context variable (Ctx), read in the moments that define it
	KAttribute                     // a built-in session attribute
	KConstant                      // inf, self
)

var builtinKindNames = [...]string{"pure function", "distribution", "observable", "observation aggregate", "form",
	"debugger observable", "debugger built-in", "context variable", "attribute", "constant"}

func (k BuiltinKind) String() string { return builtinKindNames[k] }

// Builtin describes one predefined name.
type Builtin struct {
	Name string
	Kind BuiltinKind
	// Op and Fn are the expression node a call lowers to (an observable's
	// Op says a stage's or a pool's; a function's and a distribution's is
	// set from its kind); zero for the other kinds. A pure
	// function or distribution whose Fn is zero here gets one of its own
	// (funcInfo); the others are named by a constant, which the
	// interpreter's code reads. Ctx is a context variable's slot.
	Op  ExprOp
	Fn  Func
	Ctx Ctx
	// Params name the arguments as the docs write them; Variadic says the
	// first may repeat (cost's resources).
	Params   []string
	Variadic bool
	// KeepsCost says that a pure function's value has its arguments' cost
	// type (docs/language.md §6.6); the others' value is a bare number.
	KeepsCost bool
	// Doc is what it means, one line of Markdown.
	Doc string
	// Eval is a pure function's value (b unread for one argument): the
	// constant folder's and the interpreter's one semantics.
	Eval func(a, b float64) float64
}

// Debugger reports a debugger built-in (KQuery, KQueryOnly): no part of
// a program, read only in serq tui's expressions.
func (b *Builtin) Debugger() bool { return b.Kind == KQuery || b.Kind == KQueryOnly }

// Arity is the number of arguments a call takes (the least, if variadic).
func (b *Builtin) Arity() int { return len(b.Params) }

// Signature is the built-in as a program writes it: `min(a, b)`,
// `~uniform(lo, hi)`, `now`.
func (b *Builtin) Signature() string {
	switch b.Kind {
	case KContext, KAttribute, KConstant:
		return b.Name
	}
	args := strings.Join(b.Params, ", ")
	if b.Variadic {
		args = b.Params[0] + ", …, " + strings.Join(b.Params[1:], ", ")
	}
	name := b.Name
	if b.Kind == KDraw {
		name = "~" + name
	}
	return name + "(" + args + ")"
}

// Predeclared are every predefined name, in the order of docs/language.md's
// tables. A name may stand twice under different kinds (`exp`, `count`).
var Predeclared = []Builtin{
	{Name: "min", Kind: KFunction, Fn: FMin, Params: []string{"a", "b"}, KeepsCost: true, Doc: "the smaller (as math.Min: NaN if either is)", Eval: math.Min},
	{Name: "max", Kind: KFunction, Fn: FMax, Params: []string{"a", "b"}, KeepsCost: true, Doc: "the larger (as math.Max: NaN if either is)", Eval: math.Max},
	{Name: "abs", Kind: KFunction, Fn: FAbs, Params: []string{"x"}, KeepsCost: true, Doc: "|x|", Eval: unary(math.Abs)},
	{Name: "floor", Kind: KFunction, Fn: FFloor, Params: []string{"x"}, KeepsCost: true, Doc: "the greatest whole number ≤ x", Eval: unary(math.Floor)},
	{Name: "ceil", Kind: KFunction, Fn: FCeil, Params: []string{"x"}, KeepsCost: true, Doc: "the least whole number ≥ x", Eval: unary(math.Ceil)},
	{Name: "sqrt", Kind: KFunction, Fn: FSqrt, Params: []string{"x"}, Doc: "the square root of x", Eval: unary(math.Sqrt)},
	{Name: "exp", Kind: KFunction, Fn: FExp, Params: []string{"x"}, Doc: "e to the power x", Eval: unary(math.Exp)},
	{Name: "ln", Kind: KFunction, Fn: FLn, Params: []string{"x"}, Doc: "the natural logarithm of x", Eval: unary(math.Log)},
	{Name: "pow", Kind: KFunction, Fn: FPow, Params: []string{"x", "y"}, Doc: "x to the power y (as `x ^ y`)", Eval: math.Pow},

	{Name: "exp", Kind: KDraw, Fn: DExp, Params: []string{"mean"}, Doc: "exponential with the given **mean**"},
	{Name: "det", Kind: KDraw, Fn: DDet, Params: []string{"x"}, Doc: "x"},
	{Name: "uniform", Kind: KDraw, Fn: DUniform, Params: []string{"lo", "hi"}, Doc: "lo + (hi − lo)·U"},
	{Name: "erlang", Kind: KDraw, Fn: DErlang, Params: []string{"k", "mean"}, Doc: "the sum of max(1, ⌊k⌋) exponentials, of total mean `mean`"},
	{Name: "h2", Kind: KDraw, Fn: DH2, Params: []string{"mean", "cv2"}, Doc: "a two-phase hyperexponential with that mean and squared coefficient of variation (at least 1)"},
	{Name: "bernoulli", Kind: KDraw, Fn: DBernoulli, Params: []string{"p"}, Doc: "1 with probability p, else 0"},

	{Name: "queue", Kind: KObservable, Op: EStage, Fn: SQueue, Params: []string{"s"}, Doc: "jobs present at stage s"},
	{Name: "busy", Kind: KObservable, Op: EStage, Fn: SBusy, Params: []string{"s"}, Doc: "jobs in service at stage s"},
	{Name: "work", Kind: KObservable, Op: EStage, Fn: SWork, Params: []string{"s"}, Doc: "unfinished work at stage s (not in gauges)"},
	{Name: "est_lambda", Kind: KObservable, Op: EStage, Fn: SEstLambda, Params: []string{"s"}, Doc: "stage s's measured arrival rate so far"},
	{Name: "est_rho", Kind: KObservable, Op: EStage, Fn: SEstRho, Params: []string{"s"}, Doc: "stage s's measured utilisation so far"},
	{Name: "est_wait", Kind: KObservable, Op: EStage, Fn: SEstWait, Params: []string{"s"}, Doc: "stage s's measured mean wait so far"},
	{Name: "used", Kind: KObservable, Op: EPool, Fn: PUsed, Params: []string{"p"}, Doc: "units allocated in pool p"},
	{Name: "free", Kind: KObservable, Op: EPool, Fn: PFree, Params: []string{"p"}, Doc: "cap − used of pool p"},
	{Name: "cachedin", Kind: KObservable, Op: EPool, Fn: PCachedIn, Params: []string{"p"}, Doc: "this session's own cached units in pool p (in statements and hold headers)"},
	{Name: "holders", Kind: KObservable, Op: EPool, Fn: PHolders, Params: []string{"p"}, Doc: "sessions holding pool p"},
	{Name: "queued", Kind: KObservable, Op: EPool, Fn: PQueued, Params: []string{"p"}, Doc: "holds waiting in pool p's queue"},

	{Name: "budget_left", Kind: KForm, Op: EBudget, Params: []string{"E"}, Doc: "the tokens engine E has left for admissions in its iteration"},
	{Name: "blocksize", Kind: KForm, Params: []string{"p"}, Doc: "pool p's declared `block`, a constant"},
	{Name: "up", Kind: KForm, Op: EUp, Params: []string{"Q[i]"}, Doc: "1 while queue member Q[i] is up (in a gateway with a `picture`, as the router sees it)"},
	{Name: "cost", Kind: KForm, Params: []string{"R", "e"}, Variadic: true, Doc: "e, typed as a cost of resources R"},

	{Name: "total", Kind: KAggregate, Op: EObsAgg, Fn: CTotal, Params: []string{"o"}, Doc: "the sum of observe o's samples"},
	{Name: "count", Kind: KAggregate, Op: EObsAgg, Fn: CCount, Params: []string{"o"}, Doc: "observe o's samples"},
	{Name: "largest", Kind: KAggregate, Op: EObsAgg, Fn: CLargest, Params: []string{"o"}, Doc: "observe o's largest sample"},
	{Name: "smallest", Kind: KAggregate, Op: EObsAgg, Fn: CSmallest, Params: []string{"o"}, Doc: "observe o's smallest sample"},
	{Name: "prefix_total", Kind: KAggregate, Op: EObsAgg, Fn: CPrefixTotal, Params: []string{"o"}, Doc: "the sum of the prefix sums of observe o's samples in ascending order"},

	{Name: "leases", Kind: KQuery, Op: EPool, Fn: PLeases, Params: []string{"p"}, Doc: "pool p's live leases"},
	{Name: "oldest_lease", Kind: KQuery, Op: EPool, Fn: PLeaseAge, Params: []string{"p"}, Doc: "the age of pool p's oldest live lease, 0 if none"},
	{Name: "expired", Kind: KQuery, Op: EPool, Fn: PExpired, Params: []string{"p"}, Doc: "pool p's leases that expired so far"},
	{Name: "late_reads", Kind: KQuery, Op: EPool, Fn: PLate, Params: []string{"p"}, Doc: "reads of pool p's leases after they expired, so far"},
	{Name: "parked", Kind: KQueryOnly, Op: EPool, Fn: PParked, Params: []string{"p"}, Doc: "holders of pool p that are not residents of its engine"},
	{Name: "preempted", Kind: KQueryOnly, Op: EPool, Fn: PPreempted, Params: []string{"p"}, Doc: "requests pool p preempted since t = 0 (warm-up or not)"},
	{Name: "evicted", Kind: KQueryOnly, Op: EPool, Fn: PEvicted, Params: []string{"p"}, Doc: "cache entries evicted from pool p since t = 0"},
	{Name: "leased", Kind: KQueryOnly, Op: EPool, Fn: PLeased, Params: []string{"p"}, Doc: "units of pool p held by live leases"},
	{Name: "running", Kind: KQueryOnly, Op: EStage, Fn: SRunning, Params: []string{"E"}, Doc: "engine E's residents (another stage: its jobs in service)"},
	{Name: "waiting", Kind: KQueryOnly, Op: EStage, Fn: SWaiting, Params: []string{"E"}, Doc: "requests queued at the pools engine E admits (another stage: its jobs waiting)"},
	{Name: "mean", Kind: KQueryOnly, Op: EObsAgg, Fn: OMean, Params: []string{"o"}, Doc: "observe o's running mean (after the warm-up), NaN before a sample"},
	{Name: "count", Kind: KQueryOnly, Op: EObsAgg, Fn: OCount, Params: []string{"o"}, Doc: "observe o's samples (after the warm-up)"},
	{Name: "last", Kind: KQueryOnly, Op: EObsAgg, Fn: OLast, Params: []string{"o"}, Doc: "observe o's last sample (after the warm-up), NaN before one"},

	{Name: "now", Kind: KContext, Ctx: CtxNow, Doc: "the simulated time: everywhere but gauges, a claim's `given`, `only` predicates and schedule guards"},
	{Name: "waited", Kind: KContext, Ctx: CtxWaited, Doc: "a pool's `queue by` keys: time since the hold joined the queue"},
	{Name: "size", Kind: KContext, Ctx: CtxSize, Doc: "`evict by` keys and `spill`: the entry's units"},
	{Name: "age", Kind: KContext, Ctx: CtxAge, Doc: "`evict by` keys and `spill`: time since the entry was released"},
	{Name: "last", Kind: KContext, Ctx: CtxLast, Doc: "`evict by` keys and `spill`: when the entry was released"},
	{Name: "waiting", Kind: KContext, Ctx: CtxWaiting, Doc: "`evict by` keys and `spill`: whether the entry's owner waits"},
	{Name: "present", Kind: KContext, Ctx: CtxPresent, Doc: "a `ps` capacity: the jobs present"},
	{Name: "decoding", Kind: KContext, Ctx: CtxDecoding, Doc: "`preempt by` keys and engine keys: 1 for a decode run"},
	{Name: "position", Kind: KContext, Ctx: CtxPosition, Doc: "`preempt by` keys: the hold's computed position"},
	{Name: "admission", Kind: KContext, Ctx: CtxAdmission, Doc: "`preempt by` keys and engine keys: the admission sequence"},
	{Name: "remaining", Kind: KContext, Ctx: CtxRemaining, Doc: "engine keys: the run's tokens left"},
	{Name: "running.count", Kind: KContext, Ctx: CtxRunningCount, Doc: "engine: its residents"},
	{Name: "running.decoding", Kind: KContext, Ctx: CtxRunningDecoding, Doc: "engine: its residents decoding"},
	{Name: "running.kv_decode", Kind: KContext, Ctx: CtxRunningKVDecode, Doc: "engine: memory the decoding residents hold"},
	{Name: "running.kv_prefill", Kind: KContext, Ctx: CtxRunningKVPrefill, Doc: "engine: memory the prefilling residents hold"},
	{Name: "running.preempted", Kind: KContext, Ctx: CtxRunningPreempted, Doc: "engine: preemptions so far in this iteration"},
	{Name: "waiting.count", Kind: KContext, Ctx: CtxWaitingCount, Doc: "engine: holds queued at the pools it admits"},
	{Name: "waiting.admitted", Kind: KContext, Ctx: CtxWaitingAdmitted, Doc: "engine: admissions so far in this iteration"},
	{Name: "batch.tokens", Kind: KContext, Ctx: CtxBatchTokens, Doc: "engine: tokens scheduled so far"},
	{Name: "batch.prefilled", Kind: KContext, Ctx: CtxBatchPrefilled, Doc: "engine: prefill tokens scheduled so far"},
	{Name: "batch.decoding", Kind: KContext, Ctx: CtxBatchDecoding, Doc: "engine `execute`: decode runs in the batch"},
	{Name: "batch.kv_decode", Kind: KContext, Ctx: CtxBatchKVDecode, Doc: "engine `execute`: memory the batch's decodes hold"},
	{Name: "batch.kv_prefill", Kind: KContext, Ctx: CtxBatchKVPrefill, Doc: "engine `execute`: memory the batch's prefills hold"},
	{Name: "batch.attention", Kind: KContext, Ctx: CtxBatchAttention, Doc: "engine `execute`: Σ n·(K + n/2) over the prefill chunks"},
	{Name: "batch.count", Kind: KContext, Ctx: CtxBatchCount, Doc: "engine `execute`: the requests in the batch"},
	{Name: "batch.position", Kind: KContext, Ctx: CtxBatchPosition, Doc: "engine `execute`: Σ K·n over the prefill chunks (K the position before the chunk)"},
	{Name: "batch.context_decode", Kind: KContext, Ctx: CtxBatchContextDecode, Doc: "engine `execute`: Σ of the batch's decodes' positions, the tokens of KV they read"},
	{Name: "batch.context_prefill", Kind: KContext, Ctx: CtxBatchContextPrefill, Doc: "engine `execute`: Σ of the positions before the batch's prefill chunks, the tokens of KV they read"},
	{Name: "demand", Kind: KContext, Ctx: CtxDemand, Doc: "iteration claims: the tokens the residents could take in this iteration (a prefill what it has left, a decode one)"},
	{Name: "served", Kind: KContext, Ctx: CtxServed, Doc: "iteration claims: the tokens of the iterations that ended so far"},
	{Name: "arrived", Kind: KContext, Ctx: CtxArrived, Doc: "iteration claims: the sessions started so far, one arriving at that instant included"},

	{Name: "serial", Kind: KAttribute, Doc: "the session's arrival order, from 0"},
	{Name: "turn_no", Kind: KAttribute, Doc: "turns so far"},
	{Name: "cached", Kind: KAttribute, Doc: "what the last admission took from the session's own prefix"},
	{Name: "computed", Kind: KAttribute, Doc: "the position a preempted hold had reached"},
	{Name: "more", Kind: KAttribute, Doc: "1 while a trace session has another turn (or whatever the program sets)"},
	{Name: "new", Kind: KAttribute, Doc: "with a trace: the turn's new tokens"},
	{Name: "out", Kind: KAttribute, Doc: "with a trace: the turn's output tokens"},
	{Name: "think", Kind: KAttribute, Doc: "with a trace: the think time before the turn"},
	{Name: "forced", Kind: KAttribute, Doc: "with a trace: the trace's forced column"},

	{Name: "inf", Kind: KConstant, Doc: "infinity"},
	{Name: "self", Kind: KConstant, Doc: "the queue member's index, inside a queue"},
}

func unary(f func(float64) float64) func(a, b float64) float64 {
	return func(a, _ float64) float64 { return f(a) }
}

// numNamed counts the Funcs named by a constant (expr.go).
const numNamed = int(OLast) + 1

// funcInfo is each Func's entry of Predeclared, funcNames their names:
// the named Funcs first, then, in table order, a Func for each pure
// function or distribution of the table that no constant names (Fn zero:
// a new one needs no constant, its value is its table entry's).
var funcInfo, funcNames = func() ([]*Builtin, []string) {
	info := make([]*Builtin, numNamed)
	for i := range Predeclared {
		b := &Predeclared[i]
		switch {
		case b.Fn != FNone && info[b.Fn] != nil:
			panic(fmt.Sprintf("model: Predeclared has Func %d twice (%s and %s)", b.Fn, info[b.Fn].Name, b.Name))
		case b.Fn != FNone:
			info[b.Fn] = b
		case b.Kind == KFunction || b.Kind == KDraw:
			b.Fn = Func(len(info))
			info = append(info, b)
		}
		switch {
		case b.Kind == KFunction:
			b.Op = EFunc
		case b.Kind == KDraw:
			b.Op = EDraw
		}
	}
	names := make([]string, len(info))
	for f := FNone + 1; int(f) < len(info); f++ {
		if info[f] == nil {
			panic(fmt.Sprintf("model: Func %d has no entry in Predeclared", f))
		}
		names[f] = info[f].Name
	}
	if len(info) > 64 {
		panic("model: more than 64 Funcs: Reads.Fns holds a bit for each")
	}
	return info, names
}()

// Info is f's entry of Predeclared (nil for FNone or no Func).
func (f Func) Info() *Builtin {
	if f <= FNone || int(f) >= len(funcInfo) {
		return nil
	}
	return funcInfo[f]
}

// Operator describes one expression op: its IR name, how a program
// writes it and how it binds (operators only), its operands, whether it is
// pure, and what it means.
type Operator struct {
	Op   ExprOp
	Name string // the IR's name
	// Symbol is the operator as written (`+`, `c ? a : b`); "" for a node
	// that is no operator. Prec is its binding, lowest first.
	Symbol string
	Prec   int
	// Args is the operands it takes; -1 where its Fn's arity decides.
	Args int
	// Fn is the kind of function the op applies (its Fn's Op is this op);
	// false for an op without a function.
	Fn bool
	// Ref says that the op reads a resource or a queue member (Expr.Ref).
	Ref bool
	// Pure says that the node's value is a function of its operands'
	// values alone: numbers, operators and pure functions. A fast path
	// may take an expression of pure nodes over inputs it watches.
	Pure bool
	Doc  string
}

// Operators are every ExprOp, in ExprOp order.
var Operators = [...]Operator{
	ENum:    {Op: ENum, Name: "num", Pure: true, Doc: "a number"},
	EAttr:   {Op: EAttr, Name: "attr", Doc: "a session attribute"},
	ECtx:    {Op: ECtx, Name: "ctx", Doc: "a context variable"},
	EReg:    {Op: EReg, Name: "reg", Doc: "an engine's register"},
	ENeg:    {Op: ENeg, Name: "neg", Symbol: "-x", Prec: 7, Args: 1, Pure: true, Doc: "prefix, as is a draw `~dist(…)`"},
	ENot:    {Op: ENot, Name: "not", Symbol: "!x", Prec: 7, Args: 1, Pure: true, Doc: "prefix; 1 if x is 0, else 0"},
	EAdd:    {Op: EAdd, Name: "+", Symbol: "+", Prec: 5, Args: 2, Pure: true, Doc: "left-associative"},
	ESub:    {Op: ESub, Name: "-", Symbol: "-", Prec: 5, Args: 2, Pure: true, Doc: "left-associative"},
	EMul:    {Op: EMul, Name: "*", Symbol: "*", Prec: 6, Args: 2, Pure: true, Doc: "left-associative"},
	EDiv:    {Op: EDiv, Name: "/", Symbol: "/", Prec: 6, Args: 2, Pure: true, Doc: "left-associative"},
	EPow:    {Op: EPow, Name: "^", Symbol: "^", Prec: 8, Args: 2, Pure: true, Doc: "power, right-associative, binding tighter than prefix minus: `-2^2` is −4, `2^-1` is 0.5"},
	ELt:     {Op: ELt, Name: "<", Symbol: "<", Prec: 4, Args: 2, Pure: true, Doc: "yields 0 or 1; not associative (`a < b < c` is a syntax error)"},
	ELe:     {Op: ELe, Name: "<=", Symbol: "<=", Prec: 4, Args: 2, Pure: true, Doc: "yields 0 or 1; not associative"},
	EGt:     {Op: EGt, Name: ">", Symbol: ">", Prec: 4, Args: 2, Pure: true, Doc: "yields 0 or 1; not associative"},
	EGe:     {Op: EGe, Name: ">=", Symbol: ">=", Prec: 4, Args: 2, Pure: true, Doc: "yields 0 or 1; not associative"},
	EEq:     {Op: EEq, Name: "==", Symbol: "==", Prec: 4, Args: 2, Pure: true, Doc: "yields 0 or 1; not associative"},
	ENe:     {Op: ENe, Name: "!=", Symbol: "!=", Prec: 4, Args: 2, Pure: true, Doc: "yields 0 or 1; not associative"},
	EAnd:    {Op: EAnd, Name: "&&", Symbol: "&&", Prec: 3, Args: 2, Pure: true, Doc: "short-circuit; yields 0 or 1"},
	EOr:     {Op: EOr, Name: "||", Symbol: "||", Prec: 2, Args: 2, Pure: true, Doc: "short-circuit; yields 0 or 1"},
	ECond:   {Op: ECond, Name: "?:", Symbol: "c ? a : b", Prec: 1, Args: 3, Pure: true, Doc: "right-associative; lazy (only the chosen side is evaluated)"},
	EFunc:   {Op: EFunc, Name: "func", Args: -1, Fn: true, Pure: true, Doc: "a pure function of its arguments"},
	EDraw:   {Op: EDraw, Name: "draw", Args: -1, Fn: true, Doc: "a distribution's sample"},
	EStage:  {Op: EStage, Name: "stage", Fn: true, Ref: true, Doc: "a stage's observable"},
	EPool:   {Op: EPool, Name: "pool", Fn: true, Ref: true, Doc: "a pool's observable"},
	EBudget: {Op: EBudget, Name: "budget_left", Ref: true, Doc: "an engine's budget left"},
	EObsAgg: {Op: EObsAgg, Name: "observations", Fn: true, Doc: "an aggregate of an observe's samples"},
	EUp:     {Op: EUp, Name: "up", Ref: true, Doc: "a queue member's state"},
	ESeen:   {Op: ESeen, Name: "seen", Args: 1, Doc: "an observable as a router's picture shows it"},
}

// Info is o's entry of Operators.
func (o ExprOp) Info() *Operator { return &Operators[o] }

// Pure reports whether o's node is a function of its operands alone.
func (o ExprOp) Pure() bool { return o >= 0 && int(o) < len(Operators) && Operators[o].Pure }
