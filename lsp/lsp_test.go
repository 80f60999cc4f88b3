package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
)

const (
	libSrc  = "// a library\ndef double(x) { 2 * x }\n"
	progBad = "use \"lib.sq\";\nlet N=5;\nfn main() {\n  stage s : fifo;\n  pool kv { cap 100; block 16; }\n" +
		"  workload { arrive poisson(1); init { set n = double(N); } }\n" +
		"  server { hold kv (cost(kv, n)) { run s (cost(s, nw)); } }\n}\n"
)

var progOK = strings.Replace(progBad, "nw", "n", 1)

// client is a JSON-RPC client on one end of a pipe whose other end a
// server serves; it records the diagnostics published.
type client struct {
	t     *testing.T
	conn  *jsonrpc2.Conn
	done  chan struct{}
	mu    sync.Mutex
	diags map[string][]protocol.PublishDiagnosticsParams
	got   chan string // URIs, as diagnostics arrive
}

func startServer(t *testing.T) *client {
	t.Helper()
	a, b := net.Pipe()
	c := &client{t: t, done: make(chan struct{}), diags: map[string][]protocol.PublishDiagnosticsParams{},
		got: make(chan string, 100)}
	go func() {
		Serve(context.Background(), a, "test", io.Discard)
		a.Close()
		close(c.done)
	}()
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
				var p protocol.PublishDiagnosticsParams
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.mu.Lock()
					c.diags[p.URI] = append(c.diags[p.URI], p)
					c.mu.Unlock()
					c.got <- p.URI
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() { c.conn.Close() })
	return c
}

func (c *client) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.conn.Call(ctx, method, params, result)
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// diagnostics waits for the next diagnostics published for uri.
func (c *client) diagnostics(uri string) protocol.PublishDiagnosticsParams {
	c.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case u := <-c.got:
			if u != uri {
				continue
			}
			c.mu.Lock()
			list := c.diags[uri]
			p := list[len(list)-1]
			c.mu.Unlock()
			return p
		case <-timeout:
			c.t.Fatalf("no diagnostics for %s", uri)
		}
	}
}

// TestSession drives the server as an editor does: initialize, open a
// program with an error, fix it, hover, go to a definition in a library,
// symbols, completion, formatting, shutdown and exit.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.sq"), []byte(libSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog.sq")
	uri, libURI := pathURI(prog), pathURI(filepath.Join(dir, "lib.sq"))
	c := startServer(t)

	checkInitialize(t, c)
	c.notify("initialized", map[string]any{})
	checkDiagnostics(t, c, uri, prog)
	checkHover(t, c, uri, dir)
	checkDefinition(t, c, uri, libURI)
	checkSymbols(t, c, uri)
	checkCompletion(t, c, uri)
	checkFormatting(t, c, uri, prog)
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	c.notify("exit", nil)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop after exit")
	}
}

// checkInitialize checks the server's answer to `initialize`: its name and
// the capabilities it offers.
func checkInitialize(t *testing.T, c *client) {
	t.Helper()
	var init protocol.InitializeResult
	if err := c.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	caps := init.Capabilities
	if caps.HoverProvider == nil || caps.DefinitionProvider == nil || caps.DocumentSymbolProvider == nil ||
		caps.DocumentFormattingProvider == nil || caps.CompletionProvider == nil || init.ServerInfo.Name != "serq" {
		t.Errorf("capabilities %+v", caps)
	}
}

// checkDiagnostics opens the program with an error (its range, line 7,
// the `nw` at column 51, and its message with the hint), fixes it and
// saves it: the diagnostics are cleared, then republished empty.
func checkDiagnostics(t *testing.T, c *client, uri, prog string) {
	t.Helper()
	c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "serq", Version: 1, Text: progBad}})
	d := c.diagnostics(uri)
	if len(d.Diagnostics) != 1 {
		t.Fatalf("diagnostics %+v, want one", d.Diagnostics)
	}
	got := d.Diagnostics[0]
	want := protocol.Range{Start: protocol.Position{Line: 6, Character: 50}, End: protocol.Position{Line: 6, Character: 52}}
	wantMsg := "undefined: nw\nhint: did you mean `n`, set at " + prog + ":6:44?"
	if got.Range != want || got.Message != wantMsg || *got.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic %+v %q, want %+v %q", got.Range, got.Message, want, wantMsg)
	}

	// Fixed: the diagnostics are cleared.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": progOK}}})
	if d := c.diagnostics(uri); len(d.Diagnostics) != 0 {
		t.Errorf("after the fix: %+v", d.Diagnostics)
	}
	// Saving republishes them (none).
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if d := c.diagnostics(uri); len(d.Diagnostics) != 0 {
		t.Errorf("after save: %+v", d.Diagnostics)
	}
}

