package interp

import (
	"fmt"
)

// The debugger's view of failures and lease lifetimes (serq tui): what a
// lease's lifetime is now, the members that are down, what a failed or
// retrying request waits for. It reads the run and never changes it.

// MemberSnap is a queue's member that can fail: down since when.
type MemberSnap struct {
	Label string
	Down  bool
	Since float64 // when it went down (Down), or 0
	Downs uint64  // times it went down so far
}

// members is the snapshot's view of the members of a program that can
// fail.
func (s *Sim) memberSnaps() []MemberSnap {
	if !s.canFail {
		return nil
	}
	out := make([]MemberSnap, len(s.members))
	for i := range s.members {
		m := &s.members[i]
		out[i] = MemberSnap{Label: m.label, Down: m.down > 0, Downs: m.downs}
		if m.down > 0 {
			out[i].Since = m.downSince
		}
	}
	return out
}

// leaseSnap is a lease as the Leases pane shows it.
func (s *Sim) leaseSnap(l *holdInst, serial uint64, turn int, waits string) LeaseSnap {
	ls := LeaseSnap{Session: serial, Turn: turn, Units: l.pools[l.leased].alloc, Start: l.leaseStart,
		Age: s.now - l.leaseStart, Waits: waits, Stranded: l.stranded}
	if s.leaseTimed(l) {
		ls.Expires, ls.End = true, l.leaseEnd
	}
	if l.reader >= 0 {
		ls.Renewer = s.members[l.reader].label
		ls.Every = float64(l.st.Renew.Every)
	}
	ls.Life = s.leaseLife(l)
	return ls
}

// leaseTimed reports whether a lease has an end on the calendar (a finite
// duration).
func (s *Sim) leaseTimed(l *holdInst) bool { return l.timed }

// leaseLife says, in words, how long a lease lives and who keeps it: its
// end, who renews it and how often, or why nobody does.
func (s *Sim) leaseLife(l *holdInst) []string {
	var out []string
	timed := s.leaseTimed(l)
	switch {
	case l.stranded:
		out = append(out, fmt.Sprintf("left behind at t=%s by session %d turn %d, whose request failed (%s): no session owns it",
			fmtTime(l.strandAt), l.strandSerial, l.strandTurn, l.strandCause))
		if m := l.strandReader; m >= 0 {
			mm := &s.members[m]
			if mm.down > 0 {
				out = append(out, fmt.Sprintf("its reader %s, which renewed it, is down since t=%s: nothing renews it", mm.label, fmtTime(mm.downSince)))
			} else {
				out = append(out, fmt.Sprintf("its reader %s renews it no more", mm.label))
			}
		} else if l.st.Renew != nil {
			out = append(out, "nothing renews it")
		}
	case l.reader >= 0:
		mm := &s.members[l.reader]
		line := fmt.Sprintf("renewed by %s every %s s, each time for %s s, while its session waits at the entry that reads it",
			mm.label, fmtNum(float64(l.st.Renew.Every)), fmtNum(float64(l.st.Renew.For)))
		if l.lastRenew > 0 {
			line += fmt.Sprintf(" (last at t=%s, next at t=%s)", fmtTime(l.lastRenew), fmtTime(mm.lastTick+mm.every))
		}
		out = append(out, line)
	case l.st.Renew != nil:
		out = append(out, "not renewed yet: no reader has taken its request")
	}
	if !timed {
		return append(out, "it never expires")
	}
	if l.lastRenew > 0 && l.stranded {
		out = append(out, fmt.Sprintf("its last renewal was at t=%s", fmtTime(l.lastRenew)))
	}
	return append(out, fmt.Sprintf("it expires at t=%s, in %s s, and frees %s units", fmtTime(l.leaseEnd),
		fmtTime(l.leaseEnd-s.now), fmtNum(l.pools[l.leased].alloc)))
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
		w.add(d, "holds a lease on %s: %s units since t=%s (age %s s)", s.pools[hp.pool].m.Label,
			fmtNum(hp.alloc), fmtTime(l.leaseStart), fmtTime(s.now-l.leaseStart))
		if s.canFail {
			for _, line := range s.leaseLife(l) {
				w.add(d+1, "%s", line)
			}
		}
	}
	if !s.canFail || t.parent != nil {
		return
	}
	for _, l := range s.stranded {
		if l.strandSerial == t.serial {
			w.add(d, "left a lease on %s behind: %s units", s.pools[l.pools[l.leased].pool].m.Label, fmtNum(l.pools[l.leased].alloc))
			for _, line := range s.leaseLife(l) {
				w.add(d+1, "%s", line)
			}
		}
	}
	for _, e := range t.expired {
		pl := &s.pools[e.pool]
		w.add(d, "its lease on %s expired at t=%s, before it was read: the blocks were freed", pl.m.Label, fmtTime(e.t))
	}
	if t.attrs[s.p.Builtin.Failed] == 1 && !t.inTurn && t.cause > 0 {
		w.add(d, "its last request failed at t=%s: %s", fmtTime(t.failAt), s.causes[t.cause-1].Cause)
	}
	if t.backoff > 0 {
		w.add(d, "its call failed; it is made again at t=%s (retry)", fmtTime(t.backoff))
	}
}

// whyRead says what a session's read is reading: a lease that expired
// (the read goes ahead on freed blocks), or the live lease.
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
		w.add(d, "it reads %s's KV after its lease expired at t=%s: the blocks were freed and may hold another request's KV (on expiry read)",
			s.pools[p].m.Label, fmtTime(at))
	}
}

// whyLeftBehind explains the leases a session that is no longer live left
// behind (stranded): nil if it left none.
func (s *Sim) whyLeftBehind(serial uint64) []WhyLine {
	var out []WhyLine
	for _, l := range s.stranded {
		if l.strandSerial != serial {
			continue
		}
		if out == nil {
			out = append(out, WhyLine{Text: fmt.Sprintf("session %d has ended; a lease it left behind lives on", serial)})
		}
		out = append(out, WhyLine{Depth: 1, Text: fmt.Sprintf("a lease on %s: %s units since t=%s (age %s s)",
			s.pools[l.pools[l.leased].pool].m.Label, fmtNum(l.pools[l.leased].alloc), fmtTime(l.leaseStart), fmtTime(s.now-l.leaseStart))})
		for _, line := range s.leaseLife(l) {
			out = append(out, WhyLine{Depth: 2, Text: line})
		}
	}
	return out
}
