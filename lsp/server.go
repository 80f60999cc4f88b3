// Package lsp is serQ's language server, `serq lsp`: the Language Server
// Protocol over a stream (stdin and stdout), on the protocol types and the
// method dispatch of github.com/tliron/glsp and the JSON-RPC connection of
// github.com/sourcegraph/jsonrpc2.
//
// It keeps the open documents (full text sync) and, for each, the result
// of loading it as `serq check` does: the static errors are published as
// diagnostics on open, change and save (every file's, the `use`d
// libraries' included; an empty list once fixed). It answers hover (a
// name's kind, what the lowered program knows of it — a pool's cap and
// block, a constant's value, an input's binding — and its declaration, a
// def's body whole), go to definition (into `use`d libraries too),
// document symbols (queues with their members and entries, stages, pools,
// devices, engines, defs, constants, gauges, claims), formatting (the
// layout of `serq fmt`) and completion (the names the document and its
// libraries declare, the keywords and the built-in names).
//
// Nothing a client sends stops the server but the end of its input or
// `exit`: garbage between messages is skipped, a body that is not JSON-RPC
// is answered with a parse error, a request with bad parameters with an
// invalid-params error, and a panic in a handler with an internal error.
//
// Its files: server.go (the handlers and the documents), analysis.go (the
// names a document and its libraries declare, read from package syntax's
// tree and tokens, and what the lowered program knows of them),
// builtins.go (the hover texts of the built-in names) and stream.go (the
// base protocol's framing, which survives garbage).
package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
)

// Serve runs the server on rwc until the client exits or the input ends;
// version is reported to the client, and the connection's own complaints
// go to logw.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, version string, logw io.Writer) {
	s := newServer(version)
	conn := jsonrpc2.NewConn(ctx, newStream(rwc), jsonrpc2.HandlerWithError(s.handle),
		jsonrpc2.SetLogger(log.New(logw, "serq lsp: ", 0)))
	<-conn.DisconnectNotify()
}

type server struct {
	version string
	handler protocol.Handler
	mu      sync.Mutex
	docs    map[string]*document // by URI
	sent    map[string]bool      // URIs that have diagnostics published
}

type document struct {
	uri, path, text string
	a               *analysis
}

func newServer(version string) *server {
	s := &server{version: version, docs: map[string]*document{}, sent: map[string]bool{}}
	s.handler = protocol.Handler{
		Initialize:                 s.initialize,
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                   func(*glsp.Context) error { return nil },
		SetTrace:                   func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen:        s.didOpen,
		TextDocumentDidChange:      s.didChange,
		TextDocumentDidSave:        s.didSave,
		TextDocumentDidClose:       s.didClose,
		TextDocumentHover:          s.hover,
		TextDocumentDefinition:     s.definition,
		TextDocumentDocumentSymbol: s.symbols,
		TextDocumentFormatting:     s.formatting,
		TextDocumentCompletion:     s.completion,
	}
	return s
}

// handle is one message: glsp's dispatch, as glsp's own server calls it,
// with panics turned into errors.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("serq lsp: internal error in %s: %v", req.Method, r)}
		}
	}()
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) { _ = conn.Notify(ctx, method, params) },
		Call:   func(method string, params any, result any) { _ = conn.Call(ctx, method, params, result) },
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	} else {
		gctx.Params = json.RawMessage("null")
	}
	if req.Method == protocol.MethodExit {
		return nil, conn.Close()
	}
	r, validMethod, validParams, err := s.handler.Handle(gctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

func (s *server) initialize(_ *glsp.Context, _ *protocol.InitializeParams) (any, error) {
	caps := s.handler.CreateServerCapabilities()
	full := protocol.TextDocumentSyncKindFull
	caps.TextDocumentSync = &protocol.TextDocumentSyncOptions{OpenClose: &protocol.True, Change: &full,
		Save: &protocol.SaveOptions{IncludeText: &protocol.True}}
	caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{"."}}
	version := s.version
	return protocol.InitializeResult{Capabilities: caps,
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "serq", Version: &version}}, nil
}

