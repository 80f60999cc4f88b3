package lang

import (
	"io/fs"
)

// Override binds a program input by name to a constant expression written
// in serQ syntax: `--set name=expr`, `-- --name value`, `--def name=expr`.
type Override struct {
	Name string
	Expr string
}

// Options configure [Load].
type Options struct {
	// Lib is the embedded standard library: a `use "…/lib/NAME.sq"` whose
	// file cannot be read is served from Lib's NAME.sq. May be nil.
	Lib fs.FS
	// ReadFile reads source files; nil means [ReadSource].
	ReadFile func(path string) ([]byte, error)
	// Sets bind `args.number` inputs, in command-line order (the last wins).
	Sets []Override
	// Defs replace the bodies of expression defs (the last wins).
	Defs []Override
	// Bindings, when set, receives every name the program reads with the
	// declaration the lowering bound it to (the language server's
	// definition and hover), once lowering is done, errors or not.
	Bindings func(Binding)
}
