package tui

import "fmt"

// logPane shows the last traced events in words, newest at the bottom,
// then what the last single step did when the tracer was silent about it
// (an engine's iteration ending, say), then the run's error if it failed.
type logPane struct {
	st    *Styles
	w, h  int
	frame *frameMsg
}

func newLogPane(st *Styles) *logPane { return &logPane{st: st} }

func (p *logPane) title() string        { return "Event log" }
func (p *logPane) setSize(w, h int)     { p.w, p.h = w, h }
func (p *logPane) setFrame(f *frameMsg) { p.frame = f }

func (p *logPane) lines() []string {
	st := p.st
	f := p.frame
	if f == nil {
		return nil
	}
	var out []string
	if len(f.log) == 0 {
		out = append(out, st.Dim.Render("no event yet: n steps one, space runs"))
	}
	for _, e := range f.log {
		out = append(out, e.String())
	}
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
