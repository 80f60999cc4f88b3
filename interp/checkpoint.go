package interp

import (
	"reflect"
	"slices"
	"sync"

	clone "github.com/huandu/go-clone"

	"github.com/serq/serq/model"
)

// Checkpoints: a copy of the whole state of a run, from which the run can be
// resumed as often as wanted, each time exactly as the original went on.
//
// A checkpoint is a deep copy of the Sim made by go-clone (CloneSlowly keeps
// the sharing and cycles of the pointer graph: a session reached from the
// calendar, a pool's queue and an engine's batch is one session in the
// copy too). Four kinds of value are not copied the generic way:
//
//   - the lowered program and everything in it (model pointers) is
//     immutable and shared;
//   - the statistics' append-only logs (observe samples, gauge change
//     points) share their full chunks (chunkLog.share), so a checkpoint
//     costs the live state, not the history;
//   - a random stream is copied as a value (its PCG's state is
//     unexported);
//   - the stages and engines point at each other inside the Sim's slices;
//     those pointers are copied as they are and then re-pointed at the
//     copy's elements (fixInterior).
//
// The tracer and the dump sink (Options.Dump) are not part of a run's
// state: a checkpoint has neither, and a resumed run gets the tracer its
// caller sets.

// Checkpoint is a frozen copy of a run's state after an event (or at its
// start). It is never changed: each Resume makes a fresh copy.
type Checkpoint struct {
	sim *Sim
}

// Time is the simulated clock of the checkpoint.
func (c *Checkpoint) Time() float64 { return c.sim.now }

// Events is the number of events processed before the checkpoint.
func (c *Checkpoint) Events() uint64 { return c.sim.events }

// Checkpoint copies the run's state. Stepping s afterwards does not change
// the checkpoint, and resuming the checkpoint does not change s.
func (s *Sim) Checkpoint() *Checkpoint {
	return &Checkpoint{sim: s.copyState()}
}

// Resume is a new run that goes on from the checkpoint exactly as the run
// it was taken from did. It has no tracer.
func (c *Checkpoint) Resume() *Sim { return c.sim.copyState() }

var (
	cloneOnce  sync.Once
	cloneAlloc *clone.Allocator
)

func checkpointAllocator() *clone.Allocator {
	cloneOnce.Do(func() {
		a := clone.NewAllocator(nil, nil)
		// The program is immutable: share every pointer into it.
		for _, v := range []any{
			(*model.Program)(nil), (*model.Block)(nil), (*model.Stmt)(nil), (*model.Expr)(nil),
			(*model.Pool)(nil), (*model.Stage)(nil), (*model.Engine)(nil), (*model.Fault)(nil),
		} {
			a.MarkAsOpaquePointer(reflect.TypeOf(v))
		}
		// Pointers into the Sim's own slices, re-pointed by fixInterior.
		a.MarkAsOpaquePointer(reflect.TypeOf((*engine)(nil)))
		a.MarkAsOpaquePointer(reflect.TypeOf((*stage)(nil)))
		a.SetCustomFunc(reflect.TypeOf(stream{}), func(_ *clone.Allocator, old, nv reflect.Value) {
			o := old.Addr().Interface().(*stream)
			n := nv.Addr().Interface().(*stream)
			*n = *o
		})
		shareLog[Sample](a)
		shareLog[TimePoint](a)
		shareLog[float64](a)
		a.SetCustomFunc(reflect.TypeOf(ObserveStat{}), func(_ *clone.Allocator, old, nv reflect.Value) {
			o := old.Addr().Interface().(*ObserveStat)
			n := nv.Addr().Interface().(*ObserveStat)
			*n = ObserveStat{w: o.w, samples: o.samples.share(), lean: o.lean, vals: o.vals.share()}
		})
		cloneAlloc = a
	})
	return cloneAlloc
}

func shareLog[T any](a *clone.Allocator) {
	a.SetCustomFunc(reflect.TypeOf(chunkLog[T]{}), func(_ *clone.Allocator, old, nv reflect.Value) {
		o := old.Addr().Interface().(*chunkLog[T])
		*nv.Addr().Interface().(*chunkLog[T]) = o.share()
	})
}

// copyState is the deep copy behind checkpoints.
func (s *Sim) copyState() *Sim {
	tracer, dump := s.tracer, s.opt.Dump
	s.tracer, s.opt.Dump = nil, nil
	c := checkpointAllocator().CloneSlowly(reflect.ValueOf(s)).Interface().(*Sim)
	s.tracer, s.opt.Dump = tracer, dump
	c.fixInterior(s)
	return c
}

// fixInterior re-points the pointers between the copy's stages and engines
// (copied as the original's) at the copy's own elements.
func (c *Sim) fixInterior(orig *Sim) {
	for i := range c.stages {
		c.stages[i].eng = nil
	}
	for i := range c.engs {
		e := &c.engs[i]
		e.stage = &c.stages[e.idx]
		e.stage.eng = e
	}
	c.curEng = c.engineAt(orig, orig.curEng)
	c.budgetEngine = c.engineAt(orig, orig.budgetEngine)
}

func (c *Sim) engineAt(orig *Sim, e *engine) *engine {
	if e == nil {
		return nil
	}
	for i := range orig.engs {
		if &orig.engs[i] == e {
			return &c.engs[i]
		}
	}
	return nil
}

// SameState reports whether two runs of the same program are in the same
// state: every field of the Sim, followed through pointers (NaN equal to
// NaN). Tests use it to check that a resumed or sought run is the straight
// run's; it is not cheap. The tracer and the trace opener are the
// driver's, not the run's state, and are not compared. The calendar is
// compared as its events in order (time, then sequence): how its heap is
// laid out is not state (a run of quiet iterations taken off the calendar,
// stepn.go, leaves another layout of the same events).
func SameState(a, b *Sim) bool {
	ta, tb := a.tracer, b.tracer
	oa, ob := a.opt.OpenTrace, b.opt.OpenTrace
	ca, cb := a.cal, b.cal
	a.tracer, b.tracer = nil, nil
	a.opt.OpenTrace, b.opt.OpenTrace = nil, nil
	a.cal, b.cal = sortedCal(ca), sortedCal(cb)
	defer func() {
		a.tracer, b.tracer = ta, tb
		a.opt.OpenTrace, b.opt.OpenTrace = oa, ob
		a.cal, b.cal = ca, cb
	}()
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b), map[[2]uintptr]bool{})
}

// sortedCal is a copy of a calendar in the order its events are taken.
func sortedCal(c []event) []event {
	s := slices.Clone(c)
	slices.SortFunc(s, func(x, y event) int {
		if evLess(&x, &y) {
			return -1
		}
		if evLess(&y, &x) {
			return 1
		}
		return 0
	})
	return s
}

func sameValue(a, b reflect.Value, seen map[[2]uintptr]bool) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (x != x && y != y)
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		k := [2]uintptr{a.Pointer(), b.Pointer()}
		if seen[k] {
			return true
		}
		seen[k] = true
		return sameValue(a.Elem(), b.Elem(), seen)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem(), seen)
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i), seen) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i), seen) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !sameValue(it.Value(), bv, seen) {
				return false
			}
		}
		return true
	case reflect.Func:
		return a.IsNil() && b.IsNil()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.String:
		return a.String() == b.String()
	}
	return false
}
