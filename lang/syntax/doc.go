// Package syntax parses serQ source into a syntax tree: the first stage of
// the pipeline syntax → lower → checks → model (package lang does the
// rest). It holds the participle grammar, whose structs are the tree
// (grammar.go; each node's first field is its Pos), the lexer (lexer.go: a
// hand-written scanner giving the tokens of the regular expressions it
// lists, which lexer_test.go compares it with) and the entry points
// [Parse], [ParseExpr] and [ParseInstance] (parse.go, instance.go), the
// refusal of text that is not UTF-8 or nests past [MaxNesting] before
// participle's recursive descent starts (text.go), and the one error type
// of a program's static errors, [Error] (error.go). The text is lexed once:
// the checks before the parse read the tokens the parser then parses.
//
// The tools that read source without lowering it build on the same
// tokens: [Format] lays a file out (format.go, `serq fmt`), [Keywords]
// lists the grammar's words for the editor grammars, and [Lexer] and
// [Elided] give the language server the tokens with comments and white
// space (words.go).
package syntax
