// Package stats holds the interpreter's statistics accumulators for the
// report (docs/language.md §7): running means and variances (Welford),
// batch-means confidence intervals, nearest-rank quantiles in a total
// order, time averages of piecewise-constant values (TimeIntegral,
// TimeAvg), the log histogram of inter-token latencies, an observe's
// samples (ObserveStat) and the append-only logs that keep them in chunks
// a checkpoint shares (Log, chunklog.go). Only interp uses it.
//
// Every accumulator is cheap to feed: adding a sample or recording a change
// is O(1) amortised and allocates only when a backing slice grows. The
// summaries (means, confidence intervals, quantiles) are computed once, when
// the report is built.
//
// Products that are then added (x += a*b) are wrapped in an explicit
// float64 conversion: the Go spec lets a compiler fuse a*b+c into one FMA
// instruction (arm64, or amd64 with GOAMD64=v3), and the conversion forbids
// it, so every platform rounds like the reference implementation does.
package stats

import (
	"math"
	"math/big"
)

const (
	// CIBatches is the number of batches of a batch-means confidence
	// interval.
	CIBatches = 20
	// CIMinSamples is the number of samples below which an observe has no
	// confidence interval (its half-width is +Inf), and the number a
	// test-valued observe that was always 0 must reach to earn a note.
	CIMinSamples = 40
	// statCIT is the 97.5 % quantile of Student's t with 19 degrees of
	// freedom (20 batches).
	statCIT = 2.093
)

// Welford is a running count, mean and variance (Welford's update).
// Its zero value is empty and ready to use.
type Welford struct {
	n    uint64
	mean float64
	m2   float64
}

// Add adds one sample.
func (w *Welford) Add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += float64(d * (x - w.mean))
}

// Count is the number of samples added.
func (w *Welford) Count() uint64 { return w.n }

// Mean is the samples' mean, NaN without any.
func (w *Welford) Mean() float64 {
	if w.n == 0 {
		return math.NaN()
	}
	return w.mean
}

// Variance is the sample variance (denominator n−1), NaN below 2 samples.
func (w *Welford) Variance() float64 {
	if w.n < 2 {
		return math.NaN()
	}
	return w.m2 / float64(w.n-1)
}

// CV2 is the squared coefficient of variation, [Welford.Variance] over the
// squared mean (NaN below 2 samples).
func (w *Welford) CV2() float64 {
	m := w.Mean()
	return w.Variance() / float64(m*m)
}

// BatchMeansHalfWidth is the half-width of the 95 % batch-means confidence
// interval of xs: `batches` batches of ⌊len(xs)/batches⌋ consecutive values
// from the start (the leftover values are dropped), and
// t·sqrt(var(batch means)/batches) with the sample variance (k−1) and
// t = 2.093 for 20 batches (2 otherwise). It is +Inf when there are fewer
// than 2 batches or fewer values than batches.
func BatchMeansHalfWidth(xs []float64, batches int) float64 {
	if batches < 2 || len(xs)/batches < 1 {
		return math.Inf(1)
	}
	a := newBatchSums(len(xs), batches)
	a.addAll(xs)
	return a.halfWidth()
}

// batchSums are BatchMeansHalfWidth's batch sums taken in order, a chunk
// of values at a time: batch b sums values b·size … (b+1)·size−1 from 0;
// the values past the last batch are dropped. The batch and the place in
// it are counted, not divided out of the value's index.
type batchSums struct {
	size int
	b, j int // the batch of the next value, and its place in the batch
	sums []float64
}

func newBatchSums(n, batches int) batchSums {
	return batchSums{size: n / batches, sums: make([]float64, batches)}
}

// addAll adds the values vs, the next in order: a batch's part of them
// summed in one loop.
func (a *batchSums) addAll(vs []float64) {
	for len(vs) > 0 && a.b < len(a.sums) {
		k := min(len(vs), a.size-a.j)
		s := a.sums[a.b]
		for _, x := range vs[:k] {
			s += x
		}
		a.sums[a.b] = s
		vs = vs[k:]
		if a.j += k; a.j == a.size {
			a.b, a.j = a.b+1, 0
		}
	}
}

// halfWidth is BatchMeansHalfWidth from the sums (size >= 1, >= 2 batches).
func (a *batchSums) halfWidth() float64 {
	batches := len(a.sums)
	k := float64(batches)
	means := make([]float64, batches)
	m := 0.0
	for b, s := range a.sums {
		means[b] = s / float64(a.size)
	}
	for _, x := range means {
		m += x
	}
	m /= k
	v := 0.0
	for _, x := range means {
		d := x - m
		v += float64(d * d)
	}
	v /= k - 1
	t := 2.0
	if batches == 20 {
		t = statCIT
	}
	return t * math.Sqrt(v/k)
}

