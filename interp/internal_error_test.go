package interp

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// TestInternalErrorKeepsItsCause breaks an invariant (an event for a stage
// that does not exist) and checks that Step's recover turns the panic into
// a RunError that says so, unwraps to the runtime error and keeps the stack
// of the panic for the bug report.
func TestInternalErrorKeepsItsCause(t *testing.T) {
	src := "fn main() { stage svc : fifo; workload { arrive batch(1); } server { run svc (cost(svc, 1)); } }\n"
	p, err := lang.LoadSource("t.sq", []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p, Options{Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.schedule(0, evPSDone, 9999, 0, nil)
	for s.Step() {
	}
	var re *RunError
	if !errors.As(s.Err(), &re) {
		t.Fatalf("Err() = %v, want a *RunError", s.Err())
	}
	if !strings.HasPrefix(re.Msg, "internal error: runtime error: index out of range [9999]") || !re.Internal() {
		t.Errorf("Msg = %q, Internal() = %v; want an internal index error", re.Msg, re.Internal())
	}
	var rt runtime.Error
	if !errors.As(s.Err(), &rt) {
		t.Errorf("the RunError does not unwrap to the runtime.Error: Err = %v", re.Err)
	}
	if !strings.Contains(string(re.Stack), "interp.(*Sim).handle") {
		t.Errorf("the stack does not name the panicking function:\n%s", re.Stack)
	}
	var plain RunError
	if plain.Internal() || plain.Unwrap() != nil {
		t.Error("a RunError without a cause is internal or unwraps to something")
	}
}
