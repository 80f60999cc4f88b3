package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
			p := startPTY(t, []string{"tui", prog})
			const enter, leave, showCursor = "\x1b[?1049h", "\x1b[?1049l", "\x1b[?25h"
			p.waitFor(enter, 30*time.Second)
			time.Sleep(200 * time.Millisecond) // let the program settle in
			p.cmd.Process.Signal(c.sig)
			werr := p.wait(30*time.Second, c.sig.String())
			seen, tty := &p.seen, p.tty
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
