package lang

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/model"
)

// nameAt is where a declaration writes its name: the first token after
// its keyword that is the name, or pos when the name is not written (an
// engine named after its queue).
func nameAt(pos lexer.Position, toks []lexer.Token, name string) lexer.Position {
	for i, t := range toks {
		if i > 0 && t.Value == name {
			return t.Pos
		}
	}
	return pos
}

// paramAt is where a def writes its parameter name.
func paramAt(d *DefItem, name string) lexer.Position {
	for i, t := range d.Tokens {
		if t.Value == "(" {
			return nameAt(d.Pos, d.Tokens[i:], name)
		}
	}
	return d.Pos
}

// site records where name is first declared, for the errors of a second
// declaration.
func (l *lowerer) site(name string, pos lexer.Position) {
	if l.sites == nil {
		l.sites = map[string]model.Pos{}
	}
	if _, ok := l.sites[name]; !ok {
		p := toPos(pos)
		if p.File == "" {
			p.File = l.file
		}
		l.sites[name] = p
	}
}

// firstAt says where name was first declared: " (first at FILE:LINE:COL)",
// or nothing when that is not known.
func (l *lowerer) firstAt(name string) string {
	if p, ok := l.sites[name]; ok {
		return fmt.Sprintf(" (first at %s)", p)
	}
	return ""
}

// isBuiltinFunc reports a function of the language that is no keyword:
// a def parameter of that name would hide it.
func isBuiltinFunc(name string) bool {
	return name == "blocksize" || name == "budget_left" || pureFuncs[name] != 0
}

// attrSites records where the program first assigns each attribute, in
// the order a reader meets them: the workload, the server, the queues'
// entries, the defs.
func (l *lowerer) attrSites() {
	rec := func(n string, pos lexer.Position) { l.site("attr "+n, pos) }
	if l.workload != nil {
		for _, it := range l.workload.Items {
			switch it := it.(type) {
			case *InitItem:
				walkSets(it.Body.Stmts, rec)
			case *TurnItem:
				walkSets(it.Body.Stmts, rec)
			case *SessionItem:
				walkSets(it.Body.Stmts, rec)
			}
		}
	}
	if l.server != nil {
		walkSets(l.server.Body.Stmts, rec)
	}
	for _, name := range sortedKeys(l.defs) {
		walkSets(l.defs[name].Stmts, rec)
	}
}

// didYouMeanAt is didYouMean, saying where a suggested attribute is first
// assigned: " (did you mean granted, set at lib.sq:2:7?)".
func (l *lowerer) didYouMeanAt(name string, candidates []string) string {
	hint := didYouMean(name, candidates)
	if hint == "" {
		return ""
	}
	best := strings.TrimSuffix(strings.TrimPrefix(hint, " (did you mean "), "?)")
	if p, ok := l.sites["attr "+best]; ok {
		return fmt.Sprintf(" (did you mean %s, set at %s?)", best, p)
	}
	return hint
}
