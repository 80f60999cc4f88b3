package interp_test

// `fork { … }` and `join;` (docs/engine.md §6; the reference's
// tests/fork_join.rs): a leg runs beside its session on a copy of the
// attributes, and the session waits for its legs where it joins. The push
// scenario is vLLM's push proxy: the decode request's blocks are taken
// while the prefill runs in a leg.

import (
	"strings"
	"testing"
)

// The leg runs 5 while the session runs 3: the session passes the `join`
// at 5, when the leg ends, not at 8.
func TestForkJoinWaitsForTheLeg(t *testing.T) {
	src := mainProgram(`
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    fork { run svc (cost(svc, 5)); observe leg_done = now; }
    run svc (cost(svc, 3));
    observe before_join = now;
    join;
    observe after_join = now;
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "leg_done", []float64{5}, "the leg runs 5")
	wantSamples(t, obs, "before_join", []float64{3}, "the session runs 3 beside it")
	wantSamples(t, obs, "after_join", []float64{5}, "the join passes when the leg ends, not at 8")
}

// A `join` after the legs have ended passes at once.
func TestForkJoinAfterTheLegsEndPasses(t *testing.T) {
	src := mainProgram(`
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    fork { run svc (cost(svc, 1)); }
    run svc (cost(svc, 3));
    join;
    observe after_join = now;
  }`)
	wantSamples(t, observations(t, src, 100), "after_join", []float64{3}, "the leg ended at 1")
}

// A leg reads the attributes as they were at the fork; its sets change its
// own copy.
func TestForkLegAttributesArePrivate(t *testing.T) {
	src := mainProgram(`
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    set x = 1;
    fork { observe leg_reads = x; set x = 7; run svc (cost(svc, 1)); observe leg_after = x; }
    set x = 2;
    join;
    observe session_x = x;
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "leg_reads", []float64{1}, "the leg sees x as at the fork")
	wantSamples(t, obs, "leg_after", []float64{7}, "the leg's set is its own")
	wantSamples(t, obs, "session_x", []float64{2}, "the session does not see the leg's set")
}

// Legs are not sessions: two sessions forking two legs each are 2
// arrivals and 2 ends.
func TestForkLegsAreNotSessions(t *testing.T) {
	src := mainProgram(`
  stage svc : delay;
  workload { arrive batch(2); session { turn; end; } }
  server {
    fork { run svc (cost(svc, 1)); }
    fork { run svc (cost(svc, 2)); }
    join;
  }`)
	r := pdReport(t, src, 100)
	if r.Arrivals != 2 || r.Ended != 2 {
		t.Errorf("arrivals = %d, ended = %d; want 2 and 2", r.Arrivals, r.Ended)
	}
}

// A leg's lease passes to its session when the leg ends: the session's
// `release` ends it.
func TestForkLegLeasePassesToTheSession(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 10; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    fork { hold kv (cost(kv, 10)) { run svc (cost(svc, 1)); } lease kv (inf); }
    join;
    observe leased = free(kv);
    run svc (cost(svc, 2));
    release kv;
    observe released = free(kv);
  }`)
	obs := observations(t, src, 100)
	wantSamples(t, obs, "leased", []float64{0}, "the leg's lease holds the pool after the join")
	wantSamples(t, obs, "released", []float64{10}, "the session's release ends the lease it inherited")
}

// A leg shares the session's cached prefix.
func TestForkLegSharesTheSessionsCache(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 100; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    hold kv (cost(kv, 8)) { run svc (cost(svc, 1)); } cache (cost(kv, 8));
    fork { hold kv (cost(kv, 8)) { observe hit = cached; run svc (cost(svc, 1)); } cache (cost(kv, 8)); }
    join;
  }`)
	wantSamples(t, observations(t, src, 100), "hit", []float64{8}, "the leg consumes the session's prefix")
}

// A leg's lease caches by the leg's attributes: `cache (n)` reads the n the
// leg set, after the lease passed to the session.
func TestForkLegLeaseCachesByTheLegsAttributes(t *testing.T) {
	src := mainProgram(`
  pool kv { cap 100; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    set n = 0;
    fork { set n = 8; hold kv (cost(kv, 8)) { run svc (cost(svc, 1)); } cache (cost(kv, n)) lease kv (inf); }
    join;
    release kv;
    hold kv (cost(kv, 8)) { observe hit = cached; } cache (cost(kv, 0));
  }`)
	wantSamples(t, observations(t, src, 100), "hit", []float64{8}, "the lease caches the leg's n = 8")
}

