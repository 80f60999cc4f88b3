package main

// Rendering of a run's report: the text report (cli.md §6), the one-line
// JSON report (§7) and the --dump CSVs (§8).
//
// Numbers are printed the way the reference implementation (Rust) prints
// them: `{}` is the shortest decimal that reads back as the same float,
// never with an exponent ([formatFloat]); `{:.N}` is N decimals rounded
// half to even on the exact binary value ([rptFixed]); non-finite values
// are NaN, inf and -inf, where Go would print NaN, +Inf and -Inf.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
)

// formatFloat formats x as Rust's `{}` does: the shortest decimal that
// round-trips, without an exponent (2, 0.25, 0.0000001, 250000, -0), and
// NaN, inf, -inf.
func formatFloat(x float64) string {
	if s, ok := rptNonFinite(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// rptFixed formats x as Rust's `{:.N}` does with N = prec: prec decimals,
// ties to even, and NaN, inf, -inf.
func rptFixed(x float64, prec int) string {
	if s, ok := rptNonFinite(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

func rptNonFinite(x float64) (string, bool) {
	switch {
	case math.IsNaN(x):
		return "NaN", true
	case math.IsInf(x, 1):
		return "inf", true
	case math.IsInf(x, -1):
		return "-inf", true
	}
	return "", false
}

// rptAppendFloat appends formatFloat(x).
func rptAppendFloat(b []byte, x float64) []byte {
	if s, ok := rptNonFinite(x); ok {
		return append(b, s...)
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// ------------------------------------------------------------- text ----

// writeText writes the text report of cli.md §6: the run line, then the
// observe, gauge, claim, stage, step and pool tables that have rows, each
// after a blank line, and the note lines.
func writeText(w io.Writer, r *interp.Report) error {
	var b bytes.Buffer
	b.WriteString("run: horizon " + formatFloat(r.Horizon) +
		" end " + formatFloat(r.End) +
		" warmup " + formatFloat(r.Warmup) +
		" seed " + strconv.FormatUint(r.Seed, 10) +
		" events " + strconv.FormatUint(r.Events, 10) +
		" arrivals " + strconv.FormatUint(r.Arrivals, 10) +
		" ended " + strconv.FormatUint(r.Ended, 10) +
		" turns " + strconv.FormatUint(r.Turns, 10) +
		" mean live " + rptFixed(r.MeanLive, 3) + "\n")

	if len(r.Observes) > 0 {
		t := rptTable{header: []string{"observe", "count", "mean", "95% CI", "cv2", "p99"}}
		for i := range r.Observes {
			o := &r.Observes[i]
			t.add(o.Name,
				strconv.FormatUint(o.Count, 10),
				rptFixed(o.Mean, 4),
				"±"+rptFixed(o.CI, 4),
				rptFixed(o.CV2, 3),
				rptFixed(o.P99, 4))
		}
		t.write(&b)
		for i := range r.Observes {
			if o := &r.Observes[i]; o.ConstantZero() {
				b.WriteString("note: observe " + o.Name + " is constant 0 over " +
					strconv.FormatUint(o.Count, 10) + " samples\n")
			}
		}
	}

	if len(r.Gauges) > 0 {
		t := rptTable{header: []string{"gauge", "mean", "95% CI", "min", "max"}}
		for i := range r.Gauges {
			g := &r.Gauges[i]
			t.add(g.Name,
				rptFixed(g.Mean, 4),
				"±"+rptFixed(g.CI, 4),
				rptFixed(g.Min, 4),
				rptFixed(g.Max, 4))
		}
		t.write(&b)
	}

	if len(r.Claims) > 0 {
		t := rptTable{header: []string{"claim", "kind", "result"}, left: true}
		for i := range r.Claims {
			c := &r.Claims[i]
			t.add(c.Name, rptClaimKind(c.Kind), rptClaimSaid(c))
		}
		t.write(&b)
	}

	if len(r.Stages) > 0 {
		t := rptTable{header: []string{"stage", "number", "util", "done", "thru", "wait", "service", "iters"}}
		step := false
		for i := range r.Stages {
			s := &r.Stages[i]
			t.add(s.DisplayName(),
				rptFixed(s.MeanNumber, 3),
				rptFixed(s.Utilization, 3),
				strconv.FormatUint(s.Completed, 10),
				rptFixed(s.Throughput, 4),
				rptFixed(s.MeanWait, 4),
				rptFixed(s.MeanService, 4),
				strconv.FormatUint(s.Iterations, 10))
			step = step || s.Iterations > 0
		}
		t.write(&b)

		if step {
			t := rptTable{header: []string{"step", "prefill only", "decode only", "mixed", "idle",
				"decodes", "decode batch", "decode step", "itl p50", "itl p99"}}
			for i := range r.Stages {
				s := &r.Stages[i]
				if s.Iterations == 0 {
					continue
				}
				idle := 1.0 - s.PrefillOnly - s.DecodeOnly - s.Mixed
				t.add(s.DisplayName(),
					rptFixed(s.PrefillOnly, 3),
					rptFixed(s.DecodeOnly, 3),
					rptFixed(s.Mixed, 3),
					rptFixed(idle, 3),
					rptFixed(s.MeanDecodes, 3),
					rptFixed(s.MeanDecodeBatch, 3),
					rptFixed(s.MeanDecodeStep, 6),
					rptFixed(s.ITLP50, 6),
					rptFixed(s.ITLP99, 6))
			}
			t.write(&b)
		}
	}

	if len(r.Pools) > 0 {
		t := rptTable{header: []string{"pool", "used", "cached", "queue", "holders", "wait", "admits",
			"evict(n)", "evict(u)", "preempt", "spill", "rej", "stuck"}}
		for i := range r.Pools {
			p := &r.Pools[i]
			t.add(p.DisplayName(),
				rptFixed(p.MeanUsed, 1),
				rptFixed(p.MeanCached, 1),
				rptFixed(p.MeanQueue, 3),
				rptFixed(p.MeanHolders, 3),
				rptFixed(p.MeanWait, 4),
				strconv.FormatUint(p.Admissions, 10),
				strconv.FormatUint(p.EvictedEntries, 10),
				rptFixed(p.EvictedUnits, 0),
				strconv.FormatUint(p.Preemptions, 10),
				strconv.FormatUint(p.Spills, 10),
				strconv.FormatUint(p.Rejected, 10),
				strconv.FormatUint(p.Stuck, 10))
		}
		t.write(&b)
		for i := range r.Pools {
			p := &r.Pools[i]
			label := p.DisplayName()
			if p.Stuck > 0 {
				b.WriteString("stuck: " + strconv.FormatUint(p.Stuck, 10) +
					" session(s) preempted again at pool `" + label +
					"` without passing the position of their previous preemption\n")
			}
			if p.Rejected > 0 {
				b.WriteString("rej: " + strconv.FormatUint(p.Rejected, 10) +
					" session(s) ended at pool `" + label + "` asking for more than its cap\n")
			}
			if p.OverCap != nil {
				b.WriteString("over: the head of pool `" + p.OverCap.Queue + "`'s queue asks `" + label +
					"` for " + formatFloat(p.OverCap.Need) +
					", above its cap, when the run ends, and waits (its hold reads the " +
					"deployment's state, so joining the queue did not reject it)\n")
			}
		}
	}

	for i := range r.Stages {
		if s := &r.Stages[i]; s.IdleWithWork {
			b.WriteString("idle: stage `" + s.DisplayName() + "` ended with residents or waiting requests, " +
				"its last iteration scheduling nothing (a body or `serve only` that serves and admits " +
				"nobody waits for an event)\n")
		}
	}

	_, err := w.Write(b.Bytes())
	return err
}

// rptClaimKind is a claim kind as the text report says it.
func rptClaimKind(k interp.ClaimKind) string {
	switch k {
	case interp.ClaimEveryIteration:
		return "every iteration"
	case interp.ClaimSomeIteration:
		return "some iteration"
	case interp.ClaimAtEnd:
		return "at end"
	}
	return k.String()
}

// rptClaimSaid is a claim's result as the text report says it.
func rptClaimSaid(c *interp.ClaimRow) string {
	iterations := func(n uint64) string {
		if n == 1 {
			return "1 iteration"
		}
		return strconv.FormatUint(n, 10) + " iterations"
	}
	at := ""
	if c.First != nil {
		at = " at " + rptFixed(*c.First, 4)
	}
	note := ""
	if c.Note != nil {
		note = *c.Note
	}
	atEnd := c.Kind == interp.ClaimAtEnd
	switch c.Result {
	case interp.ClaimHolds:
		if atEnd {
			return "holds"
		}
		return "holds (" + iterations(c.Checked) + ")"
	case interp.ClaimFails:
		if atEnd {
			return "fails"
		}
		return "fails" + at + " (" + strconv.FormatUint(c.Failures, 10) + " of " + iterations(c.Checked) + ")"
	case interp.ClaimWitnessed:
		return "witnessed" + at + " (" + iterations(c.Checked) + ")"
	case interp.ClaimNotWitnessed:
		return "not witnessed (" + iterations(c.Checked) + ")"
	case interp.ClaimNotEvaluated:
		return "not evaluated: " + note
	case interp.ClaimOutOfScope:
		return "out of scope: " + note
	}
	return c.Result.String()
}

// rptTable is one section of the text report: a blank line, the header, a
// rule of dashes as wide as each column, the rows. A column is as wide as
// its widest cell in Unicode chars (`±` counts as one); the first column is
// left-aligned, the others right-aligned (left-aligned when left is set),
// separated by two spaces; trailing whitespace is trimmed.
type rptTable struct {
	header []string
	rows   [][]string
	left   bool
}

func (t *rptTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *rptTable) write(b *bytes.Buffer) {
	width := make([]int, len(t.header))
	for c, h := range t.header {
		width[c] = utf8.RuneCountInString(h)
		for _, r := range t.rows {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	b.WriteByte('\n')
	t.line(b, width, t.header)
	rule := make([]string, len(width))
	for c, w := range width {
		rule[c] = strings.Repeat("-", w)
	}
	t.line(b, width, rule)
	for _, r := range t.rows {
		t.line(b, width, r)
	}
}

func (t *rptTable) line(b *bytes.Buffer, width []int, cells []string) {
	var l strings.Builder
	for c, cell := range cells {
		pad := strings.Repeat(" ", max(width[c]-utf8.RuneCountInString(cell), 0))
		switch {
		case c == 0:
			l.WriteString(cell + pad)
		case t.left:
			l.WriteString("  " + cell + pad)
		default:
			l.WriteString("  " + pad + cell)
		}
	}
	b.WriteString(strings.TrimRightFunc(l.String(), unicode.IsSpace))
	b.WriteByte('\n')
}

// ------------------------------------------------------------- JSON ----

// writeJSON writes the JSON report of cli.md §7 as one compact line and a
// newline: keys in the fixed order, non-finite floats as null, floats as
// the shortest round-trip decimal without exponent, counters as integers,
// `index` null for a single resource, `claims` only when there are claims.
// The version and the claims' names and notes are JSON-escaped; observe,
// gauge, stage and pool names are identifiers and written raw.
func writeJSON(w io.Writer, r *interp.Report) error {
	var j rptJSON
	j.raw(`{"serq_version":`)
	j.str(r.Version)
	j.numField("horizon", r.Horizon)
	j.numField("end", r.End)
	j.numField("warmup", r.Warmup)
	j.uintField("seed", r.Seed)
	j.uintField("events", r.Events)
	j.uintField("arrivals", r.Arrivals)
	j.uintField("ended", r.Ended)
	j.uintField("turns", r.Turns)
	j.numField("mean_live", r.MeanLive)

	j.raw(`,"observes":{`)
	for i := range r.Observes {
		o := &r.Observes[i]
		if i > 0 {
			j.raw(",")
		}
		j.raw(`"` + o.Name + `":{"count":`)
		j.uint(o.Count)
		j.numField("mean", o.Mean)
		j.numField("ci", o.CI)
		j.numField("cv2", o.CV2)
		j.numField("p99", o.P99)
		j.raw("}")
	}
	j.raw(`},"gauges":{`)
	for i := range r.Gauges {
		g := &r.Gauges[i]
		if i > 0 {
			j.raw(",")
		}
		j.raw(`"` + g.Name + `":{"mean":`)
		j.num(g.Mean)
		j.numField("ci", g.CI)
		j.numField("min", g.Min)
		j.numField("max", g.Max)
		j.raw("}")
	}
	j.raw("}")

	if len(r.Claims) > 0 {
		j.raw(`,"claims":[`)
		for i := range r.Claims {
			c := &r.Claims[i]
			if i > 0 {
				j.raw(",")
			}
			j.raw(`{"name":`)
			j.str(c.Name)
			j.raw(`,"kind":"` + c.Kind.String() + `","result":"` + c.Result.String() + `","checked":`)
			j.uint(c.Checked)
			j.uintField("failures", c.Failures)
			j.raw(`,"first":`)
			if c.First != nil {
				j.num(*c.First)
			} else {
				j.raw("null")
			}
			j.raw(`,"note":`)
			if c.Note != nil {
				j.str(*c.Note)
			} else {
				j.raw("null")
			}
			j.raw("}")
		}
		j.raw("]")
	}

	j.raw(`,"stages":[`)
	for i := range r.Stages {
		s := &r.Stages[i]
		if i > 0 {
			j.raw(",")
		}
		j.raw(`{"name":"` + s.Name + `","index":`)
		j.index(s.Index)
		j.numField("mean_number", s.MeanNumber)
		j.numField("utilization", s.Utilization)
		j.uintField("completed", s.Completed)
		j.numField("throughput", s.Throughput)
		j.numField("mean_wait", s.MeanWait)
		j.numField("mean_service", s.MeanService)
		j.uintField("iterations", s.Iterations)
		j.numField("prefill_only", s.PrefillOnly)
		j.numField("decode_only", s.DecodeOnly)
		j.numField("mixed", s.Mixed)
		j.numField("mean_decodes", s.MeanDecodes)
		j.numField("mean_decode_batch", s.MeanDecodeBatch)
		j.numField("mean_decode_step", s.MeanDecodeStep)
		j.numField("mean_itl", s.MeanITL)
		j.numField("itl_p50", s.ITLP50)
		j.numField("itl_p99", s.ITLP99)
		j.raw(`,"idle_with_work":` + strconv.FormatBool(s.IdleWithWork) + "}")
	}

	j.raw(`],"pools":[`)
	for i := range r.Pools {
		p := &r.Pools[i]
		if i > 0 {
			j.raw(",")
		}
		j.raw(`{"name":"` + p.Name + `","index":`)
		j.index(p.Index)
		j.numField("mean_used", p.MeanUsed)
		j.numField("mean_cached", p.MeanCached)
		j.numField("mean_queue", p.MeanQueue)
		j.numField("mean_holders", p.MeanHolders)
		j.numField("mean_wait", p.MeanWait)
		j.uintField("admissions", p.Admissions)
		j.uintField("evicted_entries", p.EvictedEntries)
		j.numField("evicted_units", p.EvictedUnits)
		j.uintField("preemptions", p.Preemptions)
		j.uintField("spills", p.Spills)
		j.uintField("rejected", p.Rejected)
		j.uintField("stuck", p.Stuck)
		j.raw(`,"over_cap":`)
		if p.OverCap != nil {
			j.raw(`{"queue":"` + p.OverCap.Queue + `","need":`)
			j.num(p.OverCap.Need)
			j.raw("}")
		} else {
			j.raw("null")
		}
		j.raw("}")
	}
	j.raw("]}\n")

	_, err := w.Write(j.b)
	return err
}

// rptJSON is a byte buffer with the few JSON writers the report needs.
type rptJSON struct{ b []byte }

func (j *rptJSON) raw(s string) { j.b = append(j.b, s...) }

func (j *rptJSON) uint(n uint64) { j.b = strconv.AppendUint(j.b, n, 10) }

// num writes a finite float as its shortest round-trip decimal without
// exponent, and anything else as null.
// numField writes `,"key":x` (a float, null when not finite).
func (j *rptJSON) numField(key string, x float64) {
	j.raw(`,"` + key + `":`)
	j.num(x)
}

// uintField writes `,"key":n`.
func (j *rptJSON) uintField(key string, n uint64) {
	j.raw(`,"` + key + `":`)
	j.uint(n)
}

func (j *rptJSON) num(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		j.raw("null")
		return
	}
	j.b = strconv.AppendFloat(j.b, x, 'f', -1, 64)
}

func (j *rptJSON) index(i *int) {
	if i == nil {
		j.raw("null")
		return
	}
	j.b = strconv.AppendInt(j.b, int64(*i), 10)
}

// str writes s as a JSON string, escaped as serde_json does: `"` and `\`,
// \b \f \n \r \t, other control characters as \u00xx; everything else raw
// (invalid UTF-8 becomes U+FFFD).
func (j *rptJSON) str(s string) {
	const hex = "0123456789abcdef"
	j.b = append(j.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				j.b = utf8.AppendRune(j.b, utf8.RuneError)
			} else {
				j.b = append(j.b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch c {
		case '"':
			j.raw(`\"`)
		case '\\':
			j.raw(`\\`)
		case '\b':
			j.raw(`\b`)
		case '\f':
			j.raw(`\f`)
		case '\n':
			j.raw(`\n`)
		case '\r':
			j.raw(`\r`)
		case '\t':
			j.raw(`\t`)
		default:
			if c < 0x20 {
				j.b = append(j.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				j.b = append(j.b, c)
			}
		}
		i++
	}
	j.b = append(j.b, '"')
}

// ------------------------------------------------------------- dump ----

// writeDump writes the --dump files of cli.md §8 into dir (created like
// mkdir -p): DIR/<observe>.csv for every observe, samples or not, with
// header `time,session,turn,value`; and, when there are gauges,
// DIR/gauge/<gauge>.csv with header `time,value` and the change points.
// Floats are shortest round-trip without exponent; lines end in \n.
// The error is the file system's, unwrapped (the caller says
// "cannot write DIR: …").
//
// Every file is written to a temporary file beside it and all are renamed
// into place at the end (safeio.Batch): a failed or interrupted dump
// leaves the previous files as they were, and a symlink at a file's name
// is replaced, never written through. stop, if not nil, is asked between
// lines; once it reports true the dump is abandoned with errInterrupted.
func writeDump(dir string, r *interp.Report) error { return writeDumpStop(dir, r, nil) }

func writeDumpStop(dir string, r *interp.Report, stop func() bool) (err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	b := &safeio.Batch{}
	defer func() {
		if err != nil {
			b.Abort()
		}
	}()
	rptWriteFile := func(path string, fill func(*stopWriter) error) error {
		err := b.Create(path, func(w *bufio.Writer) error {
			if stop != nil && stop() {
				return errInterrupted
			}
			return fill(&stopWriter{w, stop, 0})
		})
		if err == nil && signalHook != nil && stop != nil {
			signalHook("dump", nil)
		}
		return err
	}
	for i := range r.Observes {
		o := &r.Observes[i]
		err := rptWriteFile(filepath.Join(dir, o.Name+".csv"), func(w *stopWriter) error {
			w.WriteString("time,session,turn,value\n")
			var line []byte
			for _, s := range o.Samples {
				line = rptAppendFloat(line[:0], s.Time)
				line = append(line, ',')
				line = strconv.AppendUint(line, s.Session, 10)
				line = append(line, ',')
				line = strconv.AppendUint(line, uint64(s.Turn), 10)
				line = append(line, ',')
				line = rptAppendFloat(line, s.Value)
				line = append(line, '\n')
				if _, err := w.Write(line); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(r.Gauges) == 0 {
		return b.Commit()
	}
	gdir := filepath.Join(dir, "gauge")
	if err := os.Mkdir(gdir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(gdir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a symlink is not followed)", gdir)
	}
	for i := range r.Gauges {
		g := &r.Gauges[i]
		err := rptWriteFile(filepath.Join(gdir, g.Name+".csv"), func(w *stopWriter) error {
			w.WriteString("time,value\n")
			var line []byte
			for _, p := range g.Points {
				line = rptAppendFloat(line[:0], p.Time)
				line = append(line, ',')
				line = rptAppendFloat(line, p.Value)
				line = append(line, '\n')
				if _, err := w.Write(line); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return b.Commit()
}
