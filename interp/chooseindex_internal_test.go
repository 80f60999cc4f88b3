package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// chooseSim builds a run of src (not stepped), a session to choose in and
// the program's choose statements in order.
func chooseSim(t *testing.T, src string) (*Sim, *session, []*model.Stmt) {
	t.Helper()
	p, err := lang.LoadSource("choose.sq", []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p, Options{Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var sts []*model.Stmt
	p.Walk(func(st *model.Stmt) {
		if st.Op == model.OpChoose {
			sts = append(sts, st)
		}
	})
	return s, s.newSession(), sts
}

// scanPick is the pick of the linear scan (the reference path's choose).
func scanPick(s *Sim, ss *session, st *model.Stmt) float64 {
	s.noFastPath = true
	s.choose(ss, st)
	s.noFastPath = false
	return ss.attrs[st.Slot]
}

// fastPick is the pick of the fast path's choose.
func fastPick(s *Sim, ss *session, st *model.Stmt) float64 {
	s.choose(ss, st)
	return ss.attrs[st.Slot]
}

// TestChooseIndexRandomStates: on random states of the pools (used, holders
// and queue lengths drawn from a few values, so that keys tie, zeros of
// both signs meet and a pool left empty gives a NaN), each changed pool
// recorded as the run records a change (poolChanged) and chooses made
// between changes with no instant's end between them, the indexed choose
// picks what the scan picks, every time. The tree picks the nine-candidate
// choose and the single candidate every time; the twelve-candidate one,
// whose first key is used/holders of slot[0..2], is left to the scan in
// exactly the rounds where one of those pools is empty and unheld (0/0, a
// NaN), and picked by the tree in the others.
func TestChooseIndexRandomStates(t *testing.T) {
	s, ss, sts := chooseSim(t, testutil.ChooseProgram)
	if len(sts) != 3 {
		t.Fatalf("%d chooses, want 3", len(sts))
	}
	r := rand.New(rand.NewPCG(1, 2))
	used := []float64{0, math.Copysign(0, -1), 1, 2, 3}
	slot := s.p.PoolFams[0]
	if slot.Name != "slot" {
		t.Fatalf("the first pool family is %q, want slot", slot.Name)
	}
	const rounds = 2000
	nanRounds := uint64(0)
	for round := range rounds {
		for k := r.IntN(4); k >= 0; k-- {
			pl := &s.pools[r.IntN(len(s.pools))]
			pl.used = used[r.IntN(len(used))]
			pl.holders = r.IntN(4)
			pl.queue = make([]*holdInst, r.IntN(3))
			s.poolChanged(pl)
		}
		for i := range 3 {
			if pl := &s.pools[slot.First+i]; pl.used == 0 && pl.holders == 0 {
				nanRounds++
				break
			}
		}
		for _, st := range sts {
			want := scanPick(s, ss, st)
			if got := fastPick(s, ss, st); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round %d, the choose at line %d: the index picks %v, the scan %v", round, st.Pos.Line, got, want)
			}
		}
	}
	if nanRounds == 0 || nanRounds == rounds {
		t.Fatalf("%d of %d rounds with a NaN key: the test needs both kinds", nanRounds, rounds)
	}
	for i, want := range []struct {
		n            int
		picks, scans uint64
	}{{9, rounds, 0}, {12, rounds - nanRounds, nanRounds}, {1, rounds, 0}} {
		x := &s.chooseIdx[i]
		if !x.ok || x.n != want.n || x.picks != want.picks || x.scans != want.scans {
			t.Errorf("index %d: ok %v, %d candidates, %d picks by the tree and %d by the scan; want %d, %d and %d",
				i, x.ok, x.n, x.picks, x.scans, want.n, want.picks, want.scans)
		}
	}
}

// TestChooseIndexNaN: with a NaN among the keys the lexicographic order is
// not total and a tree's pick is not the scan's. Keys [1, 0, NaN, -1]: the
// scan keeps 1 (candidate 1) past the NaN, which compares equal, and takes
// -1 (candidate 3); the tree's pair (NaN, -1) keeps the NaN, which then
// ties with 0 at the root, so the tree's own winner is candidate 1. The
// choose falls back to the scan while a key is NaN and uses the tree again
// once none is. Zeros of both signs compare equal in both: the first wins.
func TestChooseIndexNaN(t *testing.T) {
	src := `fn main() {
  pool slot[4] { cap 10; }
  stage svc : fifo;
  workload { arrive poisson(1); }
  server {
    choose j in 4 by (used(slot[j]) / holders(slot[j]));
    choose i in 3 by (used(slot[i]) / holders(slot[i]));
    run svc (cost(svc, 1));
  }
}
`
	s, ss, sts := chooseSim(t, src)
	set := func(used []float64, holders []int) {
		for p := range used {
			s.pools[p].used, s.pools[p].holders = used[p], holders[p]
			s.poolChanged(&s.pools[p])
		}
	}
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name         string
		st           int
		used         []float64
		holders      []int
		want, tree   float64 // the scan's pick, the tree's own winner
		picks, scans uint64  // the index's counts after the choose
	}{
		{"1 0 NaN -1", 0, []float64{1, 0, 0, -1}, []int{1, 1, 0, 1}, 3, 1, 0, 1},
		{"1 NaN 0 (three)", 1, []float64{1, 0, 0, -1}, []int{1, 0, 1, 1}, 2, 2, 0, 1},
		{"1 0 5 -1", 0, []float64{1, 0, 5, -1}, []int{1, 1, 1, 1}, 3, 3, 1, 1},
		{"+0 -0 +0 -0", 0, []float64{0, negZero, 0, negZero}, []int{1, 1, 1, 1}, 0, 0, 2, 1},
		{"-0 +0 -0 +0", 0, []float64{negZero, 0, negZero, 0}, []int{1, 1, 1, 1}, 0, 0, 3, 1},
		{"1 1 -0 +0", 0, []float64{1, 1, negZero, 0}, []int{1, 1, 1, 1}, 2, 2, 4, 1},
	} {
		set(c.used, c.holders)
		st := sts[c.st]
		want := scanPick(s, ss, st)
		got := fastPick(s, ss, st)
		x := s.chooseIndexOf(ss, st, float64(len(c.used)))
		if want != c.want || got != c.want || float64(x.win[1]) != c.tree || x.picks != c.picks || x.scans != c.scans {
			t.Errorf("%s: the scan picks %v, the choose %v, the tree's winner is %d (%d tree picks, %d scans); want %v, %v, %v (%d, %d)",
				c.name, want, got, x.win[1], x.picks, x.scans, c.want, c.want, c.tree, c.picks, c.scans)
		}
	}
}

