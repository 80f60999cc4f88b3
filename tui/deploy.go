package tui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/serq/serq/draw"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/model"
)

// deployPane shows the deployment figure of `serq draw --format txt`,
// drawn from the program at the pane's width, with a second line in every
// row of a box: the live numbers of its pool (used, cached and leased
// units, queued requests) or its stage (an engine's running requests and
// batch, the flows on a NIC and the share of φ they use). The root scrolls
// it like any pane and cuts lines wider than the pane with an ellipsis.
type deployPane struct {
	paneBase
	prog    *model.Program
	leasing map[int]bool // pools some hold leases

	// The budgets of the live lines at width budgetW, and the lines drawn
	// for frame at width linesW.
	budgetW     int
	poolBudget  map[int]int
	stageBudget map[int]int
	linesFrame  *frameMsg
	linesW      int
	cached      []string
}

func newDeployPane(st *Styles, p *model.Program) *deployPane {
	dp := &deployPane{paneBase: paneBase{st: st}, prog: p, leasing: map[int]bool{}, budgetW: -1, linesW: -1}
	for _, i := range leasingPools(p) {
		dp.leasing[i] = true
	}
	return dp
}

func (p *deployPane) title() string { return "Deployment" }

// lines draws the figure, once per frame and width. Before the first
// frame it is the static figure.
func (p *deployPane) lines() []string {
	if p.w <= 0 {
		return nil
	}
	if p.cached != nil && p.linesFrame == p.frame && p.linesW == p.w {
		return p.cached
	}
	var live draw.Live
	if p.frame != nil && p.frame.snap != nil {
		if p.budgetW != p.w {
			p.poolBudget, p.stageBudget = liveBudgets(p.prog, p.w)
			p.budgetW = p.w
		}
		live = &deployLive{snap: p.frame.snap, leasing: p.leasing, poolBudget: p.poolBudget, stageBudget: p.stageBudget}
	}
	fig := strings.TrimRight(draw.Text(p.prog, p.w, live), "\n")
	p.cached = strings.Split(fig, "\n")
	p.linesFrame, p.linesW = p.frame, p.w
	return p.cached
}

// deployLive is a [draw.Live] over one snapshot: its pool and stage indices
// are the model's. A line keeps within the budget of its row when one is
// known (the columns the figure leaves it), leaving out its least
// important parts; the first part is always there.
type deployLive struct {
	snap        *interp.Snapshot
	leasing     map[int]bool // pools that lease: their line always says so
	poolBudget  map[int]int  // columns for a pool's line; absent or 0: no limit
	stageBudget map[int]int
}

// PoolLine is "used 8,176 · cached 33.1k · leased 2 (8,176) · queued 1":
// cached for an engine's memory or when something is cached, leased (the
// leases and their units) for a pool that leases, queued when requests
// wait. What does not fit goes in the order cached, queued, the leased
// units, the leases.
func (l *deployLive) PoolLine(i int) string {
	if l.snap == nil || i < 0 || i >= len(l.snap.Pools) {
		return ""
	}
	ps := &l.snap.Pools[i]
	var cached, leased, leasedN, queued string
	if ps.Engine != "" || ps.Cached > 0 {
		cached = "cached " + fmtShort(ps.Cached)
	}
	if l.leasing[i] || len(ps.Leases) > 0 {
		units := 0.0
		for _, ls := range ps.Leases {
			units += ls.Units
		}
		leasedN = "leased " + strconv.Itoa(len(ps.Leases))
		leased = leasedN
		if len(ps.Leases) > 0 {
			leased += " (" + fmtShort(units) + ")"
		}
	}
	if ps.Queued > 0 {
		queued = "queued " + strconv.Itoa(ps.Queued)
	}
	return pack(l.poolBudget[i], []part{
		{"used " + fmtShort(ps.Used), 0, ""},
		{cached, 3, ""},
		{leased, 1, leasedN},
		{queued, 2, ""},
	})
}