// posAt is the position of word's second character on line (0-based) of
// progOK, in the document uri.
func posAt(t *testing.T, uri string, line int, word string) protocol.TextDocumentPositionParams {
	t.Helper()
	l := strings.Split(progOK, "\n")[line]
	col := strings.Index(l, word)
	if col < 0 {
		t.Fatalf("line %d has no %q", line, word)
	}
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Position: protocol.Position{Line: uint32(line), Character: uint32(col + 1)}}
}

// checkHover checks the hovers of a pool (its cap and block), a constant
// (its value), a def of the library (its body) and a built-in.
func checkHover(t *testing.T, c *client, uri, dir string) {
	t.Helper()
	hover := func(line int, word string) string {
		var h struct {
			Contents protocol.MarkupContent `json:"contents"`
		}
		if err := c.call("textDocument/hover", posAt(t, uri, line, word), &h); err != nil {
			t.Fatalf("hover %s: %v", word, err)
		}
		return h.Contents.Value
	}
	if h := hover(6, "kv"); !strings.HasPrefix(h, "**pool** `kv`: cap 100, block 16\n") {
		t.Errorf("hover kv = %q", h)
	}
	if h := hover(5, "N)"); !strings.HasPrefix(h, "**let** `N` = 5\n") {
		t.Errorf("hover N = %q", h)
	}
	if h := hover(5, "double"); !strings.Contains(h, "```serq\ndef double(x) { 2 * x }\n```") || !strings.Contains(h, "from "+filepath.Join(dir, "lib.sq")) {
		t.Errorf("hover double = %q", h)
	}

	if h := hover(6, "cost(s"); h != "**built-in** `cost`: `cost(R, …, e)`: e, typed as a cost of resources R" {
		t.Errorf("hover cost = %q", h)
	}
}

// checkDefinition goes to the definitions of a def in the library and of
// a stage in the document.
func checkDefinition(t *testing.T, c *client, uri, libURI string) {
	t.Helper()
	var loc protocol.Location
	if err := c.call("textDocument/definition", posAt(t, uri, 5, "double"), &loc); err != nil {
		t.Fatal(err)
	}
	wantLoc := protocol.Location{URI: libURI, Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 4},
		End: protocol.Position{Line: 1, Character: 10}}}
	if loc != wantLoc {
		t.Errorf("definition of double = %+v, want %+v", loc, wantLoc)
	}
	// And in the document: `s` in the run goes to the stage.
	if err := c.call("textDocument/definition", posAt(t, uri, 6, "s ("), &loc); err != nil {
		t.Fatal(err)
	}
	if loc.URI != uri || loc.Range.Start != (protocol.Position{Line: 3, Character: 8}) {
		t.Errorf("definition of s = %+v", loc)
	}
}

// checkSymbols checks the document's symbols, in order.
func checkSymbols(t *testing.T, c *client, uri string) {
	t.Helper()
	var syms []protocol.DocumentSymbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		names = append(names, *s.Detail+" "+s.Name)
	}
	if strings.Join(names, ", ") != "let N, stage s, pool kv, workload workload, server server" {
		t.Errorf("symbols %q", names)
	}
}

// checkCompletion checks that completion offers the document's names, the
// library's, keywords and built-ins.
func checkCompletion(t *testing.T, c *client, uri string) {
	t.Helper()
	var items []protocol.CompletionItem
	if err := c.call("textDocument/completion", posAt(t, uri, 6, "n)"), &items); err != nil {
		t.Fatal(err)
	}
	labels := map[string]bool{}
	for _, it := range items {
		labels[it.Label] = true
	}
	for _, w := range []string{"N", "kv", "s", "n", "double", "hold", "cachedin", "running.count"} {
		if !labels[w] {
			t.Errorf("completion has no %q", w)
		}
	}
}

// checkFormatting checks that formatting is one edit, the layout of serq
// fmt.
func checkFormatting(t *testing.T, c *client, uri, prog string) {
	t.Helper()
	var edits []protocol.TextEdit
	if err := c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri},
		"options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits); err != nil {
		t.Fatal(err)
	}
	want2, _ := syntax.Format(prog, []byte(progOK))
	if len(edits) != 1 || edits[0].NewText != string(want2) || edits[0].Range.Start != (protocol.Position{}) ||
		edits[0].Range.End != (protocol.Position{Line: 8, Character: 0}) {
		t.Errorf("formatting edits %+v", edits)
	}
}