// A refused leg ends its session; a refused session's leg runs on and
// returns its lease.
func TestForkRefusedLegOrSession(t *testing.T) {
	program := func(leg, session string) string {
		return mainProgram(`
  pool a { cap 10; }
  pool b { cap 10; }
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server {
    set na = ` + leg + `;
    set nb = ` + session + `;
    fork { hold a (cost(a, na)) { run svc (cost(svc, 2)); } lease a (inf); }
    run svc (cost(svc, 1));
    hold b (cost(b, nb)) { join; release a; }
    observe done = now;
  }`)
	}
	obs := observations(t, program("5", "5"), 100)
	wantSamples(t, obs, "done", []float64{2}, "both fit: the join passes at 2")

	r := pdReport(t, program("50", "5"), 100)
	if r.Ended != 1 || len(samplesOf(r)["done"]) != 0 {
		t.Errorf("a refused leg: ended = %d, done = %v; want 1 and none", r.Ended, samplesOf(r)["done"])
	}
	r = pdReport(t, program("5", "50"), 100)
	if r.Ended != 1 || len(samplesOf(r)["done"]) != 0 {
		t.Errorf("a refused session: ended = %d, done = %v; want 1 and none", r.Ended, samplesOf(r)["done"])
	}
	if p := poolRow(t, r, "a"); p.Admissions != 1 {
		t.Errorf("a refused session: a.admissions = %d, want 1 (its leg runs on)", p.Admissions)
	}
}

// A session that ends while a leg it forked runs fails the run.
func TestForkSessionMayNotEndBeforeItsLegs(t *testing.T) {
	src := mainProgram(`
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server { set x = 0; fork { run svc (cost(svc, 5)); } run svc (cost(svc, 1)); branch (x) { join; } }`)
	_, err := pdSimulate(t, src, 100)
	if err == nil || !strings.Contains(err.Error(), "while a leg it forked runs") {
		t.Errorf("error = %v, want one saying %q", err, "while a leg it forked runs")
	}
}

// pushProgram is the push scenario: prompt 10; P a fifo stage whose entry
// runs the prefill (10) and leases its blocks; D an engine whose
// `from` entry takes its blocks, marks `parked`, joins the prefill leg and
// copies the KV (`P push D latency 1`: 1 at P's poster latency, then 10
// tokens over both NICs of 10/s), marking `written`. concurrent = 1 forks
// the prefill; 0 runs it before the decode request.
func pushProgram(concurrent string) string {
	return mainProgram(`
  queue gw : gateway {
    route {
      set t0 = now;
      branch (` + concurrent + `) { fork { P.prefill (prompt); } } else { P.prefill (prompt); }
      D.decode (prompt) from P;
      observe parked_at = D.parked - t0;
      observe written_at = D.written - t0;
    }
  }
  queue P : prefill {
    pool kv { cap 100; }
    serve fifo;
    nic ps(10);
    prefill (p) { hold kv (cost(kv, p)) { run (cost(P, p)); } cache (cost(kv, p)) lease kv (inf); }
  }
  queue D : decode {
    device gpu { kv cap 100; }
    engine on gpu {
      tokens cap 100;
      schedule { advance running; admit waiting while (running.preempted == 0); }
      execute (1);
    }
    pool kv on gpu { }
    nic ps(10);
    decode (p) { hold kv (cost(kv, p)) { run D prefill (cost(D, p)) growing kv; } }
    decode (p) from src {
      hold kv (cost(kv, p)) {
        mark parked;
        join;
        transfer (p) from src to kv (p);
        mark written;
      }
    }
  }
  P push D latency 1 share maxmin;
  workload { arrive batch(1); init { set prompt = 10; } session { turn; end; } }
  server { gw.route(); }`)
}

// The push scenario: 10 of prefill + 1 of poster latency + 10 tokens at
// 10/s = written at 12 either way; forked, the decoder's blocks are taken
// (parked) at 0, in series at 10.
func TestForkPushScenario(t *testing.T) {
	obs := observations(t, pushProgram("1"), 100)
	wantSamples(t, obs, "parked_at", []float64{0}, "concurrent: the decoder parks while the prefill runs")
	wantSamples(t, obs, "written_at", []float64{12}, "concurrent: 10 prefill + 1 latency + 10 tokens at 10/s")
	obs = observations(t, pushProgram("0"), 100)
	wantSamples(t, obs, "parked_at", []float64{10}, "serial: the decoder parks after the prefill")
	wantSamples(t, obs, "written_at", []float64{12}, "serial: the same write time")
}

// mutualWaitProgram: two requests cross. s1 (at 0) forks its prefill,
// which holds P.kv (8 of 10) and leases it; s0 (at 0.5) forks its prefill,
// which waits for P.kv, and takes D.kv (8 of 10) for its decode, then
// joins; s1 (at 1) waits for D.kv. Nobody can move.
func mutualWaitProgram(lease string) string {
	return mainProgram(`
  queue gw : gateway {
    route {
      fork { P.prefill (prompt); }
      run gate (cost(gate, serial == 1 ? 1 : 0));
      D.decode (prompt) from P;
    }
  }
  queue P : prefill {
    pool kv { cap 10; }
    serve fifo;
    nic ps(100);
    prefill (p) { hold kv (cost(kv, p)) { run (cost(P, p)); } cache (cost(kv, p)) lease kv (` + lease + `); }
  }
  queue D : decode {
    device gpu { kv cap 10; }
    engine on gpu {
      tokens cap 100;
      schedule { advance running; admit waiting while (running.preempted == 0); }
      execute (1);
    }
    pool kv on gpu { }
    nic ps(100);
    decode (p) { hold kv (cost(kv, p)) { run D prefill (cost(D, p)) growing kv; } }
    decode (p) from src { hold kv (cost(kv, p)) { join; transfer (p) from src to kv (p); } }
  }
  P push D share maxmin;
  stage gate : delay;
  stage client_gate : delay;
  workload {
    arrive batch(2);
    init { set prompt = 8; }
    session { run client_gate (cost(client_gate, serial == 0 ? 0.5 : 0)); turn; end; }
  }
  server { gw.route(); }`)
}

