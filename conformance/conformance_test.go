// Package conformance runs the reference serQ's own tests, ported: each
// file under testdata/ holds the cases of one reference test file, one
// chunk each (see README.md for the files covered and the tests left out).
//
// A chunk is a program preceded by directives, each a comment line:
//
//	// case: pool_semantics.rs a_hold_that_can_never_fit_is_reported_stuck
//	// run: --horizon 400 [--warmup T] [--seed N] [--arrivals N]
//	// want: observe NAME = [v, …]     the samples' values, in recording order
//	// want: observe NAME count = N    the number of samples
//	// want: observe NAME first K = [v, …]  the first K samples' values
//	// want: pool NAME FIELD = V       a pool row's field (snake case)
//	// want: stage NAME FIELD = V      a stage row's field
//	// want: gauge NAME FIELD = V      a gauge row's field (mean, min, max)
//	// want: ROW NAME FIELD = ROW NAME FIELD   two rows' fields are equal
//	// want: report FIELD = V          a report field (ended, arrivals, turns)
//	// want: claim NAME result = WORD  a claim's result (holds, fails, witnessed, …)
//	// want: claim NAME note = "RE"    a claim's note matches
//	// want: claim NAME FIELD = V      checked, failures: a number, or
//	//                                 `iterations of STAGE` (that stage's count)
//	// want: error "REGEXP"            the run fails with a matching error
//	// deviation: WHY                  serq differs here on purpose (docs/semantics.md)
//	// file: NAME "TEXT"               a file the program `use`s (a Go string)
//	// lib: NAME:LINE:COL "REGEXP"     a static error in such a file
//	// lineless: "REGEXP"              a static error with no line (a bad --set)
//	// set: NAME=EXPR                  binds an input, as `--set NAME=EXPR`
//	// note: "REGEXP"                  a note of some static error
//	// target: PATH = JSON             `serq target`'s JSON has JSON at PATH
//	//                                 (keys and indices joined by dots)
//	// target: refused                 `serq target` refuses the program: the
//	//                                 refusal is expected as a `// ###` on
//	//                                 its line, as a static error is
//
// A chunk without `run:` is only loaded. A refusal is written as in
// lang/testdata/errors.sq: `// ### "^COL: MSG$"` on the line the error is
// reported at, matched against the error as rendered, "COL: MSG" with
// "\nhint: HINT" when it has a hint (the message's wording may differ from
// the reference's; the position and the fact it names may not; a
// reference test that finds a "did you mean" anywhere in the printed error
// finds it in serq's hint). An
// error at the end of the file is expected on the chunk's last line.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
	"github.com/serq/serq/target"
)

// A conformance case: one chunk and its directives.
type tcase struct {
	file, test string // the reference test it ports
	run        *interp.Options
	wants      []want
	deviation  string
	line       int               // the case directive's line in the chunk
	files      map[string]string // the files it uses, by name
	libErrs    []libErr
	notes      []*regexp.Regexp
	lineless   []*regexp.Regexp
	sets       []lang.Override
	target     []targetWant // what `serq target` gives
	refused    bool         // `serq target` refuses the program
}

// targetWant is a value `serq target`'s JSON has at a path.
type targetWant struct {
	path  []string
	value any // decoded JSON
	line  int
}

// libErr is a static error expected in a used file.
type libErr struct {
	pos string // NAME:LINE:COL
	rx  *regexp.Regexp
}

type want struct {
	kind, name, field string
	word              string // a claim's result, or the stage whose iterations it checked
	ref               *want  // the row value the value must equal, instead of values
	values            []float64
	rx                *regexp.Regexp
	line              int
}

func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.sq"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance files: %v", err)
	}
	cases, passed, deviations := 0, 0, 0
	for _, file := range files {
		for _, c := range testutil.Read(file, t) {
			tc, err := parseCase(c.Source)
			if err != nil {
				t.Errorf("%s: chunk at %q: %v", file, firstLine(c.Source), err)
				continue
			}
			cases++
			if tc.deviation != "" {
				deviations++
			}
			ok := t.Run(tc.file+"/"+tc.test, func(t *testing.T) {
				c := testutil.Rebind(c, t)
				check(t, &c, tc)
			})
			if ok {
				passed++
			}
		}
	}
	t.Logf("conformance: %d cases, %d passed, %d listed deviations", cases, passed, deviations)
}

