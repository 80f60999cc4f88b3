package lang

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Lowering runs in two phases over the items of `fn main`:
//
//  1. Declarations, in source order: constants are folded as they are met
//     (an input is bound then), defs registered, and every resource
//     (stage, pool, device, engine, queue, relation) declared with its
//     constant parameters, so that later code can name any of them.
//  2. Bodies: engines' schedules and costs, pool keys, the workload, the
//     server, gauges and claims are lowered with every resource and every
//     attribute known. Attribute names are collected first from every
//     `set`, `choose` and `mark`, so a session may read `D.produced`
//     although the entry that sets it is lowered later.
//
// Errors never stop lowering early: each is appended to l.errs and the
// offending construct is replaced by something harmless, so one run
// reports them all.

// A lowerer lowers one program (its main file and the libraries it uses)
// into prog, collecting errors in errs.
type lowerer struct {
	binds      []pendingBind             // the names read and their declarations, for Options.Bindings
	sources    map[string][]byte         // the text of each file read, for the errors' ranges
	file       string                    // the main file's name: an error's position names it when it names no file
	sites      map[string]model.Pos      // where each declared name is first declared
	stale      map[string]string         // attributes last set from a cachedin read, and that read
	undefs     []undef                   // names undefined where read, which may be attributes declared later
	claimNames map[string]model.Pos      // each claim's first declaration
	plainLets  map[string]lexer.Position // where each plain `let` name was last declared
	defOrder   []*syntax.DefItem         // the defs, in the order they are defined
	constInput map[string]*inputDecl     // the input a constant's current value reads, if any
	aggIdx     []aggIndexUse             // every aggregate's index, for the names it may not take
	costs      costState                 // cost-typed attributes
	serverRes  map[string]bool           // the cost keys of the server's resources, once the server is lowered
	opts       Options
	errs       ErrorList       // every error so far, in the order found
	used       map[string]bool // the files read (main and libraries), each read once
	usesArgs   bool            // the program has `use "std/args"`
	prog       *model.Program  // the program being built

	// Phase 1's names: constants, inputs, the --set and --def overrides, defs.
	consts    map[string]float64         // each constant's folded value
	inputs    map[string]*inputDecl      // the args.number inputs by name
	inputList []*inputDecl               // the same, in declaration order
	sets      map[string]Override        // Options.Sets by name, the last of each
	defs      map[string]*syntax.DefItem // every def by name
	defSubst  map[string]*syntax.Expr    // the bodies Options.Defs gives defs, parsed

	// Attribute, observe and gauge names, and their slots in prog.
	attrs    map[string]int
	observes map[string]int
	gauges   map[string]bool

	// Resources by name: family indices in prog, and the declarations of
	// devices, engines, queues and relations (`pull`, `push`).
	stageFams map[string]int
	poolFams  map[string]int
	devices   map[string]*deviceDecl
	engines   map[string]*engineDecl // by stage family name
	engList   []*engineDecl
	queues    map[string]*queueDecl
	qList     []*queueDecl
	rels      []*relDecl

	// Phase 2's items, kept from phase 1.
	workload *syntax.WorkloadItem
	server   *syntax.ServerItem
	gaugeAST []*syntax.GaugeItem
	claimAST []*syntax.ClaimItem
	poolAST  []*poolDecl
	share    *syntax.ShareItem

	toolFam          int             // the stage family of the implicit `tool` delay stage, -1 until one is needed
	leasedFams       map[int]bool    // pool families some hold leases
	bindingAttrs     map[int]bool    // attributes made from admission bindings
	serverProgresses bool            // every path through the server progresses, so a session's `turn;` does
	aggTerms         int             // the terms aggregates have unrolled to so far, at most 4096
	forkPos          *lexer.Position // the first `fork`, nil if none
	joinPos          *lexer.Position // the first `join`
	turnSet          []int           // see turnSlots
	canFail          bool            // the program can fail a request (faults.go): `failed` and `loaded` exist
	faultsAST        *syntax.FaultsItem

	// exprNodes counts the expressions and statements lowered and
	// exprDepth the expressions under way (limits.go); limitHit is set
	// once a limit has been passed, when errs had errsAtLimit errors.
	exprNodes, exprDepth int
	limitHit             bool
	errsAtLimit          int
}

