package interp_test

// Deterministic checks of `release`, `load`, `transfer` and `lease`, the
// statements a KV transfer between prefill and decode instances is written
// with, and of the coupling they let a P/D program state: the behaviours
// T1–T22 of the reference's tests/pd_semantics.rs (docs/validation.md, "The
// reference's P/D behaviours"), translated to the newest dialect. Every fixture
// is a `fn main()` program whose svc, gate, prefill, link and decode stages
// are `delay` stages; `serial` is 0, 1, 2…; the three fixtures that used
// `stage engine : step` run on an engine `E` on a device `gpu` whose memory
// is the pool declared on that device.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// mainProgram wraps items in `fn main() { … }`.
func mainProgram(items string) string {
	return "fn main() {\n" + items + "\n}\n"
}

// pdLoad lowers a program or fails the test.
func pdLoad(t *testing.T, src string) *model.Program {
	t.Helper()
	prog, err := lang.LoadSource("test.sq", []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatalf("the program does not load:\n%s\n%s", staticMessages(err), src)
	}
	return prog
}

// staticMessages is every message (and hint) of a static error.
func staticMessages(err error) string {
	var list lang.ErrorList
	var one *lang.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = lang.ErrorList{one}
	default:
		return err.Error()
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error())
		if e.Hint != "" {
			b.WriteString("\nhint: " + e.Hint)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// pdSimulate runs a program to horizon (seed 1, no warm-up) and returns its
// report and the run's error.
func pdSimulate(t *testing.T, src string, horizon float64) (*interp.Report, error) {
	t.Helper()
	prog := pdLoad(t, src)
	sim, err := interp.New(prog, interp.Options{Horizon: horizon, Seed: 1})
	if err != nil {
		t.Fatalf("interp.New: %v", err)
	}
	runErr := sim.Run(context.Background())
	// the reference path (Options.NoFastPath) must step and end alike
	differential(t, prog, interp.Options{Horizon: horizon, Seed: 1}, 0)
	return sim.Report(), runErr
}

// pdReport runs a program that must run without error and returns its report.
func pdReport(t *testing.T, src string, horizon float64) *interp.Report {
	t.Helper()
	r, err := pdSimulate(t, src, horizon)
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, src)
	}
	return r
}

// observations runs a program and returns each observe's samples in
// recording order.
func observations(t *testing.T, src string, horizon float64) map[string][]float64 {
	t.Helper()
	return samplesOf(pdReport(t, src, horizon))
}

func samplesOf(r *interp.Report) map[string][]float64 {
	out := map[string][]float64{}
	for _, o := range r.Observes {
		v := []float64{}
		for _, s := range o.Samples {
			v = append(v, s.Value)
		}
		out[o.Name] = v
	}
	return out
}

// poolRow is the report's row of a pool (by its label, e.g. `kv`,
// `D.kv[0]`).
func poolRow(t *testing.T, r *interp.Report, label string) interp.PoolRow {
	t.Helper()
	var names []string
	for _, p := range r.Pools {
		if p.DisplayName() == label {
			return p
		}
		names = append(names, p.DisplayName())
	}
	t.Fatalf("no pool %q in the report (pools: %v)", label, names)
	return interp.PoolRow{}
}

// wantSamples compares an observe's samples with want, exactly up to 1e-9.
func wantSamples(t *testing.T, obs map[string][]float64, name string, want []float64, why string) {
	t.Helper()
	got := obs[name]
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		d := got[i] - want[i]
		ok = d < 1e-9 && d > -1e-9
	}
	if !ok {
		t.Errorf("%s = %v, want %v: %s", name, got, want, why)
	}
}

// linkError loads a program that must not link and returns its messages.
func linkError(t *testing.T, src string) string {
	t.Helper()
	_, err := lang.LoadSource("test.sq", []byte(src), lang.Options{Lib: lib.FS})
	if err == nil {
		return ""
	}
	return staticMessages(err)
}

// ---------------------------------------------------------------- T1–T5

