package lang

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/internal/spell"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

type lexerPos = lexer.Position

type resKind int

const (
	resAny resKind = iota
	resPool
	resStage
)

func (k resKind) String() string {
	return [...]string{"pool or stage", "pool", "stage"}[k]
}

type resolved struct {
	kind resKind
	Fam  int
	ref  model.Ref
	key  string // for cost types: "p:NAME" or "s:NAME"
}

// resolveRes resolves a reference to one member of a pool or stage family,
// reporting an error when it cannot.
func (l *lowerer) resolveRes(n *syntax.Name, sc *scope, want resKind) (resolved, bool) {
	r, err := l.lookupRes(n, sc, want)
	switch {
	case errors.Is(err, errNoResource):
		l.suggestRes(l.errorf(n.Pos, "`%s` is no %s", nameText(n), want), n, sc, want)
		return r, false
	case err != nil:
		l.errorf(n.Pos, "%s", err)
		return r, false
	case want != resAny && r.kind != want:
		l.suggestRes(l.errorf(n.Pos, "`%s` is a %s, not a %s", nameText(n), r.kind, want), n, sc, want)
		return r, false
	}
	l.bindRes(n, r)
	return r, true
}

// suggestRes sets e's hint to the resource of kind want (any kind for
// resAny; a queue is a stage, and the queue of a member `Q.kv`) whose name
// is nearest to n's, saying its kind and where it is declared: "did you
// mean pool `kv`, declared at m.sq:2:8?".
func (l *lowerer) suggestRes(e *Error, n *syntax.Name, sc *scope, want resKind) {
	name, member := n.Name, len(n.Path) > 0
	kinds := map[string]string{}
	for k := range l.stageFams {
		kinds[k] = "stage"
	}
	for k := range l.queues {
		kinds[k] = "queue"
	}
	for k := range l.poolFams {
		kinds[k] = "pool"
	}
	if sc.q != nil {
		for k := range sc.q.pools {
			kinds[k] = "pool"
		}
	}
	var cands []string
	for k, kind := range kinds {
		if k != name && (want == resAny || member && kind == "queue" || want == resPool && kind == "pool" || want == resStage && kind != "pool") {
			cands = append(cands, k)
		}
	}
	sort.Strings(cands)
	best := spell.Nearest(name, cands)
	if best == "" {
		return
	}
	e.Hint = fmt.Sprintf("did you mean %s `%s`", kinds[best], best)
	if p, ok := l.sites[best]; ok {
		e.Hint += ", declared at " + p.String()
	}
	e.Hint += "?"
}

// resolveResQuiet resolves without reporting.
func (l *lowerer) resolveResQuiet(n *syntax.Name, sc *scope) (resolved, bool) {
	saved := len(l.errs)
	r, err := l.lookupRes(n, sc, resAny)
	l.errs = l.errs[:saved]
	return r, err == nil
}

// errNoResource is lookupRes's error for a name that is no pool or stage
// in its scope, with nothing more particular to say of it: resolveRes then
// says "`x` is no stage" and suggests a close name.
var errNoResource = errors.New("no such pool or stage")

// errLookOn tells lookupRes that a step of the lookup does not know the
// name and the next step should look.
var errLookOn = errors.New("look on")

// lookupRes resolves n, read in scope sc where want is expected, to one
// member of a pool or stage family (or to the whole family, in a scope
// that reads families: sc.family). It looks, in order, through a def
// parameter bound to a bare reference (in the parameter's own scope),
// inside a queue (the request's `from` source, then the member's own
// resources), at the queue families, at the pool and stage families, and
// last at the implicit stage `tool`. The error is errNoResource when no
// step knows the name, or says why the name is wrong where it is (indexed
// twice, an array without an index, a queue without that resource). It
// reports nothing itself, but lowering an index may report (resolveResQuiet
// drops that). The kind of the result may differ from want: resolveRes
// checks it.
func (l *lowerer) lookupRes(n *syntax.Name, sc *scope, want resKind) (resolved, error) {
	if r, err := l.lookupParam(n, sc, want); err != errLookOn {
		return r, err
	}
	member := ""
	if len(n.Path) > 1 {
		return resolved{}, errNoResource
	}
	if len(n.Path) == 1 {
		member = n.Path[0]
	}
	if sc.q != nil {
		if r, err := l.lookupInQueue(n, member, sc, want); err != errLookOn {
			return r, err
		}
	}
	if q, ok := l.queues[n.Name]; ok {
		return l.lookupQueueMember(n, member, q, sc)
	}
	full := n.Name + dotted(member)
	if fam, ok := l.poolFams[full]; ok {
		return l.familyRef(n, sc, fam, resPool)
	}
	if fam, ok := l.stageFams[full]; ok {
		return l.familyRef(n, sc, fam, resStage)
	}
	if full == "tool" && l.toolFam < 0 {
		return l.member(l.implicitTool(), nil, resStage)
	}
	return resolved{}, errNoResource
}

