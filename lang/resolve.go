package lang

import (
	"fmt"
	"math"

	"github.com/alecthomas/participle/v2/lexer"

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
func (l *lowerer) resolveRes(n *Name, sc *scope, want resKind) (resolved, bool) {
	r, ok, msg := l.lookupRes(n, sc, want)
	if ok && want != resAny && r.kind != want {
		l.errorf(n.Pos, "`%s` is a %s, not a %s", n.text(), r.kind, want)
		return r, false
	}
	if !ok {
		if msg == "" {
			msg = fmt.Sprintf("`%s` is no %s%s", n.text(), want, didYouMean(n.Name, l.resourceNames(sc)))
		}
		l.errorf(n.Pos, "%s", msg)
	}
	return r, ok
}

// resolveResQuiet resolves without reporting.
func (l *lowerer) resolveResQuiet(n *Name, sc *scope) (resolved, bool) {
	saved := len(l.errs)
	r, ok, _ := l.lookupRes(n, sc, resAny)
	l.errs = l.errs[:saved]
	return r, ok
}

func (l *lowerer) resourceNames(sc *scope) []string {
	var names []string
	names = append(names, sortedKeys(l.stageFams)...)
	names = append(names, sortedKeys(l.poolFams)...)
	names = append(names, sortedKeys(l.queues)...)
	if sc.q != nil {
		names = append(names, sortedKeys(sc.q.pools)...)
	}
	return names
}

func (l *lowerer) lookupRes(n *Name, sc *scope, want resKind) (resolved, bool, string) {
	// A def parameter bound to a bare reference stands for that reference.
	if b := sc.vars.lookup(n.Name); b != nil && b.ast != nil {
		if an := nameOf(b.ast); an != nil {
			b.reads++
			m := *an
			if n.Index != nil {
				if m.Index != nil {
					return resolved{}, false, fmt.Sprintf("`%s` is indexed twice", n.text())
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
	}
	member := ""
	if len(n.Path) > 1 {
		return resolved{}, false, ""
	}
	if len(n.Path) == 1 {
		member = n.Path[0]
	}
	// Inside a queue: the member's own resources, and the `from` source.
	if q := sc.q; q != nil {
		if f := sc.from; f != nil && n.Name == f.name {
			if n.Index != nil {
				return resolved{}, false, fmt.Sprintf("`%s` is the request's source member already: write `%s` without an index", f.name, f.name)
			}
			src := f.q
			switch {
			case member == "" && want == resStage:
				return l.member(src.stageFam, f.idx, resStage)
			case member == "":
				fam, ok := src.pools[src.leases]
				if !ok {
					return resolved{}, false, fmt.Sprintf("queue `%s` leases no pool", src.name)
				}
				return l.member(fam, f.idx, resPool)
			case member == "nic":
				return l.member(src.nicFam, f.idx, resStage)
			default:
				if fam, ok := src.pools[member]; ok {
					return l.member(fam, f.idx, resPool)
				}
			}
			return resolved{}, false, ""
		}
		if n.Name == q.name && n.Index == nil {
			switch {
			case member == "":
				if q.stageFam < 0 {
					return resolved{}, false, fmt.Sprintf("queue `%s` has no stage", q.name)
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
					return resolved{}, false, fmt.Sprintf("inside queue `%s`, `%s` is the member's own: write it without an index", q.name, n.Name)
				}
				return l.member(fam, sc.self, resPool)
			}
			if n.Name == "nic" && q.nicFam >= 0 && sc.self != nil {
				return l.member(q.nicFam, sc.self, resStage)
			}
		}
	}
	if q, ok := l.queues[n.Name]; ok {
		var idx *model.Expr
		if n.Index != nil {
			idx = l.index(n, sc, q.count)
		} else if sc.family {
			idx = nil
		} else if q.count == 1 && member != "" {
			idx = model.Num(0)
		} else if q.count == 1 && member == "" && !q.array {
			idx = model.Num(0)
		} else {
			return resolved{}, false, fmt.Sprintf("`%s` is a family of %d: write `%s[i]%s`", q.name, q.count, q.name, dotted(member))
		}
		switch {
		case member == "":
			if q.stageFam < 0 {
				return resolved{}, false, fmt.Sprintf("queue `%s` has no stage", q.name)
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
		return resolved{}, false, fmt.Sprintf("queue `%s` has no pool or stage `%s`", q.name, member)
	}
	full := n.Name
	if member != "" {
		full += "." + member
	}
	if fam, ok := l.poolFams[full]; ok {
		return l.familyRef(n, sc, fam, resPool)
	}
	if fam, ok := l.stageFams[full]; ok {
		return l.familyRef(n, sc, fam, resStage)
	}
	if full == "tool" && l.toolFam < 0 {
		return l.member(l.implicitTool(), nil, resStage)
	}
	return resolved{}, false, ""
}

func dotted(m string) string {
	if m == "" {
		return ""
	}
	return "." + m
}

func (l *lowerer) familyRef(n *Name, sc *scope, fam int, kind resKind) (resolved, bool, string) {
	var f model.Family
	if kind == resPool {
		f = l.prog.PoolFams[fam]
	} else {
		f = l.prog.StageFams[fam]
	}
	if !f.Array {
		if n.Index != nil {
			return resolved{}, false, fmt.Sprintf("`%s` is no array: it takes no index", f.Name)
		}
		return l.member(fam, nil, kind)
	}
	if n.Index == nil {
		if sc.family {
			return l.member(fam, nil, kind)
		}
		return resolved{}, false, fmt.Sprintf("`%s` is an array of %d: write `%s[i]`", f.Name, f.Count, f.Name)
	}
	return l.member(fam, l.index(n, sc, f.Count), kind)
}

// index lowers a member index, checking a constant one against the count.
func (l *lowerer) index(n *Name, sc *scope, count int) *model.Expr {
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

func (l *lowerer) member(fam int, idx *model.Expr, kind resKind) (resolved, bool, string) {
	if fam < 0 {
		return resolved{}, false, ""
	}
	var name string
	if kind == resPool {
		name = "p:" + l.prog.PoolFams[fam].Name
	} else {
		name = "s:" + l.prog.StageFams[fam].Name
	}
	return resolved{kind: kind, Fam: fam, ref: model.Ref{Fam: fam, Index: idx}, key: name}, true, ""
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
