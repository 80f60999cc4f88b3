package interp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/serq/serq/model"
)

// Traced events: what the tracer (SetTracer) sees happen, each of a typed
// kind with its numbers, worded by one renderer (TraceEvent.Text) that
// every reader of a trace uses — the event log of serq tui, a session's
// story, the tests.

// EventKind is what a traced event says happened.
type EventKind uint8

// The kinds of traced event. Where, Amount, Units and Detail mean what
// each kind's comment says; a kind that names neither leaves them zero.
const (
	EvNone          EventKind = iota
	EvArrived                 // a session arrived
	EvObserved                // Where: the observe; Amount: the value
	EvRouted                  // a choose: Where the name it binds, Amount the member chosen, Detail the candidates' keys
	EvRejected                // Where: the pool whose cap the request's units pass; Amount: the units asked
	EvQueued                  // Where: the pool; Amount: the holds queued ahead of it
	EvAdmitted                // Where: the pool; Amount: the units allocated
	EvReleased                // Where: the pool; Amount: the units freed
	EvCached                  // Where: the pool; Amount: the units kept as cache
	EvLeased                  // Where: the pool; Amount: the units leased
	EvLeaseEnded              // Where: the pool; Amount: the lease's age; Units: its units
	EvLeaseExpired            // Where: the pool; Amount: the lease's age; Units: its units; Detail "stranded" for a lease no session owned
	EvLeaseLost               // Where: the pool; Amount: the lease's age; Detail: why
	EvLeaseStranded           // Where: the pool; Amount: the lease's age: its request failed, it is left to expire
	EvLateRead                // Where: the pool read after its lease expired; Detail: when it expired, if during the read
	EvReadFailed              // Where: the pool; Detail: why
	EvFailed                  // the request failed; Detail: the cause
	EvPreempted               // Where: the pool that preempted the session
	EvPrefill                 // Where: the engine; Amount: the tokens to prefill
	EvDecode                  // Where: the engine; Amount: the tokens to decode
	EvPrefillDone             // Where: the engine
	EvDecodeDone              // Where: the engine
	EvStageQueued             // Where: the stage; Amount: the job's work
	EvStarted                 // Where: the stage; Amount: the job's work
	EvFinished                // Where: the stage; Amount: the job's work
	EvLatency                 // Where: the NIC whose read latency began; Amount: the latency (s)
	EvLatencyDone             // Where: the NIC; Amount: the latency (s)
	EvTransfer                // Where: the stages the flow crosses, joined by " + "; Amount: its work
	EvIteration               // Where: the engine; Amount: the iteration's length (s); Detail: its batch
	EvDown                    // Where: the member or stage that went down
	EvUp                      // Where: the member or stage that came back
	EvRenewed                 // Where: the member; Amount: the leases it renewed
	EvEnded                   // the session ended
	numEventKinds
)

var eventKindNames = [numEventKinds]string{"", "arrived", "observed", "routed", "rejected", "queued", "admitted",
	"released", "cached", "leased", "lease-ended", "lease-expired", "lease-lost", "lease-stranded", "late-read",
	"read-failed", "failed", "preempted", "prefill", "decode", "prefill-done", "decode-done", "stage-queued",
	"started", "finished", "latency", "latency-done", "transfer", "iteration", "down", "up", "renewed", "ended"}

