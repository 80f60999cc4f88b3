package interp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
)

// whyText is a why-chain's steps, one a line (WhyDump).
func whyText(ws []interp.WhyStep) string { return interp.WhyDump(ws) }

// stepWhilePending steps while an event is pending, stopping before a run
// whose calendar is empty would be failed as a deadlock.
func stepWhilePending(s *interp.Sim) {
	for !math.IsInf(s.NextTime(), 1) && s.Step() {
	}
}

// The mutual wait of fork_join_test.go, seen before the run fails: session
// 1 waits at D.kv, held by session 0, which joins its leg, which waits at
// P.kv, leased by session 1. The chain is followed to the cycle.
func TestWhyWaitCycle(t *testing.T) {
	p := pdLoad(t, mutualWaitProgram("inf"))
	s, err := interp.New(p, interp.Options{Horizon: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	stepWhilePending(s)
	got := whyText(s.Why(1))
	want := `session who=s1t1 pos=test.sq:26:27
  lease pool=P.kv[0] units=8 since=8
  queued pool=D.kv[0] position=1 count=1 since=1
    head who=s1t1 self pool=D.kv[0] blocking units=8 cap=10 used=8 free=2
      short pool=D.kv[0] units=6
      held-by who=s0t1 pool=D.kv[0] units=8 state=join
        session who=s0t1 pos=test.sq:26:51
          join count=1
            session who=s0t1l1 pos=test.sq:14:19
              queued pool=P.kv[0] position=1 count=1 since=0.5
                head who=s0t1l1 self pool=P.kv[0] blocking units=8 cap=10 used=8 free=2
                  short pool=P.kv[0] units=6
                  held-by who=s1t1 pool=P.kv[0] units=8 since=8 leased state=queued where=D.kv[0]
                    cycle cycle=s1t1,s0t1,s0t1l1,s1t1
`
	if got != want {
		t.Errorf("why of session 1:\n%s\nwant:\n%s", got, want)
	}
	if s.Why(7) != nil {
		t.Error("a session that is not live has a why")
	}
	j := s.Jam(1)
	if !j.Stalled || len(j.Blocked) != 0 {
		t.Errorf("jam %+v, want stalled and nothing blocked", j)
	}
}

// The seed with a decoder KV of 150 blocks (2,400 tokens), smaller than some
// prompts: at t = 58.9 a prefiller's lease waits behind a head that asks
// 2,496 tokens, which can never fit.
func TestWhyHeadAboveCap(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "150"))
	s, err := interp.New(p, interp.Options{Horizon: 2000, Warmup: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(58.9)
	lease := s.Snapshot().Pools[2].Leases[0]
	if lease.Session != 35 || math.Abs(lease.Start-57.3449247) > 1e-6 {
		t.Fatalf("the oldest lease of %s is session %d's from %v", s.Snapshot().Pools[2].Label, lease.Session, lease.Start)
	}
	got := whyText(s.Why(35))
	want := `session who=s35t1 pos=../examples/pd-disaggregation/llmd_nixl_pull.sq:145:7
  lease pool=P.kv[0] units=1200 since=57.3449
  queued pool=D.kv[0] position=2 count=3 since=57.3449
    head who=s24t2 pool=D.kv[0] blocking units=2496 cap=2400 cached=2384 free=16
      no-fit pool=D.kv[0] units=2496 cap=2400
`
	if got != want {
		t.Errorf("why of session 35:\n%s\nwant:\n%s", got, want)
	}
	j := s.Jam(1)
	if strings.Join(j.Blocked, " ") != "D.kv[0] D.kv[1]" || j.Stalled || j.Stale != 2 {
		t.Errorf("jam %+v, want D.kv[0] and D.kv[1] blocked, not stalled, 2 leases over 1 s", j)
	}
	ss := s.Session(35)
	if ss == nil || ss.Waits != "queued at D.kv[0]" || ss.Pos.Line != 145 || len(ss.Legs) != 0 {
		t.Errorf("session 35: %+v", ss)
	}
	q, err := lang.CompileQuery(p, "leases(P[0].kv) * 1000 + oldest_lease(P[0].kv)")
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Query(q); math.Abs(v-(3000+1.55508)) > 1e-5 {
		t.Errorf("leases and oldest lease of P.kv[0]: %v", v)
	}
}

// A pool held by named sessions: the second request waits for the first's
// units, and the next event that frees them is the first's job ending.
func TestWhyHolders(t *testing.T) {
	p := loadInline(t, "held.sq", `fn main() {
  pool kv { cap 10; }
  stage svc : fifo(2);
  workload { arrive batch(2); }
  server { hold kv (cost(kv, 6)) { run svc (cost(svc, 3)); } }
}
`)
	s, err := interp.New(p, interp.Options{Horizon: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Step()
	s.RunUntil(1)
	got := whyText(s.Why(1))
	want := `session who=s1t1 pos=held.sq:5:12
  queued pool=kv position=1 count=1
    head who=s1t1 self pool=kv blocking units=6 cap=10 used=6 free=4
      short pool=kv units=2
      held-by who=s0t1 pool=kv units=6 state=on-stage where=svc
      next who=s0t1 pool=kv at=3 next=job
`
	if got != want {
		t.Errorf("why of session 1:\n%s\nwant:\n%s", got, want)
	}
	if j := s.Jam(1); j.Stalled || len(j.Blocked) != 0 {
		t.Errorf("jam %+v, want none", j)
	}
}

// A session decoding on an engine says so, with the tokens asked and left;
// a queued one has no run.
func TestSessionRun(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", nil)
	s, err := interp.New(p, interp.Options{Horizon: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Session 2 decodes 205 tokens on D[0] from t = 0.7162 to 0.7585
	// (trace_events_test.go's story).
	s.RunUntil(0.74)
	ss := s.Session(2)
	if ss == nil || ss.Run == nil {
		t.Fatalf("session 2 at t=0.74: %+v", ss)
	}
	if r := ss.Run; r.Engine != "D[0]" || r.Mode != "decode" || r.Tokens != 205 || !(r.Left > 0 && r.Left < 205) {
		t.Errorf("session 2's run: %+v, want decode on D[0] of 205 tokens, some left", r)
	}
	if s.Session(99) != nil {
		t.Error("a session not yet arrived is live")
	}
}

// TestJamStaleNotMoving: Jam counts the leases that wait longer than the
// threshold, as the Leases pane flags them: not one whose read is under
// way (LeaseSnap.Moving), however old. On the seed under memory pressure,
// at the first event after which a lease older than 2 ms moves.
func TestJamStaleNotMoving(t *testing.T) {
	p := loadExample(t, "pd-disaggregation/llmd_nixl_pull.sq", sets("blocksD", "1200", "Lambda", "1.2"))
	s, err := interp.New(p, interp.Options{Horizon: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const thr = 0.002
	for s.Step() {
		var old, moving int
		for _, pl := range s.Snapshot().Pools {
			for _, l := range pl.Leases {
				if l.Age > thr {
					old++
					if l.Moving {
						moving++
					}
				}
			}
		}
		if moving == 0 {
			continue
		}
		if j := s.Jam(thr); j.Stale != old-moving {
			t.Errorf("at t %g: Jam counts %d stale leases; of %d older than %g s, %d move", s.Now(), j.Stale, old, thr, moving)
		}
		return
	}
	t.Fatal("no lease older than 2 ms moved")
}
