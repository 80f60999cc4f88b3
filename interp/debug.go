package interp

import (
	"fmt"
	"math"
	"strings"

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

// threadsNow is a fresh list of the live sessions and legs (allThreads
// shares a scratch slice of the run's, which a reader must not touch).
func (s *Sim) threadsNow() []*session {
	return append(append(make([]*session, 0, len(s.live)+len(s.legsLive)), s.live...), s.legsLive...)
}

// Jam is whether a run is jammed now.
type Jam struct {
	// Blocked lists the pools whose queue head asks more than the cap: it
	// can never be admitted, and neither can anything behind it.
	Blocked []string
	// Stalled: sessions are live, none is ready and nothing is in service
	// anywhere (no job, flow, engine iteration or lease timer pending), so
	// only a new arrival can change anything.
	Stalled bool
	// Stale counts the leases older than the threshold given that wait:
	// not one whose read is under way (it moves), but one left behind by
	// its session.
	Stale int
}

// Jam says whether the run is jammed, counting the leases that wait
// longer than stale seconds.
func (s *Sim) Jam(stale float64) Jam {
	saved := s.err
	defer func() { s.err = saved }()
	var j Jam
	for i := range s.pools {
		s.headOverCap(&s.pools[i], func(*pool, float64) bool {
			j.Blocked = append(j.Blocked, s.pools[i].m.Label)
			return false
		})
	}
	for _, t := range s.threadsNow() {
		moving := s.moving(rootOf(t))
		for _, l := range t.leases {
			if l.leased >= 0 && s.now-l.leaseStart > stale && !moving {
				j.Stale++
			}
		}
	}
	for _, l := range s.stranded {
		if s.now-l.leaseStart > stale {
			j.Stale++
		}
	}
	j.Stalled = len(s.live) > 0 && !s.progressPending()
	return j
}

// progressPending reports whether anything but an arrival can still
// change the run: a ready session or a pending job, flow, iteration or
// lease end that is not stale.
func (s *Sim) progressPending() bool {
	if s.readyHead < len(s.ready) {
		return true
	}
	for i := range s.cal {
		ev := &s.cal[i]
		switch ev.kind {
		case evJobDone, evFlowDone:
			if ev.s != nil && ev.s.gen == ev.epoch {
				return true
			}
		case evPSDone:
			if s.stages[ev.id].epoch == ev.epoch {
				return true
			}
		case evIterEnd:
			if e := s.stages[ev.id].eng; e != nil && e.epoch == ev.epoch {
				return true
			}
		case evLeaseEnd:
			if ev.h != nil && ev.h.leaseGen == ev.epoch {
				return true
			}
		case evFaultDown, evFaultUp, evTimeout, evWake:
			return true
		}
	}
	return false
}

// SessionSnap is where a live session is in the program now.
type SessionSnap struct {
	Serial uint64
	Turn   int
	Waits  string    // what it waits for, as the Leases pane says it
	Pos    model.Pos // the statement it is at
	Legs   []LegSnap // its live fork legs
	Run    *RunSnap  // its engine run, nil when it has none
}

// RunSnap is a session's run on an engine: prefill or decode, the tokens
// asked and the tokens left.
type RunSnap struct {
	Engine string
	Mode   string // prefill or decode
	Tokens float64
	Left   float64
}

// LegSnap is where a fork leg is.
type LegSnap struct {
	Leg   uint64
	Waits string
	Pos   model.Pos
}

// Session is where the live session with this serial is, nil if none.
func (s *Sim) Session(serial uint64) *SessionSnap {
	ss := s.liveSession(serial)
	if ss == nil {
		return nil
	}
	out := &SessionSnap{Serial: ss.serial, Turn: int(ss.attrs[s.p.Builtin.TurnNo]), Waits: s.waits(ss), Pos: stmtPos(ss)}
	for _, t := range append([]*session{ss}, s.legsOf(ss)...) {
		if j := &t.job; j.stage >= 0 && j.mode != model.ModeNone && out.Run == nil {
			out.Run = &RunSnap{Engine: s.stages[j.stage].m.Label, Mode: modeName(j.mode), Tokens: j.work, Left: j.rem}
		}
	}
	for _, l := range s.legsOf(ss) {
		out.Legs = append(out.Legs, LegSnap{Leg: l.legID, Waits: s.waitsOne(l), Pos: stmtPos(l)})
	}
	return out
}

// choiceNotes keeps the keys of the first candidates of the `choose` being
// evaluated, for the trace (only while a tracer listens).
const choiceShown = 8

func (s *Sim) noteChoice(j float64, keys []float64) {
	if j == 0 {
		s.choiceKeys = s.choiceKeys[:0]
	}
	if j < choiceShown {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: ", fmtNum(j))
		if len(keys) > 1 {
			b.WriteString("(")
		}
		for k, v := range keys {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(WordNum(v))
		}
		if len(keys) > 1 {
			b.WriteString(")")
		}
		s.choiceKeys = append(s.choiceKeys, b.String())
	}
}

// choiceText joins the candidates' keys noted, each after the name bound:
// "j=0: 3 · j=1: 2".
func (s *Sim) choiceText(name string) string {
	return name + "=" + strings.Join(s.choiceKeys, " · "+name+"=")
}

// traceChoice traces a `choose`: the name it binds and the member chosen,
// with every candidate's keys (the first few).
func (s *Sim) traceChoice(ss *session, st *model.Stmt, best, n float64) {
	name := s.p.Attrs[st.Slot].Name
	detail := s.choiceText(name)
	if n > choiceShown {
		detail += fmt.Sprintf(" · … %s more", fmtNum(n-choiceShown))
	}
	if pic := seenPicture(st.Keys); pic >= 0 && s.pics != nil {
		// a router on a picture (picture.go): the true keys beside the seen
		s.choiceKeys = s.choiceKeys[:0]
		s.pics.exact = true
		keys := make([]float64, len(st.Keys))
		for j := 0.0; j < n && j < choiceShown; j++ {
			ss.attrs[st.Slot] = j
			for k, key := range st.Keys {
				keys[k] = s.eval(key, ss)
			}
			s.noteChoice(j, keys)
		}
		s.pics.exact = false
		ss.attrs[st.Slot] = best
		detail = fmt.Sprintf("seen as at t=%s: %s; true: %s", fmtTime(s.seenAt(&s.p.Pictures[pic])), detail, s.choiceText(name))
	}
	s.traceDetail(ss, EvRouted, name, best, detail)
	s.choiceKeys = s.choiceKeys[:0]
}

// seenPicture is the picture a choose's keys read, -1 if none.
func seenPicture(keys []*model.Expr) int {
	pic := -1
	for _, k := range keys {
		k.Walk(func(x *model.Expr) bool {
			if x.Op == model.ESeen && pic < 0 {
				pic = x.Slot
			}
			return pic < 0
		})
	}
	return pic
}
