package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
	"github.com/serq/serq/tui"
)

// The examples of examples/faults and their tour: what their comments,
// README and captions say happens, at the settings they give (seed 1).

const faultsDir = "../../examples/faults"

// loadFault loads examples/faults/NAME with sets (name=expr).
func loadFault(t *testing.T, name string, sets ...string) *model.Program {
	t.Helper()
	var ov []lang.Override
	for _, s := range sets {
		n, e, _ := strings.Cut(s, "=")
		ov = append(ov, lang.Override{Name: n, Expr: e})
	}
	p, err := lang.Load(filepath.Join(faultsDir, name), lang.Options{Lib: lib.FS, Sets: ov})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// faultRunTrace runs p to horizon after warmup with seed 1 and returns its
// report and the times of the trace events of kind ("12.5000 P.kv[0]";
// none for EvNone). It skips the test under -short.
func faultRunTrace(t *testing.T, p *model.Program, horizon, warmup float64, kind interp.EventKind) (*interp.Report, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a fault example for its whole horizon")
	}
	sim, err := interp.New(p, interp.Options{Horizon: horizon, Warmup: warmup, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var times []string
	if kind != interp.EvNone {
		sim.SetTracer(func(e interp.TraceEvent) {
			if e.Kind == kind {
				times = append(times, fmt.Sprintf("%.4f %s", e.Time, e.Where))
			}
		})
	}
	if err := sim.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return sim.Report(), times
}

// leaseTotals sums the failures section's lease rows.
func leaseTotals(f *interp.Failures) (t interp.LeaseRow) {
	for _, l := range f.Leases {
		t.Granted += l.Granted
		t.Expired += l.Expired
		t.LateReads += l.LateReads
		t.FailedReads += l.FailedReads
		t.Lost += l.Lost
		t.Stranded += l.Stranded
	}
	return t
}

// causes is the failures section's causes as "cause: requests/sessions".
func causes(f *interp.Failures) string {
	var out []string
	for _, c := range f.Causes {
		out = append(out, fmt.Sprintf("%s: %d/%d", c.Cause, c.Requests, c.Sessions))
	}
	return strings.Join(out, "; ")
}

// TestDecoderKilledLeases: examples/faults/decoder_killed.sq's numbers. D[0]
// dies at 240 s, its last heartbeat at 238.4849 s; its 20 parked requests'
// leases are stranded, and each ends at max(grant + 30, 238.4849 + 20): 16 at
// 258.4849 s, the 4 younger ones from 261.7149 s to 269.1658 s. With vLLM's
// old fixed 480 s the same leases end from 680.73 s to 719.17 s.
func TestDecoderKilledLeases(t *testing.T) {
	r, expired := faultRunTrace(t, loadFault(t, "decoder_killed.sq"), 1000, 100, interp.EvLeaseExpired)
	f := r.Failures
	if got := causes(f); got != "`D[0]` down: 32/32" {
		t.Errorf("causes %s", got)
	}
	if l := leaseTotals(f); l.Stranded != 20 || l.Expired != 20 || l.LateReads != 0 || l.Lost != 0 {
		t.Errorf("leases %+v", l)
	}
	want := strings.Repeat("258.4849 P.kv[0],", 16) + "261.7149 P.kv[0],268.8403 P.kv[0],268.9008 P.kv[1],269.1658 P.kv[1]"
	if got := strings.Join(expired, ","); got != want {
		t.Errorf("leases expired at\n%s\nwant\n%s", got, want)
	}
	r, expired = faultRunTrace(t, loadFault(t, "decoder_killed.sq", "lease=480"), 1000, 100, interp.EvLeaseExpired)
	if l := leaseTotals(r.Failures); l.Stranded != 20 || l.Expired != 20 {
		t.Errorf("lease 480: leases %+v", l)
	}
	if len(expired) != 20 || expired[0] != "680.7300 P.kv[0]" || expired[19] != "719.1658 P.kv[1]" {
		t.Errorf("lease 480: leases expired at %v", expired)
	}
}

// TestPrefillerKilled: examples/faults/prefiller_killed.sq and its
// recompute twin. P[0] dies at 200 s with 21 reads of its KV under way:
// under `fail` the 21 requests fail; under `recompute` none does, and the
// decoders prefill the 21 prompts, 49,251 tokens, where they compute one
// token a request after a read.
func TestPrefillerKilled(t *testing.T) {
	r, _ := faultRunTrace(t, loadFault(t, "prefiller_killed.sq"), 1000, 100, interp.EvNone)
	if got := causes(r.Failures); got != "read of `P.kv[0]` failed: `P[0]` down: 21/21" {
		t.Errorf("fail: causes %s", got)
	}
	if l := leaseTotals(r.Failures); l.FailedReads != 21 || l.Lost != 21 || l.Stranded != 0 {
		t.Errorf("fail: leases %+v, want 21 failed reads of 21 lost leases", l)
	}
	r, _ = faultRunTrace(t, loadFault(t, "prefiller_killed_recompute.sq"), 1000, 100, interp.EvNone)
	if f := r.Failures; f.Requests != 0 || f.Recomputes != 21 || f.Failed != 0 {
		t.Errorf("recompute: failures %+v", f)
	}
	k := slices.IndexFunc(r.Observes, func(o interp.ObserveRow) bool { return o.Name == "decoder_prefill" })
	if k < 0 {
		t.Fatal("recompute: no decoder_prefill observe")
	}
	if o := r.Observes[k]; o.Count != 1436 || math.Abs(o.Mean*float64(o.Count)-50666) > 0.5 {
		t.Errorf("recompute: decoder_prefill %d samples, total %g; want 1436, 49,251 + 1,415", o.Count, o.Mean*float64(o.Count))
	}
}

// TestAbortStrands: examples/faults/abort.sq. Of the 2147 requests given
// up, the 29 in the sidecar's hop leave their leases to expire; the others
// leave none behind.
func TestAbortStrands(t *testing.T) {
	r, stranded := faultRunTrace(t, loadFault(t, "abort.sq"), 1000, 100, interp.EvLeaseStranded)
	if got := causes(r.Failures); got != "timed out: 2147/2147" {
		t.Errorf("causes %s", got)
	}
	if l := leaseTotals(r.Failures); l.Stranded != 29 || l.Expired != 29 || len(stranded) != 29 {
		t.Errorf("leases %+v, %d stranded in the trace", l, len(stranded))
	}
}

// TestIncidentLateReads: examples/faults/incident.sq reads 378 of its 1448
// leases after they expired with vLLM's 30 s, none with the fix's 300 s.
func TestIncidentLateReads(t *testing.T) {
	for lease, late := range map[string]uint64{"30": 378, "300": 0} {
		r, _ := faultRunTrace(t, loadFault(t, "incident.sq", "lease="+lease), 1800, 300, interp.EvNone)
		if l := leaseTotals(r.Failures); l.Granted != 1448 || l.LateReads != late {
			t.Errorf("lease %s: leases %+v, want %d late reads of 1448", lease, l, late)
		}
	}
}

// TestStalePicture: examples/faults/stale_picture.sq against the exact
// picture (--refresh 0 --detect 0): Kubernetes' 30 s to notice a dead pod
// fails 2260 requests, 697 clients give up after three tries, and the
// requests sent to the dead decoder strand 232 leases, nearly filling the
// prefiller; noticed in 1 s, 35 fail, as many as with the exact picture,
// and none gives up.
func TestStalePicture(t *testing.T) {
	for _, c := range []struct {
		sets               []string
		requests, sessions uint64
		causes             string
		stranded           uint64
		maxKV              float64 // the prefill_kv gauge's greatest value
	}{
		{nil, 2260, 697, "`D[0]` down: 249/66; `P[0]` down: 1966/631; read of `P.kv[0]` failed: `P[0]` down: 45/0", 232, 319968},
		{[]string{"detect=1"}, 35, 0, "`D[0]` down: 32/0; `P[0]` down: 2/0; read of `P.kv[0]` failed: `P[0]` down: 1/0", 15, 148224},
		{[]string{"refresh=0", "detect=0"}, 35, 0, "`D[0]` down: 32/0; read of `P.kv[0]` failed: `P[0]` down: 3/0", 17, 145728},
	} {
		r, _ := faultRunTrace(t, loadFault(t, "stale_picture.sq", c.sets...), 1000, 100, interp.EvNone)
		if f := r.Failures; f.Requests != c.requests || f.Failed != c.sessions || causes(f) != c.causes {
			t.Errorf("%v: %d requests and %d sessions failed of %s; want %d, %d, %s",
				c.sets, f.Requests, f.Failed, causes(f), c.requests, c.sessions, c.causes)
		}
		if l := leaseTotals(r.Failures); l.Stranded != c.stranded || r.Gauges[0].Name != "prefill_kv" || r.Gauges[0].Max != c.maxKV {
			t.Errorf("%v: %d leases stranded, %s at most %g; want %d, %g", c.sets, l.Stranded, r.Gauges[0].Name, r.Gauges[0].Max, c.stranded, c.maxKV)
		}
	}
}

// TestDecoderKilledTour plays examples/faults/tours/decoder_killed.yaml on
// the interpreter, as serq tui does at 160×48 (`at` runs to the time, `when`
// to the first event after which the condition becomes true), and checks
// that each stop is where its caption says, by the numbers the caption
// quotes.
func TestDecoderKilledTour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example for 300 s")
	}
	p := loadFault(t, "decoder_killed.sq")
	tour, err := tui.LoadTour(filepath.Join(faultsDir, "tours", "decoder_killed.yaml"), p, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		at     string
		events uint64
		facts  map[string]float64 // debugger expressions and their values there
	}{
		{"a busy deployment", "238.4900", 106910, map[string]float64{"queued(D[0].kv)": 17, "up(D[0])": 1}},
		{"D[0] dies", "240.0000", 107519, map[string]float64{"up(D[0])": 0, "used(D[0].kv)": 0,
			"holders(P[0].kv)": 35, "holders(P[1].kv)": 2, "leases(P[0].kv) + leases(P[1].kv)": 37}},
		{"20 s after the last heartbeat", "258.4849", 114731, map[string]float64{"expired(P[0].kv) + expired(P[1].kv)": 16}},
		{"the blocks are back", "269.1658", 116878, map[string]float64{"expired(P[0].kv) + expired(P[1].kv)": 20}},
		{"D[0] is back", "300.0000", 123103, map[string]float64{"up(D[0])": 1, "queued(D[1].kv)": 46,
			"oldest_lease(P[0].kv) > 55 && oldest_lease(P[0].kv) < 56": 1}},
	}
	if len(tour.Stops) != len(want) {
		t.Fatalf("the tour has %d stops, want %d", len(tour.Stops), len(want))
	}
	sim, err := interp.New(p, interp.Options{Horizon: 1000, Warmup: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	query := func(src string) float64 {
		t.Helper()
		e, err := lang.CompileQuery(p, src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return sim.Query(e)
	}
	for i, st := range tour.Stops {
		w := want[i]
		switch st.Kind {
		case tui.StopTime:
			sim.RunUntil(st.T)
		case tui.StopWhen:
			was := query(st.When) != 0
			for {
				if !sim.Step() {
					t.Fatalf("stop %d: %s never becomes true", i+1, st.When)
				}
				is := query(st.When) != 0
				if is && !was {
					break
				}
				was = is
			}
		default:
			t.Fatalf("stop %d: kind %d", i+1, st.Kind)
		}
		if got := fmt.Sprintf("%.4f", sim.Now()); st.Name != w.name || got != w.at || sim.Events() != w.events {
			t.Errorf("stop %d %q at t %s after %d events, want %q at %s after %d", i+1, st.Name, got, sim.Events(), w.name, w.at, w.events)
		}
		for src, v := range w.facts {
			if got := query(src); got != v {
				t.Errorf("stop %d: %s = %g, want %g", i+1, src, got, v)
			}
		}
	}
}
