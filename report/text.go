// Package report writes a run's report: the text `serq run` prints
// (docs/cli.md §4; Text, for serq run and serq tui alike), the one-line
// JSON report of --json (§5; JSON, json.go) and the --dump CSVs (§6; Dump,
// dump.go, the run's interp.DumpSink, which writes them as the run goes).
//
// Numbers are printed the way the reference implementation (Rust) prints
// them: `{}` is the shortest decimal that reads back as the same float,
// never with an exponent ([FormatFloat]); `{:.N}` is N decimals rounded
// half to even on the exact binary value ([Fixed]); non-finite values
// are NaN, inf and -inf, where Go would print NaN, +Inf and -Inf.
package report

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/serq/serq/interp"
)

// FormatFloat formats x as Rust's `{}` does: the shortest decimal that
// round-trips, without an exponent (2, 0.25, 0.0000001, 250000, -0), and
// NaN, inf, -inf.
func FormatFloat(x float64) string {
	if s, ok := NonFinite(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// Fixed formats x as Rust's `{:.N}` does with N = prec: prec decimals,
// ties to even, and NaN, inf, -inf.
func Fixed(x float64, prec int) string {
	if s, ok := NonFinite(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

func NonFinite(x float64) (string, bool) {
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

// AppendFloat appends FormatFloat(x).
func AppendFloat(b []byte, x float64) []byte {
	if s, ok := NonFinite(x); ok {
		return append(b, s...)
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// ------------------------------------------------------------- text ----

// Text writes the text report of docs/cli.md §4: the run line, then the
// observe, gauge, claim, stage, step and pool tables that have rows, each
// after a blank line, and the note lines.
func Text(w io.Writer, r *interp.Report) error {
	var b bytes.Buffer
	b.WriteString("run: horizon " + FormatFloat(r.Horizon) +
		" end " + FormatFloat(r.End) +
		" warmup " + FormatFloat(r.Warmup) +
		" seed " + strconv.FormatUint(r.Seed, 10) +
		" events " + strconv.FormatUint(r.Events, 10) +
		" arrivals " + strconv.FormatUint(r.Arrivals, 10) +
		" ended " + strconv.FormatUint(r.Ended, 10) +
		" turns " + strconv.FormatUint(r.Turns, 10) +
		" mean live " + Fixed(r.MeanLive, 3) + "\n")

	if len(r.Observes) > 0 {
		t := Table{header: []string{"observe", "count", "mean", "95% CI", "cv2", "p99"}}
		for i := range r.Observes {
			o := &r.Observes[i]
			t.Add(o.Name,
				strconv.FormatUint(o.Count, 10),
				Fixed(o.Mean, 4),
				"±"+Fixed(o.CI, 4),
				Fixed(o.CV2, 3),
				Fixed(o.P99, 4))
		}
		t.Write(&b)
		for i := range r.Observes {
			if o := &r.Observes[i]; o.ConstantZero() {
				b.WriteString("note: observe " + o.Name + " is constant 0 over " +
					strconv.FormatUint(o.Count, 10) + " samples\n")
			}
		}
	}

	if len(r.Gauges) > 0 {
		t := Table{header: []string{"gauge", "mean", "95% CI", "min", "max"}}
		for i := range r.Gauges {
			g := &r.Gauges[i]
			t.Add(g.Name,
				Fixed(g.Mean, 4),
				"±"+Fixed(g.CI, 4),
				Fixed(g.Min, 4),
				Fixed(g.Max, 4))
		}
		t.Write(&b)
	}

	if len(r.Claims) > 0 {
		t := Table{header: []string{"claim", "kind", "result"}, left: true}
		for i := range r.Claims {
			c := &r.Claims[i]
			t.Add(c.Name, rptClaimKind(c.Kind), rptClaimSaid(c))
		}
		t.Write(&b)
	}

	if len(r.Stages) > 0 {
		t := Table{header: []string{"stage", "number", "util", "done", "thru", "wait", "service", "iters"}}
		step := false
		for i := range r.Stages {
			s := &r.Stages[i]
			t.Add(s.DisplayName(),
				Fixed(s.MeanNumber, 3),
				Fixed(s.Utilization, 3),
				strconv.FormatUint(s.Completed, 10),
				Fixed(s.Throughput, 4),
				Fixed(s.MeanWait, 4),
				Fixed(s.MeanService, 4),
				strconv.FormatUint(s.Iterations, 10))
			step = step || s.Iterations > 0
		}
		t.Write(&b)

		if step {
			t := Table{header: []string{"step", "prefill only", "decode only", "mixed", "idle",
				"decodes", "decode batch", "decode step", "itl p50", "itl p99"}}
			for i := range r.Stages {
				s := &r.Stages[i]
				if s.Iterations == 0 {
					continue
				}
				// the fractions' rounding may leave a hair below 0: no -0.000
				idle := math.Max(0, 1.0-s.PrefillOnly-s.DecodeOnly-s.Mixed)
				t.Add(s.DisplayName(),
					Fixed(s.PrefillOnly, 3),
					Fixed(s.DecodeOnly, 3),
					Fixed(s.Mixed, 3),
					Fixed(idle, 3),
					Fixed(s.MeanDecodes, 3),
					Fixed(s.MeanDecodeBatch, 3),
					Fixed(s.MeanDecodeStep, 6),
					Fixed(s.ITLP50, 6),
					Fixed(s.ITLP99, 6))
			}
			t.Write(&b)
		}
	}

	if len(r.Pools) > 0 {
		t := Table{header: []string{"pool", "used", "cached", "queue", "holders", "wait", "admits",
			"evict(n)", "evict(u)", "preempt", "spill", "rej", "stuck"}}
		for i := range r.Pools {
			p := &r.Pools[i]
			t.Add(p.DisplayName(),
				Fixed(p.MeanUsed, 1),
				Fixed(p.MeanCached, 1),
				Fixed(p.MeanQueue, 3),
				Fixed(p.MeanHolders, 3),
				Fixed(p.MeanWait, 4),
				strconv.FormatUint(p.Admissions, 10),
				strconv.FormatUint(p.EvictedEntries, 10),
				Fixed(p.EvictedUnits, 0),
				strconv.FormatUint(p.Preemptions, 10),
				strconv.FormatUint(p.Spills, 10),
				strconv.FormatUint(p.Rejected, 10),
				strconv.FormatUint(p.Stuck, 10))
		}
		t.Write(&b)
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
					"` for " + FormatFloat(p.OverCap.Need) +
					", above its cap, when the run ends, and waits (its hold reads the " +
					"deployment's state, so joining the queue did not reject it)\n")
			}
		}
	}

	if f := r.Failures; f != nil {
		writeFailures(&b, f)
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

// writeFailures writes the report's failures section (docs/cli.md §4): the
// requests that failed and why, how the sessions ended, what became of
// the leases and how long the members and stages that fault were down.
func writeFailures(b *bytes.Buffer, f *interp.Failures) {
	b.WriteString("\nrequests: " + strconv.FormatUint(f.Requests, 10) + " failed, " +
		strconv.FormatUint(f.Retries, 10) + " retried, " + strconv.FormatUint(f.Recomputes, 10) + " reads recomputed\n")
	b.WriteString("sessions: " + strconv.FormatUint(f.Completed, 10) + " completed, " +
		strconv.FormatUint(f.Failed, 10) + " failed, " + strconv.FormatUint(f.Rejected, 10) + " rejected, " +
		strconv.FormatUint(f.Live, 10) + " live at the end\n")
	if len(f.Causes) > 0 {
		t := Table{header: []string{"failed of", "requests", "sessions"}}
		for _, c := range f.Causes {
			t.Add(c.Cause, strconv.FormatUint(c.Requests, 10), strconv.FormatUint(c.Sessions, 10))
		}
		t.Write(b)
	}
	if len(f.Leases) > 0 {
		t := Table{header: []string{"lease", "granted", "expired", "late reads", "failed reads", "lost", "stranded", "live"}}
		for _, l := range f.Leases {
			t.Add(l.Pool, strconv.FormatUint(l.Granted, 10), strconv.FormatUint(l.Expired, 10),
				strconv.FormatUint(l.LateReads, 10), strconv.FormatUint(l.FailedReads, 10),
				strconv.FormatUint(l.Lost, 10), strconv.FormatUint(l.Stranded, 10), strconv.FormatUint(l.Live, 10))
		}
		t.Write(b)
	}
	if len(f.Down) > 0 {
		t := Table{header: []string{"down", "times", "time down"}}
		for _, d := range f.Down {
			t.Add(d.Label, strconv.FormatUint(d.Downs, 10), Fixed(d.TimeDown, 4))
		}
		t.Write(b)
	}
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
		at = " at " + Fixed(*c.First, 4)
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

// Table is one section of the text report: a blank line, the header, a
// rule of dashes as wide as each column, the rows. A column is as wide as
// its widest cell in Unicode chars (`±` counts as one); the first column is
// left-aligned, the others right-aligned (left-aligned when left is set),
// separated by two spaces; trailing whitespace is trimmed.
type Table struct {
	header []string
	rows   [][]string
	left   bool
}

func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *Table) Write(b *bytes.Buffer) {
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

func (t *Table) line(b *bytes.Buffer, width []int, cells []string) {
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
