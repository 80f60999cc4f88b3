package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/serq/serq/interp"
)

// TestDeployPaneToggle shows and hides the deployment figure with 6: hidden
// at start, shown and focused by 6 with live numbers in its boxes, in the
// tab cycle between the gauges and the log, scrolled by the arrows, hidden
// again by 6.
func TestDeployPaneToggle(t *testing.T) {
	m, hs := newModel(t, Options{}, 160, 48)
	if m.shown[paneDeploy] || strings.Contains(m.View(), "Deployment") {
		t.Fatalf("the deployment pane is shown at start")
	}
	hs.press("nnnnnnnnnn")
	hs.press("6")
	if !m.shown[paneDeploy] || m.focus != paneDeploy {
		t.Fatalf("6: shown %v, focus %d; want the deployment pane shown and focused", m.shown[paneDeploy], m.focus)
	}
	v := m.View()
	for _, want := range []string{"▶ 6 Deployment", "P[0] · prefill", "D[0] · decode", "pool D.kv[0] on D.gpu",
		"│   used ", "│   idle ", " 1-17 of 33 ↓ "} {
		if !strings.Contains(v, want) {
			t.Errorf("6: the view lacks %q:\n%s", want, v)
		}
	}
	if lipgloss.Height(v) != 48 || lipgloss.Width(v) != 160 {
		t.Errorf("6: view is %d×%d, want 160×48", lipgloss.Width(v), lipgloss.Height(v))
	}
	// The snapshot's pools and stages are the model's, index for index.
	for i, pl := range seed(t).Pools {
		if got := m.frame.snap.Pools[i].Label; got != pl.Label {
			t.Errorf("snapshot pool %d is %s, the model's %s", i, got, pl.Label)
		}
	}
	for i, st := range seed(t).Stages {
		if got := m.frame.snap.Stages[i].Label; got != st.Label {
			t.Errorf("snapshot stage %d is %s, the model's %s", i, got, st.Label)
		}
	}
	hs.press("j", "j")
	if v := m.View(); !strings.Contains(v, " 3-19 of 33 ↑↓ ") {
		t.Errorf("j j: the figure is not scrolled by two lines:\n%s", v)
	}
	hs.press("tab")
	if m.focus != paneLog {
		t.Errorf("tab from the figure: focus %d, want the log", m.focus)
	}
	hs.send(tea.KeyMsg{Type: tea.KeyShiftTab})
	hs.send(tea.KeyMsg{Type: tea.KeyShiftTab})
	if m.focus != paneGauges {
		t.Errorf("shift+tab twice from the log: focus %d, want the gauges", m.focus)
	}
	hs.press("tab", "6")
	if m.shown[paneDeploy] || m.focus != paneLog || strings.Contains(m.View(), "Deployment") {
		t.Errorf("6 again: shown %v, focus %d; want the pane hidden and the focus on the log", m.shown[paneDeploy], m.focus)
	}
	hs.press("12345")
	if v := m.View(); !strings.Contains(v, "every pane is hidden: press 1…8 to show one") {
		t.Errorf("all hidden: view\n%s", v)
	}
	hs.press("?")
	if v := m.View(); !strings.Contains(v, "deployment") {
		t.Errorf("?: the full help lacks the 6 key:\n%s", v)
	}
}

// TestDeployPaneNarrow draws the figure in the narrowest screen, where it
// is laid out in one column to fit, then in a box narrower than the
// figure's least width: its lines are cut with an ellipsis, never wrapped.
func TestDeployPaneNarrow(t *testing.T) {
	m, hs := newModel(t, Options{}, minWidth, minHeight)
	hs.press("n", "12345", "6")
	v := m.View()
	if lipgloss.Height(v) != minHeight || lipgloss.Width(v) != minWidth {
		t.Errorf("view is %d×%d, want %d×%d", lipgloss.Width(v), lipgloss.Height(v), minWidth, minHeight)
	}
	if !strings.Contains(v, "┃│   used 1,488 · cached 0 · leased 0            │             ┃") {
		t.Errorf("the figure is not laid out in one column at %d:\n%s", minWidth, v)
	}
	// A box 30 wide: draw.Text draws at least 40.
	m.boxes[paneDeploy].SetSize(30, 12)
	box := m.box(paneDeploy)
	for _, l := range strings.Split(box, "\n") {
		if w := lipgloss.Width(l); w != 30 {
			t.Errorf("line %q is %d wide, want 30", l, w)
		}
	}
	if !strings.Contains(box, "┃┌─ gw · gateway ───────────…┃") {
		t.Errorf("the figure is not cut with an ellipsis at the box's edge:\n%s", box)
	}
}

