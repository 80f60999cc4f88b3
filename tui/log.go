package tui

import (
	"fmt"
	"strings"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/interp"
)

// logPane shows the event log, the service's window of traced events, in
// words (interp.TraceEvent's one renderer), newest at the bottom, a
// session's admissions at one event's pools on one line; then what the
// last single step did when the tracer was silent about it (an engine's
// iteration ending, say), then the run's error if it failed. A filter (`/`)
// keeps the lines that hold its text (`preempt`, `D.kv[0]`) or are of one
// session (`s35`, `35`); the followed session's lines are marked. Its
// cursor (the focused log's ↑/↓) picks a line: enter goes to its moment,
// w asks why its session waits, f follows it; ↑ past the first line loads
// the span before it.
type logPane struct {
	paneBase
	filter string
	follow uint64
	// rows: the log's lines, each the index of its first event and how
	// many events it joins (a session's admissions at one event).
	rows []logRow
	log  debugger.Log // the log the rows are of
}

type logRow struct{ at, n int }

func newLogPane(st *Styles) *logPane { return &logPane{paneBase: paneBase{st: st}, follow: noSession} }

func (p *logPane) title() string {
	t := "Event log"
	if f := p.frame; f != nil && !f.log.Complete && f.log.Len() > 0 {
		t += fmt.Sprintf(" · from t %s", fmtStart(f.log.At(0).Time))
	}
	if p.filter != "" {
		t += fmt.Sprintf(" · / %s · %s", p.filter, plural(len(p.rows), "match", "matches"))
	}
	return t
}

func (p *logPane) setFrame(f *frameMsg) {
	p.frame = f
	p.rebuild()
}

// setFilter sets the filter; "" shows every event.
func (p *logPane) setFilter(s string) {
	p.filter = strings.TrimSpace(s)
	p.rebuild()
}

// rebuild makes the rows of the log: with a filter, the matching events;
// a session's admissions at one event joined.
func (p *logPane) rebuild() {
	p.rows = p.rows[:0]
	if p.frame == nil {
		return
	}
	lv := p.frame.log
	p.log = lv
	var keep func(*interp.TraceEvent) bool
	if p.filter != "" {
		keep = debugger.Match(p.filter)
	}
	for i := 0; i < lv.Len(); i++ {
		e := lv.At(i)
		if keep != nil && !keep(e) {
			continue
		}
		n := 1
		for i+n < lv.Len() && interp.SameAdmission(e, lv.At(i+n)) && (keep == nil || keep(lv.At(i+n))) {
			n++
		}
		p.rows = append(p.rows, logRow{i, n})
		i += n - 1
	}
}

// count is the number of lines the log has.
func (p *logPane) count() int {
	f := p.frame
	if f == nil {
		return 0
	}
	n := len(p.rows)
	if n == 0 {
		n = 1 // the empty state's line
	}
	return n + len(p.tail())
}

// tail is what follows the events.
func (p *logPane) tail() []string {
	st, f := p.st, p.frame
	var out []string
	if f.what != "" {
		out = append(out, st.Dim.Render(fmt.Sprintf("  → event %s at %.4f s: %s",
			fmtCount(float64(f.snap.Events)), f.snap.Time, f.what)))
	}
	if f.snap.Err != nil {
		out = append(out, st.Err.Render("✗ error: "+f.snap.Err.Error()))
	}
	if f.err != nil {
		out = append(out, st.Err.Render("✗ cannot start: "+f.err.Error()))
	}
	return out
}

// window returns lines [from, to) of the log.
func (p *logPane) window(from, to int) []string {
	st, f := p.st, p.frame
	if f == nil {
		return nil
	}
	n := len(p.rows)
	var out []string
	for i := from; i < to; i++ {
		switch {
		case n == 0 && i == 0:
			switch {
			case p.filter != "":
				out = append(out, st.Dim.Render("no line holds /"+p.filter+" (/ and enter on nothing clears it; ↑ on the first line loads earlier ones)"))
			case f.log.Complete:
				out = append(out, st.Dim.Render("no event yet: n steps one, space runs"))
			default:
				out = append(out, st.Dim.Render("no event since the checkpoint: ↑ or :earlier loads the span before"))
			}
		case i < n:
			out = append(out, p.line(p.rows[i]))
		default:
			j := i - max(n, 1)
			if tail := p.tail(); j >= 0 && j < len(tail) {
				out = append(out, tail[j])
			}
		}
	}
	return out
}

// line is one row of the log: an event in words, or a session's
// admissions at one event on one line, the followed session's marked.
func (p *logPane) line(r logRow) string {
	e := p.log.At(r.at)
	s := e.String()
	if r.n > 1 {
		es := make([]*interp.TraceEvent, r.n)
		for k := range es {
			es[k] = p.log.At(r.at + k)
		}
		s = fmt.Sprintf("%.4f s  %s  %s", e.Time, e.Who(), interp.AdmissionsText(es))
	}
	if p.follow != noSession && !e.System && e.Session == p.follow {
		return p.st.Warn.Render("●") + " " + s
	}
	return "  " + s // the gutter: the followed session's mark, the cursor
}

// event is the first event of line i, nil when there is none.
func (p *logPane) event(i int) *interp.TraceEvent {
	if i < 0 || i >= len(p.rows) {
		return nil
	}
	return p.log.At(p.rows[i].at)
}

// selected is the event of the line under the cursor: the box's cursor,
// or the newest line when it follows the tail.
func (p *logPane) selected(b *paneBox) (*interp.TraceEvent, bool) {
	i := len(p.rows) - 1
	if b.cursor >= 0 {
		i = b.cursor
	}
	e := p.event(i)
	return e, e != nil
}

func (p *logPane) lines() []string { return p.window(0, p.count()) }
