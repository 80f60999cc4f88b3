package interp_test

import (
	"reflect"
	"testing"
)

// TestEngineOnlyPassesOverToALaterStatement: a resident the first advance
// statement's `only` excludes keeps its turn for a later statement. Step
// clock, budget 5. s0 (prompt 10) is admitted at 0 and prefills 5 in
// [0,1]. At 1 the decode-only statement passes over it and the plain one
// serves its last 5 in [1,2] (s1, waiting since 0.5, finds no budget). At
// 2 s0 decodes 1 and s1 is admitted with the 4 left: its prefill of 2 ends
// at 3. Both then decode one token per iteration: s0's last at 5, s1's at 6.
func TestEngineOnlyPassesOverToALaterStatement(t *testing.T) {
	got := twoRequests(t, 5, "advance running only (decoding == 1); advance running; admit waiting;", 10, 2)
	if want := []float64{2, 3}; !reflect.DeepEqual(got["first"], want) {
		t.Errorf("first = %v, want %v", got["first"], want)
	}
	if want := []float64{5, 6}; !reflect.DeepEqual(got["last"], want) {
		t.Errorf("last = %v, want %v", got["last"], want)
	}
}