// TestDeployLive checks the live lines against a hand-built snapshot, with
// and without a budget.
func TestDeployLive(t *testing.T) {
	snap := &interp.Snapshot{
		Pools: []interp.PoolSnap{
			{Label: "P.kv[0]", Cap: 160000, Used: 8176, Cached: 119152, Engine: "P[0]",
				Leases: []interp.LeaseSnap{{Units: 5376}, {Units: 2800}}},
			{Label: "D.kv[0]", Cap: 160000, Used: 4096, Cached: 1200, Engine: "D[0]", Queued: 3},
			{Label: "P.kv[1]", Cap: 160000},
			{Label: "D.reqs[0]", Cap: 64, Used: 3},
			{Label: "tmp", Cap: 10, Used: 1, Leases: []interp.LeaseSnap{{Units: 1}}},
		},
		Stages: []interp.StageSnap{
			{Label: "D[0]", Kind: "step", Present: 3, Busy: 2, Engine: &interp.EngineSnap{Residents: 3, Batch: 2, Running: true}},
			{Label: "D[1]", Kind: "step", Present: 2, Engine: &interp.EngineSnap{Residents: 2}},
			{Label: "P[0]", Kind: "step", Engine: &interp.EngineSnap{}},
			{Label: "P.nic[0]", Kind: "ps", Shared: true, Phi: 2e5, Util: 0.73, Flows: []interp.FlowSnap{{}, {}}},
			{Label: "P.nic[1]", Kind: "ps", Shared: true, Phi: 2e5},
			{Label: "front", Kind: "fifo", Present: 3, Busy: 1},
			{Label: "tool", Kind: "delay", Present: 1},
			{Label: "think", Kind: "delay"},
		},
	}
	l := &deployLive{snap: snap, leasing: map[int]bool{0: true, 2: true}}
	pools := []string{
		"used 8,176 · cached 119k · leased 2 (8,176)",
		"used 4,096 · cached 1,200 · queued 3",
		"used 0 · leased 0",
		"used 3",
		"used 1 · leased 1 (1)",
		"", // no such pool
	}
	for i, want := range pools {
		if got := l.PoolLine(i); got != want {
			t.Errorf("PoolLine(%d) = %q, want %q", i, got, want)
		}
	}
	stages := []string{
		"running 3 · batch 2",
		"running 2 · no iteration",
		"idle",
		"2 flows · 73% of φ",
		"idle",
		"3 jobs · 1 in service",
		"1 job",
		"idle",
		"",
	}
	for i, want := range stages {
		if got := l.StageLine(i); got != want {
			t.Errorf("StageLine(%d) = %q, want %q", i, got, want)
		}
	}
	if got := l.PoolLine(-1); got != "" {
		t.Errorf("PoolLine(-1) = %q, want \"\"", got)
	}
	// Budgets: the parts that do not fit go, cached first, then the leased
	// units, then the leases; used always stays.
	for _, tt := range []struct {
		budget int
		want   string
	}{
		{43, "used 8,176 · cached 119k · leased 2 (8,176)"},
		{42, "used 8,176 · leased 2 (8,176)"},
		{28, "used 8,176 · leased 2"},
		{20, "used 8,176"},
		{3, "used 8,176"},
	} {
		l.poolBudget = map[int]int{0: tt.budget}
		if got := l.PoolLine(0); got != tt.want {
			t.Errorf("PoolLine(0) in %d columns = %q, want %q", tt.budget, got, tt.want)
		}
	}
	l.stageBudget = map[int]int{3: 10, 5: 10}
	if got := l.StageLine(3); got != "2 flows" {
		t.Errorf("StageLine(3) in 10 columns = %q, want \"2 flows\"", got)
	}
	if got := l.StageLine(5); got != "3 jobs" {
		t.Errorf("StageLine(5) in 10 columns = %q, want \"3 jobs\"", got)
	}
	if got := (&deployLive{}).PoolLine(0); got != "" {
		t.Errorf("PoolLine with no snapshot = %q, want \"\"", got)
	}
}

// TestLiveBudgets measures the columns the seed's figure leaves each live
// line: its boxes are 38 columns inside at 158, 28 at 78, less the indent
// of 2.
func TestLiveBudgets(t *testing.T) {
	p := seed(t)
	for _, tt := range []struct{ w, want int }{{158, 66}, {78, 26}} {
		pools, stages := liveBudgets(p, tt.w)
		for i, pl := range p.Pools {
			if got, ok := pools[i]; !ok || got != tt.want {
				t.Errorf("width %d: budget of %s = %d (%v), want %d", tt.w, pl.Label, got, ok, tt.want)
			}
		}
		for _, name := range []string{"P[0]", "P[1]", "D[0]", "D[1]", "P.nic[0]", "D.nic[1]"} {
			found := false
			for i, st := range p.Stages {
				if st.Label == name {
					found = true
					if stages[i] != tt.want {
						t.Errorf("width %d: budget of %s = %d, want %d", tt.w, name, stages[i], tt.want)
					}
				}
			}
			if !found {
				t.Errorf("no stage %s in the seed", name)
			}
		}
	}
}
