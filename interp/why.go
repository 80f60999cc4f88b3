package interp

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/serq/serq/model"
)

// The why-chain (serq tui's Why pane): what a live session waits for and
// why, followed to its end, as typed steps that a front end words. It
// reads the run and never changes it.

// WhyKind is what one step of a why-chain says. Each kind's comment names
// the WhyStep fields it sets.
type WhyKind uint8

const (
	WhyNone    WhyKind = iota
	WhySession         // Who is at Pos (the statement it is at; Pos.Line 0 if none)
	WhyReady           // it runs in this instant
	WhyEnded           // it has ended
	WhyBlocked         // it is blocked, for nothing the chain knows

	// A queue at a pool.
	WhyQueued // queued at Pool, Position of Count, since Since
	WhyHead   // the head (Who; Self when it is the session itself) asks Units of Pool: Cap, Used, Cached, Free; Blocking when Pool is what it waits for
	WhyNoFit  // Pool is blocked for good: the head asks Units, more than its Cap
	WhyShort  // the head waits for Units more of Pool to be freed
	WhyFits   // every pool the head asks fits: Stage admits it at its next iteration ("" : in this instant)
	WhyHeldBy // Who holds Units of Pool, in State (Where, Mode, Left); Leased: the units are a lease since Since
	WhyNobody // nobody holds Pool: its Units cached units are evicted as needed
	WhyMore   // and Count more holders
	WhyNext   // the next event that may free units of Pool: at At, Next (Who's job or transfer, Stage's iteration, a lease)
	WhyGrows  // it grows its hold on Pool by Units: Free of Cap
	WhyJoin   // it waits at a join for Count legs (their chains follow)
	WhyCycle  // a wait cycle: Cycle, back to its first session
	WhyDeeper // the chain goes on past what is shown

	// A flow, an engine, a stage.
	WhyTransfer // it transfers on Stages; Bottleneck the one that limits it, at Util of its capacity
	WhyRate     // at Rate units/s, Left units left, ends at At at current rates; Rate 0: it waits for a share
	WhyInBatch  // it runs Mode on Stage in the current iteration (a batch of Count), Left tokens left
	WhyStalled  // a resident of Stage, stalled: its Mode waits for memory
	WhyResident // a resident of Stage, Mode with Left tokens left, not in the current iteration
	WhyEngine   // Stage has Count residents; Busy: iterating
	WhyService  // in service at Stage since Since
	WhyWaitsAt  // it waits at Stage (fifo), Position of Count, all Servers busy
	WhyPresent  // in service at Stage (Mode: its kind), Count present

	// Leases and failures.
	WhyLease         // it holds a lease on Pool: Units since Since
	WhyRenewed       // renewed by Member every Every s, each time for For s, while its session waits to read it; Last and Next renewals when one was made
	WhyNotRenewed    // not renewed yet: no reader has taken its request
	WhyNeverExpires  // the lease never expires
	WhyExpires       // it expires at At and frees Units
	WhyStranded      // left behind at At by Who, whose request failed (Cause): no session owns it
	WhyReaderDown    // its reader Member, which renewed it, is down since At
	WhyReaderStopped // its reader Member renews it no more
	WhyNothingRenews // nothing renews it
	WhyLastRenewal   // its last renewal was at At
	WhyLeftBehind    // it left a lease on Pool behind: Units (the lease's life follows)
	WhyExpired       // its lease on Pool expired at At, before it was read: the blocks were freed
	WhyFailed        // its last request failed at At: Cause
	WhyRetry         // its call failed; it is made again at At
	WhyLateRead      // it reads Pool after its lease expired at At: the blocks may hold another request's
	WhyGone          // Who has ended; a lease it left behind lives on (the lease follows)
	WhyLeaseOf       // a lease on Pool: Units since Since
)

// HolderState is what a holder of a pool is doing (WhyHeldBy).
type HolderState uint8

const (
	HolderParked   HolderState = iota // holding, doing nothing else
	HolderReady                       // about to run
	HolderRunning                     // running Mode on Where, Left tokens left
	HolderTransfer                    // transferring on Where
	HolderOnStage                     // on the stage Where
	HolderQueued                      // parked, queued at the pool Where
	HolderGrowing                     // parked, growing at the pool Where
	HolderJoin                        // parked at a join
)

