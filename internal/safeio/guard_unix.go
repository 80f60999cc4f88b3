//go:build unix

package safeio

import (
	"os"
	"os/signal"
	"syscall"
)

// guardSignals are the signals [Guard] cleans up after.
var guardSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Guard makes a signal that would end the process (SIGINT, SIGTERM,
// SIGHUP, SIGQUIT) first remove the temporary files of every batch under
// way, then end it with status 128 plus the signal's number, as serq does
// on every signal (docs/cli.md §3). It is for the commands that have no
// signal handler of their own (fmt, draw, sweep merge, tui
// --screenshot); the returned function ends the guard.
func Guard() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, guardSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			removeTemps()
			code := 1
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
