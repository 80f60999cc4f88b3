package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// The tests of this file drive the server as the real clients do: several
// documents open at once, URIs spelt as Neovim and VS Code spell them, a
// buffer that does not parse while it is typed, a library opened and
// edited beside the program that uses it.

// editor is a client that keeps what it shows as Neovim and VS Code do:
// the last diagnostics published for each file, whatever the spelling of
// its URI (both decode it: Neovim's vim.uri_to_fname, vscode-uri's
// URI.parse).
type editor struct {
	t    *testing.T
	conn *jsonrpc2.Conn
	mu   sync.Mutex
	log  []protocol.PublishDiagnosticsParams // in the order they came
}

// syncBuffer is a buffer the server's log may write to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startEditor(t *testing.T, logw *syncBuffer) *editor {
	t.Helper()
	a, b := net.Pipe()
	e := &editor{t: t}
	done := make(chan struct{})
	if logw == nil {
		logw = new(syncBuffer)
	}
	go func() {
		Serve(context.Background(), a, "test", logw)
		a.Close()
		close(done)
	}()
	e.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
				var p protocol.PublishDiagnosticsParams
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					e.mu.Lock()
					e.log = append(e.log, p)
					e.mu.Unlock()
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() {
		e.conn.Close()
		<-done
	})
	e.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, nil)
	e.notify("initialized", map[string]any{})
	return e
}

func (e *editor) call(method string, params, result any) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.conn.Call(ctx, method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// notify sends a notification and waits until the server has handled it:
// the server handles messages in order, and the client handles the
// notifications it gets before the answer to a later request.
func (e *editor) notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("notify %s: %v", method, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var r any // any answer will do, an error too
	if err := e.conn.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///sync.sq"}}, &r); ctx.Err() != nil {
		e.t.Fatalf("no answer after %s: %v", method, err)
	}
}

func (e *editor) open(uri, text string) {
	e.t.Helper()
	e.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "serq", Version: 1, Text: text}})
}

func (e *editor) change(uri, text string) {
	e.t.Helper()
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": text}}})
}

// fname is the file of a file: URI, decoded as the clients decode it.
func fname(t *testing.T, uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatalf("the server sent a URI that does not parse: %q: %v", uri, err)
	}
	return u.Path
}

// shown is what the editor shows for the file at path: the messages of
// the last diagnostics published for it, under any spelling.
func (e *editor) shown(path string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []string{}
	for _, p := range e.log {
		if fname(e.t, p.URI) == path {
			out = []string{}
			for _, d := range p.Diagnostics {
				out = append(out, fmt.Sprintf("%d:%d %s", d.Range.Start.Line, d.Range.Start.Character, d.Message))
			}
		}
	}
	return out
}

// published are the URIs diagnostics went under since the log's entry
// from, with the number of diagnostics each time.
func (e *editor) published(from int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, p := range e.log[from:] {
		out = append(out, fmt.Sprintf("%s %d", p.URI, len(p.Diagnostics)))
	}
	return out
}

func (e *editor) logLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.log)
}

func readExample(t *testing.T, rel string) (path, text string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", rel))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, string(b)
}

// TestDiagnosticsOfSeveralDocuments opens the push example with an error,
// then the seed: the push file's error stays shown (no empty list is
// published for it), and fixing the seed's own error leaves it too.
func TestDiagnosticsOfSeveralDocuments(t *testing.T) {
	e := startEditor(t, nil)
	push, pushText := readExample(t, "examples/pd-disaggregation/vllm_nixl_push.sq")
	seed, seedText := readExample(t, "examples/pd-disaggregation/llmd_nixl_pull.sq")
	bad := strings.Replace(pushText, "fn main() {", "fn main() {\n  let x = nope;", 1)
	e.open(pathURI(push), bad)
	line := strings.Count(bad[:strings.Index(bad, "nope")], "\n")
	want := []string{fmt.Sprintf("%d:10 undefined: nope\nhint: did you mean `more`?", line)}
	if got := e.shown(push); !slices.Equal(got, want) {
		t.Fatalf("the push file shows %q, want %q", got, want)
	}
	from := e.logLen()
	e.open(pathURI(seed), seedText)
	if got := e.published(from); !slices.Equal(got, []string{pathURI(seed) + " 0"}) {
		t.Errorf("opening the seed published %q, want only the seed's empty list", got)
	}
	e.change(pathURI(seed), strings.Replace(seedText, "let ND = 2;", "let ND = 2 +;", 1))
	e.change(pathURI(seed), seedText)
	if got := e.shown(push); !slices.Equal(got, want) {
		t.Errorf("after the seed was edited the push file shows %q, want %q", got, want)
	}
	if got := e.shown(seed); len(got) != 0 {
		t.Errorf("the seed shows %q", got)
	}
}

