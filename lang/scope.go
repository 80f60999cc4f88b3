package lang

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Scopes: the moment an expression is evaluated at, which decides what it
// may read, and the names bound where it is lowered.

// moment is when an expression is evaluated; it decides which context
// variables, attributes and observables it may read (docs/language.md §6.5).
type moment int

const (
	momConst     moment = iota // let, cap, block, counts
	momSession                 // statements of session, server and entries
	momInitTurn                // workload init/turn blocks
	momAdmit                   // hold units, reserve, reuse, bindings
	momSelect                  // pool `queue by` keys
	momEvict                   // pool `evict by` keys
	momPs                      // ps capacity
	momPreempt                 // pool `preempt by` keys
	momEngBudget               // an engine's `tokens cap`
	momEngKeys                 // `only`, `by`, `each at most`
	momEngGuard                // schedule branch/while/set
	momEngCost                 // execute
	momGauge                   // gauges
	momClaim                   // claims
	momQuery                   // a debugger's break or watch expression (query.go)
	momSpill                   // a pool's `spill` work and `when`
)

var momentNames = [...]string{"a constant", "a statement", "the workload's init/turn", "a hold's header",
	"a pool's `queue by` keys", "a pool's `evict by` keys", "a ps capacity", "a pool's `preempt by` keys",
	"an engine's `tokens cap`", "a schedule's `only`/`by`/`each at most`", "a schedule's guard",
	"an engine's `execute`", "a gauge", "a claim", "a debugger expression", "a pool's `spill`"}

// ctxAllowed lists, per moment, the context variables it may read.
var ctxAllowed = map[moment][]model.Ctx{
	momSession:   {model.CtxNow},
	momInitTurn:  {model.CtxNow},
	momAdmit:     {model.CtxNow},
	momSelect:    {model.CtxNow, model.CtxWaited},
	momEvict:     {model.CtxNow, model.CtxSize, model.CtxAge, model.CtxLast, model.CtxWaiting},
	momSpill:     {model.CtxNow, model.CtxSize, model.CtxAge, model.CtxLast, model.CtxWaiting},
	momPs:        {model.CtxNow, model.CtxPresent},
	momPreempt:   {model.CtxNow, model.CtxDecoding, model.CtxPosition, model.CtxAdmission},
	momEngBudget: {model.CtxNow, model.CtxRunningCount, model.CtxWaitingCount, model.CtxRunningDecoding, model.CtxRunningKVDecode, model.CtxRunningKVPrefill},
	momEngKeys: {model.CtxRunningCount, model.CtxWaitingCount, model.CtxRunningDecoding, model.CtxRunningKVDecode, model.CtxRunningKVPrefill,
		model.CtxDecoding, model.CtxAdmission, model.CtxRemaining},
	momEngGuard: {model.CtxRunningCount, model.CtxWaitingCount, model.CtxRunningDecoding, model.CtxRunningKVDecode, model.CtxRunningKVPrefill,
		model.CtxRunningPreempted, model.CtxWaitingAdmitted, model.CtxBatchTokens, model.CtxBatchPrefilled},
	momEngCost: {model.CtxNow, model.CtxRunningCount, model.CtxWaitingCount, model.CtxBatchTokens, model.CtxBatchPrefilled, model.CtxBatchDecoding,
		model.CtxBatchKVDecode, model.CtxBatchKVPrefill, model.CtxBatchAttention, model.CtxBatchCount, model.CtxBatchPosition,
		model.CtxBatchContextDecode, model.CtxBatchContextPrefill},
	momQuery: {model.CtxNow},
	momClaim: {model.CtxNow, model.CtxDemand, model.CtxServed, model.CtxArrived, model.CtxRunningCount, model.CtxWaitingCount, model.CtxBatchTokens,
		model.CtxBatchPrefilled, model.CtxBatchDecoding, model.CtxBatchKVDecode, model.CtxBatchKVPrefill, model.CtxBatchAttention,
		model.CtxBatchCount, model.CtxBatchPosition, model.CtxBatchContextDecode, model.CtxBatchContextPrefill},
}

func (m moment) readsAttrs() bool {
	switch m {
	case momSession, momInitTurn, momAdmit, momSelect, momEvict, momSpill, momPreempt, momClaim:
		return true
	}
	return false
}

func (m moment) scheduler() bool {
	switch m {
	case momAdmit, momSelect, momEvict, momSpill, momPs, momPreempt, momEngBudget, momEngKeys, momEngGuard, momEngCost:
		return true
	}
	return false
}

