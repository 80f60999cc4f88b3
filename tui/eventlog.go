package tui

import "github.com/serq/serq/interp"

// logKeep is how many traced events the driver remembers for the log: the
// last logKeep, kept in chunks of logChunk.
const (
	logKeep  = 100_000
	logChunk = 1024
)

// eventLog is the driver's history of traced events, oldest first: the
// last logKeep of them (a sliding window, so what it holds depends only on
// the events up to now, and a replay can rebuild it). Full chunks are
// never written again, so a frame can share them; the last chunk is only
// appended to (a frame reads below its length), the first is only cut
// from its front (a frame keeps its own slice of it), and a truncation
// copies the chunk it cuts, so no frame ever sees a change.
type eventLog struct {
	chunks [][]interp.TraceEvent
	kept   int    // events held: at most logKeep
	total  uint64 // events ever added
	// cut: the run traced events before the oldest held (the window
	// dropped them, or a rebuild left them out).
	cut bool
}

func (l *eventLog) add(e interp.TraceEvent) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == cap(l.chunks[n-1]) {
		l.chunks = append(l.chunks, make([]interp.TraceEvent, 0, logChunk))
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], e)
	l.total++
	if l.kept++; l.kept > logKeep {
		l.chunks[0] = l.chunks[0][1:]
		l.kept--
		l.cut = true
		if len(l.chunks[0]) == 0 {
			l.chunks[0] = nil
			l.chunks = l.chunks[1:]
		}
	}
}

// last is the event number of the newest event kept, 0 if none.
func (l *eventLog) last() (uint64, bool) {
	for i := len(l.chunks) - 1; i >= 0; i-- {
		if c := l.chunks[i]; len(c) > 0 {
			return c[len(c)-1].Event, true
		}
	}
	return 0, false
}

// truncate drops the events that happened after event n.
func (l *eventLog) truncate(n uint64) {
	for len(l.chunks) > 0 {
		c := l.chunks[len(l.chunks)-1]
		k := len(c)
		for k > 0 && c[k-1].Event > n {
			k--
		}
		if k == len(c) {
			return
		}
		l.total -= uint64(len(c) - k)
		l.kept -= len(c) - k
		if k == 0 {
			l.chunks[len(l.chunks)-1] = nil
			l.chunks = l.chunks[:len(l.chunks)-1]
			continue
		}
		cp := make([]interp.TraceEvent, k, logChunk)
		copy(cp, c[:k])
		l.chunks[len(l.chunks)-1] = cp
		return
	}
}

// view is a picture of the log that later changes do not touch.
func (l *eventLog) view() logView {
	v := logView{chunks: make([][]interp.TraceEvent, len(l.chunks))}
	for i, c := range l.chunks {
		v.chunks[i] = c[:len(c):len(c)]
		v.n += len(c)
	}
	return v
}

// logView is a frame's copy of the log: shared, read-only chunks.
type logView struct {
	chunks [][]interp.TraceEvent
	n      int
}

func (v logView) len() int { return v.n }

// at is the i-th event, oldest first.
func (v logView) at(i int) *interp.TraceEvent {
	if len(v.chunks) == 0 {
		return nil
	}
	// Every chunk but the first and the last is full.
	first := len(v.chunks[0])
	if i < first {
		return &v.chunks[0][i]
	}
	i -= first
	c := 1 + i/logChunk
	return &v.chunks[c][i%logChunk]
}

// slice returns the events in [from, to) as a new slice.
func (v logView) slice(from, to int) []interp.TraceEvent {
	out := make([]interp.TraceEvent, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, *v.at(i))
	}
	return out
}
