package lsp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// The language server against the second round of hostile input (issue
// 28): what it reads, and how much a client can make it hold. Each drives
// the real server over a pipe.

// open opens text as the document at path and returns its diagnostics'
// messages.
func (c *client) open(path, text string) []string {
	c.t.Helper()
	uri := pathURI(path)
	c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "serq", Version: 1, Text: text}})
	return messages(c.diagnostics(uri))
}

func messages(p protocol.PublishDiagnosticsParams) []string {
	var out []string
	for _, d := range p.Diagnostics {
		out = append(out, fmt.Sprintf("%d:%d: %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message))
	}
	return out
}

const mainOf = "fn main() { stage s : delay; workload { arrive none; } server { run s (cost(s, SECRET_TOKEN)); } }\n"

// `use "secret.txt"` read the file: a file that parses as serQ leaked its
// names and values through completion, hover and definition. Only .sq
// libraries are read, as serq check reads them, and an open document
// named secret.txt is no library either.
func TestUseReadsOnlyLibraries(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("let SECRET_TOKEN = 424242;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog.sq")
	src := "use \"secret.txt\";\n" + mainOf
	c := startServer(t)
	checkInitialize(t, c)
	for _, unsaved := range []bool{false, true} {
		if unsaved {
			c.open(secret, "let SECRET_TOKEN = 424242;\n")
		}
		got := c.open(prog, src)
		want := "1:1: `use \"secret.txt\"`: a library is a .sq file\nhint: `use` reads serQ source only, a path ending in .sq (or the built-in \"std/args\")"
		if len(got) == 0 || got[0] != want {
			t.Errorf("unsaved %v: diagnostics %q, want first %q", unsaved, got, want)
		}
		var items []protocol.CompletionItem
		if err := c.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: pathURI(prog)}, Position: protocol.Position{Line: 1, Character: 0}}}, &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.Label == "SECRET_TOKEN" {
				t.Errorf("unsaved %v: completion offers SECRET_TOKEN", unsaved)
			}
		}
		at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: pathURI(prog)},
			Position: protocol.Position{Line: 1, Character: uint32(strings.Index(mainOf, "SECRET") + 2)}}
		var hover *protocol.Hover
		if err := c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: at}, &hover); err != nil || hover != nil {
			t.Errorf("unsaved %v: hover %+v, %v; want none", unsaved, hover, err)
		}
		var loc *protocol.Location
		if err := c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: at}, &loc); err != nil || loc != nil {
			t.Errorf("unsaved %v: definition %+v, %v; want none", unsaved, loc, err)
		}
	}
}

// `use` of a symlink to /dev/zero filled memory in seconds, of a FIFO hung
// the server for good; an open document past 1 MiB stands for a library
// no more than the file would.
func TestUseOfWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.sq")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.sq"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	checkInitialize(t, c)
	c.open(filepath.Join(dir, "big.sq"), "// "+strings.Repeat("x", 1<<20)+"\n")
	done := make(chan []string, 1)
	go func() {
		done <- c.open(filepath.Join(dir, "prog.sq"), "use \"zero.sq\";\nuse \"fifo.sq\";\nuse \"big.sq\";\n"+strings.Replace(mainOf, "SECRET_TOKEN", "1", 1))
	}()
	select {
	case got := <-done:
		want := []string{
			"1:1: cannot read library \"zero.sq\": not a regular file",
			"2:1: cannot read library \"fifo.sq\": not a regular file",
			"3:1: cannot read library \"big.sq\": larger than 1 MiB, the limit for a source file",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server hung on a use of /dev/zero or a FIFO")
	}
}

// An 8 MiB document took 115 s and 1.1 GB: past 1 MiB a document is not
// parsed, as serq check would not read the file. (A document of 2 MiB is
// sent: parsed, it would allocate hundreds of MiB.)
func TestDocumentLimit(t *testing.T) {
	c := startServer(t)
	checkInitialize(t, c)
	path := filepath.Join(t.TempDir(), "big.sq")
	text := strings.Repeat("let a = 1;\n", 2<<20/11)
	start := allocated()
	got := c.open(path, text)
	want := "1:1: cannot read: larger than 1 MiB, the limit for a source file"
	if len(got) != 1 || got[0] != want {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
	// Parsed, a text of this size would allocate far more (participle's
	// parse of a 140 KB program allocates 214 MB); its bytes, JSON-encoded
	// and decoded on both sides of the pipe, some tens of MiB (more under
	// the race detector).
	if n := allocated() - start; n > 256<<20 {
		t.Errorf("opening a 2 MiB document allocated %d MiB", n>>20)
	}
	var edits []protocol.TextEdit
	err := c.call("textDocument/formatting", protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: pathURI(path)}}, &edits)
	if err == nil || !strings.Contains(err.Error(), "serq fmt: larger than 1 MiB, the limit for a source file") {
		t.Errorf("formatting: %v", err)
	}
}

