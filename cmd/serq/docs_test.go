package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/lsp"
	"github.com/serq/serq/model"
	"github.com/serq/serq/tui"
)

// TestCLIDocsStateTheLimits keeps docs/cli.md's table of limits true of
// the code.
func TestCLIDocsStateTheLimits(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, row := range []string{
		fmt.Sprintf("| %s | `lang.MaxSourceSize` |", safeio.Size(lang.MaxSourceSize)),
		fmt.Sprintf("| %d levels | `syntax.MaxNesting` |", syntax.MaxNesting),
		fmt.Sprintf("| %d levels | `lang.MaxExprDepth` |", lang.MaxExprDepth),
		fmt.Sprintf("| %s | `lang.MaxExpansion` |", thousands(lang.MaxExpansion)),
		fmt.Sprintf("| %d | `lang.MaxChoose` |", lang.MaxChoose),
		"| 2^30 | `model.MaxServers` |",
		fmt.Sprintf("| %s | `interp.MaxTraceSize` |", safeio.Size(interp.MaxTraceSize)),
		fmt.Sprintf("| %s; `serq run --max-live N` | `interp.DefaultMaxLive` |", thousands(interp.DefaultMaxLive)),
		fmt.Sprintf("| %s | `maxIRSize` (cmd/serq) |", safeio.Size(maxIRSize)),
		fmt.Sprintf("| %s | `tui.MaxTourSize` |", safeio.Size(tui.MaxTourSize)),
		fmt.Sprintf("| %d levels | `tui.MaxTourNesting` |", tui.MaxTourNesting),
		fmt.Sprintf("| %s | `interp.DefaultCheckpointBudget` |", safeio.Size(interp.DefaultCheckpointBudget)),
		fmt.Sprintf("| %s | `maxSweepRuns` (cmd/serq) |", thousands(maxSweepRuns)),
		fmt.Sprintf("| %s, %s | `manifestKind`, `runsKind` (cmd/serq) |", safeio.Size(manifestKind.Limit), safeio.Size(runsKind.Limit)),
		fmt.Sprintf("| %s | `lsp.MaxMessage` |", safeio.Size(lsp.MaxMessage)),
	} {
		if !strings.Contains(doc, row) {
			t.Errorf("docs/cli.md lacks the row ending %q", row)
		}
	}
	if model.MaxServers != 1<<30 {
		t.Errorf("model.MaxServers = %d, the docs say 2^30", model.MaxServers)
	}
}

// TestCommentsCiteTheDocs keeps the code's citations true: every
// `docs/NAME.md` a comment of a .go or .sq file names exists, every section
// cited after it (`§4`, `§3.2`, `§3–4`) is a heading of that file, and so is
// every quoted heading (`docs/semantics.md, "Hidden attributes"`). No
// source, doc or script names a file outside the repository (the
// specification files, the project's instructions, the shared folder
// beside the checkout): a user of serq has none of them.
func TestCommentsCiteTheDocs(t *testing.T) {
	cite := regexp.MustCompile(`docs/([a-z_-]+)\.md((?:,? ?§[\d.]+(?:–[\d.]+)?)*)(?:,? \(?"([^"]+)")?`)
	section := regexp.MustCompile(`[\d.]+`)
	joinComments := regexp.MustCompile(`\n[ \t]*// ?`)
	headings := map[string]map[string]bool{}
	checked := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../.." {
			return filepath.SkipDir
		}
		ext := filepath.Ext(path)
		if d.IsDir() || !slices.Contains([]string{".go", ".sq", ".md", ".sh", ".py", ".yaml", ".json"}, ext) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := joinComments.ReplaceAllString(string(b), " ")
		// The names are built, so that this file does not name them.
		for _, bad := range []string{"spec" + "/cli.md", "spec" + "/engine.md", "spec" + "/language.md",
			"spec" + "/pd.md", "DEVELOPERS" + ".md", "house" + "-style", "../" + "shared"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s cites %s, which is not in the repository", path, bad)
			}
		}
		if ext != ".go" && ext != ".sq" {
			return nil
		}
		for _, m := range cite.FindAllStringSubmatch(text, -1) {
			name := m[1]
			hs, ok := headings[name]
			if !ok {
				doc, err := os.ReadFile("../../docs/" + name + ".md")
				if err != nil {
					t.Errorf("%s cites docs/%s.md, which does not exist", path, name)
					continue
				}
				hs = map[string]bool{}
				for _, line := range strings.Split(string(doc), "\n") {
					if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
						hs[h] = true
						if num, title, ok := strings.Cut(h, " "); ok && strings.Trim(num, "0123456789.") == "" {
							hs["§"+strings.TrimSuffix(num, ".")] = true
							hs[title] = true
						}
					}
				}
				headings[name] = hs
			}
			for _, sec := range section.FindAllString(m[2], -1) {
				if sec = strings.TrimSuffix(sec, "."); !hs["§"+sec] {
					t.Errorf("%s cites docs/%s.md §%s, which has no such section", path, name, sec)
				}
				checked++
			}
			if m[3] != "" {
				if !hs[m[3]] {
					t.Errorf("%s cites docs/%s.md %q, which has no such heading", path, name, m[3])
				}
				checked++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Errorf("%d citations of a section checked; the code cites more", checked)
	}
}

// TestCLIDocsTUI keeps docs/cli.md's synopsis of serq tui and its §14
// true: every flag of the command, every command of the TUI's command
// table with what it does.
func TestCLIDocsTUI(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "serq tui    FILE")
	j := strings.Index(doc, "serq draw   FILE")
	if i < 0 || j < i {
		t.Fatal("docs/cli.md has no synopsis of serq tui")
	}
	synopsis := doc[i:j]
	var flags []string
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for k := 0; k < ty.NumField(); k++ {
			f := ty.Field(k)
			if _, ok := f.Tag.Lookup("embed"); ok {
				walk(f.Type)
				continue
			}
			name := f.Tag.Get("name")
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if f.Name == "File" || f.Tag.Get("arg") != "" {
				continue
			}
			flags = append(flags, name)
		}
	}
	walk(reflect.TypeOf(tuiCmd{}))
	load := map[string]bool{"instance": true, "set": true, "def": true}
	for _, f := range flags {
		if load[f] {
			continue // LOAD
		}
		if !strings.Contains(synopsis, "--"+f+" ") && !strings.Contains(synopsis, "--"+f+"]") {
			t.Errorf("the synopsis of serq tui lacks --%s", f)
		}
		if !strings.Contains(doc, "`--"+f) {
			t.Errorf("docs/cli.md says nothing of serq tui --%s", f)
		}
	}
	for _, c := range tui.Commands() {
		row := "| `" + strings.ReplaceAll(c[0], "|", `\|`) + "` | " + c[1] + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/cli.md's table of commands lacks %q", row)
		}
	}
}
