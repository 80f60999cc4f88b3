package lang

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// TestBuiltinsLowered lowers a call of every function of model.Predeclared
// where it may be read (a statement, a claim at end, a debugger
// expression, the debugger-only ones included), and checks that the
// program holds its node; every form has its case in form, and every name
// but the debugger's is in Builtins. A
// new entry of the table that lang does not lower fails here.
func TestBuiltinsLowered(t *testing.T) {
	names := Builtins()
	for i := range model.Predeclared {
		b := &model.Predeclared[i]
		if !b.Debugger() && !slices.Contains(names, b.Name) {
			t.Errorf("Builtins() has no %s %q", b.Kind, b.Name)
		}
		args := make([]string, b.Arity())
		for k := range args {
			args[k] = "1"
		}
		call := b.Name + "(" + strings.Join(args, ", ") + ")"
		var set, claim, query string
		switch b.Kind {
		case model.KFunction:
			set = call
		case model.KDraw:
			set = "~" + call
		case model.KObservable:
			arg := "kv"
			if b.Op == model.EStage {
				arg = "s"
			}
			set = b.Name + "(" + arg + ")"
		case model.KAggregate:
			claim = b.Name + "(r)"
		case model.KQuery:
			query = b.Name + "(kv)"
		case model.KQueryOnly:
			query = map[model.ExprOp]string{model.EPool: "(kv)", model.EStage: "(s)", model.EObsAgg: "(r)"}[b.Op]
			if query == "" {
				t.Errorf("%s %s: no test of its op %v", b.Kind, b.Name, b.Op)
				continue
			}
			query = b.Name + query
		case model.KForm:
			l := newLowerer("form.sq", Options{})
			if _, _, ok := l.form(&syntax.Call{Func: b.Name}, &scope{l: l, mom: momSession}); !ok {
				t.Errorf("the form %q has no case in lowerer.form", b.Name)
			}
			continue
		default:
			continue
		}
		if set == "" {
			set = "1"
		}
		if claim == "" {
			claim = "1"
		}
		src := fmt.Sprintf(`fn main() {
  pool kv { cap 10; }
  stage s : fifo(1);
  workload { arrive poisson(1); }
  server { set a = %s; hold kv (cost(kv, 1)) { run s (cost(s, 1)); } observe r = a; }
  claim c : at end (%s >= 0);
}`, set, claim)
		p, err := LoadSource("builtin.sq", []byte(src), Options{Lib: lib.FS})
		if err != nil {
			t.Errorf("%s %s: %v", b.Kind, b.Name, err)
			continue
		}
		found := false
		find := func(e *model.Expr) bool {
			found = found || e.Op == b.Op && e.Fn == b.Fn
			return true
		}
		if query != "" {
			e, err := CompileQuery(p, query)
			if err != nil {
				t.Errorf("%s %s: %v", b.Kind, b.Name, err)
				continue
			}
			e.Walk(find)
		} else {
			p.Walk(func(st *model.Stmt) {
				st.Exprs(func(e *model.Expr) { e.Walk(find) })
			})
			for _, c := range p.Claims {
				c.Expr.Walk(find)
			}
		}
		if b.Kind == model.KFunction {
			found = true // folded to a number
		}
		if !found {
			t.Errorf("%s %s: lowered, but the program has no %v node of %v", b.Kind, b.Name, b.Op, b.Fn)
		}
	}
}
