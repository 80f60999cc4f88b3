package interp

import (
	"fmt"
	"sort"

	"github.com/serq/serq/model"
)

// Progress guards: a run that would not end, or would exhaust memory
// before it ends, stops with a [*ProgressError] instead of running on
// silently. The per-instant livelock guards (statements and re-readies at
// one instant) catch zero work; these catch vanishing work and unbounded
// growth.
const (
	// DefaultMaxLive is the bound on sessions and fork legs live at once
	// when [Options.MaxLive] is 0: well under 1 GB of session state.
	DefaultMaxLive = 1_000_000
	// stallWindow is the stretch of events over which the clock's advance
	// is measured.
	stallWindow = 1 << 20
	// stallFraction: a window whose advance is below this fraction of the
	// horizon projects more than stallWindow/stallFraction (about 1e18)
	// events to the end, a run that cannot finish.
	stallFraction = 1e-12
	// maxChoose bounds a `choose` count computed at run time, as lang
	// bounds a constant one.
	maxChoose = 4096
)

// ProgressError is a run stopped by a progress guard: its clock stopped
// advancing in effect, or its live sessions grew past the bound. The
// report up to Time is still meaningful.
type ProgressError struct {
	RunError
	Live bool // the live sessions grew past the bound; else the clock stalled
}

func (e *ProgressError) Error() string { return e.RunError.Error() }

// Unwrap lets errors.As find the *RunError with its position.
func (e *ProgressError) Unwrap() error { return &e.RunError }

// progressGuard is the state of the guards.
type progressGuard struct {
	windowStart float64 // the clock at the start of the current window
	windowEvent uint64  // the event count then
}

// checkProgress runs the guards after an event.
func (s *Sim) checkProgress() {
	maxLive := s.opt.MaxLive
	if maxLive == 0 {
		maxLive = DefaultMaxLive
	}
	if n := len(s.live) + len(s.legsLive); n > maxLive {
		pos, at := s.commonWait()
		msg := fmt.Sprintf("%d sessions and legs live at once, more than the bound %d: work arrives faster than it is served", n, maxLive)
		if at > 0 {
			msg += fmt.Sprintf("; %d of them wait here", at)
		}
		s.err = &ProgressError{RunError: RunError{Pos: pos, Time: s.now, Session: -1, Msg: msg}, Live: true}
		return
	}
	g := &s.progress
	if s.events-g.windowEvent < stallWindow {
		return
	}
	if adv := s.now - g.windowStart; adv < stallFraction*s.opt.Horizon {
		msg := fmt.Sprintf("the clock advanced by %.6g over the last %d events: the horizon %.6g is ", adv, stallWindow, s.opt.Horizon)
		if adv > 0 {
			msg += fmt.Sprintf("about %.3g events away at this pace, a run that cannot finish", float64(stallWindow)*(s.opt.Horizon-s.now)/adv)
		} else {
			msg += "out of reach: time does not advance"
		}
		s.err = &ProgressError{RunError: RunError{Pos: s.curPos(), Time: s.now, Session: -1, Msg: msg}}
		return
	}
	g.windowStart, g.windowEvent = s.now, s.events
}

// commonWait is the statement most blocked sessions and legs wait at, and
// how many wait there (0 if none is blocked at a statement).
func (s *Sim) commonWait() (model.Pos, int) {
	count := map[model.Pos]int{}
	tally := func(ss *session) {
		if ss.state != sBlocked || len(ss.frames) == 0 {
			return
		}
		f := ss.top()
		if f.pc > 0 && f.pc <= len(f.b.Stmts) {
			count[f.b.Stmts[f.pc-1].Pos]++
		}
	}
	for _, ss := range s.live {
		tally(ss)
	}
	for _, ss := range s.legsLive {
		tally(ss)
	}
	var best model.Pos
	n := 0
	keys := make([]model.Pos, 0, len(count))
	for p := range count {
		keys = append(keys, p)
	}
	// The first position of the most common, for a deterministic message.
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	for _, p := range keys {
		if count[p] > n {
			best, n = p, count[p]
		}
	}
	return best, n
}