// T1: a pool of 10, two sessions of 10. Session 0 releases its units after
// one second and works five more; session 1, queued at t = 1, is admitted
// at the release (not at 6) and takes the units at once; the scope's end
// frees nothing twice.
func TestPDReleaseFreesThePoolBeforeTheScopeEnds(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 10; }
  stage svc : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    run svc (cost(svc, serial));
    set t0 = now;
    hold kv (cost(kv, 10)) {
      observe admitted = now - t0;
      run svc (cost(svc, 1));
      release kv;
      observe free_after = free(kv);
      run svc (cost(svc, 5));
    }
    observe free_at_end = free(kv);
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "admitted", []float64{0, 0}, "session 1 is admitted at the release, not at 6")
	wantSamples(t, obs, "free_after", []float64{0, 10}, "session 1 takes the released units at once")
	wantSamples(t, obs, "free_at_end", []float64{10, 10}, "the scope end frees nothing twice")
}

// T2: the released allocation keeps its `cache` clause: the next hold of
// the session finds 8 cached.
func TestPDReleaseCachesPerTheHoldClause(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 100; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    hold kv (cost(kv, 8)) { run svc (cost(svc, 1)); release kv; run svc (cost(svc, 1)); } cache (cost(kv, 8));
    hold kv (cost(kv, 8)) { observe hit = cached; } cache (cost(kv, 0));
  }`)
	wantSamples(t, observations(t, src, 100), "hit", []float64{8}, "the release caches per the hold's clause")
}

// T3: a hold on two pools releases one of them: the slot is free at t = 1
// (vLLM's prefiller frees the slot while the blocks stay); at t = 5 both
// sessions hold kv, at t = 6 only session 1 does.
func TestPDAHoldOnTwoPoolsReleasesOneOfThem(t *testing.T) {
	src := mainProgram(`
  pool slots { cap 1; }
  pool kv { cap 100; }
  stage svc : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    run svc (cost(svc, serial * 0.5));
    set t0 = now;
    hold slots (cost(slots, 1)), kv (cost(kv, 10)) {
      observe got_slot = now;
      run svc (cost(svc, 1));
      release slots;
      run svc (cost(svc, 4));
      observe kv_used = used(kv);
    }
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "got_slot", []float64{0, 1}, "the slot is free at t = 1")
	wantSamples(t, obs, "kv_used", []float64{20, 10}, "both hold kv at t = 5, only session 1 at t = 6")
}

// T4: `load` advances the computed position: the cache keeps the 30
// loaded tokens, capped by ℓ = 40 (nothing else was computed).
func TestPDLoadAdvancesTheComputedPosition(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 100; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    hold kv (cost(kv, 40)) { run svc (cost(svc, 1)); load kv (cost(kv, 30)); } cache (cost(kv, 40));
    hold kv (cost(kv, 40)) { observe hit = cached; } cache (cost(kv, 0));
  }`)
	wantSamples(t, observations(t, src, 100), "hit", []float64{30}, "the cache keeps the computed position")
}

// T5: a load past the allocation is a run-time error.
func TestPDLoadMustFitTheAllocation(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 100; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server { hold kv (cost(kv, 10)) { load kv (cost(kv, 11)); } }`)
	_, err := pdSimulate(t, src, 10)
	if err == nil {
		t.Fatal("the run succeeded; want a run-time error")
	}
	var re *interp.RunError
	if !errors.As(err, &re) {
		t.Errorf("the error is a %T, want *interp.RunError: %v", err, err)
	}
	if !strings.Contains(err.Error(), "must fit the allocation") {
		t.Errorf("error %q does not say %q", err, "must fit the allocation")
	}
}

// ------------------------------------------------------- link errors