// rankOf is the rankKeys of the nearest-rank q-quantile of the n values
// that each gives in order, a slice at a time (at: value i, for the first
// cut), with its candidates in buf's array when that is large enough: the
// values are given again with no cut when the first cut misled.
func rankOf(n int, q float64, buf []int64, at func(int) float64, each func(func([]float64))) rankKeys {
	t := newRankKeys(n, q, buf, at)
	each(t.addAll)
	if !t.complete() {
		t.again()
		each(t.addAll)
	}
	return t
}

// rankKeys finds the value of one rank among n values given a slice at a
// time, keeping only the candidates for it rather than all n: the rank is
// the m-th largest, and a value below the least candidate kept (the cut,
// lo) is dropped. The cut starts from a stride sample of the values (its
// 2m·S/n + 8-th largest of S), which a tail quantile's m largest are
// nearly always above, and rises whenever the candidates reach their
// limit: all but the m largest are then dropped. Nothing the m largest
// need is lost so long as m candidates are kept — every value dropped is
// below the cut, and the candidates kept at or above it — so the m-th
// largest candidate is the m-th largest value, exactly, in the total order
// (statTotalKey). When fewer than m are left (the sample misled the
// first cut) the values are given again with no cut. A p99 of 200 000
// exponential values keeps about 3 % of them and selects among those
// once. The values' bits also say whether every one is ±0.
type rankKeys struct {
	m     int     // the rank's place from the top (1 the largest); 0 without values
	keys  []int64 // the candidates, in no order
	limit int     // len(keys) at which the candidates are cut back to m
	lo    int64   // the least key kept (MinInt64: no cut)
	or    uint64  // the values' bits shifted left by one, or-ed: 0 iff all are ±0
}

// rankSample is the number of values the first cut is taken from.
const rankSample = 1024

// newRankKeys is a rankKeys for the nearest-rank q-quantile of n values,
// its candidates in buf's array when that is large enough, its first cut
// from values at (i < n).
func newRankKeys(n int, q float64, buf []int64, at func(int) float64) rankKeys {
	t := rankKeys{lo: math.MinInt64}
	if n == 0 {
		return t
	}
	t.m = n - int(statNearestRank(q, uint64(n))) + 1
	t.limit = min(max(4*t.m, 256), n)
	g := 2*t.m*rankSample/n + 8 // the sample's rank (from the top) of the first cut
	sampled := n >= 16*rankSample && g <= rankSample/8
	if size := max(t.limit, rankSample); cap(buf) < t.limit || sampled && cap(buf) < size {
		buf = make([]int64, 0, size)
	}
	t.keys = buf[:0]
	if sampled {
		sample := t.keys[:rankSample]
		for j := range sample {
			sample[j] = statTotalKey(at(int((2*uint64(j) + 1) * uint64(n) / (2 * rankSample))))
		}
		t.lo = statSelect(sample, rankSample-g)
	}
	return t
}

// addAll adds the values xs.
func (t *rankKeys) addAll(xs []float64) {
	lo, or := t.lo, t.or
	for _, x := range xs {
		b := math.Float64bits(x)
		or |= b << 1
		if k := totalKeyOfBits(b); k >= lo {
			t.push(k)
			lo = t.lo
		}
	}
	t.or = or
}

// push adds a candidate's key (k >= lo), cutting the candidates back to
// the m largest when they reach the limit.
func (t *rankKeys) push(k int64) {
	t.keys = append(t.keys, k)
	if len(t.keys) == t.limit && len(t.keys) > t.m {
		at := len(t.keys) - t.m
		k := statSelect(t.keys, at) // keys[at:] are the m largest
		t.keys = t.keys[:copy(t.keys, t.keys[at:])]
		if k < math.MaxInt64 {
			k++
		}
		t.lo = k
	}
}

// complete reports whether the candidates hold the rank: at least m.
func (t *rankKeys) complete() bool { return len(t.keys) >= t.m }

// again makes the rankKeys ready for the same values given again, with no
// cut.
func (t *rankKeys) again() { t.keys, t.lo, t.or = t.keys[:0], math.MinInt64, 0 }

// result is the value of the rank (complete), NaN without values; it
// reorders the candidates.
func (t *rankKeys) result() float64 {
	if t.m == 0 {
		return math.NaN()
	}
	k := statSelect(t.keys, len(t.keys)-t.m)
	return math.Float64frombits(uint64(k ^ int64(uint64(k>>63)>>1)))
}