type inputDecl struct {
	name, local string
	def, value  float64
	pos         lexer.Position
	bound       bool
}

type deviceDecl struct {
	name   string
	count  int
	array  bool
	funcs  map[string]*syntax.Resource
	caps   map[string]float64
	capPos map[string]lexer.Position
	pooled map[string]bool
	engine *engineDecl
	early  []earlyPool // pools on it declared before its engine
	q      *queueDecl
	pos    lexer.Position
}

// earlyPool is a pool family declared on a device before its engine.
type earlyPool struct {
	fam int
	pos lexer.Position
}

type engineDecl struct {
	ast    *syntax.EngineItem
	name   string
	fam    int
	dev    *deviceDecl
	caps   map[string]*syntax.EngineCap
	q      *queueDecl
	memory int   // pool family, -1
	admits []int // pool families in declaration order
	regs   map[string]int
}

type poolDecl struct {
	ast *syntax.PoolItem
	fam int
	q   *queueDecl
}

type queueDecl struct {
	ast      *syntax.QueueItem
	name     string
	count    int
	array    bool
	roles    []string
	stageFam int // engine or serve stage, -1
	latFam   int // serve latency stage, -1
	nicFam   int
	pools    map[string]int // local name -> family
	dev      *deviceDecl
	eng      *engineDecl
	entries  []*syntax.EntryItem
	attrs    map[string]bool
	leases   string // local pool name its entries lease
	noLease  string // the verb of an entry that leases nothing on some path
	picture  int    // a gateway's `picture`: 1 + its index in prog.Pictures, 0 = none
	pull     *relDecl
	push     *relDecl
}

type relDecl struct {
	ast            *syntax.RelationItem
	reader, source *queueDecl
	kind           string
	latency        float64
	latFam         int // poster's latency stage family
}

func newLowerer(file string, opts Options) *lowerer {
	l := &lowerer{
		file: file, opts: opts,
		used:       map[string]bool{},
		consts:     map[string]float64{},
		inputs:     map[string]*inputDecl{},
		sets:       map[string]Override{},
		defs:       map[string]*syntax.DefItem{},
		defSubst:   map[string]*syntax.Expr{},
		attrs:      map[string]int{},
		observes:   map[string]int{},
		gauges:     map[string]bool{},
		stageFams:  map[string]int{},
		poolFams:   map[string]int{},
		devices:    map[string]*deviceDecl{},
		engines:    map[string]*engineDecl{},
		queues:     map[string]*queueDecl{},
		toolFam:    -1,
		leasedFams: map[int]bool{},
		sources:    map[string][]byte{},
	}
	l.prog = &model.Program{File: file, AutoTTFT: -1, AutoResponse: -1}
	for _, o := range opts.Sets {
		l.sets[o.Name] = o
	}
	return l
}

func (l *lowerer) program(f *syntax.File) *model.Program {
	l.used[f.Pos.Filename] = true
	// Built-in attributes come first, in a fixed order.
	p := l.prog
	p.Builtin = model.Builtins{
		Serial: l.builtinAttr("serial"), TurnNo: l.builtinAttr("turn_no"),
		Cached: l.builtinAttr("cached"), Computed: l.builtinAttr("computed"),
		More: l.builtinAttr("more"),
	}
	var main *syntax.MainItem
	for _, it := range f.Items {
		switch it := it.(type) {
		case *syntax.UseItem:
			l.useLib(it, l.file)
		case *syntax.LetItem:
			if main != nil {
				l.errorf(it.Pos, "`let %s` after `fn main`: items after main are refused", it.Name)
				continue
			}
			if it.Arg != nil {
				l.errorf(it.Pos, "`args.number` binds an input only inside `fn main`")
				continue
			}
			l.constant(it)
		case *syntax.DefItem:
			if main != nil {
				l.errorf(it.Pos, "`def %s` after `fn main`: items after main are refused", it.Name)
				continue
			}
			l.def(it)
		case *syntax.MainItem:
			if main != nil {
				l.errorf(it.Pos, "a second `fn main`: a program has exactly one")
				continue
			}
			main = it
		case *syntax.RunBlock:
			l.runBlock(it)
		case *syntax.StrayStmt:
			l.strayStmt(it)
		default:
			if main != nil {
				l.errorf(itemPos(it), "%s after `fn main`: items after main are refused", itemWord(it))
			} else {
				l.errorf(itemPos(it), "%s outside `fn main`: before main a program holds only `use`, `let` and `def`", itemWord(it))
			}
		}
	}
	l.checkDefOrder()
	if main == nil {
		l.errs = append(l.errs, &Error{Pos: model.Pos{File: l.file, Line: 1, Col: 1},
			Msg: "missing `fn main() { … }`: a program's deployment and workload go inside it"})
		return p
	}
	l.canFailBuiltins(main)
	l.declare(main)
	l.checkSets()
	l.bodies()
	return p
}

