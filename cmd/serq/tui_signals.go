package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// tuiSignals are the signals on which `serq tui` stops and restores the
// terminal (the alternate screen left, the cursor shown, the tty out of
// raw mode). Bubble Tea itself catches only SIGINT and SIGTERM (its
// handler is turned off: runTUI handles all four); SIGHUP (the terminal
// closed) and SIGQUIT (Ctrl-\) killed serq with the terminal left raw.
var tuiSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM}

// runTUI runs start with a context cancelled by the first of tuiSignals:
// the Bubble Tea program then shuts down, which restores the terminal,
// and serq exits 128 plus the signal's number.
func runTUI(start func(ctx context.Context) error) error {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, tuiSignals...)
	defer signal.Stop(ch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-ch:
			got <- sig
			cancel()
		case <-ctx.Done():
		}
	}()
	err := start(ctx)
	select {
	case sig := <-got:
		return &interruptedError{sig: sig, what: "the TUI stopped and restored the terminal"}
	default:
		return err
	}
}

// stdoutFile is the file behind the command's stdout, if it is one.
func stdoutFile(w io.Writer) (*os.File, bool) {
	if c, ok := w.(*checkedWriter); ok {
		w = c.w
	}
	f, ok := w.(*os.File)
	return f, ok
}
