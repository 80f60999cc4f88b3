package interp_test

// Failures and lease lifetimes (docs/engine.md §7), with times computed by
// hand. The fixture is a prefiller P and a decoder D whose work is `delay`
// stages, so every time is exact: P prefills for 1 s and leases 10 units of
// its pool; D's request waits W s in D's queue (its serve stage), then holds
// its own 10 units and reads the KV across both NICs, ps(10) each, a flow of
// 10 units that takes 1 s.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
)

// faultFixture is the P/D fixture with its lease clause, the decoder's
// policy clauses, the decoder's wait W and the faults block filled in.
func faultFixture(lease, policy string, wait float64, faults string) string {
	return fmt.Sprintf(`fn main() {
  queue gw : gateway {
    route {
      P.prefill (10);
      D.decode (10) from P;
    }
  }
  queue P : prefill {
    pool kv { cap 100; }
    serve delay;
    nic ps(10);
    prefill (n) {
      hold kv (cost(kv, n)) { run (cost(P, 1)); } %s;
    }
  }
  queue D : decode {
    pool kv { cap 100; }
    serve delay;
    nic ps(10);
    decode (n) from P %s {
      run (cost(D, %v));
      hold kv (cost(kv, n)) {
        observe p_used = used(P.kv);
        set c = 0;
        transfer (n) from P to kv (n);
        set c = c + loaded;
        run (cost(D, (n - c) * 0.25));   // what was not read is computed here
        observe done = now;
      }
    }
  }
  D pull P latency 0 share maxmin;
  %s
  workload { arrive batch(1); session { turn; observe failed_after = failed; end; } }
  server { gw.route(); }
}
`, lease, policy, wait, faults)
}

// faultRun runs a program to horizon with a tracer, checks the reference
// path steps alike, and returns the report and the trace.
func faultRun(t *testing.T, src string, horizon float64) (*interp.Report, []interp.TraceEvent) {
	t.Helper()
	prog := pdLoad(t, src)
	sim, err := interp.New(prog, interp.Options{Horizon: horizon, Seed: 1})
	if err != nil {
		t.Fatalf("interp.New: %v", err)
	}
	var evs []interp.TraceEvent
	sim.SetTracer(func(e interp.TraceEvent) { evs = append(evs, e) })
	if err := sim.Run(context.Background()); err != nil {
		t.Fatalf("the run failed: %v\n%s", err, src)
	}
	differential(t, prog, interp.Options{Horizon: horizon, Seed: 1}, 0)
	return sim.Report(), evs
}

// timesOf are the times of the trace's events of one kind, with their
// Where.
func timesOf(evs []interp.TraceEvent, kind interp.EventKind) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, fmt.Sprintf("%g %s", e.Time, e.Where))
		}
	}
	return out
}

func wantTimes(t *testing.T, evs []interp.TraceEvent, kind interp.EventKind, want ...string) {
	t.Helper()
	got := timesOf(evs, kind)
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("%s at %q, want %q", kind, got, want)
	}
}

func leaseRow(t *testing.T, r *interp.Report, pool string) interp.LeaseRow {
	t.Helper()
	if r.Failures == nil {
		t.Fatal("the report has no failures section")
	}
	for _, l := range r.Failures.Leases {
		if l.Pool == pool {
			return l
		}
	}
	t.Fatalf("no lease row %q in %+v", pool, r.Failures.Leases)
	return interp.LeaseRow{}
}

// A lease nobody renews expires exactly at its bound: granted at t = 1
// for 10 s, it ends at 11, its units freed then; the read at t = 21 goes
// ahead (`on expiry read`, vLLM's pull read) on the freed blocks, counted
// as a read after expiry, and the request is served at 22.
func TestLeaseExpiresAtItsBound(t *testing.T) {
	r, evs := faultRun(t, faultFixture("lease kv (10)", "on expiry read", 20, ""), 100)
	wantTimes(t, evs, interp.EvLeased, "1 P.kv[0]")
	wantTimes(t, evs, interp.EvLeaseExpired, "11 P.kv[0]")
	wantTimes(t, evs, interp.EvLateRead, "21 P.kv[0]")
	obs := samplesOf(r)
	wantSamples(t, obs, "p_used", []float64{0}, "the lease's blocks were freed at 11")
	wantSamples(t, obs, "done", []float64{22}, "the late read still takes its second")
	wantSamples(t, obs, "failed_after", []float64{0}, "the client got its answer")
	if l := leaseRow(t, r, "P.kv[0]"); l != (interp.LeaseRow{Pool: "P.kv[0]", Granted: 1, Expired: 1, LateReads: 1}) {
		t.Errorf("lease row %+v", l)
	}
}

