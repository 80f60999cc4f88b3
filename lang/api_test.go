package lang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExportsAreUsed keeps lang's API the names other packages use: every
// exported name of the package is used by some Go file outside it (a
// command, the language server, the TUI, a test of another package), or
// is a type such a function takes or returns. A name only lang uses is unexported; one only the parser needs belongs
// in lang/syntax.
func TestExportsAreUsed(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	signature := map[string][]string{} // the names an exported function's signature mentions
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					exported = append(exported, d.Name.Name)
					ast.Inspect(d.Type, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok {
							signature[d.Name.Name] = append(signature[d.Name.Name], id.Name)
						}
						return true
					})
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						exported = append(exported, s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							exported = append(exported, n.Name)
						}
					}
				}
			}
		}
	}
	exported = slices.DeleteFunc(exported, func(n string) bool { return !ast.IsExported(n) })
	used := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == filepath.Join("..", "lang") {
			return nil // lang's own files, its external tests (package lang_test) too
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		local := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/serq/serq/lang" {
				local = "lang"
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
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
