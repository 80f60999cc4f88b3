package lang

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// observed lowers `observe e = SRC;` in a server where the attributes a, b,
// c, x, y and z are set, and renders the observed value with every
// operation parenthesised (exprString), constants folded.
func observed(t *testing.T, src string) string {
	t.Helper()
	prog := "fn main() {\n  stage s : delay;\n  server {\n    set a = 1; set b = 2; set c = 3; set x = 4; set y = 5; set z = 6;\n" +
		"    observe e = " + src + ";\n    run s (cost(s, 1));\n  }\n}\n"
	p, err := LoadSource("e.sq", []byte(prog), Options{ReadFile: noFiles})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	b, i := findStmt(p.Server, func(s *model.Stmt) bool { return s.Op == model.OpObserve })
	if b == nil {
		t.Fatalf("%s: no observe", src)
	}
	return exprString(p, b.Stmts[i].Value)
}

func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		// Constants fold; `^` binds tighter than unary minus.
		{"-2^2", "-4"},
		{"2^-1", "0.5"},
		{"-2^-2", "-0.25"},
		{"2^3^2", "512"}, // right-associative: 2^(3^2)
		{"(2^3)^2", "64"},
		{"2 - 3 - 4", "-5"}, // left-associative
		{"24 / 4 / 2", "3"},
		{"1 + 2 * 3", "7"},
		{"!0 + 1", "2"},            // `!` is unary: (!0) + 1
		{"- -3", "3"},              // unary minus nests
		{"1 ? 0 : 1 ? 3 : 4", "0"}, // ?: is right-associative: 1 ? 0 : (1 ? 3 : 4)
		{"0 ? 0 : 0 ? 3 : 4", "4"},
		{"0 || 1 && 0", "0"}, // && binds tighter than ||
		{"1 || 0 && 0", "1"},
		{"1_024 + .5", "1024.5"},
		{"3e5 + 2e-5 * 1e5 + 1.5E+2", "300152"},
		{"1. + 0.25_0", "1.25"},
		{"inf - 1", "inf"},
		{"min(3, max(1, 2)) + abs(-2) + floor(2.5) + ceil(2.5) + sqrt(4) + pow(2, 3)", "19"},
		// The same shapes on attributes, unfolded.
		{"-x^2", "(-(x ^ 2))"},
		{"x^-y", "(x ^ (-y))"},
		{"x^y^z", "(x ^ (y ^ z))"},
		{"a - b - c", "((a - b) - c)"},
		{"a / b * c", "((a / b) * c)"},
		{"a + b * c", "(a + (b * c))"},
		{"a || b && c", "(a || (b && c))"},
		{"!a == b", "((!a) == b)"},
		{"a < b + c", "(a < (b + c))"},
		{"a ? b : c ? x : y", "(a ? b : (c ? x : y))"},
		{"(a ? b : c) ? x : y", "((a ? b : c) ? x : y)"},
		{"a ? b ? c : x : y", "(a ? (b ? c : x) : y)"},
		{"-~exp(a)", "(-~exp(a))"},
		{"max k in 3 (k * a)", "max(max((0 * a), (1 * a)), (2 * a))"},
		{"sum k in 2 (a) + 1", "((a + a) + 1)"},
		// Short-circuit operators fold on a decisive constant left side.
		{"0 && a", "0"},
		{"1 || a", "1"},
		{"1 && a", "(1 && a)"},
	}
	for _, tt := range tests {
		if got := observed(t, tt.src); got != tt.want {
			t.Errorf("observe e = %s; lowers to %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestParseErrors checks syntax errors: the message and the position,
// given as fields, not as a formatted string.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"fn main() { server { set e = a < b < c; } }", 1, 36, `unexpected "<", want ` + "`;`"},
		{"fn main() { server { set e = ~exp(1)^2; } }", 1, 37, `unexpected "^", want ` + "`;`"},
		{"fn main() { server { set e = (1 + 2; } }", 1, 36, `unexpected ";", want ` + "`)`"},
		{"fn main() { server { set e = 1 % 2; } }", 1, 32, "invalid character `%`"},
		{"fn main() { server { set e = 1 \x01 2; } }", 1, 32, "invalid character U+0001"},
		{"fn main() { server { set e = 1; }", 1, 34, "unexpected end of file, want `}`"},
		{"fn main() {\n\tserver {\n\t\tset e = 1\n\t}\n}\n", 4, 2, `unexpected "}", want ` + "`;`"},
		// Columns count characters: tabs, a Unicode name and CRLF line ends.
		{"fn main() {\r\n  server { set débit = 1 2; }\r\n}\r\n", 2, 26, `unexpected "2", want ` + "`;`"},
		{"fn main() {\n  server { set λ = 1; set μ = λ λ; }\n}\n", 2, 33, `unexpected "λ", want ` + "`;`"},
		{"fn main() { /* a /* b */ */ }", 1, 26, `unexpected "*", want ` + "`}`"},
		{"fn main() { } /* open", 1, 15, "unterminated block comment: `/*` has no closing `*/`"},
		{"let x = \"a\nb\";", 1, 9, "invalid character `\"`"},
	}
	for _, tt := range tests {
		_, err := syntax.Parse("p.sq", []byte(tt.src))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want an *Error", tt.src, err)
			continue
		}
		if want := (model.Pos{File: "p.sq", Line: tt.line, Col: tt.col}); e.Pos != want || e.Msg != tt.msg {
			t.Errorf("Parse(%q) = %v: %q, want %v: %q", tt.src, e.Pos, e.Msg, want, tt.msg)
		}
	}
}

