package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// signalHook, set only by tests, is called where a signal is to come:
// "run" between events, "dump" after each dump file written.
var signalHook func(where string, in *interrupts)

// interrupts catches SIGINT, SIGTERM, SIGHUP and SIGQUIT while `serq run`
// simulates and writes: the run stops between events, a dump under way
// is abandoned (its temporary files removed, the previous files kept),
// and serq says so and exits 128 plus the signal's number.
type interrupts struct {
	ch  chan os.Signal
	got atomic.Pointer[os.Signal]
}

// catching is the interrupts being caught, for the tests' signalHook.
var catching *interrupts

// catchInterrupts starts catching; stop ends it.
func catchInterrupts() *interrupts {
	in := &interrupts{ch: make(chan os.Signal, 1)}
	if signalHook != nil {
		catching = in
	}
	signal.Notify(in.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for sig := range in.ch {
			in.got.CompareAndSwap(nil, &sig)
		}
	}()
	return in
}

func (in *interrupts) stop() {
	signal.Stop(in.ch)
	close(in.ch)
}

// caught is the first signal caught, or nil. A nil *interrupts catches
// nothing.
func (in *interrupts) caught() os.Signal {
	if in == nil {
		return nil
	}
	if p := in.got.Load(); p != nil {
		return *p
	}
	return nil
}

// stopped reports whether a signal has come (a dump's stop function).
func (in *interrupts) stopped() bool { return in.caught() != nil }

// interruptedError is a run stopped by a signal: exit 128+signal.
type interruptedError struct {
	sig  os.Signal
	what string // what was stopped
}

func (e *interruptedError) Error() string {
	return fmt.Sprintf("interrupted by %s: %s", sigName(e.sig), e.what)
}

// code is the exit status of a process killed by the signal, as a shell
// reports it: 129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 143 SIGTERM.
func (e *interruptedError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func sigName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}

// checkedWriter keeps the first error of writes to w; later writes are
// dropped.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// unwrapPath drops the "write /dev/stdout:" of a *fs.PathError.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
