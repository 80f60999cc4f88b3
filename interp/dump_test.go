package interp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// collectSink is a DumpSink that keeps what it is handed.
type collectSink struct {
	samples [][]interp.Sample
	points  [][]interp.TimePoint
}

func newCollectSink(p *model.Program) *collectSink {
	return &collectSink{samples: make([][]interp.Sample, len(p.Observes)), points: make([][]interp.TimePoint, len(p.Gauges))}
}

func (c *collectSink) Sample(i int, s interp.Sample)   { c.samples[i] = append(c.samples[i], s) }
func (c *collectSink) Point(i int, p interp.TimePoint) { c.points[i] = append(c.points[i], p) }

// dumpAgainstFull runs p keeping everything and lean with a sink, and
// checks that the sink got exactly the full run's samples and change
// points, and that the two reports are the same but for them.
func dumpAgainstFull(t *testing.T, p *model.Program, opt interp.Options) {
	t.Helper()
	full, err := interp.Run(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	sink := newCollectSink(p)
	opt.Lean, opt.Dump = true, sink
	lean, err := interp.Run(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range full.Observes {
		if d := cmp.Diff(o.Samples, sink.samples[i], sameBits); d != "" {
			t.Errorf("observe %s: the sink's samples differ (-full run +sink):\n%s", o.Name, d)
		}
	}
	for i, g := range full.Gauges {
		if d := cmp.Diff(g.Points, sink.points[i], sameBits); d != "" {
			t.Errorf("gauge %s: the sink's points differ (-full run +sink):\n%s", g.Name, d)
		}
	}
	if d := reportDiff(withoutHistory(full), withoutHistory(lean)); d != "" {
		t.Errorf("the lean run's report with a sink differs (-full +lean):\n%s", d)
	}
}

// TestDumpSinkExamples: for every example (and the pressure seed, whose
// gauges move at many instants, and a drained run), a lean run's sink gets
// the samples and change points a run that keeps everything reports.
func TestDumpSinkExamples(t *testing.T) {
	h := horizon(300)
	n := 0
	for _, path := range testutil.Examples(t, "../examples") {
		t.Run(strings.TrimPrefix(path, "../examples/"), func(t *testing.T) {
			p, err := lang.Load(path, lang.Options{Lib: lib.FS})
			if err != nil {
				t.Fatal(err)
			}
			n += len(p.Gauges)
			dumpAgainstFull(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 1})
		})
	}
	if n == 0 {
		t.Fatal("no example has a gauge: the change points are not tested")
	}
	t.Run("seed pressure", func(t *testing.T) {
		p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "1200", "Lambda", "1.2"))
		dumpAgainstFull(t, p, interp.Options{Horizon: h, Warmup: h / 10, Seed: 3})
	})
	t.Run("drained", func(t *testing.T) {
		p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
		dumpAgainstFull(t, p, interp.Options{Horizon: 1e6, Warmup: 5, Seed: 1, Arrivals: 50})
	})
}

// TestDumpSinkReplacedPoints: a reading at the instant of a gauge's last
// point replaces it, and one that brings back the value before drops it;
// the sink gets only final points. RunUntil reads the gauges at times
// between events, so the next event's instant reads them again at the same
// time; both runs are driven alike.
func TestDumpSinkReplacedPoints(t *testing.T) {
	const src = `fn main() {
  stage s : fifo(1);
  pool p { cap 3; }
  workload { arrive poisson(2); }
  server { hold p (cost(p, 1)) { run s (cost(s, ~exp(0.4))); } }
  gauge busy = used(p);
  gauge q = queued(p);
  gauge odd = used(p) == 1 || used(p) == 3;
}
`
	p := loadInline(t, "g.sq", src)
	opt := interp.Options{Horizon: 200, Warmup: 20, Seed: 4}
	drive := func(opt interp.Options) *interp.Report {
		s, err := interp.New(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		for at := 0.25; s.RunUntil(at); at += 0.25 {
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		return s.Report()
	}
	full := drive(opt)
	sink := newCollectSink(p)
	opt.Lean, opt.Dump = true, sink
	drive(opt)
	for i, g := range full.Gauges {
		if d := cmp.Diff(g.Points, sink.points[i], sameBits); d != "" {
			t.Errorf("gauge %s: the sink's points differ (-full run +sink):\n%s", g.Name, d)
		}
		pts := sink.points[i]
		if len(pts) < 10 {
			t.Errorf("gauge %s: %d points, want many", g.Name, len(pts))
		}
		for k := 1; k < len(pts); k++ {
			if !(pts[k].Time > pts[k-1].Time) || pts[k].Value == pts[k-1].Value {
				t.Fatalf("gauge %s: points %d and %d are %v and %v: not each a change at an instant of its own", g.Name, k-1, k, pts[k-1], pts[k])
			}
		}
	}
	for i, o := range full.Observes {
		if d := cmp.Diff(o.Samples, sink.samples[i], sameBits); d != "" {
			t.Errorf("observe %s: the sink's samples differ (-full run +sink):\n%s", o.Name, d)
		}
	}
}

// TestDumpSinkNotInCheckpoint: a checkpoint does not carry the sink, so a
// resumed run hands nothing to the original's.
func TestDumpSinkNotInCheckpoint(t *testing.T) {
	p := loadExample(t, "single-turn/mg1.sq", nil)
	sink := newCollectSink(p)
	s, err := interp.New(p, interp.Options{Horizon: 100, Warmup: 10, Seed: 1, Lean: true, Dump: sink})
	if err != nil {
		t.Fatal(err)
	}
	for s.Now() < 50 && s.Step() {
	}
	before := len(sink.samples[0])
	if before == 0 {
		t.Fatal("no sample by t=50")
	}
	r := s.Checkpoint().Resume()
	for r.Step() {
	}
	if len(sink.samples[0]) != before {
		t.Errorf("the resumed run handed %d samples to the original's sink", len(sink.samples[0])-before)
	}
}