// allZero reports whether every value added is ±0 (true without values).
func (t *rankKeys) allZero() bool { return t.or == 0 }

// statSelect returns the k-th smallest key (0-based), reordering keys:
// Floyd and Rivest's SELECT, which first narrows [lo, hi] to a sample's
// neighbourhood of rank k (recursively, for ranges over 600 keys), so it
// takes about n + min(k, n−k) comparisons where a quickselect takes 2n to
// 3n, and a sort n log n. The float arithmetic only picks the
// neighbourhood: the result is the k-th key whatever it rounds to.
func statSelect(a []int64, k int) int64 {
	statSelectRange(a, 0, len(a)-1, k)
	return a[k]
}

// statSelectRange puts the k-th smallest of a[lo..hi] at a[k], the smaller
// keys before it and the larger after it (lo <= k <= hi).
func statSelectRange(a []int64, lo, hi, k int) {
	for hi > lo {
		if hi-lo > 600 {
			n := float64(hi - lo + 1)
			i := float64(k - lo + 1)
			z := math.Log(n)
			s := 0.5 * math.Exp(2*z/3)
			sd := 0.5 * math.Sqrt(z*s*(n-s)/n)
			if i < n/2 {
				sd = -sd
			}
			newLo := max(lo, int(float64(k)-i*s/n+sd))
			newHi := min(hi, int(float64(k)+(n-i)*s/n+sd))
			statSelectRange(a, newLo, newHi, k)
		}
		t := a[k]
		i, j := lo, hi
		a[lo], a[k] = a[k], a[lo]
		if a[hi] > t {
			a[hi], a[lo] = a[lo], a[hi]
		}
		for i < j {
			a[i], a[j] = a[j], a[i]
			i++
			j--
			for a[i] < t {
				i++
			}
			for a[j] > t {
				j--
			}
		}
		if a[lo] == t {
			a[lo], a[j] = a[j], a[lo]
		} else {
			j++
			a[j], a[hi] = a[hi], a[j]
		}
		if j <= k {
			lo = j + 1
		}
		if k <= j {
			hi = j - 1
		}
	}
}

// statNearestRank is ceil(q·n) clamped to [1, n] (n > 0).
func statNearestRank(q float64, n uint64) uint64 {
	r := math.Ceil(q * float64(n))
	switch {
	case !(r >= 1): // also NaN
		return 1
	case r >= float64(n):
		return n
	}
	return uint64(r)
}

func statTotalKey(x float64) int64 { return totalKeyOfBits(math.Float64bits(x)) }

// totalKeyOfBits is statTotalKey of the float whose bits are b.
func totalKeyOfBits(b uint64) int64 { return int64(b ^ uint64(int64(b)>>63)>>1) }

// statSameFloat reports whether a and b are the same float in the total order
// (bit for bit: +0 and −0 differ, a NaN equals only its own bits).
func statSameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// statMin and statMax are Rust's f64::min and f64::max: a NaN operand is ignored.
func statMin(a, b float64) float64 {
	if a < b || b != b {
		return a
	}
	return b
}

func statMax(a, b float64) float64 {
	if a > b || b != b {
		return a
	}
	return b
}

// ---------------------------------------------------------- observes ----

// Sample is one recorded value of an observe.
type Sample struct {
	Time    float64 // simulation time of the sample
	Session uint64  // serial of the session that made it
	Turn    uint32  // the session's turn number
	Value   float64
}

// ObserveStat accumulates the samples of one observe. The caller adds only
// the samples taken after warm-up (once the warm-up event has fired; an
// event at the warm-up instant that runs before it is not measured).
// Its zero value is empty and ready to use.
//
// A lean ObserveStat (Options.Lean) keeps the values alone (what the CI and
// the p99 need), not their times, sessions and turns: it has no Samples.
type ObserveStat struct {
	w       Welford
	samples Log[Sample]
	lean    bool
	vals    valueLog // lean: the values
}

// Add records one sample.
func (o *ObserveStat) Add(t float64, session uint64, turn uint32, v float64) {
	o.w.Add(v)
	if o.lean {
		o.vals.add(v)
		return
	}
	o.samples.Add(Sample{Time: t, Session: session, Turn: turn, Value: v})
}

// addLean is Add on a lean ObserveStat, which keeps the value alone.
// The Welford update stays here, in the event loop: folded a chunk at a
// time on a goroutine of its own instead, the M/M/1 of bench/run.sh took
// as long (its division waits behind the loop's other work) and more CPU.
func (o *ObserveStat) AddLean(v float64) {
	o.w.Add(v)
	o.vals.add(v)
}

