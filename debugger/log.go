package debugger

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/serq/serq/interp"
)

// The event log: a window of the run's traced events that ends at the
// current event. It begins at a checkpoint (what a seek replayed, or the
// replay of the span a quiet run stopped in), at the run's start, or where
// it grew past its size (the oldest events dropped); Earlier extends it one
// span back. So a seek never replays more than its own span to rebuild
// a log.

// logChunk is how many events a chunk of the log holds.
const logChunk = 1024

// eventLog is the debugger's window of traced events, oldest first. Full
// chunks are never written again, so a view can share them; the last is
// only appended to (a view reads below its length), the first is only cut
// from its front, a truncation copies the chunk it cuts: no view ever sees
// a change.
type eventLog struct {
	chunks [][]interp.TraceEvent
	kept   int
	keep   int
	// from: the log holds every traced event with an event number above
	// it, up to the current event; complete: and those of the run's
	// start (from is 0).
	from     uint64
	complete bool
}

func (l *eventLog) add(e interp.TraceEvent) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == cap(l.chunks[n-1]) {
		l.chunks = append(l.chunks, make([]interp.TraceEvent, 0, logChunk))
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], e)
	if l.kept++; l.kept > l.keep {
		// drop the oldest event's lines, all of them
		first := l.chunks[0][0].Event
		for l.kept > 0 && l.chunks[0][0].Event == first {
			l.chunks[0] = l.chunks[0][1:]
			l.kept--
			if len(l.chunks[0]) == 0 {
				l.chunks[0] = nil
				l.chunks = l.chunks[1:]
			}
		}
		l.from, l.complete = first, false
	}
}

// last is the event number of the newest event held.
func (l *eventLog) last() (uint64, bool) {
	for i := len(l.chunks) - 1; i >= 0; i-- {
		if c := l.chunks[i]; len(c) > 0 {
			return c[len(c)-1].Event, true
		}
	}
	return 0, false
}

// holds reports whether the window reaches back to event n (the state
// after it: its own lines and those before need not be there).
func (l *eventLog) holds(n uint64) bool { return n >= l.from }

