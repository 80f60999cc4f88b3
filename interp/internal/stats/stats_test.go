package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWelford(t *testing.T) {
	var w Welford
	if !math.IsNaN(w.Mean()) || !math.IsNaN(w.Variance()) || !math.IsNaN(w.CV2()) {
		t.Errorf("empty Welford: mean %v var %v cv2 %v, want NaN", w.Mean(), w.Variance(), w.CV2())
	}
	w.Add(7)
	if w.Mean() != 7 || !math.IsNaN(w.Variance()) || !math.IsNaN(w.CV2()) {
		t.Errorf("one sample: mean %v var %v cv2 %v, want 7 NaN NaN", w.Mean(), w.Variance(), w.CV2())
	}
	w = Welford{}
	for _, x := range []float64{1, 2, 3, 4} {
		w.Add(x)
	}
	// mean 2.5; squared deviations 2.25+0.25+0.25+2.25 = 5, var = 5/3;
	// cv2 = (5/3) / 6.25 = 4/15
	if w.Count() != 4 || w.Mean() != 2.5 {
		t.Errorf("count %d mean %v, want 4 2.5", w.Count(), w.Mean())
	}
	if !near(w.Variance(), 5.0/3, 1e-15) || !near(w.CV2(), 4.0/15, 1e-15) {
		t.Errorf("var %v cv2 %v, want 5/3 4/15", w.Variance(), w.CV2())
	}
}

func TestBatchMeansHalfWidth(t *testing.T) {
	// 40 samples 0..39: 20 batches of 2 with means 0.5, 2.5, ..., 38.5,
	// i.e. 2j + 0.5 for j = 0..19. Their sample variance is 4·var(0..19)
	// = 4·(20·21/12) = 140, so the half-width is 2.093·sqrt(140/20)
	// = 2.093·sqrt(7) = 5.537557...
	xs := make([]float64, 40)
	for i := range xs {
		xs[i] = float64(i)
	}
	want := 2.093 * math.Sqrt(7)
	if got := BatchMeansHalfWidth(xs, 20); !near(got, want, 1e-12) {
		t.Errorf("BatchMeansHalfWidth(0..39) = %v, want %v", got, want)
	}
	if !near(want, 5.537557, 1e-6) {
		t.Errorf("hand value 2.093·sqrt(7) = %v, want 5.537557", want)
	}
	// leftover samples (41 = 20·2 + 1) are dropped, whatever they are
	if got := BatchMeansHalfWidth(append(slices.Clone(xs), 1e9), 20); !near(got, want, 1e-12) {
		t.Errorf("with a dropped leftover = %v, want %v", got, want)
	}
	// fewer values than batches: no estimate
	if got := BatchMeansHalfWidth(xs[:19], 20); !math.IsInf(got, 1) {
		t.Errorf("19 values = %v, want +Inf", got)
	}
	// a constant: zero width
	if got := BatchMeansHalfWidth(make([]float64, 60), 20); got != 0 {
		t.Errorf("constant = %v, want 0", got)
	}
}

