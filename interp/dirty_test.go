package interp

import (
	"slices"
	"testing"
)

// TestBitset: next walks the members in order across words, also while
// members are added ahead of the walk, and clear, fill and reset do what
// they say.
func TestBitset(t *testing.T) {
	b := newBitset(200)
	for _, i := range []int{0, 5, 63, 64, 130, 199} {
		b.set(i)
	}
	b.clear(5)
	var got []int
	for i := b.next(0); i >= 0; i = b.next(i + 1) {
		got = append(got, i)
		if i == 63 {
			b.set(100) // ahead of the walk: visited
			b.set(1)   // behind it: not in this walk
		}
	}
	if want := []int{0, 63, 64, 100, 130, 199}; !slices.Equal(got, want) {
		t.Errorf("walk %v, want %v", got, want)
	}
	if !b.has(1) || b.has(5) || b.next(200) != -1 || b.next(131) != 199 {
		t.Errorf("has(1) %v has(5) %v next(200) %d next(131) %d", b.has(1), b.has(5), b.next(200), b.next(131))
	}
	b.reset()
	if b.next(0) != -1 {
		t.Errorf("a reset set has %d", b.next(0))
	}
	b.fill(70)
	n := 0
	for i := b.next(0); i >= 0; i = b.next(i + 1) {
		n++
	}
	if n != 70 || b.has(70) {
		t.Errorf("fill(70) has %d members, has(70) %v", n, b.has(70))
	}
}

// TestBitsetClearRange: clearRange clears exactly the bits lo..hi-1, within
// a word, across words and at the edges, against clearing them one by one.
func TestBitsetClearRange(t *testing.T) {
	for _, r := range [][2]int{{0, 0}, {0, 1}, {3, 9}, {0, 64}, {63, 65}, {10, 130}, {64, 128}, {127, 200}, {0, 200}} {
		got, want := newBitset(200), newBitset(200)
		got.fill(200)
		want.fill(200)
		got.clearRange(r[0], r[1])
		for i := r[0]; i < r[1]; i++ {
			want.clear(i)
		}
		if !slices.Equal(got, want) {
			t.Errorf("clearRange(%d, %d): %x, want %x", r[0], r[1], got, want)
		}
	}
}
