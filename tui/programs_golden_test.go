package tui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// TestProgramGoldens draws a queueing network (mg1.sq: the Stations and
// Observes panes in the places of Leases and Engine KV) and the push
// variant of disaggregation at 80×24, 160×48 and 200×60. No pane drawn is
// empty.
func TestProgramGoldens(t *testing.T) {
	for _, pg := range []struct {
		name, path string
		horizon    float64
		at         string
	}{
		{"mg1", "../examples/single-turn/mg1.sq", 200, "goto 50"},
		{"push", "../examples/pd-disaggregation/vllm_nixl_push.sq", 2000, "goto 48.3"},
	} {
		p, err := lang.Load(pg.path, lang.Options{Lib: lib.FS})
		if err != nil {
			t.Fatal(err)
		}
		for _, sz := range [][2]int{{80, 24}, {160, 48}, {200, 60}} {
			name := fmt.Sprintf("%s_%dx%d", pg.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				m, hs := newProgModel(t, p, Options{Horizon: pg.horizon, Title: pg.name + ".sq"}, sz[0], sz[1])
				hs.command(":", pg.at)
				v := m.View()
				if lipgloss.Height(v) != sz[1] || lipgloss.Width(v) != sz[0] {
					t.Errorf("view is %d×%d", lipgloss.Width(v), lipgloss.Height(v))
				}
				for _, i := range focusOrder {
					if m.shown[i] && len(m.panes[i].lines()) == 0 {
						t.Errorf("pane %d %s is shown and empty", i+1, m.panes[i].title())
					}
				}
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}
