package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// TestTarget compares `serq target` on the single-turn vLLM example and
// on the seed with golden configurations (go test ./cmd/serq -update).
func TestTarget(t *testing.T) {
	for _, tt := range []struct{ file, golden string }{
		{"../../examples/single-turn/vllm.sq", "target_single-turn_vllm.json"},
		{"../../examples/pd-disaggregation/llmd_nixl_pull.sq", "target_pd-disaggregation_llmd_nixl_pull.json"},
	} {
		code, out, errs := serq(t, "target", tt.file)
		if code != 0 || errs != "" {
			t.Fatalf("serq target %s = %d, stderr %q", tt.file, code, errs)
		}
		testutil.Golden(t, filepath.Join("testdata", tt.golden), []byte(out))
	}
}

func TestTargetErrors(t *testing.T) {
	const usage = "usage: serq target FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]\n"
	single := "../../examples/single-turn/vllm.sq"
	tests := []struct {
		args []string
		code int
		want string // stderr
	}{
		{[]string{"../../examples/single-turn/tandem.sq"}, 1,
			"../../examples/single-turn/tandem.sq:22:3: not on vLLM's architecture: stage `front` is a queueing server (fifo); " +
				"vLLM's only server is its engine, and all else it is given is a delay\n" +
				" |   stage front : fifo;\n |   ^\nhint: model the time outside vLLM as a `delay` stage\n"},
		{[]string{single, "--", "--chunk_cap", "512"}, 1,
			"../../examples/single-turn/vllm.sq:43:3: not on vLLM's architecture: engine `vllm`'s prefill cap depends on the step; " +
				"vLLM caps a request's prefill at long_prefill_token_threshold whenever it is positive\n" +
				" |   engine vllm on gpu {\n |   ^\nhint: write `each at most (c)` with a constant c, which vLLM applies to every request\n"},
		{[]string{single, "--horizon", "1"}, 2, "error: --horizon is not supported by `target`\nhelp: --horizon applies to ir, run, tui, sweep\n" + usage},
		{[]string{}, 2, "error: missing FILE\nhelp: supply a .sq program file\n" + usage},
	}
	for _, tt := range tests {
		code, stdout, stderr := serq(t, append([]string{"target"}, tt.args...)...)
		if code != tt.code || stdout != "" || stderr != tt.want {
			t.Errorf("serq target %q = %d, stdout %q, stderr:\n%s\nwant %d, \"\", stderr:\n%s", tt.args, code, stdout, stderr, tt.code, tt.want)
		}
	}
}

// TestTargetDocs checks that the examples of docs/cli.md §7 are what
// `serq target` prints today.
func TestTargetDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(doc)
	if i := strings.Index(sec, "## 7. `serq target`"); i >= 0 {
		sec = sec[i:]
		if j := strings.Index(sec, "\n## 8."); j >= 0 {
			sec = sec[:j]
		}
	} else {
		t.Fatal("docs/cli.md has no section `serq target`")
	}
	blocks := regexp.MustCompile("(?s)```(?:json)?\n(.*?)```").FindAllStringSubmatch(sec, -1)
	if len(blocks) != 2 {
		t.Fatalf("docs/cli.md §7 has %d code blocks, want 2", len(blocks))
	}
	_, out, _ := serq(t, "target", "../../examples/single-turn/vllm.sq")
	if blocks[0][1] != out {
		t.Errorf("docs/cli.md's configuration differs from serq target:\n%s", out)
	}
	if code, _, errs := serqIn(t, "../..", "target", "examples/single-turn/tandem.sq"); code != 1 || blocks[1][1] != errs {
		t.Errorf("docs/cli.md's refusal differs from serq target (exit %d):\n%s", code, errs)
	}
}

// serqIn runs the CLI in process from directory dir.
func serqIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	return serq(t, args...)
}