// TestChooseIndexable: which chooses are kept as an index. Keys reading
// the session's cachedin are (TestChooseIndexOwn); keys reading another
// attribute, a stage that is not an engine's, the clock or a draw, a count
// that is not a constant, a pool indexed by a pool's state or a
// candidate's pool out of range take the scan.
func TestChooseIndexable(t *testing.T) {
	for _, c := range []struct {
		choose string
		ok     bool
	}{
		{"choose j in 9 by (holders(slot[j]) + queued(slot[j]));", true},
		{"choose j in 9 by (free(slot[j]), -used(slot[8 - j]), j);", true},
		{"choose j in 9 by (used(one) > 2 ? used(slot[j]) : max(2, ln(1 + holders(slot[j]))));", true},
		{"choose j in 1 by (used(one));", true},
		{"choose j in 9 by (1);", true},
		{"choose j in 9 by (cachedin(slot[j]));", true},
		{"choose j in 9 by (cachedin(slot[j]) > 0 ? 0 : 1, holders(one) + cachedin(one));", true},
		{"choose j in 9 by (used(slot[j]) + u);", false},
		{"choose j in 9 by (busy(svc));", false},
		{"choose j in 9 by (used(slot[j]), work(svc));", false},
		{"choose j in 9 by (used(slot[j]) + now);", false},
		{"choose j in 9 by (used(slot[j]) + ~uniform(0, 1));", false},
		{"choose j in u by (used(slot[j]));", false},
		{"choose j in 9 by (used(slot[holders(one)]));", false},
		{"choose j in 10 by (used(slot[j]));", false},
	} {
		src := `fn main() {
  pool slot[9] { cap 3; }
  pool one { cap 2; }
  stage svc : fifo;
  workload { arrive poisson(1); turn { set u = 3; } }
  server {
    ` + c.choose + `
    run svc (cost(svc, 1));
  }
}
`
		s, ss, sts := chooseSim(t, src)
		for a := range s.p.Attrs {
			if s.p.Attrs[a].Name == "u" {
				ss.attrs[a] = 3 // a count of 3 when it is u
			}
		}
		n := math.Floor(s.eval(sts[0].N, ss))
		if x := s.chooseIndexOf(ss, sts[0], n); x.ok != c.ok {
			t.Errorf("%s: indexed %v, want %v", c.choose, x.ok, c.ok)
		}
	}
}