// rawFrame writes one framed message.
func rawFrame(w io.Writer, body string) {
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// readFrame reads one framed message.
func readFrame(t *testing.T, r *bufio.Reader) map[string]any {
	t.Helper()
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return m
}

// TestGarbage feeds the server garbage, bodies that are no JSON-RPC, bad
// parameters and unknown methods: it answers each with an error, keeps
// serving, and stops when its input ends.
func TestGarbage(t *testing.T) {
	a, b := net.Pipe()
	done := make(chan struct{})
	go func() {
		Serve(context.Background(), a, "test", io.Discard)
		close(done)
	}()
	r := bufio.NewReader(b)
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	go func() {
		b.Write([]byte("garbage\r\nmore garbage without a colon\n\r\n\x00\xff\n"))
		b.Write([]byte("Content-Length: nope\r\n\r\n"))
		rawFrame(b, `{"jsonrpc":"2.0","id":1,"method":`) // not JSON
		rawFrame(b, `[1,2,3]`)                           // JSON, no message
	}()
	if m := readFrame(t, r); errCode(m) != -32700 || m["id"] != nil {
		t.Errorf("broken JSON: %v", m)
	}
	if m := readFrame(t, r); errCode(m) != -32600 {
		t.Errorf("a JSON array: %v", m)
	}
	// Before initialize.
	go rawFrame(b, `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{}}`)
	if m := readFrame(t, r); m["id"] != 2.0 || errCode(m) == 0 {
		t.Errorf("hover before initialize: %v", m)
	}
	go rawFrame(b, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}`)
	if m := readFrame(t, r); m["id"] != 3.0 || m["result"] == nil {
		t.Errorf("initialize after garbage: %v", m)
	}
	go rawFrame(b, `{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"position":"x"}}`)
	if m := readFrame(t, r); m["id"] != 4.0 || errCode(m) != float64(jsonrpc2.CodeInvalidParams) {
		t.Errorf("bad params: %v", m)
	}
	go rawFrame(b, `{"jsonrpc":"2.0","id":5,"method":"serq/frob","params":{}}`)
	if m := readFrame(t, r); m["id"] != 5.0 || errCode(m) != float64(jsonrpc2.CodeMethodNotFound) {
		t.Errorf("unknown method: %v", m)
	}
	go rawFrame(b, `{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///none.sq"},"position":{"line":0,"character":0}}}`)
	if m := readFrame(t, r); m["id"] != 6.0 || errCode(m) != 0 || m["result"] != nil {
		t.Errorf("hover on a document not open: %v", m)
	}
	// A document that is not UTF-8 and garbage positions: diagnostics, no crash.
	go rawFrame(b, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.sq","languageId":"serq","version":1,"text":"fn main() { \u0000 }"}}}`)
	if m := readFrame(t, r); m["method"] != "textDocument/publishDiagnostics" {
		t.Errorf("didOpen of a binary text: %v", m)
	}
	go rawFrame(b, `{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.sq"},"position":{"line":99,"character":99}}}`)
	if m := readFrame(t, r); m["id"] != 7.0 || m["error"] != nil {
		t.Errorf("hover past the end: %v", m)
	}
	b.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop at the end of its input")
	}
}

// TestResolveSeed checks what hover says of names of the seed program:
// a queue member's pool through `D[j].`, an entry's parameter, an input,
// a queue, and a library def.
func TestResolveSeed(t *testing.T) {
	f := "../examples/pd-disaggregation/llmd_nixl_pull.sq"
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	a := analyze(f, s, os.ReadFile, false)
	if a.prog == nil || len(a.errs) > 0 {
		t.Fatalf("the seed does not load: %v", a.errs)
	}
	for _, tt := range []struct{ at, word, want string }{
		{"choose j in ND by (holders(D[j].kv)", "kv", "**pool** `D.kv`: cap 160000, block 16, 2 members\n\n```serq\npool kv on D.gpu { block bs; evict lru; preempt lifo; }\n```"},
		{"run P prefill (cost(P, prompt - c))", "prompt", "**parameter** `prompt`\n\n```serq\nprefill (prompt) { … }\n```"},
		{"let blocksD", "blocksD", "**input** `blocksD` = 10000 (input `blocksD`, default 10000)\n\n```serq\nlet blocksD = args.number(\"blocksD\", 10000);\n```"},
		{"queue D[ND]", "D", "**queue** `D`: 2 member(s), decode\n\n```serq\nqueue D[ND] : decode { … }\n```"},
		{"reusable(prompt, bs)", "reusable", "**def** `reusable`\n\n```serq\ndef reusable(x, bs) { floor((x - 1) / bs) * bs }\n```\n\nfrom ../lib/vllm.sq"},
	} {
		i := strings.Index(s, tt.at)
		if i < 0 {
			t.Fatalf("the seed has no %q", tt.at)
		}
		d := a.resolve(i + strings.Index(tt.at, tt.word))
		if d == nil {
			t.Errorf("%q: nothing", tt.at)
			continue
		}
		if got := a.describe(d); got != tt.want {
			t.Errorf("%q: hover\n%s\nwant\n%s", tt.at, got, tt.want)
		}
	}
}

// TestBuiltinDocs checks that every built-in name has a hover text.
func TestBuiltinDocs(t *testing.T) {
	for _, b := range lang.Builtins() {
		if builtinDocs[b] == "" {
			t.Errorf("no hover text for the built-in %q", b)
		}
	}
}
