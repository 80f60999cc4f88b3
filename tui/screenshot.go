package tui

import (
	"fmt"
	"html"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/serq/serq/model"
)

// Screenshot renders the screen of a run of p, w×h characters, without a
// terminal and without colour: at opts.At when opts.AtSet; otherwise where
// the first of opts.Breaks stops the run, at the horizon if none does (or
// no break is set). opts.Follow and opts.StaleAfter apply as in the TUI.
// Same inputs, same bytes.
func Screenshot(p *model.Program, opts Options, w, h int) (string, error) {
	lipgloss.SetColorProfile(termenv.Ascii)
	opts.Tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m, err := New(p, opts)
	if err != nil {
		return "", err
	}
	runSync(m, m.Init())
	runSync(m, func() tea.Msg { return tea.WindowSizeMsg{Width: w, Height: h} })
	if !opts.AtSet {
		runSync(m, m.enqueue(request{kind: reqSlice, dt: opts.Horizon}))
	}
	return m.View(), nil
}

// runSync carries out a command and what follows from it, as the Bubble
// Tea loop would, dropping ticks and everything but the model's own
// messages.
func runSync(m *Model, cmd tea.Cmd) { drive(m, cmd, nil) }

// drive is runSync calling onFrame (when not nil) with each frame after
// the model took it in.
func drive(m *Model, cmd tea.Cmd, onFrame func(frameMsg)) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case frameMsg:
			_, next := m.Update(msg)
			if onFrame != nil {
				onFrame(msg)
			}
			queue = append(queue, next)
		case tea.WindowSizeMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// SVG draws a text screen as a standalone SVG image: one monospace line
// per row, on a dark background.
func SVG(screen string) string {
	lines := strings.Split(screen, "\n")
	cols := 0
	for _, l := range lines {
		cols = max(cols, lipgloss.Width(l))
	}
	const cw, lh, size = 8.4, 17, 14
	wpx, hpx := float64(cols)*cw+16, len(lines)*lh+16
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%d" viewBox="0 0 %.0f %d">`+"\n", wpx, hpx, wpx, hpx)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#1e1e2e"/>`+"\n")
	fmt.Fprintf(&b, `<g font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="%d" fill="#cdd6f4" xml:space="preserve">`+"\n", size)
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		fmt.Fprintf(&b, `<text x="8" y="%d" textLength="%.1f" lengthAdjust="spacingAndGlyphs">%s</text>`+"\n",
			8+(i+1)*lh-4, float64(lipgloss.Width(l))*cw, html.EscapeString(l))
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
}
