package syntax

import (
	"bytes"
	"fmt"
)

// MaxNesting caps how deeply brackets, unary operators, `?:` and `^` nest
// in the source text: past it [Parse] refuses the program before
// participle's recursive descent could exhaust the stack (docs/cli.md,
// "Limits").
const MaxNesting = 256

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
			return &Error{Pos: ToPos(t.Pos),
				Msg:  fmt.Sprintf("the program nests deeper than %d levels here (brackets, unary operators, `?:` and `^` within one another), the limit", MaxNesting),
				Hint: "name an inner part with a `let` or a `def`"}
		}
	}
}
