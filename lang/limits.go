package lang

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/model"
)

// The loader's limits. A program past one is refused with an error at
// the place it passes it, never a crash, a hang or memory exhaustion
// (docs/cli.md, "Limits"). None is raisable: each is far above what a
// deployment needs, and the message says how to write the program within
// it.
const (
	// MaxSourceSize caps a program, library or instance file, in bytes.
	MaxSourceSize = 1 << 20
	// MaxNesting caps how deeply brackets, unary operators, `?:` and `^`
	// nest in the source text.
	MaxNesting = 256
	// MaxExprDepth caps how deeply a lowered expression nests, its defs
	// expanded.
	MaxExprDepth = 1000
	// MaxExpansion caps the expression nodes lowered in a whole program,
	// each def use expanded in place: a def that uses the previous one
	// twice, twenty times over, would otherwise expand to a million
	// million nodes.
	MaxExpansion = 100_000
	// MaxChoose caps the count of `choose j in n by (…)`, as the family
	// sizes are capped.
	MaxChoose = 4096
)

// ReadSource reads a source file the way [Load] does when
// [Options.ReadFile] is nil: a regular file of at most [MaxSourceSize]
// bytes.
func ReadSource(path string) ([]byte, error) {
	return safeio.ReadFile(path, MaxSourceSize, "a source file")
}

// checkText refuses source text that is not UTF-8, holds a NUL byte, or
// nests past [MaxNesting]. The error of a binary file has a position but
// the renderer quotes no line of it.
func checkText(filename string, src []byte) error {
	nul, bad := bytes.IndexByte(src, 0), firstInvalidUTF8(src)
	switch {
	case bad < len(src) && (nul < 0 || bad < nul):
		return &Error{Pos: offsetPos(filename, src, bad), Msg: "not a text file: it is not UTF-8"}
	case nul >= 0:
		return &Error{Pos: offsetPos(filename, src, nul), Msg: "not a text file: it holds a NUL byte"}
	}
	return checkNesting(filename, src)
}

// checkNesting bounds the recursion of the parser before it starts: it
// counts, along the tokens, the constructs still open — brackets, and
// within a bracket level the unary operators, `?` and `^` seen since the
// last `,` or `;` at that level (an over-count: a unary operator closes
// with its operand). Each open construct is a few frames of participle's
// recursive descent; 75,000 of them overflowed the Go stack.
func checkNesting(filename string, src []byte) error {
	lx, err := sqLexer.Lex(filename, bytes.NewReader(src))
	if err != nil {
		return nil // the parser reports lexing errors
	}
	sym := sqLexer.Symbols()
	punct, number, ident, str := sym["Punct"], sym["Number"], sym["Ident"], sym["String"]
	elided := map[int]bool{int(sym["Comment"]): true, int(sym["BlockComment"]): true, int(sym["Whitespace"]): true}
	type level struct{ outer, base int }
	var stack []level
	depth, base := 0, 0
	operand := false // the previous token ends an operand: a `-` after it is binary
	for {
		t, err := lx.Next()
		if err != nil || t.EOF() {
			return nil
		}
		if elided[int(t.Type)] {
			continue
		}
		wasOperand := operand
		operand = t.Type == number || t.Type == ident || t.Type == str
		if t.Type != punct {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			stack = append(stack, level{outer: depth, base: base})
			depth++
			base = depth
		case ")", "]", "}":
			operand = t.Value != "}"
			if n := len(stack); n > 0 {
				depth, base = stack[n-1].outer, stack[n-1].base
				stack = stack[:n-1]
			}
			continue
		case ",", ";":
			depth = base
			continue
		case "?", "^", "!":
			depth++
		case "-":
			if wasOperand {
				continue
			}
			depth++
		default:
			continue
		}
		if depth > MaxNesting {
			return &Error{Pos: toPos(t.Pos),
				Msg:  fmt.Sprintf("the program nests deeper than %d levels here (brackets, unary operators, `?:` and `^` within one another), the limit", MaxNesting),
				Hint: "name an inner part with a `let` or a `def`"}
		}
	}
}

// Hints of the lowering limits.
const (
	hintExpansion = "a def that uses another def more than once multiplies its size: bind a repeated part with `set`"
)

// withinLimits counts one expression or statement lowered at pos and
// reports the first lowering limit passed; once one has been, it returns
// false at once and the caller lowers nothing more.
func (l *lowerer) withinLimits(pos lexer.Position) bool {
	if l.limitHit {
		return false
	}
	l.exprNodes++
	if l.exprDepth > MaxExprDepth {
		l.hitLimit()
		err := l.errorf(pos, "the expression nests deeper than %d levels once its defs are expanded, the limit", MaxExprDepth)
		err.Hint = "name an inner part with `set` or split the def"
		return false
	}
	if l.exprNodes > MaxExpansion {
		l.hitLimit()
		err := l.errorf(pos, "the program expands to more than %d expressions and statements once defs are expanded, the limit", MaxExpansion)
		err.Hint = hintExpansion
		return false
	}
	return true
}

// hitLimit stops the lowering: what it lowers from here on is a stand-in
// (the number 0), whose errors say nothing of the program, so only the
// errors found so far and the limit's are kept.
func (l *lowerer) hitLimit() {
	l.limitHit = true
	l.errsAtLimit = len(l.errs) + 1
}

// chooseCount refuses a constant `choose` count above [MaxChoose].
func (l *lowerer) chooseCount(s *ChooseStmt, n *model.Expr) {
	if x, ok := n.IsConst(); ok && x > MaxChoose {
		err := l.errorf(s.N.Pos, "`choose %s in %s` tries %s candidates, more than %d, the limit", s.Name, exprText(s.N), fmtNum(x), MaxChoose)
		err.Hint = "choose among a family, whose size is at most 4096"
	}
}

// tracePath resolves the path of `trace "…"`: relative to the program's
// directory, or absolute as written; only a .csv file.
func (l *lowerer) tracePath(it *TraceItem) string {
	p := filepath.FromSlash(unquote(it.Path))
	if filepath.Ext(p) != ".csv" {
		err := l.errorf(it.Pos, "`trace %s`: a trace is a .csv file", it.Path)
		err.Hint = "`trace` reads a CSV of session,turn,new,out,think[,forced], a path ending in .csv"
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(l.file), p)
}