// uriPath is the file path of a file: URI (other URIs are used as they are).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// pathURI is the file: URI of a path.
func pathURI(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// open is the text of the open document at path p.
func (s *server) open(p string) (string, bool) {
	for _, d := range s.docs {
		if d.path == p {
			return d.text, true
		}
	}
	return "", false
}

// update sets a document's text, analyses it and publishes its
// diagnostics.
func (s *server) update(ctx *glsp.Context, uri, text string) {
	s.mu.Lock()
	d := &document{uri: uri, path: uriPath(uri), text: text}
	s.docs[uri] = d
	d.a = analyze(d.path, text, readOverlay(s.open))
	s.mu.Unlock()
	s.publish(ctx, d)
}

// publish sends the document's diagnostics, by file: its own, those of
// the files it uses, and empty lists for files that had some before.
func (s *server) publish(ctx *glsp.Context, d *document) {
	byURI := map[string][]protocol.Diagnostic{d.uri: {}}
	for _, e := range d.a.errs {
		file := e.Pos.File
		uri := d.uri
		text := d.text
		if file != "" && filepath.Clean(file) != d.path {
			uri = pathURI(file)
			if t, ok := s.open(filepath.Clean(file)); ok {
				text = t
			} else if b, err := readOverlay(s.open)(file); err == nil {
				text = string(b)
			} else {
				text = ""
			}
		}
		msg := e.Msg
		if e.Hint != "" {
			msg += "\nhint: " + e.Hint
		}
		sev := protocol.DiagnosticSeverityError
		source := "serq"
		byURI[uri] = append(byURI[uri], protocol.Diagnostic{Range: errRange(text, e.Pos.Line, e.Pos.Col),
			Severity: &sev, Source: &source, Message: msg})
	}
	s.mu.Lock()
	for uri := range s.sent {
		if _, ok := byURI[uri]; !ok {
			byURI[uri] = []protocol.Diagnostic{}
		}
	}
	s.sent = map[string]bool{}
	for uri, ds := range byURI {
		if len(ds) > 0 {
			s.sent[uri] = true
		}
	}
	s.mu.Unlock()
	uris := make([]string, 0, len(byURI))
	for uri := range byURI {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	for _, uri := range uris {
		ctx.Notify(string(protocol.ServerTextDocumentPublishDiagnostics),
			protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: byURI[uri]})
	}
}

func (s *server) didOpen(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.update(ctx, p.TextDocument.URI, p.TextDocument.Text)
	return nil
}

func (s *server) didChange(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	text := ""
	if d, ok := s.docs[p.TextDocument.URI]; ok {
		text = d.text
	}
	s.mu.Unlock()
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		case protocol.TextDocumentContentChangeEvent:
			if c.Range != nil {
				text = text[:offsetOf(text, c.Range.Start)] + c.Text + text[offsetOf(text, c.Range.End):]
			} else {
				text = c.Text
			}
		}
	}
	s.update(ctx, p.TextDocument.URI, text)
	return nil
}

func (s *server) didSave(ctx *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	switch {
	case p.Text != nil:
		s.update(ctx, p.TextDocument.URI, *p.Text)
	case ok:
		s.update(ctx, p.TextDocument.URI, d.text)
	}
	return nil
}

func (s *server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, p.TextDocument.URI)
	delete(s.sent, p.TextDocument.URI)
	s.mu.Unlock()
	ctx.Notify(string(protocol.ServerTextDocumentPublishDiagnostics),
		protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

// doc is an open document, or an error for the client.
func (s *server) doc(uri string) (*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return nil, fmt.Errorf("%s is not open", uri)
	}
	return d, nil
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := offsetOf(d.text, p.Position)
	word, start, qual := wordAt(d.text, off)
	r := rangeOf(d.text, start, start+len(word))
	text := ""
	if dec := d.a.resolve(off); dec != nil {
		text = d.a.describe(dec)
	} else if doc, ok := builtinDocs[word]; ok && qual == "" {
		text = "**built-in** `" + word + "`: " + doc
	} else if doc, ok := builtinDocs[qual+"."+word]; ok {
		text = "**built-in** `" + qual + "." + word + "`: " + doc
		r = rangeOf(d.text, start-len(qual)-1, start+len(word))
	}
	if text == "" {
		return nil, nil
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: text}, Range: &r}, nil
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	dec := d.a.resolve(offsetOf(d.text, p.Position))
	if dec == nil {
		return nil, nil
	}
	at := dec.nameAt
	n := len(dec.name)
	if at < 0 {
		at, n = dec.start, 0
	}
	uri := d.uri
	if dec.file != d.path {
		uri = pathURI(dec.file)
	}
	return protocol.Location{URI: uri, Range: rangeOf(dec.src, at, at+n)}, nil
}

var symbolKinds = map[string]protocol.SymbolKind{
	"let": protocol.SymbolKindConstant, "input": protocol.SymbolKindConstant, "def": protocol.SymbolKindFunction,
	"stage": protocol.SymbolKindClass, "pool": protocol.SymbolKindStruct, "device": protocol.SymbolKindObject,
	"engine": protocol.SymbolKindClass, "queue": protocol.SymbolKindModule, "entry": protocol.SymbolKindMethod,
	"nic": protocol.SymbolKindClass, "gauge": protocol.SymbolKindEvent, "claim": protocol.SymbolKindBoolean,
	"workload": protocol.SymbolKindNamespace, "server": protocol.SymbolKindNamespace,
	"attribute": protocol.SymbolKindVariable,
}

