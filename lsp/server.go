// Package lsp is serQ's language server, `serq lsp`: the Language Server
// Protocol over a stream (stdin and stdout), on the protocol types and the
// method dispatch of github.com/tliron/glsp and the JSON-RPC connection of
// github.com/sourcegraph/jsonrpc2.
//
// It keeps the open documents (full text sync), one per file whatever the
// spelling of its URI (Neovim's `%c3%a9`, VS Code's `%2B`), and, for each,
// the result of loading it as `serq check` does, or of checking it as a
// library when it is one (a file an open document uses, or one without
// `fn main` that holds only `use` and `def`). The static errors are
// published as diagnostics on open, change and save, by file: what a file
// shows is what every open document says of it (a program reports its
// libraries' errors too), under the URI the client opened it under; an
// empty list once fixed. Editing a library checks again the open programs
// that use it. It answers hover (a name's kind, what the lowered program
// knows of it — a pool's cap and block, a constant's value, an input's
// binding — and its declaration, a def's body whole; a device's time
// resources, queue attributes and marks, `batch.…` and the other built-in
// names), go to definition (into `use`d libraries too; a name's definition
// is the declaration lang's checker binds it to, lang.Binding), document symbols
// (queues with their members and entries, stages, pools, devices,
// engines, defs, constants, gauges, claims), formatting (the layout of
// `serq fmt`) and completion (after `Q.` or `Q[…].` the members of queue
// Q or the fields of `batch`, `running`, `waiting` and `args`; elsewhere
// the names the document and its libraries declare, the keywords and the
// built-in names; while the text does not parse, the names of the text
// without the cursor's line, or of its last text that parsed). A request
// about a document that is not open has an empty answer.
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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
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
	docs    map[string]*document // by key (uriKey)
	shown   map[string]string    // the keys of the files the client shows diagnostics for: the URI they went under
}

// A document is an open file. Its key is its file path (the URI decoded),
// so that every spelling of one file's URI is one document; uri is the
// spelling the client opened it under, the one the server answers in.
type document struct {
	uri, key, path, text string
	a                    *analysis
	// parsed is the document's last analysis whose text parsed, for
	// completion while the text does not.
	parsed *analysis
	// diags are the diagnostics its analysis gives each file, by key.
	diags map[string][]protocol.Diagnostic
}

