package lang

import (
	"fmt"
	"io"
	"strings"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/lang/syntax"
)

// SourceLine returns line n (1-based) of file as it may be quoted in a
// diagnostic; false quotes none (a file that cannot be read, or a line
// that is not printable text).
type SourceLine func(file string, n int) (string, bool)

// WriteError writes one diagnostic as serq's commands show it on stderr
// (serq tui's command line, where the line is on the screen, writes it
// under it: WriteErrorUnder): `file:line:col: message`
// (a warning says so), the source line with a caret under the column, the
// notes and the hint, each on a line of its own. file names the error's
// file when it has none; line quotes the source (nil: none). No control
// character of the message, its notes or its hint reaches the terminal.
func WriteError(w io.Writer, e *Error, file string, line SourceLine) {
	pos := e.Pos
	if pos.File == "" {
		pos.File = file
	}
	msg := message(e)
	if pos.Line <= 0 {
		fmt.Fprintf(w, "%s: %s\n", safeio.Printable(pos.File), msg)
	} else {
		fmt.Fprintf(w, "%s: %s\n", safeio.Printable(pos.String()), msg)
		if line != nil {
			if text, ok := line(pos.File, pos.Line); ok {
				text, col := snippet(text, pos.Col)
				fmt.Fprintf(w, " | %s\n", text)
				if col > 0 {
					fmt.Fprintf(w, " | %s^\n", caretIndent(text, col))
				}
			}
		}
	}
	for _, n := range e.Notes {
		fmt.Fprintf(w, "note: %s\n", safeio.Printable(n))
	}
	if e.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", safeio.Printable(e.Hint))
	}
}

// WriteErrorUnder writes e under a line its reader already sees, as serq
// tui's command line shows a bad command or expression: a caret under
// e's column of line (line starting indent cells from the left, after the
// prompt) followed by the message, then the notes and the hint, each
// indented to the caret. The caret is placed, and the text cleaned, as
// WriteError does; the position's file and line are the line's, so they
// are not written.
func WriteErrorUnder(w io.Writer, e *Error, line string, indent int) {
	pad := strings.Repeat(" ", indent) + caretIndent(line, max(e.Pos.Col, 1))
	fmt.Fprintf(w, "%s^ %s\n", pad, message(e))
	for _, n := range e.Notes {
		fmt.Fprintf(w, "%s  note: %s\n", pad, safeio.Printable(n))
	}
	if e.Hint != "" {
		fmt.Fprintf(w, "%s  hint: %s\n", pad, safeio.Printable(e.Hint))
	}
}

// message is e's message as a diagnostic writes it: a warning says so.
func message(e *Error) string {
	msg := safeio.Printable(e.Msg)
	if e.Severity == syntax.SevWarning {
		msg = "warning: " + msg
	}
	return msg
}

// snippetWidth is the most characters of a source line a diagnostic
// quotes; a longer line is cut around the column, each cut marked with
// "…", so that a one-line program of megabytes does not flood stderr.
const snippetWidth = 100

// snippet cuts line around col (1-based, in characters) to at most
// snippetWidth characters plus the marks, and returns the column of the
// same character in the cut line (0 stays 0).
func snippet(line string, col int) (string, int) {
	runes := []rune(line)
	if len(runes) <= snippetWidth {
		return line, col
	}
	c := max(col, 1) - 1 // 0-based
	start := max(c-snippetWidth/2, 0)
	end := min(start+snippetWidth, len(runes))
	start = max(end-snippetWidth, 0)
	out := string(runes[start:end])
	if col > 0 {
		col -= start
	}
	if start > 0 {
		out = "…" + out
		if col > 0 {
			col++
		}
	}
	if end < len(runes) {
		out += "…"
	}
	return out, col
}

// caretIndent is the prefix that puts a caret under column col (1-based,
// in characters) of line: a tab for each tab before it, else a space.
func caretIndent(line string, col int) string {
	var b strings.Builder
	n := 0
	for _, r := range line {
		if n >= col-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	for ; n < col-1; n++ {
		b.WriteByte(' ')
	}
	return b.String()
}