// TestChooseIndexOwn: on random states of the pools and of the picking
// session's cache entries (in none of the candidates' cachedin pools, in
// one or in several, alive, gone or dead, of sizes that tie), the indexed
// choose whose keys read cachedin picks what the scan picks, every time,
// and leaves its tree as a fresh build over the same states would have
// it. A session with no live entry in the pools is picked by the tree
// alone; one with live entries has those candidates read with it
// (pickOwn), which the test sees in rounds of both kinds.
func TestChooseIndexOwn(t *testing.T) {
	src := `fn main() {
  pool slot[9] { cap 3; }
  pool kv[9] { cap 100; }
  stage svc[9] : fifo;
  workload { arrive poisson(1); }
  server {
    choose j in 9 by (cachedin(kv[j]) > 0 ? 0 : 1, holders(slot[j]) + queued(slot[j]));
    choose m in 9 by (used(slot[m]) + cachedin(kv[8 - m]) / 10, m - 2 * floor(m / 2));
    hold slot[j] (cost(slot[j], 1)) { run svc[j] (cost(svc[j], 1)); }
  }
}
`
	s, ss, sts := chooseSim(t, src)
	r := rand.New(rand.NewPCG(3, 4))
	used := []float64{0, math.Copysign(0, -1), 1, 2, 3}
	sizes := []float64{0, 10, 20}
	kv := s.p.PoolFams[1]
	if kv.Name != "kv" {
		t.Fatalf("the second pool family is %q, want kv", kv.Name)
	}
	const rounds = 3000
	mine := 0
	for round := range rounds {
		for k := r.IntN(3); k >= 0; k-- {
			pl := &s.pools[r.IntN(kv.First)] // a slot
			pl.used = used[r.IntN(len(used))]
			pl.holders = r.IntN(3)
			pl.queue = make([]*holdInst, r.IntN(2))
			s.poolChanged(pl)
		}
		ss.cache, ss.cachePools = nil, 0
		live := false
		for k := r.IntN(4) - 1; k > 0; k-- {
			e := &cacheEntry{pool: kv.First + r.IntN(kv.Count), size: sizes[r.IntN(len(sizes))]}
			e.gone, e.dead = r.IntN(5) == 0, r.IntN(5) == 0
			ss.addEntry(e)
			live = live || !e.gone && !e.dead
		}
		if live {
			mine++
		}
		for _, st := range sts {
			want := scanPick(s, ss, st)
			if got := fastPick(s, ss, st); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round %d, the choose at line %d: the index picks %v, the scan %v", round, st.Pos.Line, got, want)
			}
		}
	}
	if mine < rounds/4 || mine > rounds*3/4 {
		t.Fatalf("%d of %d rounds with live cache entries: the test needs both kinds", mine, rounds)
	}
	for i := range 2 {
		x := &s.chooseIdx[i]
		if !x.ok || x.picks != rounds || x.scans != 0 || x.owned != uint64(mine) || len(x.own) != 0 || len(x.ownKeys) != 0 || !x.ownSet.empty() {
			t.Errorf("index %d: ok %v, %d picks by the tree, %d by the scan, %d with the session's candidates (want %d), scratch %d, %d and %v",
				i, x.ok, x.picks, x.scans, x.owned, mine, len(x.own), len(x.ownKeys), x.ownSet)
		}
		// the tree as a fresh build leaves it: the leaves its candidates,
		// each inner node the better of its children
		fresh := *x
		fresh.win = slices.Clone(x.win)
		for j := range x.size {
			fresh.win[x.size+j] = -1
			if j < x.n {
				fresh.win[x.size+j] = int32(j)
			}
		}
		for n := x.size - 1; n >= 1; n-- {
			fresh.win[n] = fresh.better(fresh.win[2*n], fresh.win[2*n+1])
		}
		if !slices.Equal(fresh.win, x.win) {
			t.Errorf("index %d: the tree %v, a fresh build %v", i, x.win, fresh.win)
		}
	}
}

// TestChooseIndexTraced: under a tracer a choose takes the scan (the trace
// notes every candidate's keys) but brings its index up to date as the
// untraced run does, and leaves the scan's buffers as an indexed pick
// does: a run traced all along is in the untraced run's state (the TUI
// traces its log and jumps to checkpoints of a traced run), after every
// event.
func TestChooseIndexTraced(t *testing.T) {
	p, err := lang.LoadSource("choose.sq", []byte(testutil.ChooseProgram), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Horizon: 100, Warmup: 10, Seed: 2}
	traced, _ := New(p, opt)
	routed := 0
	traced.SetTracer(func(e TraceEvent) {
		if e.Kind == EvRouted {
			routed++
		}
	})
	plain, _ := New(p, opt)
	for {
		a, b := traced.Step(), plain.Step()
		if !SameState(traced, plain) {
			t.Fatalf("after %d events the traced run's state differs", plain.Events())
		}
		if !a || !b {
			break
		}
	}
	var made uint64
	for _, x := range plain.chooseIdx {
		made += x.picks + x.scans
	}
	if len(plain.chooseIdx) != 3 || uint64(routed) != made || plain.chooseIdx[0].picks != plain.arrivals {
		t.Fatalf("%d indexes, %d chooses traced, %d made by the untraced run's indexes, %d picks by the first of %d arrivals",
			len(plain.chooseIdx), routed, made, plain.chooseIdx[0].picks, plain.arrivals)
	}
}

