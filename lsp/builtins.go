package lsp

import "github.com/serq/serq/model"

// builtinDocs are the hover texts of the built-in names, written from
// model.Predeclared (the table docs/language.md §6 is written from too): a
// call's signature and what it means; a name that stands under two kinds
// (`exp`) says both; a name known only to the debugger (model.KQueryOnly)
// has none. TestBuiltinDocs checks that every name of
// lang.Builtins has one.
var builtinDocs = func() map[string]string {
	docs := map[string]string{}
	for _, b := range model.Predeclared {
		var doc string
		switch b.Kind {
		case model.KContext, model.KConstant:
			doc = b.Doc
		case model.KAttribute:
			doc = "attribute: " + b.Doc
		case model.KAggregate:
			doc = "`" + b.Signature() + "`: " + b.Doc + " (claims at end)"
		case model.KQuery:
			doc = "`" + b.Signature() + "`: " + b.Doc + " (serq tui's break and watch expressions)"
		case model.KQueryOnly:
			continue // a free name in a program
		default:
			doc = "`" + b.Signature() + "`: " + b.Doc
		}
		if old, ok := docs[b.Name]; ok {
			doc = old + "; " + doc
		}
		docs[b.Name] = doc
	}
	return docs
}()
