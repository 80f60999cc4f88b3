package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/serq/serq/interp"
)

// logPane shows the traced events in words, newest at the bottom, then
// what the last single step did when the tracer was silent about it (an
// engine's iteration ending, say), then the run's error if it failed. A
// filter (`/`) keeps the events of one session (`s35` or `35`) or whose
// pool or stage label contains the text; the followed session's events are
// marked.
type logPane struct {
	paneBase
	filter string
	follow uint64
	match  []int // with a filter: the indexes of the matching events
}

func newLogPane(st *Styles) *logPane { return &logPane{paneBase: paneBase{st: st}, follow: noSession} }

func (p *logPane) title() string {
	if p.filter != "" {
		return fmt.Sprintf("Event log · / %s · %s", p.filter, plural(len(p.match), "match", "matches"))
	}
	return "Event log"
}
func (p *logPane) setFrame(f *frameMsg) {
	p.frame = f
	p.refilter()
}

// setFilter sets the filter; "" shows every event.
func (p *logPane) setFilter(s string) {
	p.filter = strings.TrimSpace(s)
	p.refilter()
}

func (p *logPane) refilter() {
	p.match = p.match[:0]
	if p.filter == "" || p.frame == nil {
		return
	}
	keep := filterFunc(p.filter)
	lv := p.frame.log
	for i := 0; i < lv.len(); i++ {
		if keep(lv.at(i)) {
			p.match = append(p.match, i)
		}
	}
}

// filterFunc is the test of a filter: a session's serial (`s35`, `35`) or
// a substring of the pool or stage label.
func filterFunc(f string) func(e *interp.TraceEvent) bool {
	num := strings.TrimPrefix(f, "s")
	if n, err := strconv.ParseUint(num, 10, 64); err == nil {
		return func(e *interp.TraceEvent) bool { return !e.System && e.Session == n }
	}
	return func(e *interp.TraceEvent) bool { return strings.Contains(e.Where, f) }
}

// count is the number of lines the log has.
func (p *logPane) count() int {
	f := p.frame
	if f == nil {
		return 0
	}
	n := f.log.len()
	if p.filter != "" {
		n = len(p.match)
	}
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
		out = append(out, st.Dim.Render(fmt.Sprintf("▸ event %s at %.4f s: %s",
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
	n := f.log.len()
	if p.filter != "" {
		n = len(p.match)
	}
	var out []string
	for i := from; i < to; i++ {
		switch {
		case n == 0 && i == 0:
			if p.filter != "" {
				out = append(out, st.Dim.Render("no event matches /"+p.filter+" (/ and enter on nothing clears it)"))
			} else {
				out = append(out, st.Dim.Render("no event yet: n steps one, space runs"))
			}
		case i < n:
			k := i
			if p.filter != "" {
				k = p.match[i]
			}
			out = append(out, p.line(f.log.at(k)))
		default:
			j := i - max(n, 1)
			if tail := p.tail(); j >= 0 && j < len(tail) {
				out = append(out, tail[j])
			}
		}
	}
	return out
}

func (p *logPane) line(e *interp.TraceEvent) string {
	s := eventText(e)
	if p.follow != noSession {
		if !e.System && e.Session == p.follow {
			return p.st.Warn.Render("●") + " " + s
		}
		return "  " + s
	}
	return s
}

// eventText is a traced event in words, with its leg.
func eventText(e *interp.TraceEvent) string { return e.String() }

func (p *logPane) lines() []string { return p.window(0, p.count()) }
