package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// TestCLIDocsStateTheLimits keeps docs/cli.md's table of limits true of
// the code.
func TestCLIDocsStateTheLimits(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, row := range []string{
		fmt.Sprintf("| %s | `lang.MaxSourceSize` |", safeio.Size(lang.MaxSourceSize)),
		fmt.Sprintf("| %d levels | `lang.MaxNesting` |", lang.MaxNesting),
		fmt.Sprintf("| %d levels | `lang.MaxExprDepth` |", lang.MaxExprDepth),
		fmt.Sprintf("| %s | `lang.MaxExpansion` |", thousands(lang.MaxExpansion)),
		fmt.Sprintf("| %d | `lang.MaxChoose` |", lang.MaxChoose),
		"| 2^30 | `model.MaxServers` |",
		fmt.Sprintf("| %s | `interp.MaxTraceSize` |", safeio.Size(interp.MaxTraceSize)),
		fmt.Sprintf("| %s; `serq run --max-live N` | `interp.DefaultMaxLive` |", thousands(interp.DefaultMaxLive)),
	} {
		if !strings.Contains(doc, row) {
			t.Errorf("docs/cli.md lacks the row ending %q", row)
		}
	}
	if model.MaxServers != 1<<30 {
		t.Errorf("model.MaxServers = %d, the docs say 2^30", model.MaxServers)
	}
}

// thousands writes n with commas: 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
