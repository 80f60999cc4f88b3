package syntax

import "github.com/alecthomas/participle/v2/lexer"

// This file holds the participle grammar: the structs are the syntax tree.
// lang.Load lowers them into a model.Program; [Parse] gives them to the
// language server, which reads the items' names and positions. Each node
// starts with its Pos, the position of its first token.
//
// Alternatives are sealed interfaces (Item, Stmt, PoolOpt, EngItem,
// SchedStmt, QItem, WorkItem) registered with participle.Union in
// parse.go. Keywords are contextual: the lexer has one Ident token and the
// grammar matches keywords by value, so `queue`, `kv` or `prefill` stay usable
// as names where no keyword is expected.

// File is one source file: items in order. Placement rules (what may stand
// before, inside and after `fn main`) are checked when lowering, so that a
// misplaced item gets a message rather than a parse error.
type File struct {
	Pos   lexer.Position
	Items []Item `parser:"@@*"`
}

// Item is a top-level or `fn main` item.
type Item interface{ item() }

// UseItem is `use "PATH";`: a library to read.
type UseItem struct {
	Pos  lexer.Position
	Path string `parser:"\"use\" @String \";\""`
}

// LetItem is `let NAME = expr;` or `let NAME = args.number("name", default);`.
type LetItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"let\" @Ident \"=\""`
	Arg    *ArgsNumber   `parser:"( @@"`
	Expr   *Expr         `parser:"| @@ ) \";\""`
}

// ArgsNumber is `args.number("name", default)`.
type ArgsNumber struct {
	Pos     lexer.Position
	Name    string `parser:"\"args\" \".\" \"number\" \"(\" @String \",\""`
	Default *Expr  `parser:"@@ \")\""`
}

// DefItem is `def NAME(params) { expr }` (an expression def) or
// `def NAME(params) { statements }` (a statement def).
type DefItem struct {
	Pos     lexer.Position
	Tokens  []lexer.Token // for the name's position
	Name    string        `parser:"\"def\" @Ident"`
	Params  []string      `parser:"\"(\" ( @Ident ( \",\" @Ident )* )? \")\""`
	Retired *Expr         `parser:"( \"=\" @@ \";\""`
	Expr    *Expr         `parser:"| \"{\" ( @@ \"}\""`
	Stmts   []Stmt        `parser:"      | @@* \"}\" ) )"`
}

// StrayStmt is a statement where an item belongs (`observe x = 1;` in
// `fn main`), parsed so that lowering can say where it goes.
type StrayStmt struct {
	Pos  lexer.Position
	Stmt Stmt `parser:"@@"`
}

// MainItem is `fn main() { … }`: the program's deployment and workload.
type MainItem struct {
	Pos   lexer.Position
	Items []Item `parser:"\"fn\" \"main\" \"(\" \")\" \"{\" @@* \"}\""`
}

// RunBlock is the retired `run { horizon …; }` settings block.
type RunBlock struct {
	Pos  lexer.Position
	Body *Balanced `parser:"\"run\" @@"`
}

// StageItem is `stage NAME[count] : KIND;`.
type StageItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"stage\" @Ident"`
	Count  *Expr         `parser:"( \"[\" @@ \"]\" )? \":\""`
	Kind   *StageKind    `parser:"@@"`
	Step   *BraceGroup   `parser:"( @@ | \";\" )"` // the body of the retired `stage E : step { … }`
}

// StageKind is a stage's kind: `fifo(c)`, `ps(φ)`, `delay` (or the retired `step`).
type StageKind struct {
	Pos  lexer.Position
	Kind string `parser:"@( \"fifo\" | \"ps\" | \"delay\" | \"step\" )"`
	Arg  *Expr  `parser:"( \"(\" @@ \")\" )?"`
}

// PoolItem is `pool NAME[count] on OWNER { options }`.
type PoolItem struct {
	Pos     lexer.Position
	Tokens  []lexer.Token // for the name's position
	Name    string        `parser:"\"pool\" @Ident"`
	Count   *Expr         `parser:"( \"[\" @@ \"]\" )?"`
	Owner   string        `parser:"( \"on\" @Ident"`
	OwnerOf string        `parser:"  ( \".\" @Ident )? )?"`
	Opts    []PoolOpt     `parser:"\"{\" @@* \"}\""`
}

// PoolOpt is one option of a pool.
type PoolOpt interface{ poolOpt() }

// CapOpt is a pool's `cap e;`.
type CapOpt struct {
	Pos lexer.Position
	Cap *Expr `parser:"\"cap\" @@ \";\""`
}

// BlockOpt is a pool's `block e;`.
type BlockOpt struct {
	Pos   lexer.Position
	Block *Expr `parser:"\"block\" @@ \";\""`
}

