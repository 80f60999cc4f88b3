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
// replaced by a read of the child's value (an attribute of the tree's own
// value session), so the arithmetic is bit for bit the plain evaluation's;
// the commonest binary nodes (+, -, *, /, max, min) compute the same
// operation inline. Nodes are numbered children before parents, so a
// reading evaluates the stale nodes in index order, each after its
// children. A changed pool marks only its leaves; a node whose new value
// is its old one bit for bit leaves its parent unmarked (a node is a pure
// function of its children's values), so a change that does not reach the
// root — a member that is not the max, holders unchanged by a growth —
// stops where it vanishes.
//
// A sum is a left fold, ((t0 + t1) + t2) + …, and floating-point addition
// is not associative, so it cannot be rebalanced as a max is: a changed
// term k changes the partial sums from k to the end. Its partial sums are
// numbered one after another, after all its terms (a chain), and a reading
// that meets a stale partial sum runs along the chain in one loop, the
// running sum in a register, as far as a partial sum changes or a later
// term did; where a partial sum comes out bit for bit as before and the
// next term is unchanged, the rest of the chain is as it was.

type gaugeTree struct {
	nodes   []gaugeNode   // children before parents; the root last
	shadows []*model.Expr // by node: inner, the node over its children's values; a leaf or a constant, its expression
	stale   bitset        // the nodes to evaluate at the next reading
	root    int32
	vals    *session // attrs: the nodes' values
}

// gaugeNode is a node's shape, 20 bytes: a reading walks the nodes, and
// at 32 instances a gauge's tree is a few hundred of them.
type gaugeNode struct {
	op     gaugeOp
	parent int32 // -1 at the root
	a, b   int32 // a binary node's children; a leaf: its pool and its observable (model.Func)
	end    int32 // a chain's partial sum: the chain's last node
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

// leafRef is a leaf of a gauge's tree.
type leafRef struct{ gauge, node int32 }

// buildGaugeTree flattens a gaugeOfPools expression.
func (s *Sim) buildGaugeTree(g int, e *model.Expr) {
	t := &s.gaugeTrees[g]
	var add func(e *model.Expr) int32
	add = func(e *model.Expr) int32 {
		if e.Op == model.EPool || e.Op == model.ENum {
			n := int32(len(t.nodes))
			pool := int32(-1)
			if e.Op == model.EPool {
				f := &s.p.PoolFams[e.Ref.Fam]
				pool = int32(f.First)
				if e.Ref.Index != nil {
					pool += int32(e.Ref.Index.Num)
				}
				s.poolLeaves[pool] = append(s.poolLeaves[pool], leafRef{int32(g), n})
			}
			op := gaugeNum
			if pool >= 0 {
				op = gaugeLeaf
			}
			nd := gaugeNode{op: op, parent: -1}
			if pool >= 0 {
				nd.a, nd.b = pool, int32(e.Fn)
			}
			t.nodes = append(t.nodes, nd)
			t.shadows = append(t.shadows, e)
			return n
		}
		if terms := sumTerms(e); len(terms) > 2 {
			return s.gaugeChain(t, terms, add)
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
				return s.gaugeInner(t, e, []int32{balanced(ops[:h]), balanced(ops[h:])})
			}
			return balanced(ops)
		}
		kids := make([]int32, len(e.Args))
		for k, a := range e.Args {
			kids[k] = add(a)
		}
		return s.gaugeInner(t, e, kids)
	}
	add(e)
	t.vals = &session{attrs: make([]float64, len(t.nodes))}
	t.root = int32(len(t.nodes) - 1)
	t.stale = newBitset(len(t.nodes))
	t.stale.fill(len(t.nodes))
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
func (s *Sim) gaugeChain(t *gaugeTree, terms []*model.Expr, add func(*model.Expr) int32) int32 {
	kids := make([]int32, len(terms))
	for k, x := range terms {
		kids[k] = add(x)
	}
	first := int32(len(t.nodes))
	end := first + int32(len(terms)) - 2
	prev := kids[0]
	for k := 1; k < len(terms); k++ {
		n := s.gaugeInner(t, &model.Expr{Op: model.EAdd}, []int32{prev, kids[k]})
		t.nodes[n].op, t.nodes[n].end = gaugeChain, end
		prev = n
	}
	return prev
}

// gaugeInner adds the node of e over the children kids.
func (s *Sim) gaugeInner(t *gaugeTree, e *model.Expr, kids []int32) int32 {
	sh := *e
	sh.Args = make([]*model.Expr, len(kids))
	n := int32(len(t.nodes))
	for k, c := range kids {
		t.nodes[c].parent = n
		sh.Args[k] = &model.Expr{Op: model.EAttr, Slot: int(c)}
	}
	nd := gaugeNode{op: gaugeEval, parent: -1}
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
	t.nodes = append(t.nodes, nd)
	t.shadows = append(t.shadows, &sh)
	return n
}

// gaugePoolChanged marks stale the leaves reading pool p.
func (s *Sim) gaugePoolChanged(p int) {
	for _, l := range s.poolLeaves[p] {
		s.gaugeTrees[l.gauge].stale.set(int(l.node))
		s.gaugeFresh.set(int(l.gauge))
	}
}

// readGauge evaluates the stale nodes of a gauge's tree in index order
// (children first), marking a node's parent when its value changed, and
// returns the root's value. Every node is stale at the first reading.
func (s *Sim) readGauge(g int) float64 {
	t := &s.gaugeTrees[g]
	v := t.vals.attrs
	// word by word, lowest bit first: a parent's index is above its
	// children's, so a parent marked on the way is taken later in the pass
	for w := range t.stale {
		for t.stale[w] != 0 {
			b := t.stale[w]
			t.stale[w] = b & (b - 1)
			i := w<<6 | bits.TrailingZeros64(b)
			nd := &t.nodes[i]
			var x float64
			switch nd.op {
			case gaugeLeaf:
				x = s.poolObservable(&s.pools[nd.a], model.Func(nd.b), nil)
			case gaugeNum:
				x = t.shadows[i].Num
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
				s.readChain(t, i)
				continue
			default:
				x = s.evalWith(t.shadows[i], t.vals, s.machineStream)
			}
			if math.Float64bits(x) != math.Float64bits(v[i]) {
				v[i] = x
				if nd.parent >= 0 {
					t.stale.set(int(nd.parent))
				}
			}
		}
	}
	return v[t.root]
}

// readChain evaluates the stale partial sum i of a chain and the ones
// after it as far as a value changed or a term did (the term's node
// marked its partial sum stale), clearing their marks, and marks the
// chain's parent when the last partial sum changed.
func (s *Sim) readChain(t *gaugeTree, i int) {
	v := t.vals.attrs
	nodes := t.nodes
	end := int(nodes[i].end)
	acc := v[nodes[i].a]
	j := i
	for {
		x := acc + v[nodes[j].b]
		same := math.Float64bits(x) == math.Float64bits(v[j])
		v[j] = x
		acc = x
		if j == end {
			if !same && nodes[j].parent >= 0 {
				t.stale.set(int(nodes[j].parent))
			}
			break
		}
		if same && !t.stale.has(j+1) {
			break
		}
		j++
	}
	t.stale.clearRange(i+1, j+1)
}