// TestDeviationsAreListed checks that every case marked `// deviation:`
// has its row in docs/semantics.md's table, and every row a case.
func TestDeviationsAreListed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "semantics.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Where serq departs from the reference's tests")
	if !ok {
		t.Fatal("docs/semantics.md has no deviation table")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	files, _ := filepath.Glob(filepath.Join("testdata", "*.sq"))
	listed := map[string]bool{}
	for _, file := range files {
		for _, c := range testutil.Read(file, t) {
			tc, err := parseCase(c.Source)
			if err != nil || tc.deviation == "" {
				continue
			}
			test, _, _ := strings.Cut(tc.test, " ")
			row := "| " + tc.file + " " + test + " |"
			listed[row] = true
			if !strings.Contains(table, row) {
				t.Errorf("%s: the deviation of %s %s has no row %q in docs/semantics.md", file, tc.file, tc.test, row)
			}
		}
	}
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Count(line, ".rs ") == 1 {
			row := line[:strings.Index(line, " |")+2]
			if !listed[row] {
				t.Errorf("docs/semantics.md lists %q, which no case marks as a deviation", row)
			}
		}
	}
}

func firstLine(src string) string {
	line, _, _ := strings.Cut(src, "\n")
	return line
}

// parseCase reads a chunk's directives.
func parseCase(src string) (*tcase, error) {
	tc := &tcase{}
	for i, line := range strings.Split(src, "\n") {
		text := strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(text, "//")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		key, val, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "case":
			val, _, _ = strings.Cut(val, "  //") // an expectation on the same line
			file, test, ok := strings.Cut(val, " ")
			if !ok || !strings.HasSuffix(file, ".rs") {
				return nil, fmt.Errorf("line %d: want `// case: FILE.rs TEST`", i+1)
			}
			tc.file, tc.test, tc.line = file, strings.TrimSpace(test), i+1
		case "run":
			opt, err := parseRun(val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			tc.run = opt
		case "want":
			w, err := parseWant(val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			w.line = i + 1
			tc.wants = append(tc.wants, w)
		case "deviation":
			tc.deviation = val
		case "file":
			name, text, ok := strings.Cut(val, " ")
			body, err := strconv.Unquote(strings.TrimSpace(text))
			if !ok || err != nil {
				return nil, fmt.Errorf("line %d: want `// file: NAME \"TEXT\"`", i+1)
			}
			if tc.files == nil {
				tc.files = map[string]string{}
			}
			tc.files[name] = body
		case "lib":
			pos, pat, ok := strings.Cut(val, " ")
			rx, err := quotedRegexp(pat)
			if !ok || err != nil {
				return nil, fmt.Errorf("line %d: want `// lib: NAME:LINE:COL \"REGEXP\"`: %v", i+1, err)
			}
			tc.libErrs = append(tc.libErrs, libErr{pos, rx})
		case "note", "lineless":
			rx, err := quotedRegexp(val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			if key == "note" {
				tc.notes = append(tc.notes, rx)
			} else {
				tc.lineless = append(tc.lineless, rx)
			}
		case "target":
			if val == "refused" {
				tc.refused = true
				continue
			}
			path, js, ok := strings.Cut(val, " = ")
			var v any
			if !ok || json.Unmarshal([]byte(js), &v) != nil {
				return nil, fmt.Errorf("line %d: want `// target: PATH = JSON` or `// target: refused`", i+1)
			}
			tc.target = append(tc.target, targetWant{strings.Split(path, "."), v, i + 1})
		case "set":
			name, expr, ok := strings.Cut(val, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: want `// set: NAME=EXPR`", i+1)
			}
			tc.sets = append(tc.sets, lang.Override{Name: name, Expr: expr})
		}
	}
	if tc.file == "" {
		return nil, errors.New("no `// case:` line")
	}
	if len(tc.wants) > 0 && tc.run == nil {
		return nil, errors.New("`// want:` without `// run:`")
	}
	if tc.run != nil && len(tc.wants) == 0 {
		return nil, errors.New("`// run:` without `// want:`: a case that cannot fail")
	}
	if (tc.refused || len(tc.target) > 0) && tc.run != nil {
		return nil, errors.New("`// target:` with `// run:`: a case targets or runs")
	}
	if tc.refused && len(tc.target) > 0 {
		return nil, errors.New("`// target: refused` with a target value")
	}
	return tc, nil
}

func quotedRegexp(s string) (*regexp.Regexp, error) {
	pat, err := strconv.Unquote(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	return regexp.Compile(pat)
}

func parseRun(val string) (*interp.Options, error) {
	opt := &interp.Options{Seed: 1}
	f := strings.Fields(val)
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("run: want flag value pairs, got %q", val)
	}
	for i := 0; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return nil, fmt.Errorf("run: %s: %v", f[i], err)
		}
		switch f[i] {
		case "--horizon":
			opt.Horizon = v
		case "--warmup":
			opt.Warmup = v
		case "--seed":
			opt.Seed = uint64(v)
		case "--arrivals":
			opt.Arrivals = uint64(v)
		default:
			return nil, fmt.Errorf("run: unknown flag %s", f[i])
		}
	}
	if opt.Horizon == 0 {
		return nil, errors.New("run: no --horizon")
	}
	return opt, nil
}

