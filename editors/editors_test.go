// Package editors holds the editor support for serQ (a TextMate grammar
// with a VS Code extension, Vim/Neovim syntax and filetype files, a Neovim
// LSP client); this test keeps their word lists complete and loads them in
// the real engines where those are installed: Vim, Neovim (its LSP client
// too) and VS Code's TextMate engine.
package editors

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
			pat = regexp.MustCompile(`\\%\(|\\.`).ReplaceAllString(pat, " ")
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

// probe is a place in a text, the first `at` and the byte n of it, and
// the Vim syntax group and the innermost TextMate scope wanted there.
type probe struct {
	at           string
	n            int
	group, scope string
}

// seedProbes are chosen places of the seed: comments (a `/` inside one
// too), keywords, draws, engine values, numbers, functions, operators.
var seedProbes = []probe{
	{"// Prefill/decode", 0, "serqLineComment", "comment.line.double-slash.serq"},
	{"// Prefill/decode", 10, "serqLineComment", "comment.line.double-slash.serq"},
	{"fn main()", 0, "serqDeclaration", "storage.type.serq"},
	{"queue P[NP]", 0, "serqDeclaration", "storage.type.serq"},
	{"hold reqs", 0, "serqStatement", "keyword.control.serq"},
	{"advance running;", 8, "serqOption", "keyword.other.serq"},
	{"admit waiting", 6, "serqOption", "keyword.other.serq"},
	{"~uniform(1000", 0, "serqDraw", "keyword.operator.draw.serq"},
	{"~uniform(1000", 3, "serqDraw", "support.function.distribution.serq"},
	{"~exp(500)", 1, "serqDraw", "support.function.distribution.serq"},
	{"batch.kv_decode", 0, "serqContext", "variable.language.context.serq"},
	{"batch.kv_decode", 8, "serqContext", "variable.language.context.serq"},
	{"running.preempted", 9, "serqContext", "variable.language.context.serq"},
	{"2e-5;", 0, "serqNumber", "constant.numeric.serq"},
	{"2e-5;", 3, "serqNumber", "constant.numeric.serq"},
	{"0.002;", 2, "serqNumber", "constant.numeric.serq"},
	{"~uniform(1000", 9, "serqNumber", "constant.numeric.serq"},
	{"holders(D[j].kv)", 0, "serqFunction", "support.function.serq"},
	{"lease kv (inf)", 10, "serqConstant", "constant.language.serq"},
	{"used(D[k].kv) / (", 14, "serqOperator", "keyword.operator.serq"},
	{"set prompt", 0, "serqStatement", "keyword.control.serq"},
	{"\"../../lib/vllm.sq\"", 3, "serqString", "string.quoted.double.serq"},
}

// trickyText holds what the seed does not: a block comment with a `*` and
// a `/`, `queue(s)` the function, a number that starts with a dot, a `//`
// after code.
const trickyText = "/* a / b * c */ let x = .5 * queue(s); // 1 / 2\n"

var trickyProbes = []probe{
	{"/* a", 0, "serqBlockComment", "comment.block.serq"},
	{"a / b", 2, "serqBlockComment", "comment.block.serq"},
	{"queue(s)", 0, "serqFunction", "support.function.serq"},
	{".5", 0, "serqNumber", "constant.numeric.serq"},
	{"// 1 / 2", 5, "serqLineComment", "comment.line.double-slash.serq"},
	{"let x", 0, "serqDeclaration", "storage.type.serq"},
}

// vimEngines are the editors that load editors/vim, with their arguments
// for a script run without a screen.
var vimEngines = map[string][]string{
	"vim":  {"-Nu", "NONE", "-i", "NONE", "-es", "-S"},
	"nvim": {"--headless", "-u", "NONE", "-i", "NONE", "-S"},
}

