package model

import (
	"math"
	"strconv"
)

// ExprOp is an expression node kind.
type ExprOp int

const (
	ENum  ExprOp = iota // Num
	EAttr               // session attribute Slot
	ECtx                // context variable Slot (a Ctx value)
	EReg                // engine register Slot of engine stage Ref
	ENeg                // -Args[0]
	ENot                // !Args[0]
	EAdd
	ESub
	EMul
	EDiv
	EPow
	ELt
	ELe
	EGt
	EGe
	EEq
	ENe
	EAnd    // short-circuit
	EOr     // short-circuit
	ECond   // Args[0] ? Args[1] : Args[2], lazy
	EFunc   // pure function Fn over Args
	EDraw   // distribution Fn over Args
	EStage  // stage observable Fn of Ref
	EPool   // pool observable Fn of Ref
	EBudget // budget_left(Ref), Ref an engine's stage
	EObsAgg // observation aggregate Fn over observe Slot (claims at end)
	EUp     // up(Q[i]): 1 while queue member Ref is up (Ref.Fam is the queue)
	ESeen   // Args[0], an observable, as picture Slot shows it
)

// exprOpNames are the ops' IR names (Operators).
var exprOpNames = func() (names [len(Operators)]string) {
	for i, o := range Operators {
		names[i] = o.Name
	}
	return names
}()

func (o ExprOp) String() string { return Operators[o].Name }

func (o ExprOp) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Func identifies a pure function, a distribution or an observable; each
// has its entry in Predeclared (builtin.go), which names and describes it.
type Func int

const (
	FNone Func = iota // no function (the zero value, omitted from the IR)
	FMin
	FMax
	FAbs
	FFloor
	FCeil
	FSqrt
	FExp
	FLn
	FPow

	DExp
	DDet
	DUniform
	DErlang
	DH2
	DBernoulli

	SQueue
	SBusy
	SWork
	SEstLambda
	SEstRho
	SEstWait

	PUsed
	PFree
	PCachedIn
	PHolders
	PQueued

	CTotal
	CCount
	CLargest
	CSmallest
	CPrefixTotal

	// Debugger built-ins, read only in `serq tui`'s break and watch
	// expressions (lang.CompileQuery), never in a program.
	PLeases   // live leases of a pool
	PLeaseAge // age of a pool's oldest live lease, 0 if none
	PExpired  // leases of a pool that expired so far
	PLate     // reads of a pool's leases after they expired, so far
	// The counts serq tui's panes show, as built-ins of the same names.
	PParked    // holders of a pool that are not residents of its engine
	PPreempted // requests a pool preempted since t = 0 (warm-up or not)
	PEvicted   // cache entries evicted from a pool since t = 0
	PLeased    // units of a pool held by live leases
	SRunning   // an engine's residents (another stage: jobs in service)
	SWaiting   // requests queued at the pools an engine admits (another stage: jobs waiting)
	OMean      // an observe's running mean (after warm-up), NaN before a sample
	OCount     // an observe's samples (after warm-up)
	OLast      // an observe's last sample (after warm-up), NaN before one
)

// String is f's name (Predeclared).
func (f Func) String() string { return funcNames[f] }

func (f Func) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Ctx is a context variable.
type Ctx int

const (
	CtxNow Ctx = iota
	CtxWaited
	CtxSize
	CtxAge
	CtxLast
	CtxWaiting
	CtxPresent
	CtxDecoding
	CtxPosition
	CtxAdmission
	CtxRemaining
	CtxRunningCount
	CtxRunningDecoding
	CtxRunningKVDecode
	CtxRunningKVPrefill
	CtxRunningPreempted
	CtxWaitingCount
	CtxWaitingAdmitted
	CtxBatchTokens
	CtxBatchPrefilled
	CtxBatchDecoding
	CtxBatchKVDecode
	CtxBatchKVPrefill
	CtxBatchAttention
	CtxDemand
	CtxServed
	CtxArrived
	// The batch's request count and exact-token reads (after the older ones,
	// so that their IR slots stay where they were).
	CtxBatchCount
	CtxBatchPosition
	CtxBatchContextDecode
	CtxBatchContextPrefill
	NumCtx
)

// CtxNames are the source spellings of the context variables.
var CtxNames = [...]string{"now", "waited", "size", "age", "last", "waiting", "present", "decoding",
	"position", "admission", "remaining", "running.count", "running.decoding", "running.kv_decode",
	"running.kv_prefill", "running.preempted", "waiting.count", "waiting.admitted", "batch.tokens",
	"batch.prefilled", "batch.decoding", "batch.kv_decode", "batch.kv_prefill", "batch.attention",
	"demand", "served", "arrived", "batch.count", "batch.position", "batch.context_decode", "batch.context_prefill"}

func (c Ctx) String() string { return CtxNames[c] }

// Expr is an expression node.
type Expr struct {
	Op   ExprOp  `json:"op"`
	Num  float64 `json:"-"`
	Slot int     `json:"slot,omitempty"`
	Fn   Func    `json:"fn,omitempty"`
	Ref  *Ref    `json:"ref,omitempty"`
	Args []*Expr `json:"args,omitempty"`
	Name string  `json:"name,omitempty"` // the source name, for reading the IR
}

// MarshalJSON prints numbers in the shortest round-trip form and non-finite
// values as strings, which encoding/json cannot do for float fields.
func (e *Expr) MarshalJSON() ([]byte, error) {
	type plain Expr
	b, err := jsonMarshal((*plain)(e))
	if err != nil || e.Op != ENum {
		return b, err
	}
	// Splice "num":… in after the opening brace.
	num := formatNum(e.Num)
	out := make([]byte, 0, len(b)+len(num)+8)
	out = append(out, '{')
	out = append(out, `"num":`...)
	out = append(out, num...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	out = append(out, b[1:]...)
	return out, nil
}

func formatNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return `"NaN"`
	case math.IsInf(x, 1):
		return `"inf"`
	case math.IsInf(x, -1):
		return `"-inf"`
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Num returns a constant expression.
func Num(x float64) *Expr { return &Expr{Op: ENum, Num: x} }

// IsConst reports whether e is a constant and its value.
func (e *Expr) IsConst() (float64, bool) {
	if e != nil && e.Op == ENum {
		return e.Num, true
	}
	return 0, false
}

// Walk calls f on e and every sub-expression, depth first, stopping early
// when f returns false.
func (e *Expr) Walk(f func(*Expr) bool) bool {
	if e == nil {
		return true
	}
	if !f(e) {
		return false
	}
	if e.Ref != nil && !e.Ref.Index.Walk(f) {
		return false
	}
	for _, a := range e.Args {
		if !a.Walk(f) {
			return false
		}
	}
	return true
}
