package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// whyPane explains what a session waits for, following the chain to its
// end (interp's Why), in the program's own names.
type whyPane struct {
	paneBase
	serial uint64
}

func newWhyPane(st *Styles) *whyPane { return &whyPane{paneBase: paneBase{st: st}, serial: noSession} }

func (p *whyPane) title() string {
	if p.serial == noSession {
		return "Why"
	}
	return fmt.Sprintf("Why · s%d", p.serial)
}

func (p *whyPane) lines() []string {
	st := p.st
	if p.serial == noSession {
		return []string{st.Dim.Render("select a lease (↑/↓ in the Leases pane) and press enter, or :why N")}
	}
	if p.frame == nil {
		return nil
	}
	if len(p.frame.why) == 0 {
		return []string{st.Dim.Render(fmt.Sprintf("session %d is not live now", p.serial))}
	}
	var out []string
	for _, l := range p.frame.why {
		mark := "→ "
		if l.depth == 0 {
			mark = ""
		}
		out = append(out, strings.Repeat("  ", l.depth)+mark+l.text)
	}
	return out
}

// sessionPane follows one session: its story from the traced events (in
// the log's history) and where it is in the program now.
type sessionPane struct {
	paneBase
	serial uint64
}

func newSessionPane(st *Styles) *sessionPane {
	return &sessionPane{paneBase: paneBase{st: st}, serial: noSession}
}

func (p *sessionPane) title() string {
	if p.serial == noSession {
		return "Session"
	}
	return fmt.Sprintf("Session s%d · followed", p.serial)
}

func (p *sessionPane) lines() []string {
	st := p.st
	if p.serial == noSession {
		return []string{st.Dim.Render("f follows the selected lease's session, or :follow N")}
	}
	f := p.frame
	if f == nil {
		return nil
	}
	var out []string
	// Where it is now.
	if s := f.sess; s != nil {
		out = append(out, st.Label.Render("now")+fmt.Sprintf(" turn %d · waits: %s", s.turn, orDash(s.waits)))
		out = append(out, "  at "+posLine(s.pos, srcAt(f.src, 0)))
		if r := s.run; r != nil {
			out = append(out, fmt.Sprintf("  %s on %s: %s of %s tokens done, %s left", r.Mode, r.Engine,
				fmtCount(r.Tokens-r.Left), fmtCount(r.Tokens), fmtCount(r.Left)))
		}
		for i, l := range s.legs {
			out = append(out, fmt.Sprintf("  leg %d waits: %s", l.leg, orDash(l.waits)))
			out = append(out, "    at "+posLine(l.pos, srcAt(f.src, i+1)))
		}
	} else {
		out = append(out, st.Dim.Render(fmt.Sprintf("session %d is not live now", p.serial)))
	}
	for _, ps := range f.snap.Pools {
		for _, l := range ps.Leases {
			if l.Session == p.serial {
				out = append(out, fmt.Sprintf("  lease %s tok of %s since %.4f s, age %s", fmtCount(l.Units), ps.Label, l.Start, fmtDur(l.Age)))
			}
		}
	}
	for _, s := range f.snap.Stages {
		for _, fl := range s.Flows {
			if fl.Session == p.serial {
				out = append(out, fmt.Sprintf("  flow on %s at %s/s, %s left", s.Label, fmtCount(round(fl.Rate)), fmtCount(round(fl.Remaining))))
			}
		}
	}
	// Its story, oldest first.
	out = append(out, st.Label.Render("story")+st.Dim.Render(" (from the log's history)"))
	n := 0
	for i := 0; i < f.log.len(); i++ {
		e := f.log.at(i)
		if e.System || e.Session != p.serial {
			continue
		}
		n++
		out = append(out, "  "+storyText(e))
	}
	if n == 0 {
		out = append(out, st.Dim.Render("  no event of this session in the log"))
	}
	return out
}

// storyText is a traced event without the session, as a story line.
func storyText(e *interp.TraceEvent) string {
	s := fmt.Sprintf("%.4f s  ", e.Time)
	if e.Leg != 0 {
		s += fmt.Sprintf("leg %d ", e.Leg)
	}
	return s + fmt.Sprintf("t%d %s", e.Turn, e.Text())
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func srcAt(src []string, i int) string {
	if i < len(src) {
		return src[i]
	}
	return ""
}

// posLine is file:line and the source line.
func posLine(pos model.Pos, src string) string {
	if pos.File == "" {
		return "–"
	}
	s := fmt.Sprintf("%s:%d", filepath.Base(pos.File), pos.Line)
	if src != "" {
		s += "  " + src
	}
	return s
}
