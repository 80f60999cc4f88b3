package lang_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// TestQueryNames: every name the TUI shows is a name a debugger expression
// takes — a queue member's pool as the panes label it (`D.kv[0]`) as well
// as the language writes it, the program's gauges and observes, and the
// counts the panes show as built-ins — and a mistake is answered with the
// spelling it takes, at the column typed.
func TestQueryNames(t *testing.T) {
	p, err := lang.Load("../examples/pd-disaggregation/llmd_nixl_pull.sq", lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Gauges) == 0 || len(p.Observes) == 0 {
		t.Fatalf("the seed has %d gauges and %d observes", len(p.Gauges), len(p.Observes))
	}
	gauge := p.Gauges[0].Name
	same := [][2]string{
		{"used(D.kv[0])", "used(D[0].kv)"},
		{"used(D.kv[1]) > 2 && queued(P.kv[0]) < 1", "used(D[1].kv) > 2 && queued(P[0].kv) < 1"},
		{"max k in ND (used(D.kv[k]))", "max k in ND (used(D[k].kv))"},
		{"busy(P.nic[1])", "busy(P[1].nic)"},
		{"used(D.kv[(1 + 0) * 1])", "used(D[(1 + 0) * 1].kv)"},
	}
	for _, s := range same {
		a, errA := lang.CompileQuery(p, s[0])
		b, errB := lang.CompileQuery(p, s[1])
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if errA != nil || errB != nil || string(ja) != string(jb) {
			t.Errorf("%s: %s (%v), want %s's %s (%v)", s[0], ja, errA, s[1], jb, errB)
		}
	}
	ok := map[string]struct {
		op model.ExprOp
		fn model.Func
	}{
		"parked(D.kv[0])":    {model.EPool, model.PParked},
		"preempted(D[0].kv)": {model.EPool, model.PPreempted},
		"evicted(D.kv[1])":   {model.EPool, model.PEvicted},
		"leased(P.kv[0])":    {model.EPool, model.PLeased},
		"running(D[0])":      {model.EStage, model.SRunning},
		"waiting(P[1])":      {model.EStage, model.SWaiting},
		"ttft":               {model.EObsAgg, model.OMean},
		"mean(response)":     {model.EObsAgg, model.OMean},
		"count(ttft)":        {model.EObsAgg, model.OCount},
		"last(ttft)":         {model.EObsAgg, model.OLast},
	}
	for src, want := range ok {
		x, err := lang.CompileQuery(p, src)
		if err != nil || x.Op != want.op || x.Fn != want.fn {
			t.Errorf("%s: %v %v (%v), want %v %v", src, x.Op, x.Fn, err, want.op, want.fn)
		}
	}
	if x, err := lang.CompileQuery(p, gauge+" > 0.5"); err != nil || x.Args[0] != p.Gauges[0].Expr {
		t.Errorf("gauge %s: %v, want its expression", gauge, err)
	}
	bad := map[string]string{
		"used(D.kv)":       "<command>:1:6: `D` is a family of 2: write `D[i].kv`",
		"used(X.kv[0])":    "<command>:1:10: unexpected \"[\", want `)`\nhint: name a queue member's pool as the panes do, `D.kv[0]`, or as the language does, `D[0].kv`",
		"used(D.kv[9])":    "<command>:1:11: index 9 of `D` is out of range: it has 2 members",
		"used(D.kv[nosu])": "<command>:1:11: undefined: nosu\nhint: did you mean `now`?",
		"tft > 1":          "<command>:1:1: undefined: tft\nhint: did you mean `ttft`?",
		"parkd(D.kv[0])":   "<command>:1:1: undefined function `parkd`\nhint: did you mean `parked`?",
		"count(nosuch)":    "<command>:1:7: `nosuch` is no observe of the program",
		"mean(D.kv[0])":    "<command>:1:1: `mean` takes the name of an observe",
	}
	for src, want := range bad {
		_, err := lang.CompileQuery(p, src)
		got := fmt.Sprint(err)
		if el, ok := err.(lang.ErrorList); ok && len(el) == 1 && el[0].Hint != "" {
			got += "\nhint: " + el[0].Hint
		} else if e, ok := err.(*lang.Error); ok && e.Hint != "" {
			got += "\nhint: " + e.Hint
		}
		if err == nil || got != want {
			t.Errorf("%q: got %s, want %s", src, got, want)
		}
	}
}
