package lang

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
)

// Source text of expressions, rebuilt from their tokens for messages and
// the IR's source fields.

// exprText renders an expression's source from its tokens, one space
// between tokens where the source's layout does not matter: `kv[j - 1]`,
// `min(1, -x)`.
func exprText(e *syntax.Expr) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	prev := ""
	for _, t := range sourceTokens(e) {
		v := t.Value
		if prev != "" && needSpace(prev, v) {
			b.WriteByte(' ')
		}
		b.WriteString(v)
		if v == "-" && (prev == "" || isOperator(prev)) {
			v = "unary-" // no space after a unary minus
		}
		prev = v
	}
	return b.String()
}

// sourceTokens are an expression's tokens without whitespace and comments.
func sourceTokens(e *syntax.Expr) []lexer.Token {
	syms := syntax.Lexer().Symbols()
	var out []lexer.Token
	for _, t := range e.Tokens {
		switch t.Type {
		case syms["Whitespace"], syms["Comment"], syms["BlockComment"]:
			continue
		}
		out = append(out, t)
	}
	return out
}

// isOperator reports a token after which a `-` is a unary minus.
func isOperator(s string) bool {
	switch s {
	case "(", "[", ",", "?", ":", "+", "-", "*", "/", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||", "!", "unary-":
		return true
	}
	return false
}

func needSpace(prev, next string) bool {
	switch {
	case prev == "(" || prev == "[" || prev == "~" || prev == "!" || prev == "." || prev == "unary-":
		return false
	case next == ")" || next == "]" || next == "," || next == "." || next == "(" && isIdent(prev):
		return false
	}
	return true
}
