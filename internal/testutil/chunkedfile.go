// Package testutil holds helpers shared by serq's tests.
//
// [Read] splits a test file into chunks, small programs separated by lines
// that hold only "---", and collects the errors each chunk expects. An
// expectation sits on the line the error is reported at, in a comment:
//
//	hold kv (-1) { }   // ### "negative amount"
//
// The quoted text is a Go string literal holding a regular expression; a
// line may carry several (`// ### "a" ### "b"`). A test checks each chunk,
// hands every error it got to [Chunk.GotError] and ends with [Chunk.Done].
// The harness follows starlark-go's internal/chunkedfile.
package testutil

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Chunk is one program of a chunked file and the errors it expects.
type Chunk struct {
	Source   string // the chunk's text; its line 1 is the line after the separator
	Filename string // the file the chunk was read from
	report   testing.TB
	first    int                      // the chunk's first line in the file (1-based)
	want     map[int][]*regexp.Regexp // expectations by line of the chunk
}

// Read reads filename and returns its chunks. A malformed expectation is
// reported through t; a file that cannot be read stops the test.
func Read(filename string, t testing.TB) []Chunk {
	t.Helper()
	data, err := os.ReadFile(filename)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []Chunk
	c := Chunk{Filename: filename, report: t, first: 1, want: map[int][]*regexp.Regexp{}}
	var lines []string
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.TrimRight(line, " \t\r") == "---" {
			c.Source = strings.Join(lines, "\n") + "\n"
			chunks = append(chunks, c)
			c = Chunk{Filename: filename, report: t, first: i + 2, want: map[int][]*regexp.Regexp{}}
			lines = nil
			continue
		}
		lines = append(lines, line)
		if err := c.parse(len(lines), line); err != nil {
			t.Errorf("%s:%d: %v", filename, i+1, err)
		}
	}
	c.Source = strings.Join(lines, "\n") + "\n"
	return append(chunks, c)
}

// parse records the expectations written on line n of the chunk.
func (c *Chunk) parse(n int, line string) error {
	at := strings.Index(line, "###")
	if at < 0 {
		return nil
	}
	if !strings.Contains(line[:at], "//") {
		return fmt.Errorf("### outside a // comment")
	}
	for rest := line[at:]; rest != ""; rest = strings.TrimSpace(rest) {
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "###"))
		lit, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return fmt.Errorf("want a quoted regexp after ###, got %q", rest)
		}
		pattern, _ := strconv.Unquote(lit)
		rx, err := regexp.Compile(pattern)
		if err != nil {
			return err
		}
		c.want[n] = append(c.want[n], rx)
		rest = rest[len(lit):]
	}
	return nil
}

// GotError consumes an expectation of line (1-based, within the chunk) that
// msg matches. Without one, it reports msg as unexpected; with expectations
// on that line that msg does not match, it consumes the first and reports
// the mismatch.
func (c *Chunk) GotError(line int, msg string) {
	c.report.Helper()
	where := fmt.Sprintf("%s:%d", c.Filename, c.first+line-1)
	want := c.want[line]
	if len(want) == 0 {
		c.report.Errorf("%s: unexpected error: %s", where, msg)
		return
	}
	i := slices.IndexFunc(want, func(rx *regexp.Regexp) bool { return rx.MatchString(msg) })
	if i < 0 {
		c.report.Errorf("%s: error %q does not match %q", where, msg, want[0])
		i = 0
	}
	c.want[line] = slices.Delete(want, i, i+1)
}

// Done reports every expectation no error consumed, in line order.
func (c *Chunk) Done() {
	c.report.Helper()
	lines := make([]int, 0, len(c.want))
	for line := range c.want {
		lines = append(lines, line)
	}
	slices.Sort(lines)
	for _, line := range lines {
		for _, rx := range c.want[line] {
			c.report.Errorf("%s:%d: expected error matching %q", c.Filename, c.first+line-1, rx)
		}
	}
}

// Rebind returns c reporting through tb: a test that runs each chunk in a
// subtest rebinds the chunk to it.
func Rebind(c Chunk, tb testing.TB) Chunk {
	c.report = tb
	return c
}
