package lang

import (
	"sort"
	"strconv"
	"strings"

	"github.com/serq/serq/model"
)

// Error is a static error: the program is wrong, at Pos.
type Error struct {
	Pos  model.Pos
	Msg  string
	Hint string // optional: how to fix it
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

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

// plural writes a count of things: "1 argument", "2 arguments".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
