// Package draw renders a lowered serQ program as a figure of its
// deployment: the router, each queue member as a box holding its engine,
// its pools and its NIC, and the transfers between members, labelled in
// the program's own names. [SVG] writes a standalone SVG image, [TikZ] the
// same figure as a TikZ picture (or a LaTeX document) for slides and
// papers, and [Text] the picture in box-drawing characters for a terminal.
//
// The figure is a pure function of the [model.Program]: no simulation runs
// and the same program gives the same bytes. The writers work from one
// scene (see build), so the SVG, the TikZ and the text never disagree on
// what is drawn; each lays it out on its own grid.
package draw

import (
	"path"
	"strconv"
	"strings"

	"github.com/serq/serq/model"
)

// Live supplies live numbers for the boxes of the text figure: a short line
// for a pool member (by index into Program.Pools) or a stage member (by
// index into Program.Stages), or "" for none. A nil Live draws the static
// figure.
type Live interface {
	PoolLine(pool int) string
	StageLine(stage int) string
}

// elemKind is what a row of a box stands for.
type elemKind int

const (
	kEngine elemKind = iota // a step stage and its scheduler
	kStage                  // a fifo, ps or delay stage
	kPool                   // a pool
	kMemory                 // the pool that is an engine's memory
	kNIC                    // a queue member's NIC
)

// elem is one row of a box: a name line and a detail line.
type elem struct {
	kind   elemKind
	head   string // "engine D[0]", "D.kv[0] on D.gpu, admitted by D"
	detail string // "tokens cap 8192", "cap 160000 · block 16"
	stage  int    // stage member, -1
	pool   int    // pool member, -1
}

// box is a queue member, or an engine with its pools, or a plain stage.
type box struct {
	title string // "D[0]", "vllm"
	role  string // "decode"; "" for none
	elems []elem // the NIC, if any, last
	nic   int    // index into elems of the NIC, -1
	kv    int    // index into elems of the pool a transfer moves, -1
}

// column is a queue family: one box per member, top to bottom.
type column struct {
	name    string // "D"
	index   string // the member variable of the figure: "i", "j", …
	entries string // "D[j].decode, D[j].decode from P[i]"
	boxes   []box
	nicLeft bool // the NIC faces a column on the left
}

// link is a relation between two columns: the transfer of the source's
// leased (or memory) pool into the reader's memory, across both NICs.
type link struct {
	src, dst   int    // columns
	srcNIC     string // "P.nic[i]"
	dstNIC     string // "D.nic[j]"
	move       string // "P.kv[i] → D.kv[j]"
	after      string // "after latency 0.002 (D.nic.latency)"
	afterShort string // "after latency 0.002"
	rel        string // "D pull P: D reads the KV from P"
	share      string // "share maxmin"
}

// gateway is a queue of role gateway: the router.
type gateway struct {
	title   string // "gw"
	role    string // "gateway"
	entries string // "route"
}

// scene is what a figure shows, before any layout.
type scene struct {
	file     string    // base name of the program file
	arrivals string    // "sessions: poisson(0.6)"
	gateways []gateway // the routers
	cols     []column  // queue families other than gateways
	links    []link
	chain    []box  // programs without queues: the stations in the order sessions first reach them
	others   []elem // stages and pools drawn nowhere else
}

