package syntax

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/model"
)

// Error is a static error: the program is wrong, at Pos. The parser
// returns one; lang's lowering and checks return many, as a list.
type Error struct {
	Pos  model.Pos
	Msg  string // one line: what is wrong
	Hint string // optional: how to fix it, one line (a "did you mean" suggestion too)
	// Notes say where the error comes from when its position is not where
	// the program wrote the mistake's cause: "in `take`, used at
	// main.sq:5:10" for an error in a def's body, innermost def first.
	Notes []string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ToPos converts a token's position to the model's (both 1-based; the
// column counts characters).
func ToPos(p lexer.Position) model.Pos {
	return model.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}
