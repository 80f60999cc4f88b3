package interp

import (
	"math"

	"github.com/serq/serq/model"
)

// The debugger's view of a run (serq tui): values of expressions compiled
// by lang.CompileQuery, why a session waits, whether the run is jammed, and
// where a session is in the program. Everything here reads the run and
// never changes it.

// Query is the value of a debugger expression (lang.CompileQuery) now. It
// cannot change the run: a failure while evaluating (which the compiler's
// checks rule out) is dropped, and the value is then NaN.
func (s *Sim) Query(e *model.Expr) (v float64) {
	saved := s.err
	defer func() {
		if r := recover(); r != nil {
			v = math.NaN()
		}
		if s.err != saved {
			s.err = saved
			v = math.NaN()
		}
	}()
	return s.eval(e, nil)
}
