package tui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// parseCast checks a cast as an asciinema v2 player reads it: a header
// object with version 2 and the size, then [time, code, data] events with
// times in order. It returns the header and the events.
func parseCast(t *testing.T, text string) (castHeader, [][3]any) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var h castHeader
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	var evs [][3]any
	last := 0.0
	for i, l := range lines[1:] {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(l), &raw); err != nil || len(raw) != 3 {
			t.Fatalf("event %d %q: %v (%d fields)", i+1, l, err, len(raw))
		}
		var at float64
		var code, data string
		if json.Unmarshal(raw[0], &at) != nil || json.Unmarshal(raw[1], &code) != nil || json.Unmarshal(raw[2], &data) != nil {
			t.Fatalf("event %d %q: want [number, string, string]", i+1, l)
		}
		if at < last {
			t.Errorf("event %d at %g, before the previous one at %g", i+1, at, last)
		}
		if code != "o" && code != "r" {
			t.Errorf("event %d: code %q", i+1, code)
		}
		last = at
		evs = append(evs, [3]any{at, code, data})
	}
	return h, evs
}

// TestCast writes a cast with a clock stepped by hand: the header, the
// times in seconds from the start, a character split across two writes
// recorded whole, a resize, and a clock going back kept in order.
func TestCast(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := base
	var b bytes.Buffer
	c, err := NewCast(&b, 120, 40, "serq tui x.sq", func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	now = base.Add(250 * time.Millisecond)
	c.Output([]byte("\x1b[?1049h⏸ PAUSED \xe2\x94"))
	now = base.Add(1500 * time.Millisecond)
	c.Output([]byte("\x80 <b>\"q\"\n"))
	c.Resize(80, 24)
	now = base.Add(time.Second) // the clock steps back
	c.Output([]byte("bye"))
	c.Flush()
	want := `{"version":2,"width":120,"height":40,"title":"serq tui x.sq","env":{"TERM":"xterm-256color"}}
[0.250000, "o", "\u001b[?1049h⏸ PAUSED "]
[1.500000, "o", "─ <b>\"q\"\n"]
[1.500000, "r", "80x24"]
[1.500000, "o", "bye"]
`
	if b.String() != want {
		t.Errorf("cast:\n%s\nwant:\n%s", b.String(), want)
	}
	h, evs := parseCast(t, b.String())
	if h.Version != 2 || h.Width != 120 || h.Height != 40 || len(evs) != 4 {
		t.Errorf("parsed header %+v and %d events", h, len(evs))
	}
}
