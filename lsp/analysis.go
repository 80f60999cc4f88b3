package lsp

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// decl is a name a program declares: where, what kind, and in which queue.
type decl struct {
	name   string
	kind   string // let, input, def, stage, pool, device, engine, queue, entry, nic, gauge, claim, attribute, workload, server
	queue  string // the enclosing queue, or ""
	file   string // the path of the file that declares it
	src    string // that file's text
	start  int    // byte offset of the declaration
	end    int    // byte offset after it
	nameAt int    // byte offset of the name
	kids   []*decl
	params []string // a def's or an entry's parameters
}

// text is the declaration's source text.
func (d *decl) text() string {
	if d.start < 0 || d.end > len(d.src) || d.start > d.end {
		return ""
	}
	return d.src[d.start:d.end]
}

// analysis is what the server knows of one open document.
type analysis struct {
	file  string
	src   string
	prog  *model.Program // nil when it does not load
	errs  []*lang.Error  // the static errors, every file's
	decls []*decl        // the document's own, in order, nested in queues
	libs  []*decl        // the `use`d libraries' definitions
	// binds are the names the document reads, each with the declaration
	// lang bound it to (lang.Options.Bindings), by where it is used
	binds []lang.Binding
	// parsedOK says that src parsed; reads are the paths of the files
	// loading it read.
	parsedOK bool
	reads    map[string]bool
	asLib    bool // checked as a library
}

// analyze parses and loads the document at path with text src; read
// reads other files (the open documents first). A library (asLib: a file
// an open document uses), or a document without `fn main` that holds only
// `use` and `def`, is checked as a program that uses it checks it.
func analyze(file, src string, read func(string) ([]byte, error), asLib bool) *analysis {
	a := &analysis{file: file, src: src, reads: map[string]bool{}}
	inner := read
	read = func(p string) ([]byte, error) {
		a.reads[filepath.Clean(p)] = true
		return inner(p)
	}
	opts := lang.Options{Lib: lib.FS, ReadFile: read, Bindings: func(b lang.Binding) {
		if b.Use.File == file {
			a.binds = append(a.binds, b)
		}
	}}
	f, perr := syntax.Parse(file, []byte(src))
	var err error
	if perr == nil && (asLib || isLibrary(f)) {
		a.asLib = true
		err = lang.CheckLibrary(file, []byte(src), opts)
	} else {
		a.prog, err = lang.LoadSource(file, []byte(src), opts)
	}
	if err != nil {
		var list lang.ErrorList
		var one *lang.Error
		switch {
		case errors.As(err, &list):
			a.errs = list
		case errors.As(err, &one):
			a.errs = []*lang.Error{one}
		default:
			a.errs = []*lang.Error{{Pos: model.Pos{File: file, Line: 1, Col: 1}, Msg: err.Error()}}
		}
	}
	if perr == nil {
		a.parsedOK = true
		a.decls, a.libs = declare(file, src, f, read)
	}
	return a
}

// declare is what the file f (at file, text src) declares and what the
// libraries it uses define.
func declare(file, src string, f *syntax.File, read func(string) ([]byte, error)) (decls, libs []*decl) {
	decls = collect(file, src, f.Items, "")
	attrs(file, src, f, "", &decls)
	seen := map[string]bool{file: true}
	for _, it := range f.Items {
		if u, ok := it.(*syntax.UseItem); ok {
			libs = append(libs, library(file, u.Path, read, seen)...)
		}
	}
	return decls, libs
}

// isLibrary says that f is a library: no `fn main`, only `use` and `def`.
func isLibrary(f *syntax.File) bool {
	for _, it := range f.Items {
		switch it.(type) {
		case *syntax.UseItem, *syntax.DefItem:
		default:
			return false
		}
	}
	return true
}

// library is the definitions of the library `use`d as rel from file, and
// of those it uses.
func library(from, rel string, read func(string) ([]byte, error), seen map[string]bool) []*decl {
	rel = strings.Trim(rel, `"`)
	if rel == "std/args" {
		return nil
	}
	p := filepath.FromSlash(rel)
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	if filepath.Ext(p) != ".sq" || seen[p] {
		return nil // `use "secret.txt"` reads nothing, as in lang.Load
	}
	seen[p] = true
	src, err := read(p)
	if err != nil {
		// The embedded library, as lang.Load serves it.
		if src, err = fs.ReadFile(lib.FS, path.Base(rel)); err != nil {
			return nil
		}
	}
	f, err := syntax.Parse(p, src)
	if err != nil {
		return nil
	}
	out := collect(p, string(src), f.Items, "")
	for _, it := range f.Items {
		if u, ok := it.(*syntax.UseItem); ok {
			out = append(out, library(p, u.Path, read, seen)...)
		}
	}
	return out
}

