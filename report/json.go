package report

import (
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/serq/serq/interp"
)

// JSON writes the JSON report of docs/cli.md §5 as one compact line and a
// newline: keys in the fixed order, non-finite floats as null, floats as
// the shortest round-trip decimal without exponent, counters as integers,
// `index` null for a single resource, `claims` only when there are claims.
// Every string is JSON-escaped: a name is an identifier in serQ source,
// but an IR may name an observe `x","y` or `"}`.
func JSON(w io.Writer, r *interp.Report) error {
	var j JSONWriter
	j.Raw(`{"serq_version":`)
	j.Str(r.Version)
	j.NumField("horizon", r.Horizon)
	j.NumField("end", r.End)
	j.NumField("warmup", r.Warmup)
	j.UintField("seed", r.Seed)
	j.UintField("events", r.Events)
	j.UintField("arrivals", r.Arrivals)
	j.UintField("ended", r.Ended)
	j.UintField("turns", r.Turns)
	j.NumField("mean_live", r.MeanLive)

	j.Raw(`,"observes":{`)
	for i := range r.Observes {
		o := &r.Observes[i]
		if i > 0 {
			j.Raw(",")
		}
		j.Str(o.Name)
		j.Raw(`:{"count":`)
		j.Uint(o.Count)
		j.NumField("mean", o.Mean)
		j.NumField("ci", o.CI)
		j.NumField("cv2", o.CV2)
		j.NumField("p99", o.P99)
		j.Raw("}")
	}
	j.Raw(`},"gauges":{`)
	for i := range r.Gauges {
		g := &r.Gauges[i]
		if i > 0 {
			j.Raw(",")
		}
		j.Str(g.Name)
		j.Raw(`:{"mean":`)
		j.Num(g.Mean)
		j.NumField("ci", g.CI)
		j.NumField("min", g.Min)
		j.NumField("max", g.Max)
		j.Raw("}")
	}
	j.Raw("}")

	if len(r.Claims) > 0 {
		j.Raw(`,"claims":[`)
		for i := range r.Claims {
			c := &r.Claims[i]
			if i > 0 {
				j.Raw(",")
			}
			j.Raw(`{"name":`)
			j.Str(c.Name)
			j.Raw(`,"kind":"` + c.Kind.String() + `","result":"` + c.Result.String() + `","checked":`)
			j.Uint(c.Checked)
			j.UintField("failures", c.Failures)
			j.Raw(`,"first":`)
			if c.First != nil {
				j.Num(*c.First)
			} else {
				j.Raw("null")
			}
			j.Raw(`,"note":`)
			if c.Note != nil {
				j.Str(*c.Note)
			} else {
				j.Raw("null")
			}
			j.Raw("}")
		}
		j.Raw("]")
	}

	j.Raw(`,"stages":[`)
	for i := range r.Stages {
		s := &r.Stages[i]
		if i > 0 {
			j.Raw(",")
		}
		j.Raw(`{"name":`)
		j.Str(s.Name)
		j.Raw(`,"index":`)
		j.Index(s.Index)
		j.NumField("mean_number", s.MeanNumber)
		j.NumField("utilization", s.Utilization)
		j.UintField("completed", s.Completed)
		j.NumField("throughput", s.Throughput)
		j.NumField("mean_wait", s.MeanWait)
		j.NumField("mean_service", s.MeanService)
		j.UintField("iterations", s.Iterations)
		j.NumField("prefill_only", s.PrefillOnly)
		j.NumField("decode_only", s.DecodeOnly)
		j.NumField("mixed", s.Mixed)
		j.NumField("mean_decodes", s.MeanDecodes)
		j.NumField("mean_decode_batch", s.MeanDecodeBatch)
		j.NumField("mean_decode_step", s.MeanDecodeStep)
		j.NumField("mean_itl", s.MeanITL)
		j.NumField("itl_p50", s.ITLP50)
		j.NumField("itl_p99", s.ITLP99)
		j.Raw(`,"idle_with_work":` + strconv.FormatBool(s.IdleWithWork) + "}")
	}

	j.Raw(`],"pools":[`)
	for i := range r.Pools {
		p := &r.Pools[i]
		if i > 0 {
			j.Raw(",")
		}
		j.Raw(`{"name":`)
		j.Str(p.Name)
		j.Raw(`,"index":`)
		j.Index(p.Index)
		j.NumField("mean_used", p.MeanUsed)
		j.NumField("mean_cached", p.MeanCached)
		j.NumField("mean_queue", p.MeanQueue)
		j.NumField("mean_holders", p.MeanHolders)
		j.NumField("mean_wait", p.MeanWait)
		j.UintField("admissions", p.Admissions)
		j.UintField("evicted_entries", p.EvictedEntries)
		j.NumField("evicted_units", p.EvictedUnits)
		j.UintField("preemptions", p.Preemptions)
		j.UintField("spills", p.Spills)
		j.UintField("rejected", p.Rejected)
		j.UintField("stuck", p.Stuck)
		j.Raw(`,"over_cap":`)
		if p.OverCap != nil {
			j.Raw(`{"queue":"` + p.OverCap.Queue + `","need":`)
			j.Num(p.OverCap.Need)
			j.Raw("}")
		} else {
			j.Raw("null")
		}
		j.Raw("}")
	}
	j.Raw("]")
	if f := r.Failures; f != nil {
		j.failures(f)
	}
	j.Raw("}\n")

	_, err := w.Write(j.b)
	return err
}

