package interp

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/interp/internal/stats"
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
		{Time: 0, Value: 0}, {Time: 0, Value: 1}, // replaced at its instant
		{Time: 1, Value: 1},                      // the same value: nothing
		{Time: 2, Value: 3}, {Time: 2, Value: 1}, // replaced by the value before: dropped
		{Time: 3, Value: 2}, {Time: 4, Value: 5}, {Time: 4, Value: 2}, // dropped again, after a final point
		{Time: 5, Value: math.NaN()}, {Time: 6, Value: math.NaN()}, {Time: 7, Value: 4}, {Time: 7, Value: 4}, {Time: 8, Value: 0}, {Time: 8, Value: 5}, {Time: 9, Value: 5},
	}
	for _, lean := range []bool{false, true} {
		ref := stats.TimeAvg{}
		sink := &pointSink{}
		s := &Sim{opt: Options{Dump: sink}, gauges: make([]stats.TimeAvg, 1), gaugeDumped: make([]int, 1)}
		if lean {
			s.gauges[0].LeanOver(0, 10)
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