// EvictOpt is a pool's `evict lru;` or `evict by (keys);`.
type EvictOpt struct {
	Pos  lexer.Position
	LRU  bool    `parser:"\"evict\" ( @\"lru\""`
	Keys []*Expr `parser:"| \"by\" \"(\" @@ ( \",\" @@ )* \")\" ) \";\""`
}

// PreemptOpt is a pool's `preempt none|lifo;` or `preempt by (keys) requeue head|tail;`.
type PreemptOpt struct {
	Pos     lexer.Position
	Policy  string  `parser:"\"preempt\" ( @( \"none\" | \"lifo\" )"`
	Keys    []*Expr `parser:"| \"by\" \"(\" @@ ( \",\" @@ )* \")\""`
	Requeue string  `parser:"  ( \"requeue\" @( \"head\" | \"tail\" ) )? ) \";\""`
}

// QueueOpt is a pool's `queue fifo;` or `queue by (keys);`.
type QueueOpt struct {
	Pos  lexer.Position
	FIFO bool    `parser:"\"queue\" ( @\"fifo\""`
	Keys []*Expr `parser:"| \"by\" \"(\" @@ ( \",\" @@ )* \")\" ) \";\""`
}

// ReserveOpt is a pool's `reserve held;`.
type ReserveOpt struct {
	Pos  lexer.Position
	Held bool `parser:"\"reserve\" @\"held\" \";\""`
}

// SpillOpt is a pool's `spill TIER via STAGE (work) when (cond);`.
type SpillOpt struct {
	Pos   lexer.Position
	Tier  *Name `parser:"\"spill\" @@"`
	Stage *Name `parser:"\"via\" @@"`
	Work  *Expr `parser:"\"(\" @@ \")\""`
	When  *Expr `parser:"\"when\" \"(\" @@ \")\" \";\""`
}

// AdmitViaOpt is the retired `admit via S;`.
type AdmitViaOpt struct {
	Pos   lexer.Position
	Stage string `parser:"\"admit\" \"via\" @Ident \";\""`
}

// DeviceItem is `device NAME[count] { resources }`.
type DeviceItem struct {
	Pos       lexer.Position
	Tokens    []lexer.Token // for the name's position
	Name      string        `parser:"\"device\" @Ident"`
	Count     *Expr         `parser:"( \"[\" @@ \"]\" )?"`
	Resources []*Resource   `parser:"\"{\" @@* \"}\""`
}

// Resource is a device's time function `f(x) = e;` or capacity `X cap e;`.
type Resource struct {
	Pos    lexer.Position
	Name   string   `parser:"@Ident"`
	Params []string `parser:"( \"(\" ( @Ident ( \",\" @Ident )* )? \")\" \"=\""`
	Body   *Expr    `parser:"  @@"`
	Cap    *Expr    `parser:"| \"cap\" @@ ) \";\""`
}

// EngineItem is `engine NAME[count] on DEVICE { items }`.
type EngineItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"engine\" ( (?! \"on\") @Ident"`
	Count  *Expr         `parser:"  ( \"[\" @@ \"]\" )? )?"`
	Device string        `parser:"\"on\" @Ident"`
	Items  []EngItem     `parser:"\"{\" @@* \"}\""`
}

// EngItem is one item of an engine.
type EngItem interface{ engItem() }

// TokensCap is an engine's `tokens cap e;`: the budget of an iteration.
type TokensCap struct {
	Pos lexer.Position
	Cap *Expr `parser:"\"tokens\" \"cap\" @@ \";\""`
}

// GranuleItem is an engine's `granule g;`.
type GranuleItem struct {
	Pos     lexer.Position
	Granule *Expr `parser:"\"granule\" @@ \";\""`
}

// StateItem is an engine's `state NAME = e;`: a register.
type StateItem struct {
	Pos   lexer.Position
	Name  string `parser:"\"state\" @Ident \"=\""`
	Value *Expr  `parser:"@@ \";\""`
}

// ScheduleItem is an engine's `schedule { lets statements }`.
type ScheduleItem struct {
	Pos   lexer.Position
	Lets  []*SchedLet `parser:"\"schedule\" \"{\" @@*"`
	Stmts []SchedStmt `parser:"@@* \"}\""`
}

// SchedLet is a schedule's `let NAME = e;`.
type SchedLet struct {
	Pos   lexer.Position
	Name  string `parser:"\"let\" @Ident \"=\""`
	Value *Expr  `parser:"@@ \";\""`
}

// ExecuteItem is an engine's `execute (cost);`: an iteration's time.
type ExecuteItem struct {
	Pos  lexer.Position
	Cost *Expr `parser:"\"execute\" \"(\" @@ \")\" \";\""`
}

// RetiredEngItem is an old engine item (`budget`, `chunk`, `cost`, …).
type RetiredEngItem struct {
	Pos  lexer.Position
	Word string    `parser:"@( \"budget\" | \"chunk\" | \"cost\" | \"memory\" | \"serve\" | \"iteration\" )"`
	Body *Balanced `parser:"@@"`
}

// EngineCap is an engine's `NAME[count] cap e;`: a pool it owns.
type EngineCap struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident"`
	Count *Expr  `parser:"( \"[\" @@ \"]\" )?"`
	Cap   *Expr  `parser:"\"cap\" @@ \";\""`
}