// `on expiry decline` declines the read of an expired lease: a failed
// read, which fails the request (vLLM's default kv_load_failure_policy) or,
// under `on failure recompute`, is computed by the reader: 10 units at
// 0.25 s, done at 21 + 2.5.
func TestExpiredLeaseDeclined(t *testing.T) {
	r, evs := faultRun(t, faultFixture("lease kv (10)", "on expiry decline", 20, ""), 100)
	wantTimes(t, evs, interp.EvFailed, "21 ")
	obs := samplesOf(r)
	wantSamples(t, obs, "done", nil, "the request failed at the read")
	wantSamples(t, obs, "failed_after", []float64{1}, "the client sees the failure")
	f := r.Failures
	if f.Requests != 1 || f.Failed != 1 || len(f.Causes) != 1 || f.Causes[0].Cause != "read of `P.kv[0]` failed: its lease expired" {
		t.Errorf("failures %+v", f)
	}
	r, _ = faultRun(t, faultFixture("lease kv (10)", "on expiry decline on failure recompute", 20, ""), 100)
	wantSamples(t, samplesOf(r), "done", []float64{23.5}, "recompute costs the unread 10 units, 2.5 s")
	if f := r.Failures; f.Recomputes != 1 || f.Requests != 0 || f.Completed != 1 {
		t.Errorf("failures %+v", f)
	}
}

// A lease renewed every 5 s for 20 s by its reader lasts as long as the
// reader waits: D takes the request at t = 1 and renews at 1, 6, …, 51, so
// the read at 51 finds it live; it ends with the read at 52.
func TestLeaseRenewedWhileTheReaderWaits(t *testing.T) {
	r, evs := faultRun(t, faultFixture("lease kv (30) renew every (5) for (20)", "", 50, ""), 100)
	var ticks []string
	for k := 0.0; k <= 50; k += 5 { // the last at 51, with the read under way
		ticks = append(ticks, fmt.Sprintf("%g D[0]", 1+k))
	}
	wantTimes(t, evs, interp.EvRenewed, ticks...)
	wantTimes(t, evs, interp.EvLeaseExpired)
	wantTimes(t, evs, interp.EvLeaseEnded, "52 P.kv[0]")
	wantSamples(t, samplesOf(r), "p_used", []float64{10}, "the lease is live at the read")
}

// A reader that dies stops renewing: renewals at 1, 6, …, 21 set the end
// to 41, D goes down at 23, the request fails there, and the lease expires
// 20 s after its last renewal, at 41. Without renewal, vLLM's old fixed
// timeout of 480 s holds the blocks until 481.
func TestLeaseEndsTwentySecondsAfterItsReaderDies(t *testing.T) {
	r, evs := faultRun(t, faultFixture("lease kv (30) renew every (5) for (20)", "", 50, "faults { D down at (23); }"), 600)
	wantTimes(t, evs, interp.EvRenewed, "1 D[0]", "6 D[0]", "11 D[0]", "16 D[0]", "21 D[0]")
	wantTimes(t, evs, interp.EvDown, "23 D[0]")
	wantTimes(t, evs, interp.EvLeaseStranded, "23 P.kv[0]")
	wantTimes(t, evs, interp.EvLeaseExpired, "41 P.kv[0]")
	f := r.Failures
	if f.Failed != 1 || f.Causes[0] != (interp.FailCause{Cause: "`D[0]` down", Requests: 1, Sessions: 1}) {
		t.Errorf("failures %+v", f)
	}
	if l := leaseRow(t, r, "P.kv[0]"); l.Expired != 1 || l.Stranded != 1 || l.Live != 0 {
		t.Errorf("lease row %+v", l)
	}
	_, evs = faultRun(t, faultFixture("lease kv (480)", "", 50, "faults { D down at (23); }"), 600)
	wantTimes(t, evs, interp.EvLeaseExpired, "481 P.kv[0]")
}