// spellings are the URIs of a path as Neovim 0.7 spells them
// (vim.uri_from_fname: RFC 3986's reserved characters kept, the rest
// percent-encoded in small letters) and as VS Code does (vscode-uri: all
// but the unreserved characters and `/` encoded, in capitals).
var spellings = map[string]func(string) string{
	"neovim": func(p string) string { return fileURI(p, "-._~!$&'()*+,;=:@/", "%%%02x") },
	"vscode": func(p string) string { return fileURI(p, "-._~/", "%%%02X") },
}

// fileURI is the file: URI of path p with its letters, digits and the
// bytes of keep as they are and every other byte written with format.
func fileURI(p, keep, format string) string {
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x80 && (isWordByte(c) && c != '_' || strings.IndexByte(keep, c) >= 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, format, c)
		}
	}
	return b.String()
}

// TestURISpellings works in a directory whose name has `é + @ # ␠`, with
// each client's spelling of its URIs: the program's library has an error,
// which stays shown when the library is opened; hover and definition
// answer under the client's spelling; closing the library keeps its error
// (the program still reports it).
func TestURISpellings(t *testing.T) {
	for name, spell := range spellings {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "é + @ # ␠")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			prog, lib := filepath.Join(dir, "prog.sq"), filepath.Join(dir, "lib.sq")
			libBad := libSrc + "def double(y) { y }\n"
			if err := os.WriteFile(lib, []byte(libBad), 0o644); err != nil {
				t.Fatal(err)
			}
			e := startEditor(t, nil)
			e.open(spell(prog), progOK)
			want := []string{"2:4 def `double` is declared twice (first at " + lib + ":2:5)"}
			if got := e.shown(lib); !slices.Equal(got, want) {
				t.Fatalf("the library shows %q, want %q", got, want)
			}
			e.open(spell(lib), libBad)
			if got := e.shown(lib); !slices.Equal(got, want) {
				t.Errorf("once the library is open it shows %q, want %q", got, want)
			}
			e.mu.Lock()
			for _, p := range e.log {
				if fname(t, p.URI) == lib && len(p.Diagnostics) > 0 && p.URI != spell(lib) && p.URI != pathURI(lib) {
					t.Errorf("the library's diagnostics went under %q", p.URI)
				}
			}
			e.mu.Unlock()

			var loc protocol.Location
			e.call("textDocument/definition", posAt(t, spell(prog), 5, "double"), &loc)
			if loc.URI != spell(lib) || loc.Range.Start != (protocol.Position{Line: 1, Character: 4}) {
				t.Errorf("definition of double = %+v, want %s 1:4", loc, spell(lib))
			}
			var h struct {
				Contents protocol.MarkupContent `json:"contents"`
			}
			e.call("textDocument/hover", posAt(t, spell(prog), 4, "kv"), &h)
			if !strings.HasPrefix(h.Contents.Value, "**pool** `kv`") {
				t.Errorf("hover under the %s spelling: %q", name, h.Contents.Value)
			}
			e.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": spell(lib)}})
			if got := e.shown(lib); !slices.Equal(got, want) {
				t.Errorf("once the library is closed it shows %q, want %q", got, want)
			}
		})
	}
}