// NextKind is the event a WhyNext step names.
type NextKind uint8

const (
	NextNone      NextKind = iota
	NextIteration          // Stage's iteration ends
	NextJob                // Who's job ends
	NextTransfer           // Who's transfer ends
	NextLease              // a lease on Pool expires
)

// SessionRef names a session (and a leg of it) at its turn.
type SessionRef struct {
	Serial uint64
	Turn   int
	Leg    uint64 // 0: the session itself
}

// WhyStep is one step of a why-chain, indented by Depth as the chain
// follows a wait to what it waits on. Kind says which fields it sets.
type WhyStep struct {
	Depth int
	Kind  WhyKind

	Who      SessionRef
	Self     bool // WhyHead: the head is the session explained
	Pos      model.Pos
	Pool     string
	Stage    string
	Stages   []string
	Member   string
	Mode     string // prefill or decode; a stage's kind (WhyPresent)
	Blocking bool

	Units, Cap, Used, Cached, Free float64
	Rate, Left, Util               float64
	Every, For                     float64
	Position, Count, Servers       int
	Since, At, Last, NextRenew     float64
	Bottleneck                     string
	Busy                           bool
	Leased                         bool

	State HolderState
	Where string // WhyHeldBy: the stage or pool of State
	Next  NextKind
	Cause string
	Cycle []SessionRef
}

// Why explains what the live session with this serial waits for and why,
// following the chain to its end: a queue (its position, the head and what
// the head asks against the cap and the free units, the pool that blocks
// it and whether it can ever fit), a pool (who holds it, in what state,
// the largest first, and the next event that may free units), a flow
// (rate, work left, the end at current rates, the link that limits it),
// an engine (resident, running or waiting for the next iteration, tokens
// left), a join (each leg's own chain). A wait that comes back to a
// session already explained is a cycle. For a session that has ended it
// is the leases it left behind; nil when there are none.
func (s *Sim) Why(serial uint64) []WhyStep {
	root := s.liveSession(serial)
	if root == nil {
		return s.whyLeftBehind(serial)
	}
	saved := s.err
	defer func() { s.err = saved }()
	w := &whyWriter{s: s, on: map[*session]bool{}}
	w.session(root, 0)
	return w.steps
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
	steps []WhyStep
	on    map[*session]bool // sessions on the chain being followed
	path  []*session
}

func (w *whyWriter) add(st WhyStep) { w.steps = append(w.steps, st) }

// whyDepth bounds how far a chain is followed.
const whyDepth = 8

// ref names a session or leg.
func (s *Sim) ref(t *session) SessionRef {
	root := rootOf(t)
	r := SessionRef{Serial: root.serial, Turn: int(root.attrs[s.p.Builtin.TurnNo])}
	if t.parent != nil {
		r.Leg = t.legID
	}
	return r
}