// vimSyntaxAt opens file in the engine with editors/vim on the runtime
// path, as editors/README.md says to, and reads the syntax group at each
// probe (synIDattr), with the filetype and every message (an error in the
// syntax file among them).
func vimSyntaxAt(t *testing.T, engine, file, text string, probes []probe) (groups []string, filetype, messages string) {
	t.Helper()
	bin, err := exec.LookPath(engine)
	if err != nil {
		t.Skipf("%s is not installed (Debian: apt-get install %s), so the syntax file is not loaded in it", engine, map[string]string{"vim": "vim", "nvim": "neovim"}[engine])
	}
	rt, err := filepath.Abs("vim")
	if err != nil {
		t.Fatal(err)
	}
	var pos []string
	for _, p := range probes {
		i := strings.Index(text, p.at)
		if i < 0 {
			t.Fatalf("%s has no %q", file, p.at)
		}
		i += p.n
		line := strings.Count(text[:i], "\n") + 1
		col := i - (strings.LastIndexByte(text[:i], '\n') + 1) + 1
		pos = append(pos, fmt.Sprintf("[%d, %d]", line, col))
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	script := fmt.Sprintf(`set nocompatible
let &runtimepath = %q . ',' . &runtimepath
filetype plugin on
syntax on
edit %s
let out = []
for [l, c] in [%s]
  call add(out, synIDattr(synID(l, c, 1), 'name'))
endfor
call add(out, &filetype)
redir => msgs
silent messages
redir END
call add(out, substitute(msgs, '\n', ' ', 'g'))
call writefile(out, %q)
qall!
`, rt, fnameescape(file), strings.Join(pos, ", "), out)
	sf := filepath.Join(dir, "probe.vim")
	if err := os.WriteFile(sf, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(vimEngines[engine], sf)...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_STATE_HOME="+dir)
	cmd.Stdin = nil
	msg, _ := cmd.CombinedOutput() // vim -es exits 1 after an error, which messages shows
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s wrote nothing: %v\n%s", engine, err, msg)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != len(probes)+2 {
		t.Fatalf("%s wrote %q", engine, lines)
	}
	return lines[:len(probes)], lines[len(probes)], lines[len(probes)+1] + " " + string(msg)
}

// fnameescape escapes a path for Vim's :edit.
func fnameescape(p string) string {
	return regexp.MustCompile(`([ \\%#|"])`).ReplaceAllString(p, `\$1`)
}

var vimError = regexp.MustCompile(`E[0-9]+:`)

// TestVimSyntaxLoaded loads the syntax file in Vim and in Neovim, where
// they are installed, on the seed and on a text of tricky cases, and
// checks the group at each probe and that loading it gave no error.
func TestVimSyntaxLoaded(t *testing.T) {
	seedFile, err := filepath.Abs("../examples/pd-disaggregation/llmd_nixl_pull.sq")
	if err != nil {
		t.Fatal(err)
	}
	seed, err := os.ReadFile(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	tricky := filepath.Join(t.TempDir(), "tricky.sq")
	if err := os.WriteFile(tricky, []byte(trickyText), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"vim", "nvim"} {
		t.Run(engine, func(t *testing.T) {
			for _, c := range []struct {
				file, text string
				probes     []probe
			}{{seedFile, string(seed), seedProbes}, {tricky, trickyText, trickyProbes}} {
				groups, ft, msgs := vimSyntaxAt(t, engine, c.file, c.text, c.probes)
				if ft != "serq" {
					t.Errorf("%s: filetype %q, want serq", c.file, ft)
				}
				if vimError.MatchString(msgs) {
					t.Errorf("%s: loading the syntax file: %s", c.file, msgs)
				}
				for i, p := range c.probes {
					if groups[i] != p.group {
						t.Errorf("%s: at %q+%d the group is %q, want %q", filepath.Base(c.file), p.at, p.n, groups[i], p.group)
					}
				}
			}
		})
	}
}

// TestTextMateGrammar tokenizes the seed and the tricky cases with the
// TextMate grammar in VS Code's own engine (editors/test/scopes.js on the
// npm packages vscode-textmate and vscode-oniguruma, installed in
// editors/test/node_modules by `npm ci --prefix editors/test`, which
// bash .ci/run does) and checks the innermost scope at each probe.
func TestTextMateGrammar(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (Debian: apt-get install nodejs npm), so the TextMate grammar is not loaded in vscode-textmate")
	}
	if _, err := os.Stat("test/node_modules/vscode-textmate/package.json"); err != nil {
		t.Skip("vscode-textmate is not installed: run `npm ci --prefix editors/test` (bash .ci/run does) to load the TextMate grammar in VS Code's engine")
	}
	seedFile := "../examples/pd-disaggregation/llmd_nixl_pull.sq"
	tricky := filepath.Join(t.TempDir(), "tricky.sq")
	if err := os.WriteFile(tricky, []byte(trickyText), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file   string
		probes []probe
	}{{seedFile, seedProbes}, {tricky, trickyProbes}} {
		var ps [][]any
		for _, p := range c.probes {
			ps = append(ps, []any{p.at, p.n})
		}
		arg, _ := json.Marshal(ps)
		cmd := exec.Command(node, "test/scopes.js", "vscode/syntaxes/serq.tmLanguage.json", c.file, string(arg))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node test/scopes.js: %v\n%s", err, stderr.String())
		}
		var scopes [][]string
		if err := json.Unmarshal(out, &scopes); err != nil || len(scopes) != len(c.probes) {
			t.Fatalf("scopes.js wrote %s (%v)", out, err)
		}
		for i, p := range c.probes {
			got := ""
			if n := len(scopes[i]); n > 0 {
				got = scopes[i][n-1]
			}
			if got != p.scope {
				t.Errorf("%s: at %q+%d the scope is %q (%q), want %q", filepath.Base(c.file), p.at, p.n, got, scopes[i], p.scope)
			}
		}
	}
}