// TestLibraryEdited opens a program and the library it uses: the library
// is checked as a library (no "missing `fn main`"), its errors are shown
// once, in it, and every edit of it checks the program again.
func TestLibraryEdited(t *testing.T) {
	dir := t.TempDir()
	prog, lib := filepath.Join(dir, "prog.sq"), filepath.Join(dir, "lib.sq")
	if err := os.WriteFile(lib, []byte(libSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, nil)
	e.open(pathURI(prog), progOK)
	e.open(pathURI(lib), libSrc)
	if got := e.shown(lib); len(got) != 0 {
		t.Errorf("the library shows %q", got)
	}
	// A library with a `let` is still the library the program uses.
	e.change(pathURI(lib), "let k = 2;\n"+libSrc)
	wantLet := []string{"0:0 a library holds only `def` and `use`, not `let k`"}
	if got := e.shown(lib); !slices.Equal(got, wantLet) {
		t.Errorf("the library with a let shows %q, want %q", got, wantLet)
	}
	e.change(pathURI(lib), strings.Replace(libSrc, "double", "twice", 1))
	if got := e.shown(lib); len(got) != 0 {
		t.Errorf("the library shows %q", got)
	}
	wantProg := []string{"5:47 undefined function `double`"}
	if got := e.shown(prog); !slices.Equal(got, wantProg) {
		t.Errorf("with double renamed in the library the program shows %q, want %q", got, wantProg)
	}
	e.change(pathURI(lib), libSrc)
	if got := e.shown(prog); len(got) != 0 {
		t.Errorf("with the library mended the program shows %q", got)
	}
	// A library opened alone: no `fn main` is no error.
	e2 := startEditor(t, nil)
	e2.open(pathURI(lib), libSrc)
	if got := e2.shown(lib); len(got) != 0 {
		t.Errorf("the library opened alone shows %q", got)
	}
}

// completionLabels are the labels a completion at the end of the first
// `at` in text offers, each checked to replace the word before the cursor.
func completionLabels(t *testing.T, e *editor, uri, text, at string) []string {
	t.Helper()
	i := strings.Index(text, at)
	if i < 0 {
		t.Fatalf("no %q", at)
	}
	off := i + len(at)
	pos := positionOf(text, off)
	var items []protocol.CompletionItem
	e.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos}}, &items)
	start := off
	for start > 0 && isWordByte(text[start-1]) {
		start--
	}
	var out []string
	for _, it := range items {
		b, _ := json.Marshal(it.TextEdit)
		var te protocol.TextEdit
		if err := json.Unmarshal(b, &te); err != nil || te.NewText != it.Label || te.Range != rangeOf(text, start, off) {
			t.Errorf("%q: item %q has the edit %s, want one replacing %q", at, it.Label, b, text[start:off])
		}
		out = append(out, it.Label)
	}
	return out
}

// TestCompletionWhileTyping asks for completions in the seed while a line
// is being typed (the text does not parse), and after dots: the members
// of the queue or the fields of the context variable, nothing else.
func TestCompletionWhileTyping(t *testing.T) {
	e := startEditor(t, nil)
	seed, seedText := readExample(t, "examples/pd-disaggregation/llmd_nixl_pull.sq")
	uri := pathURI(seed)
	typing := strings.Replace(seedText, "  gauge running_spread", "  gauge g2 = max_se\n  gauge running_spread", 1)
	e.open(uri, typing)
	got := completionLabels(t, e, uri, typing, "g2 = max_se")
	for _, w := range []string{"max_seqsD", "max_seqsP", "reusable", "kv_usage_max", "D", "max"} {
		if !slices.Contains(got, w) {
			t.Errorf("while typing `max_se`, completion has no %q", w)
		}
	}
	// Nothing parses but the last good text: its names.
	e.change(uri, seedText)
	broken := strings.Replace(seedText, "fn main() {", "fn main() { let { (", 1) + "\ngauge g3 = max_se"
	e.change(uri, broken)
	if got := completionLabels(t, e, uri, broken, "g3 = max_se"); !slices.Contains(got, "max_seqsD") {
		t.Errorf("in a text that does not parse, completion has no max_seqsD: %q", got)
	}

	e.change(uri, seedText)
	for _, tt := range []struct{ at, line string }{
		{"D[j].", "c decode gpu kept kv nic produced read_done reqs transferred"},
		{"D[j].k", "c decode gpu kept kv nic produced read_done reqs transferred"},
		{"batch.", "attention context_decode context_prefill count decoding kv_decode kv_prefill position prefilled tokens"},
		{"running.", "count decoding kv_decode kv_prefill preempted"},
		{"args.", "number"},
		{"= D.", "c decode gpu kept kv nic produced read_done reqs transferred"},
	} {
		text := strings.Replace(seedText, "  gauge running_spread", "  gauge g2 = "+tt.at+"\n  gauge running_spread", 1)
		e.change(uri, text)
		got := completionLabels(t, e, uri, text, "g2 = "+tt.at)
		slices.Sort(got)
		if strings.Join(got, " ") != tt.line {
			t.Errorf("after %q completion offers %q, want %q", tt.at, strings.Join(got, " "), tt.line)
		}
	}
	// Inside D: its members bare.
	got = completionLabels(t, e, uri, seedText, "hold k")
	if !slices.Contains(got, "kv") || !slices.Contains(got, "reqs") || !slices.Contains(got, "read_done") || !slices.Contains(got, "hbm") {
		t.Errorf("inside D completion offers %q", got)
	}
}

