package tui

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/interp"
)

// The why-chain in words: interp gives its steps typed (interp.WhyStep),
// the front end words them, with the numbers rounded and their units, the
// blocking pool and the bottleneck link named.

// whyWords is one step of a why-chain in words, at time now.
func whyWords(st interp.WhyStep, now float64) string {
	who := refWords(st.Who)
	switch st.Kind {
	case interp.WhySession:
		if st.Pos.Line > 0 {
			return fmt.Sprintf("%s at %s:%d", who, filepath.Base(st.Pos.File), st.Pos.Line)
		}
		return who
	case interp.WhyReady:
		return "ready: it runs in this instant"
	case interp.WhyEnded:
		return "ended"
	case interp.WhyBlocked:
		return "blocked"
	case interp.WhyQueued:
		return fmt.Sprintf("queued at %s, position %d of %d, for %s (since %s)", st.Pool, st.Position, st.Count,
			fmtDur(now-st.Since), tWords(st.Since))
	case interp.WhyHead:
		head := "the head (" + who + ")"
		if st.Self {
			head = "it is the head: it"
		}
		s := fmt.Sprintf("%s asks %s of %s: free %s of %s", head, unitsWords(st.Units), st.Pool, fmtCount(st.Free), fmtCount(st.Cap))
		if st.Used > 0 || st.Cached > 0 {
			s += fmt.Sprintf(" (used %s, cached %s)", fmtCount(st.Used), fmtCount(st.Cached))
		}
		if !st.Blocking {
			s += ": it fits"
		}
		return s
	case interp.WhyNoFit:
		return fmt.Sprintf("%s is more than %s's cap of %s: it can never fit, and %s is blocked for good",
			unitsWords(st.Units), st.Pool, fmtCount(st.Cap), st.Pool)
	case interp.WhyShort:
		return fmt.Sprintf("it waits for %s more of %s to be freed", unitsWords(st.Units), st.Pool)
	case interp.WhyFits:
		if st.Stage != "" {
			return "every pool it asks fits: " + st.Stage + " admits it at its next iteration"
		}
		return "every pool it asks fits: it is admitted in this instant"
	case interp.WhyHeldBy:
		s := fmt.Sprintf("held by %s: %s, %s", who, unitsWords(st.Units), holderWords(st))
		if st.Leased {
			s += ", a lease for " + fmtDur(now-st.Since)
		}
		return s
	case interp.WhyNobody:
		return fmt.Sprintf("nobody holds %s: its %s cached units are evicted as needed", st.Pool, fmtCount(st.Units))
	case interp.WhyMore:
		return "and " + plural(st.Count, "more holder", "more holders")
	case interp.WhyNext:
		var what string
		switch st.Next {
		case interp.NextIteration:
			what = st.Stage + "'s iteration ends"
		case interp.NextJob:
			what = who + "'s job ends"
		case interp.NextTransfer:
			what = who + "'s transfer ends"
		case interp.NextLease:
			what = "a lease on " + st.Pool + " expires"
		}
		return fmt.Sprintf("next: in %s (%s), %s", fmtDur(st.At-now), tWords(st.At), what)
	case interp.WhyGrows:
		return fmt.Sprintf("grows its hold on %s by %s: free %s of %s", st.Pool, unitsWords(st.Units), fmtCount(st.Free), fmtCount(st.Cap))
	case interp.WhyJoin:
		return "waits at a join for " + plural(st.Count, "leg", "legs")
	case interp.WhyCycle:
		var names []string
		for _, r := range st.Cycle {
			names = append(names, refWords(r))
		}
		return "wait cycle: " + strings.Join(names, " → ")
	case interp.WhyDeeper:
		return "… (the chain goes on)"
	case interp.WhyTransfer:
		s := "transfers on " + strings.Join(st.Stages, " + ")
		if st.Bottleneck != "" && len(st.Stages) > 1 {
			s += fmt.Sprintf(": the bottleneck is %s, at %s of its capacity", st.Bottleneck, fmtPct(st.Util))
		}
		return s
	case interp.WhyRate:
		if st.Rate <= 0 {
			return fmt.Sprintf("at rate 0, %s left: it waits for a share", unitsWords(st.Left))
		}
		return fmt.Sprintf("at %s units/s, %s left: it ends in %s (%s) at current rates", fmtRate(st.Rate),
			unitsWords(st.Left), fmtDur(st.At-now), tWords(st.At))
	case interp.WhyInBatch:
		return fmt.Sprintf("runs %s on %s in the current iteration (a batch of %d), %s left", st.Mode, st.Stage, st.Count,
			tokensWords(st.Left))
	case interp.WhyStalled:
		return fmt.Sprintf("a resident of %s, stalled: its %s waits for memory", st.Stage, st.Mode)
	case interp.WhyResident:
		return fmt.Sprintf("a resident of %s, %s with %s left, not in the current iteration", st.Stage, st.Mode, tokensWords(st.Left))
	case interp.WhyEngine:
		state := "idle"
		if st.Busy {
			state = "iterating"
		}
		return fmt.Sprintf("%s has %s, %s", st.Stage, plural(st.Count, "resident", "residents"), state)
	case interp.WhyService:
		return fmt.Sprintf("in service at %s for %s", st.Stage, fmtDur(now-st.Since))
	case interp.WhyWaitsAt:
		return fmt.Sprintf("waits at %s, position %d of %d: all %s busy", st.Stage, st.Position, st.Count, plural(st.Servers, "server", "servers"))
	case interp.WhyPresent:
		return fmt.Sprintf("in service at %s (%s), %d present", st.Stage, st.Mode, st.Count)
	case interp.WhyLease:
		return fmt.Sprintf("holds a lease on %s: %s for %s (since %s)", st.Pool, unitsWords(st.Units), fmtDur(now-st.Since), tWords(st.Since))
	case interp.WhyRenewed:
		s := fmt.Sprintf("renewed by %s every %s, each time for %s, while its session waits to read it", st.Member,
			fmtDur(st.Every), fmtDur(st.For))
		if st.Last > 0 {
			s += fmt.Sprintf(" (last at %s, next at %s)", tWords(st.Last), tWords(st.NextRenew))
		}
		return s
	case interp.WhyNotRenewed:
		return "not renewed yet: no reader has taken its request"
	case interp.WhyNeverExpires:
		return "it never expires"
	case interp.WhyExpires:
		return fmt.Sprintf("it expires in %s (%s) and frees %s", fmtDur(st.At-now), tWords(st.At), unitsWords(st.Units))
	case interp.WhyStranded:
		return fmt.Sprintf("left behind at %s by %s, whose request failed (%s): no session owns it", tWords(st.At), who, st.Cause)
	case interp.WhyReaderDown:
		return fmt.Sprintf("its reader %s, which renewed it, is down since %s: nothing renews it", st.Member, tWords(st.At))
	case interp.WhyReaderStopped:
		return "its reader " + st.Member + " renews it no more"
	case interp.WhyNothingRenews:
		return "nothing renews it"
	case interp.WhyLastRenewal:
		return "its last renewal was at " + tWords(st.At)
	case interp.WhyLeftBehind:
		return fmt.Sprintf("left a lease on %s behind: %s", st.Pool, unitsWords(st.Units))
	case interp.WhyExpired:
		return fmt.Sprintf("its lease on %s expired at %s, before it was read: the blocks were freed", st.Pool, tWords(st.At))
	case interp.WhyFailed:
		return fmt.Sprintf("its last request failed at %s: %s", tWords(st.At), st.Cause)
	case interp.WhyRetry:
		return "its call failed; it is made again at " + tWords(st.At)
	case interp.WhyLateRead:
		return fmt.Sprintf("it reads %s after its lease expired at %s: the blocks were freed and may hold another request's KV",
			st.Pool, tWords(st.At))
	case interp.WhyGone:
		return fmt.Sprintf("session %d has ended; a lease it left behind lives on", st.Who.Serial)
	case interp.WhyLeaseOf:
		return fmt.Sprintf("a lease on %s: %s for %s (since %s)", st.Pool, unitsWords(st.Units), fmtDur(now-st.Since), tWords(st.Since))
	}
	return st.Kind.String()
}

