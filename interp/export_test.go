package interp

// What only the tests call (SameState is exported in checkpoint.go: the
// TUI's tests call it too).

// Back goes to the state k events before the current one (the start, if
// there are fewer).
func (tl *Timeline) Back(k uint64) {
	n := tl.sim.events
	if k > n {
		k = n
	}
	tl.SeekEvent(n - k)
}
