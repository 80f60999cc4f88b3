package report

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/interp"
)

var (
	nan    = math.NaN()
	inf    = math.Inf(1)
	negZ   = math.Copysign(0, -1)
	intPtr = func(i int) *int { return &i }
	fPtr   = func(x float64) *float64 { return &x }
	sPtr   = func(s string) *string { return &s }
)

func TestFormatFloat(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{2, "2"}, {0.25, "0.25"}, {0.0000001, "0.0000001"}, {250000, "250000"}, {0, "0"},
		{negZ, "-0"}, {-3.5, "-3.5"}, {1e21, "1000000000000000000000"}, {0.30000000000000004, "0.30000000000000004"},
		{5e-324, "0." + strings.Repeat("0", 323) + "5"},
		{nan, "NaN"}, {inf, "inf"}, {-inf, "-inf"},
	} {
		if got := FormatFloat(c.x); got != c.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		x    float64
		prec int
		want string
	}{
		{3.899412, 3, "3.899"},
		{0.125, 2, "0.12"}, // exact tie: to even
		{0.375, 2, "0.38"}, // exact tie: to even
		{2.5, 0, "2"},      // exact tie: to even
		{3.5, 0, "4"},      // exact tie: to even
		{0.35, 1, "0.3"},   // 0.35 is 0.34999999999999997779...
		{-0.00001, 4, "-0.0000"},
		{1234.56, 1, "1234.6"},
		{nan, 4, "NaN"}, {inf, 4, "inf"}, {-inf, 3, "-inf"},
	} {
		if got := Fixed(c.x, c.prec); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.x, c.prec, got, c.want)
		}
	}
}