func itemPos(it syntax.Item) lexer.Position {
	switch it := it.(type) {
	case *syntax.UseItem:
		return it.Pos
	case *syntax.LetItem:
		return it.Pos
	case *syntax.DefItem:
		return it.Pos
	case *syntax.MainItem:
		return it.Pos
	case *syntax.RunBlock:
		return it.Pos
	case *syntax.StageItem:
		return it.Pos
	case *syntax.PoolItem:
		return it.Pos
	case *syntax.DeviceItem:
		return it.Pos
	case *syntax.EngineItem:
		return it.Pos
	case *syntax.QueueItem:
		return it.Pos
	case *syntax.WorkloadItem:
		return it.Pos
	case *syntax.ServerItem:
		return it.Pos
	case *syntax.ShareItem:
		return it.Pos
	case *syntax.GaugeItem:
		return it.Pos
	case *syntax.ClaimItem:
		return it.Pos
	case *syntax.SessionItem:
		return it.Pos
	case *syntax.RelationItem:
		return it.Pos
	case *syntax.StrayStmt:
		return it.Pos
	case *syntax.FaultsItem:
		return it.Pos
	}
	return lexer.Position{}
}

func itemWord(it syntax.Item) string {
	switch it := it.(type) {
	case *syntax.MainItem:
		return "`fn main`"
	case *syntax.LetItem:
		return "`let " + it.Name + "`"
	case *syntax.StageItem:
		return "stage `" + it.Name + "`"
	case *syntax.PoolItem:
		return "pool `" + it.Name + "`"
	case *syntax.DeviceItem:
		return "device `" + it.Name + "`"
	case *syntax.EngineItem:
		return "an engine"
	case *syntax.QueueItem:
		return "queue `" + it.Name + "`"
	case *syntax.WorkloadItem:
		return "`workload`"
	case *syntax.ServerItem:
		return "`server`"
	case *syntax.ShareItem:
		return "`share`"
	case *syntax.GaugeItem:
		return "gauge `" + it.Name + "`"
	case *syntax.ClaimItem:
		return "claim `" + it.Name + "`"
	case *syntax.SessionItem:
		return "`session`"
	case *syntax.RelationItem:
		return "a relation"
	case *syntax.RunBlock:
		return "a `run { … }` block"
	case *syntax.StrayStmt:
		return "a statement"
	case *syntax.FaultsItem:
		return "`faults`"
	}
	return "an item"
}

func (l *lowerer) builtinAttr(name string) int {
	l.attrs[name] = len(l.prog.Attrs)
	l.prog.Attrs = append(l.prog.Attrs, model.Attr{Name: name, Builtin: true})
	return l.attrs[name]
}

// attr returns the slot of attribute name, creating it.
func (l *lowerer) attr(name string) int {
	if s, ok := l.attrs[name]; ok {
		return s
	}
	l.attrs[name] = len(l.prog.Attrs)
	l.prog.Attrs = append(l.prog.Attrs, model.Attr{Name: name})
	return l.attrs[name]
}

func (l *lowerer) useLib(u *syntax.UseItem, from string) {
	if f := l.loadUse(u, from); f != nil {
		l.libItems(f)
	}
}

// libItems lowers the items of the library f.
func (l *lowerer) libItems(f *syntax.File) {
	for _, it := range f.Items {
		switch it := it.(type) {
		case *syntax.UseItem:
			l.useLib(it, f.Pos.Filename)
		case *syntax.DefItem:
			l.def(it)
		default:
			l.errorf(itemPos(it), "a library holds only `def` and `use`, not %s", strings.TrimPrefix(itemWord(it), "a "))
		}
	}
}

