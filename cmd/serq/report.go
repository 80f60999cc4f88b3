package main

// Rendering of a run's report: the text report (docs/cli.md §4), the one-line
// JSON report (§5) and the --dump CSVs (§6).
//
// Numbers are printed the way the reference implementation (Rust) prints
// them: `{}` is the shortest decimal that reads back as the same float,
// never with an exponent ([formatFloat]); `{:.N}` is N decimals rounded
// half to even on the exact binary value ([rptFixed]); non-finite values
// are NaN, inf and -inf, where Go would print NaN, +Inf and -Inf.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/report"
)

// The text report and the number formats live in package report, which
// serq tui shares.

func writeText(w io.Writer, r *interp.Report) error { return report.Text(w, r) }
func formatFloat(x float64) string                  { return report.FormatFloat(x) }
func rptFixed(x float64, prec int) string           { return report.Fixed(x, prec) }
func rptAppendFloat(b []byte, x float64) []byte     { return report.AppendFloat(b, x) }

// ------------------------------------------------------------- JSON ----

// writeJSON writes the JSON report of docs/cli.md §5 as one compact line and a
// newline: keys in the fixed order, non-finite floats as null, floats as
// the shortest round-trip decimal without exponent, counters as integers,
// `index` null for a single resource, `claims` only when there are claims.
// Every string is JSON-escaped: a name is an identifier in serQ source,
// but an IR may name an observe `x","y` or `"}`.
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
		j.str(o.Name)
		j.raw(`:{"count":`)
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
		j.str(g.Name)
		j.raw(`:{"mean":`)
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
		j.raw(`{"name":`)
		j.str(s.Name)
		j.raw(`,"index":`)
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
		j.raw(`{"name":`)
		j.str(p.Name)
		j.raw(`,"index":`)
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
	j.raw("]")
	if f := r.Failures; f != nil {
		j.failures(f)
	}
	j.raw("}\n")

	_, err := w.Write(j.b)
	return err
}

