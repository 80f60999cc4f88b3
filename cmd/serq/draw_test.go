package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// drawRun runs `serq draw ARGS…` in process.
func drawRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"draw"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestDrawDocs checks that docs/*.svg are what `serq draw --out` writes
// today: regenerate them with `go test ./draw -update`.
func TestDrawDocs(t *testing.T) {
	for _, name := range []string{"llmd_nixl_pull", "vllm_nixl_push"} {
		out := filepath.Join(t.TempDir(), name+".svg")
		code, stdout, stderr := drawRun(t, "../../examples/pd-disaggregation/"+name+".sq", "--out", out)
		if code != 0 || stdout != "" || stderr != "" {
			t.Fatalf("serq draw %s = %d, %q, %q; want 0, \"\", \"\"", name, code, stdout, stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("../../docs/" + name + ".svg")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/%s.svg differs from what serq draw writes (go test ./draw -update)", name)
		}
		// The same bytes on stdout.
		if code, stdout, _ := drawRun(t, "../../examples/pd-disaggregation/"+name+".sq", "--format", "svg"); code != 0 || stdout != string(want) {
			t.Errorf("serq draw %s to stdout = %d and differs from --out", name, code)
		}
	}
}

func TestDrawText(t *testing.T) {
	code, stdout, stderr := drawRun(t, "../../examples/single-turn/tandem.sq", "--format", "txt", "--", "--lam", "2")
	if code != 0 || stderr != "" {
		t.Fatalf("serq draw --format txt = %d, %q", code, stderr)
	}
	for _, want := range []string{"sessions: poisson(2)", "stage front · fifo, 1 server", "stage back · fifo, 1 server"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serq draw --format txt: no %q in\n%s", want, stdout)
		}
	}
}

// TestDrawTikZ checks that --format tikz prints the picture of package
// draw, and --standalone the document around it.
func TestDrawTikZ(t *testing.T) {
	f := "../../examples/single-turn/tandem.sq"
	code, pic, stderr := drawRun(t, f, "--format", "tikz", "--", "--lam", "2")
	if code != 0 || stderr != "" {
		t.Fatalf("serq draw --format tikz = %d, %q", code, stderr)
	}
	if !strings.HasPrefix(pic, "% serq draw: tandem.sq\n\\begin{tikzpicture}\n") || !strings.HasSuffix(pic, "\\end{tikzpicture}\n") {
		t.Errorf("serq draw --format tikz is not one tikzpicture:\n%s", pic)
	}
	if !strings.Contains(pic, "{sessions: poisson(2)}") {
		t.Errorf("serq draw --format tikz: no arrivals in\n%s", pic)
	}
	code, doc, stderr := drawRun(t, f, "--standalone", "--format", "tikz", "--", "--lam", "2")
	if code != 0 || stderr != "" {
		t.Fatalf("serq draw --format tikz --standalone = %d, %q", code, stderr)
	}
	if !strings.HasPrefix(doc, "\\documentclass{article}\n") || !strings.Contains(doc, pic) || !strings.HasSuffix(doc, "\\end{document}\n") {
		t.Errorf("serq draw --standalone is not a document around the picture:\n%s", doc)
	}
}

func TestDrawErrors(t *testing.T) {
	const usage = "usage: serq draw FILE [--format svg|txt|tikz] [--standalone] [--out PATH] [--set name=expr]... [--def name=expr]... [-- --name value ...]\n"
	f := "../../examples/single-turn/mg1.sq"
	tests := []struct {
		args []string
		code int
		want string // stderr
	}{
		{[]string{f, "--format", "png"}, 2, "error: invalid value `png` for --format; expected svg, txt or tikz\nhelp: use --format svg\n" + usage},
		{[]string{f, "--standalone"}, 2, "error: --standalone is for --format tikz\nhelp: use --format tikz --standalone\n" + usage},
		{[]string{f, "--format", "txt", "--standalone"}, 2, "error: --standalone is for --format tikz\nhelp: use --format tikz --standalone\n" + usage},
		{[]string{f, "--standalone", "--format", "tikz", "--horizon", "1"}, 2, "error: --horizon is not supported by `draw`\nhelp: --horizon applies to ir, run, tui, sweep\n" + usage},
		{[]string{f, "--format"}, 2, "error: missing value for --format\nhelp: supply a value immediately after --format\n" + usage},
		{[]string{f, "--horizon", "1"}, 2, "error: --horizon is not supported by `draw`\nhelp: --horizon applies to ir, run, tui, sweep\n" + usage},
		{[]string{}, 2, "error: missing FILE\nhelp: supply a .sq program file\n" + usage},
		{[]string{"no-such.sq"}, 1, "no-such.sq: cannot read: no such file or directory\n"},
		{[]string{f, "--out", filepath.Join(t.TempDir(), "no", "dir.svg")}, 1, ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := drawRun(t, tt.args...)
		if code != tt.code || stdout != "" {
			t.Errorf("serq draw %q = %d, stdout %q; want %d, \"\"", tt.args, code, stdout, tt.code)
		}
		if tt.want != "" && stderr != tt.want {
			t.Errorf("serq draw %q stderr = %q, want %q", tt.args, stderr, tt.want)
		}
	}
}