// SchedStmt is a statement of an engine's schedule.
type SchedStmt interface{ schedStmt() }

// AdvanceStmt is `advance running [only (p)] [admission | decode first | by (keys)] [each at most (c)];`.
type AdvanceStmt struct {
	Pos       lexer.Position
	Only      *Expr   `parser:"\"advance\" \"running\" ( \"only\" \"(\" @@ \")\" )?"`
	Admission bool    `parser:"( @\"admission\""`
	Decode    bool    `parser:"| @\"decode\" \"first\""`
	By        []*Expr `parser:"| \"by\" \"(\" ( @@ ( \",\" @@ )* )? \")\" )?"`
	Cap       *Expr   `parser:"( \"each\" \"at\" \"most\" \"(\" @@ \")\" )? \";\""`
}

// AdmitStmt is `admit waiting [only (p)] [while (g)] [each at most (c)];`.
type AdmitStmt struct {
	Pos   lexer.Position
	Only  *Expr `parser:"\"admit\" \"waiting\" ( \"only\" \"(\" @@ \")\" )?"`
	While *Expr `parser:"( \"while\" \"(\" @@ \")\" )?"`
	Cap   *Expr `parser:"( \"each\" \"at\" \"most\" \"(\" @@ \")\" )? \";\""`
}

// ExclusiveStmt is `exclusive prefill [each at most (c)];`.
type ExclusiveStmt struct {
	Pos lexer.Position
	Cap *Expr `parser:"\"exclusive\" \"prefill\" ( \"each\" \"at\" \"most\" \"(\" @@ \")\" )? \";\""`
}

// SchedBranch is a schedule's `branch (cond) { … } else { … }`.
type SchedBranch struct {
	Pos  lexer.Position
	Cond *Expr       `parser:"\"branch\" \"(\" @@ \")\""`
	Then []SchedStmt `parser:"\"{\" @@* \"}\""`
	Else []SchedStmt `parser:"( \"else\" \"{\" @@* \"}\" )?"`
}

// SchedSet is a schedule's `set NAME = e;` of a register.
type SchedSet struct {
	Pos   lexer.Position
	Name  string `parser:"\"set\" @Ident \"=\""`
	Value *Expr  `parser:"@@ \";\""`
}

// QueueItem is `queue NAME[count] : roles { items }`.
type QueueItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"queue\" @Ident"`
	Count  *Expr         `parser:"( \"[\" @@ \"]\" )?"`
	Roles  []string      `parser:"( \":\" @Ident ( \",\" @Ident )* )?"`
	Items  []QItem       `parser:"\"{\" @@* \"}\""`
}

// QItem is one item of a queue.
type QItem interface{ qItem() }

// ServeItem is a queue's `serve KIND latency e;`: the member's own stage.
type ServeItem struct {
	Pos     lexer.Position
	Kind    *StageKind `parser:"\"serve\" @@"`
	Latency *Expr      `parser:"( \"latency\" @@ )? \";\""`
}

// NicItem is a queue's `nic KIND;`: the member's network stage.
type NicItem struct {
	Pos  lexer.Position
	Kind *StageKind `parser:"\"nic\" @@ \";\""`
}

// EntryItem is a queue entry: `route { … }`, `prefill (prompt) { … }`,
// `decode (prompt) from P { … }`, `transfer (n) { … }`.
type EntryItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token  // for the parameters' positions
	Verb   string         `parser:"@Ident"`
	Params []string       `parser:"( \"(\" ( @Ident ( \",\" @Ident )* )? \")\" )?"`
	From   string         `parser:"( \"from\" @Ident )?"`
	On     []*EntryPolicy `parser:"@@*"`
	Body   *Block         `parser:"@@"`
}

// EntryPolicy is a reading entry's `on expiry read|decline` or `on failure
// fail|recompute`: what a read of an expired lease does, and what a failed
// read does.
type EntryPolicy struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the word's position
	What   string        `parser:"\"on\" @( \"expiry\" | \"failure\" )"`
	Word   string        `parser:"@Ident"`
}