// failures writes the "failures" object of a program that can fail
// (docs/cli.md §5): the failed requests and their causes, the sessions'
// outcomes, the leases' lifetimes and the faults' downtime.
func (j *rptJSON) failures(f *interp.Failures) {
	j.raw(`,"failures":{"requests":`)
	j.uint(f.Requests)
	j.uintField("retries", f.Retries)
	j.uintField("recomputes", f.Recomputes)
	j.raw(`,"sessions":{"completed":`)
	j.uint(f.Completed)
	j.uintField("failed", f.Failed)
	j.uintField("rejected", f.Rejected)
	j.uintField("live", f.Live)
	j.raw(`},"causes":[`)
	for i, c := range f.Causes {
		if i > 0 {
			j.raw(",")
		}
		j.raw(`{"cause":`)
		j.str(c.Cause)
		j.uintField("requests", c.Requests)
		j.uintField("sessions", c.Sessions)
		j.raw("}")
	}
	j.raw(`],"leases":[`)
	for i, l := range f.Leases {
		if i > 0 {
			j.raw(",")
		}
		j.raw(`{"pool":`)
		j.str(l.Pool)
		j.uintField("granted", l.Granted)
		j.uintField("expired", l.Expired)
		j.uintField("late_reads", l.LateReads)
		j.uintField("failed_reads", l.FailedReads)
		j.uintField("lost", l.Lost)
		j.uintField("stranded", l.Stranded)
		j.uintField("live", l.Live)
		j.raw("}")
	}
	j.raw(`],"down":[`)
	for i, d := range f.Down {
		if i > 0 {
			j.raw(",")
		}
		j.raw(`{"target":`)
		j.str(d.Label)
		j.uintField("downs", d.Downs)
		j.numField("time_down", d.TimeDown)
		j.raw("}")
	}
	j.raw("]}")
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

// The --dump files of docs/cli.md §6, in DIR (created like mkdir -p):
// DIR/<observe>.csv for every observe, samples or not, with header
// `time,session,turn,value`; and, when there are gauges,
// DIR/gauge/<gauge>.csv with header `time,value` and the change points.
// Floats are shortest round-trip without exponent; lines end in \n.
//
// A dumpWriter writes them as the run goes: it is the run's
// interp.DumpSink, so the run keeps no sample for them. Every file goes to
// a temporary file beside it and all are renamed into place when the run
// has ended (safeio.Batch): a failed or interrupted run or dump leaves the
// previous files as they were and removes the directories it made, and a
// symlink at a file's name is replaced, never written through. Its errors
// are the file system's, unwrapped (the caller says "cannot write DIR: …").
type dumpWriter struct {
	b      safeio.Batch
	unlock func()         // the lock on DIR (safeio.LockDir), nil once released
	obs    []*safeio.File // by observe
	gauges []*safeio.File // by gauge
	extra  []*safeio.File // faults/causes.csv and faults/leases.csv
	made   []string       // directories made, the deepest first
	line   []byte
	err    error // the first write error
}

// newDumpWriter makes dir (and dir/gauge when there are gauges) and opens
// a file for every observe and gauge, its header written.
func newDumpWriter(dir string, observes, gauges []string) (d *dumpWriter, err error) {
	d = &dumpWriter{}
	defer func() {
		if err != nil {
			d.abort()
		}
	}()
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		d.made = append(d.made, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	// The names are the program's: an IR may name an observe
	// "../../etc/x"; each becomes a file name in DIR (safeio.FileNames).
	obsFiles, err := safeio.FileNames("observe", observes, ".csv")
	if err != nil {
		return d, err
	}
	gaugeFiles, err := safeio.FileNames("gauge", gauges, ".csv")
	if err != nil {
		return d, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return d, err
	}
	if d.unlock, err = safeio.LockDir(dir); err != nil { // another serq writing DIR is refused
		return d, err
	}
	for _, name := range obsFiles {
		f, err := d.b.Open(filepath.Join(dir, name))
		if err != nil {
			return d, err
		}
		f.W.WriteString("time,session,turn,value\n")
		d.obs = append(d.obs, f)
	}
	if len(gauges) == 0 {
		return d, nil
	}
	gdir := filepath.Join(dir, "gauge")
	if err := os.Mkdir(gdir, 0o777); err == nil {
		d.made = append([]string{gdir}, d.made...)
	} else if !errors.Is(err, fs.ErrExist) {
		return d, err
	}
	if fi, err := os.Lstat(gdir); err != nil {
		return d, err
	} else if !fi.IsDir() {
		return d, fmt.Errorf("%s is not a directory (a symlink is not followed)", gdir)
	}
	for _, name := range gaugeFiles {
		f, err := d.b.Open(filepath.Join(gdir, name))
		if err != nil {
			return d, err
		}
		f.W.WriteString("time,value\n")
		d.gauges = append(d.gauges, f)
	}
	return d, nil
}

// Sample writes one observe sample's line.
func (d *dumpWriter) Sample(i int, s interp.Sample) {
	if d.err != nil {
		return
	}
	line := rptAppendFloat(d.line[:0], s.Time)
	line = append(line, ',')
	line = strconv.AppendUint(line, s.Session, 10)
	line = append(line, ',')
	line = strconv.AppendUint(line, uint64(s.Turn), 10)
	line = append(line, ',')
	line = rptAppendFloat(line, s.Value)
	line = append(line, '\n')
	_, d.err = d.obs[i].W.Write(line)
	d.line = line
}

// Point writes one gauge change point's line.
func (d *dumpWriter) Point(i int, p interp.TimePoint) {
	if d.err != nil {
		return
	}
	line := rptAppendFloat(d.line[:0], p.Time)
	line = append(line, ',')
	line = rptAppendFloat(line, p.Value)
	line = append(line, '\n')
	_, d.err = d.gauges[i].W.Write(line)
	d.line = line
}

// failed is the first write error, nil if none.
func (d *dumpWriter) failed() error { return d.err }

// failures adds, for a program that can fail, DIR/faults/causes.csv (a
// row per cause: `cause,requests,sessions`) and DIR/faults/leases.csv (a
// row per leased pool: `pool,granted,expired,late_reads,failed_reads,
// lost,stranded,live`), written with the rest at commit.
func (d *dumpWriter) failures(dir string, f *interp.Failures) {
	if d.err != nil || f == nil {
		return
	}
	fdir := filepath.Join(dir, "faults")
	if err := os.Mkdir(fdir, 0o777); err == nil {
		d.made = append([]string{fdir}, d.made...)
	} else if !errors.Is(err, fs.ErrExist) {
		d.err = err
		return
	}
	if fi, err := os.Lstat(fdir); err != nil {
		d.err = err
		return
	} else if !fi.IsDir() {
		d.err = fmt.Errorf("%s is not a directory (a symlink is not followed)", fdir)
		return
	}
	c, err := d.b.Open(filepath.Join(fdir, "causes.csv"))
	if err != nil {
		d.err = err
		return
	}
	c.W.WriteString("cause,requests,sessions\n")
	for _, x := range f.Causes {
		c.W.WriteString(csvField(x.Cause) + "," + strconv.FormatUint(x.Requests, 10) + "," + strconv.FormatUint(x.Sessions, 10) + "\n")
	}
	l, err := d.b.Open(filepath.Join(fdir, "leases.csv"))
	if err != nil {
		d.err = err
		return
	}
	l.W.WriteString("pool,granted,expired,late_reads,failed_reads,lost,stranded,live\n")
	for _, x := range f.Leases {
		line := x.Pool
		for _, n := range []uint64{x.Granted, x.Expired, x.LateReads, x.FailedReads, x.Lost, x.Stranded, x.Live} {
			line += "," + strconv.FormatUint(n, 10)
		}
		l.W.WriteString(line + "\n")
	}
	d.extra = append(d.extra, c, l)
}

// csvField quotes a CSV field that holds a comma, a quote or a line break,
// neutralised first as every CSV cell serq writes is (safeio.CSVCell).
func csvField(s string) string {
	s = safeio.CSVCell(s)
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// commit closes every file and renames them all into place. stop, if not
// nil, is asked before each file; once it reports true the dump is
// abandoned with errInterrupted. On any error nothing is renamed.
func (d *dumpWriter) commit(stop func() bool) error {
	if d.err != nil {
		d.abort()
		return d.err
	}
	for _, f := range append(append(d.obs[:len(d.obs):len(d.obs)], d.gauges...), d.extra...) {
		if stop != nil && stop() {
			d.abort()
			return errInterrupted
		}
		if err := f.Close(); err != nil {
			d.abort()
			return err
		}
		if signalHook != nil && stop != nil {
			signalHook("dump", nil)
		}
	}
	if err := d.b.Commit(); err != nil {
		d.abort()
		return err
	}
	d.made = nil
	d.release()
	return nil
}

// abort removes the temporary files and the directories made (if empty).
func (d *dumpWriter) abort() {
	d.b.Abort()
	for _, p := range d.made {
		os.Remove(p)
	}
	d.made = nil
	d.release()
}

// release lets go of DIR's lock.
func (d *dumpWriter) release() {
	if d.unlock != nil {
		d.unlock()
		d.unlock = nil
	}
}

// writeDump writes the --dump files of a report that kept its samples and
// change points (a run without Options.Lean).
func writeDump(dir string, r *interp.Report) error {
	var obs, gauges []string
	for _, o := range r.Observes {
		obs = append(obs, o.Name)
	}
	for _, g := range r.Gauges {
		gauges = append(gauges, g.Name)
	}
	d, err := newDumpWriter(dir, obs, gauges)
	if err != nil {
		return err
	}
	for i, o := range r.Observes {
		for _, s := range o.Samples {
			d.Sample(i, s)
		}
	}
	for i, g := range r.Gauges {
		for _, p := range g.Points {
			d.Point(i, p)
		}
	}
	d.failures(dir, r.Failures)
	return d.commit(nil)
}