// String is the kind's name: "admitted", "lease-ended", …
func (k EventKind) String() string {
	if k < numEventKinds {
		return eventKindNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// EventKinds lists every kind, in order.
func EventKinds() []EventKind {
	out := make([]EventKind, 0, numEventKinds-1)
	for k := EvArrived; k < numEventKinds; k++ {
		out = append(out, k)
	}
	return out
}

// TraceEvent is one thing that happened, for an event log.
type TraceEvent struct {
	Event   uint64 // the number of the event it happened in (Sim.Events then); 0 before the first
	Time    float64
	Kind    EventKind
	Session uint64
	Leg     uint64 // the fork leg's number, 0 for the session itself
	Turn    int
	Where   string  // a pool's, stage's or member's label, or a name (the kind says)
	Amount  float64 // the kind's number
	Units   float64 // a lease's units (lease events)
	Detail  string  // more words, e.g. a route's keys or a failure's cause; "" if none
	System  bool    // about no session (an engine iteration): Session, Leg and Turn are 0
}

// String is the event as the log shows it: the time, the session (with
// its leg) and the turn, then Text.
func (e TraceEvent) String() string {
	if e.System {
		return fmt.Sprintf("%.4f s  %s", e.Time, e.Text())
	}
	return fmt.Sprintf("%.4f s  %s  %s", e.Time, e.Who(), e.Text())
}

// Who names the session, leg and turn the event is of; "" for a system
// event.
func (e TraceEvent) Who() string {
	switch {
	case e.System:
		return "system"
	case e.Leg != 0:
		return fmt.Sprintf("session %d leg %d turn %d", e.Session, e.Leg, e.Turn)
	}
	return fmt.Sprintf("session %d turn %d", e.Session, e.Turn)
}

// Text is what happened, in words, with the numbers rounded to what a
// reader needs: "admitted at P.kv[0] (2,864 units)".
func (e TraceEvent) Text() string {
	w, n := e.Where, WordNum(e.Amount)
	switch e.Kind {
	case EvArrived:
		return "arrived"
	case EvObserved:
		return "observed " + w + " = " + n
	case EvRouted:
		s := "routed " + w + " = " + n
		if e.Detail != "" {
			s += " · keys " + e.Detail
		}
		return s
	case EvRejected:
		return "rejected at " + w + ": asks " + units(e.Amount) + ", more than its cap"
	case EvQueued:
		return fmt.Sprintf("queued at %s, behind %s", w, n)
	case EvAdmitted:
		if e.Amount == 0 {
			return "admitted at " + w
		}
		return "admitted at " + w + " (" + units(e.Amount) + ")"
	case EvReleased:
		if e.Amount == 0 {
			return "released " + w
		}
		return "released " + w + " (" + units(e.Amount) + ")"
	case EvCached:
		return "cached " + units(e.Amount) + " at " + w
	case EvLeased:
		return "leased " + units(e.Amount) + " of " + w
	case EvLeaseEnded:
		return "its lease on " + w + " ended after " + WordDur(e.Amount) + " (" + units(e.Units) + ")"
	case EvLeaseExpired:
		s := "its lease on " + w + " expired after " + WordDur(e.Amount) + " (" + units(e.Units) + ")"
		if e.Detail != "" {
			s = "a lease on " + w + " expired after " + WordDur(e.Amount) + " (" + units(e.Units) + ", " + e.Detail + ")"
		}
		return s
	case EvLeaseLost:
		return "its lease on " + w + " was lost after " + WordDur(e.Amount) + " (" + e.Detail + ")"
	case EvLeaseStranded:
		return "its lease on " + w + " is stranded after " + WordDur(e.Amount) + ": left to expire"
	case EvLateRead:
		s := "read " + w + " after its lease expired"
		if e.Detail != "" {
			s += " (" + e.Detail + ")"
		}
		return s
	case EvReadFailed:
		return "its read of " + w + " failed (" + e.Detail + ")"
	case EvFailed:
		return "its request failed: " + e.Detail
	case EvPreempted:
		return "preempted at " + w
	case EvPrefill:
		return "joined " + w + " to prefill " + plural(e.Amount, "token", "tokens")
	case EvDecode:
		return "joined " + w + " to decode " + plural(e.Amount, "token", "tokens")
	case EvPrefillDone:
		return "finished its prefill on " + w
	case EvDecodeDone:
		return "finished its decode on " + w
	case EvStageQueued:
		return "queued at " + w + " (work " + n + ")"
	case EvStarted:
		return "started on " + w + " (work " + n + ")"
	case EvFinished:
		return "finished on " + w + " (work " + n + ")"
	case EvLatency:
		return "posted its read on " + w + ": " + WordDur(e.Amount) + " of latency"
	case EvLatencyDone:
		return "its read's " + WordDur(e.Amount) + " of latency on " + w + " is over"
	case EvTransfer:
		return "started a transfer of " + units(e.Amount) + " on " + w
	case EvIteration:
		return w + " iterates for " + WordDur(e.Amount) + ": " + e.Detail
	case EvDown:
		return w + " went down"
	case EvUp:
		return w + " came back"
	case EvRenewed:
		return w + " renewed " + plural(e.Amount, "lease", "leases")
	case EvEnded:
		return "ended"
	}
	return e.Kind.String()
}

// SameAdmission reports whether b is an admission of the same session (or
// leg) at the same event as a: a hold's pools admitted at once, which a
// reader reads as one line (AdmissionsText).
func SameAdmission(a, b *TraceEvent) bool {
	return a.Kind == EvAdmitted && b.Kind == EvAdmitted && b.Event == a.Event && b.Session == a.Session &&
		b.Leg == a.Leg && b.System == a.System
}

// AdmissionsText is a session's admissions at one event (SameAdmission)
// as one line: "admitted at P.reqs[0] (1) + P.kv[0] (1,024)"; one
// admission is its Text.
func AdmissionsText(es []*TraceEvent) string {
	if len(es) == 1 {
		return es[0].Text()
	}
	parts := make([]string, len(es))
	for i, a := range es {
		parts[i] = a.Where
		if a.Amount != 0 {
			parts[i] += " (" + WordNum(a.Amount) + ")"
		}
	}
	return "admitted at " + strings.Join(parts, " + ")
}

// units writes an amount of a pool's units: "1 unit", "2,864 units".
func units(x float64) string { return plural(x, "unit", "units") }

func plural(x float64, one, many string) string {
	if x == 1 {
		return "1 " + one
	}
	return WordNum(x) + " " + many
}

// WordNum writes a number for a reader: a whole number with thousands
// separators (2,864), any other with four significant digits (0.07343,
// 1,821), NaN as "–".
func WordNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.Abs(x) >= 1e15:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case x != math.Trunc(x):
		if math.Abs(x) >= 1000 {
			return WordNum(math.Round(x))
		}
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	s := strconv.FormatInt(int64(math.Abs(x)), 10)
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// WordDur writes a duration in seconds with the unit that keeps it short:
// 412 µs, 9.4 ms, 2.31 s, 1234 s.
func WordDur(s float64) string {
	a := math.Abs(s)
	switch {
	case math.IsNaN(s):
		return "–"
	case math.IsInf(s, 0):
		return "inf"
	case a == 0:
		return "0 s"
	case a < 1e-3:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case a < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	case a < 100:
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

// SetTracer installs a function called for every traced event (nil to
// remove it). Tracing costs nothing when no tracer is set.
func (s *Sim) SetTracer(f func(TraceEvent)) { s.tracer = f }

// TraceIterations makes the tracer also see each engine iteration as it
// starts (EvIteration). It is off by default: iterations are most of a
// run's events. A checkpoint keeps the setting.
func (s *Sim) TraceIterations(on bool) { s.traceIters = on }

func (s *Sim) trace(ss *session, kind EventKind, where string, amount float64) {
	if s.tracer == nil {
		return
	}
	s.traceEvent(ss, TraceEvent{Kind: kind, Where: where, Amount: amount})
}

func (s *Sim) traceDetail(ss *session, kind EventKind, where string, amount float64, detail string) {
	if s.tracer == nil {
		return
	}
	s.traceEvent(ss, TraceEvent{Kind: kind, Where: where, Amount: amount, Detail: detail})
}

// traceEvent fills in the event's number, time and session and hands it
// to the tracer.
func (s *Sim) traceEvent(ss *session, ev TraceEvent) {
	if s.tracer == nil {
		return
	}
	ev.Event, ev.Time = s.events, s.now
	ev.System = ss == nil
	if ss != nil {
		root := rootOf(ss)
		ev.Session = root.serial
		ev.Turn = int(root.attrs[s.p.Builtin.TurnNo])
		if ss.parent != nil {
			ev.Leg = ss.legID
		}
	}
	s.tracer(ev)
}

// traceLease traces a lease event with its age and units.
func (s *Sim) traceLease(ss *session, kind EventKind, h *holdInst, detail string) {
	if s.tracer == nil {
		return
	}
	hp := h.pools[h.leased]
	s.traceEvent(ss, TraceEvent{Kind: kind, Where: s.pools[hp.pool].m.Label, Amount: s.now - h.leaseStart,
		Units: hp.alloc, Detail: detail})
}

// traceStage traces a job starting or finishing on a stage; on the
// latency stage of a pull or push relation (`D pull P latency x`), the
// read's latency on the poster's NIC.
func (s *Sim) traceStage(ss *session, kind EventKind, stg *stage, work float64) {
	if s.tracer == nil {
		return
	}
	if nic, ok := s.latencyNIC(stg); ok {
		lk := EvLatency
		if kind == EvFinished {
			lk = EvLatencyDone
		}
		s.trace(ss, lk, nic, work)
		return
	}
	s.trace(ss, kind, stg.m.Label, work)
}

// latencyNIC is the NIC whose read latency a stage is, when it is the
// latency stage of a pull or push relation: D.nic[0] for the stage
// D.nic.latency[0].
func (s *Sim) latencyNIC(stg *stage) (string, bool) {
	for _, r := range s.p.Relations {
		if r.Stage == stg.m.Fam {
			nic := strings.TrimSuffix(stg.m.Name, ".latency")
			if stg.m.Index >= 0 {
				nic += "[" + strconv.Itoa(stg.m.Index) + "]"
			}
			return nic, true
		}
	}
	return "", false
}

// stageWords names a stage where a session is, as the panes say it: a
// relation's latency stage as its NIC's read latency ("the read latency of
// D.nic[0]"), any other by its label.
func (s *Sim) stageWords(stg *stage) string {
	if nic, ok := s.latencyNIC(stg); ok {
		return "the read latency of " + nic
	}
	return stg.m.Label
}

// Reach is a statement a session (or one of its legs) begins: what a
// breakpoint on a line of the program (`break file.sq:145`) waits for.
type Reach struct {
	Who SessionRef
	Pos model.Pos
}

// SetReach installs a function called as each statement begins, with the
// session and the statement's position (nil to remove it). Like the
// tracer it is no part of the run's state and changes no result.
func (s *Sim) SetReach(f func(Reach)) { s.reach = f }

func (s *Sim) reached(ss *session, st *model.Stmt) {
	s.reach(Reach{Who: s.ref(ss), Pos: st.Pos})
}
