package tui

import (
	"fmt"
	"math"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// breakpoint is a breakpoint or a watch, numbered in the order they were
// set. A break on an expression stops a run at the first event after
// which it holds (is nonzero) when it did not before; on a time, at the
// first event at or after it; on a session, at every event of the session.
type breakpoint struct {
	id     int
	kind   breakKind
	src    string      // as typed: the expression, the time, the serial
	expr   *model.Expr // kind breakExpr
	t      float64     // kind breakTime
	serial uint64      // kind breakSession, and the event number of kind breakEvent
	on     string      // kind breakOn: the kind of event (eventKinds)
	watch  bool        // a watch: its value is shown, it never stops the run
}

// eventKinds are the kinds of event `break on KIND` stops at, and the
// traced events that are of each kind.
var eventKinds = []struct {
	kind  string
	what  interp.EventKind
	words string
}{
	{"expiry", interp.EvLeaseExpired, "a lease expired"},
	{"late-read", interp.EvLateRead, "a read after its lease expired"},
	{"down", interp.EvDown, "a member or stage went down"},
	{"failed-read", interp.EvReadFailed, "a read failed"},
	{"failure", interp.EvFailed, "a request failed"},
}

type breakKind int

const (
	breakExpr breakKind = iota
	breakTime
	breakSession
	breakEvent // a tour's stop at an event number: holds once that many events are processed
	breakOn    // every event of a kind (a lease expiring, a member going down…)
)

// String is the breakpoint as `list` shows it.
func (b breakpoint) String() string {
	switch {
	case b.watch:
		return fmt.Sprintf("%d watch %s", b.id, b.src)
	case b.kind == breakTime:
		return fmt.Sprintf("%d break t %s", b.id, b.src)
	case b.kind == breakSession:
		return fmt.Sprintf("%d break session %d", b.id, b.serial)
	case b.kind == breakOn:
		return fmt.Sprintf("%d break on %s", b.id, b.on)
	}
	return fmt.Sprintf("%d break %s", b.id, b.src)
}

// checker evaluates a request's breakpoints after each event. The values
// before an event are the driver's (prev): they are taken after events
// only, so a condition that a clock move made true (a batch ends by moving
// the clock to its target) stops the run at the next event.
type checker struct {
	bps   []breakpoint
	hitID int // the id of the breakpoint that stopped the run; 0 if none
}

// newChecker takes the values of breakpoints it has not seen before, so a
// condition that holds already must become false and then true again to
// stop the run. Watches are left out.
func (d *driver) newChecker(bps []breakpoint) *checker {
	c := &checker{}
	for _, b := range bps {
		if !b.watch {
			c.bps = append(c.bps, b)
		}
	}
	if len(c.bps) == 0 {
		return nil
	}
	s := d.sim()
	if d.prev == nil {
		d.prev = map[int]bool{}
	}
	for _, b := range c.bps {
		if _, ok := d.prev[b.id]; !ok {
			d.prev[b.id] = holds(s, b)
		}
		if b.kind == breakSession {
			if d.brkSessions == nil {
				d.brkSessions = map[uint64]int{}
			}
			if _, ok := d.brkSessions[b.serial]; !ok {
				d.brkSessions[b.serial] = b.id
			}
		}
		if b.kind == breakOn {
			if d.brkEvents == nil {
				d.brkEvents = map[interp.EventKind]int{}
			}
			if _, ok := d.brkEvents[eventWhat(b.on)]; !ok {
				d.brkEvents[eventWhat(b.on)] = b.id
			}
		}
	}
	d.sessionHit = 0
	return c
}

// holds is the value of an expression or time breakpoint in s.
func holds(s *interp.Sim, b breakpoint) bool {
	switch b.kind {
	case breakExpr:
		v := query(s, b.expr)
		return v != 0 && !math.IsNaN(v)
	case breakTime:
		return s.Now() >= b.t && s.Events() > 0
	case breakEvent:
		return s.Events() >= b.serial
	}
	return false
}

// after checks the breakpoints after an event: the first that became true
// (or whose session the event traced), in words; "" if none.
func (c *checker) after(d *driver) string {
	if c == nil {
		return ""
	}
	s := d.sim()
	hit := ""
	for _, b := range c.bps {
		if b.kind == breakSession || b.kind == breakOn {
			continue
		}
		v := holds(s, b)
		if v && !d.prev[b.id] && hit == "" {
			hit, c.hitID = c.words(b, s), b.id
		}
		d.prev[b.id] = v
	}
	if hit == "" && d.sessionHit != 0 {
		for _, b := range c.bps {
			if b.id == d.sessionHit {
				hit, c.hitID = c.words(b, s), b.id
				if b.kind == breakOn && d.hitWhere != "" {
					hit += " (" + d.hitWhere + ")"
				}
			}
		}
	}
	d.sessionHit, d.hitWhere = 0, ""
	return hit
}

// eventWhat is the traced event of a `break on` kind.
func eventWhat(kind string) interp.EventKind {
	for _, k := range eventKinds {
		if k.kind == kind {
			return k.what
		}
	}
	return interp.EvNone
}

func (c *checker) words(b breakpoint, s *interp.Sim) string {
	at := fmt.Sprintf("at event #%d, t %.4f s", s.Events(), s.Now())
	switch b.kind {
	case breakTime:
		return fmt.Sprintf("break %d: t ≥ %s %s", b.id, b.src, at)
	case breakSession:
		return fmt.Sprintf("break %d: session %d %s", b.id, b.serial, at)
	case breakOn:
		for _, k := range eventKinds {
			if k.kind == b.on {
				return fmt.Sprintf("break %d: %s %s", b.id, k.words, at)
			}
		}
	}
	return fmt.Sprintf("break %d: %s became true %s", b.id, b.src, at)
}

// reverse finds the last event before the current one at which a
// breakpoint became true (or that traced a session breakpoint's session),
// replaying one checkpoint span at a time from the latest backwards. The
// run does not move; it returns the event and the breakpoint in words.
func (d *driver) reverse(c *checker) (uint64, string) {
	if c == nil {
		return 0, ""
	}
	cur := d.sim().Events()
	if cur == 0 {
		return 0, ""
	}
	cps := d.tl.CheckpointsBefore(cur - 1)
	for i := len(cps) - 1; i >= 0; i-- {
		to := cur - 1
		if i+1 < len(cps) {
			to = min(to, cps[i+1])
		}
		from := cps[i]
		var (
			found uint64
			what  string
			prev  []bool
			hitID int
		)
		sessions, events := d.brkSessions, d.brkEvents
		d.tl.Scan(from, to, func(s *interp.Sim) bool {
			if prev == nil {
				s.SetTracer(func(e interp.TraceEvent) {
					if id, ok := sessions[e.Session]; ok && hitID == 0 && !e.System {
						hitID = id
					}
					if id, ok := events[e.Kind]; ok && hitID == 0 {
						hitID = id
					}
				})
				prev = make([]bool, len(c.bps))
				for k, b := range c.bps {
					prev[k] = holds(s, b)
				}
				hitID = 0
				return true
			}
			for k, b := range c.bps {
				if b.kind == breakSession || b.kind == breakOn {
					if b.id == hitID && hitID != 0 && s.Events() > from {
						found, what = s.Events(), c.words(b, s)
					}
					continue
				}
				v := holds(s, b)
				if v && !prev[k] {
					found, what = s.Events(), c.words(b, s)
				}
				prev[k] = v
			}
			hitID = 0
			return true
		})
		if what != "" {
			return found, what
		}
	}
	return 0, ""
}
