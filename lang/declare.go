package lang

import (
	"fmt"
	"math"
	"slices"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// declare is phase 1: the items of `fn main` in source order.
func (l *lowerer) declare(main *syntax.MainItem) {
	for _, it := range main.Items {
		switch it := it.(type) {
		case *syntax.UseItem:
			l.useLib(it, l.file)
		case *syntax.LetItem:
			if it.Arg != nil {
				l.input(it)
			} else {
				l.constant(it)
			}
		case *syntax.DefItem:
			l.def(it)
		case *syntax.MainItem:
			l.errorf(it.Pos, "a nested `fn main`: a program has exactly one")
		case *syntax.RunBlock:
			l.runBlock(it)
		case *syntax.StrayStmt:
			l.strayStmt(it)
		case *syntax.SessionItem:
			l.errorf(it.Pos, "`session` belongs inside `workload { … }`")
		case *syntax.StageItem:
			l.stage(it)
		case *syntax.PoolItem:
			l.pool(it, nil)
		case *syntax.DeviceItem:
			l.device(it, nil)
		case *syntax.EngineItem:
			l.engine(it, nil)
		case *syntax.QueueItem:
			l.queue(it)
		case *syntax.RelationItem:
			l.relation(it)
		case *syntax.ShareItem:
			if l.share != nil {
				l.errorf(it.Pos, "a second `share` declaration (first at %s)", l.posText(l.share.Pos))
				continue
			}
			l.share = it
		case *syntax.WorkloadItem:
			if l.workload != nil {
				l.errorf(it.Pos, "a second `workload`: a program has at most one")
				continue
			}
			l.workload = it
		case *syntax.ServerItem:
			if l.server != nil {
				l.errorf(it.Pos, "a second `server`: a program has at most one")
				continue
			}
			l.server = it
		case *syntax.GaugeItem:
			l.gaugeAST = append(l.gaugeAST, it)
		case *syntax.ClaimItem:
			l.claimAST = append(l.claimAST, it)
		case *syntax.FaultsItem:
			if l.faultsAST != nil {
				l.errorf(it.Pos, "a second `faults` block (first at %s): a program has at most one", l.posText(l.faultsAST.Pos))
				continue
			}
			l.faultsAST = it
		}
	}
	l.finishDeclarations()
}

// runBlock refuses `run { horizon …; }`, and a `run` statement where an
// item belongs.
func (l *lowerer) runBlock(it *syntax.RunBlock) {
	if it.Body.Group == nil {
		l.strayStmt(&syntax.StrayStmt{Pos: it.Pos, Stmt: &syntax.RunStmt{Pos: it.Pos}})
		return
	}
	l.errorf(it.Pos, "a model carries no run settings: pass `--horizon`, `--warmup`, `--seed` on the command line or in an instance file")
}

// strayStmt refuses a statement among the items of a program.
func (l *lowerer) strayStmt(it *syntax.StrayStmt) {
	l.errorf(it.Pos, "%s is a statement: it belongs in `server { … }`, a block of the workload or a queue's entry", stmtWord(it.Stmt))
}

// constant evaluates a constant expression; ok is false after an error.
func (l *lowerer) constValue(e *syntax.Expr, what string) (float64, bool) {
	v, _ := l.expr(e, &scope{l: l, mom: momConst})
	x, ok := v.IsConst()
	if !ok {
		if !draws(v) { // a draw is reported where it stands
			l.errorf(e.Pos, "%s must be a constant", what)
		}
		return 0, false
	}
	if math.IsNaN(x) {
		l.errorf(e.Pos, "%s is NaN", what)
		return 0, false
	}
	return x, true
}

// draws reports whether e draws.
func draws(e *model.Expr) bool {
	found := false
	e.Walk(func(x *model.Expr) bool {
		found = found || x.Op == model.EDraw
		return !found
	})
	return found
}

// count evaluates a family size.
func (l *lowerer) count(e *syntax.Expr, what string) (int, bool) {
	if e == nil {
		return 1, false
	}
	x, ok := l.constValue(e, what)
	if !ok {
		return 1, true
	}
	if x < 1 || x != math.Floor(x) || x > 4096 {
		l.errorf(e.Pos, "%s must be a whole number from 1 to 4096, not %s", what, fmtNum(x))
		return 1, true
	}
	l.checkNoInputSizes(e, what)
	return int(x), true
}

// checkNoInputSizes refuses a family size that reads an input.
func (l *lowerer) checkNoInputSizes(e *syntax.Expr, what string) {
	for _, t := range e.Tokens {
		if t.Type != syntax.Lexer().Symbols()["Ident"] {
			continue
		}
		if in := l.constInput[t.Value]; in != nil && in.bound {
			l.errorf(e.Pos, "input `%s` sizes %s: an input may not change a family's size", in.name, what)
			return
		}
	}
}

func (l *lowerer) declared(pos lexer.Position, name string) bool {
	_, isConst := l.consts[name]
	_, isDef := l.defs[name]
	_, isStage := l.stageFams[name]
	_, isPool := l.poolFams[name]
	_, isQueue := l.queues[name]
	_, isDevice := l.devices[name]
	switch {
	case isConst:
		l.errorf(pos, "`%s` is declared twice: it is a constant already%s", name, l.firstAt(name))
	case isDef:
		l.errorf(pos, "`%s` is declared twice: it is a def already%s", name, l.firstAt(name))
	case isStage || isPool || isQueue || isDevice:
		l.errorf(pos, "`%s` is declared twice%s", name, l.firstAt(name))
	default:
		l.site(name, pos)
		return false
	}
	return true
}

func (l *lowerer) newStageFam(name string, count int, array bool, kind model.StageKind, servers int, phi *model.Expr, pos lexer.Position) int {
	p := l.prog
	fam := len(p.StageFams)
	p.StageFams = append(p.StageFams, model.Family{Name: name, First: len(p.Stages), Count: count, Array: array})
	l.stageFams[name] = fam
	l.site("stage "+name, pos)
	_, phiConst := phi.IsConst()
	for i := 0; i < count; i++ {
		label, idx := name, -1
		if array {
			label, idx = fmt.Sprintf("%s[%d]", name, i), i
		}
		p.Stages = append(p.Stages, model.Stage{Name: name, Label: label, Fam: fam, Index: idx, Kind: kind,
			Servers: servers, Phi: phi, PhiConst: phi != nil && phiConst, Engine: -1, Pos: syntax.ToPos(pos)})
	}
	return fam
}

func (l *lowerer) newPoolFam(name string, count int, array bool, cap float64, pos lexer.Position) int {
	p := l.prog
	fam := len(p.PoolFams)
	p.PoolFams = append(p.PoolFams, model.Family{Name: name, First: len(p.Pools), Count: count, Array: array})
	l.poolFams[name] = fam
	l.site("pool "+name, pos)
	for i := 0; i < count; i++ {
		label, idx := name, -1
		if array {
			label, idx = fmt.Sprintf("%s[%d]", name, i), i
		}
		p.Pools = append(p.Pools, model.Pool{Name: name, Label: label, Fam: fam, Index: idx, Cap: model.F64(cap),
			AdmitVia: -1, MemoryOf: -1, Pos: syntax.ToPos(pos)})
	}
	return fam
}

func (l *lowerer) stageKind(k *syntax.StageKind, what string) (model.StageKind, int, *model.Expr) {
	switch k.Kind {
	case "fifo":
		c := 1.0
		if k.Arg != nil {
			x, ok := l.constValue(k.Arg, "the servers of "+what)
			if ok && (x < 1 || x != math.Floor(x)) {
				l.errorf(k.Arg.Pos, "a fifo stage has a whole number of servers, at least 1, not %s", fmtNum(x))
				x = 1
			}
			if ok && x > model.MaxServers {
				err := l.errorf(k.Arg.Pos, "a fifo stage has at most %d servers, not %s", model.MaxServers, fmtNum(x))
				err.Hint = "a `delay` stage serves every job at once"
				x = 1
			}
			if ok {
				c = x
			}
		}
		return model.FIFO, int(c), nil
	case "ps":
		if k.Arg == nil {
			l.errorf(k.Pos, "`ps` needs its capacity: `ps(1)`")
			return model.PS, 0, model.Num(1)
		}
		phi, _ := l.expr(k.Arg, &scope{l: l, mom: momPs})
		if x, ok := phi.IsConst(); ok && !(x > 0) {
			l.errorf(k.Arg.Pos, "a ps stage's capacity must be positive, not %s", fmtNum(x))
		}
		return model.PS, 0, phi
	case "delay":
		if k.Arg != nil {
			l.errorf(k.Arg.Pos, "a `delay` stage takes no argument")
		}
		return model.Delay, 0, nil
	default: // step
		l.errorf(k.Pos, "`stage %s : step` is retired: write `device gpu { … }` and `engine %s on gpu { tokens cap …; schedule { … } execute (…); }`", what, what)
		return model.Delay, 0, nil
	}
}

func (l *lowerer) stage(it *syntax.StageItem) {
	if l.declared(nameAt(it.Pos, it.Tokens, it.Name), it.Name) {
		return
	}
	n, array := l.count(it.Count, "the size of stage `"+it.Name+"`")
	kind, servers, phi := l.stageKind(it.Kind, it.Name)
	fam := l.newStageFam(it.Name, n, array, kind, servers, phi, it.Pos)
	if it.Name == "tool" {
		l.toolFam = fam
	}
}

// pool declares a pool, top-level (q == nil) or a queue's.
func (l *lowerer) pool(it *syntax.PoolItem, q *queueDecl) {
	name := it.Name
	if q != nil {
		name = q.name + "." + it.Name
		if it.Count != nil {
			l.errorf(it.Pos, "a queue's pool is one per member: write `pool %s { … }` without a size", it.Name)
		}
		if q.dev != nil && q.dev.name == name {
			l.errorf(nameAt(it.Pos, it.Tokens, it.Name), "`%s` is declared twice in queue `%s`: it names the queue's device already", it.Name, q.name)
		}
	}
	if l.declared(nameAt(it.Pos, it.Tokens, it.Name), name) {
		return
	}
	pp := poolPlace{capv: math.Inf(1)}
	pp.count, pp.array = l.count(it.Count, "the size of pool `"+it.Name+"`")
	if q != nil {
		pp.count, pp.array = q.count, true
	}
	hasCap := l.poolCap(it, &pp)
	if it.Owner != "" && !l.poolOwner(it, q, hasCap, &pp) {
		return
	}
	fam := l.newPoolFam(name, pp.count, pp.array, pp.capv, it.Pos)
	pf := l.prog.PoolFams[fam]
	for i := pf.First; i < pf.First+pf.Count; i++ {
		pl := &l.prog.Pools[i]
		if pp.admitVia != nil {
			pl.AdmitVia = l.prog.StageFams[pp.admitVia.fam].First + (i - pf.First)
		}
	}
	if pf.Count > 0 {
		l.poolBlock(it, pf)
	}
	if pp.admitVia != nil {
		pp.admitVia.admits = append(pp.admitVia.admits, fam)
	}
	switch {
	case pp.memoryOf != nil:
		l.memoryOf(pp.memoryOf, fam, it.Pos)
	case pp.dev != nil:
		// the memory of the engine declared on the device after it
		pp.dev.early = append(pp.dev.early, earlyPool{fam, it.Pos})
	}
	l.poolAST = append(l.poolAST, &poolDecl{ast: it, fam: fam, q: q})
	if q != nil {
		q.pools[it.Name] = fam
	}
}

// memoryOf makes pool family fam engine e's memory, one member each.
func (l *lowerer) memoryOf(e *engineDecl, fam int, pos lexer.Position) {
	pf := l.prog.PoolFams[fam]
	for i := pf.First; i < pf.First+pf.Count; i++ {
		l.prog.Pools[i].MemoryOf = l.prog.StageFams[e.fam].First + (i - pf.First)
	}
	if e.memory >= 0 {
		l.errorf(pos, "engine `%s` has a memory pool already: which is its KV would be a choice", e.name)
	}
	e.memory = fam
}

// poolPlace is what a pool's declaration decides before its family is
// made: the cap of each member, the family's size, and the engine that
// admits it or whose memory it is (from its `on`), or the device without
// an engine yet whose engine's memory it will be.
type poolPlace struct {
	capv               float64
	count              int
	array              bool
	admitVia, memoryOf *engineDecl
	dev                *deviceDecl
}

// poolCap reads a pool's own `cap` into pp (and refuses the retired
// `admit via`); it reports whether the pool writes a cap.
func (l *lowerer) poolCap(it *syntax.PoolItem, pp *poolPlace) (hasCap bool) {
	for _, o := range it.Opts {
		if c, ok := o.(*syntax.CapOpt); ok {
			hasCap = true
			if x, ok := l.constValue(c.Cap, "the cap of pool `"+it.Name+"`"); ok {
				if x < 0 {
					l.errorf(c.Cap.Pos, "a pool's cap may not be negative")
				}
				pp.capv = x
			}
		}
		if a, ok := o.(*syntax.AdmitViaOpt); ok {
			l.errorf(a.Pos, "`admit via %s` is retired: who admits a pool is said by its `on` (`pool %s on ENGINE` or `on ENGINE.DEVICE`)", a.Stage, it.Name)
		}
	}
	return hasCap
}

// poolOwner resolves a pool's `on OWNER`: a device (the pool is the
// memory of the device's engine and takes the device's capacity and
// family), an engine (which admits it, with the engine's capacity), or
// `ENGINE.DEVICE` (both). It returns false after an error that stops the
// declaration.
func (l *lowerer) poolOwner(it *syntax.PoolItem, q *queueDecl, hasCap bool, pp *poolPlace) bool {
	owner := it.Owner
	var dev *deviceDecl
	var eng *engineDecl
	switch {
	case it.OwnerOf != "":
		// pool X on E.D
		eng = l.engineByName(owner, q)
		if eng == nil {
			l.errorf(it.Pos, "`%s` in `on %s.%s` is no engine declared above", owner, owner, it.OwnerOf)
			return false
		}
		if l.queueOwned(it, q, eng) {
			return false
		}
		dev = l.deviceByName(it.OwnerOf, q)
		if dev == nil || eng.dev != dev {
			l.errorf(it.Pos, "engine `%s` does not run on `%s`", owner, it.OwnerOf)
			return false
		}
		pp.admitVia, pp.memoryOf = eng, eng
	default:
		if d := l.deviceByName(owner, q); d != nil {
			dev = d
			pp.memoryOf, pp.dev = d.engine, d
		} else if e := l.engineByName(owner, q); e != nil {
			if l.queueOwned(it, q, e) {
				return false
			}
			eng = e
			pp.admitVia = e
		} else if q != nil {
			var names []string
			if q.dev != nil {
				names = append(names, q.dev.short())
			}
			if q.eng != nil {
				names = append(names, q.name)
			}
			suggest(l.errorf(nameAt(it.Pos, it.Tokens[1:], owner), "`%s` is not a device or the engine of queue `%s`: a queue's pool is on its own", owner, q.name), owner, names)
			return false
		} else {
			var names []string
			for _, d := range l.allDevices() {
				names = append(names, d.name)
			}
			names = append(names, sortedKeys(l.engines)...)
			suggest(l.errorf(nameAt(it.Pos, it.Tokens[1:], owner), "`%s` is no device or engine declared above", owner), owner, names)
			return false
		}
	}
	if hasCap {
		l.errorf(it.Pos, "pool `%s` is on `%s`, which gives its capacity: remove its `cap`", it.Name, owner)
	}
	if dev != nil && eng == nil || it.OwnerOf != "" {
		l.poolOnDevice(it, q, dev, pp)
	} else if eng != nil {
		l.poolOnEngine(it, q, eng, pp)
	}
	return true
}

// queueOwned refuses a top-level pool on a queue's engine: the queue's
// pools are declared in it. It reports whether it refused.
func (l *lowerer) queueOwned(it *syntax.PoolItem, q *queueDecl, eng *engineDecl) bool {
	if q != nil || eng.q == nil {
		return false
	}
	l.errorf(it.Pos, "`%s` is queue `%s`'s engine: declare `pool %s on %s { … }` in queue `%s`", eng.name, eng.q.name, it.Name, it.Owner, eng.q.name)
	return true
}

// poolOnDevice takes a pool's cap from its device's capacity of the same
// name, and its family from the device's (a queue's pool stays the
// queue's).
func (l *lowerer) poolOnDevice(it *syntax.PoolItem, q *queueDecl, dev *deviceDecl, pp *poolPlace) {
	c, ok := dev.caps[it.Name]
	if !ok {
		l.errorf(it.Pos, "device `%s` declares no capacity `%s` (write `%s cap …;` in it)", dev.name, it.Name, it.Name)
	} else if dev.pooled[it.Name] {
		l.errorf(it.Pos, "capacity `%s` of `%s` is declared as a pool twice", it.Name, dev.name)
	} else {
		dev.pooled[it.Name] = true
		pp.capv = c
	}
	if it.Count != nil && q == nil {
		l.errorf(it.Pos, "a pool on a device is a family exactly when its device is: remove `[…]`")
	}
	if q == nil {
		pp.count, pp.array = dev.count, dev.array
	}
}

// poolOnEngine takes a pool's cap from its engine's capacity of the same
// name, and its family from the engine's (a queue's pool stays the
// queue's).
func (l *lowerer) poolOnEngine(it *syntax.PoolItem, q *queueDecl, eng *engineDecl, pp *poolPlace) {
	c, ok := eng.caps[it.Name]
	if !ok {
		l.errorf(it.Pos, "engine `%s` declares no capacity `%s` (write `%s cap …;` in it)", eng.name, it.Name, it.Name)
	} else {
		if x, ok := l.constValue(c.Cap, "the cap of `"+it.Name+"`"); ok {
			pp.capv = x
		}
		if c.Count != nil {
			l.errorf(c.Pos, "`%s[N] cap` is not supported yet", it.Name)
		}
	}
	if q == nil {
		f := l.prog.StageFams[eng.fam]
		pp.count, pp.array = f.Count, f.Array
	}
}

// poolBlock sets the `block` of every member of the pool's family pf.
func (l *lowerer) poolBlock(it *syntax.PoolItem, pf model.Family) {
	for _, o := range it.Opts {
		b, ok := o.(*syntax.BlockOpt)
		if !ok {
			continue
		}
		x, ok := l.constValue(b.Block, "the block of pool `"+it.Name+"`")
		if !ok {
			continue
		}
		if !(x > 0) || x != math.Floor(x) {
			l.errorf(b.Block.Pos, "a block is a positive whole number of units, not %s", fmtNum(x))
			continue
		}
		for j := pf.First; j < pf.First+pf.Count; j++ {
			l.prog.Pools[j].Block = model.F64(x)
		}
	}
}

func (l *lowerer) deviceByName(name string, q *queueDecl) *deviceDecl {
	if q != nil {
		if q.dev != nil && (q.dev.name == q.name+"."+name || name == q.name+"."+q.dev.short()) {
			return q.dev
		}
		return nil
	}
	return l.devices[name]
}

func (d *deviceDecl) short() string {
	if d.q != nil {
		return d.name[len(d.q.name)+1:]
	}
	return d.name
}

func (l *lowerer) engineByName(name string, q *queueDecl) *engineDecl {
	if q != nil {
		if name == q.name {
			return q.eng
		}
		return nil
	}
	return l.engines[name]
}

func (l *lowerer) device(it *syntax.DeviceItem, q *queueDecl) {
	name := it.Name
	d := &deviceDecl{name: name, funcs: map[string]*syntax.Resource{}, caps: map[string]float64{},
		capPos: map[string]lexer.Position{}, pooled: map[string]bool{}, pos: it.Pos, q: q}
	if q != nil {
		if it.Count != nil {
			l.errorf(it.Pos, "a queue's device is one per member: write `device %s { … }` without a size", it.Name)
		}
		if q.dev != nil {
			l.errorf(it.Pos, "queue `%s` has a device already", q.name)
			return
		}
		if it.Name == q.name {
			l.errorf(it.Pos, "a queue's device may not be named as the queue")
		}
		if _, ok := q.pools[it.Name]; ok {
			l.errorf(nameAt(it.Pos, it.Tokens, it.Name), "`%s` is declared twice in queue `%s`: it names a pool of the queue already", it.Name, q.name)
		}
		d.name = q.name + "." + it.Name
		d.count, d.array = q.count, true
		q.dev = d
	} else {
		if l.declared(nameAt(it.Pos, it.Tokens, it.Name), name) {
			return
		}
		d.count, d.array = l.count(it.Count, "the size of device `"+name+"`")
		l.devices[name] = d
	}
	for _, r := range it.Resources {
		if _, dup := d.funcs[r.Name]; dup {
			l.errorf(r.Pos, "`%s` is declared twice in device `%s`", r.Name, it.Name)
			continue
		}
		if _, dup := d.caps[r.Name]; dup {
			l.errorf(r.Pos, "`%s` is declared twice in device `%s`", r.Name, it.Name)
			continue
		}
		if r.Cap != nil {
			if x, ok := l.constValue(r.Cap, "capacity `"+r.Name+"`"); ok {
				d.caps[r.Name] = x
			} else {
				d.caps[r.Name] = 0
			}
			d.capPos[r.Name] = r.Pos
			continue
		}
		if _, isDef := l.defs[r.Name]; isDef {
			l.errorf(r.Pos, "`%s` is a def and cannot also be a time resource", r.Name)
		}
		d.funcs[r.Name] = r
	}
}

func (l *lowerer) engine(it *syntax.EngineItem, q *queueDecl) {
	name := it.Name
	if q != nil {
		if name != "" {
			l.errorf(it.Pos, "a queue's engine has no name: write `engine on %s { … }`; it is named `%s` after the queue", it.Device, q.name)
		}
		name = q.name
		if q.eng != nil || q.stageFam >= 0 {
			l.errorf(it.Pos, "queue `%s` has a stage already", q.name)
			return
		}
	} else {
		if name == "" {
			l.errorf(it.Pos, "an engine needs a name: `engine vllm on %s { … }`", it.Device)
			return
		}
		if l.declared(nameAt(it.Pos, it.Tokens, it.Name), name) {
			return
		}
	}
	dev := l.deviceByName(it.Device, q)
	if dev == nil {
		if q != nil {
			l.errorf(it.Pos, "`%s` is no device of queue `%s`; declare `device %s { … }` before the engine", it.Device, q.name, it.Device)
		} else {
			var names []string
			for _, d := range l.allDevices() {
				names = append(names, d.name)
			}
			suggest(l.errorf(nameAt(it.Pos, it.Tokens[1:], it.Device), "`%s` is no device declared above", it.Device), it.Device, names)
		}
		return
	}
	count, array := dev.count, dev.array
	if it.Count != nil && q == nil {
		n, _ := l.count(it.Count, "the size of engine `"+name+"`")
		if n != dev.count {
			l.errorf(it.Count.Pos, "engine `%s[%d]` runs on `%s`, which has %s: the counts must match", name, n, dev.name, plural(dev.count, "member"))
		}
		count, array = n, true
	}
	if dev.engine != nil {
		l.errorf(it.Pos, "device `%s` runs engine `%s` already: one device runs one engine", dev.name, dev.engine.name)
		return
	}
	e := &engineDecl{ast: it, name: name, dev: dev, caps: map[string]*syntax.EngineCap{}, q: q, memory: -1, regs: map[string]int{}}
	e.fam = l.newStageFam(name, count, array, model.Step, 0, nil, it.Pos)
	dev.engine = e
	for _, ep := range dev.early {
		l.memoryOf(e, ep.fam, ep.pos)
	}
	for _, ei := range it.Items {
		if c, ok := ei.(*syntax.EngineCap); ok {
			if _, dup := e.caps[c.Name]; dup {
				l.errorf(c.Pos, "capacity `%s` is declared twice in engine `%s`", c.Name, name)
			}
			e.caps[c.Name] = c
		}
		if r, ok := ei.(*syntax.RetiredEngItem); ok {
			l.errorf(r.Pos, "`%s` inside an engine is retired: %s", r.Word, retiredEngineWords[r.Word])
		}
	}
	l.engines[name] = e
	l.engList = append(l.engList, e)
	if q != nil {
		q.eng = e
		q.stageFam = e.fam
	}
}

var retiredEngineWords = map[string]string{
	"budget":    "write `tokens cap B;`",
	"chunk":     "write `each at most (c)` on the schedule's statements",
	"cost":      "write `execute (…);`",
	"memory":    "the engine's memory is the pool on its device: `pool kv on gpu { … }`",
	"serve":     "write `schedule { advance running; admit waiting while (running.preempted == 0); }`",
	"iteration": "write the statements in `schedule { … }`",
}

var roleEntries = map[string][]string{
	"gateway": {"route"},
	"prefill": {"prefill"},
	"decode":  {"decode"},
	"link":    {"transfer"},
}

// queue declares a queue: its name, size and roles, and its members'
// devices, engines, pools, stage, NIC and entries.
func (l *lowerer) queue(it *syntax.QueueItem) {
	if reservedNames[it.Name] {
		l.errorf(nameAt(it.Pos, it.Tokens, it.Name), "`%s` is a word of the language (an engine's list or a context variable): a queue needs another name", it.Name)
		return
	}
	if _, word := roleEntries[it.Name]; word || it.Name == "route" || it.Name == "transfer" {
		l.errorf(nameAt(it.Pos, it.Tokens, it.Name), "`%s` is a serving word (a role or an entry): a queue needs another name", it.Name)
		return
	}
	if l.declared(nameAt(it.Pos, it.Tokens, it.Name), it.Name) {
		return
	}
	q := &queueDecl{ast: it, name: it.Name, stageFam: -1, latFam: -1, nicFam: -1,
		pools: map[string]int{}, attrs: map[string]bool{}}
	q.count, q.array = l.count(it.Count, "the size of queue `"+it.Name+"`")
	if len(it.Roles) == 0 {
		l.errorf(it.Pos, "queue `%s` needs a role: `queue %s : gateway | prefill | decode | link`", it.Name, it.Name)
	}
	for _, r := range it.Roles {
		if roleEntries[r] == nil {
			l.errorf(it.Pos, "`%s` is no role: roles are gateway, prefill, decode and link", r)
		}
	}
	q.roles = it.Roles
	l.queues[it.Name] = q
	l.qList = append(l.qList, q)
	for _, qi := range it.Items {
		switch qi := qi.(type) {
		case *syntax.DeviceItem:
			l.device(qi, q)
		case *syntax.EngineItem:
			l.engine(qi, q)
		case *syntax.PoolItem:
			l.pool(qi, q)
		case *syntax.ServeItem:
			l.queueServe(q, qi)
		case *syntax.NicItem:
			l.queueNIC(q, qi)
		case *syntax.EntryItem:
			l.queueEntry(q, qi)
			l.entryPolicies(q, qi)
		case *syntax.PictureItem:
			l.picture(q, qi)
		}
	}
	for _, en := range q.entries {
		if !serverSide(q, en) {
			collectSetNames(en.Body.Stmts, func(n string) { q.attrs[n] = true })
			walkSets(en.Body.Stmts, func(n string, pos lexer.Position) { l.site("qattr "+q.name+"."+n, pos) })
		}
		l.leasedPool(q, en)
		if en.Verb == "transfer" && q.latFam >= 0 {
			l.errorf(en.Pos, "link `%s` has a `transfer` entry, which does not wait its `serve` latency: write the latency in the entry body", q.name)
		}
	}
	l.checkRoles(q, it)
}

// queueServe declares a queue's stage from its `serve` (and the delay
// stage of its `latency`).
func (l *lowerer) queueServe(q *queueDecl, qi *syntax.ServeItem) {
	if q.stageFam >= 0 {
		l.errorf(qi.Pos, "queue `%s` has a stage already", q.name)
		return
	}
	kind, servers, phi := l.stageKind(qi.Kind, q.name)
	q.stageFam = l.newStageFam(q.name, q.count, true, kind, servers, phi, qi.Pos)
	if qi.Latency != nil {
		if !slices.Contains(q.roles, "link") {
			l.errorf(qi.Latency.Pos, "`latency` belongs to the `serve` of a queue that plays `link`: it is a wait before each `transfer on %s`", q.name)
		}
		q.latFam = l.newStageFam(q.name+".latency", q.count, true, model.Delay, 0, nil, qi.Pos)
		l.constValue(qi.Latency, "a serve latency")
	}
}

// queueNIC declares a queue's NIC stage.
func (l *lowerer) queueNIC(q *queueDecl, qi *syntax.NicItem) {
	if q.nicFam >= 0 {
		l.errorf(qi.Pos, "queue `%s` has a NIC already", q.name)
		return
	}
	kind, servers, phi := l.stageKind(qi.Kind, q.name+".nic")
	q.nicFam = l.newStageFam(q.name+".nic", q.count, true, kind, servers, phi, qi.Pos)
}

// queueEntry adds an entry to a queue: a verb of one of its roles, once.
func (l *lowerer) queueEntry(q *queueDecl, qi *syntax.EntryItem) {
	ok := false
	for _, r := range q.roles {
		for _, v := range roleEntries[r] {
			ok = ok || v == qi.Verb
		}
	}
	if !ok {
		l.errorf(qi.Pos, "`%s` is no entry of a %s queue", qi.Verb, joinRoles(q.roles))
	}
	for _, prev := range q.entries {
		if prev.Verb == qi.Verb && (prev.From == "") == (qi.From == "") {
			l.errorf(qi.Pos, "queue `%s` has entry `%s` twice", q.name, qi.Verb)
		}
	}
	q.entries = append(q.entries, qi)
}

// checkRoles refuses a role its queue does not play: each role needs its
// entry (a link its entry or a `serve`), and a gateway is one queue.
func (l *lowerer) checkRoles(q *queueDecl, it *syntax.QueueItem) {
	at := nameAt(it.Pos, it.Tokens, it.Name)
	for _, r := range q.roles {
		verbs := roleEntries[r]
		if verbs == nil {
			continue
		}
		has := false
		for _, en := range q.entries {
			has = has || en.Verb == verbs[0]
		}
		switch {
		case r == "gateway" && it.Count != nil:
			l.errorf(at, "queue `%s` is a gateway, and a gateway is one queue: write `queue %s : gateway` without `[…]`", q.name, q.name)
		case r == "link" && !has && q.stageFam < 0:
			l.errorf(at, "link `%s` has neither a `serve` nor a `transfer` entry: say what crossing it costs", q.name)
		case r != "link" && !has:
			l.errorf(at, "queue `%s` plays `%s` and has no `%s` entry", q.name, r, verbs[0])
		}
	}
}

func joinRoles(r []string) string {
	if len(r) == 0 {
		return "role-less"
	}
	s := r[0]
	for _, x := range r[1:] {
		s += "/" + x
	}
	return s
}

// leasedPool records the pool q's entry leases, if any.
func (l *lowerer) leasedPool(q *queueDecl, en *syntax.EntryItem) {
	walkStmts(en.Body.Stmts, func(s syntax.Stmt) {
		if h, ok := s.(*syntax.HoldStmt); ok && h.Lease != nil && q.leases == "" {
			q.leases = h.Lease.Name
		}
	})
	if q.noLease == "" && !leasesOnEveryPath(en.Body.Stmts) {
		q.noLease = en.Verb
	}
}

// leasesOnEveryPath reports whether every path through ss reaches a hold
// with a `lease`.
func leasesOnEveryPath(ss []syntax.Stmt) bool {
	for _, s := range ss {
		switch s := s.(type) {
		case *syntax.HoldStmt:
			if s.Lease != nil || leasesOnEveryPath(s.Body.Stmts) {
				return true
			}
		case *syntax.BranchStmt:
			if s.Else != nil && leasesOnEveryPath(s.Then.Stmts) && leasesOnEveryPath(s.Else.Stmts) {
				return true
			}
		}
	}
	return false
}

// collectSetNames calls f with every name a statement list assigns.
func collectSetNames(ss []syntax.Stmt, f func(string)) {
	walkSets(ss, func(n string, _ lexer.Position) { f(n) })
}

// walkSets calls f with each name the statements assign, where they
// write it.
func walkSets(ss []syntax.Stmt, f func(string, lexer.Position)) {
	walkStmts(ss, func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.SetStmt:
			f(s.Name, nameAt(s.Pos, s.Tokens, s.Name))
		case *syntax.ChooseStmt:
			f(s.Name, s.Pos)
		case *syntax.MarkStmt:
			f(s.Name, s.Pos)
		case *syntax.DeclStmt:
			if s.Fields != nil {
				for _, fl := range s.Fields {
					f(s.Name+"."+fl.Name, s.Pos)
				}
			} else {
				f(s.Name, s.Pos)
			}
		}
	})
}

