package interp

import (
	"fmt"
	"math"
	"slices"
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

// WhyLine is one line of a why-chain: what a session waits for, indented
// by Depth as the chain follows a wait to what it waits on.
type WhyLine struct {
	Depth int
	Text  string
}

// Why explains, in the program's own names, what the live session with
// this serial waits for and why, following the chain to its end: a queue
// (its position, the head and what the head asks against the cap and the
// free units, whether it can ever fit), a pool (who holds it, in what
// state, and the next event that may free units), a flow (rate, work left,
// the end at current rates), an engine (resident, running or waiting for
// the next iteration, tokens left), a join (each leg's own chain). A wait
// that comes back to a session already explained is named as a cycle. It
// is nil when no session with that serial is live.
func (s *Sim) Why(serial uint64) []WhyLine {
	root := s.liveSession(serial)
	if root == nil {
		return s.whyLeftBehind(serial)
	}
	saved := s.err
	defer func() { s.err = saved }()
	w := &whyWriter{s: s, on: map[*session]bool{}}
	w.session(root, 0)
	return w.lines
}

// liveSession is the live session with the serial, nil if none.
func (s *Sim) liveSession(serial uint64) *session {
	for _, ss := range s.live {
		if ss.serial == serial {
			return ss
		}
	}
	return nil
}

type whyWriter struct {
	s     *Sim
	lines []WhyLine
	on    map[*session]bool // sessions on the chain being followed
	path  []*session
}

func (w *whyWriter) add(d int, format string, args ...any) {
	w.lines = append(w.lines, WhyLine{Depth: d, Text: fmt.Sprintf(format, args...)})
}

// whyDepth bounds how far a chain is followed.
const whyDepth = 8

func (w *whyWriter) name(t *session) string {
	s := w.s
	root := rootOf(t)
	n := fmt.Sprintf("session %d turn %d", root.serial, int(root.attrs[s.p.Builtin.TurnNo]))
	if t.parent != nil {
		n += fmt.Sprintf(" leg %d", t.legID)
	}
	return n
}

func (w *whyWriter) session(t *session, d int) {
	s := w.s
	if w.on[t] {
		var names []string
		start := slices.Index(w.path, t)
		for _, p := range w.path[start:] {
			names = append(names, w.name(p))
		}
		names = append(names, w.name(t))
		w.add(d, "wait cycle: %s", strings.Join(names, " → "))
		return
	}
	if d > whyDepth {
		w.add(d, "… (the chain goes on)")
		return
	}
	w.on[t] = true
	w.path = append(w.path, t)
	defer func() {
		w.on[t] = false
		w.path = w.path[:len(w.path)-1]
	}()
	w.add(d, "%s%s", w.name(t), w.where(t))
	w.whyFaults(t, d+1)
	switch t.state {
	case sReady:
		w.add(d+1, "ready: it runs in this instant")
		return
	case sDone:
		w.add(d+1, "ended")
		return
	}
	switch {
	case t.waitHold != nil && t.waitHold.waiting:
		w.queue(t, t.waitHold, d+1)
	case t.job.flow >= 0:
		w.whyRead(t, d+1)
		w.flow(t, d+1)
	case t.job.stage >= 0:
		w.stage(t, d+1)
	case t.growHold != nil:
		pl := &s.pools[t.growHold.pools[t.growIdx].pool]
		w.add(d+1, "grows its hold on %s by %s units: free %s of %s", pl.m.Label, fmtNum(t.growBy), fmtNum(pl.cap-pl.used-pl.cached), fmtNum(pl.cap))
		w.holders(pl, t, d+1)
	case t.joining:
		legs := s.legsOf(t)
		w.add(d+1, "waits at a join for %d leg(s)", len(legs))
		for _, l := range legs {
			w.session(l, d+2)
		}
	default:
		w.add(d+1, "blocked")
	}
}

// where is the statement a session is at, as " at FILE:LINE".
func (w *whyWriter) where(t *session) string {
	if p := stmtPos(t); p.Line > 0 {
		return " at " + p.String()
	}
	return ""
}

// stmtPos is the position of the statement a session (or leg) is at: the
// one it blocked in, or the hold whose body it is in.
func stmtPos(t *session) model.Pos {
	for k := len(t.frames) - 1; k >= 0; k-- {
		f := &t.frames[k]
		if f.pc > 0 && f.pc <= len(f.b.Stmts) {
			return f.b.Stmts[f.pc-1].Pos
		}
		if f.st != nil {
			return f.st.Pos
		}
	}
	return model.Pos{}
}

func (w *whyWriter) queue(t *session, h *holdInst, d int) {
	s := w.s
	pl := &s.pools[h.pools[0].pool]
	pos := slices.Index(pl.queue, h)
	w.add(d, "queued at %s, position %d of %d, since t=%s (%s s)", pl.m.Label, pos+1, len(pl.queue), fmtTime(h.enq), fmtTime(s.now-h.enq))
	head := pl.queue[0]
	who := "it"
	if head != h {
		who = w.name(head.owner)
	}
	for i := range head.pools {
		hp := &s.pools[head.pools[i].pool]
		need := hp.roundUp(s.demand(head.owner, head, i))
		free := hp.cap - hp.used
		w.add(d+1, "the head (%s) asks %s units of %s: cap %s, used %s, cached %s, free %s", who, fmtNum(need), hp.m.Label,
			fmtNum(hp.cap), fmtNum(hp.used), fmtNum(hp.cached), fmtNum(free-hp.cached))
		switch {
		case need > hp.cap:
			w.add(d+2, "it asks more than the cap: it can never fit, %s is blocked for good", hp.m.Label)
			return
		case need <= free:
			if hp.admitVia >= 0 {
				w.add(d+2, "it fits (evicting cache if need be): %s admits it at its next iteration", s.stages[hp.admitVia].m.Label)
			} else {
				w.add(d+2, "it fits: it is admitted in this instant")
			}
			continue
		}
		w.add(d+2, "it waits for %s more units to be freed", fmtNum(need-free))
		w.holders(hp, head.owner, d+2)
	}
}

// holders lists who holds pool pl (the allocations of holds in scope and
// leases), each with its state, and the next event that may free units.
func (w *whyWriter) holders(pl *pool, waiter *session, d int) {
	s := w.s
	n := 0
	var blocked []*session
	for _, t := range s.threadsNow() {
		units, lease := 0.0, -1.0
		if h, i := innermost(t, pl.index); h != nil {
			units = h.pools[i].alloc
		}
		for _, l := range t.leases {
			if l.leased >= 0 && l.pools[l.leased].pool == pl.index {
				units += l.pools[l.leased].alloc
				lease = l.leaseStart
			}
		}
		if units == 0 {
			continue
		}
		n++
		if n > 12 {
			continue
		}
		state := w.state(t)
		if lease >= 0 {
			state += fmt.Sprintf(", leased since t=%s", fmtTime(lease))
		}
		w.add(d, "held by %s: %s units, %s", w.name(t), fmtNum(units), state)
		if t.state == sBlocked && t != waiter && (t.waitHold != nil && t.waitHold.waiting || t.growHold != nil || t.joining) {
			blocked = append(blocked, t)
		}
	}
	switch {
	case n == 0:
		w.add(d, "no one holds %s: its %s cached units are evicted as needed", pl.m.Label, fmtNum(pl.cached))
	case n > 12:
		w.add(d, "and %d more holder(s)", n-12)
	}
	if next, what := w.nextFree(pl); what != "" {
		w.add(d, "next: t=%s, %s", fmtTime(next), what)
	}
	for _, t := range blocked {
		w.session(t, d+1)
	}
}

// state says what a holder is doing now.
func (w *whyWriter) state(t *session) string {
	s := w.s
	switch {
	case t.state == sReady:
		return "ready"
	case t.job.stage >= 0 && t.job.mode != model.ModeNone:
		mode := "prefill"
		if t.job.mode == model.ModeDecode {
			mode = "decode"
		}
		return fmt.Sprintf("running %s on %s, %s tokens left", mode, s.stages[t.job.stage].m.Label, fmtNum(t.job.rem))
	case t.job.flow >= 0:
		return "transferring on " + s.waits(t)[len("on "):]
	case t.job.stage >= 0:
		return "on " + s.stages[t.job.stage].m.Label
	case t.waitHold != nil && t.waitHold.waiting:
		return "parked, queued at " + s.pools[t.waitHold.pools[0].pool].m.Label
	case t.growHold != nil:
		return "parked, growing at " + s.pools[t.growHold.pools[t.growIdx].pool].m.Label
	case t.joining:
		return "parked at a join"
	}
	return "parked"
}

// nextFree is the earliest pending event that concerns a holder of pl or
// the engine that pl is the memory of: a job, flow or lease end, or an
// engine iteration. Of two at the same time it is the one taken first
// (evLess), however the calendar's heap is laid out.
func (w *whyWriter) nextFree(pl *pool) (float64, string) {
	s := w.s
	best, what := math.Inf(1), ""
	var first *event // the event best and what are of
	for i := range s.cal {
		ev := &s.cal[i]
		if first != nil && !evLess(ev, first) {
			continue
		}
		w2 := ""
		switch ev.kind {
		case evIterEnd:
			st := &s.stages[ev.id]
			if st.eng != nil && st.eng.epoch == ev.epoch && (int(ev.id) == pl.memoryOf || int(ev.id) == pl.admitVia) {
				w2 = st.m.Label + "'s iteration ends"
			}
		case evJobDone, evFlowDone:
			if ev.s != nil && ev.s.gen == ev.epoch && holdsUnits(ev.s, pl.index) {
				w2 = w.name(ev.s) + "'s " + map[evKind]string{evJobDone: "job", evFlowDone: "transfer"}[ev.kind] + " ends"
			}
		case evLeaseEnd:
			if ev.h != nil && ev.h.leaseGen == ev.epoch && ev.h.leased >= 0 && ev.h.pools[ev.h.leased].pool == pl.index {
				w2 = "a lease on " + pl.m.Label + " expires"
			}
		}
		if w2 != "" {
			first, best, what = ev, ev.t, w2
		}
	}
	return best, what
}

func holdsUnits(t *session, p int) bool {
	if h, _ := innermost(t, p); h != nil {
		return true
	}
	for _, l := range t.leases {
		if l.leased >= 0 && l.pools[l.leased].pool == p {
			return true
		}
	}
	return false
}

func (w *whyWriter) flow(t *session, d int) {
	s := w.s
	fs := &s.flows
	id := t.job.flow
	rate := fs.rates[id]
	left := fs.rem[id] - rate*(s.now-fs.last[id])
	w.add(d, "transfers %s", s.waits(t))
	if rate > 0 {
		w.add(d+1, "rate %s, %s left, ends at t=%s at current rates", fmtNum(rate), fmtNum(left), fmtTime(s.now+left/rate))
	} else {
		w.add(d+1, "rate 0, %s left: it waits for a share", fmtNum(left))
	}
}

func (w *whyWriter) stage(t *session, d int) {
	s := w.s
	st := &s.stages[t.job.stage]
	switch {
	case st.eng != nil:
		e := st.eng
		mode := "prefill"
		if t.job.mode == model.ModeDecode {
			mode = "decode"
		}
		inBatch := slices.Contains(e.assign, t)
		switch {
		case e.busy && inBatch:
			w.add(d, "runs %s on %s in the current iteration (batch of %d), %s tokens left", mode, st.m.Label, len(e.assign), fmtNum(t.job.rem))
		case t.job.stalled:
			w.add(d, "a resident of %s, stalled: its %s waits for memory", st.m.Label, mode)
		default:
			w.add(d, "a resident of %s, %s with %s tokens left, not in the current iteration", st.m.Label, mode, fmtNum(t.job.rem))
		}
		w.add(d+1, "%s has %d resident(s)%s", st.m.Label, len(e.res), map[bool]string{true: ", iterating", false: ", idle"}[e.busy])
		if e.m.Memory >= 0 && t.job.stalled {
			w.holders(&s.pools[e.m.Memory], t, d+1)
		}
	case st.kind == model.FIFO:
		if slices.Contains(st.svc, t) {
			w.add(d, "in service at %s since t=%s", st.m.Label, fmtTime(t.job.start))
		} else {
			pos := slices.Index(st.waiting[st.whead:], t)
			w.add(d, "waits at %s, position %d of %d, all %d server(s) busy", st.m.Label, pos+1, len(st.waiting)-st.whead, st.servers)
		}
	default:
		w.add(d, "in service at %s (%s), %s present", st.m.Label, st.kind, fmtNum(float64(st.present)))
	}
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
	// Stale counts the live leases older than the threshold given.
	Stale int
}

// Jam says whether the run is jammed, counting leases older than stale
// seconds.
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
		for _, l := range t.leases {
			if l.leased >= 0 && s.now-l.leaseStart > stale {
				j.Stale++
			}
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
			mode := "prefill"
			if j.mode == model.ModeDecode {
				mode = "decode"
			}
			out.Run = &RunSnap{Engine: s.stages[j.stage].m.Label, Mode: mode, Tokens: j.work, Left: j.rem}
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
