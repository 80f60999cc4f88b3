package lang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExportsAreUsed keeps lang's API the names other packages use: every
// exported name of the package is used by some Go file outside it (a
// command, the language server, the TUI, a test of another package), or
// is a type such a function takes or returns. A name only lang uses is
// unexported; one only the parser needs belongs in lang/syntax.
func TestExportsAreUsed(t *testing.T) {
	exported, signature := exportedNames(t)
	used := namesUsedOutside(t)
	if len(used) < 10 {
		t.Fatalf("only %d names of lang used outside it: the walk missed the repository", len(used))
	}
	for fn, names := range signature {
		if used[fn] {
			for _, n := range names {
				used[n] = true // a type a used function takes or returns
			}
		}
	}
	for _, n := range exported {
		if !used[n] {
			t.Errorf("lang exports %s, which no package outside lang uses", n)
		}
	}
}

// exportedNames lists the package-level exported names of lang's files,
// and for each exported function the names its signature mentions.
func exportedNames(t *testing.T) (exported []string, signature map[string][]string) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	signature = map[string][]string{}
	add := func(id *ast.Ident) {
		if id.IsExported() {
			exported = append(exported, id.Name)
		}
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil {
				add(d.Name)
				ast.Inspect(d.Type, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						signature[d.Name.Name] = append(signature[d.Name.Name], id.Name)
					}
					return true
				})
			}
			if d, ok := d.(*ast.GenDecl); ok {
				for _, s := range d.Specs {
					if s, ok := s.(*ast.TypeSpec); ok {
						add(s.Name)
					}
					if s, ok := s.(*ast.ValueSpec); ok {
						for _, n := range s.Names {
							add(n)
						}
					}
				}
			}
		}
	}
	return exported, signature
}

// namesUsedOutside is the set of names X of every `lang.X` written in a
// Go file of the repository outside lang's own directory (its external
// tests, package lang_test, included in lang).
func namesUsedOutside(t *testing.T) map[string]bool {
	used := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == filepath.Join("..", "lang"):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		local := langImport(f)
		if local == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
					used[sel.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}

// langImport is the name f imports lang as, "" when it does not.
func langImport(f *ast.File) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/serq/serq/lang" {
			if im.Name != nil {
				return im.Name.Name
			}
			return "lang"
		}
	}
	return ""
}