// holderWords says what a holder does (WhyHeldBy).
func holderWords(st interp.WhyStep) string {
	switch st.State {
	case interp.HolderReady:
		return "ready"
	case interp.HolderRunning:
		return fmt.Sprintf("running %s on %s, %s left", st.Mode, st.Where, tokensWords(st.Left))
	case interp.HolderTransfer:
		return "transferring on " + st.Where
	case interp.HolderOnStage:
		return "on " + st.Where
	case interp.HolderQueued:
		return "parked, queued at " + st.Where
	case interp.HolderGrowing:
		return "parked, growing at " + st.Where
	case interp.HolderJoin:
		return "parked at a join"
	}
	return "parked"
}

// refWords names a session: "session 24 turn 2", "… leg 1".
func refWords(r interp.SessionRef) string {
	s := fmt.Sprintf("session %d turn %d", r.Serial, r.Turn)
	if r.Leg != 0 {
		s += fmt.Sprintf(" leg %d", r.Leg)
	}
	return s
}

// tWords is a moment of the run: "t 57.3449 s".
func tWords(t float64) string {
	if math.IsInf(t, 0) {
		return "never"
	}
	return "t " + fmtStart(t)
}

// unitsWords is an amount of a pool's units: "1 unit", "2,496 units".
func unitsWords(x float64) string { return pluralF(x, "unit", "units") }

