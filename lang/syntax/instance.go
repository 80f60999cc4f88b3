package syntax

import (
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// An instance file fixes a program's inputs and run settings outside the
// program (docs/cli.md §2): `let NAME = expr;` entries, each binding an
// input the program declares with args.number, and at most one
// `run { horizon X; warmup Y; seed Z; arrivals N; }`. This file parses
// one; lang.ReadInstance checks and evaluates it.

// InstanceFile is a parsed instance file: its entries in order.
type InstanceFile struct {
	Pos   lexer.Position
	Items []*InstanceItem `parser:"@@*"`
}

// InstanceItem is one entry: a `let`, a `run { … }`, or a token that
// starts neither (Junk), parsed so that the check can name what the file
// may hold.
type InstanceItem struct {
	Pos  lexer.Position
	Let  *InstanceLet `parser:"  @@"`
	Run  *InstanceRun `parser:"| @@"`
	Junk string       `parser:"| @(!('let' | 'run'))"`
}

// InstanceLet is `let NAME = expr;`: an input's value.
type InstanceLet struct {
	Pos   lexer.Position
	Name  string `parser:"'let' @Ident '='"`
	Value *Expr  `parser:"@@ ';'"`
}

// InstanceRun is `run { NAME expr; … }`: the run settings.
type InstanceRun struct {
	Pos      lexer.Position
	Settings []*InstanceSetting `parser:"'run' '{' @@* '}'"`
}

// InstanceSetting is one setting of a [InstanceRun]: `horizon 2000;`.
type InstanceSetting struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident"`
	Value *Expr  `parser:"@@ ';'"`
}

// instanceParser is built at its first use, like exprParser.
var instanceParser = sync.OnceValue(func() *participle.Parser[InstanceFile] {
	return participle.MustBuild[InstanceFile](
		participle.Lexer(sqLexer),
		participle.Elide("Comment", "BlockComment", "Whitespace"),
		participle.UseLookahead(participle.MaxLookahead),
	)
})

// ParseInstance parses an instance file. Errors carry positions in
// filename.
func ParseInstance(filename string, src []byte) (*InstanceFile, error) {
	if err := checkText(filename, src); err != nil {
		return nil, err
	}
	lx, err := lex(filename, string(src))
	if err != nil {
		return nil, err
	}
	return parseLexed(instanceParser(), lx, filename)
}
