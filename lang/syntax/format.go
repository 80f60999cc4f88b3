package syntax

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/model"
)

// Format returns src in serQ's one canonical layout, as `serq fmt` writes
// it, or the syntax error that stops it (src must parse; nothing else is
// checked). Formatting changes only the white space between tokens, so the
// program and its IR are the same but for positions:
//
//   - line breaks are the source's; runs of blank lines become one, and the
//     file starts with its first token and ends in one newline;
//   - a line is indented two spaces per open brace; a line that continues
//     a statement (the previous line ended inside parentheses or without
//     `;`, `{` or `}`) four more, and four more per parenthesis or bracket
//     still open;
//   - within a line tokens are separated by one space, except none inside
//     parentheses and brackets, before `,` `;` `.` `[` and after `.`,
//     prefix `-` `!` `~`, and before the `:` of a record field; whether
//     a `(` after a name, `]` or `)` has a space before it is the
//     source's choice (`f(x)` is a call, `run s (w)` a clause);
//   - comments are kept as written (trailing space removed), and the
//     trailing `//` comments of consecutive lines start in one column, two
//     spaces after the longest line's code; a line whose code is wider
//     than 100 columns (maxAlign) keeps its comment two spaces after it
//     and sets no column for its neighbours';
//   - a layout past [MaxSourceSize] is an error: formatting never makes a
//     program that loads one that does not.
func Format(filename string, src []byte) ([]byte, error) {
	if _, err := Parse(filename, src); err != nil {
		return nil, err
	}
	toks, err := fmtTokens(filename, src)
	if err != nil {
		return nil, err
	}
	lines := arrange(toks)
	if size := laidOutSize(lines); size > MaxSourceSize {
		// Formatting never changes whether a program loads: indentation
		// could make a file loaded at 1 MiB one that no longer does.
		return nil, &Error{Pos: model.Pos{File: filename},
			Msg:  fmt.Sprintf("formatted, the file would be %d bytes, larger than %s, the limit for a source file", size, safeio.Size(MaxSourceSize)),
			Hint: "the layout indents four spaces per bracket still open: write deeply nested expressions on fewer lines"}
	}
	return render(lines), nil
}

// MaxSourceSize caps a program, library or instance file, in bytes
// (lang.MaxSourceSize); [Format] refuses to lay a program out past it.
const MaxSourceSize = 1 << 20

// maxAlign is the widest code whose trailing comment joins the column of
// its neighbours': past it a comment stays two spaces after its own
// line's code, so one long line does not pad every comment around it.
const maxAlign = 100

// ftok is a token of the source with what the layout needs to know about
// the white space before it.
type ftok struct {
	typ    lexer.TokenType
	val    string
	breaks int  // newlines in the white space before it
	space  bool // white space before it on its line
}

// fmtTokens lexes src keeping comments, each token carrying the line
// breaks and spaces before it.
func fmtTokens(filename string, src []byte) ([]ftok, error) {
	lx, err := sqLexer.LexString(filename, strings.ReplaceAll(string(src), "\r\n", "\n"))
	if err != nil {
		return nil, err
	}
	var out []ftok
	breaks, space := 0, false
	for {
		t, err := lx.Next()
		if err != nil {
			return nil, err
		}
		if t.EOF() {
			break
		}
		if t.Type == tokWhitespace {
			n := strings.Count(t.Value, "\n")
			breaks += n
			space = n == 0
			continue
		}
		val := t.Value
		if t.Type == tokComment {
			val = strings.TrimRight(val, " \t\r")
		}
		out = append(out, ftok{typ: t.Type, val: val, breaks: breaks, space: space})
		breaks, space = 0, false
	}
	return out, nil
}

// fline is one output line: its tokens, the blank lines before it, and
// its indentation.
type fline struct {
	toks   []ftok
	blank  bool // one blank line before it
	indent int  // in spaces
	code   string
	trail  string // a trailing // comment, or ""
}

func (t ftok) isComment() bool { return t.typ == tokComment || t.typ == tokBlockComment }

// operandEnd reports whether a token ends an operand, so that a `-` after
// it is binary.
func (t ftok) operandEnd() bool {
	switch t.typ {
	case tokNumber, tokString:
		return true
	case tokIdent:
		return !prefixKeywords[t.val]
	}
	return t.val == ")" || t.val == "]"
}

// prefixKeywords are the words after which an expression starts, so that
// a `-` after them is a sign.
var prefixKeywords = map[string]bool{"cap": true, "block": true, "granule": true, "latency": true,
	"tool": true, "in": true, "return": true}

// layout lays tokens out as Format describes: lines as in the source,
// each indented and spaced, then trailing comments aligned.
func layout(toks []ftok) []byte { return render(arrange(toks)) }

// arrange lays the tokens out into lines, indented, spaced and their
// trailing comments aligned.
func arrange(toks []ftok) []*fline {
	lines := splitLines(toks)
	var st layoutState
	for _, l := range lines {
		st.line(l)
	}
	alignTrailing(lines)
	return lines
}

