package model

// Block is a sequence of statements.
type Block struct {
	Stmts []*Stmt `json:"stmts"`
}

// Op is a statement kind. One struct serves every kind so that the
// interpreter dispatches on a small integer and the IR prints without a
// custom marshaller; the fields a kind uses are listed at its constant.
type Op int

const (
	OpSet     Op = iota // Slot = Value
	OpObserve           // Observes[Slot] records Value
	OpHold              // Holds, Reuse, Cache, Lease, Body
	OpGrow              // Pool, Value
	OpDrop              // Pool
	OpRelease           // Pool
	OpLoad              // Pool, Value
	OpRun               // Stages, Mode, Value, Growing
	OpBranch            // Value (guard), Body, Else
	OpWhile             // Value (guard), Body
	OpLoop              // Body
	OpChoose            // Slot, N, Keys
	OpEnd               //
	OpTurn              // runs Workload.Turn, then Program.Server
	OpFork              // Body
	OpJoin              //
	OpReading           // Reading, Body: an entry that reads a lease, the reader renewing it
	OpTry               // N (retries), Body: an entry call made again when it fails
)

var opNames = [...]string{"set", "observe", "hold", "grow", "drop", "release", "load", "run",
	"branch", "while", "loop", "choose", "end", "turn", "fork", "join", "reading", "try"}

func (o Op) String() string { return opNames[o] }

func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// RunMode is the mode of a run on an engine.
type RunMode int

const (
	ModeNone RunMode = iota
	ModePrefill
	ModeDecode
)

func (m RunMode) MarshalText() ([]byte, error) {
	return []byte([...]string{"", "prefill", "decode"}[m]), nil
}

// Ref names one member of a family: First+Index. Index nil means member 0
// of a family of one.
type Ref struct {
	Fam   int   `json:"family"`
	Index *Expr `json:"index,omitempty"`
}

// HoldPool is one pool of a hold.
type HoldPool struct {
	Pool    Ref   `json:"pool"`
	Units   *Expr `json:"units"`
	Reserve *Expr `json:"reserve,omitempty"`
}

// Renew is a lease's `renew every (Every) for (For)`: while its session is
// at an entry that reads it, the reader's member renews it every Every,
// each renewal setting its end to at least the renewal's time + For.
type Renew struct {
	Every F64 `json:"every"`
	For   F64 `json:"for"`
}

// ReadPolicy is what a reading entry does with an expired lease or a
// failed read.
type ReadPolicy int

const (
	ReadAnyway    ReadPolicy = iota // on expiry read: the read goes ahead on the freed blocks
	ReadDecline                     // on expiry decline: the read fails
	ReadFail                        // on failure fail: the request ends with an error
	ReadRecompute                   // on failure recompute: nothing is loaded, the reader computes it
)

var readPolicyNames = [...]string{"read", "decline", "fail", "recompute"}

func (p ReadPolicy) String() string { return readPolicyNames[p] }

func (p ReadPolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Reading is an entry `VERB (…) from S` whose queue reads S's leases: the
// leased pool member it reads, the reader's member (whose renewals keep the
// lease, and whose failure stops them) and the entry's policies.
type Reading struct {
	Source  Ref        `json:"source"` // the leased pool member read
	Queue   int        `json:"queue"`  // the reader's queue
	Index   *Expr      `json:"index,omitempty"`
	Expiry  ReadPolicy `json:"expiry"`  // ReadAnyway or ReadDecline
	Failure ReadPolicy `json:"failure"` // ReadFail or ReadRecompute
}

// Stmt is one statement.
type Stmt struct {
	Op   Op  `json:"op"`
	Pos  Pos `json:"pos"`
	Slot int `json:"slot,omitempty"` // attribute (set, choose) or observe slot

	Value *Expr   `json:"value,omitempty"`
	N     *Expr   `json:"n,omitempty"`
	Keys  []*Expr `json:"keys,omitempty"`

	Pool    *Ref    `json:"pool,omitempty"`
	Stages  []Ref   `json:"stages,omitempty"`
	Mode    RunMode `json:"mode,omitempty"`
	Growing *Ref    `json:"growing,omitempty"`

	Holds    []HoldPool `json:"holds,omitempty"`
	Reuse    *Expr      `json:"reuse,omitempty"`
	Prefix   []Segment  `json:"prefix,omitempty"` // a hold's `prefix (key: length, …)`
	HasCache bool       `json:"has_cache,omitempty"`
	Cache    *Expr      `json:"cache,omitempty"`
	Lease    int        `json:"lease,omitempty"` // 1 + index into Holds of the leased pool; 0 = none
	LeaseFor *Expr      `json:"lease_for,omitempty"`
	Renew    *Renew     `json:"renew,omitempty"` // the lease's renewal by its reader; nil = none

	// Reading is an OpReading's lease, reader and policies.
	Reading *Reading `json:"reading,omitempty"`
	// Read marks the flow run, the load and the release of a transfer
	// inside an OpReading: the read of the lease.
	Read bool `json:"read,omitempty"`
	// Among is, on a choose, 1 + the index of the queue whose members its
	// candidates are (a member seen down is no candidate); 0 = none.
	Among int `json:"among,omitempty"`

	Body *Block `json:"body,omitempty"`
	Else *Block `json:"else,omitempty"`

	// Test marks an observe whose top-level operator is a comparison or a
	// logical operator (for the report's constant-0 note).
	Test bool `json:"test,omitempty"`
	// Draws marks a statement whose expressions draw random numbers.
	Draws bool `json:"draws,omitempty"`
	// Call is 1 + the index in Program.Calls of the inlined call the
	// statement came from; 0: written where it runs. Not in the IR.
	Call int `json:"-"`
}

// Segment is a segment of a hold's content chain, `key: length`: holds
// whose chains begin with the same segments share what the first of them
// left cached in a pool with blocks (interp/prefix.go).
type Segment struct {
	Key    *Expr `json:"key"`
	Length *Expr `json:"length"`
}
