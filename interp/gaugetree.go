package interp

import (
	"math"
	"math/bits"
	"slices"

	"github.com/serq/serq/model"
)

// A gauge that is a function of some pools' states alone (gaugeOfPools) is
// kept as a tree of its subexpressions' values: when a pool changes, the
// leaves that read it and the nodes above them are stale, and a reading
// evaluates only those, each from its children's values, so
// `max k in ND (used(D[k].kv))` costs the path from the changed member to
// the root and not a scan of the family. A node is evaluated by the same
// evaluator as any expression: its shadow is the node with each argument
// replaced by a read of the child's value (an attribute of the forest's
// own value session), so the arithmetic is bit for bit the plain
// evaluation's; the commonest binary nodes (+, -, *, /, max, min) compute
// the same operation inline. Nodes are numbered children before parents,
// so a reading evaluates the stale nodes in index order, each after its
// children. A changed pool marks only its leaves; a node whose new value
// is its old one bit for bit leaves its parents unmarked (a node is a pure
// function of its children's values), so a change that does not reach the
// root — a member that is not the max, holders unchanged by a growth —
// stops where it vanishes.
//
// All such gauges share one forest, and a subexpression met again — a
// pool's observable, a number, or an inline operation over the same
// children — is the node made the first time, with one more parent: the
// seed's `used(D[k].kv) / (used(D[k].kv) + free(D[k].kv))` reads used
// once, and is one node in both of the gauges that take its max and its
// mean. A node's value depends on nothing but its children's, so a shared
// node reads as its copies would. An instant's end reads the forest
// once (readForest), every stale node of every gauge, and then records
// each gauge whose pools changed.
//
// A sum is a left fold, ((t0 + t1) + t2) + …, and floating-point addition
// is not associative, so it cannot be rebalanced as a max is: a changed
// term k changes the partial sums from k to the end. Its partial sums are
// numbered one after another, after all its terms (a chain), and a reading
// that meets a stale partial sum runs along the chain in one loop, the
// running sum in a register, as far as a partial sum changes or a later
// term did; where a partial sum comes out bit for bit as before and the
// next term is unchanged, the rest of the chain is as it was. A chain's
// partial sums are its own: none is shared.

type gaugeForest struct {
	nodes   []gaugeNode   // children before parents
	shadows []*model.Expr // by node: inner, the node over its children's values; a leaf or a constant, its expression
	more    [][]int32     // a shared node's parents after its first (gaugeNode.more)
	stale   bitset        // the nodes to evaluate at the next reading
	roots   []int32       // by gauge: its root (-1: not a gaugeOfPools gauge)
	vals    *session      // attrs: the nodes' values
}

// gaugeNode is a node's shape, 24 bytes: a reading walks the nodes, and
// at 32 instances the seed's gauges are a few hundred of them.
type gaugeNode struct {
	op     gaugeOp
	parent int32 // its first parent, -1 at a root
	more   int32 // its other parents: gaugeForest.more[more], -1 if none
	a, b   int32 // a binary node's children; a leaf: its pool and its observable (model.Func)
	end    int32 // a chain's partial sum: the chain's last node
}

// gaugeShape is what makes two nodes one: the operation, its children or
// leaf, and a number's bits.
type gaugeShape struct {
	op   gaugeOp
	a, b int32
	num  uint64
}

// gaugeOp is how a node is evaluated.
type gaugeOp uint8

const (
	gaugeEval gaugeOp = iota // evalWith of the shadow
	gaugeLeaf                // a pool's observable
	gaugeNum                 // a constant
	gaugeAdd
	gaugeSub
	gaugeMul
	gaugeDiv
	gaugeMax
	gaugeMin
	gaugeChain // a partial sum of a chain: a + b, the next partial sum at index+1 up to end
)

// gaugeBuild is the state of building the forest: the nodes made by shape.
type gaugeBuild struct {
	shapes map[gaugeShape]int32
}