// collect makes the declarations of items (of queue q, or "").
func collect(file, src string, items any, q string) []*decl {
	var out []*decl
	add := func(kind, name string, pos lexer.Position) *decl {
		d := &decl{name: name, kind: kind, queue: q, file: file, src: src, start: pos.Offset}
		d.end = declEnd(src, pos.Offset)
		d.nameAt = nameOffset(src, pos.Offset, name)
		out = append(out, d)
		return d
	}
	v := reflect.ValueOf(items)
	for i := 0; i < v.Len(); i++ {
		switch it := v.Index(i).Interface().(type) {
		case *syntax.LetItem:
			kind := "let"
			if it.Arg != nil {
				kind = "input"
			}
			add(kind, it.Name, it.Pos)
		case *syntax.DefItem:
			add("def", it.Name, it.Pos).params = it.Params
		case *syntax.MainItem:
			out = append(out, collect(file, src, it.Items, q)...)
		case *syntax.StageItem:
			add("stage", it.Name, it.Pos)
		case *syntax.PoolItem:
			add("pool", it.Name, it.Pos)
		case *syntax.DeviceItem:
			d := add("device", it.Name, it.Pos)
			for _, r := range it.Resources {
				if r.Cap == nil { // `hbm (k) = e;`, not `kv cap e;`
					f := &decl{name: r.Name, kind: "time resource", queue: q, file: file, src: src,
						start: r.Pos.Offset, end: declEnd(src, r.Pos.Offset), nameAt: r.Pos.Offset, params: r.Params}
					d.kids = append(d.kids, f)
				}
			}
		case *syntax.EngineItem:
			name := it.Name
			if name == "" {
				name = q // a queue's engine is named after the queue
			}
			d := add("engine", name, it.Pos)
			if it.Name == "" {
				d.nameAt = -1
			}
		case *syntax.QueueItem:
			d := add("queue", it.Name, it.Pos)
			d.kids = collect(file, src, it.Items, it.Name)
			attrs(file, src, it, it.Name, &d.kids)
		case *syntax.EntryItem:
			add("entry", it.Verb, it.Pos).params = it.Params
		case *syntax.NicItem:
			add("nic", "nic", it.Pos)
		case *syntax.ServeItem:
			add("stage", q, it.Pos).nameAt = -1
		case *syntax.GaugeItem:
			add("gauge", it.Name, it.Pos)
		case *syntax.ClaimItem:
			add("claim", it.Name, it.Pos)
		case *syntax.WorkloadItem:
			add("workload", "workload", it.Pos).nameAt = it.Pos.Offset
		case *syntax.ServerItem:
			add("server", "server", it.Pos).nameAt = it.Pos.Offset
		}
	}
	return out
}

// attrs adds the session attributes of x (a queue's, the queue q's): the
// first `set`, `choose`, `observe`, `mark` or `Size`/`Cost` of each name
// that no other declaration of the list has. A queue's own are left to
// its walk.
func attrs(file, src string, x any, q string, decls *[]*decl) {
	taken := map[string]bool{}
	for _, d := range *decls {
		taken[d.name] = true
	}
	walkAST(reflect.ValueOf(x), func(x any) bool {
		kind := "attribute"
		var name string
		var pos lexer.Position
		switch s := x.(type) {
		case *syntax.QueueItem:
			return q == s.Name
		case *syntax.SetStmt:
			name, pos = s.Name, s.Pos
		case *syntax.ChooseStmt:
			name, pos = s.Name, s.Pos
		case *syntax.DeclStmt:
			name, pos = s.Name, s.Pos
		case *syntax.MarkStmt:
			name, pos, kind = s.Name, s.Pos, "mark"
		default:
			return true
		}
		if taken[name] {
			return true
		}
		taken[name] = true
		d := &decl{name: name, kind: kind, queue: q, file: file, src: src, start: pos.Offset,
			end: declEnd(src, pos.Offset), nameAt: nameOffset(src, pos.Offset, name)}
		*decls = append(*decls, d)
		return true
	})
}

