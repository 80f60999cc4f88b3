package tui

import (
	"fmt"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/interp"
)

// The Inspect pane (i), after OMNeT++'s Qtenv inspectors: who waits in a
// pool's queue and in what order (:queue POOL), an engine's iteration and
// its residents (:batch ENGINE), the pending events, the next first
// (:pending).

type inspectMode int

const (
	inspectPending inspectMode = iota
	inspectQueue
	inspectBatch
)

// inspect is what the Inspect pane shows: its mode and the pool's or the
// engine's stage's index.
type inspect struct {
	mode  inspectMode
	index int
}

// inspView is the Inspect pane's content, taken from the service.
type inspView struct {
	what    inspect
	label   string
	queue   []interp.QueueEntry
	batch   *interp.BatchSnap
	pending []interp.PendingEvent
	total   int // the pending events in all
}

// pendingShown is how many pending events the pane lists.
const pendingShown = 200

func inspectNow(g *debugger.Debugger, w inspect) inspView {
	v := inspView{what: w}
	switch w.mode {
	case inspectQueue:
		v.queue = g.Queue(w.index)
		v.label = g.Program().Pools[w.index].Label
	case inspectBatch:
		v.batch = g.Batch(w.index)
		v.label = g.Program().Stages[w.index].Label
	default:
		v.pending, v.total = g.Pending(pendingShown)
	}
	return v
}

// setInspect shows the Inspect pane with w.
func (m *Model) setInspect(w inspect) tea.Cmd {
	m.insp = w
	m.shown[paneInspect] = true
	m.focus = paneInspect
	m.layout()
	return m.enqueue(request{kind: reqSnapshot})
}

type inspectPane struct{ paneBase }

func newInspectPane(st *Styles) *inspectPane { return &inspectPane{paneBase{st: st}} }

func (p *inspectPane) title() string {
	if p.frame == nil {
		return "Inspect"
	}
	v := p.frame.insp
	switch v.what.mode {
	case inspectQueue:
		return fmt.Sprintf("Inspect · queue of %s · %s", v.label, plural(len(v.queue), "waits", "wait"))
	case inspectBatch:
		return "Inspect · batch of " + v.label
	}
	return fmt.Sprintf("Inspect · pending events · %s", plural(v.total, "event", "events"))
}

func (p *inspectPane) lines() []string {
	st, f := p.st, p.frame
	if f == nil {
		return nil
	}
	v := f.insp
	now := f.snap.Time
	var out []string
	switch v.what.mode {
	case inspectQueue:
		if len(v.queue) == 0 {
			return []string{st.Dim.Render("nobody waits at " + v.label)}
		}
		for i, e := range v.queue {
			s := fmt.Sprintf("%3d %s asks %s, waiting %s", i+1, refWords(e.Who), unitsWords(e.Units), fmtDur(now-e.Since))
			if len(e.Pools) > 1 {
				s += " · its hold asks " + strings.Join(e.Pools, " + ")
			}
			if e.Blocking != "" {
				s += " · " + st.Warn.Render("no room at "+e.Blocking)
			}
			out = append(out, s)
		}
	case inspectBatch:
		b := v.batch
		if b == nil {
			return []string{st.Dim.Render(v.label + " is no engine")}
		}
		head := fmt.Sprintf("%s: iteration %s", b.Engine, fmtCount(float64(b.Iterations+1)))
		if b.Running {
			head += fmt.Sprintf(" under way, ends in %s (%s) · a batch of %d", fmtDur(b.Ends-now), tWords(b.Ends), len(b.Batch))
		} else {
			head += " not started: idle"
		}
		if b.Memory != "" {
			head += " · memory " + b.Memory
		}
		out = append(out, st.Label.Render(head))
		for _, e := range b.Batch {
			out = append(out, "  "+batchWords(e))
		}
		if len(b.Others) > 0 {
			out = append(out, st.Dim.Render(fmt.Sprintf("%s not in the iteration:", plural(len(b.Others), "resident", "residents"))))
			for _, e := range b.Others {
				out = append(out, "  "+batchWords(e))
			}
		}
	default:
		if len(v.pending) == 0 {
			return []string{st.Dim.Render("nothing is pending")}
		}
		for _, e := range v.pending {
			out = append(out, pendingWords(e, now))
		}
		if v.total > len(v.pending) {
			out = append(out, st.Dim.Render(fmt.Sprintf("and %s more", plural(v.total-len(v.pending), "event", "events"))))
		}
	}
	return out
}

func batchWords(e interp.BatchEntry) string {
	s := fmt.Sprintf("%s %s: %s of %s left", refWords(e.Who), e.Mode, tokensWords(e.Left), fmtCount(e.Tokens))
	if e.Stalled {
		s += " · stalled: waits for memory"
	}
	return s
}

func pendingWords(e interp.PendingEvent, now float64) string {
	at := fmt.Sprintf("%s (in %s)", fmtStart(e.T), fmtDur(e.T-now))
	if math.IsInf(e.T, 1) {
		at = "never"
	}
	var what string
	switch e.Kind {
	case interp.PendArrival:
		what = plural(e.Count, "session arrives", "sessions arrive")
	case interp.PendJobEnd:
		what = refWords(e.Who) + "'s job on " + e.Where + " ends"
	case interp.PendPSEnd:
		what = "the next job on " + e.Where + " ends"
	case interp.PendTransfer:
		what = refWords(e.Who) + "'s transfer on " + e.Where + " ends"
	case interp.PendWarmup:
		what = "the warm-up ends: statistics reset"
	case interp.PendIteration:
		what = e.Where + "'s iteration ends"
	case interp.PendLeaseEnd:
		what = "a lease on " + e.Where + " reaches its end"
		if e.HasWho {
			what += " (" + refWords(e.Who) + ")"
		}
	case interp.PendDown:
		what = e.Where + " goes down"
	case interp.PendUp:
		what = e.Where + " comes back"
	case interp.PendRenewal:
		what = e.Where + " renews its leases"
	case interp.PendTimeout:
		what = refWords(e.Who) + "'s client gives its request up"
	case interp.PendRetry:
		what = refWords(e.Who) + "'s retry"
	}
	return at + "  " + what
}