func TestObserveStatSummary(t *testing.T) {
	// 40 samples in batches of 2 whose means alternate 0, 1, 0, 1, ...:
	// batch means mean 0.5, sample variance 20·0.25/19 = 5/19, half-width
	// 2.093·sqrt(5/19/20) = 2.093/sqrt(76) = 0.240084...
	// The samples are 20 zeros and 20 ones: mean 0.5, variance
	// 40·0.25/39 = 10/39, cv2 = (10/39)/0.25 = 40/39; p99 is rank
	// ceil(39.6) = 40, the largest: 1.
	var o ObserveStat
	for i := range 40 {
		o.Add(float64(i), uint64(100+i), uint32(i%3), float64((i/2)%2))
	}
	r := o.Summary(nil)
	if r.Count != 40 || r.Mean != 0.5 || r.P99 != 1 || r.AllZero {
		t.Errorf("summary = %+v", r)
	}
	if want := 2.093 / math.Sqrt(76); !near(r.CI, want, 1e-12) || !near(r.CI, 0.240084, 1e-6) {
		t.Errorf("CI = %v, want %v", r.CI, want)
	}
	if !near(r.CV2, 40.0/39, 1e-12) {
		t.Errorf("CV2 = %v, want 40/39", r.CV2)
	}
	if r.CI != o.CI() || r.P99 != o.P99() || r.CV2 != o.CV2() || r.Mean != o.Mean() {
		t.Errorf("summary and accessors disagree: %+v", r)
	}
	if samples := o.Samples(); len(samples) != 40 || samples[3] != (Sample{Time: 3, Session: 103, Turn: 0, Value: 1}) {
		t.Errorf("samples = %v", samples[:4])
	}

	// below 40 samples: no CI
	var few ObserveStat
	for i := range 39 {
		few.Add(0, 0, 0, float64(i))
	}
	if got := few.Summary(nil).CI; !math.IsInf(got, 1) {
		t.Errorf("CI of 39 samples = %v, want +Inf", got)
	}

	// no samples: NaN everywhere, +Inf CI
	var none ObserveStat
	e := none.Summary(nil)
	if e.Count != 0 || !math.IsNaN(e.Mean) || !math.IsNaN(e.CV2) || !math.IsNaN(e.P99) || !math.IsInf(e.CI, 1) {
		t.Errorf("empty row = %+v", e)
	}
}

func TestQuantile(t *testing.T) {
	// 1..100 shuffled: p99 is rank ceil(0.99·100) = 99, the value 99;
	// p50 is rank 50; p100 and p0 clamp to ranks 100 and 1
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	orig := slices.Clone(xs)
	for _, c := range []struct{ q, want float64 }{{0.99, 99}, {0.5, 50}, {1, 100}, {0, 1}, {0.991, 100}} {
		if got := Quantile(xs, c.q); got != c.want {
			t.Errorf("Quantile(1..100, %v) = %v, want %v", c.q, got, c.want)
		}
	}
	if !slices.Equal(xs, orig) {
		t.Errorf("Quantile modified its input")
	}
	// ten values: rank ceil(9.9) = 10
	if got := Quantile([]float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}, 0.99); got != 10 {
		t.Errorf("Quantile(1..10, 0.99) = %v, want 10", got)
	}
	if got := Quantile(nil, 0.99); !math.IsNaN(got) {
		t.Errorf("Quantile(nil) = %v, want NaN", got)
	}
	// total order: NaN sorts above +Inf, so the top rank is NaN and the
	// one below it +Inf
	ys := []float64{math.NaN(), 1, math.Inf(1), -1}
	if got := Quantile(ys, 1); !math.IsNaN(got) {
		t.Errorf("Quantile(with NaN, 1) = %v, want NaN", got)
	}
	if got := Quantile(ys, 0.75); !math.IsInf(got, 1) {
		t.Errorf("Quantile(with NaN, 0.75) = %v, want +Inf", got)
	}
}

