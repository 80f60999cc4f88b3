package interp

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type pointSink struct{ pts []TimePoint }

func (p *pointSink) Sample(int, Sample)        {}
func (p *pointSink) Point(_ int, tp TimePoint) { p.pts = append(p.pts, tp) }

// TestRecordGaugeFinalPoints drives recordGauge with readings that
// replace the point of their instant, drop it (a reading that brings back
// the value before) and repeat a value, as a gauge read twice at an
// instant would (the run itself reads once an instant but for RunUntil and
// the end): the sink gets the points a gauge that keeps everything holds,
// in order, each once, lean or not.
func TestRecordGaugeFinalPoints(t *testing.T) {
	readings := []TimePoint{
		{0, 0}, {0, 1}, // replaced at its instant
		{1, 1},         // the same value: nothing
		{2, 3}, {2, 1}, // replaced by the value before: dropped
		{3, 2}, {4, 5}, {4, 2}, // dropped again, after a final point
		{5, math.NaN()}, {6, math.NaN()}, {7, 4}, {7, 4}, {8, 0}, {8, 5}, {9, 5},
	}
	for _, lean := range []bool{false, true} {
		ref := TimeAvg{}
		sink := &pointSink{}
		s := &Sim{opt: Options{Dump: sink}, gauges: make([]TimeAvg, 1), gaugeDumped: make([]int, 1)}
		if lean {
			s.gauges[0].leanOver(0, 10)
		}
		for _, r := range readings {
			ref.Record(r.Time, r.Value)
			s.now = r.Time
			s.recordGauge(0, r.Value)
		}
		s.flushDump()
		s.flushDump() // a second flush hands nothing more
		want := ref.Points()
		if len(want) != 5 {
			t.Fatalf("the reference gauge holds %v: the readings do not test what they mean to", want)
		}
		same := cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
		if d := cmp.Diff(want, sink.pts, same); d != "" {
			t.Errorf("lean %v: the sink's points differ (-kept +sink):\n%s", lean, d)
		}
	}
}