// A member that fails mid-prefill, mid-decode or mid-transfer: each
// session's outcome is named by the member, the read failing for the
// request to meet its policy.
func TestMemberFailsMidPrefillDecodeAndTransfer(t *testing.T) {
	for _, c := range []struct {
		name, policy, faults string
		cause                string
		done                 []float64
	}{
		{"mid-prefill", "", "faults { P down at (0.5); }", "`P[0]` down", nil},
		{"mid-decode", "", "faults { D down at (10); }", "`D[0]` down", nil},
		{"mid-transfer, fail", "", "faults { P down at (21.5); }", "read of `P.kv[0]` failed: `P[0]` down", nil},
		{"mid-transfer, a lease of 30 s", "", "faults { P down at (21.5); }", "read of `P.kv[0]` failed: `P[0]` down", nil},
		// the flow is cut at 21.5 and the 10 units are computed: 2.5 s
		{"mid-transfer, recompute", "on failure recompute", "faults { P down at (21.5); }", "", []float64{24}},
		{"NIC down mid-transfer", "", "faults { D.nic down at (21.5) for (1); }", "read of `P.kv[0]` failed: `D.nic[0]` down", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			lease := "lease kv (inf)"
			if strings.Contains(c.name, "30 s") {
				lease = "lease kv (30)"
			}
			r, _ := faultRun(t, faultFixture(lease, c.policy, 20, c.faults), 100)
			obs := samplesOf(r)
			wantSamples(t, obs, "done", c.done, "served or not")
			f := r.Failures
			if c.cause == "" {
				if f.Requests != 0 || f.Completed != 1 {
					t.Errorf("failures %+v", f)
				}
				return
			}
			if f.Failed != 1 || len(f.Causes) != 1 || f.Causes[0].Cause != c.cause {
				t.Errorf("failures %+v, want one failed of %s", f, c.cause)
			}
			// a lease lost with its member is not also left to expire
			if l := leaseRow(t, r, "P.kv[0]"); l.Stranded+l.Lost+l.Expired > 1 {
				t.Errorf("lease row %+v counts one lease twice", l)
			}
			wantSamples(t, obs, "failed_after", []float64{1}, "the client sees the failure")
		})
	}
}

// A stalled link carries its flows at rate 0: the read of 10 units at 10
// a second stops from 21.5 to 23.5, and ends at 24 rather than 22.
func TestStalledLinkPausesTheRead(t *testing.T) {
	r, _ := faultRun(t, faultFixture("lease kv (inf)", "", 20, "faults { P.nic down at (21.5) for (2) stall; }"), 100)
	wantSamples(t, samplesOf(r), "done", []float64{24}, "the flow waits 2 s at rate 0")
	if f := r.Failures; f.Requests != 0 || len(f.Down) != 1 || f.Down[0] != (interp.DownRow{Label: "P.nic[0]", Downs: 1, TimeDown: 2}) {
		t.Errorf("failures %+v", f)
	}
}

// A client that gives up while the request sits in the decoder's queue:
// the decoder frees the prefiller's lease at once (its abort sends the
// prefiller an empty read). One that gives up in the sidecar's hop between
// the prefill and the decoder strands it until it expires.
func TestTimeoutReleasesOrStrandsTheLease(t *testing.T) {
	src := faultFixture("lease kv (30)", "", 20, "")
	src = strings.Replace(src, "workload {", "workload { timeout (5);", 1)
	r, evs := faultRun(t, src, 100)
	wantTimes(t, evs, interp.EvFailed, "5 ")
	wantTimes(t, evs, interp.EvLeaseEnded, "5 P.kv[0]")
	if f := r.Failures; f.Causes[0] != (interp.FailCause{Cause: "timed out", Requests: 1, Sessions: 1}) {
		t.Errorf("failures %+v", f)
	}
	hop := strings.Replace(src, "      D.decode (10) from P;", "      run hop (cost(hop, 10));\n      D.decode (10) from P;", 1)
	hop = strings.Replace(hop, "  D pull P", "  stage hop : delay;\n  D pull P", 1)
	r, evs = faultRun(t, hop, 100)
	wantTimes(t, evs, interp.EvLeaseStranded, "5 P.kv[0]")
	wantTimes(t, evs, interp.EvLeaseExpired, "31 P.kv[0]")
	if l := leaseRow(t, r, "P.kv[0]"); l.Stranded != 1 || l.Expired != 1 {
		t.Errorf("lease row %+v", l)
	}
}