// reserved names that a let, def, set or choose may not take.
var reservedNames = map[string]bool{
	"now": true, "inf": true, "self": true, "serial": true, "turn_no": true, "cached": true, "computed": true,
	"waited": true, "size": true, "age": true, "last": true, "waiting": true, "present": true,
	"decoding": true, "position": true, "admission": true, "remaining": true, "running": true,
	"batch": true, "demand": true, "served": true,
}

func (l *lowerer) constant(it *syntax.LetItem) {
	at := nameAt(it.Pos, it.Tokens, it.Name)
	if l.nameTaken(at, it.Name, "a constant") {
		return
	}
	if it.Name == "args" && l.usesArgs {
		l.errorf(at, "`args` is the library `std/args` here: a `let` may not take its name")
		return
	}
	l.site(it.Name, at)
	l.plainAt(it.Name, at)
	sc := &scope{l: l, mom: momConst}
	v, _ := l.expr(it.Expr, sc)
	l.noteInputDep(it.Name, it.Expr)
	x, ok := v.IsConst()
	if !ok {
		if !draws(v) { // a draw is reported where it stands
			l.errorf(it.Expr.Pos, "`let %s` must be a constant: it reads something that changes", it.Name)
		}
		x = 0
	}
	if math.IsNaN(x) {
		l.errorf(it.Expr.Pos, "`let %s` is NaN: a constant is a number or `inf`", it.Name)
		x = 0
	}
	l.consts[it.Name] = x
	l.prog.Consts = append(l.prog.Consts, model.Const{Name: it.Name, Value: model.F64(x)})
}

func (l *lowerer) input(it *syntax.LetItem) {
	if l.nameTaken(it.Pos, it.Name, "a constant") {
		return
	}
	if !l.usesArgs {
		l.errorf(it.Arg.Pos, "`args.number` needs `use \"std/args\";`")
	}
	name := unquote(it.Arg.Name)
	if !isIdent(name) {
		l.errorf(it.Arg.Pos, "input name %q is not an identifier", name)
	}
	if prev, dup := l.inputs[name]; dup {
		l.errorf(it.Arg.Pos, "input %q is declared twice (first at %s)", name, syntax.ToPos(prev.pos))
		return
	}
	sc := &scope{l: l, mom: momConst}
	d, _ := l.expr(it.Arg.Default, sc)
	def, ok := d.IsConst()
	if !ok && !draws(d) {
		l.errorf(it.Arg.Default.Pos, "the default of input %q must be a constant", name)
	}
	if math.IsNaN(def) {
		l.errorf(it.Arg.Default.Pos, "the default of input %q is NaN", name)
		def = 0
	}
	in := &inputDecl{name: name, local: it.Name, def: def, value: def, pos: it.Pos}
	l.site("input "+it.Name, it.Pos)
	if o, ok := l.sets[name]; ok {
		in.bound = true
		e, err := syntax.ParseExpr("--set "+name, o.Expr)
		if err != nil {
			l.addErr(err)
		} else {
			v, _ := l.expr(e, &scope{l: l, mom: momConst})
			x, ok := v.IsConst()
			switch {
			case !ok:
				l.errs = append(l.errs, &Error{Pos: model.Pos{File: l.file}, Msg: fmt.Sprintf("input %q: %q is not a constant expression", name, o.Expr)})
			case math.IsNaN(x):
				l.errs = append(l.errs, &Error{Pos: model.Pos{File: l.file}, Msg: fmt.Sprintf("input %q: %q is NaN", name, o.Expr)})
			default:
				in.value = x
			}
		}
	}
	l.inputs[name] = in
	l.inputList = append(l.inputList, in)
	l.setInputDep(it.Name, in)
	l.consts[it.Name] = in.value
	l.prog.Inputs = append(l.prog.Inputs, model.Input{Name: name, Local: it.Name, Default: model.F64(def), Value: model.F64(in.value)})
	l.prog.Consts = append(l.prog.Consts, model.Const{Name: it.Name, Value: model.F64(in.value)})
}

