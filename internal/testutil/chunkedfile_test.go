package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Errorf reports instead of
// failing the test; every other method is the real test's.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) take() []string {
	errs := r.errs
	r.errs = nil
	return errs
}

const sample = `fn main() {
  stage svc : fifo;   // ### "undefined: srv"
}
---
fn main() {
  let x = 1;
  let y = z + w;      // ### "undefined: z" ### "undefined: w"
}
---
fn main() { }
`

func write(t *testing.T, text string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "errors.sq")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestRead(t *testing.T) {
	name := write(t, sample)
	rec := &recorder{TB: t}
	chunks := Read(name, rec)
	if errs := rec.take(); errs != nil {
		t.Fatalf("Read reported %q", errs)
	}
	if len(chunks) != 3 {
		t.Fatalf("Read gave %d chunks, want 3", len(chunks))
	}
	wantSrc := "fn main() {\n  let x = 1;\n  let y = z + w;      // ### \"undefined: z\" ### \"undefined: w\"\n}\n"
	if got := chunks[1].Source; got != wantSrc {
		t.Errorf("chunk 1 Source = %q, want %q", got, wantSrc)
	}
	if chunks[2].Filename != name {
		t.Errorf("Filename = %q, want %q", chunks[2].Filename, name)
	}

	// Every expectation met, in any order within a line.
	chunks[0].GotError(2, "undefined: srv (did you mean svc?)")
	chunks[0].Done()
	chunks[1].GotError(3, "undefined: w")
	chunks[1].GotError(3, "undefined: z")
	chunks[1].Done()
	chunks[2].Done()
	if errs := rec.take(); errs != nil {
		t.Errorf("met expectations reported %q", errs)
	}
}

func TestReadReports(t *testing.T) {
	name := write(t, sample)
	rec := &recorder{TB: t}
	chunks := Read(name, rec)

	// A missing expectation is reported by Done, at its line in the file.
	chunks[1].GotError(3, "undefined: z")
	chunks[1].Done()
	// An unexpected error, and one that does not match its line's pattern.
	chunks[0].GotError(1, "boom")
	chunks[0].GotError(2, "got string, want number")
	chunks[0].Done()
	// A chunk line is relative: line 1 of the third chunk is line 10 of the file.
	chunks[2].GotError(1, "late")

	want := []string{
		name + `:7: expected error matching "undefined: w"`,
		name + `:1: unexpected error: boom`,
		name + `:2: error "got string, want number" does not match "undefined: srv"`,
		name + `:10: unexpected error: late`,
	}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("reports:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadBadMarkers(t *testing.T) {
	name := write(t, strings.Join([]string{
		`let a = 1;   ### "not in a comment"`,
		`let b = 1;   // ### unquoted`,
		`let c = 1;   // ### "(unclosed"`,
	}, "\n"))
	rec := &recorder{TB: t}
	Read(name, rec)
	errs := rec.take()
	if len(errs) != 3 {
		t.Fatalf("Read reported %d errors, want 3: %q", len(errs), errs)
	}
	for i, err := range errs {
		if prefix := fmt.Sprintf("%s:%d: ", name, i+1); !strings.HasPrefix(err, prefix) {
			t.Errorf("report %q does not start with %q", err, prefix)
		}
	}
}
