package lang

import (
	"regexp"
	"slices"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/model"
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

// Builtins returns the names the language predefines, sorted: the pure
// functions, the distributions (written after `~`), the stage and pool
// observables, `cost`, `budget_left` and `blocksize`, the observation
// aggregates of claims, the context variables (`running.count` and the
// like are dotted), the built-in attributes (those of a trace included),
// and `inf` and `self`.
func Builtins() []string {
	var out []string
	for _, m := range []map[string]model.Func{pureFuncs, stageFuncs, poolFuncs} {
		for k := range m {
			out = append(out, k)
		}
	}
	for k := range dists {
		out = append(out, k)
	}
	for k := range claimFuncs {
		out = append(out, k)
	}
	out = append(out, "cost", "budget_left", "blocksize", "inf", "self",
		"serial", "turn_no", "cached", "computed", "more", "new", "out", "think", "forced")
	out = append(out, model.CtxNames[:]...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Lexer returns the lexer of serQ source; comments and white space are
// tokens of it ([Elided] lists their types).
func Lexer() *lexer.StatefulDefinition { return sqLexer }

// Elided returns the token types the parser skips: comments and white
// space.
func Elided() map[lexer.TokenType]bool {
	return map[lexer.TokenType]bool{tokComment: true, tokBlockComment: true, tokWhitespace: true}
}
