package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/serq/serq/model"
)

// TestCalendarTakeReplaces drives two calendars with the same random
// operations, one popping its top and then pushing, the other taking the
// top (take) so that the next push replaces it in one sift-down, or
// dropTop removes it: both hand out the same events in the same order
// (times with many ties, so the sequence numbers decide), consume the
// same sequence numbers, and agree on the time of the first event but a
// taken top (nextOther) at every step.
func TestCalendarTakeReplaces(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b := &Sim{}, &Sim{}
	var got, want []event
	ops := 0
	for range 20000 {
		// the time of a new event: one of few values, often the clock's
		now := 0.0
		if len(a.cal) > 0 {
			now = a.cal[0].t
		}
		at := func() float64 { return now + float64(r.IntN(4)) }
		switch k := r.IntN(10); {
		case k < 4 || len(a.cal) == 0: // push
			x := at()
			a.schedule(x, evArrive, int32(ops), 0, nil)
			b.schedule(x, evArrive, int32(ops), 0, nil)
		default: // take the top, then push up to two and keep on
			want = append(want, a.pop())
			top := b.cal[0]
			b.take()
			got = append(got, top)
			if !b.taken {
				t.Fatal("take did not mark the top")
			}
			if x, y := a.NextTime(), b.nextOther(); x != y {
				t.Fatalf("op %d: nextOther %v, the calendar without its top %v", ops, y, x)
			}
			for range r.IntN(3) {
				x := at()
				a.schedule(x, evJobDone, int32(ops), 1, nil)
				b.schedule(x, evJobDone, int32(ops), 1, nil)
				if b.taken {
					t.Fatal("a push left the top taken")
				}
			}
			b.dropTop()
		}
		ops++
		if a.seq != b.seq || len(a.cal) != len(b.cal) {
			t.Fatalf("op %d: seq %d and %d, %d and %d events", ops, a.seq, b.seq, len(a.cal), len(b.cal))
		}
	}
	for len(a.cal) > 0 {
		want = append(want, a.pop())
		got = append(got, b.pop())
	}
	if len(b.cal) != 0 || len(got) != len(want) {
		t.Fatalf("%d events left, %d taken of %d", len(b.cal), len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(want) < 10000 {
		t.Fatalf("only %d events taken", len(want))
	}
}

// TestSecondTimeAnyShape checks secondTime, the time of the calendar's
// second event, against the calendar sorted, for heaps of every size up
// to 40 built by pushes and replacements.
func TestSecondTimeAnyShape(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		s := &Sim{}
		for range n {
			s.schedule(float64(r.IntN(5)), evArrive, 0, 0, nil)
			if r.IntN(3) == 0 {
				s.take()
				s.schedule(float64(r.IntN(5)), evArrive, 0, 0, nil)
			}
		}
		c := sortedCal(s.cal)
		want := math.Inf(1)
		if len(c) > 1 {
			want = c[1].t
		}
		if got := s.secondTime(); got != want {
			t.Fatalf("%d events: secondTime %v, want %v", len(c), got, want)
		}
	}
}

// BenchmarkCalendar is the calendar of the seed at 32/32 (about 265
// pending events): each op takes the top and schedules its successor a
// random time later, as an engine's iteration end does, replacing the
// top in one sift-down.
func BenchmarkCalendar(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	s := &Sim{}
	for range 265 {
		s.schedule(r.Float64(), evIterEnd, 0, 0, nil)
	}
	for b.Loop() {
		now := s.cal[0].t
		s.take()
		s.schedule(now+r.Float64(), evIterEnd, 0, 0, nil)
	}
}

// TestNextFreeTies checks that `serq why`'s next freeing event is, of two
// at the same time, the one taken first (the lower sequence number),
// wherever the heap holds them: two engines' iteration ends, the pool the
// memory of one and admitted through the other.
func TestNextFreeTies(t *testing.T) {
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		s := &Sim{stages: []stage{{m: &model.Stage{Label: "a"}}, {m: &model.Stage{Label: "b"}}}}
		for i := range s.stages {
			s.stages[i].eng = &engine{epoch: 7}
		}
		pl := &pool{m: &model.Pool{Label: "kv"}, memoryOf: 0, admitVia: 1}
		evs := []event{
			{t: 2.5, seq: 9, kind: evIterEnd, id: 0, epoch: 7},
			{t: 2.5, seq: 4, kind: evIterEnd, id: 1, epoch: 7}, // taken first
			{t: 3, seq: 1, kind: evIterEnd, id: 0, epoch: 7},
		}
		s.cal = []event{evs[order[0]], evs[order[1]], evs[2]}
		w := &whyWriter{s: s}
		st, ok := w.nextFree(pl)
		if !ok || st.At != 2.5 || st.Next != NextIteration || st.Stage != "b" {
			t.Errorf("layout %v: nextFree = %+v; want b's iteration ending at 2.5", order, st)
		}
	}
}
