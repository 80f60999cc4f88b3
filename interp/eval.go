package interp

import (
	"math"

	"github.com/serq/serq/model"
)

// eval evaluates e for session ss (nil outside a session), drawing from the
// session's own stream.
func (s *Sim) eval(e *model.Expr, ss *session) float64 {
	var st *stream
	if ss != nil {
		st = ss.stream
	} else {
		st = s.machineStream
	}
	return s.evalWith(e, ss, st)
}

// evalWith evaluates e, drawing from st.
func (s *Sim) evalWith(e *model.Expr, ss *session, st *stream) float64 {
	switch e.Op {
	case model.ENum:
		return e.Num
	case model.EAttr:
		return ss.attrs[e.Slot]
	case model.ECtx:
		if model.Ctx(e.Slot) == model.CtxNow {
			return s.now
		}
		return s.ctx[e.Slot]
	case model.EReg:
		if e.Ref != nil { // a gauge names the engine
			i, ok := s.member(e.Ref, ss, true)
			if !ok || s.stages[i].eng == nil {
				return 0
			}
			return s.stages[i].eng.regs[e.Slot]
		}
		return s.curEng.regs[e.Slot]
	case model.ENeg:
		return -s.evalWith(e.Args[0], ss, st)
	case model.ENot:
		if s.evalWith(e.Args[0], ss, st) == 0 {
			return 1
		}
		return 0
	case model.EAdd:
		return s.evalWith(e.Args[0], ss, st) + s.evalWith(e.Args[1], ss, st)
	case model.ESub:
		return s.evalWith(e.Args[0], ss, st) - s.evalWith(e.Args[1], ss, st)
	case model.EMul:
		return s.evalWith(e.Args[0], ss, st) * s.evalWith(e.Args[1], ss, st)
	case model.EDiv:
		return s.evalWith(e.Args[0], ss, st) / s.evalWith(e.Args[1], ss, st)
	case model.EPow:
		return math.Pow(s.evalWith(e.Args[0], ss, st), s.evalWith(e.Args[1], ss, st))
	case model.ELt, model.ELe, model.EGt, model.EGe, model.EEq, model.ENe:
		a, b := s.evalWith(e.Args[0], ss, st), s.evalWith(e.Args[1], ss, st)
		var r bool
		switch e.Op {
		case model.ELt:
			r = a < b
		case model.ELe:
			r = a <= b
		case model.EGt:
			r = a > b
		case model.EGe:
			r = a >= b
		case model.EEq:
			r = a == b
		default:
			r = a != b
		}
		if r {
			return 1
		}
		return 0
	case model.EAnd:
		if s.evalWith(e.Args[0], ss, st) == 0 || s.evalWith(e.Args[1], ss, st) == 0 {
			return 0
		}
		return 1
	case model.EOr:
		if s.evalWith(e.Args[0], ss, st) != 0 || s.evalWith(e.Args[1], ss, st) != 0 {
			return 1
		}
		return 0
	case model.ECond:
		if s.evalWith(e.Args[0], ss, st) != 0 {
			return s.evalWith(e.Args[1], ss, st)
		}
		return s.evalWith(e.Args[2], ss, st)
	case model.EFunc:
		// A pure function's one semantics, model.Predeclared's Eval (the
		// folder's too); the second argument is evaluated only if it has one.
		a, b := s.evalWith(e.Args[0], ss, st), 0.0
		if len(e.Args) > 1 {
			b = s.evalWith(e.Args[1], ss, st)
		}
		return e.Fn.Info().Eval(a, b)
	case model.EDraw:
		var args [2]float64
		for i, x := range e.Args {
			args[i] = s.evalWith(x, ss, st)
		}
		return draw(e.Fn, args[:len(e.Args)], st)
	case model.EStage:
		i, ok := s.member(e.Ref, ss, true)
		if !ok {
			return 0
		}
		return s.stageObservable(&s.stages[i], e.Fn)
	case model.EPool:
		i, ok := s.member(e.Ref, ss, false)
		if !ok {
			return 0
		}
		return s.poolObservable(&s.pools[i], e.Fn, ss)
	case model.EObsAgg:
		return s.obsAggregate(e.Fn, e.Slot)
	case model.EBudget:
		i, ok := s.member(e.Ref, ss, true)
		if !ok {
			return 0
		}
		return s.budgetLeft(&s.stages[i])
	case model.EUp:
		return s.upValue(e, ss)
	case model.ESeen:
		return s.seen(e, ss)
	}
	panic("interp: cannot evaluate " + e.Op.String())
}

// inFamily reports whether x names a member of f: a whole number below
// its count, from 0 (a NaN names none).
func inFamily(x float64, f *model.Family) bool {
	return x >= 0 && x < float64(f.Count) && x == math.Floor(x)
}

// constMember reports whether the index i is a number naming a member of f.
func constMember(i *model.Expr, f *model.Family) bool {
	return i.Op == model.ENum && inFamily(i.Num, f)
}

// member resolves a reference to a stage (or pool) index.
func (s *Sim) member(r *model.Ref, ss *session, isStage bool) (int, bool) {
	var f *model.Family
	if isStage {
		f = &s.p.StageFams[r.Fam]
	} else {
		f = &s.p.PoolFams[r.Fam]
	}
	if r.Index == nil {
		return f.First, true
	}
	if constMember(r.Index, f) {
		return f.First + int(r.Index.Num), true
	}
	x := s.eval(r.Index, ss)
	if !inFamily(x, f) {
		s.fail(ss, model.Pos{}, "index %s of `%s` is out of range: it has %d member(s)", fmtNum(x), f.Name, f.Count)
		return f.First, false
	}
	return f.First + int(x), true
}