// Count is the number of samples.
func (o *ObserveStat) Count() uint64 { return o.w.Count() }

// Last is the latest sample's value, NaN without samples.
func (o *ObserveStat) Last() float64 {
	if o.lean {
		if o.vals.len() == 0 {
			return math.NaN()
		}
		return o.vals.at(o.vals.len() - 1)
	}
	if last := o.samples.Last(); last != nil {
		return last.Value
	}
	return math.NaN()
}

// Mean is the samples' mean (running, Welford), NaN without any.
func (o *ObserveStat) Mean() float64 { return o.w.Mean() }

// CV2 is the sample variance (n−1) over the squared mean, NaN below 2
// samples.
func (o *ObserveStat) CV2() float64 { return o.w.CV2() }

// CI is the half-width of the batch-means 95 % confidence interval of the
// mean (20 batches, t = 2.093), or +Inf below [CIMinSamples] samples:
// [BatchMeansHalfWidth] of the values, its batch sums taken four side by
// side (sumLanes).
func (o *ObserveStat) CI() float64 {
	n := o.count()
	if n < CIMinSamples || n/CIBatches < 1 {
		return math.Inf(1)
	}
	sums := newBatchSums(n, CIBatches)
	runs := valueRuns{o: o}
	sums.sumLanes(runs.run)
	return sums.halfWidth()
}

// P99 is the nearest-rank 99th percentile, NaN without samples.
func (o *ObserveStat) P99() float64 {
	t := rankOf(o.count(), 0.99, nil, o.valueAt, o.eachValues)
	return t.result()
}

// valueAt is value i in recording order (i < count).
func (o *ObserveStat) valueAt(i int) float64 {
	if o.lean {
		return o.vals.at(i)
	}
	return o.samples.At(i).Value
}

// count is the number of values kept.
func (o *ObserveStat) count() int {
	if o.lean {
		return o.vals.len()
	}
	return o.samples.Len()
}

// Samples are the recorded samples in recording order, in a fresh slice
// (nil without any): reading them leaves the run's state as it was.
func (o *ObserveStat) Samples() []Sample {
	if o.samples.Len() == 0 {
		return nil
	}
	return o.samples.AppendTo(make([]Sample, 0, o.samples.Len()))
}

// stretch is values i, i+1, … (i < count) in recording order, to the end
// of i's chunk: a lean chunk of float64 values as it is, any other
// converted, at most runConvert values of it, into buf's array.
func (o *ObserveStat) stretch(i int, buf []float64) []float64 {
	buf = buf[:0]
	at, end := i%logChunk, min(logChunk, i%logChunk+runConvert)
	if o.lean {
		c := &o.vals.chunks[i/logChunk]
		if c.f64 != nil {
			return c.f64[at:]
		}
		for _, x := range c.f32[at:min(end, len(c.f32))] {
			buf = append(buf, float64(x))
		}
		return buf
	}
	c := o.samples.chunks[i/logChunk]
	for _, s := range c[at:min(end, len(c))] {
		buf = append(buf, s.Value)
	}
	return buf
}

// runConvert is the most values stretch converts at a time.
const runConvert = 512

// eachValues calls f with the values in recording order, a stretch at a
// time (a slice valid during the call).
func (o *ObserveStat) eachValues(f func([]float64)) {
	var buf [runConvert]float64
	for i, n := 0, o.count(); i < n; {
		vs := o.stretch(i, buf[:0])
		f(vs)
		i += len(vs)
	}
}

// Values is a fresh slice of the sample values in recording order.
func (o *ObserveStat) Values() []float64 {
	v := make([]float64, 0, o.count())
	o.eachValues(func(vs []float64) { v = append(v, vs...) })
	return v
}

// Lean says that the observe keeps its values only, no sample
// (Options.Lean).
func (o *ObserveStat) Lean() bool { return o.lean }

// SetLean makes the observe keep its values only (Options.Lean), before
// its first sample.
func (o *ObserveStat) SetLean() { o.lean = true }

// SampleLog is the observe's samples, in the order they were added (none
// when lean).
func (o *ObserveStat) SampleLog() *Log[Sample] { return &o.samples }

// Share is a copy that shares every full chunk of the samples with o
// (a checkpoint's copy: the logs only grow).
func (o *ObserveStat) Share() ObserveStat {
	return ObserveStat{w: o.w, samples: o.samples.Share(), lean: o.lean, vals: o.vals.share()}
}

