package interp

// StepN processes at most n events, as n calls of Step would, and returns
// how many it processed (fewer when the run ends first). The state after
// StepN(n) is the state after the same number of Steps, event for event;
// it exists so that a driver advancing in batches (the TUI at top speed)
// pays for one call a batch, and so that a run of engine iterations can be
// taken on a faster path inside the batch while the event count stays
// exact.
func (s *Sim) StepN(n uint64) uint64 {
	start := s.events
	for s.events-start < n && s.Step() {
	}
	return s.events - start
}

// StepN processes at most n events (Sim.StepN), taking the checkpoints
// that fall due on the way, and returns how many it processed.
func (tl *Timeline) StepN(n uint64) uint64 {
	start := tl.sim.events
	for tl.sim.events-start < n {
		// Run up to the next checkpoint due, then take it.
		next := (tl.sim.events/tl.every + 1) * tl.every
		want := min(n-(tl.sim.events-start), next-tl.sim.events)
		got := tl.sim.StepN(want)
		tl.checkpointIfDue()
		if got < want {
			break
		}
	}
	return tl.sim.events - start
}
