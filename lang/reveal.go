package lang

import (
	"fmt"
	"sort"

	"github.com/serq/serq/model"
)

// A hidden attribute (`hidden o;`) is the client's: the scheduler does not
// know it. The server may compute with it, but may decide on it — a
// branch or while guard, a choose, a grow or load amount, an index — only
// once a run whose work reads it has ended: the run's length revealed it
// (docs/semantics.md, "Hidden attributes"). checkRevealed follows each path of the server
// part of a turn, entries inlined:
//
//   - taint[a] is the set of hidden attributes a derives from: a hidden
//     attribute taints itself, and a `set` in the server taints its target
//     with what its value reads (a set from clean values cleans it);
//   - a run reveals what its work reads;
//   - after a branch, an attribute is revealed only if both arms revealed
//     it; a loop body may not run, so it reveals nothing after the loop.
//
// Sets on the client side (the session block) are not followed: a value
// the session carries into the next turn comes from a turn whose runs
// have ended.
func (l *lowerer) checkRevealed(server *model.Block) {
	hidden := map[int]bool{}
	for i, a := range l.prog.Attrs {
		if a.Hidden {
			hidden[i] = true
		}
	}
	if len(hidden) == 0 || server == nil {
		return
	}
	st := revealState{taint: map[int]map[int]bool{}, revealed: map[int]bool{}}
	for h := range hidden {
		st.taint[h] = map[int]bool{h: true}
	}
	l.revealBlock(server, &st)
}

type revealState struct {
	taint    map[int]map[int]bool // attribute -> hidden roots
	revealed map[int]bool         // attributes (or roots) a finished run read
}

func (s *revealState) clone() revealState {
	c := revealState{taint: map[int]map[int]bool{}, revealed: map[int]bool{}}
	for a, roots := range s.taint {
		r := map[int]bool{}
		for k := range roots {
			r[k] = true
		}
		c.taint[a] = r
	}
	for a := range s.revealed {
		c.revealed[a] = true
	}
	return c
}

// reads collects the attributes an expression reads.
func reads(e *model.Expr, into map[int]bool) {
	e.Walk(func(x *model.Expr) bool {
		if x.Op == model.EAttr {
			into[x.Slot] = true
		}
		return true
	})
}

// unrevealed lists the hidden roots an expression depends on that no run
// has revealed.
func (s *revealState) unrevealed(e *model.Expr) []int {
	attrs := map[int]bool{}
	reads(e, attrs)
	var out []int
	for a := range attrs {
		if s.revealed[a] {
			continue
		}
		for root := range s.taint[a] {
			if !s.revealed[root] {
				out = append(out, root)
			}
		}
	}
	sort.Ints(out)
	return out
}

func (l *lowerer) decide(e *model.Expr, pos model.Pos, what string, s *revealState) {
	if e == nil {
		return
	}
	if roots := s.unrevealed(e); len(roots) > 0 {
		name := l.prog.Attrs[roots[0]].Name
		l.errs = append(l.errs, &Error{Pos: pos,
			Msg:  fmt.Sprintf("%s depends on `%s`, which is hidden, before a run reveals it", what, name),
			Hint: fmt.Sprintf("the scheduler does not know `%s`: decide on it only after a run whose work reads it has ended", name)})
	}
}

func (l *lowerer) decideRef(r *model.Ref, pos model.Pos, s *revealState) {
	if r != nil {
		l.decide(r.Index, pos, "an index", s)
	}
}

// revealBlock follows the server's statements in b, updating s: which
// attributes hidden ones taint and which a run has revealed; every
// decision on a tainted attribute that no run has revealed is an error.
func (l *lowerer) revealBlock(b *model.Block, s *revealState) {
	if b == nil {
		return
	}
	for _, st := range b.Stmts {
		switch st.Op {
		case model.OpSet:
			l.revealSet(st, s)
		case model.OpRun:
			l.revealRun(st, s)
		case model.OpBranch:
			l.revealBranch(st, s)
		case model.OpWhile, model.OpLoop:
			l.revealLoop(st, s)
		case model.OpChoose:
			l.decide(st.N, st.Pos, "a choose", s)
			for _, k := range st.Keys {
				l.decide(k, st.Pos, "a choose key", s)
			}
			delete(s.revealed, st.Slot)
			delete(s.taint, st.Slot)
		case model.OpGrow, model.OpLoad:
			l.decide(st.Value, st.Pos, "the amount of `"+st.Op.String()+"`", s)
			l.decideRef(st.Pool, st.Pos, s)
		case model.OpRelease, model.OpDrop:
			l.decideRef(st.Pool, st.Pos, s)
		case model.OpHold:
			for i := range st.Holds {
				l.decideRef(&st.Holds[i].Pool, st.Pos, s)
				l.decideHeader(st.Holds[i].Units, st.Pos, s)
				l.decideHeader(st.Holds[i].Reserve, st.Pos, s)
			}
			l.decideHeader(st.Reuse, st.Pos, s)
			l.revealBlock(st.Body, s)
		case model.OpFork:
			leg := s.clone()
			l.revealBlock(st.Body, &leg)
		}
	}
}

