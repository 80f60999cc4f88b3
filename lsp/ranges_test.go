package lsp

import (
	"errors"
	"testing"

	"github.com/tliron/glsp/protocol_3_16"

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