func (l *lowerer) relation(it *syntax.RelationItem) {
	reader, source := l.queues[it.Reader], l.queues[it.Source]
	if reader == nil || source == nil {
		missing := it.Reader
		if reader != nil {
			missing = it.Source
		}
		l.errorf(it.Pos, "`%s` is no queue declared above: a relation comes after both of its queues", missing)
		return
	}
	if it.Kind == "push" {
		// `P push D`: the source writes into the reader.
		reader, source = source, reader
	}
	if reader == source {
		l.errorf(it.Pos, "queue `%s` cannot read from itself", reader.name)
		return
	}
	if reader.nicFam < 0 || source.nicFam < 0 {
		q := reader
		if q.nicFam >= 0 {
			q = source
		}
		l.errorf(it.Pos, "queue `%s` has no `nic`: a relation's copies cross both queues' NICs", q.name)
		return
	}
	if reader.pull != nil || reader.push != nil {
		l.errorf(it.Pos, "queue `%s` reads through a relation already", reader.name)
		return
	}
	r := &relDecl{ast: it, reader: reader, source: source, kind: it.Kind}
	if it.Latency != nil {
		r.latency, _ = l.constValue(it.Latency, "a relation's latency")
		if r.latency < 0 {
			l.errorf(it.Latency.Pos, "a latency may not be negative")
		}
	}
	poster := reader
	if it.Kind == "push" {
		poster = source
		if source.push != nil {
			l.errorf(it.Pos, "`%s` waits before the copies of another relation already", source.name)
			return
		}
		source.push = r
	}
	reader.pull = r
	if it.Kind == "push" {
		reader.pull = nil
		reader.push = r
	}
	name := poster.name + ".nic.latency"
	if f, ok := l.stageFams[name]; ok {
		r.latFam = f
	} else {
		r.latFam = l.newStageFam(name, poster.count, true, model.Delay, 0, nil, it.Pos)
	}
	l.rels = append(l.rels, r)
	if l.share != nil && l.share.Policy != it.Share {
		l.errorf(it.Pos, "the relation shares `%s` but the program shares `%s`", it.Share, l.share.Policy)
	}
	if l.prog.Share != "" && l.prog.Share != it.Share {
		l.errorf(it.Pos, "the relation shares `%s` but another shares `%s`", it.Share, l.prog.Share)
	}
	l.prog.Share = it.Share
	l.prog.Relations = append(l.prog.Relations, model.Relation{Kind: it.Kind, Reader: reader.name, Source: source.name,
		Latency: model.F64(r.latency), Stage: r.latFam})
}