// `retry (2) after (0.2)` makes a failed entry call again: P is down from
// 0.5 to 0.8; the prefill fails at 0.5, again at 0.7 (P still down), and
// succeeds from 0.9, its second retry: its lease is granted at 1.9.
func TestRetryAfterBackoff(t *testing.T) {
	src := faultFixture("lease kv (inf)", "", 1, "faults { P down at (0.5) for (0.3); }")
	src = strings.Replace(src, "P.prefill (10);", "P.prefill (10) retry (2) after (0.2);", 1)
	r, evs := faultRun(t, src, 100)
	wantTimes(t, evs, interp.EvFailed, "0.5 ", "0.7 ")
	wantTimes(t, evs, interp.EvLeased, "1.9 P.kv[0]")
	if f := r.Failures; f.Retries != 2 || f.Requests != 2 || f.Completed != 1 || f.Failed != 0 {
		t.Errorf("failures %+v", f)
	}
	// with one retry, the second failure is the request's
	r, _ = faultRun(t, strings.Replace(src, "retry (2)", "retry (1)", 1), 100)
	if f := r.Failures; f.Retries != 1 || f.Requests != 2 || f.Failed != 1 {
		t.Errorf("failures %+v", f)
	}
}

// pictureFixture: two sessions; session 0 holds D[0].kv from t = 0.2 to
// 100; session 1 routes at t = 0.5 to the decoder with the fewest holders,
// as the gateway's picture shows them.
func pictureFixture(picture string) string {
	return fmt.Sprintf(`fn main() {
  stage svc : delay;
  queue gw : gateway {
    %s
    route {
      choose j in 2 by (holders(D[j].kv));
      observe picked = j;
      observe seen0 = holders(D[0].kv);
      observe used0 = 0 * holders(D[1].kv) + used(D[0].kv);
      D[j].decode (0);
    }
  }
  queue D[2] : decode {
    pool kv { cap 10; }
    serve delay;
    decode (x) { hold kv (cost(kv, 1)) { run (cost(D, x)); } }
  }
  workload { arrive batch(2); session { turn; end; } }
  server {
    branch (serial == 0) { run svc (cost(svc, 0.2)); D[0].decode (100); }
    else { run svc (cost(svc, 0.5)); gw.route(); }
  }
}
`, picture)
}

// A picture refreshed every T shows values at most T old, and a delay d
// shows them exactly d old: at t = 0.5, the refresh of 1 s shows t = 0,
// before session 0 held D[0] (so D[0] is picked), a delay of 0.4 shows
// t = 0.1 (D[0]), a delay of 0.2 shows t = 0.3 (D[1]); the exact state
// picks D[1]. Every observable of an expression is pictured, not only its
// first: used(D[0].kv), read after holders(D[1].kv), shows what
// holders(D[0].kv) shows.
func TestPictureRefreshAndDelay(t *testing.T) {
	for _, c := range []struct {
		picture string
		picked  float64
		seen0   float64
	}{
		{"", 1, 1},
		{"picture refresh (1);", 0, 0},
		{"picture refresh (0.25);", 1, 1}, // τ = 0.5 = now: the state now
		{"picture delay (0) detect (0);", 1, 1},
		{"picture refresh (0) delay (0.4);", 0, 0},
		{"picture refresh (0.3);", 1, 1}, // τ = 0.3, after the hold at 0.2
		{"picture delay (0.3);", 1, 1},   // τ = 0.2: the instant of the hold, as it ended
		{"picture delay (0.31);", 0, 0},  // τ = 0.19
		{"picture delay (0.4);", 0, 0},
		{"picture delay (0.2);", 1, 1},
		{"picture refresh (1) delay (0.4);", 0, 0},
	} {
		t.Run(c.picture, func(t *testing.T) {
			obs := observations(t, pictureFixture(c.picture), 200)
			wantSamples(t, obs, "picked", []float64{c.picked}, "the decoder the picture shows emptier")
			wantSamples(t, obs, "seen0", []float64{c.seen0}, "holders(D[0].kv) as seen")
			wantSamples(t, obs, "used0", []float64{c.seen0}, "used(D[0].kv) as seen, after another observable")
		})
	}
}