// PictureItem is a gateway's `picture refresh (T) delay (d) detect (t);`:
// the router's picture of the deployment, which its entries read.
type PictureItem struct {
	Pos  lexer.Position
	Opts []*PictureOpt `parser:"\"picture\" @@+ \";\""`
}

// PictureOpt is one clause of a [PictureItem].
type PictureOpt struct {
	Pos   lexer.Position
	Word  string `parser:"@( \"refresh\" | \"delay\" | \"detect\" )"`
	Value *Expr  `parser:"\"(\" @@ \")\""`
}

// RelationItem is `READER pull|push SOURCE latency e share maxmin|bottleneck;`.
type RelationItem struct {
	Pos     lexer.Position
	Reader  string `parser:"@Ident"`
	Kind    string `parser:"@( \"pull\" | \"push\" )"`
	Source  string `parser:"@Ident"`
	Latency *Expr  `parser:"( \"latency\" @@ )?"`
	Share   string `parser:"\"share\" @( \"maxmin\" | \"bottleneck\" ) \";\""`
}

// FaultsItem is `faults { lines }`: when members and stages fail and come
// back.
type FaultsItem struct {
	Pos   lexer.Position
	Lines []*FaultLine `parser:"\"faults\" \"{\" @@* \"}\""`
}

// FaultLine is `TARGET down at (t) [for (d)] [stall|fail];` or `TARGET down
// after (ttf) for (ttr) [stall|fail];`.
type FaultLine struct {
	Pos    lexer.Position
	Target *Ref   `parser:"@@ \"down\""`
	At     *Expr  `parser:"( \"at\" \"(\" @@ \")\""`
	After  *Expr  `parser:"| \"after\" \"(\" @@ \")\" )"`
	For    *Expr  `parser:"( \"for\" \"(\" @@ \")\" )?"`
	Mode   string `parser:"@( \"stall\" | \"fail\" )? \";\""`
}

// WorkloadItem is `workload { items }`.
type WorkloadItem struct {
	Pos   lexer.Position
	Items []WorkItem `parser:"\"workload\" \"{\" @@* \"}\""`
}

// WorkItem is one item of the workload.
type WorkItem interface{ workItem() }

// ArriveItem is `arrive none;`, `arrive poisson|renewal|closed|batch(e);`
// or `arrive constant(rate, duration), …;` (Kind empty, Stages set).
type ArriveItem struct {
	Pos    lexer.Position
	Kind   string         `parser:"\"arrive\" ( @\"none\" | @( \"poisson\" | \"renewal\" | \"closed\" | \"batch\" )"`
	Arg    *Expr          `parser:"\"(\" @@ \")\""`
	Stages []*ArriveStage `parser:"| @@ ( \",\" @@ )* ) \";\""`
}

// ArriveStage is one `constant(rate, duration)` of a staged workload.
type ArriveStage struct {
	Pos      lexer.Position
	Rate     *Expr `parser:"\"constant\" \"(\" @@"`
	Duration *Expr `parser:"\",\" @@ \")\""`
}

// TraceItem is `trace "PATH" [ordered];`.
type TraceItem struct {
	Pos     lexer.Position
	Path    string `parser:"\"trace\" @String"`
	Ordered bool   `parser:"@\"ordered\"? \";\""`
}

// HiddenItem is `hidden a, b;`: attributes the scheduler does not know.
type HiddenItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the names' positions
	Names  []string      `parser:"\"hidden\" @Ident ( \",\" @Ident )* \";\""`
}

// TimeoutItem is the workload's `timeout (e);`: the client gives up a
// request that has not finished e after its turn started.
type TimeoutItem struct {
	Pos   lexer.Position
	Value *Expr `parser:"\"timeout\" \"(\" @@ \")\" \";\""`
}

// InitItem is the workload's `init { … }`: once per session.
type InitItem struct {
	Pos  lexer.Position
	Body *Block `parser:"\"init\" @@"`
}

// TurnItem is the workload's `turn { … }`: at every turn.
type TurnItem struct {
	Pos  lexer.Position
	Body *Block `parser:"\"turn\" @@"`
}

// SessionItem is the workload's `session { … }`: a session's statements.
type SessionItem struct {
	Pos  lexer.Position
	Body *Block `parser:"\"session\" @@"`
}

// ServerItem is `server { … }`: the part of a turn the deployment serves.
type ServerItem struct {
	Pos  lexer.Position
	Body *Block `parser:"\"server\" @@"`
}

// ShareItem is `share maxmin|bottleneck;`: how flows share ps stages.
type ShareItem struct {
	Pos    lexer.Position
	Policy string `parser:"\"share\" @( \"maxmin\" | \"bottleneck\" ) \";\""`
}

