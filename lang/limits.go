package lang

import (
	"path/filepath"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// The loader's limits. A program past one is refused with an error at
// the place it passes it, never a crash, a hang or memory exhaustion
// (docs/cli.md, "Limits"). None is raisable: each is far above what a
// deployment needs, and the message says how to write the program within
// it.
const (
	// MaxSourceSize caps a program, library or instance file, in bytes;
	// `serq fmt` lays no program out past it.
	MaxSourceSize = syntax.MaxSourceSize
	// MaxExprDepth caps how deeply a lowered expression nests, its defs
	// expanded.
	MaxExprDepth = 1000
	// MaxExpansion caps the expression nodes lowered in a whole program,
	// each def use expanded in place: a def that uses the previous one
	// twice, twenty times over, would otherwise expand to a million
	// million nodes.
	MaxExpansion = 100_000
	// MaxChoose caps the count of `choose j in n by (…)`, as the family
	// sizes are capped.
	MaxChoose = 4096
)

// The kinds of serQ source (internal/safeio), each of at most
// [MaxSourceSize] bytes: a program or an instance file, of any name
// (`serq check prog`), and a .sq file: a library, what `serq fmt`
// rewrites and what the TUI's session pane shows. An error quotes lines
// of a .sq file only: `serq check /etc/shadow` says where and what, and
// does not print the line.
var (
	SourceKind   = safeio.Kind{What: "a source file", Limit: MaxSourceSize, Quote: []string{".sq"}}
	SQKind       = safeio.Kind{What: "a source file", Exts: []string{".sq"}, Limit: MaxSourceSize, Quote: []string{".sq"}}
	InstanceKind = SourceKind
)

// ReadSource reads a source file the way [Load] does when
// [Options.ReadFile] is nil: a regular file of at most [MaxSourceSize]
// bytes ([SourceKind]).
func ReadSource(path string) ([]byte, error) { return SourceKind.Read(path) }

// ReadLibrary reads a library a `use` names ([SQKind]): a .sq file.
func ReadLibrary(path string) ([]byte, error) { return SQKind.Read(path) }

// Hints of the lowering limits.
const (
	hintExpansion = "a def that uses another def more than once multiplies its size: bind a repeated part with `set`"
)

// withinLimits counts one expression or statement lowered at pos and
// reports the first lowering limit passed; once one has been, it returns
// false at once and the caller lowers nothing more.
func (l *lowerer) withinLimits(pos lexer.Position) bool {
	if l.limitHit {
		return false
	}
	l.exprNodes++
	if l.exprDepth > MaxExprDepth {
		l.hitLimit()
		err := l.errorf(pos, "the expression nests deeper than %d levels once its defs are expanded, the limit", MaxExprDepth)
		err.Hint = "name an inner part with `set` or split the def"
		return false
	}
	if l.exprNodes > MaxExpansion {
		l.hitLimit()
		err := l.errorf(pos, "the program expands to more than %d expressions and statements once defs are expanded, the limit", MaxExpansion)
		err.Hint = hintExpansion
		return false
	}
	return true
}

// hitLimit stops the lowering: what it lowers from here on is a stand-in
// (the number 0), whose errors say nothing of the program, so only the
// errors found so far and the limit's are kept.
func (l *lowerer) hitLimit() {
	l.limitHit = true
	l.errsAtLimit = len(l.errs) + 1
}

// chooseCount refuses a constant `choose` count above [MaxChoose].
func (l *lowerer) chooseCount(s *syntax.ChooseStmt, n *model.Expr) {
	if x, ok := n.IsConst(); ok && x > MaxChoose {
		err := l.errorf(s.N.Pos, "`choose %s in %s` tries %s candidates, more than %d, the limit", s.Name, exprText(s.N), fmtNum(x), MaxChoose)
		err.Hint = "choose among a family, whose size is at most 4096"
	}
}

// tracePath resolves the path of `trace "…"`: relative to the program's
// directory, or absolute as written; only a .csv file.
func (l *lowerer) tracePath(it *syntax.TraceItem) string {
	p := filepath.FromSlash(unquote(it.Path))
	if filepath.Ext(p) != ".csv" {
		err := l.errorf(it.Pos, "`trace %s`: a trace is a .csv file", it.Path)
		err.Hint = "`trace` reads a CSV of session,turn,new,out,think[,forced], a path ending in .csv"
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(l.file), p)
}