// TestPDLinkErrors: T6–T9, T17 and T22, the P/D statements' link rules.
// An empty want means the program must link.
func TestPDLinkErrors(t *testing.T) {
	// T6, T22 and T17's pools.
	plain := func(server string) string {
		return mainProgram(`
  pool kv { cap 10; }
  pool q { cap 10; }
  pool a { cap 1; }
  pool b { cap 1; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server { ` + server + ` }`)
	}
	// T7: kv is the memory of engine E (the old `memory kv`).
	engine := func(server string) string {
		return mainProgram(`
  device gpu { kv cap 64; }
  engine E on gpu {
    tokens cap 8;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool kv on gpu { }
  pool q { cap 10; }
  stage d : delay;
  workload { arrive batch(1); session { turn; end; } }
  server { ` + server + ` }`)
	}
	// T8: a hold kv may preempt, with a second pool indexed by moving state.
	preemptible := func(preempt, hold string) string {
		return mainProgram(`
  device gpu { kv cap 128; }
  engine E on gpu {
    tokens cap 128;
    schedule { advance running each at most (128); admit waiting while (running.preempted == 0) each at most (128); }
    execute (0.5);
  }
  pool kv on gpu { block 16; preempt ` + preempt + `; }
  pool aux[2] { cap 64; }
  workload { arrive batch(4); session { turn; end; } }
  server { ` + hold + ` }`)
	}
	const t8 = `hold kv (cost(kv, 16)), aux[1 - min(1, floor(now))] (cost(aux, 1)) {
      run E prefill (cost(E, 16)) growing kv; run E decode (cost(E, 200)) growing kv;
    }`
	const t8Computed = `hold kv (cost(kv, 16)), aux[min(1, computed)] (cost(aux, 1)) {
      run E prefill (cost(E, 16)) growing kv; run E decode (cost(E, 200)) growing kv;
    }`
	const t8Nested = `hold kv (cost(kv, 16)) { hold aux[1 - min(1, floor(now))] (cost(aux, 1)) {
      run E prefill (cost(E, 16)) growing kv; run E decode (cost(E, 200)) growing kv;
    } }`
	// T9: kv[2]; the inner hold's index is `hold`, its body `body`.
	indexed := func(workload, hold, body string) string {
		return mainProgram(`
  pool kv[2] { cap 4096; block 16; }
  stage d : delay;
  workload {
    arrive batch(2);
    init { set j = 0; }
    ` + workload + `
    session {
      hold kv[1] (cost(kv, 16)) { hold ` + hold + ` (cost(kv, 16)) { ` + body + ` run d (cost(d, 1)); } }
      turn;
      end;
    }
  }
  server { }`)
	}
	// T17: q[2].
	family := func(server string) string {
		return mainProgram(`
  pool q[2] { cap 10; }
  stage svc : delay;
  workload { arrive batch(1); init { set j = 0; } session { turn; end; } }
  server { ` + server + ` }`)
	}

	cases := []struct {
		name string
		src  string
		want string
	}{
		// T6 release_and_load_need_an_enclosing_hold
		{"T6/release", plain(`release kv;`), "outside a hold of `kv`"},
		{"T6/load", plain(`load kv (cost(kv, 1));`), "outside a hold of `kv`"},
		{"T6/release-in-another-hold", plain(`hold q (cost(q, 1)) { release kv; }`), "outside a hold of `kv`"},

		// T7 grow_and_growing_need_an_enclosing_hold (#267)
		{"T7/grow", engine(`grow kv (cost(kv, 16));`), "outside a hold of `kv`"},
		{"T7/grow-in-another-hold", engine(`hold q (cost(q, 1)) { grow kv (cost(kv, 16)); }`), "outside a hold of `kv`"},
		{"T7/growing", engine(`run E prefill (cost(E, 8)) growing kv;`), "outside a hold of `kv`"},
		{"T7/growing-in-another-hold", engine(`hold q (cost(q, 1)) { run E prefill (cost(E, 8)) growing kv; }`), "outside a hold of `kv`"},
		{"T7/grow-after-lease", engine(`hold kv (cost(kv, 16)) { run d (cost(d, 1)); } lease kv (5); grow kv (cost(kv, 16));`),
			"it acts on an enclosing hold's allocation"},
		{"T7/inside-links", engine(`hold kv (cost(kv, 8)) { grow kv (cost(kv, 8)); run E prefill (cost(E, 8)) growing kv; }`), ""},

		// T8 a_preemptible_hold_reads_no_moving_index (#317)
		{"T8/clock-index", preemptible("lifo", t8), "`kv` may preempt it"},
		{"T8/computed-index", preemptible("lifo", t8Computed), "`kv` may preempt it"},
		{"T8/nested", preemptible("lifo", t8Nested), "`kv` may preempt it"},
		{"T8/preempt-none-links", preemptible("none", t8), ""},

		// T9 a_hold_whose_body_changes_its_index_does_not_link (#282)
		{"T9/set-then-grow", indexed("", "kv[j]", `set j = 1; grow kv[j] (cost(kv, 16));`), "its body changes `j`, which the index reads"},
		{"T9/branch-sets", indexed("", "kv[j]", `branch (j == 0) { set j = 1; } grow kv[j] (cost(kv, 16));`), "its body changes `j`, which the index reads"},
		{"T9/choose", indexed("", "kv[j]", `grow kv[j] (cost(kv, 16)); choose j in 2 by (j);`), "its body changes `j`, which the index reads"},
		{"T9/set-only", indexed("", "kv[j]", `set j = 1;`), "its body changes `j`, which the index reads"},
		{"T9/turn-redraws", indexed("turn { set j = 1; }", "kv[j]", `turn;`), "its body changes `j`"},
		{"T9/state-index-reread", indexed("", "kv[used(kv[0]) > 0 ? 1 : 0]", `grow kv[used(kv[0]) > 0 ? 1 : 0] (cost(kv, 16));`), "reads the state or the clock"},
		{"T9/clock-index-reread", indexed("", "kv[now > 0.5 ? 1 : 0]", `grow kv[now > 0.5 ? 1 : 0] (cost(kv, 16));`), "reads the state or the clock"},
		{"T9/state-index-once-links", indexed("", "kv[used(kv[0]) > 0 ? 1 : 0]", ``), ""},
		{"T9/clock-index-once-links", indexed("", "kv[now > 0.5 ? 1 : 0]", ``), ""},
		{"T9/untouched-index-links", indexed("", "kv[j]", `grow kv[j] (cost(kv, 16));`), ""},

		// T17 release_and_load_name_the_pool_as_the_hold_does
		{"T17/load-other-member", family(`hold q[0] (cost(q, 1)) { load q[1] (cost(q, 1)); }`), "index included"},
		{"T17/release-other-index", family(`hold q[j] (cost(q, 1)) { release q[0]; }`), "index included"},
		{"T17/same-index-links", family(`hold q[j] (cost(q, 1)) { run svc (cost(svc, 1)); release q[j]; }`), ""},

		// T22 a_lease_names_a_pool_of_the_hold
		{"T22/lease-other-pool", plain(`hold a (cost(a, 1)) { run svc (cost(svc, 1)); } lease b (1);`), "does not take that pool"},
		{"T22/release-of-lease-links", plain(`hold a (cost(a, 1)) { run svc (cost(svc, 1)); } lease a (1); run svc (cost(svc, 1)); release a;`), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := linkError(t, c.src)
			switch {
			case c.want == "" && msg != "":
				t.Errorf("does not link, want it to:\n%s\n%s", msg, c.src)
			case c.want != "" && msg == "":
				t.Errorf("links, want an error containing %q:\n%s", c.want, c.src)
			case c.want != "" && !strings.Contains(msg, c.want):
				t.Errorf("error does not contain %q:\n%s", c.want, msg)
			}
		})
	}
}

