// Package model is the lowered serQ program: pure data that the interpreter
// executes and `serq ir` prints as JSON.
//
// The front end (package lang) produces a [Program] in which everything a
// run needs is resolved ahead of time:
//
//   - constants are folded, `args.number` inputs bound, `def`s expanded,
//     aggregates (`max k in ND (…)`) unrolled and `cost(…)` erased (its
//     typing is a static check only);
//   - families (`stage s[N]`, `pool kv[N]`, queue members `D[j]`) are
//     expanded into members stored contiguously, so a reference is a family
//     plus an index expression and the member is First+index;
//   - names are slots: a session attribute is an index into the session's
//     attribute vector, an observe an index into [Program.Observes];
//   - queue entry calls are inlined at their call sites, `mark` is a `set`
//     of the clock, `tool` and `transfer` are lowered to the kernel
//     statements they stand for, and each source `turn;` runs the server
//     block ([Program.Server]) as its body;
//   - engines are step stages with their schedule, budget and cost
//     expressions, the device's time functions inlined.
//
// Nothing here refers to the syntax tree or does I/O; every type marshals to
// JSON with encoding/json, which is what `serq ir` prints.
package model

import "fmt"

// Pos is a source position, as the parser's lexer counts it. Line and Col
// are 1-based; Col counts characters (Unicode code points, a tab is one),
// not bytes. A zero Line means the position is unknown (a run-time failure
// outside any statement, a value set on the command line); Col is then 0 too.
// File is the path the loader read the file with, or a library file's name.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line"` // 1-based; 0: unknown
	Col  int    `json:"col"`  // 1-based, in characters; 0: unknown
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Program is a lowered serQ program.
type Program struct {
	File     string   `json:"file"`
	Inputs   []Input  `json:"inputs"`   // args.number inputs as bound
	Consts   []Const  `json:"consts"`   // folded constants, for reading the IR
	Attrs    []Attr   `json:"attrs"`    // session attribute slots
	Observes []string `json:"observes"` // observe names in declaration order

	StageFams []Family   `json:"stage_families"`
	Stages    []Stage    `json:"stages"`
	PoolFams  []Family   `json:"pool_families"`
	Pools     []Pool     `json:"pools"`
	Engines   []Engine   `json:"engines"` // one per step stage member
	Queues    []Queue    `json:"queues"`
	Relations []Relation `json:"relations"`
	Share     string     `json:"share,omitempty"` // "maxmin" or "bottleneck" when some run is a flow

	Workload Workload `json:"workload"`
	Server   *Block   `json:"server"` // run at every `turn;`; nil with no server

	Gauges []Gauge `json:"gauges"`
	Claims []Claim `json:"claims,omitempty"`

	// Faults are the `faults` block's lines, in source order.
	Faults []Fault `json:"faults,omitempty"`
	// Pictures are the gateways' `picture`s; an ESeen expression names one.
	Pictures []Picture `json:"pictures,omitempty"`

	// Built-in attribute slots, for the interpreter.
	Builtin Builtins `json:"builtins"`
	// Automatic observes (docs/semantics.md, "Requests and their automatic observes"): -1 when the program
	// observes the name itself.
	AutoTTFT     int `json:"auto_ttft"`
	AutoResponse int `json:"auto_response"`

	Blocks int `json:"blocks"` // number of blocks, for `serq check`

	// Calls are the entry calls and statement defs the lowering inlined,
	// for a run error's serQ call stack (Stmt.Call, CallStack). The IR
	// does not record them: a program read from an IR has none.
	Calls []Call `json:"-"`

	// Run holds the run settings `serq ir` was given, if any: a run of
	// the IR uses them where its own flags say nothing.
	Run *RunSettings `json:"run,omitempty"`
}

// Call is one inlined call: of an entry (`D.decode`) or of a statement
// def (`take`), at Pos, made inside the call Caller (1 + its index in
// Program.Calls; 0: from no call).
type Call struct {
	Name   string
	Pos    Pos
	Caller int
}

