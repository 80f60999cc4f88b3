package interp

import (
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"unsafe"

	clone "github.com/huandu/go-clone"

	"github.com/serq/serq/interp/internal/stats"
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
// The tracer, the statement hook (SetReach) and the dump sink
// (Options.Dump) are not part of a run's state: a checkpoint has none of
// them, and a resumed run gets the tracer and hook its caller sets.

// Checkpoint is a frozen copy of a run's state after an event (or at its
// start). It is never changed: each Resume makes a fresh copy.
type Checkpoint struct {
	sim   *Sim
	bytes int64 // the memory its copy took, counted as it was made
}

// Time is the simulated clock of the checkpoint.
func (c *Checkpoint) Time() float64 { return c.sim.now }

// Events is the number of events processed before the checkpoint.
func (c *Checkpoint) Events() uint64 { return c.sim.events }

// Checkpoint copies the run's state. Stepping s afterwards does not change
// the checkpoint, and resuming the checkpoint does not change s.
func (s *Sim) Checkpoint() *Checkpoint {
	var n allocCount
	c := &Checkpoint{sim: s.copyWith(countingAllocator(&n))}
	c.bytes = n.bytes + s.ownedLogBytes()
	return c
}

// ownedLogBytes is what a copy's statistics logs own, allocated by their
// share (the custom copy of checkpointAllocator) and not counted by the
// allocator.
func (s *Sim) ownedLogBytes() int64 {
	var n int64
	for i := range s.obs {
		n += s.obs[i].OwnBytes()
	}
	for i := range s.gauges {
		n += s.gauges[i].OwnBytes()
	}
	for i := range s.claimObs {
		n += s.claimObs[i].OwnBytes()
	}
	return n
}

// Bytes is the memory the checkpoint's copy of the run took when it was
// made: every value, slice and map go-clone allocated for it (a map
// counted at twice its entries' size) and the statistics logs' last
// chunks; what it shares with the run (the program, the logs' full
// chunks) counts nothing. It is an estimate (the heap rounds each
// allocation up to its size class; a map's real size depends on its
// layout): BenchmarkCheckpointMemory reports it beside the heap measured.
func (c *Checkpoint) Bytes() int64 { return c.bytes }

// allocCount counts the bytes a copy allocates.
type allocCount struct{ bytes int64 }

// countingAllocator is the checkpoints' allocator counting what it
// allocates into n.
func countingAllocator(n *allocCount) *clone.Allocator {
	return clone.NewAllocator(unsafe.Pointer(n), &clone.AllocatorMethods{
		Parent: checkpointAllocator(),
		New: func(pool unsafe.Pointer, t reflect.Type) reflect.Value {
			(*allocCount)(pool).bytes += int64(t.Size())
			return reflect.New(t)
		},
		MakeSlice: func(pool unsafe.Pointer, t reflect.Type, n, c int) reflect.Value {
			(*allocCount)(pool).bytes += int64(c) * int64(t.Elem().Size())
			return reflect.MakeSlice(t, n, c)
		},
		MakeMap: func(pool unsafe.Pointer, t reflect.Type, n int) reflect.Value {
			(*allocCount)(pool).bytes += 2 * int64(n) * int64(t.Key().Size()+t.Elem().Size())
			return reflect.MakeMapWithSize(t, n)
		},
	})
}

// Resume is a new run that goes on from the checkpoint exactly as the run
// it was taken from did. It has no tracer and no statement hook.
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
		// What the program's expressions read, frozen when New returns.
		a.MarkAsOpaquePointer(reflect.TypeOf((*readsCache)(nil)))
		a.SetCustomFunc(reflect.TypeOf(stream{}), func(_ *clone.Allocator, old, nv reflect.Value) {
			o := old.Addr().Interface().(*stream)
			n := nv.Addr().Interface().(*stream)
			*n = *o
		})
		shareLog[Sample](a)
		shareLog[TimePoint](a)
		shareLog[float64](a)
		a.SetCustomFunc(reflect.TypeOf(stats.ObserveStat{}), func(_ *clone.Allocator, old, nv reflect.Value) {
			o := old.Addr().Interface().(*stats.ObserveStat)
			n := nv.Addr().Interface().(*stats.ObserveStat)
			*n = o.Share()
		})
		cloneAlloc = a
	})
	return cloneAlloc
}

func shareLog[T any](a *clone.Allocator) {
	a.SetCustomFunc(reflect.TypeOf(stats.Log[T]{}), func(_ *clone.Allocator, old, nv reflect.Value) {
		o := old.Addr().Interface().(*stats.Log[T])
		*nv.Addr().Interface().(*stats.Log[T]) = o.Share()
	})
}

// copyState is the deep copy behind checkpoints.
func (s *Sim) copyState() *Sim { return s.copyWith(checkpointAllocator()) }

// cloneMu makes one copy at a time: each turns the collector off and
// back on (copyWith).
var cloneMu sync.Mutex

// copyWith is copyState with the allocator a.
//
// The collector is off while go-clone copies. go-clone writes the
// pointers it copies through unsafe conversions, as uintptrs (its
// shadowCopy: a slice's header, a pointer, a map), without the write
// barriers Go's concurrent collector relies on: a collection marking
// while a copy is made can miss an array the copy points at and free it,
// and a later one crashes the process ("found bad pointer in Go heap":
// `GOGC=2 go test ./interp -run 'Checkpoint|Resume|Seek|Back' -count 40`
// met it within five minutes, twice in two tries). debug.SetGCPercent(-1)
// waits for a cycle under way to end and starts none until the target is
// put back; once the copy is whole, its pointers sit in words its types
// say are pointers, which the next collection scans as any others.
func (s *Sim) copyWith(a *clone.Allocator) *Sim {
	cloneMu.Lock()
	defer cloneMu.Unlock()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	tracer, reach, dump := s.tracer, s.reach, s.opt.Dump
	s.tracer, s.reach, s.opt.Dump = nil, nil, nil
	c := a.CloneSlowly(reflect.ValueOf(s)).Interface().(*Sim)
	s.tracer, s.reach, s.opt.Dump = tracer, reach, dump
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
// run's; it is not cheap. The tracer, the statement hook and the trace
// opener are the driver's, not the run's state, and are not compared, nor
// is what the program's expressions read (readsCache, the program's). The calendar is
// compared as its events in order (time, then sequence): how its heap is
// laid out is not state (a run of quiet iterations taken off the calendar,
// stepn.go, leaves another layout of the same events).
func SameState(a, b *Sim) bool {
	ta, tb := a.tracer, b.tracer
	ra, rb := a.reach, b.reach
	oa, ob := a.opt.OpenTrace, b.opt.OpenTrace
	ca, cb := a.cal, b.cal
	da, db := a.reads, b.reads
	a.tracer, b.tracer = nil, nil
	a.reach, b.reach = nil, nil
	a.opt.OpenTrace, b.opt.OpenTrace = nil, nil
	a.cal, b.cal = sortedCal(ca), sortedCal(cb)
	a.reads, b.reads = nil, nil
	defer func() {
		a.tracer, b.tracer = ta, tb
		a.reach, b.reach = ra, rb
		a.opt.OpenTrace, b.opt.OpenTrace = oa, ob
		a.cal, b.cal = ca, cb
		a.reads, b.reads = da, db
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
