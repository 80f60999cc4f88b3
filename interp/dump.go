package interp

// DumpSink receives a run's samples and gauge change points as the run
// makes them, for a driver that writes them out as it goes (`serq run
// --dump`): the run then need not keep them (Options.Lean) and the files
// hold the same lines as the report's ObserveRow.Samples and
// GaugeRow.Points of a run that keeps everything.
//
// The interpreter calls it from Step, between events' work, and never
// asks it for anything back: a sink that fails keeps its error for its
// driver to read.
type DumpSink interface {
	// Sample is one sample of observe number `observe` (its index in the
	// program's Observes) taken after the warm-up, in recording order.
	Sample(observe int, s Sample)
	// Point is a change point of gauge number `gauge` once it is final
	// (a later reading at its instant can no longer replace or drop it),
	// in time order from time 0, warm-up included; a gauge's last point
	// comes when the run ends (at its horizon or drained).
	Point(gauge int, p TimePoint)
}

// recordGauge reads gauge i's value v at the end of the instant and hands
// the sink the point that reading made final, if any.
func (s *Sim) recordGauge(i int, v float64) {
	g := &s.gauges[i]
	g.Record(s.now, v)
	if s.opt.Dump == nil {
		return
	}
	// Each reading adds at most one point and only the newest point can
	// be replaced or dropped, so every point before the newest is final
	// and at most one became final now: the one before the newest.
	// Points 0 … gaugeDumped[i]-1 have been handed over.
	if n := g.Recorded(); s.gaugeDumped[i] < n-1 {
		s.opt.Dump.Point(i, g.FromEnd(1))
		s.gaugeDumped[i]++
	}
}

// flushDump hands the sink every gauge's last point, at the end of the run.
func (s *Sim) flushDump() {
	if s.opt.Dump == nil {
		return
	}
	for i := range s.gauges {
		g := &s.gauges[i]
		if n := g.Recorded(); s.gaugeDumped[i] < n {
			s.opt.Dump.Point(i, g.FromEnd(0))
			s.gaugeDumped[i]++
		}
	}
}