// draws reports whether an expression of the moment may draw: statements,
// the workload, and the machine's own quantities (an engine's `tokens cap`
// and `execute`, a ps capacity), which draw from the machine stream
// (docs/language.md §6.4 and §8).
func (m moment) draws() bool {
	switch m {
	case momSession, momInitTurn, momEngBudget, momEngCost, momPs:
		return true
	}
	return false
}

// noDrawWhy says why a moment may not draw.
var noDrawWhy = map[moment]string{
	momConst:    "a constant is folded once, before the run",
	momAdmit:    "a header is read again at each admission attempt",
	momSelect:   "keys are read again before each admission attempt",
	momEvict:    "keys are read again at each eviction",
	momSpill:    "a spill is read again at each eviction",
	momPreempt:  "keys are read again at each preemption",
	momEngKeys:  "a schedule's predicates and keys are read again for every request",
	momEngGuard: "a schedule's guards are read at every iteration",
	momGauge:    "a gauge samples the deployment's state",
	momClaim:    "a claim checks the run, it does not draw",
	momQuery:    "a debugger expression watches the run, it does not draw",
}

func (m moment) observables() bool { return m != momConst && m != momPs }

// binding is a name bound in a scope: a value lowered once (aggregate
// index, `self`, entry parameter, admission binding), or a def argument
// lowered at each read in the caller's scope.
type binding struct {
	val   *model.Expr
	typ   typ
	ast   *syntax.Expr
	sc    *scope
	reads int
	pos   lexer.Position
	body  bool // an admission binding: an attribute once the hold's body reads it
	// kind and decl say what declares the name and where, for
	// Options.Bindings: a def's or an entry's parameter, a schedule's let
	kind string
	decl lexer.Position
	attr string // the attribute's name
	slot int    // its slot, once read
	used bool
	// refuse, when set, is the error a read of the name gets: a name
	// that is in scope but not readable here
	refuse string
}

type vars struct {
	m  map[string]*binding
	up *vars
}

func (v *vars) lookup(name string) *binding {
	for ; v != nil; v = v.up {
		if b, ok := v.m[name]; ok {
			return b
		}
	}
	return nil
}

// scope is what lowering knows at a point of the program.
type scope struct {
	l    *lowerer
	mom  moment
	vars *vars

	side      side
	q         *queueDecl  // inside an entry or a queue's declarations
	self      *model.Expr // member index inside an entry
	from      *fromInfo   // the source of a `from` entry
	entry     *syntax.EntryItem
	eng       *engineDecl // engine clauses
	member    int
	holds     []*heldPool
	inFork    bool
	preemptBy string // inside a hold that may be preempted: the pool that may, as written
	noCache   bool   // inside a hold without `cache`: `cached` is 0 there
	// cachedAfter, inside a hold's body, is set to the first pool of an
	// inner hold once one has been lowered (or may run before, in a loop):
	// `cached` then reads that admission's, not the hold's (#237).
	cachedAfter *string
	cachedIn    string // the pool of the hold whose body this is
	atEnd       bool   // a claim read at the end: observation aggregates
	depth       int    // def/entry expansion depth, against runaway recursion
	call        int    // inside an inlined entry or statement def: 1 + its index in prog.Calls
	draws       *bool
	defStack    []string
	family      bool // resolving `cost(R, …)`: a family needs no index
	// picture, inside a gateway's entry, is 1 + its picture's index:
	// observables read it (seen, faults.go); 0 = the deployment itself
	picture int
}

type side int

const (
	sideNone side = iota
	sideClient
	sideServer
	sideEntry
	sideInitTurn
)

type fromInfo struct {
	name string
	q    *queueDecl
	idx  *model.Expr
}

type heldPool struct {
	fam  int
	text string // the reference as written, index included
	key  string
	ref  model.Ref
}

// engineOf is "engine `E`: " in a clause of engine E (its `tokens cap`,
// schedule or `execute`), which an error there starts with; else "".
func (sc *scope) engineOf() string {
	switch sc.mom {
	case momEngBudget, momEngKeys, momEngGuard, momEngCost:
		if sc.eng != nil {
			return "engine `" + sc.eng.name + "`: "
		}
	}
	return ""
}

func (sc *scope) child() *scope {
	c := *sc
	c.vars = &vars{m: map[string]*binding{}, up: sc.vars}
	return &c
}

func (sc *scope) bind(name string, b *binding) {
	if sc.vars == nil {
		sc.vars = &vars{m: map[string]*binding{}}
	}
	sc.vars.m[name] = b
}