func (w *whyWriter) session(t *session, d int) {
	s := w.s
	if w.on[t] {
		start := slices.Index(w.path, t)
		var cyc []SessionRef
		for _, p := range w.path[start:] {
			cyc = append(cyc, s.ref(p))
		}
		w.add(WhyStep{Depth: d, Kind: WhyCycle, Cycle: append(cyc, s.ref(t))})
		return
	}
	if d > whyDepth {
		w.add(WhyStep{Depth: d, Kind: WhyDeeper})
		return
	}
	w.on[t] = true
	w.path = append(w.path, t)
	defer func() {
		w.on[t] = false
		w.path = w.path[:len(w.path)-1]
	}()
	w.add(WhyStep{Depth: d, Kind: WhySession, Who: s.ref(t), Pos: stmtPos(t)})
	w.whyFaults(t, d+1)
	switch t.state {
	case sReady:
		w.add(WhyStep{Depth: d + 1, Kind: WhyReady})
		return
	case sDone:
		w.add(WhyStep{Depth: d + 1, Kind: WhyEnded})
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
		w.add(WhyStep{Depth: d + 1, Kind: WhyGrows, Pool: pl.m.Label, Units: t.growBy, Free: pl.cap - pl.used - pl.cached, Cap: pl.cap})
		w.holders(pl, t, d+1)
	case t.joining:
		legs := s.legsOf(t)
		w.add(WhyStep{Depth: d + 1, Kind: WhyJoin, Count: len(legs)})
		for _, l := range legs {
			w.session(l, d+2)
		}
	default:
		w.add(WhyStep{Depth: d + 1, Kind: WhyBlocked})
	}
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

// queue explains a hold queued at its first pool: its place, then what
// the head asks of each of its pools, the pool it waits for first.
func (w *whyWriter) queue(t *session, h *holdInst, d int) {
	s := w.s
	pl := &s.pools[h.pools[0].pool]
	pos := slices.Index(pl.queue, h)
	w.add(WhyStep{Depth: d, Kind: WhyQueued, Pool: pl.m.Label, Position: pos + 1, Count: len(pl.queue), Since: h.enq})
	head := pl.queue[0]
	type ask struct {
		pl         *pool
		need, free float64
	}
	var blocking, fitting []ask
	for i := range head.pools {
		hp := &s.pools[head.pools[i].pool]
		a := ask{pl: hp, need: hp.roundUp(s.demand(head.owner, head, i)), free: hp.cap - hp.used}
		if a.need > hp.cap || a.need > a.free {
			blocking = append(blocking, a)
		} else {
			fitting = append(fitting, a)
		}
	}
	headStep := func(a ask, blocks bool) WhyStep {
		return WhyStep{Depth: d + 1, Kind: WhyHead, Who: s.ref(head.owner), Self: head == h, Pool: a.pl.m.Label,
			Units: a.need, Cap: a.pl.cap, Used: a.pl.used, Cached: a.pl.cached, Free: a.free - a.pl.cached, Blocking: blocks}
	}
	for _, a := range blocking {
		w.add(headStep(a, true))
		if a.need > a.pl.cap {
			w.add(WhyStep{Depth: d + 2, Kind: WhyNoFit, Pool: a.pl.m.Label, Units: a.need, Cap: a.pl.cap})
			return
		}
		w.add(WhyStep{Depth: d + 2, Kind: WhyShort, Pool: a.pl.m.Label, Units: a.need - a.free})
		w.holders(a.pl, head.owner, d+2)
	}
	for _, a := range fitting {
		w.add(headStep(a, false))
	}
	if len(blocking) == 0 {
		fit := WhyStep{Depth: d + 2, Kind: WhyFits}
		for _, a := range fitting {
			if a.pl.admitVia >= 0 {
				fit.Stage = s.stages[a.pl.admitVia].m.Label
			}
		}
		w.add(fit)
	}
}

// holders lists who holds pool pl (the allocations of holds in scope and
// leases), the most units first, each with its state, then the next event
// that may free units, then the chains of the holders that wait
// themselves.
func (w *whyWriter) holders(pl *pool, waiter *session, d int) {
	s := w.s
	type holder struct {
		t      *session
		units  float64
		leased bool
		since  float64
	}
	var hs []holder
	for _, t := range s.threadsNow() {
		hd := holder{t: t}
		if h, i := innermost(t, pl.index); h != nil {
			hd.units = h.pools[i].alloc
		}
		for _, l := range t.leases {
			if l.leased >= 0 && l.pools[l.leased].pool == pl.index {
				hd.units += l.pools[l.leased].alloc
				hd.leased, hd.since = true, l.leaseStart
			}
		}
		if hd.units > 0 {
			hs = append(hs, hd)
		}
	}
	sort.SliceStable(hs, func(a, b int) bool { return hs[a].units > hs[b].units })
	const shown = 12
	var blocked []*session
	for k, hd := range hs {
		if k == shown {
			w.add(WhyStep{Depth: d, Kind: WhyMore, Count: len(hs) - shown})
			break
		}
		st := WhyStep{Depth: d, Kind: WhyHeldBy, Who: s.ref(hd.t), Pool: pl.m.Label, Units: hd.units, Leased: hd.leased, Since: hd.since}
		w.state(hd.t, &st)
		w.add(st)
		t := hd.t
		if t.state == sBlocked && t != waiter && (t.waitHold != nil && t.waitHold.waiting || t.growHold != nil || t.joining) {
			blocked = append(blocked, t)
		}
	}
	if len(hs) == 0 {
		w.add(WhyStep{Depth: d, Kind: WhyNobody, Pool: pl.m.Label, Units: pl.cached})
	}
	if st, ok := w.nextFree(pl); ok {
		st.Depth = d
		w.add(st)
	}
	for _, t := range blocked {
		w.session(t, d+1)
	}
}

// state says what a holder is doing now.
func (w *whyWriter) state(t *session, st *WhyStep) {
	s := w.s
	switch {
	case t.state == sReady:
		st.State = HolderReady
	case t.job.stage >= 0 && t.job.mode != model.ModeNone:
		st.State, st.Where, st.Mode, st.Left = HolderRunning, s.stages[t.job.stage].m.Label, modeName(t.job.mode), t.job.rem
	case t.job.flow >= 0:
		st.State, st.Where = HolderTransfer, joinLabels(s.flowLabels(t.job.flow))
	case t.job.stage >= 0:
		st.State, st.Where = HolderOnStage, s.stageWords(&s.stages[t.job.stage])
	case t.waitHold != nil && t.waitHold.waiting:
		st.State, st.Where = HolderQueued, s.pools[t.waitHold.pools[0].pool].m.Label
	case t.growHold != nil:
		st.State, st.Where = HolderGrowing, s.pools[t.growHold.pools[t.growIdx].pool].m.Label
	case t.joining:
		st.State = HolderJoin
	default:
		st.State = HolderParked
	}
}

func modeName(m model.RunMode) string {
	if m == model.ModeDecode {
		return "decode"
	}
	return "prefill"
}

// flowLabels are the labels of the stages a flow crosses.
func (s *Sim) flowLabels(id int32) []string {
	var names []string
	for _, k := range s.flows.flowStages[id] {
		names = append(names, s.stages[k].m.Label)
	}
	return names
}

// nextFree is the earliest pending event that concerns a holder of pl or
// the engine that pl is the memory of: a job, flow or lease end, or an
// engine iteration. Of two at the same time it is the one taken first
// (evLess), however the calendar's heap is laid out.
func (w *whyWriter) nextFree(pl *pool) (WhyStep, bool) {
	s := w.s
	var best WhyStep
	var first *event
	for i := range s.cal {
		ev := &s.cal[i]
		if first != nil && !evLess(ev, first) {
			continue
		}
		st := WhyStep{Kind: WhyNext, Pool: pl.m.Label, At: ev.t}
		switch ev.kind {
		case evIterEnd:
			stg := &s.stages[ev.id]
			if stg.eng != nil && stg.eng.epoch == ev.epoch && (int(ev.id) == pl.memoryOf || int(ev.id) == pl.admitVia) {
				st.Next, st.Stage = NextIteration, stg.m.Label
			}
		case evJobDone, evFlowDone:
			if ev.s != nil && ev.s.gen == ev.epoch && holdsUnits(ev.s, pl.index) {
				st.Next, st.Who = NextJob, s.ref(ev.s)
				if ev.kind == evFlowDone {
					st.Next = NextTransfer
				}
			}
		case evLeaseEnd:
			if ev.h != nil && ev.h.leaseGen == ev.epoch && ev.h.leased >= 0 && ev.h.pools[ev.h.leased].pool == pl.index {
				st.Next = NextLease
			}
		}
		if st.Next != NextNone {
			first, best = ev, st
		}
	}
	return best, first != nil
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

// flow explains a transfer: the stages it crosses and the one that limits
// its rate (the most used of them), its rate, work left and end.
func (w *whyWriter) flow(t *session, d int) {
	s := w.s
	fs := &s.flows
	id := t.job.flow
	rate := fs.rates[id]
	left := fs.rem[id] - rate*(s.now-fs.last[id])
	st := WhyStep{Depth: d, Kind: WhyTransfer, Stages: s.flowLabels(id), Util: -1}
	for _, k := range fs.flowStages[id] {
		if phi := fs.phi[k]; phi > 0 {
			if u := fs.rateSum[k] / phi; u > st.Util {
				st.Util, st.Bottleneck = u, s.stages[k].m.Label
			}
		}
	}
	w.add(st)
	r := WhyStep{Depth: d + 1, Kind: WhyRate, Rate: rate, Left: left, At: math.Inf(1)}
	if rate > 0 {
		r.At = s.now + left/rate
	}
	w.add(r)
}

func (w *whyWriter) stage(t *session, d int) {
	s := w.s
	st := &s.stages[t.job.stage]
	switch {
	case st.eng != nil:
		e := st.eng
		mode := modeName(t.job.mode)
		switch {
		case e.busy && slices.Contains(e.assign, t):
			w.add(WhyStep{Depth: d, Kind: WhyInBatch, Mode: mode, Stage: st.m.Label, Count: len(e.assign), Left: t.job.rem})
		case t.job.stalled:
			w.add(WhyStep{Depth: d, Kind: WhyStalled, Mode: mode, Stage: st.m.Label})
		default:
			w.add(WhyStep{Depth: d, Kind: WhyResident, Mode: mode, Stage: st.m.Label, Left: t.job.rem})
		}
		w.add(WhyStep{Depth: d + 1, Kind: WhyEngine, Stage: st.m.Label, Count: len(e.res), Busy: e.busy})
		if e.m.Memory >= 0 && t.job.stalled {
			w.holders(&s.pools[e.m.Memory], t, d+1)
		}
	case st.kind == model.FIFO:
		if slices.Contains(st.svc, t) {
			w.add(WhyStep{Depth: d, Kind: WhyService, Stage: s.stageWords(st), Since: t.job.start})
		} else {
			pos := slices.Index(st.waiting[st.whead:], t)
			w.add(WhyStep{Depth: d, Kind: WhyWaitsAt, Stage: s.stageWords(st), Position: pos + 1, Count: len(st.waiting) - st.whead, Servers: st.servers})
		}
	default:
		w.add(WhyStep{Depth: d, Kind: WhyPresent, Stage: s.stageWords(st), Mode: st.kind.String(), Count: st.present})
	}
}

// leaseLife says how long a lease lives and who keeps it: its end, who
// renews it and how often, or why nobody does.
func (s *Sim) leaseLife(l *holdInst, d int) []WhyStep {
	var out []WhyStep
	add := func(st WhyStep) {
		st.Depth = d
		out = append(out, st)
	}
	timed := s.leaseTimed(l)
	switch {
	case l.stranded:
		add(WhyStep{Kind: WhyStranded, At: l.strandAt, Who: SessionRef{Serial: l.strandSerial, Turn: l.strandTurn}, Cause: l.strandCause})
		if m := l.strandReader; m >= 0 {
			mm := &s.members[m]
			if mm.down > 0 {
				add(WhyStep{Kind: WhyReaderDown, Member: mm.label, At: mm.downSince})
			} else {
				add(WhyStep{Kind: WhyReaderStopped, Member: mm.label})
			}
		} else if l.st.Renew != nil {
			add(WhyStep{Kind: WhyNothingRenews})
		}
	case l.reader >= 0:
		mm := &s.members[l.reader]
		st := WhyStep{Kind: WhyRenewed, Member: mm.label, Every: float64(l.st.Renew.Every), For: float64(l.st.Renew.For)}
		if l.lastRenew > 0 {
			st.Last, st.NextRenew = l.lastRenew, mm.lastTick+mm.every
		}
		add(st)
	case l.st.Renew != nil:
		add(WhyStep{Kind: WhyNotRenewed})
	}
	if !timed {
		add(WhyStep{Kind: WhyNeverExpires})
		return out
	}
	if l.lastRenew > 0 && l.stranded {
		add(WhyStep{Kind: WhyLastRenewal, At: l.lastRenew})
	}
	add(WhyStep{Kind: WhyExpires, At: l.leaseEnd, Units: l.pools[l.leased].alloc})
	return out
}

// whyFaults adds to a why-chain what a session's failures and leases say:
// each lease's lifetime, the leases its failed requests left behind, the
// leases that expired in its turn, its last failure, a retry's backoff.
func (w *whyWriter) whyFaults(t *session, d int) {
	s := w.s
	for _, l := range t.leases {
		if l.leased < 0 {
			continue
		}
		hp := l.pools[l.leased]
		w.add(WhyStep{Depth: d, Kind: WhyLease, Pool: s.pools[hp.pool].m.Label, Units: hp.alloc, Since: l.leaseStart})
		if s.canFail {
			w.steps = append(w.steps, s.leaseLife(l, d+1)...)
		}
	}
	if !s.canFail || t.parent != nil {
		return
	}
	for _, l := range s.stranded {
		if l.strandSerial == t.serial {
			w.add(WhyStep{Depth: d, Kind: WhyLeftBehind, Pool: s.pools[l.pools[l.leased].pool].m.Label, Units: l.pools[l.leased].alloc})
			w.steps = append(w.steps, s.leaseLife(l, d+1)...)
		}
	}
	for _, e := range t.expired {
		w.add(WhyStep{Depth: d, Kind: WhyExpired, Pool: s.pools[e.pool].m.Label, At: e.t})
	}
	if t.attrs[s.p.Builtin.Failed] == 1 && !t.inTurn && t.cause > 0 {
		w.add(WhyStep{Depth: d, Kind: WhyFailed, At: t.failAt, Cause: s.causes[t.cause-1].Cause})
	}
	if t.backoff > 0 {
		w.add(WhyStep{Depth: d, Kind: WhyRetry, At: t.backoff})
	}
}

// whyRead says what a session's read is reading when its lease expired
// (the read goes ahead on freed blocks).
func (w *whyWriter) whyRead(t *session, d int) {
	s := w.s
	if !s.canFail || !s.readingNow(t) {
		return
	}
	rf := t.readingFrame()
	if rf == nil {
		return
	}
	p, ok := s.member(&rf.st.Reading.Source, t, false)
	if !ok {
		return
	}
	if at := rootOf(t).expiredAt(p); at >= 0 {
		w.add(WhyStep{Depth: d, Kind: WhyLateRead, Pool: s.pools[p].m.Label, At: at})
	}
}

// whyLeftBehind explains the leases a session that is no longer live left
// behind (stranded): nil if it left none.
func (s *Sim) whyLeftBehind(serial uint64) []WhyStep {
	var out []WhyStep
	for _, l := range s.stranded {
		if l.strandSerial != serial {
			continue
		}
		if out == nil {
			out = append(out, WhyStep{Kind: WhyGone, Who: SessionRef{Serial: serial, Turn: l.strandTurn}})
		}
		out = append(out, WhyStep{Depth: 1, Kind: WhyLeaseOf, Pool: s.pools[l.pools[l.leased].pool].m.Label,
			Units: l.pools[l.leased].alloc, Since: l.leaseStart})
		out = append(out, s.leaseLife(l, 2)...)
	}
	return out
}

var whyKindNames = [...]string{"", "session", "ready", "ended", "blocked", "queued", "head", "no-fit", "short", "fits",
	"held-by", "nobody", "more", "next", "grows", "join", "cycle", "deeper", "transfer", "rate", "in-batch", "stalled",
	"resident", "engine", "service", "waits-at", "present", "lease", "renewed", "not-renewed", "never-expires",
	"expires", "stranded", "reader-down", "reader-stopped", "nothing-renews", "last-renewal", "left-behind",
	"expired", "failed", "retry", "late-read", "gone", "lease-of"}

// String names the kind: "queued", "held-by", …
func (k WhyKind) String() string {
	if int(k) < len(whyKindNames) {
		return whyKindNames[k]
	}
	return "why-kind " + strconv.Itoa(int(k))
}

var holderStateNames = [...]string{"parked", "ready", "running", "transfer", "on-stage", "queued", "growing", "join"}

// String names the state: "running", "queued", …
func (h HolderState) String() string {
	if int(h) < len(holderStateNames) {
		return holderStateNames[h]
	}
	return "holder-state " + strconv.Itoa(int(h))
}

var nextKindNames = [...]string{"", "iteration", "job", "transfer", "lease"}

// String names the kind of event: "iteration", "job", …
func (k NextKind) String() string {
	if int(k) < len(nextKindNames) {
		return nextKindNames[k]
	}
	return "next-kind " + strconv.Itoa(int(k))
}