var (
	wantSamples = regexp.MustCompile(`^observe (\S+) = \[(.*)\]$`)
	wantCount   = regexp.MustCompile(`^observe (\S+) count = (\S+)$`)
	wantFirst   = regexp.MustCompile(`^observe (\S+) first (\d+) = \[(.*)\]$`)
	wantRow     = regexp.MustCompile(`^(pool|stage|gauge) (\S+) (\w+) = (\S+)$`)
	wantRowRef  = regexp.MustCompile(`^(pool|stage|gauge) (\S+) (\w+) = (pool|stage|gauge) (\S+) (\w+)$`)
	wantReport  = regexp.MustCompile(`^report (\w+) = (\S+)$`)
	wantError   = regexp.MustCompile(`^error (".*")$`)
	wantClaim   = regexp.MustCompile(`^claim (\S+) (result|note|checked|failures) = (.+)$`)
)

func parseWant(val string) (want, error) {
	num := func(s string) (float64, error) {
		return strconv.ParseFloat(strings.TrimSpace(s), 64)
	}
	if m := wantSamples.FindStringSubmatch(val); m != nil {
		w := want{kind: "samples", name: m[1], values: []float64{}}
		if strings.TrimSpace(m[2]) != "" {
			for _, s := range strings.Split(m[2], ",") {
				v, err := num(s)
				if err != nil {
					return w, err
				}
				w.values = append(w.values, v)
			}
		}
		return w, nil
	}
	if m := wantFirst.FindStringSubmatch(val); m != nil {
		w, err := parseWant("observe " + m[1] + " = [" + m[3] + "]")
		w.kind, w.field = "first", m[2]
		return w, err
	}
	if m := wantCount.FindStringSubmatch(val); m != nil {
		v, err := num(m[2])
		return want{kind: "count", name: m[1], values: []float64{v}}, err
	}
	if m := wantRowRef.FindStringSubmatch(val); m != nil {
		return want{kind: m[1], name: m[2], field: m[3], ref: &want{kind: m[4], name: m[5], field: m[6]}}, nil
	}
	if m := wantRow.FindStringSubmatch(val); m != nil {
		v, err := num(m[4])
		return want{kind: m[1], name: m[2], field: m[3], values: []float64{v}}, err
	}
	if m := wantReport.FindStringSubmatch(val); m != nil {
		v, err := num(m[2])
		return want{kind: "report", field: m[1], values: []float64{v}}, err
	}
	if m := wantClaim.FindStringSubmatch(val); m != nil {
		w := want{kind: "claim", name: m[1], field: m[2], word: m[3]}
		switch m[2] {
		case "note":
			rx, err := quotedRegexp(m[3])
			w.rx = rx
			return w, err
		case "checked", "failures":
			if stage, ok := strings.CutPrefix(m[3], "iterations of "); ok {
				w.word = stage
				return w, nil
			}
			v, err := num(m[3])
			w.word, w.values = "", []float64{v}
			return w, err
		}
		return w, nil
	}
	if m := wantError.FindStringSubmatch(val); m != nil {
		pat, err := strconv.Unquote(m[1])
		if err != nil {
			return want{}, err
		}
		rx, err := regexp.Compile(pat)
		return want{kind: "error", rx: rx}, err
	}
	return want{}, fmt.Errorf("want: cannot read %q", val)
}