// tokensWords is an amount of tokens: "1 token", "2,954 tokens".
func tokensWords(x float64) string { return pluralF(x, "token", "tokens") }

func pluralF(x float64, one, many string) string {
	if x == 1 {
		return "1 " + one
	}
	return fmtCount(roundTo(x)) + " " + many
}

// fmtRate writes a rate in three significant digits: 600, 1.82k, 200k.
func fmtRate(x float64) string {
	return siCount(x, 1e4, func(v float64) string { return fmtCount(roundTo(v)) })
}

// roundTo keeps what a reader needs of an amount: whole from 100 up,
// three significant digits below.
func roundTo(x float64) float64 {
	if math.Abs(x) >= 100 || x == math.Trunc(x) || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Round(x)
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// hitWords is a breakpoint's hit in words, for the line under the panes:
// "break 2: on preemption at D.kv[0]: session 40 turn 1 was preempted at
// D.kv[0], at event #123,456, t 150.3210 s".
func (m *Model) hitWords(h *debugger.Hit) string {
	verb := "break"
	switch h.Kind {
	case debugger.Watch:
		verb = "watch"
	case debugger.Display:
		verb = "display"
	}
	at := fmt.Sprintf("at event #%s, t %s", fmtCount(float64(h.Event)), fmtStart(h.Time))
	head := fmt.Sprintf("%s %d: %s", verb, h.ID, h.Src)
	switch h.Kind {
	case debugger.BreakExpr:
		return head + " became true " + at
	case debugger.BreakTime, debugger.BreakCount:
		return head + " " + at
	case debugger.BreakSession:
		return fmt.Sprintf("%s: %s: %s %s", head, refWords(h.Who), h.Line, at)
	case debugger.BreakLine:
		return fmt.Sprintf("%s: %s reached %s:%d %s", head, refWords(h.Who), filepath.Base(h.Pos.File), h.Pos.Line, at)
	case debugger.BreakOn:
		s := head + ": "
		if h.HasWho {
			s += refWords(h.Who) + ": "
		}
		return s + h.Line + " " + at
	case debugger.Watch:
		return fmt.Sprintf("%s changed %s → %s %s", head, fmtValue(h.Old), fmtValue(h.New), at)
	}
	return head + " " + at
}