// holdsTime reports whether the window reaches back to time t: t is not
// before its first event's, and it holds every event of that instant.
func (l *eventLog) holdsTime(t float64) bool {
	if l.complete {
		return true
	}
	for _, c := range l.chunks {
		if len(c) > 0 {
			return t > c[0].Time
		}
	}
	return false
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

// prepend puts events before the ones held (oldest first), the window
// then beginning at from.
func (l *eventLog) prepend(evs []interp.TraceEvent, from uint64) {
	all := make([]interp.TraceEvent, 0, len(evs)+l.kept)
	all = append(all, evs...)
	for _, c := range l.chunks {
		all = append(all, c...)
	}
	l.chunks, l.kept = nil, 0
	keep := l.keep
	l.keep = len(all) + 1
	for _, e := range all {
		l.add(e)
	}
	l.keep = keep
	l.from, l.complete = from, from == 0
}

// view is a picture of the log that later changes do not touch.
func (l *eventLog) view() Log {
	v := Log{chunks: make([][]interp.TraceEvent, len(l.chunks)), From: l.from, Complete: l.complete}
	for i, c := range l.chunks {
		v.chunks[i] = c[:len(c):len(c)]
		v.n += len(c)
	}
	return v
}

// Log is a picture of the event log: the traced events of the window, in
// order, shared read-only.
type Log struct {
	chunks [][]interp.TraceEvent
	n      int
	// From: the log holds every traced event after event From, up to
	// the run's current event; Complete: and every one before, since the
	// run's start.
	From     uint64
	Complete bool
}

// Len is the number of events held.
func (v Log) Len() int { return v.n }

// At is the i-th event, oldest first.
func (v Log) At(i int) *interp.TraceEvent {
	if len(v.chunks) == 0 || i < 0 || i >= v.n {
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

// Slice is the events [from, to) as a new slice.
func (v Log) Slice(from, to int) []interp.TraceEvent {
	out := make([]interp.TraceEvent, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, *v.At(i))
	}
	return out
}

// Index is the first event held of event number n or after it (Len when
// none).
func (v Log) Index(n uint64) int {
	return sort.Search(v.n, func(i int) bool { return v.At(i).Event >= n })
}

// Search is the next event after index from (before it, backward) whose
// line (interp.TraceEvent.String) holds q, case aside, or that is of
// session N when q is `sN` or `N`; -1 if none.
func (v Log) Search(q string, from int, backward bool) int {
	match := Match(q)
	if backward {
		for i := min(from, v.n) - 1; i >= 0; i-- {
			if match(v.At(i)) {
				return i
			}
		}
		return -1
	}
	for i := max(from+1, 0); i < v.n; i++ {
		if match(v.At(i)) {
			return i
		}
	}
	return -1
}

// Match is the test of a log search or filter q: a session's number (`s35`
// or `35`) matches that session's events; other text, the events whose
// line holds it, case aside ("preempt", "D.kv[0]", "lease-end" matching
// a kind's name as well).
func Match(q string) func(e *interp.TraceEvent) bool {
	q = strings.TrimSpace(q)
	if n, err := strconv.ParseUint(strings.TrimPrefix(q, "s"), 10, 64); err == nil {
		return func(e *interp.TraceEvent) bool { return !e.System && e.Session == n }
	}
	low := strings.ToLower(q)
	return func(e *interp.TraceEvent) bool {
		return strings.Contains(strings.ToLower(e.String()), low) || strings.Contains(e.Kind.String(), low)
	}
}

// Log is the event log now. After a quiet run it is first rebuilt: the
// replay of the span the run stopped in.
func (d *Debugger) Log() Log {
	if d.gapped {
		d.lock("log")
		d.mend()
		d.unlock()
	}
	return d.log.view()
}

// maxEarlier bounds the log Earlier grows: this many times its size.
const maxEarlier = 4

// ErrLogFull is Earlier's error when the log holds as much as it may.
var ErrLogFull = errors.New("the log holds as many events as it may")

// Earlier extends the log one checkpoint span back (the replay of the
// span before its first event). At the run's start it does nothing.
func (d *Debugger) Earlier() (Stop, error) {
	d.lock("earlier")
	defer d.unlock()
	d.mend()
	if d.log.kept >= maxEarlier*d.log.keep {
		return Stop{}, ErrLogFull
	}
	d.earlier()
	if d.cancelled() {
		return Stop{Reason: Cancelled}, nil
	}
	return Stop{}, nil
}

// earlier extends the log one span back.
func (d *Debugger) earlier() {
	if d.log.complete || d.log.from == 0 {
		return
	}
	from := d.log.from
	c := d.checkpointBefore(from - 1)
	var evs []interp.TraceEvent
	d.tl.RefillTraced(c, from, func(e interp.TraceEvent) {
		if e.Event > c && e.Event <= from || c == 0 && e.Event == 0 {
			evs = append(evs, e)
		}
		if len(evs)%checkEvery == 0 {
			d.report(float64(e.Event-c)/float64(from-c), e.Event-c)
		}
	}, d.iters)
	d.log.prepend(evs, c)
}

// notEmpty gives an empty log, after a seek that landed on a checkpoint,
// the span before it.
func (d *Debugger) notEmpty() {
	if d.log.kept == 0 {
		d.earlier()
	}
}

// goQuiet makes the log miss the events to come: it is rebuilt when next
// read (mend).
func (d *Debugger) goQuiet() {
	d.logOn = false
	d.gapped = true
}

// resetLogTo empties the log, to hold the events after checkpoint c (a
// replay from it traces them).
func (d *Debugger) resetLogTo(c uint64) {
	d.log = eventLog{keep: d.log.keep, from: c, complete: c == 0}
	d.hasLog = false
	d.gapped = false
}

// mend rebuilds the log after a quiet run: the replay of the span from
// the latest checkpoint before the current event (at most one spacing of
// events, quietSparse where the quiet run took sparse ones, which the
// replay fills in).
func (d *Debugger) mend() {
	if !d.gapped {
		return
	}
	now := d.sim().Events()
	if now == 0 {
		d.resetLogTo(0)
		return
	}
	c := d.checkpointBefore(now - 1)
	d.resetLogTo(c)
	d.tl.RefillTraced(c, now, func(e interp.TraceEvent) {
		if e.Event > c || c == 0 {
			d.log.add(e)
		}
	}, d.iters)
}
