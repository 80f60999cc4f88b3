package lang

import (
	"errors"
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
// the program's constants and aggregates (`max k in ND (…)`), the
// program's gauges by name and its observes (a name alone is the running
// mean; `mean(o)`, `count(o)`, `last(o)`), and the debugger's built-ins,
// the counts the TUI's panes show: `leases(POOL)` (live leases),
// `oldest_lease(POOL)` (the oldest's age, 0 with none), `leased(POOL)`
// (the units they hold), `expired(POOL)`, `late_reads(POOL)`,
// `parked(POOL)` (holders that are not residents of its engine),
// `preempted(POOL)` and `evicted(POOL)` (since t = 0), `running(E)` and
// `waiting(E)` (an engine's residents and the requests queued at the pools
// it admits).
//
// A queue member's resource is named either way: `D[0].kv` as the language
// writes it, or `D.kv[0]` as the panes label it.
//
// It reads only the program, so it serves a program loaded from source and
// from IR alike: the names it knows are the program's constants, its pool
// and stage families and its queues (with their members' pools and NIC).
// A draw, a session attribute or an unknown name is an error at its column
// of src (file QueryFile, line 1), with the nearest name it knows; the
// program is not changed.
func CompileQuery(p *model.Program, src string) (*model.Expr, error) {
	if strings.ContainsAny(src, "\n\r") {
		return nil, &Error{Pos: model.Pos{File: QueryFile, Line: 1, Col: strings.IndexAny(src, "\n\r") + 1},
			Msg: "a debugger expression is one line"}
	}
	text, cols := labelsAsMembers(p, src)
	ast, err := syntax.ParseExpr(QueryFile, text)
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			e := *se
			e.Pos.Col = cols.at(e.Pos.Col)
			if strings.Contains(e.Msg, `unexpected "["`) && e.Hint == "" {
				e.Hint = "name a queue member's pool as the panes do, `D.kv[0]`, or as the language does, `D[0].kv`"
			}
			return nil, &e
		}
		return nil, err
	}
	l := queryLowerer(p)
	x, _ := l.expr(ast, &scope{l: l, mom: momQuery})
	if len(l.errs) > 0 {
		for _, e := range l.errs {
			e.Pos.Col = cols.at(e.Pos.Col)
		}
		l.errs.sort()
		return nil, l.errs
	}
	return x, nil
}

// colMap maps a column of a rewritten query (1-based) to the column of
// the text typed.
type colMap []int

func (m colMap) at(col int) int {
	if col >= 1 && col <= len(m) {
		return m[col-1]
	}
	return col
}

// labelsAsMembers rewrites the panes' labels of queue members' resources,
// `D.kv[0]` and `P.nic[i + 1]`, as the language writes them, `D[0].kv`,
// `P[i + 1].nic`: a queue's name, a dotted path, then an index in
// brackets. The rewrite keeps the text's length; cols maps its columns
// back to the text's.
func labelsAsMembers(p *model.Program, src string) (string, colMap) {
	queues := map[string]bool{}
	for _, q := range p.Queues {
		queues[q.Name] = true
	}
	b := []byte(src)
	cols := make(colMap, len(b))
	for i := range cols {
		cols[i] = i + 1
	}
	for _, c := range b {
		if c >= 0x80 {
			return src, nil // labels are ASCII; columns then count characters
		}
	}
	isIdent := func(c byte, first bool) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
	}
	for i := 0; i < len(b); {
		if !isIdent(b[i], true) || i > 0 && (isIdent(b[i-1], false) || b[i-1] == '.') {
			i++
			continue
		}
		j := i
		for j < len(b) && isIdent(b[j], false) {
			j++
		}
		path := j
		k := j
		for k+1 < len(b) && b[k] == '.' && isIdent(b[k+1], true) {
			k++
			for k < len(b) && isIdent(b[k], false) {
				k++
			}
		}
		if !queues[string(b[i:j])] || k == path || k >= len(b) || b[k] != '[' {
			i = j
			continue
		}
		depth, end := 0, -1
		for m := k; m < len(b) && end < 0; m++ {
			switch b[m] {
			case '[':
				depth++
			case ']':
				if depth--; depth == 0 {
					end = m + 1
				}
			}
		}
		if end < 0 {
			i = j
			continue
		}
		// name path [index] → name [index] path
		seg := append(append(append([]byte(nil), b[i:j]...), b[k:end]...), b[path:k]...)
		segCols := append(append(append([]int(nil), cols[i:j]...), cols[k:end]...), cols[path:k]...)
		copy(b[i:end], seg)
		copy(cols[i:end], segCols)
		i = end
	}
	return string(b), cols
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
