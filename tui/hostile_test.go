package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// The TUI's readers against the second round of hostile input (issue 28).

// serq tui on an IR whose positions name /etc/shadow showed its first
// line in the session pane; /dev/zero there filled memory, a FIFO hung.
// The pane shows lines of .sq files only, read as serq reads every file.
func TestSourceLinesOfSerQSourceOnly(t *testing.T) {
	dir := t.TempDir()
	shadow := filepath.Join(dir, "shadow")
	os.WriteFile(shadow, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\n"), 0o600)
	prog := filepath.Join(dir, "p.sq")
	os.WriteFile(prog, []byte("fn main() {\n  stage s : delay;\n  bad\x1b[2J line;\n}\n"), 0o600)
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.sq"))
	syscall.Mkfifo(filepath.Join(dir, "fifo.sq"), 0o600)
	d, err := newDriver(seed(t), interp.Options{Horizon: 10, Seed: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for file, want := range map[string]string{
			shadow: "", "/etc/passwd": "", filepath.Join(dir, "zero.sq"): "", filepath.Join(dir, "fifo.sq"): "",
			prog: "stage s : delay;",
		} {
			if got := d.source(model.Pos{File: file, Line: 2}); got != want {
				t.Errorf("source(%s:2) = %q, want %q", file, got, want)
			}
		}
		if got := d.source(model.Pos{File: prog, Line: 3}); got != "" {
			t.Errorf("a line with an escape is shown: %q", got)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reading a source line hung")
	}
}

// A tour's captions, names and title reach the terminal and the --record
// cast: their escape sequences (ESC ]0; retitling the pane, ESC [2J
// clearing the screen, OSC 52 writing the clipboard) are dropped.
func TestTourTextIsPrintable(t *testing.T) {
	src := "title: \"T\\e]0;pwned\\a\"\nstops:\n  - at: 1\n    name: \"n\\e[31m\"\n    caption: \"a\\e[2Jb\\e]52;c;cm0gLXJmIH4K\\ac\\nline 2\"\n"
	tour, err := ParseTour("t.yaml", []byte(src), seed(t), 2000)
	if err != nil {
		t.Fatal(err)
	}
	if tour.Title != "T]0;pwned" || tour.Stops[0].Name != "n[31m" || tour.Stops[0].Caption != "a[2Jb]52;c;cm0gLXJmIH4Kc\nline 2" {
		t.Errorf("title %q, name %q, caption %q", tour.Title, tour.Stops[0].Name, tour.Stops[0].Caption)
	}
}

// A tour of 200,000 nested [ took over 7 GB: nesting past MaxTourNesting
// is refused before the YAML parser sees it; what a tour nests passes.
func TestTourNesting(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"stops:\n  - at: 1\n    show: " + strings.Repeat("[", 200000) + "\n", "t.yaml:3:24: the tour nests deeper than 16 levels, the limit"},
		{"stops:\n  - at: 1\n    show: " + strings.Repeat("{a: ", 20) + "\n", "t.yaml:3:63: the tour nests deeper than 16 levels, the limit"},
		{"stops:\n" + strings.Repeat("- ", 17) + "x\n", "t.yaml:2:35: the tour nests deeper than 16 levels, the limit"},
		{"stops:\n" + deepBlock(20), "t.yaml:18:33: the tour nests deeper than 16 levels, the limit"},
		{"stops:\n  - at: 1\n    caption: |\n      [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n      {{{{{{{{{{{{{{{{{{{{{{{{\n    name: \"[[[[[[[[[[[[[[[[[[[[[\"\n    show: [log] # [[[[[[[[[[[[[[[[[[\n  - at: 2 # {{{{{{{{{{{{{{{{{{{{{{{{{{{{\n    caption: a [[[[[[[[[[[[[[[[[[[[[[[ b\n", "no error"},
	} {
		got := tourErr(t, tc.src)
		if i := strings.Index(got, " | "); i >= 0 {
			got = got[:i]
		}
		if got != tc.want {
			t.Errorf("%.60q: %s, want %s", tc.src, got, tc.want)
		}
	}
}

// deepBlock is a YAML mapping nested n deep by indentation.
func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "k:\n")
	}
	return b.String()
}

// FuzzTour reads any text as a tour: an error or a tour, never a panic
// or a hang, and never a YAML parse of text nested past MaxTourNesting.
func FuzzTour(f *testing.F) {
	for _, s := range []string{
		"title: A tour\nstops:\n  - at: 12.5\n    caption: |\n      Session 35 arrives.\n    show: [leases, session, log]\n    focus: session\n    follow: 35\n    speed: 0.25\n",
		"stops:\n  - event: 1234\n  - when: used(D[0].kv) > 2000\n    show: [kv]\n",
		"stops: [{at: 1, show: [[[log]]]}]\n",
		"stops:\n" + strings.Repeat("- ", 17) + "x\n",
		"stops:\n  - at: 1\n    caption: \"\\e]0;x\\a\"\n",
		"a: &x [1, 2]\nb: *x\n",
	} {
		f.Add([]byte(s))
	}
	prog, err := lang.Load(seedPath, lang.Options{Lib: lib.FS})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		tour, err := ParseTour("t.yaml", src, prog, 2000)
		if err != nil {
			var list lang.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("not a positioned error: %v", err)
			}
			return
		}
		for _, s := range tour.Stops {
			if text := s.Caption + s.Name + tour.Title; safeio.Printable(text) != text {
				t.Fatalf("a control character passed: %q", text)
			}
		}
	})
}