// revealSet follows a `set`: the attribute is tainted by the hidden
// attributes its value reads that no run has revealed yet, and is itself
// no longer revealed.
func (l *lowerer) revealSet(st *model.Stmt, s *revealState) {
	attrs := map[int]bool{}
	reads(st.Value, attrs)
	roots := map[int]bool{}
	for a := range attrs {
		if s.revealed[a] {
			continue
		}
		for r := range s.taint[a] {
			roots[r] = true
		}
	}
	if len(roots) > 0 {
		s.taint[st.Slot] = roots
	} else if !l.prog.Attrs[st.Slot].Hidden {
		delete(s.taint, st.Slot)
	}
	delete(s.revealed, st.Slot)
}

// revealRun follows a `run`: the attributes its work reads, and the
// hidden ones they were set from, are revealed once it has ended.
func (l *lowerer) revealRun(st *model.Stmt, s *revealState) {
	for i := range st.Stages {
		l.decideRef(&st.Stages[i], st.Pos, s)
	}
	attrs := map[int]bool{}
	reads(st.Value, attrs)
	for a := range attrs {
		s.revealed[a] = true
		for r := range s.taint[a] {
			s.revealed[r] = true
		}
	}
}

// revealBranch follows a `branch`: its guard is a decision; after it an
// attribute is tainted if either arm taints it, revealed if both reveal
// it.
func (l *lowerer) revealBranch(st *model.Stmt, s *revealState) {
	if !(st.Value.Op == model.EDraw) {
		l.decide(st.Value, st.Pos, "a branch guard", s)
	}
	then := s.clone()
	l.revealBlock(st.Body, &then)
	other := s.clone()
	l.revealBlock(st.Else, &other)
	merged := revealState{taint: then.taint, revealed: map[int]bool{}}
	for a, roots := range other.taint {
		if merged.taint[a] == nil {
			merged.taint[a] = map[int]bool{}
		}
		for r := range roots {
			merged.taint[a][r] = true
		}
	}
	for a := range then.revealed {
		if other.revealed[a] {
			merged.revealed[a] = true
		}
	}
	*s = merged
}

// revealLoop follows a `while` or `loop` to a fixed point of its taint.
func (l *lowerer) revealLoop(st *model.Stmt, s *revealState) {
	// A set late in the body reaches its start the next time
	// round: the passes go on until no taint grows (each adds an
	// origin, so there are at most as many as attributes).
	for pass := 0; pass <= len(l.prog.Attrs); pass++ {
		if st.Op == model.OpWhile {
			l.decide(st.Value, st.Pos, "a while guard", s)
		}
		body := s.clone()
		l.revealBlock(st.Body, &body)
		grew := false
		for a, roots := range body.taint {
			if s.taint[a] == nil {
				s.taint[a] = map[int]bool{}
			}
			for r := range roots {
				if !s.taint[a][r] {
					s.taint[a][r] = true
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
}

// decideHeader refuses a hold header that reads an attribute the server
// set from a hidden one no run has revealed: the admission is the
// scheduler's. A hidden attribute read directly is refused where it is
// lowered.
func (l *lowerer) decideHeader(e *model.Expr, pos model.Pos, s *revealState) {
	if e == nil {
		return
	}
	attrs := map[int]bool{}
	reads(e, attrs)
	names := make([]int, 0, len(attrs))
	for a := range attrs {
		names = append(names, a)
	}
	sort.Ints(names)
	for _, a := range names {
		if l.prog.Attrs[a].Hidden || s.revealed[a] {
			continue
		}
		for _, root := range sortedRoots(s.taint[a]) {
			if !s.revealed[root] {
				l.errs = append(l.errs, &Error{Pos: pos,
					Msg: fmt.Sprintf("`%s` is set from the hidden `%s` in the server, but a hold's header reads it before a run reveals it",
						l.prog.Attrs[a].Name, l.prog.Attrs[root].Name),
					Hint: "the admission is the scheduler's: read it in the body, or after a run whose work reads it"})
				return
			}
		}
	}
}

func sortedRoots(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}