func TestTotalCompare(t *testing.T) {
	negZero := math.Copysign(0, -1)
	order := []float64{math.Inf(-1), -1, negZero, 0, 1e-300, 1, math.Inf(1), math.NaN()}
	for i := range order {
		for j := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := TotalCompare(order[i], order[j]); got != want {
				t.Errorf("TotalCompare(%v, %v) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestTimeIntegral(t *testing.T) {
	// 0 on [0,1), 2 on [1,3), 0 from 3: the mean over [0,4] is 4/4 = 1
	var a TimeIntegral
	a.Set(1, 2)
	a.Set(3, 0)
	if got := a.Mean(4); got != 1 {
		t.Errorf("Mean(4) = %v, want 1", got)
	}
	// warm-up at 2: 2 on [2,3), 5 on [3,5]: (2·1 + 5·2)/3 = 4
	var b TimeIntegral
	b.Set(1, 2)
	b.Reset(2)
	if got := b.Mean(2); got != 2 {
		t.Errorf("Mean at the reset instant = %v, want the value 2", got)
	}
	b.Add(3, 3)
	if b.Value() != 5 {
		t.Errorf("Value = %v, want 5", b.Value())
	}
	if got := b.Mean(5); got != 4 {
		t.Errorf("Mean(5) after Reset(2) = %v, want 4", got)
	}
}

func TestTimeAvgRecord(t *testing.T) {
	var g TimeAvg
	g.Record(0, 0)
	g.Record(0, 1) // same instant: replaced
	g.Record(1, 1) // no change: nothing
	g.Record(2, 3)
	g.Record(2, 1) // same instant, back to the previous value: dropped
	g.Record(3, 2)
	g.Record(3, 4) // same instant: replaced
	g.Record(4, 4) // no change
	g.Record(5, 0)
	g.Record(6, math.Copysign(0, -1)) // −0 is another value (bit for bit)
	want := []TimePoint{{0, 1}, {3, 4}, {5, 0}, {6, math.Copysign(0, -1)}}
	if diff := cmp.Diff(want, g.Points()); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	if !math.Signbit(g.Points()[3].Value) {
		t.Errorf("last point lost its sign: %v", g.Points()[3])
	}
}

func TestTimeStats(t *testing.T) {
	nan := math.NaN()
	// 0 on [0,1), 2 on [1,3), 5 from 3, measured on [1,4]: mean
	// (2·2 + 5·1)/3 = 3; extremes 2 and 5
	ts := TimeStatsOf([]TimePoint{{0, 0}, {1, 2}, {3, 5}}, 1, 4, 20)
	if !near(ts.Mean, 3, 1e-15) || ts.Min != 2 || ts.Max != 5 {
		t.Errorf("step on [1,4] = %+v, want mean 3 min 2 max 5", ts)
	}
	// a value held for no time is not an extreme
	ts = TimeStatsOf([]TimePoint{{0, 1}, {2, 9}, {2, 1}}, 0, 4, 20)
	if ts.Max != 1 || ts.Min != 1 || ts.Mean != 1 {
		t.Errorf("zero-length 9 = %+v, want mean, min and max 1", ts)
	}
	// a constant over a span the windows do not divide exactly: every
	// window gets its share, so the CI is zero
	ts = TimeStatsOf([]TimePoint{{0, 3}}, 0, 7, 20)
	if !near(ts.Mean, 3, 1e-15) || !near(ts.CI, 0, 1e-12) {
		t.Errorf("constant 3 on [0,7] = %+v, want mean 3 CI 0", ts)
	}
	// warm-up clipping: 10 on [0,2), 0 from 2, measured on [1,3] (warm-up
	// 1, end 3): mean (10·1 + 0·1)/2 = 5. The 20 windows of 0.1 hold 10
	// (ten of them) and 0 (ten): sample variance 20·25/19 = 500/19, CI
	// 2.093·sqrt(500/19/20) = 2.093·5/sqrt(19) = 2.40083...
	ts = TimeStatsOf([]TimePoint{{0, 10}, {2, 0}}, 1, 3, 20)
	if !near(ts.Mean, 5, 1e-12) || ts.Min != 0 || ts.Max != 10 {
		t.Errorf("clipped = %+v, want mean 5 min 0 max 10", ts)
	}
	if want := 2.093 * 5 / math.Sqrt(19); !near(ts.CI, want, 1e-9) || !near(want, 2.40083, 1e-5) {
		t.Errorf("clipped CI = %v, want %v", ts.CI, want)
	}
	// the value before the window is held into it; the extremes ignore
	// what only happened before warm-up
	ts = TimeStatsOf([]TimePoint{{0, 100}, {1, 7}}, 2, 4, 20)
	if ts.Mean != 7 || ts.Min != 7 || ts.Max != 7 {
		t.Errorf("held from before warm-up = %+v, want 7 7 7", ts)
	}
	// no span, no points: NaN, and no CI
	for _, c := range []struct {
		pts      []TimePoint
		from, to float64
	}{{nil, 0, 1}, {[]TimePoint{{0, 1}}, 1, 1}, {[]TimePoint{{0, 1}}, 2, 1}, {[]TimePoint{{0, 1}}, 0, nan}} {
		ts := TimeStatsOf(c.pts, c.from, c.to, 20)
		if !math.IsNaN(ts.Mean) || !math.IsNaN(ts.Min) || !math.IsNaN(ts.Max) || !math.IsInf(ts.CI, 1) {
			t.Errorf("TimeStatsOf(%v, %v, %v) = %+v, want NaN NaN NaN and CI +Inf", c.pts, c.from, c.to, ts)
		}
	}
}

func TestLogHistogramExact(t *testing.T) {
	// one distinct value: every quantile is that value, exactly
	var h LogHistogram
	for range 5 {
		h.Add(0.123)
	}
	if h.Quantile(0.5) != 0.123 || h.Quantile(0.99) != 0.123 || h.Count() != 5 {
		t.Errorf("single value: p50 %v p99 %v count %d", h.Quantile(0.5), h.Quantile(0.99), h.Count())
	}
	if !near(h.Mean(), 0.123, 1e-16) {
		t.Errorf("mean = %v, want 0.123", h.Mean())
	}
	// 1..100 lie in distinct buckets (neighbours are ≥ 1 % apart), so the
	// nearest-rank quantiles are exact: p50 rank 50, p99 rank 99
	var g LogHistogram
	for i := 100; i >= 1; i-- {
		g.Add(float64(i))
	}
	if g.Quantile(0.5) != 50 || g.Quantile(0.99) != 99 || g.Quantile(1) != 100 || g.Quantile(0) != 1 {
		t.Errorf("1..100: p50 %v p99 %v p100 %v p0 %v, want 50 99 100 1",
			g.Quantile(0.5), g.Quantile(0.99), g.Quantile(1), g.Quantile(0))
	}
	if g.Mean() != 50.5 {
		t.Errorf("1..100 mean = %v, want 50.5", g.Mean())
	}
	// zero and negative values share the lowest bucket, +Inf the highest
	var z LogHistogram
	for _, x := range []float64{0, 0, -2, 5, math.Inf(1)} {
		z.Add(x)
	}
	if z.Quantile(0.4) != 0 || z.Quantile(0.6) != 0 || z.Quantile(0.8) != 5 || !math.IsInf(z.Quantile(1), 1) {
		t.Errorf("low bucket: p40 %v p60 %v p80 %v p100 %v, want 0 0 5 +Inf",
			z.Quantile(0.4), z.Quantile(0.6), z.Quantile(0.8), z.Quantile(1))
	}
	var e LogHistogram
	if !math.IsNaN(e.Quantile(0.5)) || !math.IsNaN(e.Mean()) {
		t.Errorf("empty: p50 %v mean %v, want NaN", e.Quantile(0.5), e.Mean())
	}
}

func TestLogHistogramAccuracy(t *testing.T) {
	// log-uniform values over 12 decades, added in an order that grows the
	// bucket range at both ends: quantiles within 0.5 % of nearest rank
	rng := rand.New(rand.NewPCG(7, 9))
	var h LogHistogram
	xs := make([]float64, 0, 20000)
	sum := 0.0
	for range 20000 {
		x := math.Exp((rng.Float64()*12 - 6) * math.Ln10)
		xs = append(xs, x)
		sum += x
		h.Add(x)
	}
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999} {
		want := Quantile(xs, q)
		got := h.Quantile(q)
		if math.Abs(got-want) > 0.005*want {
			t.Errorf("Quantile(%v) = %v, true %v: off by %.3g %%", q, got, want, 100*math.Abs(got-want)/want)
		}
	}
	if h.Mean() != sum/20000 {
		t.Errorf("mean = %v, want exactly %v", h.Mean(), sum/20000)
	}
}

func TestHistConstants(t *testing.T) {
	if statHistLogBase != math.Log1p(statHistWidth) {
		t.Errorf("statHistLogBase = %v, log1p(0.01) = %v", statHistLogBase, math.Log1p(statHistWidth))
	}
	// a bucket is 1 % wide: 1.0 opens bucket 0, 1.01 is just past it
	if statHistIndex(1) != 0 || statHistIndex(1.0099) != 0 || statHistIndex(1.0101) != 1 || statHistIndex(0.995) != -1 {
		t.Errorf("bucket indices: %d %d %d %d, want 0 0 1 -1",
			statHistIndex(1), statHistIndex(1.0099), statHistIndex(1.0101), statHistIndex(0.995))
	}
}

func TestStatExp(t *testing.T) {
	// exact or correctly rounded values (the last two as glibc's exp
	// gives them: ln 10 rounds up, so its exp is 10 + 2.17e-15, which
	// rounds to the float after 10; e^709.44 is finite although Go's
	// amd64 math.Exp overflows there)
	for _, c := range []struct{ x, want float64 }{
		{0, 1}, {1, math.E}, {math.Ln2, 2}, {-1, 1 / math.E}, {710, math.Inf(1)}, {-800, 0},
		{math.Log(10), 10.000000000000002}, {709.4436643346046, 1.280762613658287e+308},
	} {
		if got := statExp(c.x); got != c.want {
			t.Errorf("statExp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := statExp(math.NaN()); !math.IsNaN(got) {
		t.Errorf("statExp(NaN) = %v", got)
	}
	// at most 1 ulp from math.Exp (whose error is below 1 ulp) over the
	// histogram's range of bucket middles (where math.Exp is finite)
	for k := -75000; k <= 72000; k += 37 {
		x := (float64(k) + 0.5) * statHistLogBase
		got, ref := statExp(x), math.Exp(x)
		if math.IsInf(ref, 1) {
			continue
		}
		if got != ref && math.Nextafter(ref, got) != got {
			t.Fatalf("statExp(%v) = %v, math.Exp = %v", x, got, ref)
		}
	}
}

// The hot-path accumulators do not allocate once their backing slices have
// grown.
func TestAccumulatorsDoNotAllocate(t *testing.T) {
	var a TimeIntegral
	var w Welford
	var h LogHistogram
	for i := range 1000 {
		h.Add(float64(i%50 + 1))
	}
	now := 0.0
	allocs := testing.AllocsPerRun(1000, func() {
		now++
		a.Set(now, now)
		w.Add(now)
		h.Add(float64(int(now)%50 + 1))
	})
	if allocs != 0 {
		t.Errorf("allocations per update = %v, want 0", allocs)
	}
}

func BenchmarkObserveAdd(b *testing.B) {
	var o ObserveStat
	for i := range b.N {
		o.Add(float64(i), uint64(i), 0, 1)
	}
}

func BenchmarkLogHistogramAdd(b *testing.B) {
	var h LogHistogram
	for i := range b.N {
		h.Add(0.01 + float64(i%1000)*1e-4)
	}
}

func TestTimeIntegralDoesNotOverflowNearMaxFloat(t *testing.T) {
	var a TimeIntegral
	a.Set(0, 1e308)
	a.Set(10, 1e308)
	if got := a.Mean(20); got != 1e308 {
		t.Errorf("mean of 1e308 held over [0, 20] = %v, want 1e308", got)
	}
	var b TimeIntegral
	b.Set(0, 1e308)
	b.Set(1, 0)
	if got := b.Mean(4); got != 2.5e307 {
		t.Errorf("mean of 1e308 over [0, 1] then 0 to 4 = %v, want 2.5e307", got)
	}
	var c TimeIntegral
	c.Set(0, 3)
	c.Set(2, 5)
	if got := c.Mean(4); got != 4 {
		t.Errorf("mean = %v, want 4", got)
	}
}

// TestBatchSumsAddAll: the batch sums of values added a chunk at a time
// (addAll, as a report's pass over an observe's chunks) are each batch's
// values summed in order from 0, bit for bit, whatever the chunks' edges
// against the batches', the values past the last batch dropped.
func TestBatchSumsAddAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 20 + r.IntN(2000)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.ExpFloat64() * math.Pow(10, float64(r.IntN(12)-6))
		}
		size := n / 20
		all := newBatchSums(n, 20)
		for rest := xs; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(300))
			all.addAll(rest[:k])
			rest = rest[k:]
		}
		for b := range all.sums {
			want := 0.0
			for _, x := range xs[b*size : (b+1)*size] {
				want += x
			}
			if math.Float64bits(want) != math.Float64bits(all.sums[b]) {
				t.Fatalf("trial %d (n %d): batch %d sums %v by chunks, want %v", trial, n, b, all.sums[b], want)
			}
		}
		if all.b != 20 || all.j != 0 {
			t.Fatalf("trial %d: at batch %d place %d after all values, want batch 20 place 0", trial, all.b, all.j)
		}
	}
}
