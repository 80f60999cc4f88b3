package editors

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/model"
)

// builtinWords are model.Predeclared's names as the grammars group them:
// the functions a program calls, the distributions, the dotted context
// variables' prefixes and fields, the other context variables and the
// attributes, and the constants.
type builtinWords struct {
	funcs, draws, prefixes, fields, vars, consts []string
}

func predeclaredWords() builtinWords {
	var w builtinWords
	add := func(list *[]string, name string) {
		if !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	for _, b := range model.Predeclared {
		switch b.Kind {
		case model.KFunction, model.KObservable, model.KForm, model.KAggregate:
			add(&w.funcs, b.Name)
		case model.KDraw:
			add(&w.draws, b.Name)
		case model.KContext, model.KAttribute:
			if prefix, field, ok := strings.Cut(b.Name, "."); ok {
				add(&w.prefixes, prefix)
				add(&w.fields, field)
			} else {
				add(&w.vars, b.Name)
			}
		case model.KConstant:
			add(&w.consts, b.Name)
		}
	}
	return w
}

// vimKeywords writes `syntax keyword GROUP` lines of words, at most 100
// characters each, leaving out those a `syntax match` of the file's
// (matched) matches: a keyword would hide the match (`queue` declaring a
// queue, `waiting` of `waiting.count`).
func vimKeywords(group string, words []string, matched map[string]bool) string {
	var b strings.Builder
	line := ""
	for _, w := range words {
		if matched[w] {
			continue
		}
		if line != "" && len(line)+1+len(w) > 100 {
			b.WriteString(line + "\n")
			line = ""
		}
		if line == "" {
			line = "syntax keyword " + group
		}
		line += " " + w
	}
	if line != "" {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// vimAlt is a Vim alternation of words: `\%(a\|b\)`.
func vimAlt(words []string) string { return `\%(` + strings.Join(words, `\|`) + `\)` }

// tmAlt is a TextMate alternation of words as the JSON file writes it.
func tmAlt(words []string) string { return "(?:" + strings.Join(words, "|") + ")" }

// TestGrammarBuiltins checks that the built-in names of the Vim syntax
// file and of the TextMate grammar are those model.Predeclared has (go
// test ./editors -update writes them): a built-in is added to the table
// alone.
func TestGrammarBuiltins(t *testing.T) {
	w := predeclaredWords()
	vimPath, tmPath := "vim/syntax/serq.vim", "vscode/syntaxes/serq.tmLanguage.json"
	vim, err := os.ReadFile(vimPath)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := os.ReadFile(tmPath)
	if err != nil {
		t.Fatal(err)
	}
	vimRegion := regexp.MustCompile(`(?s)(" The built-in names, written from model.Predeclared[^\n]*\n).*?(" End of the built-in names\n)`)
	matched := map[string]bool{}
	for _, line := range strings.Split(vimRegion.ReplaceAllString(string(vim), ""), "\n") {
		if strings.HasPrefix(line, "syntax match ") {
			for _, word := range regexp.MustCompile(`[A-Za-z_]+`).FindAllString(regexp.MustCompile(`\\.`).ReplaceAllString(line[len("syntax match "):], " "), -1) {
				matched[word] = true
			}
		}
	}
	vimNew := vimRegion.ReplaceAllString(string(vim), "${1}"+strings.ReplaceAll(
		vimKeywords("serqFunction", w.funcs, matched)+vimKeywords("serqVariable", w.vars, matched)+vimKeywords("serqConstant", w.consts, matched)+
			"\" Draws: ~exp(mean), ~uniform(lo, hi), ...\n"+
			`syntax match serqDraw "\~\s*`+vimAlt(w.draws)+`\>"`+"\n"+
			"\" Engine values: running.count, waiting.count, batch.tokens, ...\n"+
			`syntax match serqContext "\<`+vimAlt(w.prefixes)+`\.`+vimAlt(w.fields)+`\>"`+"\n", "$", "$$")+"${2}")
	if !vimRegion.MatchString(string(vim)) {
		t.Errorf("%s has no region of built-in names", vimPath)
	}
	esc := func(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }
	tmNew := string(tm)
	for name, match := range map[string]string{
		"support.function.serq":          `\b` + tmAlt(w.funcs) + `(?=\s*\()`,
		"variable.language.serq":         `\b` + tmAlt(w.vars) + `\b`,
		"constant.language.serq":         `\b` + tmAlt(w.consts) + `\b`,
		"variable.language.context.serq": `\b` + tmAlt(w.prefixes) + `\.` + tmAlt(w.fields) + `\b`,
	} {
		re := regexp.MustCompile(`("name": "` + regexp.QuoteMeta(name) + `",\n\s*"match": ")[^\n]*(")`)
		if !re.MatchString(tmNew) {
			t.Errorf("%s has no rule %s", tmPath, name)
		}
		tmNew = re.ReplaceAllString(tmNew, "${1}"+strings.ReplaceAll(esc(match), "$", "$$")+"${2}")
	}
	draws := regexp.MustCompile(`("match": "\(~\)\\\\s\*)\([^"]*\)(\\\\b")`)
	if !draws.MatchString(tmNew) {
		t.Errorf("%s has no rule of draws", tmPath)
	}
	tmNew = draws.ReplaceAllString(tmNew, "${1}("+strings.Join(w.draws, "|")+")${2}")
	if testutil.Update() {
		for path, text := range map[string]string{vimPath: vimNew, tmPath: tmNew} {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if vimNew != string(vim) {
		t.Errorf("%s's built-in names differ from model.Predeclared (go test ./editors -update writes them)", vimPath)
	}
	if tmNew != string(tm) {
		t.Errorf("%s's built-in names differ from model.Predeclared (go test ./editors -update writes them)", tmPath)
	}
}
