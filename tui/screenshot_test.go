package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
)

// TestScreenshot renders frames without a terminal: at --at with a session
// followed and a low stale threshold, and where a --break stops; the same
// inputs give the same bytes.
func TestScreenshot(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts Options
		w, h int
	}{
		{"at_follow", Options{At: 48.3, AtSet: true, Follow: 25, FollowSet: true, StaleAfter: 0.001}, 120, 40},
		{"break", Options{Breaks: []string{"leases(P[0].kv) >= 3"}}, 100, 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Horizon, tt.opts.Seed, tt.opts.Title = 2000, 1, "llmd_nixl_pull.sq"
			got, err := Screenshot(seed(t), tt.opts, tt.w, tt.h)
			if err != nil {
				t.Fatal(err)
			}
			if lipgloss.Height(got) != tt.h || lipgloss.Width(got) != tt.w {
				t.Errorf("the screen is %d×%d, want %d×%d", lipgloss.Width(got), lipgloss.Height(got), tt.w, tt.h)
			}
			again, _ := Screenshot(seed(t), tt.opts, tt.w, tt.h)
			if again != got {
				t.Errorf("two screenshots differ")
			}
			golden.RequireEqual(t, []byte(got))
		})
	}
	_, err := Screenshot(seed(t), Options{Horizon: 10, Breaks: []string{"used(D[0].kv) >"}}, 80, 24)
	if be, ok := err.(*BreakError); !ok || be.Expr != "used(D[0].kv) >" || !strings.Contains(be.Error(), "<command>:1:16") {
		t.Errorf("a bad break: %v", err)
	}
}

func TestSVG(t *testing.T) {
	got := SVG("ab <&>\n\n  x")
	want := `<svg xmlns="http://www.w3.org/2000/svg" width="66" height="67" viewBox="0 0 66 67">
<rect width="100%" height="100%" fill="#1e1e2e"/>
<g font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="14" fill="#cdd6f4" xml:space="preserve">
<text x="8" y="21" textLength="50.4" lengthAdjust="spacingAndGlyphs">ab &lt;&amp;&gt;</text>
<text x="8" y="55" textLength="25.2" lengthAdjust="spacingAndGlyphs">  x</text>
</g>
</svg>
`
	if got != want {
		t.Errorf("SVG:\n%s\nwant\n%s", got, want)
	}
}