// OwnBytes is what Share allocates for a copy (Log.OwnBytes).
func (o *ObserveStat) OwnBytes() int64 { return o.samples.OwnBytes() + o.vals.ownBytes() }

// Summary is what the report says of an observe.
type Summary struct {
	Count              uint64
	Mean, CI, CV2, P99 float64
	AllZero            bool // every sample is 0
}

// Summary summarises the observe for the report, with the quantile's
// candidates in *buf, grown as needed: a report reuses one buffer for all
// its observes (nil: a buffer of its own).
func (o *ObserveStat) Summary(buf *[]int64) Summary {
	if buf == nil {
		buf = new([]int64)
	}
	// the batch sums, four batches side by side; then a pass over the
	// values for the p99's candidates and whether all are 0
	ci := o.CI()
	p99 := rankOf(o.count(), 0.99, *buf, o.valueAt, o.eachValues)
	*buf = p99.keys
	return Summary{
		AllZero: p99.allZero(),
		Count:   o.w.Count(),
		Mean:    o.w.Mean(),
		CI:      ci,
		CV2:     o.w.CV2(),
		P99:     p99.result(),
	}
}

// ------------------------------------------------------ time averages ----

// TimeIntegral is the cheap time average of a piecewise-constant value: it
// integrates the value since its start (time 0, or the last
// [TimeIntegral.Reset], which the run calls at the warm-up instant) and
// keeps no history. Use it for stage, pool and live-session means; use
// [TimeAvg] when the change points, a confidence interval or the extremes
// are needed (gauges). Its zero value holds 0 from time 0.
type TimeIntegral struct {
	value    float64
	last     float64
	integral float64 // the area is integral·2^scale
	start    float64
	scale    int // 0 until the area would overflow float64 (values near 1e308)
}

// Set makes the value v from time now on (now is not before the last
// change).
func (a *TimeIntegral) Set(now, v float64) {
	// area's common case inline (a finite area at scale 0); area again
	// otherwise, from the same state
	x := a.integral + float64(a.value*(now-a.last))
	if a.scale != 0 || x-x != 0 {
		x = a.area(now)
	}
	a.integral, a.last, a.value = x, now, v
}

// area is the area up to now, in the scale: the stored area plus the
// current value's since the last change. When that would overflow
// float64 the scale goes up instead, so that a pool held at 1e308 still
// averages 1e308, not inf. At scale 0 it is integral + value·dt exactly.
func (a *TimeIntegral) area(now float64) float64 {
	if a.scale == 0 { // areaScaled's first pass, Ldexp by 0 being the identity, when x is finite
		if x := a.integral + float64(a.value*(now-a.last)); x-x == 0 {
			return x
		}
	}
	return a.areaScaled(now)
}

func (a *TimeIntegral) areaScaled(now float64) float64 {
	for {
		x := a.integral + float64(math.Ldexp(a.value, -a.scale)*(now-a.last))
		if !math.IsInf(x, 0) || math.IsInf(a.value, 0) || math.IsInf(a.integral, 0) || a.scale >= 2048 {
			return x
		}
		a.scale += 512
		a.integral = math.Ldexp(a.integral, -512)
	}
}

// Add changes the value by delta from time now on.
func (a *TimeIntegral) Add(now, delta float64) { a.Set(now, a.value+delta) }

// Value is the current value.
func (a *TimeIntegral) Value() float64 { return a.value }

// Reset forgets the area so far: the average starts at now (the end of
// warm-up). The current value is kept.
func (a *TimeIntegral) Reset(now float64) {
	a.integral, a.scale = 0, 0
	a.last = now
	a.start = now
}

// Mean is the time average from the start to now. If no time has passed
// since the start it is the current value.
func (a *TimeIntegral) Mean(now float64) float64 {
	span := now - a.start
	if span <= 0 {
		return a.value
	}
	return math.Ldexp(a.area(now)/span, a.scale)
}

// Touch is Set(now, 0) then Set(now, v) with v the current value: the
// area up to now, the value kept (the second Set adds 0·0).
func (a *TimeIntegral) Touch(now float64) {
	a.integral = a.area(now)
	a.last = now
}

// TouchZero is Touch for a value that may be 0: at 0 (and scale 0) the
// area adds 0·dt, +0, which leaves a non-negative integral as it is.
func (a *TimeIntegral) TouchZero(now float64) {
	if a.value == 0 && a.scale == 0 && a.integral >= 0 && !math.Signbit(a.integral) && now-a.last < math.Inf(1) {
		a.last = now
		return
	}
	a.Touch(now)
}

