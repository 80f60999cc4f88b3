package stats

// The functions only the tests call: the reference quantile and order the
// tests hold the accumulators to.

// Quantile is the nearest-rank q-quantile of xs: the value of rank
// ceil(q·n), clamped to [1, n], in xs sorted by [TotalCompare]. It is NaN
// when xs is empty. xs is not modified.
func Quantile(xs []float64, q float64) float64 {
	t := rankOf(len(xs), q, nil, func(i int) float64 { return xs[i] }, func(f func([]float64)) { f(xs) })
	return t.result()
}

// TotalCompare orders floats totally, as IEEE 754 totalOrder (Rust's
// f64::total_cmp): −NaN < −Inf < … < −0 < +0 < … < +Inf < +NaN.
func TotalCompare(a, b float64) int {
	x, y := statTotalKey(a), statTotalKey(b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