// neovimScenario is the Lua that TestNeovimLSP runs in Neovim: editors/vim
// on the runtime path and nvim/serq.lua sourced, as editors/README.md says;
// the program opened (its library has an error), then the library; a
// hover and a definition; what Neovim shows written to OUT as JSON.
const neovimScenario = `
local rt, prog, lib, out = %q, %q, %q, %q
vim.opt.runtimepath:prepend(rt .. "/vim")
dofile(rt .. "/nvim/serq.lua")
vim.cmd("filetype plugin on")
vim.cmd("syntax on")
local res = {}
local function clients(buf)
  return vim.lsp.get_active_clients and vim.tbl_filter(function(c) return c.attached_buffers and c.attached_buffers[buf] end, vim.lsp.get_active_clients()) or {}
end
local function messages(buf)
  local m = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(m, string.format("%%d:%%d %%s", d.lnum, d.col, d.message))
  end
  table.sort(m)
  return m
end
vim.cmd("edit " .. vim.fn.fnameescape(prog))
local pbuf = vim.api.nvim_get_current_buf()
res.filetype = vim.bo[pbuf].filetype
res.attached = vim.wait(20000, function() return #clients(pbuf) > 0 end, 50)
local lbuf = vim.fn.bufadd(lib)
vim.wait(20000, function() return #vim.diagnostic.get(lbuf) > 0 end, 50)
res.lib_before_open = messages(lbuf)
vim.cmd("edit " .. vim.fn.fnameescape(lib))
vim.wait(1000, function() return false end, 50) -- what the server says on open
res.lib_open = messages(lbuf)
res.lib_syntax = vim.fn.synIDattr(vim.fn.synID(1, 1, 1), "name")
res.clients = #vim.lsp.get_active_clients()
-- The library edited: double renamed, the program checked again.
vim.api.nvim_buf_set_lines(lbuf, 1, 3, false, { "def twice(x) { 2 * x }" })
vim.wait(20000, function() return #vim.diagnostic.get(pbuf) > 0 end, 50)
res.prog_after_edit = messages(pbuf)
vim.api.nvim_buf_set_lines(lbuf, 1, 2, false, { "def double(x) { 2 * x }" })
vim.wait(20000, function() return #vim.diagnostic.get(pbuf) == 0 end, 50)
vim.cmd("buffer " .. pbuf)
local params = { textDocument = { uri = vim.uri_from_bufnr(pbuf) }, position = { line = 5, character = 48 } }
local hover = vim.lsp.buf_request_sync(pbuf, "textDocument/hover", params, 10000) or {}
for _, r in pairs(hover) do
  if r.result then res.hover = r.result.contents.value end
end
local def = vim.lsp.buf_request_sync(pbuf, "textDocument/definition", params, 10000) or {}
for _, r in pairs(def) do
  if r.result then
    local loc = r.result[1] or r.result
    res.definition = vim.uri_to_fname(loc.uri) .. ":" .. loc.range.start.line .. ":" .. loc.range.start.character
  end
end
res.prog = messages(pbuf)
-- gd as a user types it (nvim/serq.lua maps it in a serQ buffer).
vim.api.nvim_win_set_cursor(0, { 6, 48 })
vim.cmd("normal gd")
vim.wait(10000, function() return vim.api.nvim_get_current_buf() ~= pbuf end, 50)
res.gd = vim.fn.expand("%%:t") .. ":" .. vim.fn.line(".") .. ":" .. vim.fn.col(".")
vim.fn.writefile({ vim.fn.json_encode(res) }, out)
vim.cmd("qa!")
`

