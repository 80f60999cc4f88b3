package tui

import "github.com/charmbracelet/lipgloss"

// Styles is every style the TUI draws with, in one value (soft-serve's
// styles.DefaultStyles). Colour only ever repeats what a glyph or a word
// already says, so the screen reads the same under NO_COLOR.
type Styles struct {
	Status struct {
		Bar      lipgloss.Style
		Running  lipgloss.Style
		Paused   lipgloss.Style
		Done     lipgloss.Style
		Stalled  lipgloss.Style
		Error    lipgloss.Style
		Sep      lipgloss.Style
		Flash    lipgloss.Style
		Title    lipgloss.Style
		Property lipgloss.Style
	}
	Pane struct {
		Border        lipgloss.Style // border glyphs of a pane
		FocusedBorder lipgloss.Style
		Title         lipgloss.Style
		FocusedTitle  lipgloss.Style
		Scroll        lipgloss.Style // the "3-7 of 12" in the bottom border
	}
	Label  lipgloss.Style // a resource's name
	Value  lipgloss.Style
	Dim    lipgloss.Style // secondary text: units, legends, empty states
	Warn   lipgloss.Style // stale leases, preemptions, lag
	Err    lipgloss.Style
	Used   lipgloss.Style // bar segments
	Cached lipgloss.Style
	Free   lipgloss.Style
	Spark  lipgloss.Style
	Cursor lipgloss.Style // the log's cursor
}

// DefaultStyles returns the palette, adaptive to light and dark terminals.
func DefaultStyles() *Styles {
	var (
		accent = lipgloss.AdaptiveColor{Light: "#5A56E0", Dark: "#7D79F6"}
		green  = lipgloss.AdaptiveColor{Light: "#0A7B34", Dark: "#3FD07A"}
		amber  = lipgloss.AdaptiveColor{Light: "#9A5B00", Dark: "#F0B43C"}
		red    = lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"}
		dim    = lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
		border = lipgloss.AdaptiveColor{Light: "#B0B0B0", Dark: "#4A4A4A"}
		barBg  = lipgloss.AdaptiveColor{Light: "#E4E4F4", Dark: "#26263A"}
	)
	s := new(Styles)
	s.Status.Bar = lipgloss.NewStyle().Background(barBg)
	s.Status.Running = lipgloss.NewStyle().Bold(true).Foreground(green).Background(barBg)
	s.Status.Paused = lipgloss.NewStyle().Bold(true).Foreground(amber).Background(barBg)
	s.Status.Done = lipgloss.NewStyle().Bold(true).Foreground(accent).Background(barBg)
	s.Status.Stalled = lipgloss.NewStyle().Bold(true).Foreground(red).Background(barBg)
	s.Status.Error = lipgloss.NewStyle().Bold(true).Foreground(red).Background(barBg)
	s.Status.Sep = lipgloss.NewStyle().Foreground(dim).Background(barBg)
	s.Status.Flash = lipgloss.NewStyle().Italic(true).Background(barBg)
	s.Status.Title = lipgloss.NewStyle().Bold(true).Background(barBg)
	s.Status.Property = lipgloss.NewStyle().Background(barBg)

	s.Pane.Border = lipgloss.NewStyle().Foreground(border)
	s.Pane.FocusedBorder = lipgloss.NewStyle().Foreground(accent)
	s.Pane.Title = lipgloss.NewStyle().Bold(true)
	s.Pane.FocusedTitle = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.Pane.Scroll = lipgloss.NewStyle().Foreground(dim)

	s.Label = lipgloss.NewStyle().Bold(true)
	s.Value = lipgloss.NewStyle()
	s.Dim = lipgloss.NewStyle().Foreground(dim)
	s.Warn = lipgloss.NewStyle().Bold(true).Foreground(amber)
	s.Err = lipgloss.NewStyle().Bold(true).Foreground(red)
	s.Used = lipgloss.NewStyle().Foreground(accent)
	s.Cached = lipgloss.NewStyle().Foreground(green)
	s.Free = lipgloss.NewStyle().Foreground(border)
	s.Spark = lipgloss.NewStyle().Foreground(accent)
	s.Cursor = lipgloss.NewStyle().Bold(true).Foreground(accent)
	return s
}
