package syntax

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2"
)

// TestParseExprMatchesOwnParser parses lone expressions with [ParseExpr]
// (the program parser's Expr production) and with a parser built for Expr
// alone, as ParseExpr had: the same tree or the same error.
func TestParseExprMatchesOwnParser(t *testing.T) {
	own := participle.MustBuild[Expr](parserOptions[:3]...)
	exprs := []string{
		"1", "2 * x + 1", "-a ^ -b", "max(1, 2) ? p.len : 3", "sum k in 4 (D[k].kv.used)", "~exp(1)",
		"a && !b || c <= 2", "queue(s) + busy(s[1])", "1e-3 * blocks", "\"s\"", "x.", "(1", "1)", "max k in",
		"a ? b", "1 +", "[1]", "f(,)", "%", "1 /* c */ + 2", "/* open", "// c\n1", "a.b.c[1]", "let x = 1",
		"fn", "0.5.5", "&", "x |", "max x + 1", "sum k 2", "min(a, b) in", "MAX k in 2 (x)",
	}
	r := rand.New(rand.NewPCG(14, 3))
	for range 300 {
		exprs = append(exprs, randomText(r, 1+r.IntN(10)))
	}
	for _, src := range exprs {
		if strings.TrimSpace(src) == "" {
			continue // ParseExpr refuses blank text before parsing
		}
		got, gerr := ParseExpr("e", src)
		var want *Expr
		var werr error
		if lx, err := lex("e", src); err != nil {
			werr = err
		} else {
			want, werr = parseLexed(own, lx, "e")
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(gerr, werr) {
			t.Fatalf("ParseExpr(%q) = error %#v, want %#v", src, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseExpr(%q) gives another tree than Expr's own parser:\n%#v\n%#v", src, got, want)
		}
	}
}
