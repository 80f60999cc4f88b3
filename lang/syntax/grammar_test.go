package syntax

import (
	"path/filepath"
	"testing"

	"github.com/serq/serq/internal/testutil"
)

// TestGrammarGolden keeps the grammar's EBNF in testdata/grammar.ebnf.golden,
// so that a change to the syntax shows in review.
func TestGrammarGolden(t *testing.T) {
	testutil.Golden(t, filepath.Join("testdata", "grammar.ebnf.golden"), []byte(Grammar()+"\n"))
}