// BenchmarkChooseIndex is a router's pick among 32 candidates by
// holders + queued, one candidate's pool changed between picks: by the
// index and by the scan (Options.NoFastPath).
func BenchmarkChooseIndex(b *testing.B) {
	src := `fn main() {
  pool kv[32] { cap 100; }
  stage svc : fifo;
  workload { arrive poisson(1); }
  server {
    choose j in 32 by (holders(kv[j]) + queued(kv[j]));
    run svc (cost(svc, 1));
  }
}
`
	for _, scan := range []bool{false, true} {
		name := "index"
		if scan {
			name = "scan"
		}
		b.Run(name, func(b *testing.B) {
			p, err := lang.LoadSource("bench.sq", []byte(src), lang.Options{Lib: lib.FS})
			if err != nil {
				b.Fatal(err)
			}
			s, err := New(p, Options{Horizon: 10, Seed: 1, NoFastPath: scan})
			if err != nil {
				b.Fatal(err)
			}
			ss := s.newSession()
			var st *model.Stmt
			p.Walk(func(x *model.Stmt) {
				if x.Op == model.OpChoose {
					st = x
				}
			})
			i := 0
			for b.Loop() {
				pl := &s.pools[i%32]
				pl.holders = (pl.holders + 1) % 3
				s.poolChanged(pl)
				s.choose(ss, st)
				i++
			}
		})
	}
}

// TestScanLimit: a choose whose keys name members only by the candidate
// (or none) may leave keys unread for up to its families' size of
// candidates; one that names a member by a computed index never (it could
// be out of range), nor one of a single key.
func TestScanLimit(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []int
	}{
		{testutil.ScanProgram, []int{6, 6, -1}},
		{testutil.ChooseProgram, []int{9, -1, -1}},
	} {
		s, _, sts := chooseSim(t, c.src)
		var got []int
		for _, st := range sts {
			got = append(got, s.scanLimit(st))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("scanLimit %v, want %v", got, c.want)
		}
	}
}

// TestScanLazyRandomStates: on random states of the pools (so that the
// pool keys tie, and a pool left empty gives a NaN, which ties), the
// scanned chooses of testutil.ScanProgram pick what the reference path's
// scan, which reads every key of every candidate, picks.
func TestScanLazyRandomStates(t *testing.T) {
	s, ss, sts := chooseSim(t, testutil.ScanProgram)
	r := rand.New(rand.NewPCG(3, 4))
	picks := map[float64]int{}
	for range 3000 {
		for k := r.IntN(4); k >= 0; k-- {
			pl := &s.pools[r.IntN(len(s.pools))]
			pl.used = float64(r.IntN(3))
			pl.holders = r.IntN(3)
		}
		for _, st := range sts {
			want := scanPick(s, ss, st)
			if got := fastPick(s, ss, st); got != want {
				t.Fatalf("%s: picked %v, the scan %v", st.Pos, got, want)
			}
			picks[want]++
		}
	}
	if len(picks) < 5 {
		t.Fatalf("the picks %v: too few candidates picked to tell", picks)
	}
}

// EngineRouter rewrites the seed's decoder choose to read the decoders'
// engines (their residents' remaining work, their residents and their
// batch), which quiet iterations, joins during an iteration, attempts,
// preemptions and ends change (TestChooseIndexEngineKeys).
var EngineRouter = [2]string{"choose j in ND by (holders(D[j].kv) + queued(D[j].kv));",
	"choose j in ND by (queue(D[j]), work(D[j]) - busy(D[j]));"}

