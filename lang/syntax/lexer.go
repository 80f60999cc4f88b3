package syntax

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The tokens of serQ source, tried in this order at each offset; the first
// that matches is the token (docs/language.md, "Lexical structure"):
//
//	Comment       //[^\n]*
//	BlockComment  /\*([^*]|\*+[^*/])*\*+/  (up to the first */)
//	Unterminated  /\*                       (a /* with no */ after it)
//	String        "[^"\n]*"
//	Number        (?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?
//	Ident         [\p{L}_][\p{L}\p{N}_]*
//	Punct         <=|>=|==|!=|&&|\|\||[{}()\[\],;:.=~?+\-*/^<>!]
//	Whitespace    [\t\n\f\r ]+
//
// The scanner below gives the tokens, positions and errors that
// participle's regular-expression lexer of these rules (lexer.MustSimple)
// gives, without a regexp and about 20 times faster; lexer_test.go keeps
// that definition and compares the two. Its token types are the ones
// MustSimple numbers: EOF, then the rules from -2 down.
const (
	tokComment lexer.TokenType = -2 - iota
	tokBlockComment
	tokUnterminated
	tokString
	tokNumber
	tokIdent
	tokPunct
	tokWhitespace
)

// symbols names the token types, as [lexer.Definition.Symbols] does.
var symbols = map[string]lexer.TokenType{
	"EOF":          lexer.EOF,
	"Comment":      tokComment,
	"BlockComment": tokBlockComment,
	"Unterminated": tokUnterminated,
	"String":       tokString,
	"Number":       tokNumber,
	"Ident":        tokIdent,
	"Punct":        tokPunct,
	"Whitespace":   tokWhitespace,
}

// LexerDef is the lexer of serQ source, a participle [lexer.Definition]
// with the fast paths [lexer.StringDefinition] and
// [lexer.BytesDefinition]. Comments and white space are tokens of it; the
// parsers elide them ([Elided]).
type LexerDef struct{}

var sqLexer = &LexerDef{}

var (
	_ lexer.Definition       = sqLexer
	_ lexer.StringDefinition = sqLexer
	_ lexer.BytesDefinition  = sqLexer
)

// Symbols maps each token type's name to it. The map is shared: do not
// change it.
func (*LexerDef) Symbols() map[string]lexer.TokenType { return symbols }

// Lex lexes what r holds.
func (d *LexerDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

// LexBytes lexes b (a copy of it: the tokens do not alias b).
func (d *LexerDef) LexBytes(filename string, b []byte) (lexer.Lexer, error) {
	return d.LexString(filename, string(b))
}

// LexString lexes s; the tokens' values are substrings of s.
func (*LexerDef) LexString(filename string, s string) (lexer.Lexer, error) {
	return &sqLex{src: s, pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}, nil
}

// sqLex is the state of one lexing: the text not yet lexed and the
// position of its start.
type sqLex struct {
	src string
	pos lexer.Position
	// unclosed: the text holds no `*/` after a `/*` already met, so no
	// later `/*` has one either (without it a text of many `/*` would take
	// quadratic time).
	unclosed bool
}

// Next returns the next token, EOF at the end (and at every call after
// it), or the error of text no token matches (at every call after it too:
// the lexer does not move past it).
func (l *sqLex) Next() (lexer.Token, error) {
	if len(l.src) == 0 {
		return lexer.EOFToken(l.pos), nil
	}
	typ, n := l.scanToken()
	if n == 0 {
		return lexer.Token{}, invalidText(l.pos, l.src)
	}
	span := l.src[:n]
	l.src = l.src[n:]
	pos := l.pos
	advance(&l.pos, span)
	return lexer.Token{Type: typ, Value: span, Pos: pos}, nil
}

// advance moves p past span, as [lexer.Position.Advance] does (the column
// counts characters, an invalid UTF-8 byte as one), with a fast path for
// the common span: ASCII without a newline.
func advance(p *lexer.Position, span string) {
	for i := 0; i < len(span); i++ {
		if c := span[i]; c == '\n' || c >= utf8.RuneSelf {
			p.Advance(span)
			return
		}
	}
	p.Offset += len(span)
	p.Column += len(span)
}

// invalidText is the error of text no rule matches: participle's, which
// quotes the text's first 16 characters.
func invalidText(pos lexer.Position, rest string) error {
	var sample []rune
	for _, r := range rest {
		if len(sample) == 16 {
			sample = append(sample, []rune("...")...)
			break
		}
		sample = append(sample, r)
	}
	return &lexer.Error{Msg: "lexer: invalid input text " + strconv.Quote(string(sample)), Pos: pos}
}

// scanToken returns the type and length in bytes of the token the text
// starts with, or a length of 0 if none matches.
func (l *sqLex) scanToken() (lexer.TokenType, int) {
	s := l.src
	c := s[0]
	switch {
	case c == '/':
		if len(s) > 1 {
			switch s[1] {
			case '/':
				if i := strings.IndexByte(s, '\n'); i >= 0 {
					return tokComment, i
				}
				return tokComment, len(s)
			case '*':
				if !l.unclosed {
					if i := strings.Index(s[2:], "*/"); i >= 0 {
						return tokBlockComment, 2 + i + 2
					}
					l.unclosed = true
				}
				return tokUnterminated, 2
			}
		}
		return tokPunct, 1
	case c == '"':
		if i := strings.IndexAny(s[1:], "\"\n"); i >= 0 && s[1+i] == '"' {
			return tokString, i + 2
		}
		return 0, 0
	case isDigit(c) || c == '.' && len(s) > 1 && isDigit(s[1]):
		return tokNumber, scanNumber(s)
	case isSpace(c):
		i := 1
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		return tokWhitespace, i
	}
	if n := scanIdent(s); n > 0 {
		return tokIdent, n
	}
	return tokPunct, scanPunct(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isSpace reports whether c is white space as the rules' `\s` is: space,
// \t, \n, \f or \r (a \v is not).
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }

// scanNumber returns the length of the number s starts with (a digit, or
// a `.` and a digit).
func scanNumber(s string) int {
	digits := func(i int) int { // past [0-9_]* from i
		for i < len(s) && (isDigit(s[i]) || s[i] == '_') {
			i++
		}
		return i
	}
	var i int
	if s[0] == '.' {
		i = digits(2)
	} else if i = digits(1); i < len(s) && s[i] == '.' {
		i = digits(i + 1)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// scanIdent returns the length of the identifier s starts with, or 0.
func scanIdent(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && isDigit(c) {
				i++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && (i == 0 || !unicode.IsNumber(r)) {
			break
		}
		i += n
	}
	return i
}

// scanPunct returns the length of the punctuation s starts with, or 0.
func scanPunct(s string) int {
	c := s[0]
	if len(s) > 1 {
		switch d := s[1]; {
		case d == '=' && (c == '<' || c == '>' || c == '=' || c == '!'),
			c == '&' && d == '&', c == '|' && d == '|':
			return 2
		}
	}
	if strings.IndexByte("{}()[],;:.=~?+-*/^<>!", c) >= 0 {
		return 1
	}
	return 0
}
