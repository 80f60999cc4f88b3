package interp

import (
	"testing"

	"github.com/serq/serq/model"
)

// TestLoadCtx holds the unrolled loadCtx to its definition,
// c[quietSlots[k]] = q.ctx[k] for k below nctx, at both lengths, leaving
// every other variable as it was.
func TestLoadCtx(t *testing.T) {
	for _, n := range []int{batchOnly, len(quietSlots)} {
		var q quietIter
		q.nctx = n
		for k := range q.ctx {
			q.ctx[k] = float64(100 + k)
		}
		var got, want [model.NumCtx]float64
		for i := range got {
			got[i] = -float64(i) - 1
		}
		want = got
		for k := range n {
			want[quietSlots[k]] = q.ctx[k]
		}
		q.loadCtx(&got)
		if got != want {
			t.Errorf("nctx %d: loadCtx gives %v, want %v", n, got, want)
		}
	}
}
