package lang

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Binding is one name the program reads and the declaration the lowering
// bound it to, as the checker resolves it (shadowing, libraries, queue
// members and all). Options.Bindings receives them.
type Binding struct {
	// Use is where the name is written, UseEnd where it ends: for `D[j].kv`
	// the member `kv` (its queue `D` is a binding of its own).
	Use, UseEnd model.Pos
	// Kind is what the name is: parameter (of a def or an entry), let,
	// input, def, attribute, pool, stage, queue or entry.
	Kind string
	// Name is the declaration's name: `kv`, `D.kv` (queue D's pool),
	// `D.decode` (an entry).
	Name string
	// Decl is where the declaration writes the name; zero where lang
	// knows none.
	Decl model.Pos
}

// pendingBind is a binding whose declaration is looked up once the
// lowering is done (an attribute's first assignment may come later): by
// key in the lowerer's sites, or at decl.
type pendingBind struct {
	b    Binding
	key  string
	decl lexer.Position
}

// bindUse records that the name written at pos (name as written) is the
// declaration of kind and name found under key in the sites (the first
// of keys "a|b" that is there), or at decl when key is "".
func (l *lowerer) bindUse(pos lexer.Position, written, kind, name, key string, decl lexer.Position) {
	if l.opts.Bindings == nil || pos.Line == 0 {
		return
	}
	use := l.posOf(pos)
	end := use
	end.Col += utf8.RuneCountInString(written)
	l.binds = append(l.binds, pendingBind{b: Binding{Use: use, UseEnd: end, Kind: kind, Name: name}, key: key, decl: decl})
}

// posOf is a token's position in the model's terms, in the file being
// lowered when it names none.
func (l *lowerer) posOf(pos lexer.Position) model.Pos {
	p := syntax.ToPos(pos)
	if p.File == "" {
		p.File = l.file
	}
	return p
}

// sendBindings gives Options.Bindings every binding recorded, each use
// once, with its declaration's position.
func (l *lowerer) sendBindings() {
	if l.opts.Bindings == nil {
		return
	}
	seen := map[model.Pos]bool{}
	for _, p := range l.binds {
		if seen[p.b.Use] {
			continue
		}
		seen[p.b.Use] = true
		b := p.b
		switch {
		case p.key != "":
			for _, k := range strings.Split(p.key, "|") {
				if d, ok := l.sites[k]; ok {
					b.Decl = d
					break
				}
			}
		case p.decl.Line > 0:
			b.Decl = l.posOf(p.decl)
		}
		l.opts.Bindings(b)
	}
}

// memberAt is where a name writes its path's last member (`kv` of
// `D[j].kv`), or its own position.
func memberAt(n *syntax.Name) lexer.Position {
	if len(n.Path) == 0 {
		return n.Pos
	}
	last := n.Path[len(n.Path)-1]
	for i := len(n.Tokens) - 1; i > 0; i-- {
		if t := n.Tokens[i]; t.Value == last && n.Tokens[i-1].Value == "." {
			return t.Pos
		}
	}
	return lexer.Position{}
}

// bindRes records the resource a name resolved to: its queue (for a
// member `D[j].kv`) and the pool or stage family.
func (l *lowerer) bindRes(n *syntax.Name, r resolved) {
	if l.opts.Bindings == nil {
		return
	}
	fams, kind := l.prog.StageFams, "stage"
	if r.kind == resPool {
		fams, kind = l.prog.PoolFams, "pool"
	}
	if r.Fam < 0 || r.Fam >= len(fams) {
		return
	}
	name := fams[r.Fam].Name
	if q, ok := l.queues[n.Name]; ok {
		l.bindUse(n.Pos, n.Name, "queue", q.name, q.name, atSite)
		if len(n.Path) == 0 {
			return // the queue's stage is the queue
		}
		l.bindUse(memberAt(n), n.Path[len(n.Path)-1], kind, name, kind+" "+name, atSite)
		return
	}
	if len(n.Path) == 0 {
		l.bindUse(n.Pos, n.Name, kind, name, kind+" "+name, atSite)
	}
}

// entryParamAt is where entry e writes its parameter name.
func entryParamAt(e *syntax.EntryItem, name string) lexer.Position {
	for i, t := range e.Tokens {
		if t.Value == "(" {
			return nameAt(e.Pos, e.Tokens[i:], name)
		}
	}
	return e.Pos
}

// verbAt is where a call writes its entry's verb (`decode` of
// `D[j].decode (…)`).
func verbAt(s *syntax.CallStmt) lexer.Position {
	depth := 0
	for i, t := range s.Tokens {
		switch t.Value {
		case "[", "(":
			depth++
		case "]", ")":
			depth--
		}
		if depth == 0 && i > 0 && t.Value == s.Verb && s.Tokens[i-1].Value == "." {
			return t.Pos
		}
	}
	return lexer.Position{}
}

// inputOf is the input whose `let` is named local, nil if none is.
func (l *lowerer) inputOf(local string) *inputDecl {
	for _, in := range l.inputs {
		if in.local == local {
			return in
		}
	}
	return nil
}

// atSite is bindUse's decl for a declaration looked up by its key.
var atSite lexer.Position
