package tui

import (
	"fmt"
	"strings"

	"github.com/serq/serq/interp"
)

// nicPane shows every shared processor-sharing stage (the NICs a
// transfer's flows cross): its capacity (the stage's φ, in units of work a
// second: tokens a second in the seed), the share in use, and each active
// flow with its rate, the work left and the stages it crosses.
type nicPane struct {
	paneBase
	follow uint64 // the followed session's flows are marked
}

func newNICPane(st *Styles) *nicPane { return &nicPane{paneBase: paneBase{st: st}} }

func (p *nicPane) title() string { return "NIC flows" }

func (p *nicPane) stages() []*interp.StageSnap {
	if p.frame == nil {
		return nil
	}
	var out []*interp.StageSnap
	for i := range p.frame.snap.Stages {
		if s := &p.frame.snap.Stages[i]; s.Shared && s.Kind == "ps" {
			out = append(out, s)
		}
	}
	return out
}

func (p *nicPane) lines() []string {
	st := p.st
	stages := p.stages()
	if len(stages) == 0 {
		if p.frame == nil {
			return nil
		}
		return []string{st.Dim.Render("no shared ps stage (no transfer or flow crosses one)")}
	}
	var out []string
	for _, s := range stages {
		wide := p.w >= 60
		num := fmtShort
		barW := 4
		if wide {
			num, barW = fmtCount, 10
		}
		phi := "cap ?"
		if s.Phi > 0 {
			phi = "cap " + fmtRate(s.Phi) + " units/s"
			if !wide {
				phi = fmtRate(s.Phi) + "/s"
			}
		}
		nflows := plural(len(s.Flows), "flow", "flows")
		if len(s.Flows) == 0 {
			nflows = st.Dim.Render("idle")
		}
		if wide {
			out = append(out, fmt.Sprintf("%s %s %s of %s in use · %s", st.Label.Render(s.Label),
				bar(st, barW, s.Util, 0, 1), fmtPct(s.Util), phi, nflows))
		} else {
			out = append(out, fmt.Sprintf("%s %s %s %s · %s", st.Label.Render(s.Label),
				bar(st, barW, s.Util, 0, 1), fmtPct(s.Util), phi, nflows))
		}
		format := "  s%d t%d %s %s/s, %s left"
		if wide {
			format = "  s%d t%d %s at %s units/s, %s units left"
		}
		for _, f := range s.Flows {
			line := fmt.Sprintf(format,
				f.Session, f.Turn, strings.Join(f.Stages, " ↔ "), fmtRate(f.Rate), num(roundTo(f.Remaining)))
			if f.Session == p.follow {
				line = st.Warn.Render("●") + line[1:]
			}
			out = append(out, line)
		}
	}
	if !p.wide() {
		out = append(out, st.Dim.Render("rates in units of work a second, work left in units"))
	}
	return out
}

func (p *nicPane) wide() bool { return p.w >= 60 }
