package lang

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Error is a static error: the program is wrong, at Pos. It is the
// parser's error type, so that one type describes every error of a
// program.
type Error = syntax.Error

// ErrorList holds every static error of a program, sorted by position.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// dedupe removes errors repeated at one position with one message (a def
// expanded twice reports its body's error once).
func (l ErrorList) dedupe() ErrorList {
	out := l[:0]
	seen := map[string]bool{}
	for _, e := range l {
		k := e.Error()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// errList is the lowerer's errors sorted, without repeats, each with its
// range in the file it is about.
func (l *lowerer) errList() ErrorList {
	l.errs.sort()
	l.errs = l.errs.dedupe()
	for file, src := range l.sources {
		syntax.SetRanges(l.errs, file, src)
	}
	return l.errs
}

// withRanges gives the errors of err (an *Error or an ErrorList) their
// ranges in the files of sources.
func withRanges(err error, sources map[string][]byte) error {
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		return err
	}
	for file, src := range sources {
		syntax.SetRanges(list, file, src)
	}
	return err
}

// plural writes a count of things: "1 argument", "2 arguments".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// noteUse adds to each error reported since mark inside def d's body (its
// file, from its start, and not in the use site's file after the def)
// where d was used.
func (l *lowerer) noteUse(mark int, d *syntax.DefItem, use lexer.Position) {
	usePos := syntax.ToPos(use)
	if usePos.File == "" {
		usePos.File = l.file
	}
	defPos := syntax.ToPos(d.Pos)
	if defPos.File == "" {
		defPos.File = l.file
	}
	for _, e := range l.errs[mark:] {
		if e.Pos.File != defPos.File || posBefore(e.Pos, defPos) {
			continue
		}
		if e.Pos.File == usePos.File && !posBefore(e.Pos, usePos) {
			continue // an argument's error, at the use site
		}
		switch {
		case len(e.Notes) < maxUseNotes:
			e.Notes = append(e.Notes, fmt.Sprintf("in `%s`, used at %s", d.Name, usePos))
		case len(e.Notes) == maxUseNotes:
			e.Notes = append(e.Notes, "and further uses, not shown")
		}
	}
}

// maxUseNotes bounds the use-site notes of one error: a def expanded
// within itself many times over would otherwise note every level.
const maxUseNotes = 4

func posBefore(a, b model.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// errorf records a static error at pos (in the file being lowered when pos
// names none) and returns it, for the caller to add a Hint or Notes.
func (l *lowerer) errorf(pos lexer.Position, format string, args ...any) *Error {
	e := &Error{Pos: syntax.ToPos(pos), Msg: fmt.Sprintf(format, args...)}
	if e.Pos.File == "" {
		e.Pos.File = l.file
	}
	l.errs = append(l.errs, e)
	return e
}

// addErr records err: an ErrorList's errors, an *Error, or any other error
// as an error of the whole file.
func (l *lowerer) addErr(err error) {
	var el ErrorList
	var e *Error
	switch {
	case errors.As(err, &el):
		l.errs = append(l.errs, el...)
	case errors.As(err, &e):
		l.errs = append(l.errs, e)
	default:
		l.errs = append(l.errs, &Error{Pos: model.Pos{File: l.file}, Msg: err.Error()})
	}
}
