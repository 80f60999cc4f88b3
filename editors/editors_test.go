// Package editors holds the editor support for serQ (a TextMate grammar
// with a VS Code extension, Vim/Neovim syntax and filetype files); this
// test keeps their word lists complete.
package editors

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
)

var ident = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// textMateWords are the words of the TextMate grammar's match patterns.
func textMateWords(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("vscode/syntaxes/serq.tmLanguage.json")
	if err != nil {
		t.Fatal(err)
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("serq.tmLanguage.json: %v", err)
	}
	words := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "match" {
					// Drop escapes (\b, \s, \.) so that their letters are no words.
					s = regexp.MustCompile(`\\.`).ReplaceAllString(s, " ")
					for _, w := range ident.FindAllString(s, -1) {
						words[w] = true
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(g)
	return words
}

// vimWords are the words of the Vim syntax file's keyword lists and match
// patterns.
func vimWords(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("vim/syntax/serq.vim")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 3 && f[0] == "syntax" && f[1] == "keyword":
			for _, w := range f[3:] {
				if w != "contained" {
					words[w] = true
				}
			}
		case len(f) > 3 && f[0] == "syntax" && f[1] == "match":
			pat := strings.Join(f[3:], " ")
			pat = regexp.MustCompile(`\\[%(]*.`).ReplaceAllString(pat, " ")
			for _, w := range ident.FindAllString(pat, -1) {
				words[w] = true
			}
		}
	}
	return words
}

// TestGrammarsComplete checks that every keyword of the language's grammar
// and every built-in name (each part of a dotted one) is highlighted by
// both editor grammars.
func TestGrammarsComplete(t *testing.T) {
	want := append([]string(nil), syntax.Keywords()...)
	for _, b := range lang.Builtins() {
		want = append(want, strings.Split(b, ".")...)
	}
	for name, got := range map[string]map[string]bool{"TextMate": textMateWords(t), "Vim": vimWords(t)} {
		for _, w := range want {
			if !got[w] {
				t.Errorf("the %s grammar does not know %q", name, w)
			}
		}
	}
}

// TestExtensionManifest checks that the VS Code extension's manifest names
// the grammar and the language configuration it ships.
func TestExtensionManifest(t *testing.T) {
	b, err := os.ReadFile("vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Main        string
		Contributes struct {
			Languages []struct {
				ID            string
				Extensions    []string
				Configuration string
			}
			Grammars []struct{ Language, ScopeName, Path string }
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Contributes.Languages) != 1 || m.Contributes.Languages[0].ID != "serq" ||
		strings.Join(m.Contributes.Languages[0].Extensions, ",") != ".sq" {
		t.Fatalf("languages %+v, want serq for .sq", m.Contributes.Languages)
	}
	if len(m.Contributes.Grammars) != 1 || m.Contributes.Grammars[0].ScopeName != "source.serq" {
		t.Fatalf("grammars %+v, want source.serq", m.Contributes.Grammars)
	}
	for _, f := range []string{m.Main, m.Contributes.Languages[0].Configuration, m.Contributes.Grammars[0].Path} {
		if _, err := os.Stat("vscode/" + f); err != nil {
			t.Errorf("package.json names %s: %v", f, err)
		}
	}
	var cfg map[string]any
	b, err = os.ReadFile("vscode/language-configuration.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Errorf("language-configuration.json: %v", err)
	}
}