// One didChange with 22 edits whose ranges end before they start doubled
// the text 22 times (out of memory): such a change is refused, the text
// left as it was.
func TestChangeWithReversedRanges(t *testing.T) {
	c := startServer(t)
	checkInitialize(t, c)
	path := filepath.Join(t.TempDir(), "p.sq")
	text := strings.Replace(mainOf, "SECRET_TOKEN", "1", 1)
	if got := c.open(path, text); len(got) != 0 {
		t.Fatalf("diagnostics %q", got)
	}
	var changes []any
	for range 22 {
		changes = append(changes, map[string]any{"range": map[string]any{
			"start": map[string]any{"line": 0, "character": 90}, "end": map[string]any{"line": 0, "character": 2}}, "text": ""})
	}
	start := allocated()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": pathURI(path), "version": 2}, "contentChanges": changes})
	got := messages(c.diagnostics(pathURI(path)))
	want := "1:1: serq lsp: edit 1 of a change ends (1:3) before it starts (1:91); the document was left as it was\nhint: the server syncs documents whole; close and reopen the document"
	if len(got) != 1 || got[0] != want {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
	if n := allocated() - start; n > 16<<20 {
		t.Errorf("the change allocated %d MiB", n>>20)
	}
	// The text is as it was: one of each symbol, where a doubled text has
	// two.
	var syms []protocol.DocumentSymbol
	if err := c.call("textDocument/documentSymbol", protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: pathURI(path)}}, &syms); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "s workload server" {
		t.Errorf("after the refused change the symbols are %q, want s workload server", got)
	}
}

// A line of garbage without a newline was buffered whole (3 GB), and the
// protocol layer took 64 MiB messages: past 4 KiB a header line is
// skipped as it comes, past 8 MiB a message's body is skipped unread and
// answered with an error; the server then serves the next message.
func TestStreamLimits(t *testing.T) {
	a, b := net.Pipe()
	go Serve(context.Background(), a, "test", io.Discard)
	defer b.Close()
	r := bufio.NewReader(b)
	chunk := []byte(strings.Repeat("x", 1<<20))
	start := allocated()
	go func() {
		for range 64 {
			b.Write(chunk)
		}
		io.WriteString(b, "\r\n")
		fmt.Fprintf(b, "Content-Length: %d\r\n\r\n", 64<<20)
		for range 64 {
			b.Write(chunk)
		}
		rawFrame(b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	}()
	m := readFrame(t, r)
	e, _ := m["error"].(map[string]any)
	if m["id"] != nil || e["message"] != "a message of 67108864 bytes, larger than 8 MiB, the limit: skipped" {
		t.Errorf("the 64 MiB message: %v", m)
	}
	if m := readFrame(t, r); m["id"] != 1.0 || m["result"] == nil {
		t.Errorf("initialize after the garbage: %v", m)
	}
	if n := allocated() - start; n > 16<<20 {
		t.Errorf("128 MiB of garbage allocated %d MiB", n>>20)
	}
}

// allocated is the bytes the process has allocated so far, after a
// collection.
func allocated() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// rwc is a client's whole input and a sink for the server's output.
type rwc struct {
	io.Reader
}

func (rwc) Write(p []byte) (int, error) { return len(p), nil }
func (rwc) Close() error                { return nil }

// FuzzStream serves any byte stream: the server never panics, and ends
// when its input does, however the frames, headers, bodies, parameters
// and edits are broken.
func FuzzStream(f *testing.F) {
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	open := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///p.sq","languageId":"serq","version":1,"text":"use \"lib.sq\";\nfn main() { stage s : delay; workload { arrive none; } server { run s (cost(s, 1)); } }\n"}}}`
	change := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///p.sq","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":5},"end":{"line":1,"character":2}},"text":"x"},{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"text":"// "}]}}`
	hover := `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///p.sq"},"position":{"line":1,"character":20}}}`
	for _, s := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`) + frame(open) + frame(change) + frame(hover),
		"garbage\r\n" + frame(open) + "Content-Length: 99999999999\r\n\r\n" + frame(hover),
		"Content-Length: 5\r\nContent-Length: 3\r\n\r\n{}[]" + frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///p.sq"},"position":{"line":0,"character":1}}}`),
		frame(`{"jsonrpc":"2.0","id":4,"method":"textDocument/formatting","params":{"textDocument":{"uri":"file:///p.sq"}}}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64<<10 {
			return
		}
		done := make(chan struct{})
		go func() {
			Serve(context.Background(), rwc{strings.NewReader(string(in))}, "test", io.Discard)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("the server did not end with its input")
		}
	})
}
