package syntax

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/internal/testutil"
)

// regexpLexer is the lexer serQ had before lexer.go: participle's
// regular-expression lexer of the rules lexer.go lists. The hand-written
// lexer must give exactly its tokens, positions and errors.
var regexpLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*`},
	{Name: "BlockComment", Pattern: `/\*([^*]|\*+[^*/])*\*+/`},
	{Name: "Unterminated", Pattern: `/\*`},
	{Name: "String", Pattern: `"[^"\n]*"`},
	{Name: "Number", Pattern: `(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?`},
	{Name: "Ident", Pattern: `[\p{L}_][\p{L}\p{N}_]*`},
	{Name: "Punct", Pattern: `<=|>=|==|!=|&&|\|\||[{}()\[\],;:.=~?+\-*/^<>!]`},
	{Name: "Whitespace", Pattern: `\s+`},
})

// lexResult is a lexing to its end: the tokens, the EOF included, then
// the error if there is one, and what the next call gave after either.
type lexResult struct {
	toks  []lexer.Token
	err   string
	after string
}

func lexWith(t testing.TB, lx lexer.Lexer, err error) lexResult {
	t.Helper()
	if err != nil {
		t.Fatalf("starting the lexer: %v", err)
	}
	var r lexResult
	for {
		tok, err := lx.Next()
		if err != nil {
			var le *lexer.Error
			if !errors.As(err, &le) {
				t.Fatalf("the error %v is a %T, not a *lexer.Error", err, err)
			}
			r.err = fmt.Sprintf("%q at %#v", le.Msg, le.Pos)
			break
		}
		r.toks = append(r.toks, tok)
		if tok.EOF() {
			break
		}
	}
	tok, err := lx.Next()
	r.after = fmt.Sprintf("%#v %v", tok, err)
	return r
}

// checkSameTokens lexes src with the regexp lexer and each entry point of
// the hand-written one and fails unless all give the same.
func checkSameTokens(t testing.TB, name, src string) {
	t.Helper()
	run := func(lx lexer.Lexer, err error) lexResult { return lexWith(t, lx, err) }
	want := run(regexpLexer.LexString(name, src))
	for _, got := range []struct {
		how string
		res lexResult
	}{
		{"LexString", run(sqLexer.LexString(name, src))},
		{"LexBytes", run(sqLexer.LexBytes(name, []byte(src)))},
		{"Lex", run(sqLexer.Lex(name, strings.NewReader(src)))},
	} {
		if got.res.err != want.err {
			t.Fatalf("%s (%s) %q: error %s, want %s", name, got.how, src, got.res.err, want.err)
		}
		if got.res.after != want.after {
			t.Fatalf("%s (%s) %q: after the end %s, want %s", name, got.how, src, got.res.after, want.after)
		}
		for i := range max(len(got.res.toks), len(want.toks)) {
			if i >= len(got.res.toks) || i >= len(want.toks) || got.res.toks[i] != want.toks[i] {
				g, w := "none", "none"
				if i < len(got.res.toks) {
					g = fmt.Sprintf("%#v", got.res.toks[i])
				}
				if i < len(want.toks) {
					w = fmt.Sprintf("%#v", want.toks[i])
				}
				t.Fatalf("%s (%s) %q: token %d is %s, want %s", name, got.how, src, i, g, w)
			}
		}
	}
	// lex, the parser's way in, gives the same tokens (the EOF
	// included) and error.
	lx, err := lex(name, src)
	if err != nil {
		return // nested too deeply: checked by TestParseMatchesRegexp
	}
	if !reflect.DeepEqual(lx.toks, want.toks) && (len(lx.toks) > 0 || len(want.toks) > 0) {
		t.Fatalf("%s (lex) %q: tokens %v, want %v", name, src, lx.toks, want.toks)
	}
	if (lx.err == nil) != (want.err == "") {
		t.Fatalf("%s (lex) %q: error %v, want %s", name, src, lx.err, want.err)
	}
}

