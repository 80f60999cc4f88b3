package tui

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// leasesPane shows every pool that leases (a prefiller's KV in the seed):
// the leased units against the cap, the number of leases, the oldest one's
// age, and the live leases (oldest first, or by units or session: s) with
// what each session waits for, which names the decoder that will take the
// lease. A lease that waits longer than the stale threshold is flagged
// ⚠ STALE; one as old whose read is under way (a transfer at a rate above
// 0) is ⇄ moving, not stale.
type leasesPane struct {
	paneBase
	pools  []int   // pool indexes that some hold leases, from the IR
	stale  float64 // seconds
	static map[int]bool
	sel    uint64 // the selected lease's session, noSession for none
	follow uint64 // the followed session, marked
	rows   []int  // lines(): the line of each lease, in order
	serial []uint64
	order  int // leaseOrders
}

// The leases' orders (s cycles them).
const (
	byAge = iota
	byUnits
	bySession
	numLeaseOrders
)

var leaseOrderNames = [numLeaseOrders]string{"age, oldest first", "units, most first", "session"}

func newLeasesPane(st *Styles, p *model.Program, stale float64) *leasesPane {
	lp := &leasesPane{paneBase: paneBase{st: st}, pools: leasingPools(p), stale: stale, static: map[int]bool{}, sel: noSession, follow: noSession}
	for _, i := range lp.pools {
		lp.static[i] = true
	}
	return lp
}

// leasingPools returns the pools some `hold … lease` leases, found in the
// IR: the queues' leased families and every hold statement with a lease.
func leasingPools(p *model.Program) []int {
	fams := map[int]bool{}
	for _, q := range p.Queues {
		if q.Leases >= 0 && q.Leases < len(p.PoolFams) {
			fams[q.Leases] = true
		}
	}
	p.Walk(func(st *model.Stmt) {
		if st.Op == model.OpHold && st.Lease > 0 && st.Lease <= len(st.Holds) {
			fams[st.Holds[st.Lease-1].Pool.Fam] = true
		}
	})
	var out []int
	for i, pl := range p.Pools {
		if fams[pl.Fam] {
			out = append(out, i)
		}
	}
	return out
}

func (p *leasesPane) title() string {
	t := "Leases · stale > " + fmtSpan(p.stale)
	if p.order != byAge {
		t += " · by " + leaseOrderNames[p.order]
	}
	return t
}

// sorted is a pool's leases in the pane's order.
func (p *leasesPane) sorted(ls []interp.LeaseSnap) []interp.LeaseSnap {
	if p.order == byAge {
		return ls
	}
	out := append([]interp.LeaseSnap(nil), ls...)
	sort.SliceStable(out, func(i, j int) bool {
		if p.order == byUnits {
			return out[i].Units > out[j].Units
		}
		return out[i].Session < out[j].Session
	})
	return out
}
func (p *leasesPane) shown() []*interp.PoolSnap {
	if p.frame == nil {
		return nil
	}
	var out []*interp.PoolSnap
	for i := range p.frame.snap.Pools {
		ps := &p.frame.snap.Pools[i]
		if p.static[i] || len(ps.Leases) > 0 {
			out = append(out, ps)
		}
	}
	return out
}

// selected is the session of the selected lease, 0 if none (or it ended).
func (p *leasesPane) selected() uint64 {
	p.lines()
	for _, s := range p.serial {
		if s == p.sel {
			return s
		}
	}
	return noSession
}

// move moves the selection by step leases and returns its line; false
// when there is no lease to select.
func (p *leasesPane) move(step int) (int, bool) {
	p.lines()
	if len(p.serial) == 0 {
		return 0, false
	}
	at := -1
	for i, s := range p.serial {
		if s == p.sel {
			at = i
		}
	}
	switch {
	case at < 0 && step > 0:
		at = 0
	case at < 0:
		at = len(p.serial) - 1
	default:
		at = max(0, min(len(p.serial)-1, at+step))
	}
	p.sel = p.serial[at]
	p.lines()
	return p.rows[at], true
}

func (p *leasesPane) lines() []string {
	st := p.st
	p.rows, p.serial = p.rows[:0], p.serial[:0]
	pools := p.shown()
	if len(pools) == 0 {
		if p.frame == nil {
			return nil
		}
		return []string{st.Dim.Render("no pool of this program leases (no `lease` on a hold)")}
	}
	var out []string
	for _, ps := range pools {
		leased := 0.0
		for _, l := range ps.Leases {
			leased += l.Units
		}
		oldest := "–"
		if len(ps.Leases) > 0 {
			oldest = fmtDur(ps.Leases[0].Age)
		}
		wide := p.w >= 60
		// The stale count comes first, so a narrow pane cuts the counts
		// after it, never the warning.
		stale := ""
		if n := p.countStale(ps); n > 0 {
			stale = st.Warn.Render(fmt.Sprintf("⚠ %d stale", n)) + " "
		}
		if wide {
			out = append(out, fmt.Sprintf("%s %s%s leased %s/%s · %s · oldest %s",
				st.Label.Render(ps.Label), stale, bar(st, 10, leased, 0, ps.Cap), fmtCount(leased), fmtCount(ps.Cap),
				plural(len(ps.Leases), "lease", "leases"), oldest))
		} else {
			out = append(out,
				fmt.Sprintf("%s %s%s %s/%s leased", st.Label.Render(ps.Label), stale, bar(st, 6, leased, 0, ps.Cap),
					fmtShort(leased), fmtShort(ps.Cap)),
				fmt.Sprintf("  %s · oldest %s", plural(len(ps.Leases), "lease", "leases"), oldest))
		}
		for _, l := range p.sorted(ps.Leases) {
			flag := st.Dim.Render("·")
			switch {
			case l.Age > p.stale && l.Moving:
				flag = st.Dim.Render("⇄ moving")
			case l.Age > p.stale:
				flag = st.Warn.Render("⚠ STALE")
			}
			mark := "  "
			switch {
			case l.Session == p.sel:
				mark = "▸ "
			case l.Session == p.follow:
				mark = st.Warn.Render("●") + " "
			}
			p.rows, p.serial = append(p.rows, len(out)), append(p.serial, l.Session)
			who := fmt.Sprintf("%s%s s%d t%d %s %s since %s", mark, flag, l.Session, l.Turn, unitsWords(l.Units), fmtDur(l.Age),
				fmtStart(l.Start))
			expires := ""
			if l.Expires {
				expires = st.Warn.Render("expires in "+fmtDur(l.End-p.frame.snap.Time)) + " "
			}
			waits := "→ waits: " + l.Waits
			switch {
			case l.Stranded:
				waits = "→ " + st.Warn.Render("stranded") + ": its request failed, nothing renews it"
			case l.Renewer != "":
				waits += " · renewed by " + l.Renewer + " every " + fmtDur(l.Every)
			}
			if wide {
				if expires != "" {
					who += " · " + expires
				}
				out = append(out, who+" "+waits)
			} else {
				// narrow: the time left leads the second line, where it is not cut
				out = append(out, who, "    "+expires+waits)
			}
		}
	}
	return out
}

// countStale counts a pool's leases that wait longer than the threshold
// (not those moving).
func (p *leasesPane) countStale(ps *interp.PoolSnap) int {
	n := 0
	for _, l := range ps.Leases {
		if l.Age > p.stale && !l.Moving {
			n++
		}
	}
	return n
}

// fmtStart writes a lease's start time: 48.3267 s.
func fmtStart(t float64) string { return strconv.FormatFloat(t, 'f', 4, 64) + " s" }