// lookupParam resolves a def parameter bound to a bare reference: it
// stands for that reference, with n's index and path added.
func (l *lowerer) lookupParam(n *syntax.Name, sc *scope, want resKind) (resolved, error) {
	b := sc.vars.lookup(n.Name)
	if b == nil || b.ast == nil {
		return resolved{}, errLookOn
	}
	an := nameOf(b.ast)
	if an == nil {
		return resolved{}, errLookOn
	}
	b.reads++
	m := *an
	if n.Index != nil {
		if m.Index != nil {
			return resolved{}, fmt.Errorf("`%s` is indexed twice", nameText(n))
		}
		m.Index = n.Index
	}
	m.Path = append(append([]string(nil), an.Path...), n.Path...)
	at := b.sc
	if sc.family && !at.family {
		c := *at
		c.family = true
		at = &c
	}
	return l.lookupRes(&m, at, want)
}

// lookupInQueue resolves a name inside a queue's entry: the request's
// `from` source member and its resources, the queue's own name for its
// stage, nic and pools, and the member's own pools and nic by their bare
// names.
func (l *lowerer) lookupInQueue(n *syntax.Name, member string, sc *scope, want resKind) (resolved, error) {
	q := sc.q
	if f := sc.from; f != nil && n.Name == f.name {
		if n.Index != nil {
			return resolved{}, fmt.Errorf("`%s` is the request's source member already: write `%s` without an index", f.name, f.name)
		}
		src := f.q
		switch {
		case member == "" && want == resStage:
			return l.member(src.stageFam, f.idx, resStage)
		case member == "":
			fam, ok := src.pools[src.leases]
			if !ok {
				return resolved{}, fmt.Errorf("queue `%s` leases no pool", src.name)
			}
			return l.member(fam, f.idx, resPool)
		case member == "nic":
			return l.member(src.nicFam, f.idx, resStage)
		default:
			if fam, ok := src.pools[member]; ok {
				return l.member(fam, f.idx, resPool)
			}
		}
		return resolved{}, errNoResource
	}
	if n.Name == q.name && n.Index == nil {
		switch {
		case member == "":
			if q.stageFam < 0 {
				return resolved{}, fmt.Errorf("queue `%s` has no stage", q.name)
			}
			return l.member(q.stageFam, sc.self, resStage)
		case member == "nic" && q.nicFam >= 0:
			return l.member(q.nicFam, sc.self, resStage)
		default:
			if fam, ok := q.pools[member]; ok {
				return l.member(fam, sc.self, resPool)
			}
		}
	}
	if member == "" {
		if fam, ok := q.pools[n.Name]; ok && sc.self != nil {
			if n.Index != nil {
				return resolved{}, fmt.Errorf("inside queue `%s`, `%s` is the member's own: write it without an index", q.name, n.Name)
			}
			return l.member(fam, sc.self, resPool)
		}
		if n.Name == "nic" && q.nicFam >= 0 && sc.self != nil {
			return l.member(q.nicFam, sc.self, resStage)
		}
	}
	return resolved{}, errLookOn
}

