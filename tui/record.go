package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
)

// Cast writes an asciinema v2 recording (a header line, then one
// [time, "o", text] line per output and [time, "r", "WxH"] per resize),
// which any asciinema player replays without serq. Times are seconds since
// the cast began, from the clock given.
type Cast struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	last  float64
	carry []byte // the start of a character split between two writes
	err   error
}

// castHeader is the first line of a cast.
type castHeader struct {
	Version int               `json:"version"`
	Width   int               `json:"width"`
	Height  int               `json:"height"`
	Title   string            `json:"title,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// NewCast writes the header of a width×height cast to w. now nil means
// time.Now.
func NewCast(w io.Writer, width, height int, title string, now func() time.Time) (*Cast, error) {
	if now == nil {
		now = time.Now
	}
	c := &Cast{w: w, now: now, start: now()}
	h := castHeader{Version: 2, Width: width, Height: height, Title: title}
	if t := os.Getenv("TERM"); t != "" {
		h.Env = map[string]string{"TERM": t}
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return c, nil
}

// Err is the first write error, if any.
func (c *Cast) Err() error { return c.err }

func (c *Cast) event(kind, data string) {
	if c.err != nil {
		return
	}
	t := c.now().Sub(c.start).Seconds()
	if t < c.last {
		t = c.last // a clock stepped back: keep the times in order
	}
	c.last = t
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		c.err = err
		return
	}
	line := fmt.Sprintf("[%.6f, %q, %s]\n", t, kind, bytes.TrimRight(b.Bytes(), "\n"))
	_, c.err = io.WriteString(c.w, line)
}

// Output records text written to the terminal. A character split between
// two writes is recorded whole with the second.
func (c *Cast) Output(p []byte) {
	data := append(c.carry, p...)
	c.carry = nil
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	c.carry = append([]byte(nil), data[cut:]...)
	if cut > 0 {
		c.event("o", string(data[:cut]))
	}
}

// Resize records a new terminal size.
func (c *Cast) Resize(width, height int) { c.event("r", fmt.Sprintf("%dx%d", width, height)) }

// Flush records a character left incomplete.
func (c *Cast) Flush() {
	if len(c.carry) > 0 {
		data := c.carry
		c.carry = nil
		c.event("o", string(data))
	}
}

// RecordedTerminal is a terminal whose output is also recorded in a cast;
// Bubble Tea takes it as its output (it still sizes and restores the
// terminal through Fd).
type RecordedTerminal struct {
	*os.File
	cast   *Cast
	width  int
	height int
}

// Record wraps the terminal f so that what is written to it goes to cast
// too, with a resize event whenever its size changed since the last write.
func Record(f *os.File, cast *Cast) *RecordedTerminal {
	r := &RecordedTerminal{File: f, cast: cast}
	r.width, r.height, _ = term.GetSize(f.Fd())
	return r
}

// TerminalSize is the size of terminal f, 80×24 when it has none.
func TerminalSize(f *os.File) (int, int) {
	w, h, err := term.GetSize(f.Fd())
	if err != nil || w <= 0 || h <= 0 {
		return 80, 24
	}
	return w, h
}

func (r *RecordedTerminal) Write(p []byte) (int, error) {
	if w, h, err := term.GetSize(r.File.Fd()); err == nil && (w != r.width || h != r.height) {
		r.width, r.height = w, h
		r.cast.Resize(w, h)
	}
	n, err := r.File.Write(p)
	r.cast.Output(p[:n])
	return n, err
}

// WriteString is Write: the embedded file's own would bypass the cast.
func (r *RecordedTerminal) WriteString(s string) (int, error) { return r.Write([]byte(s)) }

// ReadFrom is not the file's: it would bypass the cast.
func (r *RecordedTerminal) ReadFrom(src io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{r}, src)
}
