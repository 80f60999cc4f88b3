package lang

import (
	"fmt"
	"math"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/model"
)

// An instance file fixes a program's inputs and run settings outside the
// program (docs/cli.md §2): `let NAME = expr;` entries, each binding an
// input the program declares with args.number, and at most one
// `run { horizon X; warmup Y; seed Z; arrivals N; }`.

type instanceFile struct {
	Pos   lexer.Position
	Items []*instanceItem `parser:"@@*"`
}

type instanceItem struct {
	Pos  lexer.Position
	Let  *instanceLet `parser:"  @@"`
	Run  *instanceRun `parser:"| @@"`
	Junk string       `parser:"| @(!('let' | 'run'))"`
}

type instanceLet struct {
	Pos   lexer.Position
	Name  string `parser:"'let' @Ident '='"`
	Value *Expr  `parser:"@@ ';'"`
}

type instanceRun struct {
	Pos      lexer.Position
	Settings []*instanceSetting `parser:"'run' '{' @@* '}'"`
}

type instanceSetting struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident"`
	Value *Expr  `parser:"@@ ';'"`
}

// instanceParser is built at its first use, like exprParser.
var instanceParser = sync.OnceValue(func() *participle.Parser[instanceFile] {
	return participle.MustBuild[instanceFile](
		participle.Lexer(sqLexer),
		participle.Elide("Comment", "BlockComment", "Whitespace"),
		participle.UseLookahead(participle.MaxLookahead),
	)
})

// Instance is a parsed instance file.
type Instance struct {
	Sets     []Override // input bindings, in file order
	Horizon  *float64
	Warmup   *float64
	Seed     *float64
	Arrivals *float64
}

// ReadInstance reads an instance file; read nil means [ReadSource].
func ReadInstance(path string, read func(string) ([]byte, error)) (*Instance, error) {
	if read == nil {
		read = ReadSource
	}
	src, err := read(path)
	if err != nil {
		return nil, &Error{Pos: model.Pos{File: path}, Msg: "cannot read: " + describeIOError(err)}
	}
	if err := checkText(path, src); err != nil {
		return nil, err
	}
	f, err := instanceParser().ParseBytes(path, src)
	if err != nil {
		return nil, convertParseError(path, err)
	}
	in := &Instance{}
	var errs ErrorList
	errorf := func(pos lexer.Position, format string, args ...any) {
		errs = append(errs, &Error{Pos: toPos(pos), Msg: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	runs := 0
	junk := false
	for _, it := range f.Items {
		switch {
		case it.Let != nil:
			if seen[it.Let.Name] {
				errorf(it.Let.Pos, "`let %s` is given twice", it.Let.Name)
			}
			seen[it.Let.Name] = true
			in.Sets = append(in.Sets, Override{Name: it.Let.Name, Expr: exprText(it.Let.Value)})
		case it.Run != nil:
			runs++
			if runs > 1 {
				errorf(it.Run.Pos, "a second `run { … }`: an instance holds at most one")
				continue
			}
			for _, s := range it.Run.Settings {
				l := newLowerer(path, Options{})
				v, _ := l.expr(s.Value, &scope{l: l, mom: momConst})
				x, ok := v.IsConst()
				if len(l.errs) > 0 || !ok || math.IsNaN(x) {
					errorf(s.Value.Pos, "`%s` takes a number", s.Name)
					continue
				}
				dst := map[string]**float64{"horizon": &in.Horizon, "warmup": &in.Warmup, "seed": &in.Seed, "arrivals": &in.Arrivals}[s.Name]
				if dst == nil {
					errorf(s.Pos, "`%s` is no run setting: they are horizon, warmup, seed and arrivals", s.Name)
					continue
				}
				*dst = &x
			}
		case !junk:
			junk = true
			errorf(it.Pos, "an instance file holds only `let NAME = expr;` entries and one `run { horizon …; warmup …; seed …; arrivals …; }`")
		}
	}
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	return in, nil
}