// ---------------------------------------------------------- T10–T14

// pdStages are the fixtures' delay stages.
const pdStages = `
  stage prefill : delay;
  stage link : delay;
  stage decode : delay;
  stage gate : delay;`

// T10: the source's lease outlives its scope; the KV is in both pools
// during the link run [1, 2] and in the destination alone after it. The
// source's next session (queued at 0.5) is admitted when the transfer ends
// (t = 2), the destination's (queued at 1.5) when the decode ends (t = 3).
func TestPDATransferOverlapsTheTwoPoolsForTheLinkRun(t *testing.T) {
	src := mainProgram(`
  pool memP { cap 10; }
  pool memD { cap 10; }` + pdStages + `
  workload { arrive batch(3); init { set kind = serial; } session { turn; end; } }
  server {
    branch (kind == 0) {
      hold memP (cost(memP, 10)) { run prefill (cost(prefill, 1)); } lease memP (inf);
      hold memD (cost(memD, 10)) {
        transfer (1) from memP to memD (10);
        observe p_holders = holders(memP);
        observe d_used = used(memD);
        run decode (cost(decode, 1));
      }
    }
    branch (kind == 1) { run gate (cost(gate, 0.5)); hold memP (cost(memP, 10)) { observe p_admitted = now; } }
    branch (kind == 2) { run gate (cost(gate, 1.5)); hold memD (cost(memD, 10)) { observe d_admitted = now; } }
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "p_holders", []float64{1}, "the source is freed as the link run ends; the waiter holds it")
	wantSamples(t, obs, "d_used", []float64{10}, "the destination is held on")
	wantSamples(t, obs, "p_admitted", []float64{2}, "the source's waiter is admitted at the transfer's end")
	wantSamples(t, obs, "d_admitted", []float64{3}, "the destination's waiter is admitted at the decode's end")
}

// T11: `transfer (1) from memP to memD (9)` lowers to the same IR as
// `run link (1); load memD (9); release memP;` (source positions aside).
func TestPDTransferFromToIsSugarForThreeStatements(t *testing.T) {
	program := func(stmts string) string {
		return mainProgram(`
  pool memP { cap 10; }
  pool memD { cap 10; }
  stage link : delay;
  workload { arrive batch(1); session { turn; end; } }
  server { hold memP (cost(memP, 10)) { hold memD (cost(memD, 10)) { ` + stmts + ` } } }`)
	}
	a := testutil.IRWithoutPositions(t, pdLoad(t, program(`transfer (1) from memP to memD (9);`)))
	b := testutil.IRWithoutPositions(t, pdLoad(t, program(`run link (cost(link, 1)); load memD (cost(memD, 9)); release memP;`)))
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("the IRs differ:\ntransfer:\n%s\nthree statements:\n%s", ja, jb)
	}
}

// T12: decode pressure backs into the prefill pool. memP holds two
// prompts, memD one; a decode takes 10. Store-and-forward frees memP after
// the link run, so all 6 prefill by t ≈ 0.2. NIXL leases memP until the
// transfer, which waits for memD: s0 prefills at 0.1 and transfers over
// [0.1, 0.2]; s1 prefills at 0.11 and waits for memD with memP leased; s2
// gets s0's memP at 0.2 and prefills at 0.3; memP is then full of leases
// until s0's decode ends at 10.2 and s1's transfer ends at 10.3, when s3
// is admitted (prefilled at 10.4). By t = 15: 4 prefilled.
func TestPDDecodePressureBacksIntoThePrefillPool(t *testing.T) {
	const pools = `
  pool memP { cap 20; }
  pool memD { cap 10; }` + pdStages + `
  workload { arrive batch(6); session { turn; end; } }`
	nixl := mainProgram(pools + `
  server {
    run gate (cost(gate, serial * 0.01));
    hold memP (cost(memP, 10)) { run prefill (cost(prefill, 0.1)); observe prefilled = serial; } lease memP (inf);
    hold memD (cost(memD, 10)) {
      transfer (0.1) from memP to memD (10);
      run decode (cost(decode, 10));
    }
  }`)
	storeAndForward := mainProgram(pools + `
  server {
    run gate (cost(gate, serial * 0.01));
    hold memP (cost(memP, 10)) { run prefill (cost(prefill, 0.1)); observe prefilled = serial; run link (cost(link, 0.1)); }
    hold memD (cost(memD, 10)) { run decode (cost(decode, 10)); }
  }`)
	m := observations(t, storeAndForward, 15)["prefilled"]
	n := observations(t, nixl, 15)["prefilled"]
	if len(m) != 6 {
		t.Errorf("store-and-forward prefilled %v (%d), want 6: it prefills everything at once", m, len(m))
	}
	if len(n) != 4 {
		t.Errorf("NIXL prefilled %v (%d), want 4 (s0, s1, s2 by 0.3, s3 at 10.4): leases on memP block new prefills", n, len(n))
	}
	if len(n) >= len(m) {
		t.Errorf("NIXL prefilled %d, store-and-forward %d: want fewer under NIXL", len(n), len(m))
	}
}

// T13: a hold re-executed after a preemption reaches its `release` (the
// transfer's) again and finds nothing to give back: memP stays at 100
// free at every pass, and memD preempts.
func TestPDAReExecutedHoldReleasesNothingTwice(t *testing.T) {
	src := mainProgram(`
  device gpu { memD cap 20; }
  engine E on gpu {
    tokens cap 100;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool memD on gpu { block 10; preempt lifo; }
  pool memP { cap 100; }
  stage link : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    hold memP (cost(memP, 10)) {
      hold memD (cost(memD, 10)) {
        transfer (1) from memP to memD (10);
        observe p_free = free(memP);
        run E decode (cost(E, 25)) growing memD;
      }
    }
  }`)
	r, err := pdSimulate(t, src, 30)
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	free := samplesOf(r)["p_free"]
	if len(free) <= 1 {
		t.Errorf("p_free = %v: want more than one sample (the inner hold re-executed)", free)
	}
	for _, f := range free {
		if f != 100 {
			t.Errorf("p_free = %v: want every sample 100 (no double free)", free)
			break
		}
	}
	if p := poolRow(t, r, "memD"); p.Preemptions == 0 {
		t.Errorf("memD preemptions = 0, want > 0")
	}
}

// T14: an engine serves its queues in the order its pools are declared,
// and a head that does not fit stops the step's admissions. s0 holds a and
// decodes 50 tokens (t = 0…50); s1 waits on a from t = 1, s2 on b from
// t = 2. With a first, s1 (no room until 50) blocks s2; with b first, s2
// is admitted by the step that starts at t = 2.
func TestPDAnEngineServesItsQueuesInDeclarationOrder(t *testing.T) {
	program := func(first, second string) string {
		return mainProgram(`
  device gpu { }
  engine E on gpu {
    a cap 1;
    b cap 1;
    tokens cap 1000;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool ` + first + ` on E { }
  pool ` + second + ` on E { }
  stage gate : delay;
  workload { arrive batch(3); session { turn; end; } }
  server {
    run gate (cost(gate, serial));
    branch (serial == 0) { hold a (cost(a, 1)) { run E decode (cost(E, 50)); } }
    branch (serial == 1) { hold a (cost(a, 1)) { run E decode (cost(E, 1)); } }
    branch (serial == 2) { hold b (cost(b, 1)) { observe b_admitted = now; run E decode (cost(E, 1)); } }
  }`)
	}
	wantSamples(t, observations(t, program("a", "b"), 200), "b_admitted", []float64{50}, "a's head, which does not fit, stops the step's admissions")
	wantSamples(t, observations(t, program("b", "a"), 200), "b_admitted", []float64{2}, "b is served first")
}

// ---------------------------------------------------------- T18–T21

// T18: with `preempt lifo` on an engine's memory and nobody resident, a
// grower waits instead of preempting a holder away from the engine: s0's
// growth at t = 1 goes through when s1 ends its scope at 5.
func TestPDAGrowWithNobodyToPreemptWaits(t *testing.T) {
	src := mainProgram(`
  device gpu { kv cap 20; }
  engine E on gpu {
    tokens cap 100;
    schedule { advance running; admit waiting while (running.preempted == 0); }
    execute (1);
  }
  pool kv on gpu { preempt lifo; }
  stage svc : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    hold kv (cost(kv, 10)) {
      branch (serial == 0) { run svc (cost(svc, 1)); grow kv (cost(kv, 10)); observe grew = now; run svc (cost(svc, 1)); }
      else { run svc (cost(svc, 5)); }
    }
  }`)
	r := pdReport(t, src, 50)
	wantSamples(t, samplesOf(r), "grew", []float64{5}, "the grower waits for room")
	if p := poolRow(t, r, "kv"); p.Preemptions != 0 {
		t.Errorf("kv preemptions = %d, want 0: no resident of the engine to preempt", p.Preemptions)
	}
}

// T19: an untaken lease ends at its bound and keeps its cache: s0's lease
// of 2 keeps kv allocated after its scope (leased = 10); s1, queued at 0.5
// for the whole pool, is admitted at 1 + 2 = 3; holding the whole pool, it
// evicts s0's cache (hit = 0).
func TestPDAnUntakenLeaseEndsAtItsBoundAndKeepsItsCache(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 10; }
  stage svc : delay;
  stage gate : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    branch (serial == 0) {
      hold kv (cost(kv, 10)) { run svc (cost(svc, 1)); } cache (cost(kv, 10)) lease kv (2);
      observe leased = used(kv);
      run svc (cost(svc, 5));
      hold kv (cost(kv, 10)) { observe hit = cached; } cache (cost(kv, 0));
    } else {
      run gate (cost(gate, 0.5));
      hold kv (cost(kv, 10)) { observe admitted = now; }
    }
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "leased", []float64{10}, "still allocated after the scope")
	wantSamples(t, obs, "admitted", []float64{3}, "admitted at the lease's expiry 1 + 2")
	wantSamples(t, obs, "hit", []float64{0}, "s1 held the whole pool at 3 and evicted s0's cache")
}

// T20: a lease the session never takes ends with the session (at 2).
func TestPDALeaseEndsWithTheSession(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 10; }
  stage svc : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    branch (serial == 0) {
      hold kv (cost(kv, 10)) { run svc (cost(svc, 1)); } cache (cost(kv, 10)) lease kv (inf);
      run svc (cost(svc, 1));
    } else {
      run svc (cost(svc, 0.5));
      hold kv (cost(kv, 10)) { observe admitted = now; }
    }
  }`)
	wantSamples(t, observations(t, src, 100), "admitted", []float64{2}, "the untaken lease ends with the session")
}

