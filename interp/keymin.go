package interp

// keyMin finds the least of a run of candidates by a key tuple, compared
// lexicographically: `choose … by`, `queue by`, `preempt by`, `evict by`
// and a schedule statement's `by` all pick with it. A tuple may have any
// number of keys. Each picking site owns one keyMin, so a pick that
// evaluates expressions never shares its buffers with another.
//
// A pick is reset(n), then for each candidate: fill cur, call cmp, and
// take the candidate when it wins (the caller breaks ties).
type keyMin struct {
	best, cur []float64
	has       bool // best holds a candidate's keys
}

// reset starts a pick over tuples of n keys.
func (m *keyMin) reset(n int) {
	if cap(m.cur) < n {
		m.best = make([]float64, n)
		m.cur = make([]float64, n)
	}
	m.best, m.cur = m.best[:n], m.cur[:n]
	m.has = false
}

// cmp compares cur with the best so far: -1 when cur is less or there is
// no best yet, 0 when they are equal, 1 when cur is greater.
func (m *keyMin) cmp() int {
	if !m.has {
		return -1
	}
	return compareKeys(m.cur, m.best)
}

// take makes cur the best.
func (m *keyMin) take() {
	m.best, m.cur = m.cur, m.best
	m.has = true
}

// compareKeys compares two tuples of the same length lexicographically.
func compareKeys(a, b []float64) int {
	for i := range a {
		if a[i] < b[i] {
			return -1
		}
		if a[i] > b[i] {
			return 1
		}
	}
	return 0
}

// keyMins are the picking sites' buffers.
type keyMins struct {
	choose, resident, queue, victim, entry keyMin
}
