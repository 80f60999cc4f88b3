package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearestRank is the nearest-rank q-quantile by a sort: the reference
// rankKeys is held to, bit for bit.
func nearestRank(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.SortFunc(s, TotalCompare)
	return s[statNearestRank(q, uint64(len(s)))-1]
}

// TestRankKeys holds rankKeys (Quantile, an observe's P99 and row) to a
// sort: values of many shapes and sizes (below the candidates' floor,
// around the sample's threshold, 200 000), given in random pieces, at a
// p99 and at ranks that are no tail. The bits must match, NaNs and signed
// zeros included, and the candidates kept must stay within their limit.
func TestRankKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	special := []float64{math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 5e-324, -1e308}
	gens := map[string]func(n int) []float64{
		"exponential": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = r.ExpFloat64()
			}
			return xs
		},
		"ascending": func(n int) []float64 { // the largest come last: the cut keeps rising
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(i) * 0.5
			}
			return xs
		},
		"descending": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(n - i)
			}
			return xs
		},
		"few values": func(n int) []float64 { // ties at the cut
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(r.IntN(3))
			}
			return xs
		},
		"adjacent": func(n int) []float64 { // neighbouring floats shuffled: keys 1 apart, a cut's next key to come
			xs := make([]float64, n)
			for i, k := range r.Perm(n) {
				xs[i] = math.Float64frombits(math.Float64bits(1) + uint64(k))
			}
			return xs
		},
		"constant": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = 7
			}
			return xs
		},
		"special": func(n int) []float64 { // NaNs of both signs, infinities, zeros
			xs := make([]float64, n)
			for i := range xs {
				if r.IntN(50) == 0 {
					xs[i] = special[r.IntN(len(special))]
				} else {
					xs[i] = r.NormFloat64()
				}
			}
			return xs
		},
	}
	checks := 0
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 255, 256, 257, 1000, 16383, 16384, 20000, 200000} {
			xs := gen(n)
			for _, q := range []float64{0.99, 0.999, 0.9, 0.5, 0, 1} {
				want := nearestRank(xs, q)
				if got := Quantile(xs, q); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, n %d: Quantile(%v) = %v (%#x), want %v (%#x)", name, n, q, got, math.Float64bits(got), want, math.Float64bits(want))
				}
				// in random pieces, as an observe's chunks come
				k := newRankKeys(n, q, nil, func(i int) float64 { return xs[i] })
				for rest := xs; len(rest) > 0; {
					p := min(len(rest), 1+r.IntN(5000))
					k.addAll(rest[:p])
					rest = rest[p:]
					if len(k.keys) > k.limit {
						t.Fatalf("%s, n %d, q %v: %d candidates, over the limit %d", name, n, q, len(k.keys), k.limit)
					}
				}
				if !k.complete() {
					k.again()
					k.addAll(xs)
				}
				if got := k.result(); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, n %d: in pieces, the %v-quantile is %v, want %v", name, n, q, got, want)
				}
				checks++
			}
		}
	}
	if checks != 7*11*6 {
		t.Fatalf("%d checks", checks)
	}
}

// TestRankKeysAgain: values chosen so the stride sample misleads the first
// cut (the sampled places hold the largest values, too few to reach the
// rank) take the second pass, and still give the exact rank; a stationary
// stream does not, and keeps few candidates.
func TestRankKeysAgain(t *testing.T) {
	const n = 200000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i % 1000) // below every sampled value
	}
	for j := range rankSample {
		xs[(2*j+1)*n/(2*rankSample)] = 1e6 + float64(j)
	}
	k := newRankKeys(n, 0.99, nil, func(i int) float64 { return xs[i] })
	k.addAll(xs)
	if k.complete() {
		t.Fatalf("the sampled cut kept %d candidates, enough for m = %d: the test shows nothing", len(k.keys), k.m)
	}
	want := nearestRank(xs, 0.99)
	if got := Quantile(xs, 0.99); got != want || want >= 1e6 {
		t.Fatalf("p99 %v, want %v (the 2001st largest, below the 1024 sampled)", got, want)
	}

	r := rand.New(rand.NewPCG(5, 6))
	for i := range xs {
		xs[i] = r.ExpFloat64()
	}
	k = newRankKeys(n, 0.99, nil, func(i int) float64 { return xs[i] })
	k.addAll(xs)
	// the sample's cut (its 28th largest of 1024) sits near the top 3 %,
	// above which are m = 2001 of 200 000 and more: the candidates stay
	// under the limit of 4m, so no cut was needed, only the last select
	if !k.complete() || len(k.keys) >= k.limit || k.lo == math.MinInt64 {
		t.Fatalf("exponential values: %d candidates for m = %d (cut %d)", len(k.keys), k.m, k.lo)
	}
}

// TestObserveRowP99: an observe's summary, lean or not, has the p99 and the
// all-zero flag of a sort and a scan, over values past several chunks.
func TestObserveRowP99(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, lean := range []bool{false, true} {
		for _, n := range []int{0, 39, 40, 3*logChunk + 11, 20000} {
			for _, zero := range []bool{false, true} {
				o := ObserveStat{lean: lean}
				xs := make([]float64, n)
				for i := range xs {
					if !zero {
						xs[i] = math.Round(r.ExpFloat64()*1000) / 7
					} else if i%2 == 1 {
						xs[i] = math.Copysign(0, -1)
					}
					o.Add(float64(i), uint64(i), 0, xs[i])
				}
				row := o.Summary(nil)
				if want := nearestRank(xs, 0.99); math.Float64bits(row.P99) != math.Float64bits(want) || math.Float64bits(o.P99()) != math.Float64bits(want) {
					t.Errorf("lean %v, n %d: p99 %v (accessor %v), want %v", lean, n, row.P99, o.P99(), want)
				}
				if row.AllZero != (zero || n == 0) {
					t.Errorf("lean %v, n %d, zero %v: AllZero %v", lean, n, zero, row.AllZero)
				}
			}
		}
	}
}

// BenchmarkObserveRow is the report's work for one lean observe of
// 180 000 values (an M/M/1 response time at bench/run.sh's horizon): the
// batch sums, the p99's candidates and their select.
func BenchmarkObserveRow(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	o := ObserveStat{lean: true}
	for range 180000 {
		o.AddLean(5 * r.ExpFloat64())
	}
	var keys []int64
	b.ReportAllocs()
	for b.Loop() {
		o.Summary(&keys)
	}
}
