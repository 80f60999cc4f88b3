package interp

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// The quiet iterations' own tests: that they are taken (a fast path that
// is never taken passes every differential test), that StepN's budget is
// exact, and that StepN and Step reach the same state after the same
// number of events wherever a batch cuts a run. fastpath_test.go holds
// them to the reference path.

const seedPath = "../examples/pd-disaggregation/llmd_nixl_pull.sq"

// loadSeedText loads the seed program's text after the replacements
// (old, new pairs), beside the seed so its `use` resolves.
func loadSeedText(t testing.TB, path string, repl ...string) *model.Program {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for i := 0; i+1 < len(repl); i += 2 {
		if !strings.Contains(text, repl[i]) {
			t.Fatalf("%s has no %q", path, repl[i])
		}
		text = strings.Replace(text, repl[i], repl[i+1], 1)
	}
	p, err := lang.LoadSource(path, []byte(text), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// quietShare runs p to the end taking every quiet run it can (as StepN
// does with an unbounded budget) and returns the events taken quietly,
// the calls of quietRun they came in and all events; set, if not nil, sets the run up
// first.
func quietShare(t *testing.T, p *model.Program, opt Options, set func(*Sim)) (quiet, runs, events uint64) {
	t.Helper()
	s, err := New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if set != nil {
		set(s)
	}
	for !s.Done() {
		if k := s.quietRun(1<<62, math.Inf(1)); k > 0 {
			quiet += k
			runs++
			continue
		}
		s.Step()
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	return quiet, runs, s.events
}

// TestQuietTaken: on the seed, 97 % of the events are quiet iterations,
// those that grow one resident's blocks included (the rest: arrivals,
// transfers, iterations that admit or finish a request), taken off the
// calendar by quietRun in calls of about a hundred (one engine's
// iterations in a row, then the next engine's while the next event is
// one); at 8/8, 96 % in calls of about fifty (a call ends at the first
// event that is not a quiet iteration, and more engines make more of
// those; a decoder whose last request finished, marked again by its
// blocks' release, no longer keeps the next iteration, any engine's, off
// the fast path: quietClean lets an idle engine without work through).
// The run is deterministic, so the counts are exact: the events are the
// reference path's (Options.NoFastPath), and the quiet ones and the calls
// they came in are pinned as a golden is, so that a change in what the
// fast path covers is seen and explained.
func TestQuietTaken(t *testing.T) {
	for _, c := range []struct {
		n           int
		quiet, runs uint64
	}{{2, 88516, 842}, {8, 323638, 6885}} {
		p := loadSeedText(t, seedPath, "let NP = 2;", fmt.Sprintf("let NP = %d;", c.n), "let ND = 2;", fmt.Sprintf("let ND = %d;", c.n),
			`args.number("Lambda", 0.6)`, fmt.Sprintf(`args.number("Lambda", %g)`, 0.3*float64(c.n)))
		opt := Options{Horizon: 100, Warmup: 10, Seed: 1, Lean: true}
		quiet, runs, events := quietShare(t, p, opt, nil)
		opt.NoFastPath = true
		ref, err := New(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		for ref.Step() {
		}
		t.Logf("%dx%d: %d of %d events quiet (%.3f), in %d calls (%.2f a call)", c.n, c.n, quiet, events,
			float64(quiet)/float64(events), runs, float64(quiet)/float64(runs))
		if events != ref.Events() || quiet != c.quiet || runs != c.runs {
			t.Errorf("%dx%d: %d quiet events in %d calls of %d events; want %d in %d calls of the reference path's %d",
				c.n, c.n, quiet, runs, events, c.quiet, c.runs, ref.Events())
		}
	}
}

// TestQuietOff: no quiet iteration with the reference path or a tracer of
// engine iterations (a tracer of the rest sees nothing of a quiet one:
// TestFastPathTrace).
func TestQuietOff(t *testing.T) {
	p := loadSeedText(t, seedPath)
	for _, c := range []struct {
		name string
		opt  Options
		set  func(*Sim)
	}{
		{"NoFastPath", Options{Horizon: 20, Seed: 1, NoFastPath: true}, func(*Sim) {}},
		{"iterations traced", Options{Horizon: 20, Seed: 1}, func(s *Sim) { s.SetTracer(func(TraceEvent) {}); s.TraceIterations(true) }},
	} {
		s, err := New(p, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		c.set(s)
		for !s.Done() {
			if k := s.quietRun(1<<62, math.Inf(1)); k > 0 {
				t.Fatalf("%s: %d quiet events at t=%v", c.name, k, s.now)
			}
			s.Step()
		}
	}
}

// TestQuietTraced: a tracer that does not ask for engine iterations
// leaves the quiet iterations on (the TUI's log rebuilds replay with one):
// the same events are quiet, in the same runs, as without a tracer.
func TestQuietTraced(t *testing.T) {
	p := loadSeedText(t, seedPath)
	opt := Options{Horizon: 20, Seed: 1}
	want, wantRuns, _ := quietShare(t, p, opt, nil)
	quiet, runs, _ := quietShare(t, p, opt, func(s *Sim) { s.SetTracer(func(TraceEvent) {}) })
	if want == 0 || quiet != want || runs != wantRuns {
		t.Errorf("with a tracer %d events quiet in %d runs, without %d in %d", quiet, runs, want, wantRuns)
	}
}

// TestStepNBudget: StepN takes exactly its budget of events while the
// run goes on, quiet runs included, and Events counts each iteration.
func TestStepNBudget(t *testing.T) {
	p := loadSeedText(t, seedPath)
	s, err := New(p, Options{Horizon: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	for i := uint64(1); !s.Done(); i = i*3%1001 + 1 {
		got := s.StepN(i)
		total += got
		if s.Events() != total || got > i || got < i && !s.Done() {
			t.Fatalf("StepN(%d) took %d, Events %d after %d", i, got, s.Events(), total)
		}
	}
	if s.Err() != nil || s.StepN(10) != 0 {
		t.Fatalf("after the end: %v, StepN took events", s.Err())
	}
}

// TestStepNSameState steps one run by Step and another by StepN in
// batches of sizes that cut quiet runs in the middle, and compares the
// whole states (SameState) after every batch: the seed, the seed under
// pressure (preemptions, stalls, waiters), and an engine program with a
// gauge read at every instant (busy and queue of the engine). Every 40th
// batch the StepN run goes on from a checkpoint of itself, so that the
// engines' templates are held to surviving the copy.
func TestStepNSameState(t *testing.T) {
	progs := map[string]*model.Program{
		"seed": loadSeedText(t, seedPath),
		"pressure": loadSeedText(t, seedPath, `args.number("blocksD", 10000)`, `args.number("blocksD", 1200)`,
			`args.number("Lambda", 0.6)`, `args.number("Lambda", 1.2)`),
		"vllm gauges": loadSeedText(t, "../examples/single-turn/vllm.sq",
			"  pool reqs on vllm { queue fifo; }", "  pool reqs on vllm { queue fifo; }\n  gauge batch = busy(vllm) + queue(vllm);\n  gauge in_kv = used(kv);"),
	}
	for name, p := range progs {
		t.Run(name, func(t *testing.T) {
			a, _ := New(p, Options{Horizon: 30, Warmup: 3, Seed: 4})
			b, _ := New(p, Options{Horizon: 30, Warmup: 3, Seed: 4})
			sizes := []uint64{1, 2, 5, 17, 3, 250, 1, 999}
			checked := 0
			for k := 0; !a.Done(); k++ {
				n := sizes[k%len(sizes)]
				got := a.StepN(n)
				for range got {
					b.Step()
				}
				if a.Done() {
					b.Step()
				}
				if a.Events() != b.Events() {
					t.Fatalf("batch %d: StepN at %d events, Step at %d", k, a.Events(), b.Events())
				}
				if !SameState(a, b) {
					t.Fatalf("batch %d (StepN(%d)): the states differ after %d events at t=%v", k, n, a.Events(), a.Now())
				}
				checked++
				if k%40 == 39 {
					// go on from a copy: the templates survive a checkpoint
					a = a.Checkpoint().Resume()
				}
			}
			if a.Err() != nil {
				t.Fatal(a.Err())
			}
			t.Logf("%d events, %d states compared", a.Events(), checked)
		})
	}
}

// TestQuietSlots: the indexes stepn.go names in quietSlots.
func TestQuietSlots(t *testing.T) {
	if quietSlots[kvDecodeSlot] != model.CtxBatchKVDecode || quietSlots[quietResident] != model.CtxBatchTokens ||
		quietSlots[quietResident-1] != model.CtxWaitingCount || quietSlots[len(quietSlots)-2] != model.CtxRunningPreempted {
		t.Fatalf("quietSlots %v", quietSlots)
	}
}
