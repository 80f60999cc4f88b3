package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/serq/serq/interp"
)

// nicPane shows every shared processor-sharing stage (the NICs a
// transfer's flows cross): its capacity φ, the share in use, and each
// active flow with its rate and both ends named.
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
		phi := "φ ?"
		if s.Phi > 0 {
			phi = "φ " + num(s.Phi) + "/s"
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
			format = "  s%d t%d %s at %s/s, %s left"
		}
		for _, f := range s.Flows {
			line := fmt.Sprintf(format,
				f.Session, f.Turn, strings.Join(f.Stages, " ↔ "), num(round(f.Rate)), num(round(f.Remaining)))
			if f.Session == p.follow {
				line = st.Warn.Render("●") + line[1:]
			}
			out = append(out, line)
		}
	}
	return out
}

// round keeps four significant digits' worth of a rate for display.
func round(x float64) float64 {
	if math.Abs(x) >= 1000 {
		return math.Round(x)
	}
	return x
}
