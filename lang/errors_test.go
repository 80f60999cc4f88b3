package lang

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lang/syntax"
)

// TestErrors loads each chunk of testdata/errors.sq, a malformed program,
// and checks that it gets exactly the errors its `// ### "…"` comments
// expect, each on the line the comment stands on.
//
// An error is matched as "COL: MSG", with "\nhint: HINT" appended when the
// error has a hint, so an expectation pins the column too. Every
// expectation is anchored (^…$), and the messages' metacharacters are
// quoted with \Q…\E:
//
//	// ### "^12: \\Qundefined: x\nhint: did you mean `y`?\\E$"
func TestErrors(t *testing.T) {
	file := filepath.Join("testdata", "errors.sq")
	chunks := testutil.Read(file, t)
	if len(chunks) < 40 {
		t.Errorf("%s has %d chunks, want at least 40", file, len(chunks))
	}
	for _, c := range chunks {
		if !strings.Contains(c.Source, "###") {
			t.Errorf("%s: a chunk expects no error:\n%s", file, c.Source)
		}
		_, err := LoadSource(c.Filename, []byte(c.Source), Options{ReadFile: noFiles})
		for _, e := range errorsOf(t, err) {
			if e.Pos.File != c.Filename {
				t.Errorf("%s: an error in another file: %v", file, e)
				continue
			}
			if strings.ContainsAny(e.Msg+e.Hint, "\n\r") {
				t.Errorf("%s: an error of more than one line (a Msg or Hint is one line; Notes hold the rest): %q", file, e.Msg+"|"+e.Hint)
			}
			c.GotError(e.Pos.Line, chunkMsg(e))
		}
		c.Done()
	}
}

// chunkMsg is what an expectation of errors.sq matches.
func chunkMsg(e *Error) string {
	s := fmt.Sprintf("%d: %s", e.Pos.Col, e.Msg)
	if e.Hint != "" {
		s += "\nhint: " + e.Hint
	}
	return s
}

// TestErrorsAnchored checks that every expectation of errors.sq matches a
// whole message: a pattern that matched a part would let a wrong column or
// a longer message pass.
func TestErrorsAnchored(t *testing.T) {
	file := filepath.Join("testdata", "errors.sq")
	n := 0
	for _, c := range testutil.Read(file, t) {
		for i, line := range strings.Split(c.Source, "\n") {
			_, rest, ok := strings.Cut(line, "###")
			for ok {
				rest = strings.TrimSpace(rest)
				lit, err := strconv.QuotedPrefix(rest)
				if err != nil {
					t.Errorf("chunk line %d: bad expectation %q", i+1, rest)
					break
				}
				pat, _ := strconv.Unquote(lit)
				if !strings.HasPrefix(pat, "^") || !strings.HasSuffix(pat, "$") {
					t.Errorf("chunk line %d: expectation %s is not anchored with ^…$", i+1, lit)
				}
				n++
				_, rest, ok = strings.Cut(rest[len(lit):], "###")
			}
		}
	}
	if n < 40 {
		t.Errorf("%s expects %d errors, want at least 40", file, n)
	}
}

func noFiles(path string) ([]byte, error) {
	return nil, fmt.Errorf("open %s: no such file", path)
}

// errorsOf returns the static errors in err, failing on any other error.
func errorsOf(t *testing.T, err error) []*Error {
	t.Helper()
	var list ErrorList
	var one *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &list):
		return list
	case errors.As(err, &one):
		return []*Error{one}
	}
	t.Errorf("an error that is not a static error: %T %v", err, err)
	return nil
}

// TestParseEmptyAndBinary checks the two files that are no program text.
func TestParseEmptyAndBinary(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"empty", "", "e.sq:1:1: empty program: a program needs `fn main() { … }`"},
		{"blank", " \n\t\r\n  ", "e.sq:1:1: empty program: a program needs `fn main() { … }`"},
		{"nul", "fn main() {\n  stage s\x00 : delay;\n}\n", "e.sq:2:10: not a text file: it holds a NUL byte"},
		{"latin1", "// caf\xe9\nfn main() { }\n", "e.sq:1:7: not a text file: it is not UTF-8"},
		{"elf", "\x7fELF\x02\x01\x01\x00\x00", "e.sq:1:8: not a text file: it holds a NUL byte"},
		{"utf16", "\xff\xfef\x00n\x00", "e.sq:1:1: not a text file: it is not UTF-8"},
	}
	for _, tt := range tests {
		f, err := syntax.Parse("e.sq", []byte(tt.src))
		var e *Error
		if f != nil || !errors.As(err, &e) {
			t.Errorf("%s: Parse = %v, %v; want a *Error", tt.name, f, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s: Parse error = %q, want %q", tt.name, got, tt.want)
		}
		// LoadSource reports the same single error.
		_, lerr := LoadSource("e.sq", []byte(tt.src), Options{ReadFile: noFiles})
		if lerr == nil || lerr.Error() != tt.want {
			t.Errorf("%s: LoadSource error = %v, want %q", tt.name, lerr, tt.want)
		}
	}
}