// lookupQueueMember resolves a queue family's name, `Q[i]`, `Q[i].pool`
// or `Q.nic`, to the member's stage, pool or nic; a family of one may be
// named without an index.
func (l *lowerer) lookupQueueMember(n *syntax.Name, member string, q *queueDecl, sc *scope) (resolved, error) {
	var idx *model.Expr
	switch {
	case n.Index != nil:
		idx = l.index(n, sc, q.count)
	case sc.family:
		idx = nil
	case q.count == 1 && (member != "" || !q.array):
		idx = model.Num(0)
	default:
		return resolved{}, fmt.Errorf("`%s` is a family of %d: write `%s[i]%s`", q.name, q.count, q.name, dotted(member))
	}
	switch {
	case member == "":
		if q.stageFam < 0 {
			return resolved{}, fmt.Errorf("queue `%s` has no stage", q.name)
		}
		return l.member(q.stageFam, idx, resStage)
	case member == "nic" && q.nicFam >= 0:
		return l.member(q.nicFam, idx, resStage)
	}
	if fam, ok := q.pools[member]; ok {
		return l.member(fam, idx, resPool)
	}
	if fam, ok := l.stageFams[q.name+"."+member]; ok {
		return l.member(fam, idx, resStage)
	}
	return resolved{}, fmt.Errorf("queue `%s` has no pool or stage `%s`", q.name, member)
}

func dotted(m string) string {
	if m == "" {
		return ""
	}
	return "." + m
}

// familyRef resolves a pool or stage family's name: an array needs an
// index (but in a family scope), a single family takes none.
func (l *lowerer) familyRef(n *syntax.Name, sc *scope, fam int, kind resKind) (resolved, error) {
	var f model.Family
	if kind == resPool {
		f = l.prog.PoolFams[fam]
	} else {
		f = l.prog.StageFams[fam]
	}
	if !f.Array {
		if n.Index != nil {
			return resolved{}, fmt.Errorf("`%s` is no array: it takes no index", f.Name)
		}
		return l.member(fam, nil, kind)
	}
	if n.Index == nil {
		if sc.family {
			return l.member(fam, nil, kind)
		}
		return resolved{}, fmt.Errorf("`%s` is an array of %d: write `%s[i]`", f.Name, f.Count, f.Name)
	}
	return l.member(fam, l.index(n, sc, f.Count), kind)
}

// index lowers a member index, checking a constant one against the count.
func (l *lowerer) index(n *syntax.Name, sc *scope, count int) *model.Expr {
	x, t := l.expr(n.Index, sc)
	if t.isCost() {
		l.errorf(n.Index.Pos, "an index is a plain number, not %s", t)
	}
	if v, ok := x.IsConst(); ok {
		switch {
		case v != math.Floor(v) && !math.IsInf(v, 0):
			l.errorf(n.Index.Pos, "index %s of `%s` is not a whole number", fmtNum(v), n.Name)
			return model.Num(0)
		case v < 0 || v >= float64(count) || math.IsNaN(v):
			l.errorf(n.Index.Pos, "index %s of `%s` is out of range: it has %s", fmtNum(v), n.Name, plural(count, "member"))
			return model.Num(0)
		}
	}
	return x
}

// member is the reference to member idx of family fam (nil: the whole
// family); errNoResource when there is no such family (fam < 0).
func (l *lowerer) member(fam int, idx *model.Expr, kind resKind) (resolved, error) {
	if fam < 0 {
		return resolved{}, errNoResource
	}
	var name string
	if kind == resPool {
		name = "p:" + l.prog.PoolFams[fam].Name
	} else {
		name = "s:" + l.prog.StageFams[fam].Name
	}
	return resolved{kind: kind, Fam: fam, ref: model.Ref{Fam: fam, Index: idx}, key: name}, nil
}

// implicitTool declares the delay stage `tool` a program uses without
// declaring it (docs/semantics.md, "Requests and their automatic observes").
func (l *lowerer) implicitTool() int {
	if l.toolFam < 0 {
		l.toolFam = l.newStageFam("tool", 1, false, model.Delay, 0, nil, l.workloadPos())
	}
	return l.toolFam
}

func (l *lowerer) workloadPos() (p lexerPos) {
	if l.workload != nil {
		return l.workload.Pos
	}
	return p
}