func (s *server) symbols(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	var conv func([]*decl) []protocol.DocumentSymbol
	conv = func(list []*decl) []protocol.DocumentSymbol {
		out := []protocol.DocumentSymbol{}
		for _, x := range list {
			if x.kind == "attribute" {
				continue
			}
			kind := x.kind
			sel := rangeOf(d.text, x.start, x.start)
			if x.nameAt >= 0 {
				sel = rangeOf(d.text, x.nameAt, x.nameAt+len(x.name))
			}
			out = append(out, protocol.DocumentSymbol{Name: x.name, Detail: &kind, Kind: symbolKinds[x.kind],
				Range: rangeOf(d.text, x.start, x.end), SelectionRange: sel, Children: conv(x.kids)})
		}
		return out
	}
	return conv(d.a.decls), nil
}

func (s *server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out, err := syntax.Format(d.path, []byte(d.text))
	if err != nil {
		return nil, fmt.Errorf("serq fmt: %v", err)
	}
	if string(out) == d.text {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: rangeOf(d.text, 0, len(d.text)), NewText: string(out)}}, nil
}

var completionKinds = map[string]protocol.CompletionItemKind{
	"let": protocol.CompletionItemKindConstant, "input": protocol.CompletionItemKindConstant,
	"def": protocol.CompletionItemKindFunction, "stage": protocol.CompletionItemKindClass,
	"pool": protocol.CompletionItemKindStruct, "device": protocol.CompletionItemKindClass,
	"engine": protocol.CompletionItemKindClass, "queue": protocol.CompletionItemKindModule,
	"entry": protocol.CompletionItemKindMethod, "gauge": protocol.CompletionItemKindVariable,
	"claim": protocol.CompletionItemKindVariable, "attribute": protocol.CompletionItemKindVariable,
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	items := []protocol.CompletionItem{}
	add := func(label, detail string, kind protocol.CompletionItemKind) {
		if seen[label] || label == "" {
			return
		}
		seen[label] = true
		k, det := kind, detail
		items = append(items, protocol.CompletionItem{Label: label, Kind: &k, Detail: &det})
	}
	var walk func([]*decl)
	walk = func(list []*decl) {
		for _, x := range list {
			if k, ok := completionKinds[x.kind]; ok {
				add(x.name, x.kind, k)
			}
			walk(x.kids)
		}
	}
	walk(d.a.decls)
	walk(d.a.libs)
	for _, b := range lang.Builtins() {
		add(b, "built-in", protocol.CompletionItemKindFunction)
	}
	for _, k := range syntax.Keywords() {
		add(k, "keyword", protocol.CompletionItemKindKeyword)
	}
	return items, nil
}

// offsetOf is the byte offset of an LSP position (a line and a UTF-16
// column) in text, clamped to the text.
func offsetOf(text string, pos protocol.Position) int {
	off := 0
	for line := uint32(0); line < pos.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	units := uint32(0)
	for off < len(text) && text[off] != '\n' && units < pos.Character {
		r, n := utf8.DecodeRuneInString(text[off:])
		units += uint32(utf16.RuneLen(r))
		if utf16.RuneLen(r) < 0 {
			units++
		}
		off += n
	}
	return off
}

// positionOf is the LSP position of byte offset off in text.
func positionOf(text string, off int) protocol.Position {
	if off > len(text) {
		off = len(text)
	}
	if off < 0 {
		off = 0
	}
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	units := 0
	for _, r := range text[start:off] {
		if n := utf16.RuneLen(r); n > 0 {
			units += n
		} else {
			units++
		}
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

func rangeOf(text string, start, end int) protocol.Range {
	return protocol.Range{Start: positionOf(text, start), End: positionOf(text, end)}
}

// errRange is the range of an error at line and col (1-based, col in
// characters): the identifier or number there, else one character.
func errRange(text string, line, col int) protocol.Range {
	if line < 1 {
		line, col = 1, 1
	}
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			off = len(text)
			break
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(text) && text[off] != '\n'; c++ {
		_, n := utf8.DecodeRuneInString(text[off:])
		off += n
	}
	end := off
	word, start, _ := wordAt(text, off)
	if word != "" && start == off {
		end = off + len(word)
	} else if end < len(text) && text[end] != '\n' {
		_, n := utf8.DecodeRuneInString(text[end:])
		end += n
	}
	return rangeOf(text, off, end)
}
