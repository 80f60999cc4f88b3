package tui

import (
	"fmt"
	"math"

	"github.com/serq/serq/interp"
)

// kvPane shows every engine memory pool (a decoder's KV in the seed): a
// bar of used, cached and free units against the cap, and the holders,
// queued requests, requests parked (holding blocks without a running
// slot), running requests and preemptions so far. Three lines a pool when
// they fit, else one.
type kvPane struct{ paneBase }

func newKVPane(st *Styles) *kvPane { return &kvPane{paneBase{st: st}} }

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
				fmt.Sprintf("  used %s · cached %s · free %s of %s",
					fmtCount(ps.Used), fmtCount(ps.Cached), fmtCount(free), fmtCount(ps.Cap)),
				"  "+p.counts(ps, false))
		}
		return append(out, legend)
	}
	labelW := 0
	for _, ps := range pools {
		labelW = max(labelW, len(ps.Label))
	}
	for _, ps := range pools {
		barW := max(4, min(24, p.w-labelW-32))
		out = append(out, fmt.Sprintf("%s %s %4s %s", st.Label.Render(fit(ps.Label, labelW)),
			bar(st, barW, ps.Used, ps.Cached, ps.Cap), fmtPct(ps.Used/ps.Cap), p.counts(ps, true)))
	}
	return append(out, legend+st.Dim.Render("  h holders"), st.Dim.Render("q queued p parked r running x preempts"))
}

// counts writes the pool's request counts, in words or as short tags.
func (p *kvPane) counts(ps *interp.PoolSnap, short bool) string {
	pre := fmt.Sprint(ps.Preemptions)
	if ps.Preemptions > 0 {
		pre = p.st.Warn.Render(pre + "!")
	}
	if short {
		return fmt.Sprintf("h%d q%d p%d r%d x%s", ps.Holders, ps.Queued, ps.Parked, ps.Running, pre)
	}
	return fmt.Sprintf("holders %d · queued %d · parked %d · running %d · preempted %s",
		ps.Holders, ps.Queued, ps.Parked, ps.Running, pre)
}