// build derives the scene from the program.
func build(p *model.Program) *scene {
	s := &scene{file: path.Base(p.File), arrivals: "sessions: " + arrivals(p.Workload)}
	drawnStage := make([]bool, len(p.StageFams))
	drawnPool := make([]bool, len(p.PoolFams))
	colOf := map[string]int{} // queue name → column
	for _, q := range p.Queues {
		if hasRole(q, "gateway") && q.Stage < 0 && len(q.Pools) == 0 {
			s.gateways = append(s.gateways, gateway{title: q.Name, role: strings.Join(q.Roles, ", "),
				entries: strings.Join(q.Entries, ", ")})
			continue
		}
		colOf[q.Name] = len(s.cols)
		s.cols = append(s.cols, column{name: q.Name, index: indexVar(len(s.cols))})
	}
	// Columns, with the relation's pools known first.
	srcPool := map[string]int{} // queue name → pool family a transfer moves out of or into
	for _, r := range p.Relations {
		if q := findQueue(p, r.Source); q != nil {
			srcPool[r.Source] = movedPool(p, q, true)
		}
		if q := findQueue(p, r.Reader); q != nil {
			srcPool[r.Reader] = movedPool(p, q, false)
		}
	}
	for qi := range p.Queues {
		q := &p.Queues[qi]
		ci, ok := colOf[q.Name]
		if !ok {
			continue
		}
		c := &s.cols[ci]
		for m := 0; m < q.Count; m++ {
			c.boxes = append(c.boxes, memberBox(p, q, m, srcPool, drawnStage, drawnPool))
		}
	}
	// Entries: what the router calls on each column.
	for ci := range s.cols {
		c := &s.cols[ci]
		q := findQueue(p, c.name)
		var calls []string
		for _, e := range q.Entries {
			verb, from, ok := strings.Cut(e, " from ")
			call := member(c.name, c.index, q.Array) + "." + verb
			if ok {
				call += " from " + from
				if fc, ok := colOf[from]; ok && findQueue(p, from).Array {
					call += "[" + s.cols[fc].index + "]"
				}
			}
			calls = append(calls, call)
		}
		c.entries = strings.Join(calls, ", ")
	}
	// Links.
	for _, r := range p.Relations {
		si, ok1 := colOf[r.Source]
		di, ok2 := colOf[r.Reader]
		if !ok1 || !ok2 {
			continue
		}
		src, dst := &s.cols[si], &s.cols[di]
		sq, dq := findQueue(p, r.Source), findQueue(p, r.Reader)
		l := link{src: si, dst: di}
		l.srcNIC = famMember(p.StageFams, sq.Nic, src.index, sq.Array, r.Source+".nic")
		l.dstNIC = famMember(p.StageFams, dq.Nic, dst.index, dq.Array, r.Reader+".nic")
		l.move = famMember(p.PoolFams, srcPool[r.Source], src.index, sq.Array, r.Source+".kv") + " → " +
			famMember(p.PoolFams, srcPool[r.Reader], dst.index, dq.Array, r.Reader+".kv")
		l.after = "after latency " + num(float64(r.Latency))
		l.afterShort = l.after
		if r.Stage >= 0 && r.Stage < len(p.StageFams) {
			l.after += " (" + p.StageFams[r.Stage].Name + ")"
			drawnStage[r.Stage] = true
		}
		if r.Kind == "push" {
			l.rel = r.Source + " push " + r.Reader + ": " + r.Source + " writes the KV into " + r.Reader
		} else {
			l.rel = r.Reader + " " + r.Kind + " " + r.Source + ": " + r.Reader + " reads the KV from " + r.Source
		}
		if p.Share != "" {
			l.share = "share " + p.Share
		}
		s.links = append(s.links, l)
		// Each column's NIC faces its partner.
		if si < di {
			dst.nicLeft = true
		} else if si > di {
			src.nicLeft = true
		}
	}
	if len(p.Queues) == 0 {
		s.chain = chain(p, drawnStage, drawnPool)
	}
	// What is left.
	for f, fam := range p.StageFams {
		if !drawnStage[f] {
			st := p.Stages[fam.First]
			s.others = append(s.others, elem{kind: kStage, head: famLabel(fam), detail: stageDetail(p, st),
				stage: fam.First, pool: -1})
		}
	}
	for f, fam := range p.PoolFams {
		if !drawnPool[f] {
			pl := p.Pools[fam.First]
			s.others = append(s.others, elem{kind: kPool, head: famLabel(fam), detail: poolDetail(pl),
				stage: -1, pool: fam.First})
		}
	}
	return s
}

