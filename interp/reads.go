package interp

import "github.com/serq/serq/model"

// readsCache holds what each expression of the program reads
// (model.Reads), summarised once: every fast path asks it, and so does a
// hold's rejection at joining. It is filled while New builds the Sim and
// read only after (checkpoints share it, as they share the program).
type readsCache struct {
	m      map[*model.Expr]*model.Reads
	frozen bool
}

// readsOf is what e reads (nil reads nothing).
func (s *Sim) readsOf(e *model.Expr) *model.Reads {
	c := s.reads
	if r, ok := c.m[e]; ok {
		return r
	}
	r := model.ReadsOf(e)
	if !c.frozen {
		c.m[e] = r
	}
	return r
}

// initReads summarises the expressions the run asks of after New: at
// every hold's join (its pools' units and reserves), at a choose's first
// run (its count and keys) and at the first instant's end (the gauges).
// New summarises the others as it asks.
func (s *Sim) initReads() {
	s.reads = &readsCache{m: map[*model.Expr]*model.Reads{}}
	s.p.Walk(func(st *model.Stmt) {
		for i := range st.Holds {
			s.readsOf(st.Holds[i].Units)
			s.readsOf(st.Holds[i].Reserve)
		}
		if st.Op == model.OpChoose {
			s.readsOf(st.N)
			for _, k := range st.Keys {
				s.readsOf(k)
			}
		}
	})
	for i := range s.p.Gauges {
		s.readsOf(s.p.Gauges[i].Expr)
	}
}

// pureDemand reports an amount that reads only attributes, numbers, pure
// functions and draws: no deployment's state, context or register.
func pureDemand(r *model.Reads) bool {
	return !r.Any(model.OpBits(model.EPool, model.EStage, model.EBudget, model.ECtx, model.EReg))
}

// pureOfPools reports whether an expression reads nothing but numbers,
// the attribute slot (-1: none), operators and pure functions and what
// reads allows: pools' used, free, holders and queued are their states
// alone (cachedin reads the session, leases and oldest_lease the clock); a
// choose's index reads cachedin with the picking session, and a stage's
// queue, busy and work (chooseIndexable admits a stage only if it is an
// engine's: another stage's work reads the clock). A member is named by an
// expression that reads nothing but numbers, operators, pure functions
// and the slot.
func pureOfPools(r *model.Reads, slot int, reads pureReads) bool {
	ops := model.PureOps
	if slot >= 0 {
		ops |= model.OpBits(model.EAttr)
	}
	if r.IndexOps&^ops != 0 {
		return false
	}
	poolFns := model.FuncBits(model.PUsed, model.PFree, model.PHolders, model.PQueued)
	stageFns := model.FuncBits(model.SQueue, model.SBusy, model.SWork)
	switch reads {
	case readsRouter:
		ops |= model.OpBits(model.EPool, model.EStage)
		poolFns |= model.FuncBits(model.PCachedIn)
	case readsPools:
		ops |= model.OpBits(model.EPool)
	}
	if !r.Only(ops) {
		return false
	}
	for _, a := range r.Attrs {
		if a != slot {
			return false
		}
	}
	for _, m := range r.Members {
		switch {
		case m.Op == model.EPool && model.FuncBits(m.Fn)&poolFns == 0:
			return false
		case m.Op == model.EStage && model.FuncBits(m.Fn)&stageFns == 0:
			return false
		}
	}
	return true
}

// quietExpr reports whether an expression reads only constants,
// registers and the context variables an attempt sets.
func quietExpr(r *model.Reads) bool {
	return r.Only(model.PureOps|model.OpBits(model.ECtx, model.EReg)) && r.CtxWithin(quietSlots[:]...)
}

// batchSlots reports whether an expression reads no context but the slots
// only setBatchCtx sets (and batch.tokens, batch.prefilled).
func batchSlots(r *model.Reads) bool {
	return r.CtxWithin(model.CtxBatchTokens, model.CtxBatchPrefilled, model.CtxRunningPreempted, model.CtxWaitingAdmitted)
}
