package interp

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
	ls.Life = s.leaseLife(l, 0)
	return ls
}

// leaseTimed reports whether a lease has an end on the calendar (a finite
// duration).
func (s *Sim) leaseTimed(l *holdInst) bool { return l.timed }
