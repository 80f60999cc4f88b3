package tui

import (
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// The debugger's calls into lang and interp, in one place.

// compileQuery checks a break or watch expression against the program.
func compileQuery(p *model.Program, src string) (*model.Expr, error) {
	return lang.CompileQuery(p, src)
}

// query is an expression's value in the run now.
func query(s *interp.Sim, e *model.Expr) float64 { return s.Query(e) }

// whyLine is one line of the why pane: its depth in the chain and its text.
type whyLine struct {
	depth int
	text  string
}

// why is the chain of what a live session waits for; nil when it is not live.
func why(s *interp.Sim, serial uint64) []whyLine {
	var out []whyLine
	for _, st := range s.Why(serial) {
		out = append(out, whyLine{depth: st.Depth, text: whyWords(st, s.Now())})
	}
	return out
}

// jam says which pools' queue heads can never fit, whether the run is
// stalled, and how many leases are older than the stale threshold.
type jam struct {
	blocked []string
	stalled bool
	stale   int
}

func jamOf(s *interp.Sim, stale float64) jam {
	j := s.Jam(stale)
	return jam{blocked: j.Blocked, stalled: j.Stalled, stale: j.Stale}
}

// where is a session's place in the program now: its own statement and
// its legs'.
type where struct {
	turn  int
	waits string
	pos   model.Pos
	legs  []legWhere
	run   *interp.RunSnap // its engine run: tokens done and left
}

type legWhere struct {
	leg   uint64
	waits string
	pos   model.Pos
}

// sessionAt is where the live session serial is, nil when it is not live.
func sessionAt(s *interp.Sim, serial uint64) *where {
	ss := s.Session(serial)
	if ss == nil {
		return nil
	}
	w := &where{turn: ss.Turn, waits: ss.Waits, pos: ss.Pos, run: ss.Run}
	for _, l := range ss.Legs {
		w.legs = append(w.legs, legWhere{leg: l.Leg, waits: l.Waits, pos: l.Pos})
	}
	return w
}

// noSession stands for no session where a serial is asked for: serials
// start at 0.
const noSession = ^uint64(0)
