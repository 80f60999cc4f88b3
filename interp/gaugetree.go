package interp

import (
	"math"

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
// value session), so the arithmetic is bit for bit the plain evaluation's.

type gaugeTree struct {
	nodes []gaugeNode // children before parents; the root last
	root  int32
	vals  *session // attrs: the nodes' values
}

type gaugeNode struct {
	shadow *model.Expr // inner: the node over its children's values; leaf: the expression
	kids   []int32
	parent int32 // -1 at the root
	pool   int32 // a leaf reading a pool: its index; else -1
	stale  bool
}

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
			t.nodes = append(t.nodes, gaugeNode{shadow: e, parent: -1, pool: pool, stale: true})
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
	t.nodes = append(t.nodes, gaugeNode{shadow: &sh, kids: kids, parent: -1, pool: -1, stale: true})
	return n
}

// gaugePoolChanged marks stale the leaves reading pool p and the nodes
// above them.
func (s *Sim) gaugePoolChanged(p int) {
	for _, l := range s.poolLeaves[p] {
		t := &s.gaugeTrees[l.gauge]
		for n := l.node; n >= 0 && !t.nodes[n].stale; n = t.nodes[n].parent {
			t.nodes[n].stale = true
		}
		s.gaugeFresh.set(int(l.gauge))
	}
}

// readGauge evaluates the stale nodes of a gauge's tree, children first,
// and returns the root's value.
func (s *Sim) readGauge(g int) float64 {
	t := &s.gaugeTrees[g]
	s.refreshNode(t, t.root)
	return t.vals.attrs[t.root]
}

func (s *Sim) refreshNode(t *gaugeTree, n int32) {
	nd := &t.nodes[n]
	if !nd.stale {
		return
	}
	nd.stale = false
	switch {
	case nd.pool >= 0:
		t.vals.attrs[n] = s.poolObservable(&s.pools[nd.pool], nd.shadow.Fn, nil)
	case nd.shadow.Op == model.ENum:
		t.vals.attrs[n] = nd.shadow.Num
	default:
		for _, c := range nd.kids {
			s.refreshNode(t, c)
		}
		v := t.vals.attrs
		if len(nd.kids) == 2 {
			// the commonest nodes, as evalWith computes them
			a, b := v[nd.kids[0]], v[nd.kids[1]]
			switch sh := nd.shadow; {
			case sh.Op == model.EAdd:
				v[n] = a + b
				return
			case sh.Op == model.ESub:
				v[n] = a - b
				return
			case sh.Op == model.EMul:
				v[n] = a * b
				return
			case sh.Op == model.EDiv:
				v[n] = a / b
				return
			case sh.Op == model.EFunc && sh.Fn == model.FMax:
				v[n] = math.Max(a, b)
				return
			case sh.Op == model.EFunc && sh.Fn == model.FMin:
				v[n] = math.Min(a, b)
				return
			}
		}
		v[n] = s.evalWith(nd.shadow, t.vals, s.machineStream)
	}
}
