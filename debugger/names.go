package debugger

import (
	"path/filepath"
	"sort"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// Names are the names a front end completes as its user types: every
// name the debugger's expressions and breakpoints take.
type Names struct {
	Labels  []string // pools, stages and queue members as the panes label them: D.kv[0], P.nic[1], D[0], svc
	Funcs   []string // the observables and the debugger's built-ins: used, queued, …, leases, parked, running, mean
	Values  []string // constants, gauges and observes by name, now
	Classes []string // classes of event (break on)
	Files   []string // the program's files with statements (break FILE:LINE), by base name
}

// observableFuncs are the language's observables a debugger expression
// reads, with the pure functions.
var observableFuncs = []string{"used", "free", "holders", "queued", "queue", "busy", "work", "est_lambda", "est_rho",
	"est_wait", "min", "max", "abs", "floor", "ceil", "sqrt", "exp", "ln", "pow"}

// Names are the names of the program and of the debugger, each list
// sorted.
func (d *Debugger) Names() Names {
	p := d.prog
	n := Names{Labels: d.labels(), Classes: ClassNames()}
	n.Funcs = append(append(n.Funcs, observableFuncs...), lang.QueryFuncs()...)
	for _, c := range p.Consts {
		n.Values = append(n.Values, c.Name)
	}
	for _, g := range p.Gauges {
		n.Values = append(n.Values, g.Name)
	}
	n.Values = append(append(n.Values, p.Observes...), "now")
	files := map[string]bool{}
	p.Walk(func(st *model.Stmt) {
		if st.Pos.File != "" {
			files[filepath.Base(st.Pos.File)] = true
		}
	})
	for f := range files {
		n.Files = append(n.Files, f)
	}
	for _, l := range [][]string{n.Labels, n.Funcs, n.Values, n.Files} {
		sort.Strings(l)
	}
	return n
}
