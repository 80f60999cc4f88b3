package stats

// Batch sums four batches at a time.
//
// A batch's sum is a chain of additions, each waiting on the one before
// (about four cycles each), so summing the batches one after the other
// leaves the processor idle most of the time. sumLanes walks four batches
// side by side, each summed in order from its first value exactly as
// batchSums.addAll sums it: the same float operations in the same order
// per batch, so the same bits, in about a quarter of the time.

// sumLanes is the batch sums of the first len(a.sums)·size values (a.sums
// all 0, len(a.sums) a multiple of 4), which run gives a stretch at a
// time: run(lane, i) is values i, i+1, … to the end of a stretch (at
// least one value), valid until that lane asks again.
func (a *batchSums) sumLanes(run func(lane, i int) []float64) {
	if len(a.sums)%4 != 0 {
		panic("sumLanes: the batches are not a multiple of four")
	}
	per := len(a.sums) / 4 // lane l sums batches l·per … (l+1)·per−1
	var pos [4]int
	var cur [4][]float64
	for l := range pos {
		pos[l] = l * per * a.size
	}
	for b := range per {
		var s0, s1, s2, s3 float64
		for left := a.size; left > 0; {
			for l := range cur {
				if len(cur[l]) == 0 {
					cur[l] = run(l, pos[l])
				}
			}
			k := min(left, len(cur[0]), len(cur[1]), len(cur[2]), len(cur[3]))
			r0, r1, r2, r3 := cur[0][:k], cur[1][:k], cur[2][:k], cur[3][:k]
			for j, x := range r0 {
				s0 += x
				s1 += r1[j]
				s2 += r2[j]
				s3 += r3[j]
			}
			for l := range cur {
				cur[l] = cur[l][k:]
				pos[l] += k
			}
			left -= k
		}
		a.sums[b], a.sums[per+b], a.sums[2*per+b], a.sums[3*per+b] = s0, s1, s2, s3
	}
}

// valueRuns gives an observe's values to sumLanes, a stretch at a time
// (ObserveStat.stretch), each lane's converted values in its own buffer.
type valueRuns struct {
	o    *ObserveStat
	bufs [4][runConvert]float64
}

func (r *valueRuns) run(lane, i int) []float64 { return r.o.stretch(i, r.bufs[lane][:0]) }