// failures writes the "failures" object of a program that can fail
// (docs/cli.md §5): the failed requests and their causes, the sessions'
// outcomes, the leases' lifetimes and the faults' downtime.
func (j *JSONWriter) failures(f *interp.Failures) {
	j.Raw(`,"failures":{"requests":`)
	j.Uint(f.Requests)
	j.UintField("retries", f.Retries)
	j.UintField("recomputes", f.Recomputes)
	j.Raw(`,"sessions":{"completed":`)
	j.Uint(f.Completed)
	j.UintField("failed", f.Failed)
	j.UintField("rejected", f.Rejected)
	j.UintField("live", f.Live)
	j.Raw(`},"causes":[`)
	for i, c := range f.Causes {
		if i > 0 {
			j.Raw(",")
		}
		j.Raw(`{"cause":`)
		j.Str(c.Cause)
		j.UintField("requests", c.Requests)
		j.UintField("sessions", c.Sessions)
		j.Raw("}")
	}
	j.Raw(`],"leases":[`)
	for i, l := range f.Leases {
		if i > 0 {
			j.Raw(",")
		}
		j.Raw(`{"pool":`)
		j.Str(l.Pool)
		j.UintField("granted", l.Granted)
		j.UintField("expired", l.Expired)
		j.UintField("late_reads", l.LateReads)
		j.UintField("failed_reads", l.FailedReads)
		j.UintField("lost", l.Lost)
		j.UintField("stranded", l.Stranded)
		j.UintField("live", l.Live)
		j.Raw("}")
	}
	j.Raw(`],"down":[`)
	for i, d := range f.Down {
		if i > 0 {
			j.Raw(",")
		}
		j.Raw(`{"target":`)
		j.Str(d.Label)
		j.UintField("downs", d.Downs)
		j.NumField("time_down", d.TimeDown)
		j.Raw("}")
	}
	j.Raw("]}")
}

// JSONWriter is a byte buffer with the few JSON writers the report needs
// (and serq sweep's runs.json and manifest): keys and strings escaped as
// serde_json does, floats as the shortest round-trip decimal or null.
type JSONWriter struct{ b []byte }

// Bytes is what was written.
func (j *JSONWriter) Bytes() []byte { return j.b }

// Raw writes s as it is.
func (j *JSONWriter) Raw(s string) { j.b = append(j.b, s...) }

// Uint writes n.
func (j *JSONWriter) Uint(n uint64) { j.b = strconv.AppendUint(j.b, n, 10) }

// Num writes a finite float as its shortest round-trip decimal without
// exponent, and anything else as null.
// NumField writes `,"key":x` (a float, null when not finite).
func (j *JSONWriter) NumField(key string, x float64) {
	j.Raw(`,"` + key + `":`)
	j.Num(x)
}

// UintField writes `,"key":n`.
func (j *JSONWriter) UintField(key string, n uint64) {
	j.Raw(`,"` + key + `":`)
	j.Uint(n)
}

func (j *JSONWriter) Num(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		j.Raw("null")
		return
	}
	j.b = strconv.AppendFloat(j.b, x, 'f', -1, 64)
}

// Index writes a row's index, null for a single resource.
func (j *JSONWriter) Index(i *int) {
	if i == nil {
		j.Raw("null")
		return
	}
	j.b = strconv.AppendInt(j.b, int64(*i), 10)
}

// Str writes s as a JSON string, escaped as serde_json does: `"` and `\`,
// \b \f \n \r \t, other control characters as \u00xx; everything else raw
// (invalid UTF-8 becomes U+FFFD).
func (j *JSONWriter) Str(s string) {
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
			j.Raw(`\"`)
		case '\\':
			j.Raw(`\\`)
		case '\b':
			j.Raw(`\b`)
		case '\f':
			j.Raw(`\f`)
		case '\n':
			j.Raw(`\n`)
		case '\r':
			j.Raw(`\r`)
		case '\t':
			j.Raw(`\t`)
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
