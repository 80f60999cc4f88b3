package stats

import (
	"math"
	"unsafe"
)

// Log is an append-only log kept in fixed-size chunks, so that growing
// it never copies what it holds and a checkpoint can share it: every chunk
// but the last is full and never written again, so a copy of the log shares
// those and copies only the last (see [Log.share]).
//
// Only the last entry may be changed in place ([Log.last]) or removed
// ([Log.pop]); the statistics that use it change only the entry of the
// current instant, which is always the last.
type Log[T any] struct {
	chunks [][]T
	n      int
}

// logChunk is the number of entries of a full chunk.
const logChunk = 4096

func (l *Log[T]) Len() int { return l.n }

func (l *Log[T]) Add(x T) {
	k := len(l.chunks)
	if k == 0 || len(l.chunks[k-1]) == logChunk {
		l.chunks = append(l.chunks, make([]T, 0, logChunk))
		k++
	}
	l.chunks[k-1] = append(l.chunks[k-1], x)
	l.n++
}

// last is the last entry, nil when the log is empty.
func (l *Log[T]) Last() *T { return l.At(l.n - 1) }

// at is entry i, nil when i is out of range.
func (l *Log[T]) At(i int) *T {
	if i < 0 || i >= l.n {
		return nil
	}
	return &l.chunks[i/logChunk][i%logChunk]
}

// pop removes the last entry.
func (l *Log[T]) Pop() {
	k := len(l.chunks) - 1
	c := l.chunks[k]
	if len(c) == 1 {
		l.chunks[k] = nil
		l.chunks = l.chunks[:k]
	} else {
		l.chunks[k] = c[:len(c)-1]
	}
	l.n--
}

// appendTo appends every entry, in order, to dst.
func (l *Log[T]) AppendTo(dst []T) []T {
	for _, c := range l.chunks {
		dst = append(dst, c...)
	}
	return dst
}

// share is a copy of the log that shares every chunk but the last with l
// and owns a copy of the last one. Neither log then writes a shared chunk:
// both only append (into their own last chunk or a new one) and change the
// last entry in place, which is in their own last chunk — after a pop the
// new last entry may sit in a shared chunk, but the statistics change an
// entry only in the instant that added it, and that instant is over.
func (l *Log[T]) Share() Log[T] {
	out := Log[T]{n: l.n}
	if len(l.chunks) == 0 {
		return out
	}
	out.chunks = make([][]T, len(l.chunks), cap(l.chunks))
	copy(out.chunks, l.chunks)
	k := len(l.chunks) - 1
	last := l.chunks[k]
	own := make([]T, len(last)) // exactly its length: the next append reallocates
	copy(own, last)
	out.chunks[k] = own
	return out
}

// OwnBytes is what Share allocates for a copy: the chunk list and the
// last chunk.
func (l *Log[T]) OwnBytes() int64 {
	if len(l.chunks) == 0 {
		return 0
	}
	var x T
	return int64(cap(l.chunks))*int64(unsafe.Sizeof(l.chunks[0])) + int64(len(l.chunks[len(l.chunks)-1]))*int64(unsafe.Sizeof(x))
}

// valueLog is an append-only log of float64 values kept in chunks of
// logChunk, each stored as float32 while every value in it is exactly a
// float32 (counts, token numbers, 0/1 tests: half the memory) and as
// float64 from the first that is not. Reads give back the values bit for
// bit. Like Log, a copy shares the full chunks (valueLog.share).
type valueLog struct {
	chunks []valueChunk
	n      int
}

type valueChunk struct {
	f32 []float32 // while every value is a float32
	f64 []float64 // otherwise
}

func (c *valueChunk) len() int { return len(c.f32) + len(c.f64) }

func (l *valueLog) len() int { return l.n }

func (l *valueLog) add(x float64) {
	// the common case first: a float64 chunk with room
	if k := len(l.chunks) - 1; k >= 0 {
		if c := &l.chunks[k]; c.f64 != nil && len(c.f64) < logChunk {
			c.f64 = append(c.f64, x)
			l.n++
			return
		}
	}
	l.addSlow(x)
}

// addSlow is add into a float32 chunk, a full one or none. A new chunk
// is made when its first value comes, of the kind that value needs: a
// chunk that would turn float64 at once is never a float32 one.
func (l *valueLog) addSlow(x float64) {
	k := len(l.chunks)
	if k == 0 || l.chunks[k-1].len() == logChunk {
		l.chunks = append(l.chunks, valueChunk{})
		k++
	}
	c := &l.chunks[k-1]
	if c.f64 == nil {
		if f := float32(x); math.Float64bits(float64(f)) == math.Float64bits(x) {
			if c.f32 == nil {
				c.f32 = make([]float32, 0, logChunk)
			}
			c.f32 = append(c.f32, f)
			l.n++
			return
		}
		c.f64 = make([]float64, len(c.f32), logChunk)
		for i, f := range c.f32 {
			c.f64[i] = float64(f)
		}
		c.f32 = nil
	}
	c.f64 = append(c.f64, x)
	l.n++
}

// at is value i (0 <= i < len).
func (l *valueLog) at(i int) float64 {
	c := &l.chunks[i/logChunk]
	if c.f64 != nil {
		return c.f64[i%logChunk]
	}
	return float64(c.f32[i%logChunk])
}

// ownBytes is what share allocates for a copy (Log.OwnBytes).
func (l *valueLog) ownBytes() int64 {
	if len(l.chunks) == 0 {
		return 0
	}
	last := &l.chunks[len(l.chunks)-1]
	return int64(cap(l.chunks))*int64(unsafe.Sizeof(*last)) + 4*int64(len(last.f32)) + 8*int64(len(last.f64))
}

// share is a copy that shares every chunk but the last, which it copies.
func (l *valueLog) share() valueLog {
	out := valueLog{n: l.n}
	if len(l.chunks) == 0 {
		return out
	}
	out.chunks = make([]valueChunk, len(l.chunks), cap(l.chunks))
	copy(out.chunks, l.chunks)
	k := len(l.chunks) - 1
	last := l.chunks[k]
	var own valueChunk
	if last.f64 != nil {
		own.f64 = append(make([]float64, 0, len(last.f64)), last.f64...)
	} else {
		own.f32 = append(make([]float32, 0, len(last.f32)), last.f32...)
	}
	out.chunks[k] = own
	return out
}
