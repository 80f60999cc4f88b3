package tui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// TestFullHelpEverySize: at 80×24 and up, the full help shows every key
// of the key map, and the screen keeps its size.
func TestFullHelpEverySize(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {200, 60}} {
		m, hs := newModel(t, Options{}, sz[0], sz[1])
		hs.press("?")
		v := m.View()
		if lipgloss.Width(v) != sz[0] || lipgloss.Height(v) != sz[1] {
			t.Errorf("%dx%d: the view is %d×%d", sz[0], sz[1], lipgloss.Width(v), lipgloss.Height(v))
		}
		help := m.helpView()
		for _, g := range m.keys.FullHelp() {
			for _, b := range g {
				h := b.Help()
				if !regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc)).MatchString(help) {
					t.Errorf("%dx%d: the full help lacks %q", sz[0], sz[1], h.Key+" "+h.Desc)
				}
			}
		}
		if strings.Contains(help, "…") {
			t.Errorf("%dx%d: the full help is cut:\n%s", sz[0], sz[1], help)
		}
	}
}

// TestMouse: a click focuses the pane under it, the wheel scrolls the
// pane under the pointer (the log from its end).
func TestMouse(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 48)
	hs.command(":", "goto 30")
	click := func(x, y int) {
		hs.send(tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	}
	click(100, 3) // the Engine KV pane, top right
	if m.focus != paneKV {
		t.Errorf("click at (100, 3): focus %d, want the Engine KV pane", m.focus)
	}
	click(5, 20) // NIC flows, second row left
	if m.focus != paneNIC {
		t.Errorf("click at (5, 20): focus %d, want NIC flows", m.focus)
	}
	wheel := func(b tea.MouseButton, x, y int) {
		hs.send(tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: b})
	}
	wheel(tea.MouseButtonWheelDown, 100, 20) // Trends
	if m.boxes[paneGauges].off != 3 || m.focus != paneNIC {
		t.Errorf("wheel down on Trends: offset %d focus %d, want 3 and the focus left on NIC flows", m.boxes[paneGauges].off, m.focus)
	}
	wheel(tea.MouseButtonWheelUp, 10, 40) // the log: back from its tail
	if m.boxes[paneLog].off != 3 {
		t.Errorf("wheel up on the log: offset %d, want 3 from the end", m.boxes[paneLog].off)
	}
	click(10, 0) // the status bar: no pane
	if m.focus != paneNIC {
		t.Errorf("a click on the status bar moved the focus to %d", m.focus)
	}
}