// check loads the chunk, matches its static errors, runs it when the case
// says so and checks the outcome.
func check(t *testing.T, c *testutil.Chunk, tc *tcase) {
	dir := filepath.Dir(c.Filename)
	read := func(path string) ([]byte, error) {
		for name, text := range tc.files {
			if filepath.Join(dir, name) == filepath.Clean(path) {
				return []byte(text), nil
			}
		}
		return nil, fmt.Errorf("open %s: %w", path, os.ErrNotExist)
	}
	prog, err := lang.LoadSource(c.Filename, []byte(c.Source), lang.Options{Lib: lib.FS, ReadFile: read, Sets: tc.sets})
	checkStatic(t, c, tc, err)
	switch {
	case err != nil && (tc.refused || len(tc.target) > 0):
		t.Errorf("a case to target does not load")
	case err == nil && (tc.refused || len(tc.target) > 0):
		checkTarget(t, c, tc, prog)
	}
	c.Done()
	if err != nil || tc.run == nil {
		if err != nil && tc.run != nil {
			t.Errorf("a case to run does not load")
		}
		return
	}
	checkRun(t, tc, prog)
}

// checkStatic matches the static errors of the chunk's program (err,
// nil when it loads) with the case's expectations: on their lines, in
// the files it uses, without a line, and the notes. The caller ends the
// chunk (c.Done) once a target's refusal has been matched too.
func checkStatic(t *testing.T, c *testutil.Chunk, tc *tcase, err error) {
	dir := filepath.Dir(c.Filename)
	libErrs := slices.Clone(tc.libErrs)
	lineless := slices.Clone(tc.lineless)
	var notes []string
	for _, e := range staticErrors(t, err) {
		notes = append(notes, e.Notes...)
		if e.Pos.Line == 0 {
			i := slices.IndexFunc(lineless, func(rx *regexp.Regexp) bool { return rx.MatchString(e.Msg) })
			if i < 0 {
				t.Errorf("unexpected error with no line: %v", e)
				continue
			}
			lineless = slices.Delete(lineless, i, i+1)
			continue
		}
		if e.Pos.File != c.Filename {
			pos := fmt.Sprintf("%s:%d:%d", e.Pos.File, e.Pos.Line, e.Pos.Col)
			i := slices.IndexFunc(libErrs, func(l libErr) bool {
				return filepath.Join(dir, l.pos) == pos && l.rx.MatchString(e.Msg)
			})
			if i < 0 {
				t.Errorf("unexpected error in a used file: %v", e)
				continue
			}
			libErrs = slices.Delete(libErrs, i, i+1)
			continue
		}
		line := e.Pos.Line
		if n := strings.Count(c.Source, "\n"); line > n {
			line = n // the end of the file: expected on the chunk's last line
		}
		c.GotError(line, rendered(e))
	}
	for _, l := range libErrs {
		t.Errorf("expected an error at %s matching %q", l.pos, l.rx)
	}
	for _, rx := range lineless {
		t.Errorf("expected an error with no line matching %q", rx)
	}
	for _, rx := range tc.notes {
		if !slices.ContainsFunc(notes, rx.MatchString) {
			t.Errorf("no note matches %q; notes: %q", rx, notes)
		}
	}
}