// The text report of the getting-started sample (docs/cli.md §4), byte for byte.
func TestWriteTextSample(t *testing.T) {
	r := &interp.Report{
		Horizon: 250000, End: 250000, Warmup: 25000, Seed: 1,
		Events: 397862, Arrivals: 198931, Ended: 179177, Turns: 179176, MeanLive: 3.8994,
		Observes: []interp.ObserveRow{
			{Name: "response", Count: 179177, Mean: 4.89671, CI: 0.22941, CV2: 1.02104, P99: 22.84771},
		},
		Stages: []interp.StageRow{
			{Name: "svc", MeanNumber: 3.8991, Utilization: 0.79412, Completed: 179177, Throughput: 0.79634,
				MeanWait: 3.89912, MeanService: 0.99751, MeanDecodeBatch: nan, MeanDecodeStep: nan,
				MeanITL: nan, ITLP50: nan, ITLP99: nan},
		},
	}
	want := `run: horizon 250000 end 250000 warmup 25000 seed 1 events 397862 arrivals 198931 ended 179177 turns 179176 mean live 3.899

observe    count    mean   95% CI    cv2      p99
--------  ------  ------  -------  -----  -------
response  179177  4.8967  ±0.2294  1.021  22.8477

stage  number   util    done    thru    wait  service  iters
-----  ------  -----  ------  ------  ------  -------  -----
svc     3.899  0.794  179177  0.7963  3.8991   0.9975      0
`
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

func fullReport() *interp.Report {
	zeros := make([]interp.Sample, 40)
	return &interp.Report{
		Version: "0.1.4",
		Horizon: 100, End: 87.5, Warmup: 0.0000001, Seed: 42,
		Events: 1234, Arrivals: 100, Ended: 90, Turns: 95, MeanLive: 2.5,
		Observes: []interp.ObserveRow{
			{Name: "ttft", Count: 3, Mean: 0.25, CI: inf, CV2: 0.5, P99: 1.5},
			{Name: "hit", Count: 40, Mean: 0, CI: 0, CV2: nan, P99: 0, Test: true, Samples: zeros},
			{Name: "empty", Count: 0, Mean: nan, CI: inf, CV2: nan, P99: nan, Test: true},
		},
		Gauges: []interp.GaugeRow{
			{Name: "kv_usage", Mean: 0.123456, CI: 0.01, Min: 0, Max: 1},
			{Name: "q", Mean: nan, CI: inf, Min: nan, Max: nan},
		},
		Claims: []interp.ClaimRow{
			{Name: "no_overflow", Kind: interp.ClaimEveryIteration, Result: interp.ClaimHolds, Checked: 12},
			{Name: "one", Kind: interp.ClaimEveryIteration, Result: interp.ClaimHolds, Checked: 1},
			{Name: "bounded", Kind: interp.ClaimEveryIteration, Result: interp.ClaimFails, Checked: 10, Failures: 3, First: fPtr(12.34567)},
			{Name: "busy", Kind: interp.ClaimSomeIteration, Result: interp.ClaimWitnessed, Checked: 5, First: fPtr(2.5)},
			{Name: "never", Kind: interp.ClaimSomeIteration, Result: interp.ClaimNotWitnessed, Checked: 1},
			{Name: "drained", Kind: interp.ClaimAtEnd, Result: interp.ClaimNotEvaluated, Note: sPtr("3 sessions live")},
			{Name: "scoped", Kind: interp.ClaimAtEnd, Result: interp.ClaimOutOfScope, Note: sPtr("session 7 failed `given`")},
			{Name: "final", Kind: interp.ClaimAtEnd, Result: interp.ClaimHolds, Checked: 1},
			{Name: "final_bad", Kind: interp.ClaimAtEnd, Result: interp.ClaimFails, Checked: 1, Failures: 1, First: fPtr(87.5)},
		},
		Stages: []interp.StageRow{
			{Name: "router", Completed: 90, Throughput: 1,
				MeanDecodeBatch: nan, MeanDecodeStep: nan, MeanITL: nan, ITLP50: nan, ITLP99: nan},
			{Name: "E", Index: intPtr(0), MeanNumber: 12.3456, Utilization: 0.9, Completed: 45, Throughput: 0.5,
				MeanWait: nan, MeanService: 0.0125, Iterations: 1000,
				PrefillOnly: 0.1, DecodeOnly: 0.6, Mixed: 0.2, MeanDecodes: 7.25, MeanDecodeBatch: 8.5,
				MeanDecodeStep: 0.0123456789, MeanITL: 0.02, ITLP50: 0.015, ITLP99: 0.125, IdleWithWork: true},
			{Name: "D", Index: intPtr(1), Label: "D.e[1]", MeanNumber: 1, Utilization: 0.5, Completed: 3,
				Throughput: 0.03, MeanWait: 0.25, MeanService: 0.5, Iterations: 3,
				DecodeOnly: 1, MeanDecodes: 1, MeanDecodeBatch: 1, MeanDecodeStep: 0.5,
				MeanITL: 0.5, ITLP50: 0.5, ITLP99: 0.5},
		},
		Pools: []interp.PoolRow{
			{Name: "kv", MeanUsed: 1234.56, MeanCached: 0, MeanQueue: 0.5, MeanHolders: 3, MeanWait: nan,
				Admissions: 100, EvictedEntries: 2, EvictedUnits: 2.5, Preemptions: 1, Rejected: 2, Stuck: 1},
			{Name: "kvD", Index: intPtr(0), MeanUsed: 10, MeanCached: 5.25, MeanQueue: 0, MeanHolders: 1,
				MeanWait: 0.125, Admissions: 7, EvictedUnits: 3.5, Spills: 4,
				OverCap: &interp.OverCap{Queue: "kv", Need: 2048.5}},
		},
	}
}

// Every section, every claim result, the notes in order, non-finite cells,
// ties to even (evict(u) 2.5 → 2, 3.5 → 4; cached 5.25 → 5.2), array and
// explicit labels. Widths worked out by hand, e.g. the observe table:
// observe 7, count 5, mean 6, 95% CI 7 ("±0.0000"), cv2 5, p99 6.
func TestWriteTextFull(t *testing.T) {
	want := `run: horizon 100 end 87.5 warmup 0.0000001 seed 42 events 1234 arrivals 100 ended 90 turns 95 mean live 2.500

observe  count    mean   95% CI    cv2     p99
-------  -----  ------  -------  -----  ------
ttft         3  0.2500     ±inf  0.500  1.5000
hit         40  0.0000  ±0.0000    NaN  0.0000
empty        0     NaN     ±inf    NaN     NaN
note: observe hit is constant 0 over 40 samples

gauge       mean   95% CI     min     max
--------  ------  -------  ------  ------
kv_usage  0.1235  ±0.0100  0.0000  1.0000
q            NaN     ±inf     NaN     NaN

claim        kind             result
-----------  ---------------  ` + strings.Repeat("-", 38) + `
no_overflow  every iteration  holds (12 iterations)
one          every iteration  holds (1 iteration)
bounded      every iteration  fails at 12.3457 (3 of 10 iterations)
busy         some iteration   witnessed at 2.5000 (5 iterations)
never        some iteration   not witnessed (1 iteration)
drained      at end           not evaluated: 3 sessions live
scoped       at end           out of scope: session 7 failed ` + "`given`" + `
final        at end           holds
final_bad    at end           fails

stage   number   util  done    thru    wait  service  iters
------  ------  -----  ----  ------  ------  -------  -----
router   0.000  0.000    90  1.0000  0.0000   0.0000      0
E[0]    12.346  0.900    45  0.5000     NaN   0.0125   1000
D.e[1]   1.000  0.500     3  0.0300  0.2500   0.5000      3

step    prefill only  decode only  mixed   idle  decodes  decode batch  decode step   itl p50   itl p99
------  ------------  -----------  -----  -----  -------  ------------  -----------  --------  --------
E[0]           0.100        0.600  0.200  0.100    7.250         8.500     0.012346  0.015000  0.125000
D.e[1]         0.000        1.000  0.000  0.000    1.000         1.000     0.500000  0.500000  0.500000

pool      used  cached  queue  holders    wait  admits  evict(n)  evict(u)  preempt  spill  rej  stuck
------  ------  ------  -----  -------  ------  ------  --------  --------  -------  -----  ---  -----
kv      1234.6     0.0  0.500    3.000     NaN     100         2         2        1      0    2      1
kvD[0]    10.0     5.2  0.000    1.000  0.1250       7         0         4        0      4    0      0
stuck: 1 session(s) preempted again at pool ` + "`kv`" + ` without passing the position of their previous preemption
rej: 2 session(s) ended at pool ` + "`kv`" + ` asking for more than its cap
over: the head of pool ` + "`kv`'s queue asks `kvD[0]`" + ` for 2048.5, above its cap, when the run ends, and waits (its hold reads the deployment's state, so joining the queue did not reject it)
idle: stage ` + "`E[0]`" + ` ended with residents or waiting requests, its last iteration scheduling nothing (a body or ` + "`serve only`" + ` that serves and admits nobody waits for an event)
`
	var b bytes.Buffer
	if err := Text(&b, fullReport()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if strings.TrimRight(line, " ") != line {
			t.Errorf("line %d has trailing spaces: %q", i+1, line)
		}
	}
}

// A report with no observes, gauges, claims, stages or pools is its run
// line; a step table needs a stage with iterations.
func TestWriteTextBare(t *testing.T) {
	r := &interp.Report{Horizon: 10, End: 10, Seed: 1, MeanLive: nan,
		Stages: []interp.StageRow{{Name: "s", MeanWait: inf, MeanService: -inf}}}
	want := `run: horizon 10 end 10 warmup 0 seed 1 events 0 arrivals 0 ended 0 turns 0 mean live NaN

stage  number   util  done    thru  wait  service  iters
-----  ------  -----  ----  ------  ----  -------  -----
s       0.000  0.000     0  0.0000   inf     -inf      0
`
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

func TestWriteJSON(t *testing.T) {
	r := &interp.Report{
		Version: "0.1.4", Horizon: 250000, End: 87.5, Warmup: 0.0000001, Seed: math.MaxUint64,
		Events: 5, Arrivals: 2, Ended: 1, Turns: 1, MeanLive: 0.25,
		Observes: []interp.ObserveRow{
			{Name: "rt", Count: 40, Mean: 2, CI: 0.5, CV2: nan, P99: 3},
			{Name: "none", Count: 0, Mean: nan, CI: inf, CV2: nan, P99: nan},
		},
		Gauges: []interp.GaugeRow{{Name: "g", Mean: 1e21, CI: -inf, Min: negZ, Max: 1e-7}},
		Claims: []interp.ClaimRow{
			{Name: "c \"q\"\n", Kind: interp.ClaimEveryIteration, Result: interp.ClaimFails, Checked: 3, Failures: 1, First: fPtr(1.5)},
			{Name: "e", Kind: interp.ClaimAtEnd, Result: interp.ClaimNotEvaluated, Note: sPtr("2 live\t\x01")},
			{Name: "s", Kind: interp.ClaimSomeIteration, Result: interp.ClaimNotWitnessed, Checked: 7, First: fPtr(inf)},
		},
		Stages: []interp.StageRow{
			{Name: "s", MeanNumber: 0.5, Utilization: 0.25, Completed: 9, Throughput: 0.1, MeanWait: nan,
				MeanService: 1, MeanDecodeBatch: nan, MeanDecodeStep: nan, MeanITL: nan, ITLP50: nan, ITLP99: nan},
			{Name: "E", Index: intPtr(0), MeanNumber: 3, Utilization: 1, Completed: 2, Throughput: 0.02,
				MeanWait: 0, MeanService: 0.75, Iterations: 11, PrefillOnly: 0.125, DecodeOnly: 0.5, Mixed: 0.25,
				MeanDecodes: 4, MeanDecodeBatch: 4.5, MeanDecodeStep: 0.001, MeanITL: 0.002, ITLP50: 0.0015,
				ITLP99: 0.01, IdleWithWork: true},
		},
		Pools: []interp.PoolRow{
			{Name: "kv", MeanUsed: 100, MeanCached: 0, MeanQueue: 0.5, MeanHolders: 2, MeanWait: nan,
				Admissions: 3, EvictedEntries: 1, EvictedUnits: 16.5, Preemptions: 2, Spills: 0, Rejected: 1, Stuck: 0},
			{Name: "kvD", Index: intPtr(1), Label: "D.kv[1]", MeanUsed: 1, MeanCached: 2, MeanQueue: 0, MeanHolders: 1,
				MeanWait: 0.25, OverCap: &interp.OverCap{Queue: "kv", Need: 2048.5}},
		},
	}
	want := `{"serq_version":"0.1.4","horizon":250000,"end":87.5,"warmup":0.0000001,"seed":18446744073709551615,` +
		`"events":5,"arrivals":2,"ended":1,"turns":1,"mean_live":0.25,` +
		`"observes":{"rt":{"count":40,"mean":2,"ci":0.5,"cv2":null,"p99":3},` +
		`"none":{"count":0,"mean":null,"ci":null,"cv2":null,"p99":null}},` +
		`"gauges":{"g":{"mean":1000000000000000000000,"ci":null,"min":-0,"max":0.0000001}},` +
		`"claims":[{"name":"c \"q\"\n","kind":"every_iteration","result":"fails","checked":3,"failures":1,"first":1.5,"note":null},` +
		`{"name":"e","kind":"at_end","result":"not_evaluated","checked":0,"failures":0,"first":null,"note":"2 live\t\u0001"},` +
		`{"name":"s","kind":"some_iteration","result":"not_witnessed","checked":7,"failures":0,"first":null,"note":null}],` +
		`"stages":[{"name":"s","index":null,"mean_number":0.5,"utilization":0.25,"completed":9,"throughput":0.1,` +
		`"mean_wait":null,"mean_service":1,"iterations":0,"prefill_only":0,"decode_only":0,"mixed":0,` +
		`"mean_decodes":0,"mean_decode_batch":null,"mean_decode_step":null,"mean_itl":null,"itl_p50":null,` +
		`"itl_p99":null,"idle_with_work":false},` +
		`{"name":"E","index":0,"mean_number":3,"utilization":1,"completed":2,"throughput":0.02,` +
		`"mean_wait":0,"mean_service":0.75,"iterations":11,"prefill_only":0.125,"decode_only":0.5,"mixed":0.25,` +
		`"mean_decodes":4,"mean_decode_batch":4.5,"mean_decode_step":0.001,"mean_itl":0.002,"itl_p50":0.0015,` +
		`"itl_p99":0.01,"idle_with_work":true}],` +
		`"pools":[{"name":"kv","index":null,"mean_used":100,"mean_cached":0,"mean_queue":0.5,"mean_holders":2,` +
		`"mean_wait":null,"admissions":3,"evicted_entries":1,"evicted_units":16.5,"preemptions":2,"spills":0,` +
		`"rejected":1,"stuck":0,"over_cap":null},` +
		`{"name":"kvD","index":1,"mean_used":1,"mean_cached":2,"mean_queue":0,"mean_holders":1,` +
		`"mean_wait":0.25,"admissions":0,"evicted_entries":0,"evicted_units":0,"preemptions":0,"spills":0,` +
		`"rejected":0,"stuck":0,"over_cap":{"queue":"kv","need":2048.5}}]}` + "\n"
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// Without claims there is no "claims" key; empty observes and gauges are
// {} and empty stages and pools [].
func TestWriteJSONNoClaims(t *testing.T) {
	r := &interp.Report{Version: "0.1.4", Horizon: 1, End: 1, Seed: 1, MeanLive: nan}
	want := `{"serq_version":"0.1.4","horizon":1,"end":1,"warmup":0,"seed":1,"events":0,"arrivals":0,` +
		`"ended":0,"turns":0,"mean_live":null,"observes":{},"gauges":{},"stages":[],"pools":[]}` + "\n"
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("JSON = %s\nwant          %s", b.String(), want)
	}
}

func TestJSONString(t *testing.T) {
	var j JSONWriter
	j.Str("a\"b\\c/\n\r\t\b\f\x00\x1f\x7fé€<>&\xff")
	want := `"a\"b\\c/\n\r\t\b\f\u0000\u001f` + "\x7fé€<>&\uFFFD" + `"`
	if string(j.b) != want {
		t.Errorf("str = %q, want %q", j.b, want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	r := fullReport()
	if err := Text(failWriter{}, r); err == nil {
		t.Errorf("Text to a failing writer: no error")
	}
	if err := JSON(failWriter{}, r); err == nil {
		t.Errorf("JSON to a failing writer: no error")
	}
}