// CallStack is the call a statement of Stmt.Call call came from and the
// calls around it, innermost first (none for 0).
func (p *Program) CallStack(call int) []Call {
	var out []Call
	for call > 0 && call <= len(p.Calls) && len(out) <= len(p.Calls) {
		c := p.Calls[call-1]
		out = append(out, c)
		call = c.Caller
	}
	return out
}

// RunSettings are a run's settings as recorded in the IR.
type RunSettings struct {
	Horizon  float64 `json:"horizon"`
	Warmup   float64 `json:"warmup"`
	Seed     uint64  `json:"seed"`
	Arrivals uint64  `json:"arrivals,omitempty"` // 0: no limit
}

// Builtins are the slots of the built-in attributes.
type Builtins struct {
	Serial   int `json:"serial"`
	TurnNo   int `json:"turn_no"`
	Cached   int `json:"cached"`
	Computed int `json:"computed"`
	More     int `json:"more"`
	// Failed and Loaded exist in a program that can fail (faults, a
	// timeout, a renewed lease, a read policy, a retry); 0 = none.
	Failed int `json:"failed,omitempty"` // 1 once the turn's request failed
	Loaded int `json:"loaded,omitempty"` // units the last read loaded (0 if it failed)
}

// Input is a bound `args.number` input.
type Input struct {
	Name    string `json:"name"`
	Local   string `json:"local"`
	Default F64    `json:"default"`
	Value   F64    `json:"value"`
}

// Const is a folded constant.
type Const struct {
	Name  string `json:"name"`
	Value F64    `json:"value"`
}

// Attr is a session attribute slot.
type Attr struct {
	Name    string `json:"name"`
	Hidden  bool   `json:"hidden,omitempty"`
	Builtin bool   `json:"builtin,omitempty"`
	Size    bool   `json:"size,omitempty"` // assigned by the workload's init/turn
}

// Family is a named group of stages or pools. A single resource is a family
// of one with Array false.
type Family struct {
	Name  string `json:"name"`
	First int    `json:"first"`
	Count int    `json:"count"`
	Array bool   `json:"array"`
}

// StageKind is a stage's discipline.
type StageKind int

const (
	FIFO StageKind = iota
	PS
	Delay
	Step
)

func (k StageKind) String() string {
	switch k {
	case FIFO:
		return "fifo"
	case PS:
		return "ps"
	case Delay:
		return "delay"
	case Step:
		return "step"
	}
	return "?"
}