// GaugeItem is `gauge NAME = e;`.
type GaugeItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"gauge\" @Ident \"=\""`
	Expr   *Expr         `parser:"@@ \";\""`
}

// ClaimItem is `claim NAME [given (g)] : every|some iteration of E (e);` or
// `claim NAME : at end (e);`.
type ClaimItem struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"claim\" @Ident"`
	Given  *Expr         `parser:"( \"given\" \"(\" @@ \")\" )? \":\""`
	Kind   string        `parser:"( @( \"every\" | \"some\" ) \"iteration\" \"of\""`
	Stage  *Ref          `parser:"  @@"`
	AtEnd  bool          `parser:"| @\"at\" \"end\" )"`
	Expr   *Expr         `parser:"\"(\" @@ \")\" \";\""`
}

// Block is `{ stmt* }`.
type Block struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Stmts  []Stmt `parser:"\"{\" @@* \"}\""`
}

// Balanced swallows a retired construct up to its end: a braced group, or
// tokens up to `;`.
type Balanced struct {
	Pos   lexer.Position
	Group *BraceGroup `parser:"( @@"`
	Parts []*BalPart  `parser:"| @@* \";\" )"`
}

// BalPart is one token or brace group of a [Balanced] run of tokens.
type BalPart struct {
	Pos   lexer.Position
	Tok   string      `parser:"( @( !( \";\" | \"{\" | \"}\" ) )"`
	Group *BraceGroup `parser:"| @@ )"`
}

// BraceGroup is `{ … }` kept as tokens, braces balanced.
type BraceGroup struct {
	Pos    lexer.Position
	Tokens []string      `parser:"\"{\" ( @( !( \"{\" | \"}\" ) )"`
	Groups []*BraceGroup `parser:"| @@ )* \"}\""`
}

// Stmt is a statement.
type Stmt interface{ stmt() }

// TurnStmt is `turn;`.
type TurnStmt struct {
	Pos  lexer.Position
	Turn bool `parser:"@\"turn\" \";\""`
}

// SetStmt is `set NAME = e;`.
type SetStmt struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the name's position
	Name   string        `parser:"\"set\" @Ident \"=\""`
	Value  *Expr         `parser:"@@ \";\""`
}

// ObserveStmt is `observe NAME = e;`.
type ObserveStmt struct {
	Pos   lexer.Position
	Name  string `parser:"\"observe\" @Ident \"=\""`
	Value *Expr  `parser:"@@ \";\""`
}

// DeclStmt is `Size x = e;`, `Cost x = e;` or `Cost r = { f: e, … };`.
type DeclStmt struct {
	Pos    lexer.Position
	Kind   string         `parser:"@( \"Size\" | \"Cost\" )"`
	Name   string         `parser:"@Ident \"=\""`
	Fields []*RecordField `parser:"( \"{\" @@ ( \",\" @@ )* \"}\""`
	Value  *Expr          `parser:"| @@ ) \";\""`
}

// RecordField is `name: e` of a record [DeclStmt].
type RecordField struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident \":\""`
	Value *Expr  `parser:"@@"`
}

// HoldStmt is `hold P (units) reserve (r), … reuse (ρ) prefix (k: n, …) at admission (x = e) { … } cache (ℓ) lease P (t);`.
type HoldStmt struct {
	Pos      lexer.Position
	Pools    []*HoldPool `parser:"\"hold\" @@ ( \",\" @@ )*"`
	Reuse    *Expr       `parser:"( \"reuse\" \"(\" @@ \")\" )?"`
	Prefix   []*Segment  `parser:"( \"prefix\" \"(\" @@ ( \",\" @@ )* \")\" )?"`
	Bindings []*Binding  `parser:"( \"at\" \"admission\" \"(\" @@ ( \",\" @@ )* \")\" )?"`
	Body     *Block      `parser:"@@"`
	Cache    *Expr       `parser:"( \"cache\" \"(\" @@ \")\" )?"`
	Lease    *Ref        `parser:"( \"lease\" @@"`
	LeaseFor *Expr       `parser:"  \"(\" @@ \")\""`
	Renew    *Renew      `parser:"  @@? )? \";\"?"`
}

// Renew is a lease's `renew every (h) for (x)`: while the session waits at
// the entry that reads the lease, the reader renews it every h, each
// renewal making it last at least x more.
type Renew struct {
	Pos   lexer.Position
	Every *Expr `parser:"\"renew\" \"every\" \"(\" @@ \")\""`
	For   *Expr `parser:"\"for\" \"(\" @@ \")\""`
}

// Segment is `key: length`, a segment of a hold's `prefix (…)`.
type Segment struct {
	Pos    lexer.Position
	Key    *Expr `parser:"@@ \":\""`
	Length *Expr `parser:"@@"`
}

// HoldPool is one pool of a hold: `P (units) [reserve (r)]`.
type HoldPool struct {
	Pos     lexer.Position
	Pool    *Ref  `parser:"@@"`
	Units   *Expr `parser:"\"(\" @@ \")\""`
	Reserve *Expr `parser:"( \"reserve\" \"(\" @@ \")\" )?"`
}

// Binding is `NAME = e` of a hold's `at admission (…)`.
type Binding struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident \"=\""`
	Value *Expr  `parser:"@@"`
}

