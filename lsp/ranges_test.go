package lsp

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// TestErrRange checks that a diagnostic's range is the one lang gives the
// error: the parse error at a string that holds a character outside the
// BMP (two UTF-16 units), a two-character operator, a span over lines, a point where lang gives no
// end, and a whole file's error at its start.
func TestErrRange(t *testing.T) {
	text := "fn main() {\n  let a = \"😀\" + undefinedname;\n  let b = 1 <= 2;\n}\n"
	src := []byte(text)
	_, err := lang.LoadSource("r.sq", src, lang.Options{})
	var parse *lang.Error
	if !errors.As(err, &parse) {
		t.Fatalf("load: %v", err)
	}
	pos := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	at := func(l, c int) model.Pos { return model.Pos{File: "r.sq", Line: l, Col: c} }
	for _, c := range []struct {
		e    *lang.Error
		want protocol.Range
	}{
		{parse, protocol.Range{Start: pos(1, 10), End: pos(1, 14)}},
		{&lang.Error{Pos: at(3, 13), End: at(3, 15)}, protocol.Range{Start: pos(2, 12), End: pos(2, 14)}},
		{&lang.Error{Pos: at(2, 3), End: at(3, 5)}, protocol.Range{Start: pos(1, 2), End: pos(2, 4)}},
		{&lang.Error{Pos: at(3, 5)}, protocol.Range{Start: pos(2, 4), End: pos(2, 5)}},
		{&lang.Error{Pos: model.Pos{File: "r.sq"}}, protocol.Range{Start: pos(0, 0), End: pos(0, 1)}},
	} {
		if got := errRange(text, c.e); got != c.want {
			t.Errorf("%v (end %v) %q: range %+v, want %+v", c.e.Pos, c.e.End, c.e.Msg, got, c.want)
		}
	}
}

// TestResolveShadowed checks that hover and definition resolve a name as
// lang's checker binds it: a def's parameter `x` that shadows the constant
// `x` inside the def, the constant outside it, and a parameter named as a
// library's def (`double`) inside the def that takes it.
func TestResolveShadowed(t *testing.T) {
	libText := "def double(x) { 2 * x }\n"
	src := "use \"l.sq\";\nlet x = 4;\ndef f(x, double) { x + double }\nfn main() {\n  stage s : fifo(1);\n" +
		"  workload { arrive poisson(1); }\n  server { run s (cost(s, f(1, 2) + x + double(3))); }\n}\n"
	read := func(p string) ([]byte, error) {
		if filepath.Base(p) == "l.sq" {
			return []byte(libText), nil
		}
		return nil, errors.New("no file")
	}
	a := analyze("/p/m.sq", src, read, false)
	if a.prog == nil {
		t.Fatalf("load: %v", a.errs)
	}
	lines := strings.Split(src, "\n")
	for _, c := range []struct {
		line       int // 0-based
		at, word   string
		kind, decl string // the declaration's kind and where its name is
		declLine   int
		declFile   string
	}{
		{2, "{ x", "x", "parameter", "x, double", 2, "/p/m.sq"},
		{2, "+ double", "double", "parameter", "double)", 2, "/p/m.sq"},
		{6, "+ x", "x", "let", "x = 4", 1, "/p/m.sq"},
		{6, "double(3", "double", "def", "double(x)", 0, "/p/l.sq"},
	} {
		off := 0
		for _, l := range lines[:c.line] {
			off += len(l) + 1
		}
		off += strings.Index(lines[c.line], c.at) + strings.Index(c.at, c.word)
		d := a.resolve(off)
		if d == nil {
			t.Errorf("%q on line %d: nothing", c.word, c.line)
			continue
		}
		text := src
		if c.declFile != "/p/m.sq" {
			text = libText
		}
		want := strings.Index(text, strings.Split(text, "\n")[c.declLine]) + strings.Index(strings.Split(text, "\n")[c.declLine], c.decl)
		if d.kind != c.kind || d.file != c.declFile || d.nameAt != want {
			t.Errorf("%q on line %d: %s in %s at %d, want %s in %s at %d", c.word, c.line, d.kind, d.file, d.nameAt, c.kind, c.declFile, want)
		}
	}
}
