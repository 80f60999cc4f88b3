package syntax

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/model"
)

// The grammar needs unbounded lookahead in a few places: `let x =
// args.number(…)` against an expression, a braced `def` body that is an
// expression or statements, an entry call against a statement-def use, and
// retired statements (`prefill (n) growing kv;`) against calls. Alternatives
// are tried in order and the first that matches wins.
//
// The parser is built at its first use ([Parse], [Grammar]), not at
// start-up: building it takes 2.3 MB and a few milliseconds, the largest
// part of a short command's start-up, which a command that parses no
// source (an IR file, --help, --version) does without.
var parser = sync.OnceValue(func() *participle.Parser[File] {
	return participle.MustBuild[File](parserOptions...)
})

// parserOptions build [parser]; the lexer comes first (the tests swap it).
var parserOptions = []participle.Option{
	participle.Lexer(sqLexer),
	participle.Elide("Comment", "BlockComment", "Whitespace"),
	participle.UseLookahead(participle.MaxLookahead),
	participle.Union[Item](&UseItem{}, &LetItem{}, &DefItem{}, &MainItem{}, &RunBlock{},
		&StageItem{}, &PoolItem{}, &DeviceItem{}, &EngineItem{}, &QueueItem{},
		&WorkloadItem{}, &ServerItem{}, &ShareItem{}, &GaugeItem{}, &ClaimItem{},
		&SessionItem{}, &FaultsItem{}, &RelationItem{}, &StrayStmt{}),
	participle.Union[PoolOpt](&CapOpt{}, &BlockOpt{}, &EvictOpt{}, &PreemptOpt{}, &QueueOpt{},
		&ReserveOpt{}, &SpillOpt{}, &AdmitViaOpt{}),
	participle.Union[EngItem](&TokensCap{}, &GranuleItem{}, &StateItem{}, &ScheduleItem{},
		&ExecuteItem{}, &RetiredEngItem{}, &EngineCap{}),
	participle.Union[SchedStmt](&AdvanceStmt{}, &AdmitStmt{}, &ExclusiveStmt{}, &SchedBranch{}, &SchedSet{}),
	participle.Union[QItem](&PoolItem{}, &DeviceItem{}, &EngineItem{}, &ServeItem{}, &NicItem{}, &PictureItem{}, &EntryItem{}),
	participle.Union[WorkItem](&ArriveItem{}, &TraceItem{}, &HiddenItem{}, &InitItem{}, &TurnItem{}, &SessionItem{}, &TimeoutItem{}),
	participle.Union[Stmt](&TurnStmt{}, &SetStmt{}, &ObserveStmt{}, &DeclStmt{}, &HoldStmt{},
		&GrowStmt{}, &DropStmt{}, &ReleaseStmt{}, &LoadStmt{}, &RunStmt{}, &BranchStmt{},
		&WhileStmt{}, &LoopStmt{}, &ForkStmt{}, &JoinStmt{}, &ChooseStmt{}, &EndStmt{},
		&MarkStmt{}, &ToolStmt{}, &TransferStmt{}, &CallStmt{}, &RetiredStmt{}),
}

// exprParser parses a lone expression (`--set name=expr`, `--def`, a
// debugger query): the Expr production of the program parser, sharing its
// grammar. Every command that parses a lone expression parses a program
// too, so building a parser of its own (0.8 ms, 400 KB) was extra work.
var exprParser = sync.OnceValue(func() *participle.Parser[Expr] {
	p, err := participle.ParserForProduction[Expr](parser())
	if err != nil {
		panic(err) // Expr is a production of File
	}
	return p
})

// Grammar returns the grammar in EBNF, for a golden file.
func Grammar() string { return parser().String() }

// ParseExpr parses a lone expression: `--set name=expr`, `--def`, an
// instance's value, a debugger query. Errors carry positions in filename.
func ParseExpr(filename, src string) (*Expr, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Pos: model.Pos{File: filename, Line: 1, Col: 1}, Msg: "empty expression"}
	}
	lx, err := lex(filename, src)
	if err != nil {
		return nil, err
	}
	return parseLexed(exprParser(), lx, filename)
}

// Retired returns the message naming the new form of a word of an older
// dialect (`keep`, `where`, `fit`, …), and whether word is one.
func Retired(word string) (msg string, ok bool) {
	msg, ok = retiredWords[word]
	return msg, ok
}

// retiredWords maps a token of an older dialect, met where the parser
// expected something else, to the message that names the new form.
var retiredWords = map[string]string{
	"keep":    "`keep` is retired: write `cache (…)` after the hold's block",
	"where":   "`where x = e` is retired: write `at admission (x = e)`",
	"fit":     "`fit` is retired: write `reserve (…)` after the pool's units",
	"fits":    "`fits` is retired: write `reserve (…)` after the pool's units",
	"enter":   "`enter` is retired: write `hold POOL (cost(POOL, n)) { … }`",
	"request": "`request` is retired: a `turn;` submits the turn to the server, which routes with `gw.route();`",
	"admit":   "`admit … fit where` is retired: write `hold … at admission (…)`",
}