// finishDeclarations checks what phase 1 can only check at its end.
func (l *lowerer) finishDeclarations() {
	l.recordQueues()
	if l.share != nil {
		if len(l.rels) > 0 {
			l.errorf(l.share.Pos, "a relation declares the program's `share` already: remove this one")
		}
		l.prog.Share = l.share.Policy
	}
	check := func(d *deviceDecl) {
		for name := range d.caps {
			if !d.pooled[name] {
				l.errorf(d.capPos[name], "capacity `%s` of device `%s` is no pool: declare `pool %s on %s { … }`", name, d.name, name, d.short())
			}
		}
	}
	for _, name := range sortedKeys(l.devices) {
		check(l.devices[name])
	}
	for _, q := range l.qList {
		if q.dev != nil {
			check(q.dev)
		}
		if q.eng != nil {
			for n, c := range q.eng.caps {
				if _, ok := q.pools[n]; !ok {
					l.errorf(c.Pos, "capacity `%s` of engine `%s` is no pool: declare `pool %s on %s { … }`", n, q.name, n, q.name)
				}
			}
		}
	}
	for _, e := range l.engList {
		if e.q != nil {
			continue
		}
		for n, c := range e.caps {
			if _, ok := l.poolFams[n]; !ok {
				l.errorf(c.Pos, "capacity `%s` of engine `%s` is no pool: declare `pool %s on %s { … }`", n, e.name, n, e.name)
			}
		}
	}
}

// recordQueues keeps each queue's shape in the model, for the TUI and
// `serq draw`.
func (l *lowerer) recordQueues() {
	l.prog.Queues = []model.Queue{}
	for _, q := range l.qList {
		mq := model.Queue{Name: q.name, Count: q.count, Array: q.array, Roles: q.roles, Stage: q.stageFam,
			Nic: q.nicFam, Pools: []int{}, Entries: []string{}, Leases: -1}
		if mq.Roles == nil {
			mq.Roles = []string{}
		}
		if q.dev != nil {
			mq.Device = q.dev.short()
		}
		for _, it := range q.ast.Items {
			if p, ok := it.(*syntax.PoolItem); ok {
				if fam, ok := q.pools[p.Name]; ok {
					mq.Pools = append(mq.Pools, fam)
				}
			}
		}
		for _, e := range q.entries {
			v := e.Verb
			if e.From != "" {
				v += " from " + e.From
			}
			mq.Entries = append(mq.Entries, v)
		}
		if fam, ok := q.pools[q.leases]; ok {
			mq.Leases = fam
		}
		l.prog.Queues = append(l.prog.Queues, mq)
	}
}