// StageLine is an engine's "running 3 · batch 2" (its residents, and the
// requests of the iteration under way), a shared stage's "2 flows · 73% of
// φ", a fifo's "3 jobs · 1 in service", another stage's "3 jobs"; "idle"
// when nothing is there.
func (l *deployLive) StageLine(i int) string {
	if l.snap == nil || i < 0 || i >= len(l.snap.Stages) {
		return ""
	}
	s := &l.snap.Stages[i]
	var parts []part
	switch {
	case s.Engine != nil:
		e := s.Engine
		switch {
		case e.Running:
			parts = []part{{"running " + strconv.Itoa(e.Residents), 0, ""}, {"batch " + strconv.Itoa(e.Batch), 0, ""}}
		case e.Residents > 0:
			parts = []part{{"running " + strconv.Itoa(e.Residents), 0, ""}, {"no iteration", 1, ""}}
		default:
			parts = []part{{"idle", 0, ""}}
		}
	case s.Shared:
		if len(s.Flows) == 0 && !(s.Util > 0) {
			parts = []part{{"idle", 0, ""}}
		} else {
			parts = []part{{plural(len(s.Flows), "flow", "flows"), 0, ""}, {fmtPct(s.Util) + " of φ", 1, ""}}
		}
	case s.Present == 0:
		parts = []part{{"idle", 0, ""}}
	case s.Kind == "fifo":
		parts = []part{{plural(s.Present, "job", "jobs"), 0, ""}, {strconv.Itoa(s.Busy) + " in service", 1, ""}}
	default:
		parts = []part{{plural(s.Present, "job", "jobs"), 0, ""}}
	}
	return pack(l.stageBudget[i], parts)
}

// part is a piece of a live line, its rank (0 is always kept, a larger
// rank is left out first) and a shorter form to try when it does not fit.
type part struct {
	text  string
	rank  int
	short string
}

// pack joins the non-empty parts with " · " in their order. Within a
// budget (0: no limit), it takes the parts by rank, each in full or else in
// its short form if that fits, and leaves out those that do not.
func pack(budget int, parts []part) string {
	text := make([]string, len(parts)) // what each part shows; "" for nothing
	join := func() string {
		var out []string
		for _, t := range text {
			if t != "" {
				out = append(out, t)
			}
		}
		return strings.Join(out, " · ")
	}
	fits := func() bool { return budget <= 0 || utf8.RuneCountInString(join()) <= budget }
	maxRank := 0
	for i, p := range parts {
		if p.rank == 0 {
			text[i] = p.text
		}
		maxRank = max(maxRank, p.rank)
	}
	for r := 1; r <= maxRank; r++ {
		for i, p := range parts {
			if p.rank != r {
				continue
			}
			for _, t := range []string{p.text, p.short} {
				if text[i] = t; t != "" && fits() {
					break
				}
				text[i] = ""
			}
		}
	}
	return join()
}

// Probe tags: a private-use rune opens a tag, another closes it.
const (
	tagOpen  = '\uE000'
	tagClose = '\uE001'
)

// probeLive answers every row with its tag and a long tail, so that the
// figure drawn with it shows how much of a line each row keeps.
type probeLive struct{}

func (probeLive) PoolLine(i int) string {
	return string(tagOpen) + "p" + strconv.Itoa(i) + string(tagClose) + strings.Repeat("x", 400)
}

func (probeLive) StageLine(i int) string {
	return string(tagOpen) + "s" + strconv.Itoa(i) + string(tagClose) + strings.Repeat("x", 400)
}

// liveBudgets is how many columns the figure of p at width w leaves each
// pool's and stage's live line: the figure's layout does not depend on the
// live lines (draw cuts them to their box), so a figure drawn with
// [probeLive] shows the columns of each, up to and with the ellipsis it is
// cut with. A row whose tag does not survive whole gets no budget.
func liveBudgets(p *model.Program, w int) (pools, stages map[int]int) {
	pools, stages = map[int]int{}, map[int]int{}
	for _, line := range strings.Split(draw.Text(p, w, probeLive{}), "\n") {
		for {
			at := strings.IndexRune(line, tagOpen)
			if at < 0 {
				break
			}
			line = line[at:]
			rs := []rune(line)
			n := 1 // the columns up to the ellipsis or the end of the tail
			for n < len(rs) && rs[n] != '…' && rs[n] != '│' && rs[n] != ' ' && rs[n] != tagOpen {
				n++
			}
			if n < len(rs) && rs[n] == '…' {
				n++
			}
			tag := string(rs[1:n])
			end := strings.IndexRune(tag, tagClose)
			line = string(rs[n:])
			if end < 1 {
				continue
			}
			idx, err := strconv.Atoi(tag[1:end])
			if err != nil {
				continue
			}
			switch tag[0] {
			case 'p':
				pools[idx] = n
			case 's':
				stages[idx] = n
			}
		}
	}
	return pools, stages
}