// TestLibraryErrors checks the errors reported in a `use`d file: at their
// position in the library.
func TestLibraryErrors(t *testing.T) {
	files := map[string]string{
		"dir/main.sq":       "use \"lib/bad.sq\";\nfn main() { stage s : delay; server { run s (cost(s, 1)); } }\n",
		"dir/lib/bad.sq":    "def ok(x) { x }\npool kv { cap 1; }\nuse \"more.sq\";\n",
		"dir/lib/more.sq":   "fn main() { }\nlet c = 1;\n",
		"dir/main2.sq":      "use \"nowhere.sq\";\nfn main() { }\n",
		"dir/main3.sq":      "use \"lib/syntax.sq\";\nfn main() { }\n",
		"dir/lib/syntax.sq": "def f(x) { x +  }\n",
		// A use before its definition: in the file, and across libraries
		// (a.sq, read first, uses b.sq's def; the program's def uses a later one).
		"dir/order.sq": "use \"lib/a.sq\";\nuse \"lib/b.sq\";\ndef give(n) { take(n) }\ndef take(n) { n }\n" +
			"fn main() { stage s : delay; server { run s (cost(s, give(1) + twice(1))); } }\n",
		"dir/lib/a.sq": "def twice(x) { double(x) }\n",
		"dir/lib/b.sq": "def double(x) { 2 * x }\n",
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[filepath.ToSlash(p)]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: no such file", p)
	}
	tests := []struct {
		file string
		want []string
	}{
		{"dir/main.sq", []string{
			"dir/lib/bad.sq:2:1: a library holds only `def` and `use`, not pool `kv`",
			"dir/lib/more.sq:1:1: a library holds only `def` and `use`, not `fn main`",
			"dir/lib/more.sq:2:1: a library holds only `def` and `use`, not `let c`",
		}},
		{"dir/main2.sq", []string{"dir/main2.sq:1:1: cannot read library \"nowhere.sq\": open dir/nowhere.sq: no such file"}},
		{"dir/main3.sq", []string{"dir/lib/syntax.sq:1:17: unexpected \"}\""}},
		{"dir/order.sq", []string{
			"dir/lib/a.sq:1:16: `twice` uses `double`, which is defined after it",
			"dir/order.sq:3:15: `give` uses `take`, which is defined after it",
		}},
	}
	for _, tt := range tests {
		_, err := Load(tt.file, Options{ReadFile: read})
		var got []string
		for _, e := range errorsOf(t, err) {
			got = append(got, e.Error())
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Load(%s) errors:\n%s\nwant:\n%s", tt.file, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	// The hint says where the later definition is.
	_, err := Load("dir/order.sq", Options{ReadFile: read})
	if es := errorsOf(t, err); len(es) != 2 || es[1].Hint != "only earlier definitions can be used: move `def take` (at dir/order.sq:4:1) before `def give`" {
		t.Errorf("hint: %+v", es)
	}
	// A library checked alone: the same refusal, and a library with no
	// error is none.
	if err := CheckLibrary("dir/lib/a2.sq", []byte("def give(n) { take(n) }\ndef take(n) { n }\n"), Options{ReadFile: read}); err == nil ||
		err.Error() != "dir/lib/a2.sq:1:15: `give` uses `take`, which is defined after it" {
		t.Errorf("CheckLibrary: %v", err)
	}
	if err := CheckLibrary("dir/lib/b.sq", []byte(files["dir/lib/b.sq"]), Options{ReadFile: read}); err != nil {
		t.Errorf("CheckLibrary of a good library: %v", err)
	}
}