func (k StageKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Stage is one stage member.
type Stage struct {
	Name     string    `json:"name"`  // family name
	Label    string    `json:"label"` // name or name[i]
	Fam      int       `json:"family"`
	Index    int       `json:"index"` // member index; -1 for a single stage
	Kind     StageKind `json:"kind"`
	Servers  int       `json:"servers,omitempty"` // fifo
	Phi      *Expr     `json:"phi,omitempty"`     // ps capacity; may read `present`
	PhiConst bool      `json:"phi_const,omitempty"`
	Shared   bool      `json:"shared,omitempty"` // some run is a flow over it
	Engine   int       `json:"engine"`           // index into Program.Engines; -1 unless Step
	Pos      Pos       `json:"pos"`
}

// EvictPolicy is how a pool's cache entries are ordered for eviction.
type EvictPolicy struct {
	Keys []*Expr `json:"keys,omitempty"` // nil = lru
}

// PreemptKind is a pool's response to a failed growth.
type PreemptKind int

const (
	PreemptNone PreemptKind = iota
	PreemptLIFO
	PreemptBy
)

func (k PreemptKind) MarshalText() ([]byte, error) {
	return []byte([...]string{"none", "lifo", "by"}[k]), nil
}

// Pool is one pool member.
type Pool struct {
	Name        string      `json:"name"`
	Label       string      `json:"label"`
	Fam         int         `json:"family"`
	Index       int         `json:"index"`
	Cap         F64         `json:"cap"`
	Block       F64         `json:"block,omitempty"` // 0 = none
	Evict       EvictPolicy `json:"evict"`
	Preempt     PreemptKind `json:"preempt"`
	PreemptKeys []*Expr     `json:"preempt_keys,omitempty"`
	RequeueTail bool        `json:"requeue_tail,omitempty"`
	QueueKeys   []*Expr     `json:"queue_keys,omitempty"` // nil = fifo
	ReserveHeld bool        `json:"reserve_held,omitempty"`
	AdmitVia    int         `json:"admit_via"` // stage index of the admitting engine, -1 = settle time
	MemoryOf    int         `json:"memory_of"` // stage index of the engine whose memory this is, -1
	Spill       *Spill      `json:"spill,omitempty"`
	Pos         Pos         `json:"pos"`
}

// Spill is `spill T via S (work) when (cond);`: units evicted from the
// pool for which cond is 1 are written to the tier pool T, by a job of
// work on the stage S. work and cond read the eviction's context (size,
// age, last, waiting) and the entry's session.
type Spill struct {
	Tier  int   `json:"tier"`  // pool index
	Stage int   `json:"stage"` // stage index: fifo, ps or delay, carrying no flows
	Work  *Expr `json:"work"`
	When  *Expr `json:"when"`
	Pos   Pos   `json:"pos"`
}

// Engine is a step stage's scheduler.
type Engine struct {
	Stage   int         `json:"stage"`
	Budget  *Expr       `json:"budget"`            // tokens cap
	Chunk   *Expr       `json:"chunk,omitempty"`   // each at most; nil = none
	Granule F64         `json:"granule,omitempty"` // 0 = none
	Cost    *Expr       `json:"cost"`              // execute
	Memory  int         `json:"memory"`            // pool index, -1 = none
	Admits  []int       `json:"admits"`            // pools it admits, declaration order
	Regs    []Register  `json:"registers,omitempty"`
	Serve   ServeKind   `json:"serve"`
	Order   []*Expr     `json:"order,omitempty"` // advance order keys (vLLM procedure)
	Body    []SchedStep `json:"body,omitempty"`  // the general schedule
}

// ServeKind is how the schedule was lowered.
type ServeKind int

const (
	ServeVLLM      ServeKind = iota // advance running [order]; admit waiting while (!preempted)
	ServeExclusive                  // exclusive prefill; admit waiting while (!preempted)
	ServeBody                       // the general body
)

func (k ServeKind) MarshalText() ([]byte, error) {
	return []byte([...]string{"vllm", "exclusive_prefill", "body"}[k]), nil
}

// Register is an engine `state` register.
type Register struct {
	Name string `json:"name"`
	Init F64    `json:"init"`
}

// SchedOp is a schedule statement kind.
type SchedOp int

const (
	SchedAdvance SchedOp = iota
	SchedAdmit
	SchedBranch
	SchedSet
)

func (k SchedOp) MarshalText() ([]byte, error) {
	return []byte([...]string{"advance", "admit", "branch", "set"}[k]), nil
}

// SchedStep is one statement of a general schedule body.
type SchedStep struct {
	Op    SchedOp     `json:"op"`
	Only  *Expr       `json:"only,omitempty"`
	Order []*Expr     `json:"order,omitempty"`
	While *Expr       `json:"while,omitempty"`
	Cond  *Expr       `json:"cond,omitempty"`
	Then  []SchedStep `json:"then,omitempty"`
	Else  []SchedStep `json:"else,omitempty"`
	Reg   int         `json:"reg,omitempty"`
	Value *Expr       `json:"value,omitempty"`
}

// Queue is a queue family, kept for the report, the TUI and `serq draw`.
type Queue struct {
	Name    string   `json:"name"`
	Count   int      `json:"count"`
	Array   bool     `json:"array"`
	Roles   []string `json:"roles"`
	Stage   int      `json:"stage"` // stage family of the queue's engine/serve, -1
	Nic     int      `json:"nic"`   // stage family of Q.nic, -1
	Pools   []int    `json:"pools"` // pool families
	Device  string   `json:"device,omitempty"`
	Entries []string `json:"entries"` // verbs (with " from" for the remote form)
	Leases  int      `json:"leases"`  // pool family its entries lease, -1
}

// Relation is `D pull P latency x share s;` or `P push D …`.
type Relation struct {
	Kind    string `json:"kind"` // pull | push
	Reader  string `json:"reader"`
	Source  string `json:"source"`
	Latency F64    `json:"latency"`
	Stage   int    `json:"latency_stage"` // family of the poster's latency stage
}

// ArrivalKind is the workload's arrival process.
type ArrivalKind int

const (
	ArriveNone ArrivalKind = iota
	ArrivePoisson
	ArriveRenewal
	ArriveClosed
	ArriveBatch
	ArriveConstant
)

func (k ArrivalKind) MarshalText() ([]byte, error) {
	return []byte(arrivalKindNames[k]), nil
}

// Workload is the client side.
type Workload struct {
	Arrive  ArrivalKind `json:"arrive"`
	Arg     *Expr       `json:"arg,omitempty"` // rate, gap or count
	Trace   string      `json:"trace,omitempty"`
	Ordered bool        `json:"ordered,omitempty"`
	// Sessions is an ordered trace written into the IR (`serq ir
	// --inline-trace`): session i replays Sessions[i mod len], as it would
	// the CSV's i-th recorded session. Set only with Ordered and no Trace.
	Sessions [][]TraceTurn `json:"sessions,omitempty"`
	Init     *Block        `json:"init"`
	Turn     *Block        `json:"turn"`
	Session  *Block        `json:"session"` // ends with an implicit End
	// Timeout is read at every turn after the turn block: the request is
	// given up if it has not finished that long after the turn started.
	Timeout *Expr `json:"timeout,omitempty"`

	// Stages are `arrive constant(rate, duration), …;`, in order.
	Stages []ArriveStage `json:"stages,omitempty"`
}

// ArriveStage is one `constant(rate, duration)` of a staged workload:
// floor(rate · duration) sessions over duration time units.
type ArriveStage struct {
	Rate     F64 `json:"rate"`
	Duration F64 `json:"duration"`
}

// TraceTurn is one recorded turn of a trace: the attributes its `turn;`
// sets (forced is 0 where the CSV has no forced column).
type TraceTurn struct {
	New    F64 `json:"new"`
	Out    F64 `json:"out"`
	Think  F64 `json:"think"`
	Forced F64 `json:"forced"`
}

// Fault is one line of a program's `faults` block: a queue member (the
// member's engine, pools and stages together) or a stage that goes down and
// comes back.
type Fault struct {
	Label string `json:"label"` // the target as written: "D[0]", "D", "D[0].nic"
	Queue int    `json:"queue"` // a queue's member(s); -1 for a stage
	Stage int    `json:"stage"` // a stage family's member(s); -1 for a queue
	Index int    `json:"index"` // the member; -1: every member, each on its own
	// At is a fixed failure's time (a constant); After a random one's time
	// up before each failure (it may draw, from the fault's own stream).
	At    *Expr `json:"at,omitempty"`
	After *Expr `json:"after,omitempty"`
	// For is the time down (it may draw); nil: it never comes back.
	For *Expr `json:"for,omitempty"`
	// Stall: a stage's flows wait at rate 0 while it is down instead of
	// failing (ps stages only).
	Stall bool `json:"stall,omitempty"`
	Pos   Pos  `json:"pos"`
}

// Picture is a gateway's `picture`: the router's view of the deployment,
// which every observable its entries read comes from (ESeen).
type Picture struct {
	Queue   int `json:"queue"`   // the gateway
	Refresh F64 `json:"refresh"` // the view is refreshed every Refresh; 0: continuously
	Delay   F64 `json:"delay"`   // and shows the state Delay before the refresh
	Detect  F64 `json:"detect"`  // a member seen down (or up again) Detect after it went
}

// Gauge is `gauge NAME = e;`.
type Gauge struct {
	Name string `json:"name"`
	Expr *Expr  `json:"expr"`
	Pos  Pos    `json:"pos"`
}

// Claim is a parsed claim, kept for the report.
type Claim struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"` // every_iteration | some_iteration | at_end
	Stage int    `json:"stage"`
	Given *Expr  `json:"given,omitempty"`
	Expr  *Expr  `json:"expr"`
	Pos   Pos    `json:"pos"`
}