// TestNeovimLSP runs serq lsp under Neovim's own client in a directory
// whose name has `é + @ # ␠`: a program whose library has an error is
// opened, then the library. The library's error stays shown in it (the
// server once cleared it under another spelling of its URI), and it is
// no "missing `fn main`"; editing the library checks the program again;
// hover and definition reach the library.
func TestNeovimLSP(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed (Debian: apt-get install neovim), so the language server is not tried in Neovim's client")
	}
	if testing.Short() {
		t.Skip("builds serq")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "serq"), "../cmd/serq")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "é + @ # ␠")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The library in a directory of its own: one server still serves both.
	if err := os.Mkdir(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	prog, lib := filepath.Join(dir, "prog.sq"), filepath.Join(dir, "lib", "lib.sq")
	libText := "// a library\ndef double(x) { 2 * x }\ndef double(y) { y }\n"
	progText := "use \"lib/lib.sq\";\nlet N=5;\nfn main() {\n  stage s : fifo;\n  pool kv { cap 100; block 16; }\n" +
		"  workload { arrive poisson(1); init { set n = double(N); } }\n" +
		"  server { hold kv (cost(kv, n)) { run s (cost(s, n)); } }\n}\n"
	for f, text := range map[string]string{prog: progText, lib: libText} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.json")
	init := filepath.Join(tmp, "init.lua")
	if err := os.WriteFile(init, []byte(fmt.Sprintf(neovimScenario, rt, prog, lib, out)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nvim, "--headless", "-i", "NONE", "-u", init)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+tmp, "XDG_CONFIG_HOME="+tmp, "XDG_DATA_HOME="+tmp, "XDG_STATE_HOME="+tmp, "XDG_CACHE_HOME="+tmp)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote nothing: %v\n%s", err, msg)
	}
	var res struct {
		Filetype      string
		Attached      bool
		LibBeforeOpen []string `json:"lib_before_open"`
		LibOpen       []string `json:"lib_open"`
		LibSyntax     string   `json:"lib_syntax"`
		Clients       int
		ProgAfterEdit []string `json:"prog_after_edit"`
		Hover         string
		Definition    string
		Prog          any
		GD            string
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	want := "2:4 def `double` is declared twice (first at " + lib + ":2:5)"
	if res.Filetype != "serq" || !res.Attached {
		t.Fatalf("filetype %q, attached %v\n%s", res.Filetype, res.Attached, msg)
	}
	if len(res.LibBeforeOpen) != 1 || res.LibBeforeOpen[0] != want {
		t.Errorf("before the library is opened it shows %q, want %q", res.LibBeforeOpen, want)
	}
	if len(res.LibOpen) != 1 || res.LibOpen[0] != want {
		t.Errorf("once the library is open it shows %q, want %q", res.LibOpen, want)
	}
	if res.LibSyntax != "serqLineComment" {
		t.Errorf("the library's first line is %q, want serqLineComment", res.LibSyntax)
	}
	if res.Clients != 1 {
		t.Errorf("%d serq clients, want one for both files", res.Clients)
	}
	if want := "5:47 undefined function `double`"; len(res.ProgAfterEdit) != 1 || res.ProgAfterEdit[0] != want {
		t.Errorf("with double renamed in the library the program shows %q, want %q", res.ProgAfterEdit, want)
	}
	if !strings.HasPrefix(res.Hover, "**def** `double`") {
		t.Errorf("hover on double: %q", res.Hover)
	}
	if res.Definition != lib+":1:4" {
		t.Errorf("definition of double: %q, want %s:1:4", res.Definition, lib)
	}
	if res.GD != "lib.sq:2:5" {
		t.Errorf("gd on double went to %q, want lib.sq:2:5 (nvim/serq.lua maps gd in a serQ buffer)", res.GD)
	}
	if p, ok := res.Prog.([]any); ok && len(p) != 0 || !ok && res.Prog != nil && fmt.Sprint(res.Prog) != "map[]" {
		t.Errorf("the program shows %v", res.Prog)
	}
}
