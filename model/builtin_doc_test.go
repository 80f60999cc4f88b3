package model_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/model"
)

// languageTables are docs/language.md's tables written from the built-in
// and operator tables, by the name their markers give them.
func languageTables() map[string]string {
	row := func(b *strings.Builder, cells ...string) {
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	code := func(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }
	tables := map[string]string{}

	var b strings.Builder
	row(&b, "Operators", "Notes")
	b.WriteString("|---|---|\n")
	for prec := 1; prec <= 8; prec++ {
		var syms []string
		doc := ""
		for _, o := range model.Operators {
			if o.Symbol != "" && o.Prec == prec {
				syms = append(syms, code(o.Symbol))
				if doc == "" {
					doc = o.Doc
				}
			}
		}
		row(&b, strings.Join(syms, " "), cell(doc))
	}
	tables["operators"] = b.String()

	kinds := func(name string, header []string, cell func(*model.Builtin) []string, ks ...model.BuiltinKind) {
		var b strings.Builder
		row(&b, header...)
		b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
		for i := range model.Predeclared {
			p := &model.Predeclared[i]
			for _, k := range ks {
				if p.Kind == k {
					row(&b, cell(p)...)
				}
			}
		}
		tables[name] = b.String()
	}
	kinds("functions", []string{"Name", "Kind", "Meaning"}, func(p *model.Builtin) []string {
		return []string{code(p.Signature()), p.Kind.String(), cell(p.Doc)}
	}, model.KFunction, model.KObservable, model.KForm, model.KAggregate)
	kinds("distributions", []string{"Draw", "Sample (U uniform on [0, 1))"}, func(p *model.Builtin) []string {
		return []string{code(p.Signature()), cell(p.Doc)}
	}, model.KDraw)
	kinds("context", []string{"Variable", "Read in"}, func(p *model.Builtin) []string {
		return []string{code(p.Name), cell(p.Doc)}
	}, model.KContext)
	kinds("attributes", []string{"Name", "Kind", "Meaning"}, func(p *model.Builtin) []string {
		return []string{code(p.Name), p.Kind.String(), cell(p.Doc)}
	}, model.KAttribute, model.KConstant)
	return tables
}

// tableMarks finds each generated table of a Markdown file: a line
// `<!-- table: NAME … -->`, the table, and `<!-- end table -->`.
var tableMarks = regexp.MustCompile(`(?s)(<!-- table: ([a-z]+)[^\n]*-->\n)(.*?)(<!-- end table -->)`)

// TestLanguageDocTables checks that docs/language.md's tables of
// operators, functions, distributions, context variables and built-in
// attributes are those model.Operators and model.Predeclared write (go test
// ./model -update rewrites them), that every built-in of a program has
// its row, and that docs/cli.md's paragraph on debugger expressions names
// every debugger built-in.
func TestLanguageDocTables(t *testing.T) {
	const path = "../docs/language.md"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cliDoc, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	cli := string(cliDoc)
	tables, seen := languageTables(), map[string]bool{}
	got := tableMarks.ReplaceAllStringFunc(string(src), func(m string) string {
		g := tableMarks.FindStringSubmatch(m)
		seen[g[2]] = true
		table, ok := tables[g[2]]
		if !ok {
			t.Errorf("%s: no table is named %q", path, g[2])
			return m
		}
		return g[1] + table + g[4]
	})
	for name := range tables {
		if !seen[name] {
			t.Errorf("%s has no table %q (<!-- table: %s --> … <!-- end table -->)", path, name, name)
		}
	}
	if testutil.Update() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(src) {
		t.Errorf("%s's generated tables differ from model.Predeclared and model.Operators (go test ./model -update rewrites them)", path)
	}
	for _, p := range model.Predeclared {
		if !p.Debugger() && !strings.Contains(got, "| `"+p.Signature()+"` |") && !strings.Contains(got, "| `"+p.Name+"` |") {
			t.Errorf("%s has no row for the %s %q", path, p.Kind, p.Name)
		}
		if p.Debugger() && !strings.Contains(cli, "`"+p.Name+"(") {
			t.Errorf("docs/cli.md's debugger expressions do not name the %s %q", p.Kind, p.Name)
		}
	}
}
