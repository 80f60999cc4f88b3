package syntax

import (
	"strings"
	"testing"
)

func TestNestingLimitIsExact(t *testing.T) {
	prog := func(n int) string {
		return "let x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + ";\nfn main() { }\n"
	}
	// `fn main() {` opens one level, but the let is outside it.
	if err := nestingError(prog(MaxNesting)); err != nil {
		t.Errorf("%d parentheses: %v", MaxNesting, err)
	}
	err := nestingError(prog(MaxNesting + 1))
	want := "p.sq:1:265: the program nests deeper than 256 levels here (brackets, unary operators, `?:` and `^` within one another), the limit"
	if err == nil || err.Error() != want {
		t.Errorf("%d parentheses: %v, want %s", MaxNesting+1, err, want)
	}
}

func TestNestingCountsWhatRecurses(t *testing.T) {
	for _, c := range []struct {
		name, src string
		deep      bool
	}{
		{"a long sum", "let x = 1" + strings.Repeat(" - 1 + 1", 1000) + ";", false},
		{"many statements", "fn main() {" + strings.Repeat(" let a = -1;", 1000) + " }", false},
		{"many arguments", "let x = max(" + strings.Repeat("-1, ", 1000) + "1);", false},
		{"a unary chain", "let x = " + strings.Repeat("- ", 300) + "1;", true},
		{"a not chain", "let x = " + strings.Repeat("!", 300) + "1;", true},
		{"a ?: chain", "let x = " + strings.Repeat("1 ? 2 : ", 300) + "3;", true},
		{"a ^ chain", "let x = 2" + strings.Repeat(" ^ 2", 300) + ";", true},
		{"nested braces", strings.Repeat("{", 300) + strings.Repeat("}", 300), true},
	} {
		err := nestingError(c.src)
		if (err != nil) != c.deep {
			t.Errorf("%s: %v, want deep=%v", c.name, err, c.deep)
		}
	}
}

// nestingError is the error of lexing src as p.sq: the nesting check's.
func nestingError(src string) error {
	_, err := lex("p.sq", src)
	return err
}
