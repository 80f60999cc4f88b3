package interp

// hook calls f with c when f is set: the Timeline's OnCheckpoint and
// OnResume, for a driver that keeps its own books per checkpoint (the
// TUI's count of traced events, so its log can be rebuilt by a replay).
func (tl *Timeline) hook(f func(*Checkpoint), c *Checkpoint) {
	if f != nil {
		f(c)
	}
}
