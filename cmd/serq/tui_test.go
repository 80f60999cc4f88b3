package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/tui"
)

const tuiUsage = "usage: serq tui FILE [--horizon T] [--warmup T] [--seed N] [--break EXPR]... [--stale T] [--at T] " +
	"[--follow N] [--arrivals N] [--tour F] [--record F.cast] [--report] [--screenshot PATH [--size WxH]] [--set name=expr]... [--def name=expr]... [-- --name value ...]\n"

// TestTuiFlags checks the debugger's flags: bad values are usage errors
// (exit 2), a --break that does not compile is exit 1 with its caret.
func TestTuiFlags(t *testing.T) {
	f := writeProgram(t, "ok.sq", minimal)
	png := filepath.Join(t.TempDir(), "x.png")
	tour := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(tour, []byte("stops:\n  - at: 2\n    caption: hi\n  - at: 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tui", f, "--break", "busy(s) >"}, 1, "<command>:1:10: unexpected end of file\n | busy(s) >\n |          ^\n"},
		{[]string{"tui", f, "--break", "nosuch(s) > 1"}, 1, "<command>:1:1: undefined function `nosuch`\n | nosuch(s) > 1\n | ^\n"},
		{[]string{"tui", f, "--stale", "0"}, 2, "error: invalid value `0` for --stale; expected a finite positive number\nhelp: use --stale 10\n" + tuiUsage},
		{[]string{"tui", f, "--at", "-1"}, 2, "error: invalid value `-1` for --at; expected a finite nonnegative number\nhelp: use --at 0\n" + tuiUsage},
		{[]string{"tui", f, "--horizon", "10", "--at", "11"}, 2, "error: invalid value `11` for --at; it is past the horizon 10\nhelp: use --at 0\n" + tuiUsage},
		{[]string{"tui", f, "--follow", "x"}, 2, "error: invalid value `x` for --follow; expected a session number\nhelp: use --follow 35\n" + tuiUsage},
		{[]string{"tui", f, "--size", "100x30"}, 2, "error: --size applies to --screenshot\nhelp: add --screenshot screen.txt\n" + tuiUsage},
		{[]string{"tui", f, "--size", "10x10", "--screenshot", "a.txt"}, 2, "error: invalid value `10x10` for --size; expected WxH, at least 64x20\nhelp: use --size 160x48\n" + tuiUsage},
		{[]string{"tui", f, "--screenshot", "a.txt"}, 2, "error: --screenshot without --at runs to the horizon: it needs --horizon T\nhelp: add --horizon 100, or --at T\n" + tuiUsage},
		{[]string{"tui", f, "--horizon", "10", "--tour", tour}, 1, tour + ":4:9: at 20 is past the horizon 10\n |   - at: 20\n |         ^\n" +
			"hint: the run ends at the horizon 10: give a --horizon past it, or an earlier time\n"},
		{[]string{"tui", f, "--arrivals", "0"}, 2, "error: invalid value `0` for --arrivals; expected a positive integer\n" + tuiUsage},
		{[]string{"tui", f, "--at", "1", "--screenshot", png}, 2, "error: invalid value `" + png + "` for --screenshot; expected a .txt or .svg path\nhelp: use --screenshot screen.txt\n" + tuiUsage},
	}
	for _, tt := range tests {
		code, out, errs := serq(t, tt.args...)
		if code != tt.code || out != "" || errs != tt.want {
			t.Errorf("serq %q = %d, %q, %q; want %d, \"\", %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}

// TestTuiScreenshot writes the frame at --at as text and as SVG, with no
// terminal, the same as package tui draws it.
func TestTuiScreenshot(t *testing.T) {
	seed := "../../examples/pd-disaggregation/llmd_nixl_pull.sq"
	dir := t.TempDir()
	txt, svg := filepath.Join(dir, "s.txt"), filepath.Join(dir, "s.svg")
	for _, path := range []string{txt, svg} {
		code, out, errs := serq(t, "tui", seed, "--horizon", "2000", "--at", "48.3", "--follow", "25", "--stale", "0.001",
			"--size", "120x40", "--screenshot", path)
		if code != 0 || out != "" || errs != "" {
			t.Fatalf("serq tui --screenshot %s = %d, %q, %q", path, code, out, errs)
		}
	}
	p, err := lang.Load(seed, lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	want, err := tui.Screenshot(p, tui.Options{Horizon: 2000, Seed: 1, Version: version, Title: "llmd_nixl_pull.sq",
		At: 48.3, AtSet: true, Follow: 25, FollowSet: true, StaleAfter: 0.001}, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(txt); string(got) != want+"\n" {
		t.Errorf("the .txt screenshot differs from tui.Screenshot:\n%s", got)
	}
	if got, _ := os.ReadFile(svg); string(got) != tui.SVG(want) {
		t.Errorf("the .svg screenshot is not tui.SVG of the screen")
	}
	if !strings.Contains(want, "Session s25 · followed") || !strings.Contains(want, "stale > 1 ms") {
		t.Errorf("the screenshot lacks --follow or --stale:\n%s", want)
	}
}

// TestReadmeScreenshot checks that the README's TUI capture is what the
// --screenshot command it quotes draws.
func TestReadmeScreenshot(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(readme)
	i := strings.Index(sec, "## Watching a run: serq tui")
	j := strings.Index(sec, "## Drawing a deployment")
	if i < 0 || j < i {
		t.Fatal("README has no TUI section")
	}
	sec = sec[i:j]
	k := strings.Index(sec, "```text\n")
	end := strings.Index(sec[k+8:], "\n```")
	if k < 0 || end < 0 {
		t.Fatal("the TUI section has no capture")
	}
	capture := sec[k+8 : k+8+end+1]
	path := filepath.Join(t.TempDir(), "screen.txt")
	code, _, errs := serq(t, "tui", "../../examples/pd-disaggregation/llmd_nixl_pull.sq", "--horizon", "2000", "--at", "58.9",
		"--follow", "35", "--size", "120x40", "--screenshot", path, "--", "--blocksD", "150")
	if code != 0 {
		t.Fatalf("serq tui --screenshot: %d %s", code, errs)
	}
	if got, _ := os.ReadFile(path); string(got) != capture {
		t.Errorf("the README's capture is not the screenshot's:\n%s", got)
	}
}

// TestTuiTourBound: serq tui names its run to a tour and refuses a tour
// made on another, before the UI starts (exit 1, at the tour's `run:`,
// the flags that make its run in the hint); on its own run it plays.
func TestTuiTourBound(t *testing.T) {
	seed := "../../examples/pd-disaggregation/llmd_nixl_pull.sq"
	inst := "../../examples/pd-disaggregation/instances/llmd_nixl_pull/pressure.sq"
	tour := "../../examples/pd-disaggregation/tours/coupling.yaml"
	code, out, errs := serq(t, "tui", seed, "--tour", tour)
	want := tour + ":13:1: the tour was made on instance examples/pd-disaggregation/instances/llmd_nixl_pull/pressure.sq: " +
		"blocksD 1200 (this run: 10000), Lambda 1.2 (this run: 0.6), warm-up 200 (this run: 0)\n | run:\n | ^\n" +
		"hint: play it on the run it names: --instance examples/pd-disaggregation/instances/llmd_nixl_pull/pressure.sq --seed 1 --warmup 200 --horizon 2000\n"
	if code != 1 || out != "" || errs != want {
		t.Errorf("the tour without its instance = %d, %q, %q; want 1, \"\", %q", code, out, errs, want)
	}
	shot := filepath.Join(t.TempDir(), "s.txt")
	code, out, errs = serq(t, "tui", seed, "--instance", inst, "--tour", tour, "--at", "8", "--screenshot", shot)
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("the tour on its run = %d, %q, %q", code, out, errs)
	}
	if b, _ := os.ReadFile(shot); !strings.Contains(string(b), "tour: 8 stops, > goes to the first") {
		t.Errorf("the tour on its run shows no tour:\n%s", b)
	}
}
