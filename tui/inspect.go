package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// whyPane explains what a session waits for, following the chain to its
// end (the service's typed why-chain), worded here (whyWords).
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
		return []string{st.Dim.Render("select a lease (↑/↓ in the Leases pane) and press enter, a log line and w, or :why N")}
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
		if l.Depth == 0 {
			mark = ""
		}
		out = append(out, strings.Repeat("  ", l.Depth)+mark+whyWords(l, p.frame.snap.Time))
	}
	return out
}

// sessionPane follows one session: where it is in the program now and its
// story from the traced events of the log's window.
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
		return []string{st.Dim.Render("f follows the selected lease's session (or the log line's), or :follow N")}
	}
	f := p.frame
	if f == nil {
		return nil
	}
	var out []string
	// Where it is now.
	if s := f.sess; s != nil {
		out = append(out, st.Label.Render("now")+fmt.Sprintf(" turn %d · waits: %s", s.Turn, orDash(s.Waits)))
		out = append(out, "  at "+posLine(s.Pos, srcAt(f.src, 0)))
		if r := s.Run; r != nil {
			out = append(out, fmt.Sprintf("  %s on %s: %s of %s done, %s left", r.Mode, r.Engine,
				fmtCount(r.Tokens-r.Left), tokensWords(r.Tokens), tokensWords(r.Left)))
		}
		for i, l := range s.Legs {
			out = append(out, fmt.Sprintf("  leg %d waits: %s", l.Leg, orDash(l.Waits)))
			out = append(out, "    at "+posLine(l.Pos, srcAt(f.src, i+1)))
		}
	} else {
		out = append(out, st.Dim.Render(fmt.Sprintf("session %d is not live now", p.serial)))
	}
	for _, ps := range f.snap.Pools {
		for _, l := range ps.Leases {
			if l.Session == p.serial {
				out = append(out, fmt.Sprintf("  lease of %s on %s since %s, age %s", unitsWords(l.Units), ps.Label, fmtStart(l.Start), fmtDur(l.Age)))
			}
		}
	}
	for _, s := range f.snap.Stages {
		for _, fl := range s.Flows {
			if fl.Session == p.serial {
				out = append(out, fmt.Sprintf("  transfer on %s at %s units/s, %s left", s.Label, fmtRate(fl.Rate), unitsWords(roundTo(fl.Remaining))))
			}
		}
	}
	// Its story, oldest first.
	head := st.Label.Render("story") + st.Dim.Render(" (the log's)")
	if !f.log.Complete && f.log.Len() > 0 {
		head += st.Dim.Render(fmt.Sprintf(" · from t %s: :earlier loads more", fmtStart(f.log.At(0).Time)))
	}
	out = append(out, head)
	n := 0
	for i := 0; i < f.log.Len(); i++ {
		e := f.log.At(i)
		if e.System || e.Session != p.serial {
			continue
		}
		n++
		// a hold's admissions at once, one line as in the log
		es := []*interp.TraceEvent{e}
		for i+1 < f.log.Len() && interp.SameAdmission(e, f.log.At(i+1)) {
			i++
			es = append(es, f.log.At(i))
		}
		out = append(out, "  "+storyText(es))
	}
	if n == 0 {
		out = append(out, st.Dim.Render("  no event of this session in the log's window"))
	}
	return out
}

// storyText is a traced event (or a hold's admissions at once) without
// the session, as a story line.
func storyText(es []*interp.TraceEvent) string {
	e := es[0]
	s := fmt.Sprintf("%.4f s  ", e.Time)
	if e.Leg != 0 {
		s += fmt.Sprintf("leg %d ", e.Leg)
	}
	return s + fmt.Sprintf("t%d %s", e.Turn, interp.AdmissionsText(es))
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