// A fault schedule does not move the arrivals, nor what each turn draws:
// the seed with a decoder down from 300 s to 360 s sees the same arrival
// times and the same prompts.
func TestFaultsKeepTheArrivals(t *testing.T) {
	seed := testutilSeed(t)
	faulty := strings.Replace(seed, "\n  workload {", "\n  faults { D[1] down at (300) for (60); P down after (~exp(200)) for (~exp(10)); }\n  workload {", 1)
	arrivals := func(src string) []string {
		prog := pdLoad(t, src)
		sim, err := interp.New(prog, interp.Options{Horizon: 600, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		sim.SetTracer(func(e interp.TraceEvent) {
			if e.Kind == interp.EvArrived {
				out = append(out, fmt.Sprintf("%d@%.9g", e.Session, e.Time))
			}
		})
		if err := sim.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := arrivals(seed), arrivals(faulty)
	if len(a) < 100 || strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("the arrivals moved: %d and %d sessions", len(a), len(b))
	}
}

// testutilSeed is the seed example's source.
func testutilSeed(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../examples/pd-disaggregation/llmd_nixl_pull.sq")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run resumed from a checkpoint taken anywhere (before a fault, with a
// lease renewed, stranded, a retry backing off, a picture's histories)
// reports what the straight run reports.
func TestFaultsCheckpointResume(t *testing.T) {
	retry := strings.Replace(faultFixture("lease kv (inf)", "", 1, "faults { P down at (0.5) for (0.3); }"),
		"P.prefill (10);", "P.prefill (10) retry (2) after (0.2);", 1)
	for name, src := range map[string]string{
		"renewed, reader dies": faultFixture("lease kv (30) renew every (5) for (20)", "", 50, "faults { D down at (23); }"),
		"stall":                faultFixture("lease kv (inf)", "", 20, "faults { P.nic down at (21.5) for (2) stall; }"),
		"retry":                retry,
		"picture":              pictureFixture("picture refresh (0.3) delay (0.1);"),
	} {
		t.Run(name, func(t *testing.T) {
			p := pdLoad(t, src)
			opt := interp.Options{Horizon: 600, Seed: 1}
			straight, _ := interp.New(p, opt)
			want := runToEnd(t, straight)
			total := straight.Events()
			for at := uint64(0); at < total; at++ {
				s, _ := interp.New(p, opt)
				for s.Events() < at && s.Step() {
				}
				if got := runToEnd(t, s.Checkpoint().Resume()); string(got) != string(want) {
					t.Fatalf("resumed at event %d:\n got %.400s\nwant %.400s", at, got, want)
				}
			}
		})
	}
}

// A lease that expires while its read is under way: the read goes on over
// blocks the source freed, a read after expiry (the read runs from 21 to
// 22, the lease ends at 21.5).
func TestLeaseExpiresMidRead(t *testing.T) {
	r, evs := faultRun(t, faultFixture("lease kv (20.5)", "on expiry read", 20, ""), 100)
	wantTimes(t, evs, interp.EvLeaseExpired, "21.5 P.kv[0]")
	wantTimes(t, evs, interp.EvLateRead, "21.5 P.kv[0]")
	if l := leaseRow(t, r, "P.kv[0]"); l != (interp.LeaseRow{Pool: "P.kv[0]", Granted: 1, Expired: 1, LateReads: 1}) {
		t.Errorf("lease row %+v", l)
	}
}

// The why of a session that ended, leaving a lease behind, explains the
// lease: whose it was, why it was left, who renewed it and when it ends.
func TestWhyOfALeaseLeftBehind(t *testing.T) {
	// the lease's first end, 31, is an event: it finds the end moved to 41
	prog := pdLoad(t, faultFixture("lease kv (30) renew every (5) for (20)", "", 50, "faults { D down at (23); }"))
	sim, err := interp.New(prog, interp.Options{Horizon: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for sim.Now() < 30 && sim.Step() {
	}
	got := strings.Split(strings.TrimSuffix(interp.WhyDump(sim.Why(0)), "\n"), "\n")
	want := []string{
		"gone who=s0t1",
		"  lease-of pool=P.kv[0] units=10 since=1",
		"    stranded who=s0t1 at=23 cause=`D[0]` down",
		"    reader-down member=D[0] at=23",
		"    last-renewal at=21",
		"    expires units=10 at=41",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("why:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
