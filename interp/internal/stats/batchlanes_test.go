package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSumLanes: four batches side by side give every batch sum's bits as
// one batch at a time (addAll over the values in order) does, the CI is
// BatchMeansHalfWidth's of the values added, and Values gives them back,
// for lean observes whose chunks are float32, float64 or turn float64 part
// way, and for observes that keep samples, at sizes where the batches and
// lanes start and end in the middle of chunks and past them.
func TestSumLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{40, 79, 80, 1000, logChunk*4 - 1, logChunk*20 + 19, 200003} {
		for _, kind := range []string{"float32", "float64", "mixed", "samples"} {
			o := ObserveStat{lean: kind != "samples"}
			xs := make([]float64, 0, n)
			for i := range n {
				x := float64(r.IntN(100)) // exactly a float32
				// mixed: every odd chunk turns float64 part way
				if kind == "float64" || kind == "samples" || kind == "mixed" && i/logChunk%2 == 1 && i%logChunk == 2000 {
					x = r.ExpFloat64() * 1e3
				}
				o.Add(float64(i), 0, 0, x)
				xs = append(xs, x)
			}
			if vs := o.Values(); !slices.Equal(vs, xs) {
				t.Fatalf("%s, n %d: Values gives %d values, not the %d added in order", kind, n, len(vs), n)
			}
			if kind == "mixed" && n > 2*logChunk && (o.vals.chunks[0].f64 != nil || o.vals.chunks[1].f64 == nil) {
				t.Fatalf("n %d: chunk 0 float64 %v, chunk 1 %v: want float32, then float64", n, o.vals.chunks[0].f64 != nil, o.vals.chunks[1].f64 != nil)
			}
			want := newBatchSums(n, CIBatches)
			o.eachValues(want.addAll)
			got := newBatchSums(n, CIBatches)
			runs := valueRuns{o: &o}
			got.sumLanes(runs.run)
			for b := range want.sums {
				if math.Float64bits(got.sums[b]) != math.Float64bits(want.sums[b]) {
					t.Fatalf("%s, n %d: batch %d sums to %v by lanes, %v in order", kind, n, b, got.sums[b], want.sums[b])
				}
			}
			want1 := BatchMeansHalfWidth(xs, CIBatches) // one batch at a time
			if hw := o.CI(); math.Float64bits(hw) != math.Float64bits(want1) || math.IsInf(hw, 0) {
				t.Fatalf("%s, n %d: CI %v, BatchMeansHalfWidth %v", kind, n, hw, want1)
			}
		}
	}
}