// T21: a lease is not a preemption victim. s0 holds 5 and at t = 1 grows
// by 10 (15 + s1's 10 > 20); s1's lease is no candidate, so s0, the only
// holder in a scope, preempts itself, re-enters at once (5 fit), again at
// t = 2, and grows at 3, after s1 released its lease at 2.6.
func TestPDALeaseIsNotAPreemptionVictim(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 20; preempt lifo; }
  stage svc : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    branch (serial == 0) {
      hold kv (cost(kv, 5)) { run svc (cost(svc, 1)); grow kv (cost(kv, 10)); observe grew = now; run svc (cost(svc, 1)); }
    } else {
      run svc (cost(svc, 0.5));
      hold kv (cost(kv, 10)) { run svc (cost(svc, 0.1)); } lease kv (inf);
      run svc (cost(svc, 2));
      release kv;
      observe released = now;
    }
  }`)
	r := pdReport(t, src, 100)
	obs := samplesOf(r)
	if p := poolRow(t, r, "kv"); p.Preemptions != 2 {
		t.Errorf("kv preemptions = %d, want 2: s0 preempts itself at t = 1 and t = 2", p.Preemptions)
	}
	wantSamples(t, obs, "released", []float64{2.6}, "s1 releases its lease at 0.6 + 2")
	wantSamples(t, obs, "grew", []float64{3}, "s0 grows at 3, after the lease's release")
}
