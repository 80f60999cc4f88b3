package tui

import (
	"fmt"
	"math"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// kvPane shows every engine memory pool (a decoder's KV in the seed): a
// bar of used, cached and free units against the cap (and in blocks, for a
// pool with a block size), the holders, the requests queued at it and
// waiting to enter its engine (at any pool the engine admits: a
// prefiller's request slots too), the requests parked (holding blocks
// without a running slot) and running, and the preemptions since t = 0
// (and since the warm-up, once there is one). Three lines a pool when they
// fit, else one with a legend.
type kvPane struct {
	paneBase
	blocks map[string]float64 // block size by pool label (0: none)
	warmup float64
}

func newKVPane(st *Styles, p *model.Program, warmup float64) *kvPane {
	kp := &kvPane{paneBase: paneBase{st: st}, blocks: map[string]float64{}, warmup: warmup}
	for _, pl := range p.Pools {
		kp.blocks[pl.Label] = float64(pl.Block)
	}
	return kp
}

func (p *kvPane) title() string { return "Engine KV" }

func (p *kvPane) pools() []*interp.PoolSnap {
	if p.frame == nil {
		return nil
	}
	var out []*interp.PoolSnap
	for i := range p.frame.snap.Pools {
		if ps := &p.frame.snap.Pools[i]; ps.Engine != "" {
			out = append(out, ps)
		}
	}
	return out
}

// waiting is the requests waiting to enter the engine whose memory ps is.
func (p *kvPane) waiting(ps *interp.PoolSnap) int {
	for _, s := range p.frame.snap.Stages {
		if s.Label == ps.Engine && s.Engine != nil {
			return s.Engine.Waiting
		}
	}
	return ps.Queued
}

func (p *kvPane) lines() []string {
	st := p.st
	pools := p.pools()
	if len(pools) == 0 {
		if p.frame == nil {
			return nil
		}
		return []string{st.Dim.Render("no engine has a memory pool (`pool … on` a device)")}
	}
	legend := st.Dim.Render(fmt.Sprintf("%c used  %c cached  %c free", glyphUsed, glyphCached, glyphFree))
	var out []string
	if p.h >= 3*len(pools)+1 {
		for _, ps := range pools {
			free := math.Max(0, ps.Cap-ps.Used-ps.Cached)
			barW := max(8, min(40, p.w-30))
			out = append(out,
				fmt.Sprintf("%s on %s %s %s used", st.Label.Render(ps.Label), ps.Engine,
					bar(st, barW, ps.Used, ps.Cached, ps.Cap), fmtPct(ps.Used/ps.Cap)),
				fmt.Sprintf("  used %s · cached %s · free %s of %s", fmtCount(ps.Used), fmtCount(ps.Cached), fmtCount(free), p.capWords(ps)),
				"  "+p.counts(ps, false))
		}
		return append(out, legend)
	}
	labelW := 0
	for _, ps := range pools {
		labelW = max(labelW, len(ps.Label))
	}
	for _, ps := range pools {
		barW := max(4, min(24, p.w-labelW-34))
		out = append(out, fmt.Sprintf("%s %s %4s %s", st.Label.Render(fit(ps.Label, labelW)),
			bar(st, barW, ps.Used, ps.Cached, ps.Cap), fmtPct(ps.Used/ps.Cap), p.counts(ps, true)))
	}
	return append(out, legend+st.Dim.Render("  h holders"),
		st.Dim.Render("q queued w waiting for the engine p parked r running x preempted since t 0"))
}

// capWords is a pool's cap in units and, with a block size, in blocks:
// "17,600 units (1,100 blocks of 16)".
func (p *kvPane) capWords(ps *interp.PoolSnap) string {
	s := unitsWords(ps.Cap)
	if b := p.blocks[ps.Label]; b > 0 {
		s += fmt.Sprintf(" (%s blocks of %s)", fmtCount(math.Floor(ps.Cap/b)), fmtCount(b))
	}
	return s
}

// counts writes the pool's request counts, in words or as short tags;
// the preemptions are the run's since t = 0, with those since the
// warm-up beside them once it is over.
func (p *kvPane) counts(ps *interp.PoolSnap, short bool) string {
	warm := p.warmup > 0 && p.frame.snap.Time >= p.warmup
	pre := fmtCount(float64(ps.RunPreemptions))
	if !short {
		pre += " since t 0"
		if warm {
			pre += fmt.Sprintf(" (%s since warm-up)", fmtCount(float64(ps.Preemptions)))
		}
	}
	if ps.RunPreemptions > 0 {
		pre = p.st.Warn.Render(pre)
	}
	w := p.waiting(ps)
	if short {
		return fmt.Sprintf("h%d q%d w%d p%d r%d x%s", ps.Holders, ps.Queued, w, ps.Parked, ps.Running, pre)
	}
	return fmt.Sprintf("holders %d · queued %d · waiting for %s %d · parked %d · running %d · preempted %s",
		ps.Holders, ps.Queued, ps.Engine, w, ps.Parked, ps.Running, pre)
}
