// Package lang lowers serQ source to a model.Program, with every static
// check of the language. The pipeline is syntax → lower → checks → model,
// one entry function per stage:
//
//  1. Read: [Load] reads the file ([ReadSource]: a regular file, at most
//     [MaxSourceSize] bytes), [LoadSource] takes the text.
//  2. Parse: package [syntax] turns the text into a syntax tree
//     (syntax.Parse: the participle grammar, the lexer, the refusal of
//     text that is not UTF-8 or nests past syntax.MaxNesting, and the
//     translation of participle's errors). The formatter, the keyword
//     list and the language server read the same tokens and comments
//     there.
//  3. Lower: a lowerer turns the tree into the model in two phases
//     (lower.go): declarations in source order (declare.go), then bodies
//     (bodies.go) — statements (stmt.go), expressions (expr.go) — with
//     every resource and attribute known.
//  4. Check: the checks that need the whole program (checks.go, reveal.go)
//     run with the bodies and after them. Errors never stop the lowering:
//     every one is collected, and [Load] returns them sorted and deduplicated
//     as an [ErrorList] of [*Error]; a suggestion ("did you mean `x`?") is
//     in an error's Hint, never in its Msg.
//
// Other entry points: [ReadInstance] reads an instance file (instance.go),
// [CompileQuery] compiles a debugger expression against a loaded program
// (query.go), and [Builtins] lists the predefined names (words.go), all
// of them model.Predeclared's, which builtins.go reads by kind.
//
// The files of the lowering, by concern: scope.go (the moments an
// expression is evaluated at, and the names in scope), costtype.go (the
// cost types of `cost(…)`), costattr.go (costs stored in attributes),
// resolve.go (names of pools and stages to references), fold.go (constant
// folding with model.EvalOp, the operators' one semantics), source.go (an
// expression's source text for messages), spell.go (the "did you mean"
// suggestions), spill.go (`spill` options of pools), limits.go (the
// lowering's limits), load.go (reading the files a program uses),
// error.go (the error list and how the lowerer records errors), diag.go
// (WriteError, the one writer of a diagnostic with its quoted line and
// caret; an error's range is the token at its position, syntax.SetRanges),
// bindings.go (each name read and the declaration it is bound to, for
// Options.Bindings: the language server's definition and hover), api.go
// (the options of Load).
package lang