func newServer(version string) *server {
	s := &server{version: version, docs: map[string]*document{}, shown: map[string]string{}}
	s.handler = protocol.Handler{
		Initialize:  s.initialize,
		Initialized: func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:    func(*glsp.Context) error { return nil },
		SetTrace:    func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		// Sent by VS Code and Neovim whatever the server offers: nothing
		// here is configured by the client, and every request is answered
		// at once, so there is nothing to cancel.
		WorkspaceDidChangeConfiguration: func(*glsp.Context, *protocol.DidChangeConfigurationParams) error { return nil },
		CancelRequest:                   func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:             s.didOpen,
		TextDocumentDidChange:           s.didChange,
		TextDocumentDidSave:             s.didSave,
		TextDocumentDidClose:            s.didClose,
		TextDocumentHover:               s.hover,
		TextDocumentDefinition:          s.definition,
		TextDocumentDocumentSymbol:      s.symbols,
		TextDocumentFormatting:          s.formatting,
		TextDocumentCompletion:          s.completion,
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
	case !validMethod && req.Notif && strings.HasPrefix(req.Method, "$/"):
		return nil, nil // the protocol's own notifications, which a server may ignore
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

// uriKey is the key of a URI: the file path of a file: URI, so that the
// spellings of one path (`%C3%A9` and `%c3%a9`, `+` and `%2B`) are one
// file; other URIs are their own key.
func uriKey(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// uriPath is the file path of a file: URI (other URIs are used as they are).
func uriPath(uri string) string { return uriKey(uri) }

// pathURI is the file: URI of a path, spelt as vscode-uri spells it: every
// byte but the unreserved characters and `/` percent-encoded, in capitals.
func pathURI(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	p = filepath.ToSlash(p)
	var b strings.Builder
	b.WriteString("file://")
	if !strings.HasPrefix(p, "/") {
		b.WriteByte('/')
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~/", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// open is the text of the open document at path p.
func (s *server) open(p string) (string, bool) {
	if d, ok := s.docs[filepath.Clean(p)]; ok {
		return d.text, true
	}
	return "", false
}

// uriOf is the URI of the file of key as the client spells it: the URI
// it opened the file under, else the one its diagnostics went under, else
// pathURI's.
func (s *server) uriOf(key string) string {
	if d, ok := s.docs[key]; ok {
		return d.uri
	}
	if uri, ok := s.shown[key]; ok {
		return uri
	}
	return pathURI(key)
}

// update sets a document's text, analyses it and every open document that
// reads it, and publishes their diagnostics.
func (s *server) update(ctx *glsp.Context, uri, text string) {
	s.mu.Lock()
	d := &document{uri: uri, key: uriKey(uri), path: uriPath(uri), text: text}
	affected := map[string]bool{d.key: true}
	if old, ok := s.docs[d.key]; ok {
		d.parsed = old.parsed
		for k := range old.diags {
			affected[k] = true
		}
	}
	s.docs[d.key] = d
	s.analyze(d, affected)
	s.recheck(d.path, affected)
	notes := s.publish(affected)
	s.mu.Unlock()
	notify(ctx, notes)
}

// analyze analyses d and notes the files its diagnostics were and are
// about in affected. The caller holds s.mu.
func (s *server) analyze(d *document, affected map[string]bool) {
	for k := range d.diags {
		affected[k] = true
	}
	asLib := false
	for _, o := range s.docs {
		asLib = asLib || o != d && o.path != d.path && o.a != nil && o.a.reads[d.path]
	}
	// A document is a program as `serq check` reads it (lang.SourceKind):
	// past its size limit it is not parsed, as the file would not be.
	if err := lang.SourceKind.Check(d.path, int64(len(d.text))); err != nil {
		d.a = &analysis{file: d.path, src: d.text, asLib: asLib, reads: map[string]bool{}, errs: []*lang.Error{
			{Pos: model.Pos{File: d.path, Line: 1, Col: 1}, Msg: "cannot read: " + unwrapPath(err).Error()}}}
	} else {
		d.a = analyze(d.path, d.text, readOverlay(s.open), asLib)
	}
	if d.a.parsedOK {
		d.parsed = d.a
	}
	d.diags = s.diagnostics(d)
	for k := range d.diags {
		affected[k] = true
	}
}

// recheck analyses again the open documents that read the file at path
// (the programs that use a library just edited, opened or closed), and
// those that path reads and were not checked as libraries.
func (s *server) recheck(path string, affected map[string]bool) {
	reads := map[string]bool{}
	if d, ok := s.docs[path]; ok {
		reads = d.a.reads
	}
	for _, key := range slices.Sorted(maps.Keys(s.docs)) {
		if o := s.docs[key]; o.path != path && (o.a.reads[path] || reads[o.path] && !o.a.asLib) {
			n := *o // a new document: a request may be reading the old one
			s.analyze(&n, affected)
			s.docs[key] = &n
		}
	}
}

// diagnostics are the diagnostics of d's analysis, by the key of the file
// they are about; d's own key is always there (an empty list once fixed).
func (s *server) diagnostics(d *document) map[string][]protocol.Diagnostic {
	byKey := map[string][]protocol.Diagnostic{d.key: {}}
	for _, e := range d.a.errs {
		key, text := d.key, d.text
		if file := e.Pos.File; file != "" && filepath.Clean(file) != d.path {
			key = filepath.Clean(file)
			if t, ok := s.open(key); ok {
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
		if e.Severity == syntax.SevWarning {
			sev = protocol.DiagnosticSeverityWarning
		}
		source := "serq"
		byKey[key] = append(byKey[key], protocol.Diagnostic{Range: errRange(text, e),
			Severity: &sev, Source: &source, Message: msg})
	}
	return byKey
}

// publish is the notifications that show the client the diagnostics of
// the files of keys: for each, those every open document gives it (one
// copy of each). A file is published under one URI at a time: when its
// spelling changes (the client opens a file whose diagnostics went under
// pathURI's), the old spelling is cleared first. The caller holds s.mu.
func (s *server) publish(keys map[string]bool) []protocol.PublishDiagnosticsParams {
	var notes []protocol.PublishDiagnosticsParams
	docs := slices.Sorted(maps.Keys(s.docs))
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		list := []protocol.Diagnostic{}
		seen := map[string]bool{}
		for _, dk := range docs {
			for _, g := range s.docs[dk].diags[key] {
				id := fmt.Sprintf("%v %s", g.Range, g.Message)
				if !seen[id] {
					seen[id] = true
					list = append(list, g)
				}
			}
		}
		uri := s.uriOf(key)
		if old, ok := s.shown[key]; ok && old != uri {
			notes = append(notes, protocol.PublishDiagnosticsParams{URI: old, Diagnostics: []protocol.Diagnostic{}})
		}
		delete(s.shown, key)
		if len(list) > 0 {
			s.shown[key] = uri
		}
		notes = append(notes, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: list})
	}
	return notes
}

func notify(ctx *glsp.Context, notes []protocol.PublishDiagnosticsParams) {
	for _, n := range notes {
		ctx.Notify(string(protocol.ServerTextDocumentPublishDiagnostics), n)
	}
}

func (s *server) didOpen(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.update(ctx, p.TextDocument.URI, p.TextDocument.Text)
	return nil
}

// maxEditWork bounds the bytes a didChange's ranged edits go through
// (each reads and copies the text): the server syncs documents whole, and
// a client's thousands of edits to a large text would take minutes.
const maxEditWork = 64 << 20

func (s *server) didChange(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	text := ""
	if d, ok := s.docs[uriKey(p.TextDocument.URI)]; ok {
		text = d.text
	}
	s.mu.Unlock()
	work := 0
	for i, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				text = c.Text
				continue
			}
			// An edit whose range ends before it starts would copy the text
			// between its ends twice: 22 of them double a text 22 times.
			start, end := offsetOf(text, c.Range.Start), offsetOf(text, c.Range.End)
			work += len(text) + len(c.Text)
			switch size := len(text) - (end - start) + len(c.Text); {
			case start > end:
				s.refuse(ctx, p.TextDocument.URI, fmt.Sprintf("serq lsp: edit %d of a change ends (%d:%d) before it starts (%d:%d); the document was left as it was",
					i+1, c.Range.End.Line+1, c.Range.End.Character+1, c.Range.Start.Line+1, c.Range.Start.Character+1))
				return nil
			case work > maxEditWork || size > MaxMessage:
				s.refuse(ctx, p.TextDocument.URI, fmt.Sprintf("serq lsp: a change of %d edits to a text of %d bytes is more than the server takes; the document was left as it was",
					len(p.ContentChanges), len(text)))
				return nil
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	s.update(ctx, p.TextDocument.URI, text)
	return nil
}

// refuse leaves the document at uri as it was and says why on it, as a
// diagnostic at its start beside its errors, until its next change.
func (s *server) refuse(ctx *glsp.Context, uri, msg string) {
	s.mu.Lock()
	d, ok := s.docs[uriKey(uri)]
	if !ok {
		s.mu.Unlock()
		return
	}
	n, a := *d, *d.a // new ones: a request may be reading the old
	a.errs = append([]*lang.Error{{Pos: model.Pos{File: d.path, Line: 1, Col: 1}, Msg: msg,
		Hint: "the server syncs documents whole; close and reopen the document"}}, d.a.errs...)
	n.a = &a
	n.diags = s.diagnostics(&n)
	s.docs[n.key] = &n
	notes := s.publish(map[string]bool{n.key: true})
	s.mu.Unlock()
	notify(ctx, notes)
}

// unwrapPath is a *fs.PathError's cause.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *server) didSave(ctx *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	d, ok := s.docs[uriKey(p.TextDocument.URI)]
	s.mu.Unlock()
	switch {
	case p.Text != nil:
		s.update(ctx, p.TextDocument.URI, *p.Text)
	case ok:
		s.update(ctx, p.TextDocument.URI, d.text)
	}
	return nil
}

// didClose forgets the document; the diagnostics of its file are those
// the open documents that use it give (none when none does), and those
// documents read it from the disk again.
func (s *server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	key := uriKey(p.TextDocument.URI)
	affected := map[string]bool{key: true}
	if d, ok := s.docs[key]; ok {
		for k := range d.diags {
			affected[k] = true
		}
		delete(s.docs, key)
		s.recheck(d.path, affected)
		if _, ok := s.shown[key]; !ok {
			// Cleared under the spelling the client closed it under.
			s.shown[key] = d.uri
		}
	}
	notes := s.publish(affected)
	s.mu.Unlock()
	notify(ctx, notes)
	return nil
}

// doc is the open document of uri; a request about a document that is not
// open has an empty answer.
func (s *server) doc(uri string) (*document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uriKey(uri)]
	return d, ok
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, ok := s.doc(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	off := offsetOf(d.text, p.Position)
	word, start, qual := wordAt(d.text, off)
	r := rangeOf(d.text, start, start+len(word))
	end := start + len(word)
	next, _, _ := wordAt(d.text, end+1)
	text := ""
	if dec := d.a.resolve(off); dec != nil {
		text = d.a.describe(dec)
	} else if doc, ok := builtinDocs[word+"."+next]; ok && qual == "" && end < len(d.text) && d.text[end] == '.' {
		// `batch` of `batch.tokens`.
		text = "**built-in** `" + word + "." + next + "`: " + doc
		r = rangeOf(d.text, start, end+1+len(next))
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
	d, ok := s.doc(p.TextDocument.URI)
	if !ok {
		return nil, nil
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
	s.mu.Lock()
	uri := s.uriOf(filepath.Clean(dec.file))
	s.mu.Unlock()
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
	d, ok := s.doc(p.TextDocument.URI)
	if !ok {
		return nil, nil
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
	d, ok := s.doc(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	if err := lang.SourceKind.Check(d.path, int64(len(d.text))); err != nil {
		return nil, fmt.Errorf("serq fmt: %v", unwrapPath(err))
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
	"nic": protocol.CompletionItemKindClass, "mark": protocol.CompletionItemKindVariable,
}

// completion offers, after `Q.` or `Q[…].`, the members of queue Q (or
// the fields of a context variable: `batch.tokens`); elsewhere the names
// the document and its libraries declare (the members of the queue the
// cursor is in among them), the built-in names and the keywords. Each
// item replaces the word before the cursor. While the text does not parse
// (as while typing) the names are those of the text without the cursor's
// line, or of the last text that parsed.
func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, ok := s.doc(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	off := offsetOf(d.text, p.Position)
	start := off
	for start > 0 && isWordByte(d.text[start-1]) {
		start--
	}
	edit := rangeOf(d.text, start, off)
	decls, libs := s.names(d, off)
	seen := map[string]bool{}
	items := []protocol.CompletionItem{}
	add := func(label, detail string, kind protocol.CompletionItemKind) {
		if seen[label] || label == "" {
			return
		}
		seen[label] = true
		k, det := kind, detail
		items = append(items, protocol.CompletionItem{Label: label, Kind: &k, Detail: &det,
			TextEdit: protocol.TextEdit{Range: edit, NewText: label}})
	}
	// addAll adds the names of list; a queue's own (qualified by q) leave
	// out its engine and stage, named as the queue, and its devices' time
	// resources, which are read bare.
	addAll := func(list []*decl, q string) {
		for _, x := range list {
			if k, ok := completionKinds[x.kind]; ok && (q == "" || x.name != q) {
				add(x.name, x.kind, k)
			}
			if x.kind == "device" && q == "" {
				for _, f := range x.kids {
					add(f.name, f.kind, protocol.CompletionItemKindFunction)
				}
			}
		}
	}
	if start > 0 && d.text[start-1] == '.' {
		q := qualifierBefore(d.text, start-1)
		for _, x := range decls {
			if x.kind == "queue" && x.name == q {
				addAll(x.kids, q)
			}
		}
		for _, b := range lang.Builtins() {
			if field, ok := strings.CutPrefix(b, q+"."); ok && q != "" {
				add(field, "built-in", protocol.CompletionItemKindField)
			}
		}
		if q == "args" {
			add("number", "`args.number(\"name\", default)`: an input", protocol.CompletionItemKindFunction)
		}
		return items, nil
	}
	addAll(decls, "")
	for _, x := range decls {
		if x.kind == "queue" && x.start <= off && off < x.end {
			addAll(x.kids, "")
		}
	}
	addAll(libs, "")
	for _, b := range lang.Builtins() {
		add(b, "built-in", protocol.CompletionItemKindFunction)
	}
	for _, k := range syntax.Keywords() {
		add(k, "keyword", protocol.CompletionItemKindKeyword)
	}
	return items, nil
}

// names are the declarations of d and of its libraries for a completion
// at off: its analysis's when its text parses, else those of its text
// with the line at off blanked, else those of its last text that parsed.
func (s *server) names(d *document, off int) (decls, libs []*decl) {
	if d.a.parsedOK {
		return d.a.decls, d.a.libs
	}
	ls := strings.LastIndexByte(d.text[:off], '\n') + 1
	le := strings.IndexByte(d.text[off:], '\n')
	if le < 0 {
		le = len(d.text)
	} else {
		le += off
	}
	text := d.text[:ls] + strings.Repeat(" ", le-ls) + d.text[le:]
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, err := syntax.Parse(d.path, []byte(text)); err == nil {
		return declare(d.path, text, f, readOverlay(s.open))
	}
	if d.parsed != nil {
		return d.parsed.decls, d.parsed.libs
	}
	return nil, nil
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

// errRange is the range lang gives an error (its position to its End),
// or one character where it has no End; an error of a whole file
// (line 0) is at its start.
func errRange(text string, e *lang.Error) protocol.Range {
	start := charOffset(text, max(e.Pos.Line, 1), max(e.Pos.Col, 1))
	if e.End.Line < 1 {
		end := start
		if end < len(text) && text[end] != '\n' {
			_, n := utf8.DecodeRuneInString(text[end:])
			end += n
		}
		return rangeOf(text, start, end)
	}
	return rangeOf(text, start, max(start, charOffset(text, e.End.Line, e.End.Col)))
}

// charOffset is the byte offset of line and col (1-based, col in
// characters) in text, the end of the line or the text if it is shorter.
func charOffset(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(text) && text[off] != '\n'; c++ {
		_, n := utf8.DecodeRuneInString(text[off:])
		off += n
	}
	return off
}
