package tui

import (
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// TestWhyWords: the why-chain of session 35 in the seed with decoders too
// small for some prompts (the README's screen), worded as the Why pane
// shows it.
func TestWhyWords(t *testing.T) {
	s, err := interp.New(jammed(t), interp.Options{Horizon: 2000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(58.9)
	var got []string
	for _, st := range s.Why(35) {
		got = append(got, strings.Repeat("  ", st.Depth)+whyWords(st, s.Now()))
	}
	want := []string{
		"session 35 turn 1 at llmd_nixl_pull.sq:145",
		"  holds a lease on P.kv[0]: 1,200 units for 1.56 s (since t 57.3449 s)",
		"  queued at D.kv[0], position 2 of 3, for 1.56 s (since t 57.3449 s)",
		"    the head (session 24 turn 2) asks 2,496 units of D.kv[0]: free 16 of 2,400 (used 0, cached 2,384)",
		"      2,496 units is more than D.kv[0]'s cap of 2,400: it can never fit, and D.kv[0] is blocked for good",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("why of session 35:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