// repoSources are the texts of every .sq file of the repository and of
// every fuzz corpus entry under a testdata/fuzz directory.
func repoSources(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != "../.." {
				return filepath.SkipDir
			}
			return nil
		}
		slash := filepath.ToSlash(path)
		switch {
		case strings.HasSuffix(path, ".sq"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[slash] = string(b)
		case strings.Contains(slash, "/testdata/fuzz/"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, v := range corpusValues(string(b)) {
				out[fmt.Sprintf("%s#%d", slash, i)] = v
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusValues are the []byte and string values of a fuzz corpus file
// ("go test fuzz v1").
func corpusValues(file string) []string {
	var out []string
	for _, line := range strings.Split(file, "\n") {
		for _, typ := range []string{"[]byte(", "string("} {
			if q, ok := strings.CutPrefix(line, typ); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// lexFragments are pieces of text at the edges of the rules: comment
// delimiters, quotes, parts of numbers, operator halves, Unicode letters
// and digits of each kind, white space that is not \s, invalid UTF-8.
var lexFragments = []string{
	"/", "*", "/*", "*/", "**", "//", "\"", "\n", "\r\n", "\t", " ", "\f", "\v", "\x85", "\u00a0", "\u2028",
	"0", "1", "9", "_", ".", "e", "E", "+", "-", "1e5", ".5", "1_0", "2.", "e-",
	"a", "Z", "x1", "é", "ǅ", "ʰ", "中", "٣", "Ⅻ", "²", "\u0301", "😀",
	"<", ">", "=", "!", "&", "|", "&&", "||", "<=", "{", "}", "(", ")", "[", "]", ",", ";", ":", "~", "?", "^",
	"%", "#", "@", "$", "\\", "'", "`",
	"\x00", "\xff", "\xc3", "\xe4\xb8", "\xed\xa0\x80", "\ufffd", "\xef\xbf\xbd",
}

// randomText is n fragments drawn with r.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(lexFragments[r.IntN(len(lexFragments))])
	}
	return b.String()
}

// randomSlice is up to 512 bytes of one of texts, from a random offset
// (not always at a character's start).
func randomSlice(r *rand.Rand, texts []string) string {
	src := texts[r.IntN(len(texts))]
	i := r.IntN(len(src) + 1)
	return src[i : i+r.IntN(min(512, len(src)-i)+1)]
}

// TestLexerMatchesRegexp lexes every program and fuzz corpus entry of the
// repository, every byte, every pair of fragments, random strings of
// fragments and random slices of the programs with both lexers.
func TestLexerMatchesRegexp(t *testing.T) {
	if !reflect.DeepEqual(sqLexer.Symbols(), regexpLexer.Symbols()) {
		t.Fatalf("Symbols() = %v, want %v", sqLexer.Symbols(), regexpLexer.Symbols())
	}
	srcs := repoSources(t)
	if len(srcs) < 30 {
		t.Fatalf("only %d sources found", len(srcs))
	}
	var texts []string
	for name, src := range srcs {
		checkSameTokens(t, name, src)
		texts = append(texts, src)
	}
	for c := range 256 {
		checkSameTokens(t, "byte.sq", string([]byte{byte(c)}))
		checkSameTokens(t, "byte.sq", "a"+string([]byte{byte(c)})+"1")
	}
	for _, a := range lexFragments {
		for _, b := range lexFragments {
			checkSameTokens(t, "pair.sq", a+b)
			checkSameTokens(t, "pair.sq", a+b+"/*x*/")
		}
	}
	r := rand.New(rand.NewPCG(14, 1))
	for range 5000 {
		checkSameTokens(t, "random.sq", randomText(r, 1+r.IntN(24)))
	}
	for range 2000 {
		checkSameTokens(t, "slice.sq", randomSlice(r, texts)+randomText(r, r.IntN(3)))
	}
}

// FuzzLexer compares the two lexers on any text.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{"", "/* a ** b */ x", "1.e+5e-3 .5.5", "\"a\" \"b\n\"", "é٣ ǅx²", "a & b || c", "\xff\x00/*"} {
		f.Add(s)
	}
	for _, s := range lexFragments {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<10 {
			return // the regexp lexer is quadratic on many `/*`
		}
		checkSameTokens(t, "f.sq", src)
	})
}

// regexpParse is [Parse] as it was before lexer.go: the checks lexed the
// text again with the regexp lexer, and participle lexed it a third time.
func regexpParse(p *participle.Parser[File], filename string, src []byte) (*File, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, &Error{Pos: ToPos(lexer.Position{Filename: filename, Line: 1, Column: 1}),
			Msg: "empty program: a program needs `fn main() { … }`"}
	}
	if err := checkText(filename, src); err != nil {
		return nil, err
	}
	var toks []lexer.Token
	lx, _ := regexpLexer.LexString(filename, string(src))
	for {
		t, err := lx.Next()
		if err != nil {
			break
		}
		toks = append(toks, t)
		if t.EOF() {
			break
		}
	}
	var nest nesting
	for _, t := range toks {
		if err := nest.next(t); err != nil {
			return nil, err
		}
	}
	if err := scanComments(toks); err != nil {
		return nil, err
	}
	f, err := p.ParseBytes(filename, src)
	if err != nil {
		return nil, entryPointError(src, convertParseError(filename, err))
	}
	return f, nil
}

// regexpParser is the program parser with the regexp lexer.
var regexpParser = sync.OnceValue(func() *participle.Parser[File] {
	return participle.MustBuild[File](append([]participle.Option{participle.Lexer(regexpLexer)}, parserOptions[1:]...)...)
})

// checkSameParse parses src with [Parse] and with the regexp lexer's
// pipeline and fails unless both give the same tree or the same error.
func checkSameParse(t testing.TB, src string) {
	t.Helper()
	got, gerr := Parse("p.sq", []byte(src))
	want, werr := regexpParse(regexpParser(), "p.sq", []byte(src))
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(gerr, werr) {
		t.Fatalf("Parse(%q) = error %#v, want %#v", src, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse(%q) gives another tree than the regexp lexer's", src)
	}
}

// FuzzParse compares [Parse] with the regexp lexer's pipeline on any
// text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"fn main() {\n  stage s : fifo(1); /* c */\n  workload { arrive poisson(1); }\n  server { run s (cost(s, 1)); }\n}\n",
		"let a = -1 - -2; // x\nfn main() { server { set x = a ? b : c; } }\n",
		"def f(x) { x ^ 2 }\nfn main() { pool kv { cap 1e3; block 16; } }\n",
		"fn worker() {}", "fn main() { /* open", "fn main() { let a = 1 % 2; }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<10 {
			return
		}
		checkSameParse(t, src)
	})
}

// TestParseMatchesRegexp parses every program of the repository, every
// chunk of the error files and the hostile seeds, and random slices of
// them, with [Parse] and with the regexp lexer's pipeline: the same tree
// or the same error. The programs are parsed again with block comments
// after their `;`s.
func TestParseMatchesRegexp(t *testing.T) {
	var texts, programs []string
	for name, src := range repoSources(t) {
		if strings.HasSuffix(name, "errors.sq") || strings.Contains(name, "conformance/testdata/") {
			for _, c := range testutil.Read(name, t) {
				texts = append(texts, c.Source)
			}
			continue
		}
		texts = append(texts, src)
		programs = append(programs, src)
	}
	for _, s := range testutil.HostileSeeds() {
		texts = append(texts, string(s))
	}
	check := func(src string) {
		t.Helper()
		checkSameParse(t, src)
	}
	for _, src := range texts {
		check(src)
	}
	for _, src := range programs {
		// Block comments where white space was: the same tree.
		check(strings.ReplaceAll(src, ";", "; /* c\n */"))
	}
	r := rand.New(rand.NewPCG(14, 2))
	for range 150 {
		check(randomSlice(r, texts) + randomText(r, r.IntN(3)))
	}
}
