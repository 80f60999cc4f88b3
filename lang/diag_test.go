package lang

import (
	"errors"
	"strings"
	"testing"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// TestErrorRanges checks that every error Load returns has the range of
// the token it is at, in the program and in a library it uses.
func TestErrorRanges(t *testing.T) {
	lib := "def twice(x) { 2 * x }\ndef bad() { missing_name }\n"
	src := "use \"l.sq\";\nfn main() {\n  let a = twice(3) + nope;\n  let b = bad();\n}\n"
	_, err := LoadSource("m.sq", []byte(src), Options{ReadFile: func(p string) ([]byte, error) {
		if strings.HasSuffix(p, "l.sq") {
			return []byte(lib), nil
		}
		return nil, errors.New("no file")
	}})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("load: %v", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Pos.String()+"-"+model.Pos{Line: e.End.Line, Col: e.End.Col}.String()+" "+e.Msg)
	}
	want := []string{"l.sq:2:13-2:25 undefined: missing_name", "m.sq:3:22-3:26 undefined: nope"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWriteError checks the one writer of diagnostics: the position and
// message, the quoted line cut around a far column with its caret, a
// warning, the notes and the hint, and an error of a whole file.
func TestWriteError(t *testing.T) {
	long := strings.Repeat("x", 150) + "\ttarget"
	line := func(file string, n int) (string, bool) {
		return map[int]string{1: "  let a = nope;", 2: long}[n], n <= 2
	}
	var b strings.Builder
	WriteError(&b, &Error{Pos: model.Pos{File: "m.sq", Line: 1, Col: 11}, Msg: "undefined: nope", Hint: "did you mean `nop`?",
		Notes: []string{"in `f`, used at m.sq:9:2"}}, "", line)
	WriteError(&b, &Error{Pos: model.Pos{Line: 2, Col: 152}, Severity: syntax.SevWarning, Msg: "far\x1b[31m"}, "w.sq", line)
	WriteError(&b, &Error{Pos: model.Pos{File: "x.sq"}, Msg: "cannot read"}, "", line)
	want := "m.sq:1:11: undefined: nope\n | " + "  let a = nope;\n |           ^\nnote: in `f`, used at m.sq:9:2\nhint: did you mean `nop`?\n" +
		"w.sq:2:152: warning: far[31m\n | …" + strings.Repeat("x", 93) + "\ttarget\n | " + strings.Repeat(" ", 94) + "\t^\n" +
		"x.sq: cannot read\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteErrorUnder checks the form of a diagnostic under a line on the
// screen (serq tui's command line after its one-cell prompt): the caret
// under the column, a tab kept as a tab, the message cleaned, then the
// notes and the hint indented to the caret.
func TestWriteErrorUnder(t *testing.T) {
	var b strings.Builder
	WriteErrorUnder(&b, &Error{Pos: model.Pos{Line: 1, Col: 7}, Msg: "undefined: nope\x1b[31m", Hint: "did you mean `now`?",
		Notes: []string{"in `f`"}}, "b\tnow > nope", 1)
	WriteErrorUnder(&b, &Error{Pos: model.Pos{Line: 1, Col: 3}, Severity: syntax.SevWarning, Msg: "odd"}, "ab", 0)
	want := " " + " \t    ^ undefined: nope[31m\n" +
		" " + " \t      note: in `f`\n" +
		" " + " \t      hint: did you mean `now`?\n" +
		"  ^ warning: odd\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}