// TimePoint is a change point of a piecewise-constant value: Value holds
// from Time to the next point.
type TimePoint struct {
	Time  float64
	Value float64
}

// TimeAvg keeps the change points of a piecewise-constant value from time 0
// (warm-up included), at most one per instant, for a gauge: the time
// average, its confidence interval and the extremes over [warmup, end]
// are computed from them by [TimeAvg.Stats]. Its zero value has no points.
//
// A lean TimeAvg (Options.Lean) keeps no points: it folds each point into
// the statistics over [from, to] once the next point makes it final, and
// holds only the last two, so its memory is flat in the horizon. Its
// statistics over that span are the same, bit for bit; over another span
// (a report before the end) the mean and extremes are, and the CI is +Inf.
type TimeAvg struct {
	points Log[TimePoint]

	lean bool
	acc  timeAcc     // the folded points' statistics
	tail []TimePoint // the last points, at most two, not yet folded
	n    int         // points recorded, folded ones included
}

// OwnBytes is what a checkpoint's copy of g allocates for its points
// (Log.OwnBytes).
func (g *TimeAvg) OwnBytes() int64 { return g.points.OwnBytes() }

// leanOver makes g lean, keeping the statistics over [from, to].
func (g *TimeAvg) LeanOver(from, to float64) {
	g.lean = true
	g.acc = newTimeAcc(from, to, CIBatches)
}

// Record reads the value v at time t (not before the previous reading).
// The run reads a gauge when an instant is over (the clock is about to
// move, and at the end), so the point of an instant is the state after its
// last event. A reading at the instant of the last point replaces it, and
// drops it when that brings back the value before it; a reading equal to
// the last value adds nothing. Equality is bit for bit.
func (g *TimeAvg) Record(t, v float64) {
	if g.lean {
		g.recordLean(t, v)
		return
	}
	if last := g.points.Last(); last != nil {
		if last.Time == t {
			last.Value = v
			if prev := g.points.At(g.points.Len() - 2); prev != nil && statSameFloat(prev.Value, v) {
				g.points.Pop()
			}
			return
		}
		if statSameFloat(last.Value, v) {
			return
		}
	}
	g.points.Add(TimePoint{Time: t, Value: v})
}

// recordLean is Record on the tail: only the newest point can be replaced
// or dropped (it is the only one at the current instant), so the one
// before it is final once a third arrives.
func (g *TimeAvg) recordLean(t, v float64) {
	if k := len(g.tail); k > 0 {
		last := &g.tail[k-1]
		if last.Time == t {
			last.Value = v
			if k >= 2 && statSameFloat(g.tail[k-2].Value, v) {
				g.tail = g.tail[:k-1]
				g.n--
			}
			return
		}
		if statSameFloat(last.Value, v) {
			return
		}
		if k == 2 {
			g.acc.fold(g.tail[0], g.tail[1].Time)
			g.tail[0] = g.tail[1]
			g.tail = g.tail[:1]
		}
	}
	g.tail = append(g.tail, TimePoint{Time: t, Value: v})
	g.n++
}

// recorded is the number of change points recorded and not dropped,
// folded ones included.
func (g *TimeAvg) Recorded() int {
	if g.lean {
		return g.n
	}
	return g.points.Len()
}

// fromEnd is the k-th newest point (0 the newest); k < recorded(), and
// k < 2 when lean (the tail holds the two newest).
func (g *TimeAvg) FromEnd(k int) TimePoint {
	if g.lean {
		return g.tail[len(g.tail)-1-k]
	}
	return *g.points.At(g.points.Len() - 1 - k)
}

// Points are the change points in time order, in a fresh slice (none
// when lean).
func (g *TimeAvg) Points() []TimePoint { return g.points.AppendTo(nil) }

// Stats are the statistics over [from, to] with 20 batch windows.
func (g *TimeAvg) Stats(from, to float64) TimeStats {
	if g.lean {
		return g.leanStats(from, to)
	}
	return TimeStatsOf(g.Points(), from, to, CIBatches)
}

// leanStats folds a copy of the statistics with the tail, to `to`.
func (g *TimeAvg) leanStats(from, to float64) TimeStats {
	if !(to-from > 0) || g.n == 0 {
		return noTimeStats()
	}
	a := g.acc
	a.windows = append([]float64(nil), g.acc.windows...)
	exact := from == a.from && to == a.to
	if !exact {
		// the folded segments all end by now: their sums over [from, to]
		// are the same, their windows are not
		a.from, a.to = from, to
	}
	for k, p := range g.tail {
		next := to
		if k+1 < len(g.tail) {
			next = g.tail[k+1].Time
		}
		a.fold(p, next)
	}
	ts := a.result()
	if !exact {
		ts.CI = math.Inf(1)
	}
	return ts
}

