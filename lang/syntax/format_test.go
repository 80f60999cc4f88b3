package syntax

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/internal/testutil"
)

// codeTokens are src's tokens but white space, comments trimmed on the
// right: what formatting must keep.
func codeTokens(t *testing.T, src []byte) []string {
	t.Helper()
	toks, err := fmtTokens("x.sq", src)
	if err != nil {
		t.Fatalf("lex: %v", err)
	}
	var out []string
	for _, tk := range toks {
		out = append(out, tk.val)
	}
	return out
}

// checkFormat formats src and checks that the result parses, keeps the
// tokens and is its own format; it returns the result.
func checkFormat(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	out, err := Format(name, src)
	if err != nil {
		t.Fatalf("Format(%s): %v", name, err)
	}
	if diff := cmp.Diff(codeTokens(t, src), codeTokens(t, out)); diff != "" {
		t.Fatalf("Format(%s) changed the tokens (-before +after):\n%s", name, diff)
	}
	again, err := Format(name, out)
	if err != nil {
		t.Fatalf("Format(Format(%s)): %v", name, err)
	}
	if diff := cmp.Diff(string(out), string(again)); diff != "" {
		t.Fatalf("Format(%s) is not idempotent (-once +twice):\n%s", name, diff)
	}
	return out
}

// TestFormatSeed compares the seed program's formatted text with a golden
// file (go test ./lang/syntax -update rewrites it).
func TestFormatSeed(t *testing.T) {
	src, err := os.ReadFile("../../examples/pd-disaggregation/llmd_nixl_pull.sq")
	if err != nil {
		t.Fatal(err)
	}
	got := checkFormat(t, "llmd_nixl_pull.sq", src)
	testutil.Golden(t, "testdata/llmd_nixl_pull.fmt.golden", got)
}

// TestFormatLayout pins the layout rules on small programs.
func TestFormatLayout(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		// Spacing inside a line; the space before a call's ( is the source's.
		{"let  a=-2^ -1*(3+ 4 ) ;\n", "let a = -2 ^ -1 * (3 + 4);\n"},
		{"fn main(){stage s:fifo(2);pool kv[ 2 ]{cap 10;}\nserver{run s (cost(s,1));hold kv[0](cost(kv,1)){}}}\n",
			"fn main() { stage s : fifo(2); pool kv[2] { cap 10; }\n  server { run s (cost(s, 1)); hold kv[0](cost(kv, 1)) {} } }\n"},
		// Indentation by braces; a continued statement four more, and four per open parenthesis.
		{"fn main() {\nstage s : fifo;\n      workload {\n arrive poisson(1);\n}\n  server {\n    run s (cost(s,\n1 +\n 2));\n  }\n}\n",
			"fn main() {\n  stage s : fifo;\n  workload {\n    arrive poisson(1);\n  }\n  server {\n    run s (cost(s,\n                1 +\n                2));\n  }\n}\n"},
		// Blank lines: runs become one, none at the start or the end.
		{"\n\n// head\n\n\n\nlet a = 1;\n\n\n", "// head\n\nlet a = 1;\n"},
		// Trailing comments of consecutive lines in one column; a blank line
		// or a line without one starts a new group.
		{"let a = 1; // one\nlet bbbb = 22;   // two\nlet c = 3;\nlet d = 4;    // four\n",
			"let a = 1;      // one\nlet bbbb = 22;  // two\nlet c = 3;\nlet d = 4;  // four\n"},
		// Records, ternaries, unary operators, indexes and dotted names.
		{"fn main() { server { Cost r = { mem : cost(kv, 1) , svc:cost(s, 2) }; set x = ! a ? - b : ~ exp(1); set y = D [ j ] . kv; } }\n",
			"fn main() { server { Cost r = { mem: cost(kv, 1), svc: cost(s, 2) }; set x = !a ? -b : ~exp(1); set y = D[j].kv; } }\n"},
		// Comments kept, block comments as written, CRLF read as LF.
		{"let a = 1;  /* x\r\n   y */  let b = 2;\t// t  \r\n", "let a = 1; /* x\n   y */ let b = 2;  // t\n"},
	} {
		got, err := Format("x.sq", []byte(tt.in))
		if err != nil {
			t.Errorf("Format(%q): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Format(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
}

// TestFormatSyntaxError checks that a program that does not parse is
// refused with the parser's error and position.
func TestFormatSyntaxError(t *testing.T) {
	_, err := Format("bad.sq", []byte("fn main() {\n  stage s : fifo\n}\n"))
	le, ok := err.(*Error)
	if !ok || le.Pos.String() != "bad.sq:3:1" || le.Msg != "unexpected \"}\", want `;`" {
		t.Errorf("Format(bad) = %#v", err)
	}
}

// FuzzFormat checks the layout on any text the lexer reads, parsing or
// not: it keeps every token (comments included), so a program that parses
// parses the same and lowers to the same IR but for positions, and laying
// out its own output changes nothing. (Parsing is left out: it is what
// makes FuzzLoad slow, and the tokens decide the parse.)
func FuzzFormat(f *testing.F) {
	for _, s := range []string{
		"let a = -1 - -2;\nfn main() { server { set x = a ? b : c; } }\n",
		"fn main(){\nstage s:fifo; // c\n  workload { arrive poisson(1) ; }\nserver{run s (cost(s,\n1));}   /* b\n */\n}\n",
		"fn main() {\n  server {\n    Cost r = { mem: cost(kv, 1), svc: cost(s, 2) };\n    hold kv (cost(kv, 1)) reserve (cost(kv, 2))\n        at admission (x = 1,\n            y = 2) {\n    } cache (cost(kv, 1));\n  }\n}\n",
		"// a\n\n\nlet x = max k in 2 (used(D[k].kv)) // b\n    - 1;  // c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<12 {
			return
		}
		toks, err := fmtTokens("f.sq", src)
		if err != nil {
			return // the lexer refuses it
		}
		out := layout(toks)
		if diff := cmp.Diff(codeTokens(t, src), codeTokens(t, out)); diff != "" {
			t.Fatalf("the layout changed the tokens (-before +after):\n%s", diff)
		}
		toks2, err := fmtTokens("f.sq", out)
		if err != nil {
			t.Fatalf("the layout's output does not lex: %v", err)
		}
		if again := layout(toks2); string(again) != string(out) {
			t.Fatalf("the layout is not idempotent (-once +twice):\n%s", cmp.Diff(string(out), string(again)))
		}
	})
}
