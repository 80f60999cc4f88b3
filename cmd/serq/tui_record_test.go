package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUIRecordAndReport runs `serq tui --record F.cast --report` on a
// pseudo-terminal, goes to the horizon and quits: the report printed on
// quit is serq run's, byte for byte, and the cast is asciinema v2 (its
// header has the terminal's size, its events are in time order and show
// the screens drawn).
func TestTUIRecordAndReport(t *testing.T) {
	seed := "../../examples/pd-disaggregation/llmd_nixl_pull.sq"
	cast := filepath.Join(t.TempDir(), "s.cast")
	p := startPTY(t, []string{"tui", seed, "--horizon", "20", "--record", cast, "--report"}, "NO_COLOR=1")
	p.waitFor("PAUSED", 60*time.Second)
	p.ptmx.Write([]byte("g"))
	// the command line with goto (the help line says "g goto T" from the
	// start); 20 written before g is read would come with it, as text
	p.waitFor(":goto", 60*time.Second)
	p.ptmx.Write([]byte("20\r"))
	p.waitFor("DONE", 60*time.Second)
	p.ptmx.Write([]byte("q"))
	p.waitFor("\x1b[?1049l", 60*time.Second)
	if err := p.wait(60*time.Second, "q"); err != nil {
		t.Fatalf("serq tui: %v", err)
	}
	p.tty.Close() // the reader then ends: take everything written
	for b := range p.out {
		p.seen.Write(b)
	}
	seen := &p.seen
	_, want, _ := serq(t, "run", seed, "--horizon", "20")
	after := seen.String()[strings.LastIndex(seen.String(), "\x1b[?1049l"):]
	after = strings.ReplaceAll(after, "\r\n", "\n")
	if !strings.Contains(after, want) {
		t.Errorf("the report on quit is not serq run's:\n%q\nwant:\n%q", after, want)
	}
	b, err := os.ReadFile(cast)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var h struct {
		Version, Width, Height int
	}
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Version != 2 || h.Width != 120 || h.Height != 40 {
		t.Fatalf("cast header %q: %+v, %v", lines[0], h, err)
	}
	last, text := 0.0, ""
	for _, l := range lines[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(l), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("cast event %q: %v", l, err)
		}
		at, ok := ev[0].(float64)
		if !ok || at < last || ev[1] != "o" {
			t.Fatalf("cast event %q: want [time ≥ %g, \"o\", text]", l, last)
		}
		last = at
		text += ev[2].(string)
	}
	for _, s := range []string{"\x1b[?1049h", "PAUSED", "DONE", "\x1b[?1049l"} {
		if !strings.Contains(text, s) {
			t.Errorf("the cast's output has no %q", s)
		}
	}
}