// Parse parses one source file. Errors carry positions in filename.
func Parse(filename string, src []byte) (*File, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, &Error{Pos: model.Pos{File: filename, Line: 1, Col: 1},
			Msg: "empty program: a program needs `fn main() { … }`"}
	}
	// A binary file, nesting that would exhaust the parser's stack, an
	// unterminated comment: the text is lexed once for these and the parse.
	if err := checkText(filename, src); err != nil {
		return nil, err
	}
	lx, err := lex(filename, string(src))
	if err != nil {
		return nil, err
	}
	if err := scanComments(lx.toks); err != nil {
		return nil, err
	}
	f, err := parseLexed(parser(), lx, filename)
	if err != nil {
		return nil, entryPointError(src, err)
	}
	return f, nil
}

// entryPointError names the entry point when the parse stopped at the
// name after a `fn` that is not `main`: `fn worker() {}`.
func entryPointError(src []byte, err error) error {
	var e *Error
	if !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "unexpected \"") {
		return err
	}
	off := lineOffset(src, e.Pos.Line) + e.Pos.Col - 1
	if off < 0 || off > len(src) {
		return err
	}
	before := strings.TrimRight(string(src[:off]), " \t\r\n")
	if !strings.HasSuffix(before, "fn") || (len(before) > 2 && isIdentByte(before[len(before)-3])) {
		return err
	}
	name := strings.TrimSuffix(strings.TrimPrefix(e.Msg, "unexpected \""), "\"")
	name, _, _ = strings.Cut(name, "\"")
	return &Error{Pos: e.Pos, Msg: fmt.Sprintf("the entry point is `fn main()`, not `fn %s`: a program's other definitions are `def`s", name)}
}

// lineOffset is the byte offset of line n (1-based) in src.
func lineOffset(src []byte, n int) int {
	off := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return off
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func firstInvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func offsetPos(filename string, src []byte, off int) model.Pos {
	line, col := 1, 1
	for _, c := range string(src[:off]) {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return model.Pos{File: filename, Line: line, Col: col}
}

// scanComments reports an unterminated block comment at its start.
func scanComments(toks []lexer.Token) error {
	for _, t := range toks {
		if t.Type == tokUnterminated {
			return &Error{Pos: ToPos(t.Pos), Msg: "unterminated block comment: `/*` has no closing `*/`"}
		}
	}
	return nil
}

func convertParseError(filename string, err error) error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return &Error{Pos: model.Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error()}
	}
	pos := ToPos(perr.Position())
	if pos.File == "" {
		pos.File = filename
	}
	msg := perr.Message()
	var uerr *participle.UnexpectedTokenError
	if errors.As(err, &uerr) {
		tok := uerr.Unexpected
		if m, ok := retiredWords[tok.Value]; ok {
			return &Error{Pos: pos, Msg: m}
		}
		what := fmt.Sprintf("%q", tok.Value)
		if tok.EOF() {
			what = "end of file"
		}
		msg = "unexpected " + what
		if want := closersExpected(uerr.Message()); want != "" {
			msg += ", want " + want
		}
	} else if text, ok := strings.CutPrefix(strings.TrimPrefix(msg, "lexer: "), "invalid input text "); ok {
		if s, err := strconv.Unquote(text); err == nil && s != "" {
			r, _ := utf8.DecodeRuneInString(s)
			text = fmt.Sprintf("%U", r)
			if unicode.IsPrint(r) {
				text = "`" + string(r) + "`"
			}
		}
		msg = "invalid character " + text
	}
	return &Error{Pos: pos, Msg: msg}
}

// closersExpected names the closing tokens (`;`, `)`, `]`, `}`, `,`) a
// participle message "… (expected X)" lists as the next token, or "". Other
// expectations are left out: with contextual keywords the alternative
// participle names is often not the one the author meant.
func closersExpected(msg string) string {
	_, exp, ok := strings.Cut(msg, " (expected ")
	if !ok {
		return ""
	}
	exp = strings.TrimSuffix(exp, ")")
	var alts []string
	if strings.HasPrefix(exp, "(") {
		depth, end := 0, -1
		for i, c := range exp {
			if c == '(' {
				depth++
			} else if c == ')' {
				depth--
				if depth == 0 {
					end = i
					break
				}
			}
		}
		if end < 0 {
			return ""
		}
		alts = strings.Split(exp[1:end], " | ")
	} else {
		alts = []string{exp}
	}
	var want []string
	for _, a := range alts {
		lit, err := strconv.QuotedPrefix(a)
		if err != nil {
			continue
		}
		switch v, _ := strconv.Unquote(lit); v {
		case ";", ")", "]", "}", ",":
			want = append(want, "`"+v+"`")
		}
	}
	return joinOr(want)
}

// joinOr joins words as "a, b or c".
func joinOr(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