// GrowStmt is `grow P (d);`.
type GrowStmt struct {
	Pos    lexer.Position
	Pool   *Ref  `parser:"\"grow\" @@"`
	Amount *Expr `parser:"\"(\" @@ \")\" \";\""`
}

// DropStmt is `drop P;`.
type DropStmt struct {
	Pos  lexer.Position
	Pool *Ref `parser:"\"drop\" @@ \";\""`
}

// ReleaseStmt is `release P;`.
type ReleaseStmt struct {
	Pos  lexer.Position
	Pool *Ref `parser:"\"release\" @@ \";\""`
}

// LoadStmt is `load P (n);`.
type LoadStmt struct {
	Pos    lexer.Position
	Pool   *Ref  `parser:"\"load\" @@"`
	Amount *Expr `parser:"\"(\" @@ \")\" \";\""`
}

// RunStmt is `run S, … [prefill|decode] (work) [growing P];`.
type RunStmt struct {
	Pos     lexer.Position
	Stages  []*Ref `parser:"\"run\" ( @@ ( \",\" @@ )* )?"`
	Mode    string `parser:"@( \"prefill\" | \"decode\" )?"`
	Work    *Expr  `parser:"\"(\" @@ \")\""`
	Growing *Ref   `parser:"( \"growing\" @@ )? \";\""`
}

// BranchStmt is `branch [with] (cond) { … } else { … }`.
type BranchStmt struct {
	Pos  lexer.Position
	With bool   `parser:"\"branch\" @\"with\"?"`
	Cond *Expr  `parser:"\"(\" @@ \")\""`
	Then *Block `parser:"@@"`
	Else *Block `parser:"( \"else\" @@ )?"`
}

// WhileStmt is `while (cond) { … }`.
type WhileStmt struct {
	Pos  lexer.Position
	Cond *Expr  `parser:"\"while\" \"(\" @@ \")\""`
	Body *Block `parser:"@@"`
}

// LoopStmt is `loop { … }`.
type LoopStmt struct {
	Pos  lexer.Position
	Body *Block `parser:"\"loop\" @@"`
}

// ForkStmt is `fork { … }`.
type ForkStmt struct {
	Pos  lexer.Position
	Body *Block `parser:"\"fork\" @@"`
}

// JoinStmt is `join;`.
type JoinStmt struct {
	Pos  lexer.Position
	Join bool `parser:"@\"join\" \";\""`
}

// ChooseStmt is `choose NAME in n by (keys);`.
type ChooseStmt struct {
	Pos  lexer.Position
	Name string  `parser:"\"choose\" @Ident"`
	N    *Expr   `parser:"\"in\" @@"`
	Keys []*Expr `parser:"\"by\" \"(\" @@ ( \",\" @@ )* \")\" \";\""`
}

// EndStmt is `end;`.
type EndStmt struct {
	Pos lexer.Position
	End bool `parser:"@\"end\" \";\""`
}

// MarkStmt is `mark NAME;`.
type MarkStmt struct {
	Pos  lexer.Position
	Name string `parser:"\"mark\" @Ident \";\""`
}

// ToolStmt is `tool[j] (x);`, `tool on S (x);` or `tool (x) growing P;`.
type ToolStmt struct {
	Pos     lexer.Position
	Index   *Expr  `parser:"\"tool\" ( \"[\" @@ \"]\""`
	On      []*Ref `parser:"  | \"on\" @@ ( \",\" @@ )* )?"`
	Amount  *Expr  `parser:"@@"`
	Growing *Ref   `parser:"( \"growing\" @@ )? \";\""`
}

// TransferStmt is `transfer (n) from P to D (load);`, with `[j]` or `on S` like tool.
type TransferStmt struct {
	Pos    lexer.Position
	Index  *Expr  `parser:"\"transfer\" ( \"[\" @@ \"]\""`
	On     []*Ref `parser:"  | \"on\" @@ ( \",\" @@ )* )?"`
	Amount *Expr  `parser:"@@"`
	From   *Ref   `parser:"\"from\" @@"`
	To     *Ref   `parser:"\"to\" @@"`
	Load   *Expr  `parser:"\"(\" @@ \")\" \";\""`
}

