package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestTUIRecordAndReport runs `serq tui --record F.cast --report` on a
// pseudo-terminal, goes to the horizon and quits: the report printed on
// quit is serq run's, byte for byte, and the cast is asciinema v2 (its
// header has the terminal's size, its events are in time order and show
// the screens drawn).
func TestTUIRecordAndReport(t *testing.T) {
	seed := "../../examples/pd-disaggregation/llmd_nixl_pull.sq"
	cast := filepath.Join(t.TempDir(), "s.cast")
	js, _ := json.Marshal([]string{"tui", seed, "--horizon", "20", "--record", cast, "--report"})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SERQ_HELPER_ARGS="+string(js), "TERM=xterm-256color", "NO_COLOR=1")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120})
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte, 1<<14)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if bytes.Contains(buf[:n], []byte("\x1b]11;?")) {
				ptmx.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[1;1R"))
			}
			out <- append([]byte(nil), buf[:n]...)
			if err != nil {
				close(out)
				return
			}
		}
	}()
	var seen bytes.Buffer
	waitFor := func(s string) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for !strings.Contains(seen.String(), s) {
			select {
			case b, ok := <-out:
				if !ok {
					t.Fatalf("serq tui ended before %q: %q", s, seen.String())
				}
				seen.Write(b)
			case <-deadline:
				cmd.Process.Kill()
				t.Fatalf("no %q within 60 s", s)
			}
		}
	}
	waitFor("PAUSED")
	ptmx.Write([]byte("g"))
	waitFor("goto ")
	ptmx.Write([]byte("20\r"))
	waitFor("DONE")
	ptmx.Write([]byte("q"))
	waitFor("\x1b[?1049l")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("serq tui did not exit after q")
	}
	if err != nil {
		t.Fatalf("serq tui: %v", err)
	}
	tty.Close()
	for b := range out {
		seen.Write(b)
	}
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