// TestComments checks that comments are ignored wherever whitespace is.
func TestComments(t *testing.T) {
	src := "// a line comment\n" +
		"fn /* between */ main() { // trailing\n" +
		"  stage s /* in an item */ : delay;/**/\n" +
		"  server { observe e = 1 /* inside * an / expression */ + /***/ 2; run s (cost(s, 1)); }\n" +
		"  /* a block comment\n  over lines, with // and /* inside */\n" +
		"}\n// last line, no newline"
	p, err := LoadSource("c.sq", []byte(src), Options{ReadFile: noFiles})
	if err != nil {
		t.Fatal(err)
	}
	b, i := findStmt(p.Server, func(s *model.Stmt) bool { return s.Op == model.OpObserve })
	if got := exprString(p, b.Stmts[i].Value); got != "3" {
		t.Errorf("observe e = %s, want 3", got)
	}
	if got := b.Stmts[i].Pos; got != (model.Pos{File: "c.sq", Line: 4, Col: 12}) {
		t.Errorf("observe at %v, want c.sq:4:12", got)
	}
}

// TestUnicodeNames checks identifiers with letters outside ASCII.
func TestUnicodeNames(t *testing.T) {
	src := "let λ = 2;\nfn main() {\n  stage σ : delay;\n  server { set débit = λ * 3; observe 吞吐 = débit; run σ (cost(σ, débit)); }\n}\n"
	p, err := LoadSource("u.sq", []byte(src), Options{ReadFile: noFiles})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Consts) != 1 || p.Consts[0].Name != "λ" || p.Consts[0].Value != 2 {
		t.Errorf("Consts = %v, want λ = 2", p.Consts)
	}
	if got := p.Stages[0].Name; got != "σ" {
		t.Errorf("stage %q, want σ", got)
	}
	if got := strings.Join(p.Observes, " "); !strings.HasPrefix(got, "吞吐 ") {
		t.Errorf("Observes = %q, want 吞吐 first", got)
	}
	if got := stmtString(p, p.Server.Stmts[0]); got != "set débit = 6" {
		t.Errorf("first statement %q, want set débit = 6", got)
	}
}

// TestContextualKeywords checks that every keyword stays usable as a name
// where the grammar expects no keyword: a constant, an attribute, an
// observe, a stage and a pool. A def name or parameter may not be one.
func TestContextualKeywords(t *testing.T) {
	// Every word the grammar matches is a keyword.
	for _, m := range regexp.MustCompile(`"([A-Za-z_]+)"`).FindAllStringSubmatch(syntax.Grammar(), -1) {
		if !isKeyword(m[1]) {
			t.Errorf("the grammar matches %q, which is not in keywords", m[1])
		}
	}
	for _, k := range keywords {
		if reservedNames[k] {
			continue // context variables, tested below
		}
		progs := []string{
			"let " + k + " = 2;\nfn main() { stage s : delay; server { observe o = " + k + " * 2; run s (cost(s, " + k + ")); } }\n",
			"fn main() { stage s : delay; server { set " + k + " = 1; observe " + k + " = " + k + " + 1; run s (cost(s, 1)); } }\n",
			"fn main() { stage " + k + " : delay; server { run " + k + " (cost(" + k + ", 1)); } }\n",
			"fn main() { pool " + k + " { cap 2; } stage s : delay; server { hold " + k + " (cost(" + k + ", 1)) { run s (cost(s, used(" + k + "))); } } }\n",
		}
		for _, src := range progs {
			if _, err := LoadSource("k.sq", []byte(src), Options{ReadFile: noFiles}); err != nil {
				t.Errorf("keyword %q as a name:\n%s%v", k, src, err)
			}
		}
		_, err := LoadSource("k.sq", []byte("def "+k+"(x) { x }\nfn main() { }\n"), Options{ReadFile: noFiles})
		if want := "k.sq:1:5: `" + k + "` cannot name a def: it is a keyword or a built-in"; err == nil || err.Error() != want {
			t.Errorf("def %s: %v, want %s", k, err, want)
		}
	}
	// Context variables are reserved: a `let` or `set` may not take them.
	for _, k := range []string{"now", "waited", "running", "batch", "admission"} {
		_, err := LoadSource("k.sq", []byte("let "+k+" = 1;\nfn main() { }\n"), Options{ReadFile: noFiles})
		if want := "k.sq:1:5: `" + k + "` is a context variable or built-in and cannot name a constant"; err == nil || err.Error() != want {
			t.Errorf("let %s: %v, want %s", k, err, want)
		}
	}
}
