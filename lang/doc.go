// Package lang reads serQ source and lowers it to a model.Program, with
// every static check of the language. Its pipeline, one entry function per
// stage:
//
//  1. Read: [Load] reads the file ([ReadSource]: a regular file, at most
//     [MaxSourceSize] bytes), [LoadSource] takes the text; limits.go refuses
//     what is not UTF-8 text or nests past [MaxNesting].
//  2. Parse: [Parse] turns the text into the syntax tree of grammar.go (a
//     participle grammar; parse.go holds the lexer, the lookahead and the
//     translation of participle's errors). The formatter ([Format]), the
//     keyword list ([Keywords]) and the language server read the same
//     tokens and comments ([Lexer]).
//  3. Lower: a lowerer turns the tree into the model in two phases
//     (lower.go): declarations in source order (declare.go), then bodies
//     (bodies.go) — statements (stmt.go), expressions (expr.go) — with
//     every resource and attribute known.
//  4. Check: the checks that need the whole program (checks.go, reveal.go)
//     run with the bodies and after them. Errors never stop the lowering:
//     every one is collected, and [Load] returns them sorted and deduplicated
//     as an [ErrorList] of [*Error].
//
// Other entry points: [ParseExpr] checks a command-line expression,
// [ReadInstance] reads an instance file (instance.go), [CompileQuery]
// compiles a debugger expression against a loaded program (query.go), and
// [Builtins] lists the predefined names.
//
// The files of the lowering, by concern: scope.go (the moments an
// expression is evaluated at, and the names in scope), costtype.go (the
// cost types of `cost(…)`), costattr.go (costs stored in attributes),
// resolve.go (names of pools and stages to references), fold.go (constant
// folding with model.EvalOp, the operators' one semantics), source.go (an
// expression's source text for messages), spell.go (the "did you mean"
// suggestions), error.go (the error types and how the lowerer records
// them), api.go (the options of Load).
package lang
