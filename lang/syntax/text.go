package syntax

import (
	"bytes"
	"fmt"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// MaxNesting caps how deeply brackets, unary operators, `?:` and `^` nest
// in the source text: past it [Parse] refuses the program before
// participle's recursive descent could exhaust the stack (docs/cli.md,
// "Limits").
const MaxNesting = 256

// checkText refuses source text that is not UTF-8 or holds a NUL byte.
// The error of a binary file has a position but the renderer quotes no
// line of it.
func checkText(filename string, src []byte) error {
	nul, bad := bytes.IndexByte(src, 0), firstInvalidUTF8(src)
	switch {
	case bad < len(src) && (nul < 0 || bad < nul):
		return &Error{Pos: offsetPos(filename, src, bad), Msg: "not a text file: it is not UTF-8"}
	case nul >= 0:
		return &Error{Pos: offsetPos(filename, src, nul), Msg: "not a text file: it holds a NUL byte"}
	}
	return nil
}

// lexed is source text lexed once, for the checks before the parse and
// for the parse itself.
type lexed struct {
	peek *lexer.PeekingLexer // for the parser: comments and white space elided
	toks []lexer.Token       // every token, the EOF last unless err
	err  error               // the lexing error after toks, or nil
}

// lex lexes src once, keeping every token, and refuses nesting past
// [MaxNesting] as it goes (before a lexing error, which the parse
// reports): a text nested too deeply is lexed only up to the point where
// it is refused.
func lex(filename, src string) (*lexed, error) {
	l := &checkingLexer{sqLex: sqLex{src: src, pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}}
	peek, err := lexer.Upgrade(l, tokComment, tokBlockComment, tokWhitespace)
	if l.deep != nil {
		return nil, l.deep
	}
	return &lexed{peek: peek, toks: peek.Range(0, lexer.RawCursor(l.n)), err: err}, nil
}

// checkingLexer checks the nesting of the tokens it returns and counts
// them: [lexer.Upgrade] keeps them all, and [lexer.PeekingLexer.Range]
// gives them back.
type checkingLexer struct {
	sqLex
	nesting
	n    int   // the tokens returned
	deep error // the nesting error that stopped the lexing, or nil
}

func (l *checkingLexer) Next() (lexer.Token, error) {
	t, err := l.sqLex.Next()
	if err != nil {
		return t, err
	}
	if err := l.nesting.next(t); err != nil {
		l.deep = err
		return lexer.Token{}, err
	}
	l.n++
	return t, nil
}

// parseLexed parses lexed text of filename with p; its lexing error or
// the parse's is a syntax [Error] (convertParseError).
func parseLexed[G any](p *participle.Parser[G], lx *lexed, filename string) (*G, error) {
	err := lx.err
	if err == nil {
		var g *G
		if g, err = p.ParseFromLexer(lx.peek); err == nil {
			return g, nil
		}
	}
	return nil, convertParseError(filename, err)
}

// nesting bounds the recursion of the parser before it starts: it counts,
// along the tokens, the constructs still open — brackets, and within a
// bracket level the unary operators, `?` and `^` seen since the last `,`
// or `;` at that level (an over-count: a unary operator closes with its
// operand). Each open construct is a few frames of participle's recursive
// descent; 75,000 of them overflowed the Go stack.
type nesting struct {
	stack       []nestLevel
	depth, base int
	operand     bool // the previous token ends an operand: a `-` after it is binary
}

type nestLevel struct{ outer, base int }

// next takes the next token, and refuses it if it nests past [MaxNesting].
func (s *nesting) next(t lexer.Token) error {
	switch t.Type {
	case tokComment, tokBlockComment, tokWhitespace, lexer.EOF:
		return nil
	}
	wasOperand := s.operand
	s.operand = t.Type == tokNumber || t.Type == tokIdent || t.Type == tokString
	if t.Type != tokPunct {
		return nil
	}
	switch t.Value {
	case "(", "[", "{":
		s.stack = append(s.stack, nestLevel{outer: s.depth, base: s.base})
		s.depth++
		s.base = s.depth
	case ")", "]", "}":
		s.operand = t.Value != "}"
		if n := len(s.stack); n > 0 {
			s.depth, s.base = s.stack[n-1].outer, s.stack[n-1].base
			s.stack = s.stack[:n-1]
		}
		return nil
	case ",", ";":
		s.depth = s.base
		return nil
	case "?", "^", "!":
		s.depth++
	case "-":
		if wasOperand {
			return nil
		}
		s.depth++
	default:
		return nil
	}
	if s.depth > MaxNesting {
		return &Error{Pos: ToPos(t.Pos),
			Msg:  fmt.Sprintf("the program nests deeper than %d levels here (brackets, unary operators, `?:` and `^` within one another), the limit", MaxNesting),
			Hint: "name an inner part with a `let` or a `def`"}
	}
	return nil
}