// buildGauge adds gauge g, a gaugeOfPools expression, to the forest.
func (s *Sim) buildGauge(b *gaugeBuild, g int, e *model.Expr) {
	f := &s.gaugeForest
	pools := map[int32]bool{} // the pools g reads
	var add func(e *model.Expr) int32
	add = func(e *model.Expr) int32 {
		if e.Op == model.EPool || e.Op == model.ENum {
			sh := gaugeShape{op: gaugeNum, a: -1, b: -1, num: math.Float64bits(e.Num)}
			if e.Op == model.EPool {
				fam := &s.p.PoolFams[e.Ref.Fam]
				pool := int32(fam.First)
				if e.Ref.Index != nil {
					pool += int32(e.Ref.Index.Num)
				}
				sh = gaugeShape{op: gaugeLeaf, a: pool, b: int32(e.Fn)}
				pools[pool] = true
			}
			if n, ok := b.shapes[sh]; ok {
				return n
			}
			n := int32(len(f.nodes))
			if sh.op == gaugeLeaf {
				s.poolLeaves[sh.a] = append(s.poolLeaves[sh.a], n)
			}
			f.nodes = append(f.nodes, gaugeNode{op: sh.op, parent: -1, more: -1, a: sh.a, b: sh.b})
			f.shadows = append(f.shadows, e)
			b.shapes[sh] = n
			return n
		}
		if terms := sumTerms(e); len(terms) > 2 {
			return s.gaugeChain(b, terms, add)
		}
		if e.Op == model.EFunc && (e.Fn == model.FMax || e.Fn == model.FMin) {
			// a nest of max (or min) is one max of its operands, kept
			// as a balanced tree
			var ops []*model.Expr
			var flat func(x *model.Expr)
			flat = func(x *model.Expr) {
				if x.Op == model.EFunc && x.Fn == e.Fn {
					for _, a := range x.Args {
						flat(a)
					}
					return
				}
				ops = append(ops, x)
			}
			flat(e)
			var balanced func(ops []*model.Expr) int32
			balanced = func(ops []*model.Expr) int32 {
				if len(ops) == 1 {
					return add(ops[0])
				}
				h := len(ops) / 2
				return s.gaugeInner(b, e, []int32{balanced(ops[:h]), balanced(ops[h:])}, true)
			}
			return balanced(ops)
		}
		kids := make([]int32, len(e.Args))
		for k, a := range e.Args {
			kids[k] = add(a)
		}
		return s.gaugeInner(b, e, kids, true)
	}
	f.roots[g] = add(e)
	for p := range pools { // the gauges are built in order: each pool's list ascends
		s.poolGauges[p] = append(s.poolGauges[p], int32(g))
	}
}

// endGauges sizes the forest's values and marks every node stale: every
// gauge is read at the first instant's end.
func (s *Sim) endGauges() {
	f := &s.gaugeForest
	f.vals = &session{attrs: make([]float64, len(f.nodes))}
	f.stale = newBitset(len(f.nodes))
	f.stale.fill(len(f.nodes))
}

// sumTerms lists the terms of a left-deep chain of additions, t0 + t1 +
// … + tn as the parser builds it (((t0 + t1) + t2) + …): nil when e is
// no addition.
func sumTerms(e *model.Expr) []*model.Expr {
	if e.Op != model.EAdd || len(e.Args) != 2 {
		return nil
	}
	var terms []*model.Expr
	for e.Op == model.EAdd && len(e.Args) == 2 {
		terms = append(terms, e.Args[1])
		e = e.Args[0]
	}
	terms = append(terms, e)
	slices.Reverse(terms)
	return terms
}

// gaugeChain adds the sum of terms as a chain: the terms' subtrees first,
// then the partial sums one after another, each the previous one plus the
// next term (the first: the first two terms). The last partial sum is the
// sum's node.
func (s *Sim) gaugeChain(b *gaugeBuild, terms []*model.Expr, add func(*model.Expr) int32) int32 {
	f := &s.gaugeForest
	kids := make([]int32, len(terms))
	for k, x := range terms {
		kids[k] = add(x)
	}
	first := int32(len(f.nodes))
	end := first + int32(len(terms)) - 2
	prev := kids[0]
	for k := 1; k < len(terms); k++ {
		n := s.gaugeInner(b, &model.Expr{Op: model.EAdd}, []int32{prev, kids[k]}, false)
		f.nodes[n].op, f.nodes[n].end = gaugeChain, end
		prev = n
	}
	return prev
}

// gaugeInner is the node of e over the children kids: when share is set
// and it is an inline operation, the one made before over the same
// children if there is one.
func (s *Sim) gaugeInner(b *gaugeBuild, e *model.Expr, kids []int32, share bool) int32 {
	f := &s.gaugeForest
	nd := gaugeNode{op: gaugeEval, parent: -1, more: -1}
	if len(kids) == 2 {
		nd.a, nd.b = kids[0], kids[1]
		switch {
		case e.Op == model.EAdd:
			nd.op = gaugeAdd
		case e.Op == model.ESub:
			nd.op = gaugeSub
		case e.Op == model.EMul:
			nd.op = gaugeMul
		case e.Op == model.EDiv:
			nd.op = gaugeDiv
		case e.Op == model.EFunc && e.Fn == model.FMax:
			nd.op = gaugeMax
		case e.Op == model.EFunc && e.Fn == model.FMin:
			nd.op = gaugeMin
		}
	}
	sh := gaugeShape{op: nd.op, a: nd.a, b: nd.b}
	share = share && nd.op != gaugeEval
	if share {
		if n, ok := b.shapes[sh]; ok {
			return n
		}
	}
	n := int32(len(f.nodes))
	sha := *e
	sha.Args = make([]*model.Expr, len(kids))
	for k, c := range kids {
		s.gaugeParent(c, n)
		sha.Args[k] = &model.Expr{Op: model.EAttr, Slot: int(c)}
	}
	f.nodes = append(f.nodes, nd)
	f.shadows = append(f.shadows, &sha)
	if share {
		b.shapes[sh] = n
	}
	return n
}