// Legs and sessions that wait for each other fail the run, naming them.
func TestForkMutualWaitFailsTheRun(t *testing.T) {
	_, err := pdSimulate(t, mutualWaitProgram("inf"), 100)
	if err == nil {
		t.Fatal("the run succeeded; want the error \"… wait for each other …\"")
	}
	for _, want := range []string{
		"wait for each other",
		"session 0 waits at a `join`",
		"a leg of session 0 waits at `P.kv`",
		"session 1 waits at `D.kv`",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// Waiting for a lease that expires is no deadlock: with `lease kv (50)`
// and a horizon of 30 the run ends as a slow one, with no session ended.
func TestForkExpiringLeaseIsNotADeadlock(t *testing.T) {
	r := pdReport(t, mutualWaitProgram("50"), 30)
	if r.Ended != 0 {
		t.Errorf("ended = %d, want 0", r.Ended)
	}
}

// TestForkLinkErrors: the link rules of fork and join.
func TestForkLinkErrors(t *testing.T) {
	legMay := func(stmt string) string {
		return mainProgram(`
  stage svc : delay;
  workload { arrive batch(1); session { fork { run svc (cost(svc, 1)); ` + stmt + ` } join; turn; end; } }
  server { }`)
	}
	server := func(pools, body string) string {
		return mainProgram(pools + `
  stage svc : delay;
  workload { arrive batch(1); session { turn; end; } }
  server { ` + body + ` }`)
	}
	const queues = `
  queue P : prefill {
    pool kv { cap 10; }
    serve fifo;
    nic ps(1);
    prefill (p) { hold kv (cost(kv, p)) { run (cost(P, p)); } cache (cost(kv, p)) lease kv (inf); }
  }
  queue D : decode {
    device gpu { kv cap 10; }
    engine on gpu { tokens cap 10; schedule { advance running; admit waiting while (running.preempted == 0); } execute (1); }
    pool kv on gpu { }
    nic ps(1);
    decode (p) { hold kv (cost(kv, p)) { run D prefill (cost(D, p)) growing kv; } }
    decode (p) from src { hold kv (cost(kv, p)) { transfer (p) from src to kv (p); } }
  }
  queue F : decode {
    device gpu { kv cap 10; }
    engine on gpu { tokens cap 10; schedule { advance running; admit waiting while (running.preempted == 0); } execute (1); }
    pool kv on gpu { }
    nic ps(1);
    decode (p) { hold kv (cost(kv, p)) { run F prefill (cost(F, p)) growing kv; } }
    decode (p) from src { hold kv (cost(kv, p)) { transfer (p) from src to kv (p); } }
  }
  P push D latency 1 share maxmin;
  P push F latency 1 share maxmin;`
	cases := []struct{ name, src, want string }{
		{"leg-turn", legMay("turn;"), "a `fork`'s leg may not `turn`"},
		{"leg-end", legMay("end;"), "a `fork`'s leg may not `end`"},
		{"leg-fork", legMay("fork { run svc (cost(svc, 1)); }"), "a `fork`'s leg may not fork"},
		{"leg-join", legMay("join;"), "a `fork`'s leg may not `join`"},
		{"join-without-fork", server("", `run svc (cost(svc, 1)); join;`), "a `join` in a program that forks no leg waits for nothing"},
		{"leg-grows-session-hold", server(`pool kv { cap 10; }`, `hold kv (cost(kv, 1)) { fork { grow kv (cost(kv, 1)); } join; }`),
			"`grow kv` outside a hold of `kv`"},
		{"fork-in-preemptible-hold", server(`pool kv { cap 10; preempt lifo; }`, `hold kv (cost(kv, 1)) { fork { run svc (cost(svc, 1)); } join; }`),
			"`fork` inside a hold of `kv`, which may preempt it"},
		{"fork-without-join", server("", `fork { run svc (cost(svc, 1)); } run svc (cost(svc, 2));`), "a program that forks a leg and never joins"},
		{"one-relation-per-poster", mainProgram(queues + `
  workload { arrive batch(1); session { turn; end; } }
  server { }`), "`P` waits before the copies of another relation already"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := linkError(t, c.src)
			if msg == "" {
				t.Fatalf("links, want an error containing %q:\n%s", c.want, c.src)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("error does not contain %q:\n%s", c.want, msg)
			}
		})
	}
}