// CallStmt is an entry call `Q[i].verb(args) [from P[i]] [to P (m)] [retry (n) [after (b)]];` or a
// statement-def use `f(args);`.
type CallStmt struct {
	Pos     lexer.Position
	Tokens  []lexer.Token // for the verb's position
	Queue   string        `parser:"@Ident"`
	Index   *Expr         `parser:"( ( \"[\" @@ \"]\" )?"`
	Verb    string        `parser:"  \".\" @Ident )?"`
	Args    []*Expr       `parser:"\"(\" ( @@ ( \",\" @@ )* )? \")\""`
	From    *Ref          `parser:"( \"from\" @@ )?"`
	To      *Ref          `parser:"( \"to\" @@"`
	ToUnit  *Expr         `parser:"  \"(\" @@ \")\" )?"`
	Retry   *Expr         `parser:"( \"retry\" \"(\" @@ \")\""`
	Backoff *Expr         `parser:"  ( \"after\" \"(\" @@ \")\" )? )? \";\""`
}

// RetiredStmt catches statements of older dialects so that they get a
// migration message instead of a parse error.
type RetiredStmt struct {
	Pos  lexer.Position
	Word string    `parser:"@( \"request\" | \"enter\" | \"prefill\" | \"decode\" | \"admit\" | \"keep\" )"`
	Rest *Balanced `parser:"@@"`
}

// Ref is a resource reference: `kv`, `kv[j]`, `D.kv`, `D[j].kv`.
type Ref struct {
	Pos    lexer.Position
	Name   string `parser:"@Ident"`
	Index  *Expr  `parser:"( \"[\" @@ \"]\" )?"`
	Member string `parser:"( \".\" @Ident )?"`
}

// Expr is an expression; the tiers below are precedence levels, lowest
// first. Lowering flattens them into model.Expr trees.
type Expr struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Cond   *OrExpr `parser:"@@"`
	Then   *Expr   `parser:"( \"?\" @@"`
	Else   *Expr   `parser:"  \":\" @@ )?"`
}

// OrExpr is `a || b || …`.
type OrExpr struct {
	Pos  lexer.Position
	Left *AndExpr   `parser:"@@"`
	Rest []*AndExpr `parser:"( \"||\" @@ )*"`
}

// AndExpr is `a && b && …`.
type AndExpr struct {
	Pos  lexer.Position
	Left *CmpExpr   `parser:"@@"`
	Rest []*CmpExpr `parser:"( \"&&\" @@ )*"`
}

// CmpExpr is a sum or one comparison `a < b`: comparisons do not chain.
type CmpExpr struct {
	Pos   lexer.Position
	Left  *AddExpr `parser:"@@"`
	Op    string   `parser:"( @( \"<=\" | \">=\" | \"==\" | \"!=\" | \"<\" | \">\" )"`
	Right *AddExpr `parser:"  @@ )?"`
}

// AddExpr is `a + b - …`.
type AddExpr struct {
	Pos  lexer.Position
	Left *MulExpr `parser:"@@"`
	Rest []*AddOp `parser:"@@*"`
}

// AddOp is one `+ b` or `- b` of an [AddExpr].
type AddOp struct {
	Pos   lexer.Position
	Op    string   `parser:"@( \"+\" | \"-\" )"`
	Right *MulExpr `parser:"@@"`
}

// MulExpr is `a * b / …`.
type MulExpr struct {
	Pos  lexer.Position
	Left *Unary   `parser:"@@"`
	Rest []*MulOp `parser:"@@*"`
}

// MulOp is one `* b` or `/ b` of a [MulExpr].
type MulOp struct {
	Pos   lexer.Position
	Op    string `parser:"@( \"*\" | \"/\" )"`
	Right *Unary `parser:"@@"`
}

// Unary is `-x`, `!x`, a draw or a power.
type Unary struct {
	Pos  lexer.Position
	Op   string  `parser:"( @( \"-\" | \"!\" )"`
	X    *Unary  `parser:"  @@"`
	Draw *Draw   `parser:"| @@"`
	Pow  *PowExp `parser:"| @@ )"`
}

// Draw is `~NAME(args)`: a random draw.
type Draw struct {
	Pos  lexer.Position
	Name string  `parser:"\"~\" @Ident"`
	Args []*Expr `parser:"\"(\" ( @@ ( \",\" @@ )* )? \")\""`
}

// PowExp is an atom, or `x ^ e` with e a [Unary]: `^` is right-associative.
type PowExp struct {
	Pos lexer.Position
	X   *Atom  `parser:"@@"`
	Exp *Unary `parser:"( \"^\" @@ )?"`
}

