package syntax

import (
	"testing"

	"github.com/serq/serq/model"
)

// TestSetRanges checks an error's range: the token at its position (a
// name, a dotted name's first part, a number, a two-character operator, a
// string with a multi-byte character), a point where no token starts,
// another file's error untouched, and a range already set kept.
func TestSetRanges(t *testing.T) {
	src := "fn main() {\n  let x = blocksize + 12.5e3 <= \"é\";\n  set y = batch.tokens;\n}\n"
	at := func(line, col int) *Error { return &Error{Pos: model.Pos{File: "a.sq", Line: line, Col: col}} }
	errs := []*Error{at(2, 11), at(2, 23), at(2, 30), at(2, 33), at(3, 11), at(2, 10), at(9, 1),
		{Pos: model.Pos{File: "b.sq", Line: 2, Col: 11}}, {Pos: model.Pos{File: "a.sq", Line: 1, Col: 1}, End: model.Pos{File: "a.sq", Line: 4, Col: 2}}}
	SetRanges(errs, "a.sq", []byte(src))
	want := [][2]int{{2, 20}, {2, 29}, {2, 32}, {2, 36}, {3, 16}, {0, 0}, {0, 0}, {0, 0}, {4, 2}}
	for i, e := range errs {
		if got := [2]int{e.End.Line, e.End.Col}; got != want[i] {
			t.Errorf("error %d at %v: end %v, want %v", i, e.Pos, got, want[i])
		}
	}
}