// TestChooseIndexSeedRouter: the seed's router at 8/8 keeps both its
// chooses in indexes, the decoder's (holders + queued) and the
// prefiller's, whose keys read the session's cachedin and an engine's
// work: every pick is the tree's, and the later turns of a conversation,
// which have cached prefixes on prefillers, read those candidates with
// the session. So does the router of EngineRouter, whose decoder choose
// reads the engines. The counts are held to a traced copy of the run
// (whose state is the untraced run's: TestChooseIndexTraced): an index
// picks once for each of its choose's routings, and reads candidates with
// the session exactly in the prefiller routings where some candidate's
// first key, `cachedin(P[i].kv) > 0 ? 0 : 1`, is 0.
func TestChooseIndexSeedRouter(t *testing.T) {
	for _, more := range [][]string{nil, EngineRouter[:]} {
		p := loadSeedText(t, seedPath, append([]string{"let NP = 2;", "let NP = 8;", "let ND = 2;", "let ND = 8;",
			`args.number("Lambda", 0.6)`, `args.number("Lambda", 2.4)`}, more...)...)
		opt := Options{Horizon: 60, Warmup: 6, Seed: 3}
		s, err := New(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		for s.StepN(1<<20) > 0 {
		}
		traced, _ := New(p, opt)
		routed := map[string]uint64{} // by the attribute bound
		cached := uint64(0)           // prefiller routings with a candidate's first key 0
		traced.SetTracer(func(e TraceEvent) {
			if e.Kind != EvRouted {
				return
			}
			name := e.Where
			routed[name]++
			if name == "i" && strings.Contains(e.Detail, "(0, ") {
				cached++
			}
		})
		for traced.StepN(1<<20) > 0 {
		}
		if s.Err() != nil || traced.Err() != nil || s.events != traced.events {
			t.Fatalf("%q: %v, %v; %d and %d events", more, s.Err(), traced.Err(), s.events, traced.events)
		}
		if len(s.chooseIdx) != 2 {
			t.Fatalf("%q: %d indexes, want 2", more, len(s.chooseIdx))
		}
		for i, want := range []struct {
			name  string
			owned uint64
		}{{"j", 0}, {"i", cached}} {
			x := &s.chooseIdx[i]
			if !x.ok || x.n != 8 || x.picks != routed[want.name] || x.scans != 0 || x.owned != want.owned {
				t.Errorf("%q, index %d: ok %v, %d candidates, %d picks, %d scans, %d with the session's candidates; want 8, %d, 0 and %d",
					more, i, x.ok, x.n, x.picks, x.scans, x.owned, routed[want.name], want.owned)
			}
		}
		if cached == 0 || cached == routed["i"] {
			t.Fatalf("%q: %d of %d prefiller routings with a cached prefix: the test needs both kinds", more, cached, routed["i"])
		}
	}
}

// TestChooseIndexLeavesCurrent holds the indexes to their invariant after
// every event: once the changes are taken (chooseTake), a leaf not marked
// stale holds its candidate's keys as they read now. A change of a pool or
// an engine that no hook notes (poolChanged, engineChanged) leaves a leaf
// holding old keys unmarked, which this finds at the next event whether or
// not a pick would have told. The runs: the seed's router at 6/6, whose
// prefiller choose reads engines' work, and EngineRouter's, whose decoder
// choose reads engines in quiet iterations; ChooseProgram; and
// EngineChooseProgram, whose requests join an engine at their arrival,
// while it may be running an iteration.
func TestChooseIndexLeavesCurrent(t *testing.T) {
	seed := []string{"let NP = 2;", "let NP = 6;", "let ND = 2;", "let ND = 6;",
		`args.number("Lambda", 0.6)`, `args.number("Lambda", 1.8)`}
	p1 := loadSeedText(t, seedPath, seed...)
	p2 := loadSeedText(t, seedPath, append(seed, EngineRouter[:]...)...)
	p3, err := lang.LoadSource("choose.sq", []byte(testutil.ChooseProgram), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	p4, err := lang.LoadSource("engines.sq", []byte(testutil.EngineChooseProgram), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range []*model.Program{p1, p2, p3, p4} {
		s, err := New(p, Options{Horizon: 25, Warmup: 2, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for s.Step() {
			s.chooseTake()
			for i := range s.chooseIdx {
				x := &s.chooseIdx[i]
				if !x.ok {
					continue
				}
				b := s.blankChoose
				for j := range x.n {
					if x.stale.has(j) {
						continue
					}
					b.attrs[x.st.Slot] = float64(j)
					for q, key := range x.st.Keys {
						if v, old := s.eval(key, b), x.keys[j*x.k+q]; math.Float64bits(v) != math.Float64bits(old) {
							t.Fatalf("run %d, event %d at t=%v: the choose at line %d, candidate %d, key %d: the leaf holds %v, the key reads %v",
								k, s.events, s.now, x.st.Pos.Line, j, q, old, v)
						}
					}
					checked++
				}
			}
		}
		if s.Err() != nil || checked < 1000 {
			t.Fatalf("run %d: %v, %d leaves checked", k, s.Err(), checked)
		}
	}
}
