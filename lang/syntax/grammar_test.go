package syntax

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// TestGrammarGolden keeps the grammar's EBNF in testdata/grammar.ebnf.golden,
// so that a change to the syntax shows in review.
func TestGrammarGolden(t *testing.T) {
	testutil.Golden(t, filepath.Join("testdata", "grammar.ebnf.golden"), []byte(Grammar()+"\n"))
}

// TestNodesDocumented keeps the tree readable: every type of grammar.go
// and instance.go has a doc comment, and every node struct starts with
// its Pos.
func TestNodesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	for _, file := range []string{"grammar.go", "instance.go"} {
		f, err := goparser.ParseFile(fset, file, nil, goparser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				n++
				if g.Doc == nil && ts.Doc == nil {
					t.Errorf("%s: type %s has no doc comment", file, ts.Name.Name)
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				if fs := st.Fields.List; len(fs) == 0 || len(fs[0].Names) != 1 || fs[0].Names[0].Name != "Pos" {
					t.Errorf("%s: node %s does not start with its Pos", file, ts.Name.Name)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("%d types read; the grammar has more than 100", n)
	}
}