// Atom is a number, `(e)`, an aggregate, a call or a name.
type Atom struct {
	Pos    lexer.Position
	Number *string    `parser:"( @Number"`
	Paren  *Expr      `parser:"| \"(\" @@ \")\""`
	Agg    *Aggregate `parser:"| @@"`
	Call   *Call      `parser:"| @@"`
	Name   *Name      `parser:"| @@ )"`
}

// Aggregate is `max j in n (e)`, `min …`, `sum …`.
type Aggregate struct {
	Pos    lexer.Position
	Op     string `parser:"@( \"max\" | \"min\" | \"sum\" )"`
	Var    string `parser:"@Ident \"in\""`
	NNum   string `parser:"( @Number"`
	NName  string `parser:"| @Ident"`
	NParen *Expr  `parser:"| \"(\" @@ \")\" )"`
	Body   *Expr  `parser:"\"(\" @@ \")\""`
}

// Call is `f(args)`: a function, an observable, a cost or an expression def.
type Call struct {
	Pos  lexer.Position
	Func string  `parser:"@Ident"`
	Args []*Expr `parser:"\"(\" ( @@ ( \",\" @@ )* )? \")\""`
}

// Name is `x`, `kv[j]`, `D[j].kv`, `D.produced`, `running.count`.
type Name struct {
	Pos    lexer.Position
	Tokens []lexer.Token // for the path's positions
	Name   string        `parser:"@Ident"`
	Index  *Expr         `parser:"( \"[\" @@ \"]\" )?"`
	Path   []string      `parser:"( \".\" @Ident )*"`
}

func (*UseItem) item()      {}
func (*LetItem) item()      {}
func (*DefItem) item()      {}
func (*MainItem) item()     {}
func (*RunBlock) item()     {}
func (*StageItem) item()    {}
func (*PoolItem) item()     {}
func (*DeviceItem) item()   {}
func (*EngineItem) item()   {}
func (*QueueItem) item()    {}
func (*RelationItem) item() {}
func (*WorkloadItem) item() {}
func (*ServerItem) item()   {}
func (*ShareItem) item()    {}
func (*GaugeItem) item()    {}
func (*ClaimItem) item()    {}
func (*SessionItem) item()  {}
func (*StrayStmt) item()    {}
func (*FaultsItem) item()   {}

func (*CapOpt) poolOpt()      {}
func (*BlockOpt) poolOpt()    {}
func (*EvictOpt) poolOpt()    {}
func (*PreemptOpt) poolOpt()  {}
func (*QueueOpt) poolOpt()    {}
func (*ReserveOpt) poolOpt()  {}
func (*SpillOpt) poolOpt()    {}
func (*AdmitViaOpt) poolOpt() {}

func (*TokensCap) engItem()      {}
func (*GranuleItem) engItem()    {}
func (*StateItem) engItem()      {}
func (*ScheduleItem) engItem()   {}
func (*ExecuteItem) engItem()    {}
func (*RetiredEngItem) engItem() {}
func (*EngineCap) engItem()      {}

func (*AdvanceStmt) schedStmt()   {}
func (*AdmitStmt) schedStmt()     {}
func (*ExclusiveStmt) schedStmt() {}
func (*SchedBranch) schedStmt()   {}
func (*SchedSet) schedStmt()      {}

func (*PoolItem) qItem()    {}
func (*DeviceItem) qItem()  {}
func (*EngineItem) qItem()  {}
func (*ServeItem) qItem()   {}
func (*NicItem) qItem()     {}
func (*EntryItem) qItem()   {}
func (*PictureItem) qItem() {}

func (*ArriveItem) workItem()  {}
func (*TraceItem) workItem()   {}
func (*HiddenItem) workItem()  {}
func (*InitItem) workItem()    {}
func (*TurnItem) workItem()    {}
func (*SessionItem) workItem() {}
func (*TimeoutItem) workItem() {}

func (*TurnStmt) stmt()     {}
func (*SetStmt) stmt()      {}
func (*ObserveStmt) stmt()  {}
func (*DeclStmt) stmt()     {}
func (*HoldStmt) stmt()     {}
func (*GrowStmt) stmt()     {}
func (*DropStmt) stmt()     {}
func (*ReleaseStmt) stmt()  {}
func (*LoadStmt) stmt()     {}
func (*RunStmt) stmt()      {}
func (*BranchStmt) stmt()   {}
func (*WhileStmt) stmt()    {}
func (*LoopStmt) stmt()     {}
func (*ForkStmt) stmt()     {}
func (*JoinStmt) stmt()     {}
func (*ChooseStmt) stmt()   {}
func (*EndStmt) stmt()      {}
func (*MarkStmt) stmt()     {}
func (*ToolStmt) stmt()     {}
func (*TransferStmt) stmt() {}
func (*CallStmt) stmt()     {}
func (*RetiredStmt) stmt()  {}
