package stats

import (
	"math"
	"testing"
)

// TestValueLog: the values come back bit for bit, whether their chunk
// stays float32 or turns float64 part way, across chunk boundaries; a
// shared copy and the original then go their own ways.
func TestValueLog(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -2.5, math.Inf(1), math.Inf(-1), math.NaN(), 0.1, 1e300, 5e-324, 3}
	var want []float64
	var l valueLog
	for i := 0; i < 3*logChunk+7; i++ {
		x := float64(i % 17) // exactly a float32
		if i >= logChunk && i < 2*logChunk && i%1000 == 999 {
			x = special[(i/1000)%len(special)] // a float64 part way through chunk 1
		}
		if i == 3*logChunk+3 {
			x = math.Pi // the last chunk turns float64 too
		}
		l.add(x)
		want = append(want, x)
	}
	if l.len() != len(want) {
		t.Fatalf("len %d, want %d", l.len(), len(want))
	}
	check := func(l *valueLog, want []float64) {
		t.Helper()
		for i, x := range want {
			if got := l.at(i); math.Float64bits(got) != math.Float64bits(x) {
				t.Fatalf("value %d is %v (%#x), want %v (%#x)", i, got, math.Float64bits(got), x, math.Float64bits(x))
			}
		}
	}
	check(&l, want)
	if l.chunks[0].f64 != nil || l.chunks[1].f64 == nil || l.chunks[3].f64 == nil {
		t.Errorf("chunk kinds: %v %v %v, want float32, float64, float64", l.chunks[0].f64 == nil, l.chunks[1].f64 == nil, l.chunks[3].f64 == nil)
	}
	c := l.share()
	l.add(7)
	c.add(math.E)
	check(&l, append(append([]float64(nil), want...), 7))
	check(&c, append(append([]float64(nil), want...), math.E))
}

// TestValueLogChunkKind: a chunk takes the kind its first value needs, so
// a log of values that are not float32 allocates one float64 array a chunk
// and no float32 one; a float32 chunk still turns float64 part way.
func TestValueLogChunkKind(t *testing.T) {
	allocs := testing.AllocsPerRun(5, func() {
		l := valueLog{chunks: make([]valueChunk, 0, 2)} // one allocation
		for i := range 2 * logChunk {
			l.add(float64(i) + 0.1) // never a float32
		}
	})
	if allocs != 3 { // the chunks' slice and two float64 arrays
		t.Errorf("%v allocations for two float64 chunks, want 3", allocs)
	}
	var l valueLog
	l.add(1)
	l.add(0.1)
	if c := l.chunks[0]; c.f32 != nil || len(c.f64) != 2 || c.f64[0] != 1 || c.f64[1] != 0.1 {
		t.Errorf("a chunk that turned float64: f32 %v, f64 %v", c.f32, c.f64)
	}
}
