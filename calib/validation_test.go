package calib

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/vllmimport"
)

// TestValidationTable holds docs/validation.md's table of the measured
// runs to what `go run ./calib/cmd/validate` prints today: every run
// simulated from its configuration with the calibration serq carries, seed
// 1.
func TestValidationTable(t *testing.T) {
	exps, err := Load("../validation/groundtruth")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := vllmimport.DefaultCalibration()
	if err != nil {
		t.Fatal(err)
	}
	preds, err := PredictAll(exps, cal, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteValidation(&b, Rows(exps, preds))
	doc, err := os.ReadFile("../docs/validation.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- go run ./calib/cmd/validate -->\n", "<!-- end of its output -->\n"
	text := string(doc)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("docs/validation.md has no block between %q and %q", begin, end)
	}
	if d := cmp.Diff(text[i+len(begin):j], b.String()); d != "" {
		t.Errorf("docs/validation.md's table differs from calib/cmd/validate's output (-doc +now):\n%s", d)
	}
}