// Lean says that the gauge keeps no change points (Options.Lean): only
// what its statistics need.
func (g *TimeAvg) Lean() bool { return g.lean }

// PointLog is the gauge's change points, in time order (none when lean).
func (g *TimeAvg) PointLog() *Log[TimePoint] { return &g.points }

// TimeStats are the statistics of a piecewise-constant value over a span.
type TimeStats struct {
	Mean float64 // time average
	CI   float64 // half-width of the batch-means 95 % CI over equal windows
	Min  float64 // least value held for a positive time in the span
	Max  float64 // greatest value held for a positive time in the span
}

// TimeStatsOf computes the statistics over [from, to] of the value given by
// its change points (time order; a point before from holds into the span,
// the last one holds to its end): the time average with segments clipped
// to the span, the half-width of the batch-means CI of the averages over
// `batches` equal windows, and the extremes held for a positive time. With
// no points, no span (to−from ≤ 0 or NaN) or no windows, Mean, Min and Max
// are NaN and CI is +Inf (the reference's "no estimate").
func TimeStatsOf(points []TimePoint, from, to float64, batches int) TimeStats {
	if !(to-from > 0) || len(points) == 0 || batches <= 0 {
		return noTimeStats()
	}
	a := newTimeAcc(from, to, batches)
	for k, p := range points {
		next := to
		if k+1 < len(points) {
			next = points[k+1].Time
		}
		a.fold(p, next)
	}
	return a.result()
}

func noTimeStats() TimeStats {
	return TimeStats{Mean: math.NaN(), CI: math.Inf(1), Min: math.NaN(), Max: math.NaN()}
}

// timeAcc accumulates TimeStatsOf segment by segment, in time order, so a
// run can fold its change points as they become final and keep none.
type timeAcc struct {
	from, to, width float64
	batches         int
	windows         []float64
	total, lo, hi   float64
}

func newTimeAcc(from, to float64, batches int) timeAcc {
	span := to - from
	return timeAcc{from: from, to: to, width: span / float64(batches), batches: batches,
		windows: make([]float64, batches), lo: math.Inf(1), hi: math.Inf(-1)}
}

// at is the window of x, computed, not stepped to, so no rounding stops a
// walk.
func (c *timeAcc) at(x float64) int {
	f := statMax((x-c.from)/c.width, 0)
	if f >= float64(c.batches-1) {
		return c.batches - 1
	}
	return int(f)
}

// fold adds the segment of point p, which holds until next.
func (c *timeAcc) fold(p TimePoint, next float64) {
	from, to, batches, width := c.from, c.to, c.batches, c.width
	a, b := statMax(p.Time, from), statMin(next, to)
	if b <= a {
		return
	}
	v := p.Value
	c.lo = statMin(c.lo, v)
	c.hi = statMax(c.hi, v)
	c.total += float64(v * (b - a))
	// the segment's overlap with every window it can touch
	first, last := max(c.at(a)-1, 0), min(c.at(b)+1, batches-1)
	for w := first; w <= last; w++ {
		wlo := from
		if w > 0 {
			wlo = from + float64(float64(w)*width)
		}
		whi := to
		if w < batches-1 {
			whi = from + float64(float64(w+1)*width)
		}
		if overlap := statMin(b, whi) - statMax(a, wlo); overlap > 0 {
			c.windows[w] += float64(v * overlap)
		}
	}
}

// result is the statistics of the segments folded; it leaves c as it was.
func (c *timeAcc) result() TimeStats {
	out := noTimeStats()
	out.Mean = c.total / (c.to - c.from)
	out.Min = c.lo
	out.Max = c.hi
	if c.batches >= 2 {
		windows := make([]float64, len(c.windows))
		for i, w := range c.windows {
			windows[i] = w / c.width
		}
		out.CI = BatchMeansHalfWidth(windows, c.batches)
	}
	return out
}

// ------------------------------------------------------- histograms ----

// statHistWidth is the relative width of a LogHistogram bucket.
const statHistWidth = 0.01

// statHistLogBase is ln(1 + statHistWidth), as log1p(0.01) rounds it
// (0x1.460d6ccca3677p-7).
const statHistLogBase = 0.009950330853168083