// checkSets reports overrides that name no declared input.
func (l *lowerer) checkSets() {
	var names []string
	for _, in := range l.inputList {
		names = append(names, in.name)
	}
	var unknown []string
	for n := range l.sets {
		if _, ok := l.inputs[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	for _, n := range unknown {
		if at, plain := l.plainLets[n]; plain {
			l.errorf(at, "`%s` is a plain `let` and cannot be set from outside; declare it with `args.number(\"%s\", …)`", n, n)
			continue
		}
		msg := fmt.Sprintf("unknown input `%s`", n)
		if len(names) == 0 {
			msg += ": the program declares no inputs"
		} else {
			msg += "; the program's inputs are " + strings.Join(names, ", ")
		}
		l.errs = append(l.errs, &Error{Pos: model.Pos{File: l.file}, Msg: msg})
	}
}

func (l *lowerer) def(it *syntax.DefItem) {
	if it.Retired != nil {
		l.errorf(it.Pos, "`def %s(…) = e;` is retired: write `def %s(…) { e }`", it.Name, it.Name)
		return
	}
	at := nameAt(it.Pos, it.Tokens, it.Name)
	if reservedNames[it.Name] || pureFuncs[it.Name] != nil || isKeyword(it.Name) || it.Name == "cost" {
		l.errorf(at, "`%s` cannot name a def: it is a keyword or a built-in", it.Name)
		return
	}
	if _, dup := l.defs[it.Name]; dup {
		l.errorf(at, "def `%s` is declared twice%s", it.Name, l.firstAt(it.Name))
		return
	}
	if _, isConst := l.consts[it.Name]; isConst {
		l.errorf(at, "`%s` is a constant and cannot also name a def%s", it.Name, l.firstAt(it.Name))
		return
	}
	_, stage := l.stageFams[it.Name]
	_, pool := l.poolFams[it.Name]
	_, queue := l.queues[it.Name]
	if stage || pool || queue {
		l.errorf(at, "`%s` names a resource and cannot also name a def%s", it.Name, l.firstAt(it.Name))
		return
	}
	for _, d := range l.allDevices() {
		if _, ok := d.funcs[it.Name]; ok {
			l.errorf(at, "`%s` is a device's time resource (of `%s`) and cannot also name a def", it.Name, d.short())
			return
		}
	}
	for _, p := range it.Params {
		switch {
		case isKeyword(p):
			l.errorf(paramAt(it, p), "`%s` is a keyword and cannot name a parameter", p)
		case isBuiltinFunc(p):
			l.errorf(paramAt(it, p), "`%s` is a built-in function, a word of the language, and cannot name a parameter", p)
		}
	}
	l.site(it.Name, at)
	l.defs[it.Name] = it
	l.defOrder = append(l.defOrder, it)
}

// nameTaken reports a name already used by a constant, def or reserved word.
func (l *lowerer) nameTaken(pos lexer.Position, name, what string) bool {
	switch {
	case reservedNames[name]:
		l.errorf(pos, "`%s` is a context variable or built-in and cannot name %s", name, what)
		return true
	}
	_, stage := l.stageFams[name]
	_, pool := l.poolFams[name]
	_, queue := l.queues[name]
	_, device := l.devices[name]
	if stage || pool || queue || device {
		l.errorf(pos, "`%s` is declared twice: it names a resource already%s", name, l.firstAt(name))
		return true
	}
	if _, ok := l.defs[name]; ok {
		l.errorf(pos, "`%s` is a def and cannot also name %s%s", name, what, l.firstAt(name))
		return true
	}
	return false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') || r > 127) {
			return false
		}
	}
	return true
}

// keywords are the words the grammar gives a meaning to somewhere, the
// retired ones included; a `def` name or parameter may not be one.
var keywords = strings.Fields(`use let def fn main args number stage fifo ps delay step pool on cap block
evict lru by preempt none lifo requeue head tail queue reserve held spill via when admit device engine
tokens granule state schedule execute advance running only admission decode first each at most waiting
while exclusive prefill branch else set serve latency nic from pull push share maxmin bottleneck workload
arrive poisson renewal closed batch constant trace ordered hidden init turn session server gauge claim given every
some iteration of end Size Cost hold reuse prefix cache lease grow drop release load run growing with loop fork
join choose in mark tool transfer to observe max min sum
renew for retry picture refresh detect expiry failure timeout faults down after stall fail
budget chunk cost enter keep memory request`)

var keywordSet = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range keywords {
		m[k] = true
	}
	return m
}()

func isKeyword(s string) bool { return keywordSet[s] }