// checkTarget compiles the loaded program to its vLLM configuration, as
// `serq target` does, and matches the refusal with the chunk's `// ###`
// on its line, or the values at the case's paths.
func checkTarget(t *testing.T, c *testutil.Chunk, tc *tcase, prog *model.Program) {
	got, err := target.VLLM(prog)
	var r *target.Refusal
	switch {
	case tc.refused && errors.As(err, &r):
		if r.Pos.File != c.Filename {
			t.Errorf("the target refuses at %s, outside the chunk: %s", r.Pos, r.Msg)
			return
		}
		s := fmt.Sprintf("%d: %s", r.Pos.Col, r.Msg)
		if r.Hint != "" {
			s += "\nhint: " + r.Hint
		}
		c.GotError(r.Pos.Line, s)
		return
	case tc.refused:
		t.Errorf("the target gives %+v, %v; want a refusal", got, err)
		return
	case err != nil:
		t.Errorf("the target refuses: %v", err)
		return
	}
	js, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	for _, w := range tc.target {
		v, ok := doc, true
		for _, k := range w.path {
			switch x := v.(type) {
			case map[string]any:
				v, ok = x[k]
			case []any:
				i, err := strconv.Atoi(k)
				ok = err == nil && i >= 0 && i < len(x)
				if ok {
					v = x[i]
				}
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		switch {
		case !ok:
			t.Errorf("line %d: the target has nothing at %s in %s", w.line, strings.Join(w.path, "."), js)
		case !reflect.DeepEqual(v, w.value):
			t.Errorf("line %d: the target has %v at %s, want %v", w.line, v, strings.Join(w.path, "."), w.value)
		}
	}
}

// checkRun runs the loaded program with the case's settings and checks
// the outcomes it states: a run error, or claims and figures of the
// report.
func checkRun(t *testing.T, tc *tcase, prog *model.Program) {
	rep, err := interp.Run(context.Background(), prog, *tc.run)
	var wantErr *want
	for i := range tc.wants {
		if tc.wants[i].kind == "error" {
			wantErr = &tc.wants[i]
		}
	}
	switch {
	case wantErr != nil && err == nil:
		t.Fatalf("line %d: the run succeeds, want an error matching %q", wantErr.line, wantErr.rx)
	case wantErr != nil:
		if !wantErr.rx.MatchString(err.Error()) {
			t.Errorf("line %d: run error %q does not match %q", wantErr.line, err, wantErr.rx)
		}
		return
	case err != nil:
		t.Fatalf("run: %v", err)
	}
	for _, w := range tc.wants {
		if w.kind == "claim" {
			if err := claimOutcome(rep, w); err != nil {
				t.Errorf("line %d: %v", w.line, err)
			}
			continue
		}
		got, err := outcome(rep, w)
		if err != nil {
			t.Errorf("line %d: %v", w.line, err)
			continue
		}
		if w.ref != nil {
			if w.values, err = outcome(rep, *w.ref); err != nil {
				t.Errorf("line %d: %v", w.line, err)
				continue
			}
		}
		if !sameValues(got, w.values) {
			t.Errorf("line %d: %s %s %s = %v, want %v", w.line, w.kind, w.name, w.field, got, w.values)
		}
	}
}

func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) && math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// claimOutcome checks a claim want against the report.
func claimOutcome(rep *interp.Report, w want) error {
	for _, c := range rep.Claims {
		if c.Name != w.name {
			continue
		}
		switch w.field {
		case "result":
			if c.Result.String() != w.word {
				return fmt.Errorf("claim %s is %s, want %s", c.Name, c.Result, w.word)
			}
		case "note":
			if c.Note == nil {
				return fmt.Errorf("claim %s has no note, want one matching %q", c.Name, w.rx)
			}
			if !w.rx.MatchString(*c.Note) {
				return fmt.Errorf("claim %s has note %q, want one matching %q", c.Name, *c.Note, w.rx)
			}
		default:
			got := float64(c.Checked)
			if w.field == "failures" {
				got = float64(c.Failures)
			}
			want := w.values
			if w.word != "" {
				v, err := outcome(rep, want2stage(w.word))
				if err != nil {
					return err
				}
				want = v
			}
			if !sameValues([]float64{got}, want) {
				return fmt.Errorf("claim %s %s = %v, want %v", c.Name, w.field, got, want)
			}
		}
		return nil
	}
	return fmt.Errorf("no claim %s", w.name)
}

func want2stage(stage string) want { return want{kind: "stage", name: stage, field: "iterations"} }

// outcome reads what a want names from the report.
func outcome(rep *interp.Report, w want) ([]float64, error) {
	switch w.kind {
	case "samples", "count", "first":
		for _, o := range rep.Observes {
			if o.Name != w.name {
				continue
			}
			if w.kind == "count" {
				return []float64{float64(o.Count)}, nil
			}
			vs := []float64{}
			for _, s := range o.Samples {
				vs = append(vs, s.Value)
			}
			if w.kind == "first" {
				n, _ := strconv.Atoi(w.field)
				vs = vs[:min(n, len(vs))]
			}
			return vs, nil
		}
		return nil, fmt.Errorf("no observe %s", w.name)
	case "pool":
		for i := range rep.Pools {
			if rep.Pools[i].DisplayName() == w.name {
				return field(&rep.Pools[i], w.field)
			}
		}
		return nil, fmt.Errorf("no pool %s", w.name)
	case "stage":
		for i := range rep.Stages {
			if rep.Stages[i].DisplayName() == w.name {
				return field(&rep.Stages[i], w.field)
			}
		}
		return nil, fmt.Errorf("no stage %s", w.name)
	case "gauge":
		for i := range rep.Gauges {
			if rep.Gauges[i].Name == w.name {
				return field(&rep.Gauges[i], w.field)
			}
		}
		return nil, fmt.Errorf("no gauge %s", w.name)
	case "report":
		return field(rep, w.field)
	}
	return nil, fmt.Errorf("unknown want %s", w.kind)
}

// field reads a numeric field of a report row by its snake-case name.
func field(row any, name string) ([]float64, error) {
	var camel strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part != "" {
			camel.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	v := reflect.ValueOf(row).Elem().FieldByName(camel.String())
	switch {
	case !v.IsValid():
		return nil, fmt.Errorf("no field %s in %T", name, row)
	case v.CanUint():
		return []float64{float64(v.Uint())}, nil
	case v.CanInt():
		return []float64{float64(v.Int())}, nil
	case v.CanFloat():
		return []float64{v.Float()}, nil
	case v.Kind() == reflect.Slice:
		return []float64{float64(v.Len())}, nil
	case v.Kind() == reflect.Bool:
		if v.Bool() {
			return []float64{1}, nil
		}
		return []float64{0}, nil
	}
	return nil, fmt.Errorf("field %s of %T is no number", name, row)
}

// staticErrors returns the static errors in err, failing on any other.
func staticErrors(t *testing.T, err error) []*lang.Error {
	t.Helper()
	var list lang.ErrorList
	var one *lang.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &list):
		return list
	case errors.As(err, &one):
		return []*lang.Error{one}
	}
	t.Errorf("an error that is not a static error: %T %v", err, err)
	return nil
}

// rendered is what an expectation of a refused program matches: "COL:
// MSG", with "\nhint: HINT" appended when the error has a hint, as
// lang/testdata/errors.sq's expectations match. The reference's tests
// look for a phrase anywhere in the error it prints, a "did you mean"
// included; serq prints a suggestion as the hint.
func rendered(e *lang.Error) string {
	s := fmt.Sprintf("%d: %s", e.Pos.Col, e.Msg)
	if e.Hint != "" {
		s += "\nhint: " + e.Hint
	}
	return s
}