// LogHistogram is a distribution kept as counts in buckets of 1 % relative
// width, so it costs the range of its values, not their number. Bucket k
// holds the positive x with floor(ln x / ln 1.01) = k; zero, negative and
// NaN values share one bucket below every other, +Inf one above. A quantile
// is the geometric middle of its bucket clamped to the least and greatest
// value the bucket saw: within 0.5 % of the true value, and exact when
// the bucket saw a single value. The mean is exact. Its zero value is
// empty and ready to use.
type LogHistogram struct {
	n    uint64
	sum  float64
	low  statHistBucket   // zero, negative and NaN values
	inf  statHistBucket   // +Inf
	base int              // bucket index of bkts[0]
	bkts []statHistBucket // dense, from base up

	// the last two finite positive values' buckets: runs of equal values
	// skip the logarithm, and so do an engine's inter-token gaps in a steady
	// batch, which alternate between the two roundings of its step
	lastX, prevX float64
	lastK, prevK int
}

type statHistBucket struct {
	count  uint64
	lo, hi float64
}

func (b *statHistBucket) add(x float64) {
	if b.count == 0 {
		b.lo, b.hi = x, x
	} else {
		b.lo = statMin(b.lo, x)
		b.hi = statMax(b.hi, x)
	}
	b.count++
}

// Add adds one value.
func (h *LogHistogram) Add(x float64) {
	h.n++
	h.sum += x
	switch {
	case !(x > 0):
		h.low.add(x)
	case math.IsInf(x, 1):
		h.inf.add(x)
	default:
		if x != h.lastX {
			if x == h.prevX {
				h.lastX, h.prevX, h.lastK, h.prevK = h.prevX, h.lastX, h.prevK, h.lastK
			} else {
				h.prevX, h.prevK = h.lastX, h.lastK
				h.lastX, h.lastK = x, statHistIndex(x)
			}
		}
		h.bucket(h.lastK).add(x)
	}
}

// statHistIndex is floor(ln x / ln 1.01) for a finite x > 0 (between about
// −74816 and 71334).
func statHistIndex(x float64) int {
	return int(math.Floor(math.Log(x) / statHistLogBase))
}

// bucket returns bucket k, growing the dense range to hold it (with
// headroom, so growth is amortised).
func (h *LogHistogram) bucket(k int) *statHistBucket {
	if len(h.bkts) == 0 {
		h.base = k - 16
		h.bkts = make([]statHistBucket, 32)
	}
	if i := k - h.base; i >= 0 && i < len(h.bkts) {
		return &h.bkts[i]
	}
	lo, hi := h.base, h.base+len(h.bkts) // [lo, hi)
	grow := max(len(h.bkts), 32)
	if k < lo {
		lo = min(k, lo-grow)
	} else {
		hi = max(k+1, hi+grow)
	}
	nb := make([]statHistBucket, hi-lo)
	copy(nb[h.base-lo:], h.bkts)
	h.base, h.bkts = lo, nb
	return &h.bkts[k-h.base]
}

// Count is the number of values added.
func (h *LogHistogram) Count() uint64 { return h.n }

// Mean is the exact mean (sum over count), NaN without values.
func (h *LogHistogram) Mean() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.sum / float64(h.n)
}

// Quantile is the q-quantile: the bucket of the value of nearest rank
// ceil(q·n) (clamped to [1, n]), as its geometric middle held within the
// least and greatest value the bucket saw. NaN without values.
func (h *LogHistogram) Quantile(q float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	rank := statNearestRank(q, h.n)
	seen := h.low.count
	if seen >= rank {
		return statClamp(0, h.low.lo, h.low.hi)
	}
	for i := range h.bkts {
		b := &h.bkts[i]
		if b.count == 0 {
			continue
		}
		seen += b.count
		if seen >= rank {
			mid := statExp(float64(float64(h.base+i)+0.5) * statHistLogBase)
			return statClamp(mid, b.lo, b.hi)
		}
	}
	return h.inf.hi // the ranks add up to n: the rest is +Inf
}

func statClamp(x, lo, hi float64) float64 {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

// statExp is e^x correctly rounded to float64 (computed with 256-bit
// floats), so a bucket's middle is the same on every platform (math.Exp
// has per-architecture assembly) and matches a correctly rounded libm.
// Only quantile queries call it.
func statExp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	case x == 0:
		return 1
	}
	const prec = 256
	// e^x = (e^(x/2^m))^(2^m), with |x/2^m| < 2^-10 so the series is short
	m := 0
	if ax := math.Abs(x); ax >= 0x1p-10 {
		_, e := math.Frexp(ax) // ax = f·2^e, f in [0.5, 1)
		m = e + 10
	}
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.SetMantExp(r, -m)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -prec-8)
	for k := int64(1); ; k++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for range m {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}
