package main

import "testing"

// TestLSPUsage checks that `serq lsp` takes no arguments (the server
// itself is tested in package lsp).
func TestLSPUsage(t *testing.T) {
	const usage = "usage: serq lsp\n"
	for _, args := range [][]string{{"lsp", "x.sq"}, {"lsp", "--stdio"}, {"lsp", "--", "x"}} {
		code, out, errs := serq(t, args...)
		want := "error: unexpected argument `" + args[len(args)-1] + "`\nhelp: serq lsp takes no arguments; an editor starts it\n" + usage
		if code != 2 || out != "" || errs != want {
			t.Errorf("serq %q = %d, %q, %q; want 2, \"\", %q", args, code, out, errs, want)
		}
	}
}
