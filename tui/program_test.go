package tui

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

var eventsRE = regexp.MustCompile(`│ ([0-9,]+) events`)

// TestProgram runs the TUI as a Bubble Tea program on a virtual terminal:
// it starts paused, steps, runs on real ticks, pauses and quits.
func TestProgram(t *testing.T) {
	m, err := New(seed(t), Options{Horizon: 2000, Seed: 1, Title: "seed", TickEvery: 5 * time.Millisecond, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	wait := func(cond func([]byte) bool) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), cond, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	has := func(subs ...string) func([]byte) bool {
		return func(b []byte) bool {
			for _, s := range subs {
				if !bytes.Contains(b, []byte(s)) {
					return false
				}
			}
			return true
		}
	}
	wait(has("⏸ PAUSED", "│ 0 events", "1 Leases", "5 Event log"))
	tm.Type("n")
	wait(has("│ 1 event │", "admitted at"))
	tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	wait(has("▶ RUNNING"))
	wait(func(b []byte) bool { // the run loop has run a batch
		for _, m := range eventsRE.FindAllSubmatch(b, -1) {
			if n, _ := strconv.Atoi(strings.ReplaceAll(string(m[1]), ",", "")); n > 1 {
				return true
			}
		}
		return false
	})
	tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	wait(has("⏸ PAUSED"))
	tm.Type("6")
	wait(has("▶ 6 Deployment", "P[0] · prefill"))
	tm.Type("q")
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if !ok {
		t.Fatalf("final model is not a *Model")
	}
	if fm.running || fm.state() != statePaused || fm.frame.snap.Events <= 1 {
		t.Errorf("final: running %v, state %v, %d events; want paused after more than one event",
			fm.running, fm.state(), fm.frame.snap.Events)
	}
}
