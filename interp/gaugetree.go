package interp

import (
	"math"
	"math/bits"

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

type gaugeTree struct {
	nodes []gaugeNode // children before parents; the root last
	stale bitset      // the nodes to evaluate at the next reading
	root  int32
	vals  *session // attrs: the nodes' values
}

type gaugeNode struct {
	op     gaugeOp
	pool   int32       // a leaf reading a pool: its index; else -1
	parent int32       // -1 at the root
	a, b   int32       // a binary node's children
	shadow *model.Expr // inner: the node over its children's values; leaf: the expression
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
			t.nodes = append(t.nodes, gaugeNode{op: op, shadow: e, parent: -1, pool: pool})
			return n
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

// gaugeInner adds the node of e over the children kids.
func (s *Sim) gaugeInner(t *gaugeTree, e *model.Expr, kids []int32) int32 {
	sh := *e
	sh.Args = make([]*model.Expr, len(kids))
	n := int32(len(t.nodes))
	for k, c := range kids {
		t.nodes[c].parent = n
		sh.Args[k] = &model.Expr{Op: model.EAttr, Slot: int(c)}
	}
	nd := gaugeNode{op: gaugeEval, shadow: &sh, parent: -1, pool: -1}
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
				x = s.poolObservable(&s.pools[nd.pool], nd.shadow.Fn, nil)
			case gaugeNum:
				x = nd.shadow.Num
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
			default:
				x = s.evalWith(nd.shadow, t.vals, s.machineStream)
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
