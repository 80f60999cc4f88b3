package lang

import (
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// The built-ins as the lowering reads them: model.Predeclared by name,
// one map per kind of call. Nothing here names a built-in; a new entry of
// model.Predeclared is lowered, suggested, listed and refused as a def's
// name by its kind alone.
var (
	pureFuncs      = predeclared(model.KFunction)   // min(a, b), …: folded when constant
	dists          = predeclared(model.KDraw)       // ~exp(mean), …
	observables    = predeclared(model.KObservable) // queue(s), used(p), …
	queryPoolFuncs = predeclared(model.KQuery)      // the debugger's own (query.go)
	queryOnlyFuncs = predeclared(model.KQueryOnly)  // known only in a debugger expression (queryCall)
	claimFuncs     = predeclared(model.KAggregate)  // total(o), …: claims at end
	formFuncs      = predeclared(model.KForm)       // cost, budget_left, blocksize, up
)

// form lowers a call of a form of model.Predeclared (KForm): each has
// rules of its own. ok is false for a name that is no form;
// TestBuiltinsLowered checks that every form has its case.
func (l *lowerer) form(c *syntax.Call, sc *scope) (x *model.Expr, t typ, ok bool) {
	switch c.Func {
	case "cost":
		x, t = l.costCall(c, sc)
	case "budget_left":
		x = l.budgetLeft(c, sc)
	case "blocksize":
		x = l.blocksize(c, sc)
	case "up":
		x = l.up(c, sc)
	default:
		return nil, nil, false
	}
	return x, t, true
}

func predeclared(k model.BuiltinKind) map[string]*model.Builtin {
	m := map[string]*model.Builtin{}
	for i := range model.Predeclared {
		if b := &model.Predeclared[i]; b.Kind == k {
			m[b.Name] = b
		}
	}
	return m
}

// callableNames are the built-in functions a program may call, for the
// suggestions of an undefined function.
func callableNames() []string {
	var out []string
	for _, m := range []map[string]*model.Builtin{pureFuncs, observables, formFuncs} {
		out = append(out, sortedKeys(m)...)
	}
	return out
}

// isBuiltinFunc reports a function of the language that is no keyword:
// a def parameter of that name would hide it.
func isBuiltinFunc(name string) bool {
	return name == "blocksize" || name == "budget_left" || pureFuncs[name] != nil
}
