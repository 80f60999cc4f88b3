package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// state is the run's state as the status bar names it.
type state int

const (
	statePaused state = iota
	stateRunning
	stateDone    // the horizon was reached (or the run drained)
	stateStalled // sessions wait and nothing pending can free them, or stuck requests
	stateError   // the run failed
)

func (s state) String() string {
	return [...]string{"PAUSED", "RUNNING", "DONE", "STALLED", "ERROR"}[s]
}

// glyph is the state's symbol, so the state never rests on colour.
func (s state) glyph() string {
	return [...]string{"⏸", "▶", "■", "⚠", "✗"}[s]
}

// statusBar is the top line: state, clock, events, pace and a flash
// message. Items that do not fit are dropped, least important first.
type statusBar struct {
	st *Styles
}

// statusItem is one field of the bar; lower prio survives longer.
type statusItem struct {
	text string
	prio int
}

// statusData is what the bar shows.
type statusData struct {
	title   string
	state   state
	busy    string // "rewinding", "restarting" while such a command runs
	time    float64
	horizon float64
	events  uint64
	live    int
	slice   float64
	speed   float64
	lag     bool
	seed    uint64
	flash   string
	blocked []string // pools whose queue head can never fit
	stalled bool     // work waits and nothing can progress
	notes   []string // the report's over/rej/stuck notes
	stale   int      // leases older than the stale threshold
	down    []string // members and stages down now (a program that can fail)
}

func (b statusBar) view(w int, d statusData) string {
	st := b.st
	var badge lipgloss.Style
	switch d.state {
	case stateRunning:
		badge = st.Status.Running
	case stateDone:
		badge = st.Status.Done
	case stateStalled:
		badge = st.Status.Stalled
	case stateError:
		badge = st.Status.Error
	default:
		badge = st.Status.Paused
	}
	stateText := d.state.glyph() + " " + d.state.String()
	if d.busy != "" {
		stateText += " ⟲ " + d.busy + "…"
	}
	prop := st.Status.Property.Render
	speed := "speed " + fmtSpeed(d.speed)
	if d.lag {
		speed += " ⚠ lag"
	}
	items := []statusItem{
		{badge.Render(stateText), 0},
		{prop(fmt.Sprintf("t %.4f s of %s", d.time, fmtValue(d.horizon))), 0},
		{prop(plural64(d.events, "event", "events")), 1},
		{prop(speed), 2},
		{prop("slice " + fmtSpan(d.slice)), 3},
		{prop(fmt.Sprintf("live %d", d.live)), 5},
		{prop(fmt.Sprintf("seed %d", d.seed)), 6},
		{st.Status.Title.Render(d.title), 7},
	}
	// The jam and the end come right after the state, and stay longest.
	var jam []statusItem
	for _, b := range d.blocked {
		jam = append(jam, statusItem{st.Status.Stalled.Render("⚠ BLOCKED " + b), 0})
	}
	if d.stalled && d.state != stateStalled {
		jam = append(jam, statusItem{st.Status.Stalled.Render("⚠ STALLED"), 0})
	}
	for _, m := range d.down {
		jam = append(jam, statusItem{st.Status.Error.Render("✗ DOWN " + m), 0})
	}
	if d.state == stateDone || d.state == stateStalled && d.time >= d.horizon {
		jam = append(jam, statusItem{prop(plural(d.stale, "stale lease", "stale leases") + " · " +
			plural(d.live, "session live", "sessions live")), 0})
	}
	items = append(items[:1], append(jam, items[1:]...)...)
	for _, n := range d.notes {
		items = append(items, statusItem{st.Warn.Render(n), 4})
	}
	if d.flash != "" {
		items = append(items, statusItem{st.Status.Flash.Render(d.flash), 1})
	}
	sep := st.Status.Sep.Render(" │ ")
	for {
		var parts []string
		worst, at := -1, -1
		for i, it := range items {
			parts = append(parts, it.text)
			if it.prio >= worst {
				worst, at = it.prio, i
			}
		}
		line := st.Status.Property.Render(" ") + strings.Join(parts, sep)
		if lipgloss.Width(line) <= w || len(items) <= 1 || worst == 0 {
			if n := lipgloss.Width(line); n < w {
				line += st.Status.Bar.Render(strings.Repeat(" ", w-n))
			}
			return fit(line, w)
		}
		items = append(items[:at], items[at+1:]...)
	}
}
