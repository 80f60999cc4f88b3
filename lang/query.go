package lang

import (
	"strings"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// QueryFile is the file name of a debugger expression's positions: an
// error in `break used(D[0].kv) >` is at <command>:1:COL.
const QueryFile = "<command>"

// CompileQuery lowers a debugger expression — `serq tui`'s break and
// watch, read after every event — against a lowered program: a serQ
// expression over what a gauge may read (the observables of pools, stages
// and queue members: `used(D[0].kv)`, `queued(…)`, `busy(P[1])`, …), `now`,
// the program's constants and aggregates (`max k in ND (…)`), and two
// built-ins of its own: `leases(POOL)`, the live leases of a pool, and
// `oldest_lease(POOL)`, the age of its oldest (0 with none).
//
// It reads only the program, so it serves a program loaded from source and
// from IR alike: the names it knows are the program's constants, its pool
// and stage families and its queues (with their members' pools and NIC).
// A draw, a session attribute or an unknown name is an error at its column
// of src (file QueryFile, line 1); the program is not changed.
func CompileQuery(p *model.Program, src string) (*model.Expr, error) {
	if strings.ContainsAny(src, "\n\r") {
		return nil, &Error{Pos: model.Pos{File: QueryFile, Line: 1, Col: strings.IndexAny(src, "\n\r") + 1},
			Msg: "a debugger expression is one line"}
	}
	ast, err := syntax.ParseExpr(QueryFile, src)
	if err != nil {
		return nil, err
	}
	l := queryLowerer(p)
	x, _ := l.expr(ast, &scope{l: l, mom: momQuery})
	if len(l.errs) > 0 {
		l.errs.sort()
		return nil, l.errs
	}
	return x, nil
}

// queryLowerer is a lowerer whose tables are rebuilt from a lowered
// program, on a copy of it (lowering may add slots and families, which a
// query must not do to the program it watches).
func queryLowerer(p *model.Program) *lowerer {
	cp := *p
	cp.Attrs = append([]model.Attr(nil), p.Attrs...)
	cp.StageFams = append([]model.Family(nil), p.StageFams...)
	cp.PoolFams = append([]model.Family(nil), p.PoolFams...)
	l := &lowerer{
		file:      QueryFile,
		consts:    map[string]float64{},
		defs:      map[string]*syntax.DefItem{},
		attrs:     map[string]int{},
		observes:  map[string]int{},
		stageFams: map[string]int{},
		poolFams:  map[string]int{},
		devices:   map[string]*deviceDecl{},
		engines:   map[string]*engineDecl{},
		queues:    map[string]*queueDecl{},
		toolFam:   -1,
		prog:      &cp,
	}
	for _, c := range p.Consts {
		l.consts[c.Name] = float64(c.Value)
	}
	for i, a := range p.Attrs {
		l.attrs[a.Name] = i
	}
	for i, name := range p.Observes {
		l.observes[name] = i
	}
	for i, f := range p.StageFams {
		l.stageFams[f.Name] = i
		if f.Name == "tool" {
			l.toolFam = i
		}
	}
	for i, f := range p.PoolFams {
		l.poolFams[f.Name] = i
	}
	if l.toolFam < 0 {
		// A program without `tool` has none to watch; never declare the
		// implicit one here.
		l.toolFam = len(p.StageFams)
	}
	for _, q := range p.Queues {
		d := &queueDecl{name: q.Name, count: q.Count, array: q.Array, roles: q.Roles,
			stageFam: q.Stage, nicFam: q.Nic, latFam: -1, pools: map[string]int{}}
		for _, fam := range q.Pools {
			d.pools[strings.TrimPrefix(p.PoolFams[fam].Name, q.Name+".")] = fam
		}
		if q.Leases >= 0 {
			d.leases = strings.TrimPrefix(p.PoolFams[q.Leases].Name, q.Name+".")
		}
		l.queues[q.Name] = d
		l.qList = append(l.qList, d)
	}
	return l
}