// TestHoverDeviceBatchMark hovers and goes to the definitions of a device's
// time resource, a `batch` observable and a `mark` name in the seed.
func TestHoverDeviceBatchMark(t *testing.T) {
	e := startEditor(t, nil)
	seed, seedText := readExample(t, "examples/pd-disaggregation/llmd_nixl_pull.sq")
	uri := pathURI(seed)
	e.open(uri, seedText)
	at := func(s string, n int) protocol.TextDocumentPositionParams {
		i := strings.Index(seedText, s)
		if i < 0 {
			t.Fatalf("no %q", s)
		}
		return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
			Position: positionOf(seedText, i+n)}
	}
	for _, tt := range []struct {
		at   string
		n    int
		want string
		def  string // the definition's text, "" for none
	}{
		{"hbm(batch.kv_decode", 1, "**time resource** `hbm`\n\n```serq\nhbm (k) = omega + beta * k;\n```", "hbm (k) = omega + beta * k;"},
		{"compute(batch.tokens", 1, "**time resource** `compute`\n\n```serq\ncompute (t) = t * a;\n```", "compute (t) = t * a;"},
		{"batch.kv_decode", 1, "**built-in** `batch.kv_decode`: engine `execute`: memory the batch's decodes hold", ""},
		{"batch.tokens", 7, "**built-in** `batch.tokens`: engine: tokens scheduled so far", ""},
		{"D.read_done", 3, "**mark** `D.read_done`\n\n```serq\nmark read_done;\n```", "read_done;"},
		{"D.produced;", 3, "**attribute** `D.produced`\n\n```serq\nset produced = min(o, max_model_len - prompt);\n```", "produced = min("},
	} {
		var h struct {
			Contents protocol.MarkupContent `json:"contents"`
		}
		e.call("textDocument/hover", at(tt.at, tt.n), &h)
		if h.Contents.Value != tt.want {
			t.Errorf("hover %q = %q, want %q", tt.at, h.Contents.Value, tt.want)
		}
		var loc *protocol.Location
		e.call("textDocument/definition", at(tt.at, tt.n), &loc)
		switch {
		case tt.def == "" && loc != nil:
			t.Errorf("definition of %q = %+v, want none", tt.at, loc)
		case tt.def != "" && (loc == nil || loc.URI != uri || !strings.HasPrefix(seedText[offsetOf(seedText, loc.Range.Start):], tt.def)):
			t.Errorf("definition of %q = %+v, want %q", tt.at, loc, tt.def)
		}
	}
}

// TestClientNotifications sends what VS Code and Neovim send whatever the
// server offers (workspace/didChangeConfiguration, $/cancelRequest) and
// hovers on a document that is not open: nothing is logged, and the hover
// is empty.
func TestClientNotifications(t *testing.T) {
	var logw syncBuffer
	e := startEditor(t, &logw)
	e.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{}})
	e.notify("$/cancelRequest", map[string]any{"id": 1})
	e.notify("$/setTrace", map[string]any{"value": "off"})
	if logw.String() != "" {
		t.Errorf("the server logged %q", logw.String())
	}
	var h any = "unset"
	e.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///none.sq"},
		"position": map[string]any{"line": 0, "character": 0}}, &h)
	if h != nil {
		t.Errorf("hover on a document that is not open = %v, want null", h)
	}
}