// memberBox is member m of queue q.
func memberBox(p *model.Program, q *model.Queue, m int, moved map[string]int, drawnStage, drawnPool []bool) box {
	b := box{title: member(q.Name, strconv.Itoa(m), q.Array), role: strings.Join(q.Roles, ", "), nic: -1, kv: -1}
	if q.Stage >= 0 {
		drawnStage[q.Stage] = true
		if st, ok := famAt(p.StageFams, q.Stage, m); ok {
			e := stageElem(p, st, member(q.Name, strconv.Itoa(m), q.Array))
			if e.kind == kEngine && q.Device != "" {
				e.head += " on " + q.Name + "." + q.Device
			}
			b.elems = append(b.elems, e)
		}
	}
	for _, f := range q.Pools {
		drawnPool[f] = true
		pi, ok := famAt(p.PoolFams, f, m)
		if !ok {
			continue
		}
		pl := p.Pools[pi]
		e := elem{kind: kPool, head: "pool " + member(p.PoolFams[f].Name, strconv.Itoa(m), q.Array),
			detail: poolDetail(pl), stage: -1, pool: pi}
		var on []string
		if pl.MemoryOf >= 0 {
			e.kind = kMemory
			dev := q.Device
			if dev == "" {
				dev = "device"
			}
			on = append(on, "on "+q.Name+"."+dev)
			if pl.AdmitVia >= 0 {
				on = append(on, "admitted by "+q.Name)
			}
		} else if pl.AdmitVia >= 0 {
			on = append(on, "on "+q.Name)
		}
		if len(on) > 0 {
			e.head += " " + strings.Join(on, ", ")
		}
		if mf, ok := moved[q.Name]; ok && mf == f {
			b.kv = len(b.elems)
		}
		b.elems = append(b.elems, e)
	}
	if q.Nic >= 0 {
		drawnStage[q.Nic] = true
		if si, ok := famAt(p.StageFams, q.Nic, m); ok {
			st := p.Stages[si]
			b.nic = len(b.elems)
			b.elems = append(b.elems, elem{kind: kNIC, head: "nic " + member(p.StageFams[q.Nic].Name, strconv.Itoa(m), q.Array),
				detail: stageDetail(p, st), stage: si, pool: -1})
		}
	}
	return b
}

// stageElem is the row of a stage member named name.
func stageElem(p *model.Program, si int, name string) elem {
	st := p.Stages[si]
	if st.Kind == model.Step && st.Engine >= 0 {
		return elem{kind: kEngine, head: "engine " + name, detail: engineDetail(p.Engines[st.Engine]), stage: si, pool: -1}
	}
	return elem{kind: kStage, head: "stage " + name, detail: stageDetail(p, st), stage: si, pool: -1}
}

// chain is the stations of a program without queues, in the order the
// session program first reaches them: an engine with the pools it admits
// or whose memory they are, or a plain stage.
func chain(p *model.Program, drawnStage, drawnPool []bool) []box {
	var order []int
	seen := make([]bool, len(p.StageFams))
	var walk func(b *model.Block, depth int)
	walk = func(b *model.Block, depth int) {
		if b == nil || depth > 2 {
			return
		}
		for _, st := range b.Stmts {
			for _, r := range st.Stages {
				if r.Fam >= 0 && r.Fam < len(seen) && !seen[r.Fam] {
					seen[r.Fam] = true
					order = append(order, r.Fam)
				}
			}
			if st.Op == model.OpTurn {
				walk(p.Workload.Turn, depth+1)
				walk(p.Server, depth+1)
			}
			walk(st.Body, depth)
			walk(st.Else, depth)
		}
	}
	walk(p.Workload.Session, 0)
	if p.Workload.Session == nil {
		walk(p.Server, 0)
	}
	var out []box
	for _, f := range order {
		fam := p.StageFams[f]
		drawnStage[f] = true
		b := box{title: famLabel(fam), nic: -1, kv: -1}
		st := p.Stages[fam.First]
		e := stageElem(p, fam.First, famLabel(fam))
		if e.kind == kStage {
			b.title = "" // the row says it all
		}
		b.elems = append(b.elems, e)
		if st.Kind == model.Step {
			for pf, pfam := range p.PoolFams {
				pl := p.Pools[pfam.First]
				memory := pl.MemoryOf >= fam.First && pl.MemoryOf < fam.First+fam.Count
				admits := pl.AdmitVia >= fam.First && pl.AdmitVia < fam.First+fam.Count
				if !memory && !admits {
					continue
				}
				drawnPool[pf] = true
				e := elem{kind: kPool, head: "pool " + famLabel(pfam), detail: poolDetail(pl), stage: -1, pool: pfam.First}
				switch {
				case memory && admits:
					e.kind = kMemory
					e.head += ", memory of " + fam.Name + ", admitted by " + fam.Name
				case memory:
					e.kind = kMemory
					e.head += ", memory of " + fam.Name
				default:
					e.head += " on " + fam.Name
				}
				b.elems = append(b.elems, e)
			}
		}
		out = append(out, b)
	}
	return out
}

