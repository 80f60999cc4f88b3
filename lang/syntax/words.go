package syntax

import (
	"regexp"
	"slices"

	"github.com/alecthomas/participle/v2/lexer"
)

// Keywords returns the words the grammar gives a meaning to: every quoted
// literal of [Grammar] that is spelled like an identifier, sorted. Editor
// grammars (editors/) are checked against it.
func Keywords() []string {
	var out []string
	for _, m := range quotedWord.FindAllStringSubmatch(Grammar(), -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var quotedWord = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"`)

// Lexer returns the lexer of serQ source; comments and white space are
// tokens of it ([Elided] lists their types).
func Lexer() *LexerDef { return sqLexer }

// Elided returns the token types the parser skips: comments and white
// space.
func Elided() map[lexer.TokenType]bool {
	return map[lexer.TokenType]bool{tokComment: true, tokBlockComment: true, tokWhitespace: true}
}
