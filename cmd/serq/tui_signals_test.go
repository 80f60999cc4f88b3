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
	"golang.org/x/sys/unix"
)

// TestTUIRestoresTheTerminalOnSignals runs `serq tui` (the test binary
// as serq, see TestMain) on a pseudo-terminal, waits for the alternate
// screen, sends a signal, and checks that serq left the alternate screen,
// showed the cursor, took the tty out of raw mode and exited 128+signal.
func TestTUIRestoresTheTerminalOnSignals(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.sq")
	if err := os.WriteFile(prog, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGHUP, 129}, {syscall.SIGINT, 130}, {syscall.SIGQUIT, 131}, {syscall.SIGTERM, 143}} {
		t.Run(sigName(c.sig), func(t *testing.T) {
			js, _ := json.Marshal([]string{"tui", prog})
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "SERQ_HELPER_ARGS="+string(js), "TERM=xterm-256color")
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
			// Room for all it writes: a reader blocked on a full channel would
			// stop reading the pty, and serq, blocked writing its last frame,
			// could not stop.
			out := make(chan []byte, 1<<14)
			var seen bytes.Buffer
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := ptmx.Read(buf)
					if bytes.Contains(buf[:n], []byte("\x1b]11;?")) {
						// Answer the background-colour query as a terminal
						// does (else termenv waits 5 s for the answer).
						ptmx.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[1;1R"))
					}
					out <- append([]byte(nil), buf[:n]...)
					if err != nil {
						close(out)
						return
					}
				}
			}()
			const enter, leave, showCursor = "\x1b[?1049h", "\x1b[?1049l", "\x1b[?25h"
			deadline := time.After(30 * time.Second)
			for !strings.Contains(seen.String(), enter) {
				select {
				case b, ok := <-out:
					if !ok {
						t.Fatalf("serq tui ended before the alternate screen: %q", seen.String())
					}
					seen.Write(b)
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("no alternate screen within 30 s: %q", seen.String())
				}
			}
			time.Sleep(200 * time.Millisecond) // let the program settle in
			cmd.Process.Signal(c.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("serq tui did not stop within 30 s of %v", c.sig)
			}
			// Drain what it wrote while stopping.
			for drained := false; !drained; {
				select {
				case b, ok := <-out:
					if !ok {
						drained = true
					}
					seen.Write(b)
				case <-time.After(500 * time.Millisecond):
					drained = true
				}
			}
			code := 0
			if ee, ok := werr.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			after := seen.String()[strings.Index(seen.String(), enter):]
			if !strings.Contains(after, leave) {
				t.Errorf("the alternate screen was not left")
			}
			if !strings.Contains(after, showCursor) {
				t.Errorf("the cursor was not shown again")
			}
			if want := "interrupted by " + sigName(c.sig) + ": the TUI stopped and restored the terminal"; !strings.Contains(after, want) {
				t.Errorf("no message %q after the TUI", want)
			}
			tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ECHO == 0 {
				t.Errorf("the tty is left raw: lflag %#x", tio.Lflag)
			}
		})
	}
}