// movedPool is the pool family a transfer moves out of (source) or into
// (reader): the source's leased pool, else the queue's engine memory.
func movedPool(p *model.Program, q *model.Queue, source bool) int {
	if source && q.Leases >= 0 {
		return q.Leases
	}
	for _, f := range q.Pools {
		fam := p.PoolFams[f]
		if fam.Count > 0 && p.Pools[fam.First].MemoryOf >= 0 {
			return f
		}
	}
	if len(q.Pools) > 0 {
		return q.Pools[len(q.Pools)-1]
	}
	return -1
}

func engineDetail(e model.Engine) string {
	if v, ok := e.Budget.IsConst(); ok {
		return "tokens cap " + num(v)
	}
	return "tokens cap (an expression)"
}

func stageDetail(p *model.Program, st model.Stage) string {
	switch st.Kind {
	case model.FIFO:
		if st.Servers == 1 {
			return "fifo, 1 server"
		}
		return "fifo, " + strconv.Itoa(st.Servers) + " servers"
	case model.PS:
		if v, ok := st.Phi.IsConst(); ok {
			return "ps(" + num(v) + ")"
		}
		return "ps"
	case model.Step:
		if st.Engine >= 0 {
			return engineDetail(p.Engines[st.Engine])
		}
	}
	return st.Kind.String()
}

func poolDetail(pl model.Pool) string {
	d := "cap " + num(float64(pl.Cap))
	if pl.Block > 0 {
		d += " · block " + num(float64(pl.Block))
	}
	return d
}

// arrivals describes the workload's arrival process.
func arrivals(w model.Workload) string {
	kind := map[model.ArrivalKind]string{model.ArriveNone: "none", model.ArrivePoisson: "poisson",
		model.ArriveRenewal: "renewal", model.ArriveClosed: "closed", model.ArriveBatch: "batch"}[w.Arrive]
	if w.Trace != "" {
		return "trace " + path.Base(w.Trace)
	}
	if v, ok := w.Arg.IsConst(); ok {
		return kind + "(" + num(v) + ")"
	}
	return kind
}

// num prints a number the way a program would write it.
func num(x float64) string { return model.FormatNum(x) }

func hasRole(q model.Queue, role string) bool {
	for _, r := range q.Roles {
		if r == role {
			return true
		}
	}
	return false
}

func findQueue(p *model.Program, name string) *model.Queue {
	for i := range p.Queues {
		if p.Queues[i].Name == name {
			return &p.Queues[i]
		}
	}
	return nil
}

// indexVar is the member variable of the n-th column: i, j, k, …
func indexVar(n int) string {
	vars := "ijklmn"
	if n < len(vars) {
		return vars[n : n+1]
	}
	return "i" + strconv.Itoa(n)
}

// member is name[idx] for an array, else name.
func member(name, idx string, array bool) string {
	if array {
		return name + "[" + idx + "]"
	}
	return name
}

// famAt is the index of member m of family f, if it has one.
func famAt(fams []model.Family, f, m int) (int, bool) {
	if f < 0 || f >= len(fams) || m >= fams[f].Count {
		return 0, false
	}
	return fams[f].First + m, true
}

// famMember is family f's member idx by name ("P.nic[i]"), or def; array
// is whether the queue the family belongs to is one.
func famMember(fams []model.Family, f int, idx string, array bool, def string) string {
	if f < 0 || f >= len(fams) {
		return def
	}
	return member(fams[f].Name, idx, array)
}

// famLabel is a family as declared: name, or name[N].
func famLabel(f model.Family) string {
	if f.Array {
		return f.Name + "[" + strconv.Itoa(f.Count) + "]"
	}
	return f.Name
}