// walkAST calls f on every pointer to a struct under v, and walks on
// under those it returns true for.
func walkAST(v reflect.Value, f func(any) bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct && !f(v.Interface()) {
			return
		}
		walkAST(v.Elem(), f)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(lexer.Position{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walkAST(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkAST(v.Index(i), f)
		}
	}
}

// lexFrom lexes src from offset, skipping white space and comments.
func lexFrom(src string, off int, visit func(tok lexer.Token, off int) bool) {
	if off < 0 || off > len(src) {
		return
	}
	lx, err := syntax.Lexer().LexString("", src[off:])
	if err != nil {
		return
	}
	skip := syntax.Elided()
	for {
		t, err := lx.Next()
		if err != nil || t.EOF() {
			return
		}
		if skip[t.Type] {
			continue
		}
		if !visit(t, off+t.Pos.Offset) {
			return
		}
	}
}

// declEnd is the offset after the declaration starting at off: after its
// first `;` outside brackets, or the brace that closes its first block.
func declEnd(src string, off int) int {
	end, depth, braced := len(src), 0, false
	lexFrom(src, off, func(t lexer.Token, at int) bool {
		switch t.Value {
		case "{", "(", "[":
			if t.Value == "{" {
				braced = true
			}
			depth++
		case "}", ")", "]":
			depth--
			if depth == 0 && braced && t.Value == "}" {
				end = at + 1
				return false
			}
		case ";":
			if depth == 0 {
				end = at + 1
				return false
			}
		}
		return true
	})
	return end
}

// nameOffset is the offset of the first identifier name at or after off.
func nameOffset(src string, off int, name string) int {
	found := -1
	lexFrom(src, off, func(t lexer.Token, at int) bool {
		if t.Value == name {
			found = at
			return false
		}
		return at-off < 4096
	})
	return found
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// wordAt is the identifier around byte offset off and, when it is written
// after `Q.` or `Q[…].`, the queue Q.
func wordAt(src string, off int) (word string, start int, qual string) {
	off = max(0, min(off, len(src)))
	s, e := off, off
	for s > 0 && isWordByte(src[s-1]) {
		s--
	}
	for e < len(src) && isWordByte(src[e]) {
		e++
	}
	if s == e {
		return "", off, ""
	}
	if s > 0 && src[s-1] == '.' {
		qual = qualifierBefore(src, s-1)
	}
	return src[s:e], s, qual
}

// qualifierBefore is the name Q of `Q.` or `Q[…].` whose dot is at
// offset dot.
func qualifierBefore(src string, dot int) string {
	i := dot - 1
	if i >= 0 && src[i] == ']' {
		depth := 0
		for ; i >= 0; i-- {
			if src[i] == ']' {
				depth++
			} else if src[i] == '[' {
				depth--
				if depth == 0 {
					i--
					break
				}
			}
		}
	}
	qe := i + 1
	for i >= 0 && isWordByte(src[i]) {
		i--
	}
	return src[i+1 : qe]
}

// resolve is the declaration a name at offset off (in it, or just after
// it, where an editor's cursor stands after typing it) refers to: the one
// lang bound the name written there to (lang.Binding), or, on a
// declaration's own name, that declaration.
func (a *analysis) resolve(off int) *decl {
	for i := range a.binds {
		b := &a.binds[i]
		start := charOffset(a.src, b.Use.Line, b.Use.Col)
		if start <= off && off <= charOffset(a.src, b.UseEnd.Line, b.UseEnd.Col) {
			return a.declOf(b)
		}
	}
	var found *decl
	var walk func([]*decl)
	walk = func(list []*decl) {
		for _, d := range list {
			if d.nameAt >= 0 && d.nameAt <= off && off <= d.nameAt+len(d.name) {
				found = d
			}
			walk(d.kids)
		}
	}
	walk(a.decls)
	if found != nil && found.kind != "workload" && found.kind != "server" {
		return found
	}
	return nil
}

// declOf is the declaration of binding b: one the document or its
// libraries declare at b.Decl, or for a parameter or a schedule's let the
// name in the def, entry or engine that declares it.
func (a *analysis) declOf(b *lang.Binding) *decl {
	var found, body *decl
	var walk func([]*decl)
	walk = func(list []*decl) {
		for _, d := range list {
			if filepath.Clean(d.file) != filepath.Clean(b.Decl.File) {
				continue
			}
			at := charOffset(d.src, b.Decl.Line, b.Decl.Col)
			if d.kind != "parameter" && (d.start == at || d.nameAt == at) && (d.name == b.Name || d.queue+"."+d.name == b.Name) {
				found = d
			}
			if d.start <= at && at < d.end && (d.kind == "def" || d.kind == "entry" || d.kind == "engine") {
				body = d
			}
			walk(d.kids)
		}
	}
	walk(a.decls)
	walk(a.libs)
	switch {
	case found != nil && b.Kind != "parameter":
		return found
	case body != nil && (b.Kind == "parameter" || b.Kind == "let"):
		p := *body
		p.kind, p.name, p.kids, p.params = b.Kind, b.Name, nil, nil
		p.nameAt = charOffset(body.src, b.Decl.Line, b.Decl.Col)
		if b.Kind == "let" {
			p.start = p.nameAt
			p.end = declEnd(body.src, p.start)
		}
		return &p
	}
	return nil
}

// describe is the hover text of d: its kind and declaration, with what
// the lowered program knows of it.
func (a *analysis) describe(d *decl) string {
	var b strings.Builder
	full := d.name
	if d.queue != "" && d.kind != "engine" && d.kind != "entry" && d.kind != "parameter" && d.kind != "time resource" {
		full = d.queue + "." + d.name
	}
	b.WriteString("**" + d.kind + "** `" + full + "`")
	if a.prog != nil {
		b.WriteString(a.facts(d, full))
	}
	text := d.text()
	switch d.kind {
	case "queue", "entry", "parameter":
		text = firstLine(text) + " { … }"
	}
	if text != "" {
		b.WriteString("\n\n```serq\n" + text + "\n```")
	}
	if d.file != a.file {
		b.WriteString("\n\nfrom " + d.file)
	}
	return b.String()
}

// facts are what the lowered program says of d.
func (a *analysis) facts(d *decl, full string) string {
	p := a.prog
	switch d.kind {
	case "let":
		for _, c := range p.Consts {
			if c.Name == d.name {
				return " = " + model.FormatNum(float64(c.Value))
			}
		}
	case "input":
		for _, in := range p.Inputs {
			if in.Local == d.name {
				return " = " + model.FormatNum(float64(in.Value)) + " (input `" + in.Name + "`, default " +
					model.FormatNum(float64(in.Default)) + ")"
			}
		}
	case "pool":
		for _, f := range p.PoolFams {
			if f.Name == full && f.Count > 0 {
				pl := p.Pools[f.First]
				s := ": cap " + model.FormatNum(float64(pl.Cap))
				if pl.Block > 0 {
					s += ", block " + model.FormatNum(float64(pl.Block))
				}
				if f.Array {
					s += ", " + strconv.Itoa(f.Count) + " members"
				}
				return s
			}
		}
	case "stage", "engine", "nic":
		name := full
		if d.kind == "engine" {
			name = d.name
		}
		if d.kind == "nic" {
			name = d.queue + ".nic"
		}
		for _, f := range p.StageFams {
			if f.Name == name && f.Count > 0 {
				st := p.Stages[f.First]
				s := ": " + st.Kind.String()
				if st.Kind == model.FIFO {
					s += ", " + strconv.Itoa(st.Servers) + " server(s)"
				}
				if st.Engine >= 0 && st.Engine < len(p.Engines) {
					if v, ok := p.Engines[st.Engine].Budget.IsConst(); ok {
						s += ", tokens cap " + model.FormatNum(v)
					}
				}
				if f.Array {
					s += ", " + strconv.Itoa(f.Count) + " members"
				}
				return s
			}
		}
	case "queue":
		for _, q := range p.Queues {
			if q.Name == d.name {
				return ": " + strconv.Itoa(q.Count) + " member(s), " + strings.Join(q.Roles, ", ")
			}
		}
	}
	return ""
}

// firstLine is a block's head: its first line without the brace.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, " {")
}

// readOverlay reads a library as `serq check` does (lang.ReadLibrary: a
// regular .sq file of at most lang.MaxSourceSize bytes), the text of an
// open document standing for the file's, unsaved edits and all: an open
// document is read by the same rules as the file it stands for.
func readOverlay(open func(string) (string, bool)) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := open(filepath.Clean(p)); ok {
			if err := lang.SQKind.Check(p, int64(len(s))); err != nil {
				return nil, err
			}
			return []byte(s), nil
		}
		return lang.ReadLibrary(p)
	}
}