// gaugeParent makes p a parent of node c (once).
func (s *Sim) gaugeParent(c, p int32) {
	f := &s.gaugeForest
	nd := &f.nodes[c]
	switch {
	case nd.parent < 0:
		nd.parent = p
	case nd.parent == p:
	case nd.more < 0:
		nd.more = int32(len(f.more))
		f.more = append(f.more, []int32{p})
	case !slices.Contains(f.more[nd.more], p):
		f.more[nd.more] = append(f.more[nd.more], p)
	}
}

// markParents marks the parents of node nd stale.
func (f *gaugeForest) markParents(nd *gaugeNode) {
	if nd.parent >= 0 {
		f.stale.set(int(nd.parent))
		if nd.more >= 0 {
			for _, p := range f.more[nd.more] {
				f.stale.set(int(p))
			}
		}
	}
}

// gaugePoolChanged marks stale the leaves reading pool p, and its gauges
// to be read.
func (s *Sim) gaugePoolChanged(p int) {
	f := &s.gaugeForest
	for _, n := range s.poolLeaves[p] {
		f.stale.set(int(n))
	}
	for _, g := range s.poolGauges[p] {
		s.gaugeFresh.set(int(g))
	}
}

// value is gauge g's value as the forest holds it (readForest brings it
// up to date).
func (f *gaugeForest) value(g int) float64 { return f.vals.attrs[f.roots[g]] }

// readForest evaluates the stale nodes in index order (children first),
// marking a node's parents when its value changed.
func (s *Sim) readForest() {
	f := &s.gaugeForest
	v := f.vals.attrs
	// word by word, lowest bit first: a parent's index is above its
	// children's, so a parent marked on the way is taken later in the pass
	for w := range f.stale {
		for f.stale[w] != 0 {
			b := f.stale[w]
			f.stale[w] = b & (b - 1)
			i := w<<6 | bits.TrailingZeros64(b)
			nd := &f.nodes[i]
			var x float64
			switch nd.op {
			case gaugeLeaf:
				x = s.poolObservable(&s.pools[nd.a], model.Func(nd.b), nil)
			case gaugeNum:
				x = f.shadows[i].Num
			case gaugeAdd:
				x = v[nd.a] + v[nd.b]
			case gaugeSub:
				x = v[nd.a] - v[nd.b]
			case gaugeMul:
				x = v[nd.a] * v[nd.b]
			case gaugeDiv:
				x = v[nd.a] / v[nd.b]
			case gaugeMax:
				x = math.Max(v[nd.a], v[nd.b])
			case gaugeMin:
				x = math.Min(v[nd.a], v[nd.b])
			case gaugeChain:
				s.readChain(i)
				continue
			default:
				x = s.evalWith(f.shadows[i], f.vals, s.machineStream)
			}
			if math.Float64bits(x) != math.Float64bits(v[i]) {
				v[i] = x
				f.markParents(nd)
			}
		}
	}
}

// readChain evaluates the stale partial sum i of a chain and the ones
// after it as far as a value changed or a term did (the term's node
// marked its partial sum stale), clearing their marks, and marks the
// chain's parents when the last partial sum changed.
func (s *Sim) readChain(i int) {
	f := &s.gaugeForest
	v := f.vals.attrs
	nodes := f.nodes
	end := int(nodes[i].end)
	acc := v[nodes[i].a]
	j := i
	for {
		x := acc + v[nodes[j].b]
		same := math.Float64bits(x) == math.Float64bits(v[j])
		v[j] = x
		acc = x
		if j == end {
			if !same {
				f.markParents(&nodes[j])
			}
			break
		}
		if same && !f.stale.has(j+1) {
			break
		}
		j++
	}
	f.stale.clearRange(i+1, j+1)
}

// gaugeTrees are the gauges' fast path (embedded in Sim): what each gauge reads, so
// when it must be read again, and the forest of the gaugeOfPools gauges.
type gaugeTrees struct {
	gaugeVer    uint64      // poolVer at the last gauge reading
	gaugeKind   []gaugeKind // by gauge: what it reads, so when it must be read again (initGauges)
	gaugeForest gaugeForest // the gaugeOfPools gauges' values
	poolLeaves  [][]int32   // for each pool, the forest's leaves that read it
	poolGauges  [][]int32   // for each pool, the gaugeOfPools gauges that read it
	gaugeFresh  bitset      // gaugeOfPools gauges to read at this instant's end
	gaugeEvery  bool        // some gauge is read at every instant's end (gaugeAlways)
}
