package tui

import (
	"fmt"
	"math"

	"github.com/serq/serq/model"
)

// stationsPane takes the Leases pane's place in a program where no pool
// leases (a queueing network: mg1.sq, tandem.sq, ps.sq): each stage's
// jobs waiting, in service and the capacity in use now.
type stationsPane struct{ paneBase }

func newStationsPane(st *Styles) *stationsPane { return &stationsPane{paneBase{st: st}} }

func (p *stationsPane) title() string { return "Stations" }

func (p *stationsPane) lines() []string {
	if p.frame == nil {
		return nil
	}
	st := p.st
	labelW := 0
	for _, s := range p.frame.snap.Stages {
		labelW = max(labelW, len(s.Label))
	}
	labelW = min(labelW, 16)
	barW := 10
	if p.w < 56 {
		barW = 4
	}
	var out []string
	for _, s := range p.frame.snap.Stages {
		u := math.Max(0, math.Min(1, s.Util))
		line := st.Label.Render(fit(s.Label, labelW)) + " " + fit(s.Kind, 5) + " " +
			bar(st, barW, u, 0, 1) + " " + padLeft(fmt.Sprintf("%.0f%%", 100*u), 4)
		switch {
		case s.Kind == "delay":
			line += fmt.Sprintf(" · %s in delay", fmtCount(float64(s.Present)))
		case s.Kind == "ps":
			line += fmt.Sprintf(" · %s sharing", fmtCount(float64(s.Present)))
		case p.w < 56:
			line += fmt.Sprintf(" · q %s · serving %s", fmtShort(float64(max(0, s.Present-s.Busy))), fmtShort(float64(s.Busy)))
		default:
			line += fmt.Sprintf(" · queue %s · in service %s", fmtCount(float64(max(0, s.Present-s.Busy))), fmtCount(float64(s.Busy)))
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		return []string{st.Dim.Render("no stage")}
	}
	return append(out, st.Dim.Render("bar: capacity in use now"))
}

// observesPane takes the Engine KV pane's place in a program without an
// engine memory pool: each observe's count, running mean and last value
// (after the warm-up).
type observesPane struct {
	paneBase
	warmup float64
}

func newObservesPane(st *Styles, warmup float64) *observesPane {
	return &observesPane{paneBase: paneBase{st: st}, warmup: warmup}
}

func (p *observesPane) title() string { return "Observes" }

func (p *observesPane) lines() []string {
	if p.frame == nil {
		return nil
	}
	st := p.st
	snap := p.frame.snap
	if len(snap.Observes) == 0 {
		return []string{st.Dim.Render("no observe")}
	}
	nameW := 0
	for _, o := range snap.Observes {
		nameW = max(nameW, len(o.Name))
	}
	nameW = min(nameW, 16)
	var out []string
	for _, o := range snap.Observes {
		line := st.Label.Render(fit(o.Name, nameW)) + " "
		if o.Count == 0 {
			what := "no sample yet"
			if snap.Time < p.warmup {
				what = "warm-up: no sample counted before " + fmtDur(p.warmup)
			}
			out = append(out, line+st.Dim.Render(what))
			continue
		}
		format := "count %s · mean %s · last %s"
		if p.w < 56 {
			format = "n %s · mean %s · last %s"
		}
		out = append(out, line+fmt.Sprintf(format, fmtShort(float64(o.Count)), fmtValue(o.Mean), fmtValue(o.Last)))
	}
	return out
}

// hasShared reports whether some stage of p is shared by flows (the NIC
// flows pane has something to show).
func hasShared(p *model.Program) bool {
	for _, s := range p.Stages {
		if s.Shared {
			return true
		}
	}
	return false
}
