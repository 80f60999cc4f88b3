package main

import (
	"context"
	"fmt"
	"os"

	"github.com/serq/serq/lsp"
)

// lspCmd is `serq lsp`: the language server of package lsp on stdin and
// stdout, until the client exits or stdin ends.
type lspCmd struct{}

// scanLSP refuses every argument: the server is configured by its client.
func scanLSP(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument `%s`\nhelp: serq lsp takes no arguments; an editor starts it", args[0])
	}
	return nil
}

func (c *lspCmd) Run(e *env) error {
	if len(e.progArgs) > 0 {
		return usagef("unexpected argument `%s`\nhelp: serq lsp takes no arguments; an editor starts it", e.progArgs[0])
	}
	loadedGC() // a long-lived server: the default target, not the start's (startGC)
	lsp.Serve(context.Background(), stdio{}, version, e.stderr)
	return nil
}

// stdio is stdin and stdout as one stream.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }
