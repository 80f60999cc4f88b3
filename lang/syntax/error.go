package syntax

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/model"
)

// Severity says whether a diagnostic refuses the program.
type Severity uint8

const (
	SevError   Severity = iota // the program is refused
	SevWarning                 // the program loads; something in it is likely wrong
)

func (s Severity) String() string {
	if s == SevWarning {
		return "warning"
	}
	return "error"
}

// Error is a diagnostic: the program is wrong (or, a warning, likely so),
// at Pos. The parser returns one; lang's lowering and checks return many,
// as a list. Every front end shows one the same way: lang.WriteError
// writes it with its source line and a caret (serq's commands, serq tui's
// command line), and the language server publishes its range.
type Error struct {
	Pos model.Pos
	// End is where the text the error is about ends (exclusive): the
	// token at Pos's end unless the error names a longer span (SetRanges);
	// zero when Pos is at no token (the end of the text, a whole file).
	End      model.Pos
	Severity Severity
	Msg      string // one line: what is wrong
	Hint     string // optional: how to fix it, one line (a "did you mean" suggestion too)
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

// SetRanges gives each error of errs in filename (source src) that has no
// End the end of the token that starts at its position, as the lexer
// reads it: a name, a number, a string, an operator. An error at no token
// keeps its point.
func SetRanges(errs []*Error, filename string, src []byte) {
	at := map[[2]int][]*Error{}
	for _, e := range errs {
		if e.Pos.File == filename && e.Pos.Line > 0 && e.End == (model.Pos{}) {
			k := [2]int{e.Pos.Line, e.Pos.Col}
			at[k] = append(at[k], e)
		}
	}
	if len(at) == 0 {
		return
	}
	l := &sqLex{src: string(src), pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}
	for len(at) > 0 {
		t, err := l.Next()
		if err != nil || t.EOF() {
			return
		}
		k := [2]int{t.Pos.Line, t.Pos.Column}
		if t.Type == tokWhitespace || t.Type == tokComment || t.Type == tokBlockComment {
			continue
		}
		if es, ok := at[k]; ok {
			end := t.Pos
			advance(&end, t.Value)
			for _, e := range es {
				e.End = model.Pos{File: filename, Line: end.Line, Col: end.Column}
			}
			delete(at, k)
		}
	}
}