// laidOutSize is the bytes render writes for lines.
func laidOutSize(lines []*fline) int {
	n := 0
	for i, l := range lines {
		if l.blank && i > 0 {
			n++
		}
		n += l.indent + len(l.code) + 1
	}
	return n
}

// render writes laid-out lines.
func render(lines []*fline) []byte {
	var out bytes.Buffer
	out.Grow(laidOutSize(lines))
	for i, l := range lines {
		if l.blank && i > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(strings.Repeat(" ", l.indent))
		out.WriteString(l.code)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// splitLines groups the tokens into the source's lines; a line after
// blank lines is marked blank.
func splitLines(toks []ftok) []*fline {
	var lines []*fline
	for i, t := range toks {
		if i == 0 || t.breaks > 0 {
			lines = append(lines, &fline{blank: i > 0 && t.breaks > 1})
		}
		l := lines[len(lines)-1]
		l.toks = append(l.toks, t)
	}
	return lines
}

// layoutState is what the layout knows at the end of a line: the braces
// and brackets open and the last code tokens.
type layoutState struct {
	depth        int
	parens       []string // open ( and [
	braces       []bool   // open {: true for a record
	prev, before ftok     // the last code token so far, and the one before it
	havePrev     bool
	open         bool // the last code line left a statement open
}

// line sets l's indentation and code (and its trailing comment apart).
func (st *layoutState) line(l *fline) {
	first := l.toks[0]
	d := st.depth
	if first.val == "}" {
		d--
	}
	if d < 0 {
		d = 0
	}
	l.indent = 2 * d
	if st.open && first.val != "}" {
		l.indent += 4 + 4*len(st.parens)
	}
	var b strings.Builder
	code := false
	for i, t := range l.toks {
		if t.typ == tokComment && i == len(l.toks)-1 && i > 0 {
			l.trail = t.val
			break
		}
		if i > 0 {
			if a := l.toks[i-1]; spaceBetween(a, t, st.before, st.braces) || !separable(a.val, t.val) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.val)
		if t.isComment() {
			continue
		}
		code = true
		st.track(t)
	}
	l.code = b.String()
	if code {
		st.open = len(st.parens) > 0 || (st.prev.val != ";" && st.prev.val != "{" && st.prev.val != "}")
	}
}

// track follows the braces and brackets a code token opens or closes.
func (st *layoutState) track(t ftok) {
	switch t.val {
	case "{":
		st.braces = append(st.braces, st.havePrev && st.prev.val == "=")
		st.depth++
	case "}":
		if len(st.braces) > 0 {
			st.braces = st.braces[:len(st.braces)-1]
		}
		if st.depth > 0 {
			st.depth--
		}
	case "(", "[":
		st.parens = append(st.parens, t.val)
	case ")", "]":
		if len(st.parens) > 0 {
			st.parens = st.parens[:len(st.parens)-1]
		}
	}
	st.before, st.prev, st.havePrev = st.prev, t, true
}

// alignTrailing starts the trailing comments of consecutive lines in one
// column, two spaces after the longest line's code; a line whose code is
// wider than maxAlign is a run of its own.
func alignTrailing(lines []*fline) {
	width := func(l *fline) int { return l.indent + utf8.RuneCountInString(l.code) }
	for i := 0; i < len(lines); {
		j := i
		w := 0
		for j < len(lines) && lines[j].trail != "" && lines[j].code != "" && (j == i || !lines[j].blank) &&
			(j == i || width(lines[j]) <= maxAlign && w <= maxAlign) {
			w = max(w, width(lines[j]))
			j++
		}
		for k := i; k < j; k++ {
			lines[k].code += strings.Repeat(" ", w+2-width(lines[k])) + lines[k].trail
			lines[k].trail = ""
		}
		if j == i {
			j++
		}
		i = j
	}
}

// spaceBetween reports whether a space separates tokens a and b on one
// line; before is the code token before a (comments skipped; the zero
// token at the start) and braces the open braces (true for a record).
func spaceBetween(a, b ftok, before ftok, braces []bool) bool {
	if a.isComment() || b.isComment() {
		return true
	}
	switch b.val {
	case ",", ";", ")", "]", ".":
		return false
	case "[":
		return !(a.typ == tokIdent || a.val == "]" || a.val == ")")
	case "(":
		if a.typ == tokIdent || a.val == "]" || a.val == ")" {
			return b.space
		}
	case ":":
		if len(braces) > 0 && braces[len(braces)-1] && a.typ == tokIdent {
			return false
		}
	case "}":
		return a.val != "{"
	}
	switch a.val {
	case "(", "[", ".", "!", "~":
		return false
	case "-":
		// A sign when the token before the `-` does not end an operand.
		return before.operandEnd()
	}
	return true
}

// separable reports whether tokens a and b written together lex as a and
// b again (`0` and `.` do not: they make the number `0.`).
func separable(a, b string) bool {
	lx, err := sqLexer.LexString("", a+b)
	if err != nil {
		return false
	}
	for _, want := range []string{a, b} {
		t, err := lx.Next()
		if err != nil || t.EOF() || t.Value != want {
			return false
		}
	}
	t, err := lx.Next()
	return err == nil && t.EOF()
}
