package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptySession is serq (the test binary as serq, see TestMain) running on a
// pseudo-terminal of 120×40, answering the terminal queries of the Charm
// libraries as a terminal does, with everything it wrote so far in seen.
type ptySession struct {
	t         *testing.T
	cmd       *exec.Cmd
	ptmx, tty *os.File
	out       chan []byte
	seen      bytes.Buffer
}

// startPTY starts serq with args on a new pseudo-terminal; the test is
// skipped where none can be had.
func startPTY(t *testing.T, args []string, env ...string) *ptySession {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "SERQ_HELPER_ARGS="+string(js), "TERM=xterm-256color"), env...)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120})
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Room for all it writes: a reader blocked on a full channel would
	// stop reading the pty, and serq, blocked writing its last frame,
	// could not stop.
	p := &ptySession{t: t, cmd: cmd, ptmx: ptmx, tty: tty, out: make(chan []byte, 1<<14)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if bytes.Contains(buf[:n], []byte("\x1b]11;?")) {
				// Answer the background-colour query as a terminal does
				// (else termenv waits 5 s for the answer).
				ptmx.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[1;1R"))
			}
			p.out <- append([]byte(nil), buf[:n]...)
			if err != nil {
				close(p.out)
				return
			}
		}
	}()
	return p
}

// waitFor reads until serq has written s, failing after limit.
func (p *ptySession) waitFor(s string, limit time.Duration) {
	p.t.Helper()
	deadline := time.After(limit)
	for !strings.Contains(p.seen.String(), s) {
		select {
		case b, ok := <-p.out:
			if !ok {
				p.t.Fatalf("serq ended before %q: %q", s, p.seen.String())
			}
			p.seen.Write(b)
		case <-deadline:
			p.cmd.Process.Kill()
			p.t.Fatalf("no %q within %v: %q", s, limit, p.seen.String())
		}
	}
}

// wait waits for serq to exit (failing after limit, with what), then reads
// what it wrote while stopping, for at most half a second more.
func (p *ptySession) wait(limit time.Duration, what string) error {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		p.t.Fatalf("serq did not stop within %v of %s", limit, what)
	}
	for {
		select {
		case b, ok := <-p.out:
			if !ok {
				return err
			}
			p.seen.Write(b)
		case <-time.After(500 * time.Millisecond):
			return err
		}
	}
}
