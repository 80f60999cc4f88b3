package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// base is testutil.RichProgram: a bit of everything the IR has.
var base = testutil.RichProgram

// loadBase lowers base and reads it back from its JSON, as `serq run` of
// the IR would.
func loadBase(t *testing.T) *model.Program {
	t.Helper()
	p, err := lang.LoadSource("base.sq", []byte(base), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatal(err)
	}
	return reread(t, p)
}

func marshal(t *testing.T, p *model.Program) []byte {
	t.Helper()
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func reread(t *testing.T, p *model.Program) *model.Program {
	t.Helper()
	var q model.Program
	if err := json.Unmarshal(marshal(t, p), &q); err != nil {
		t.Fatal(err)
	}
	return &q
}

// exampleFiles are the example programs, instances aside.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files := testutil.Examples(t, "../examples")
	return files
}

// TestRoundTrip reads every example's IR back: it validates, and prints
// the same JSON again.
func TestRoundTrip(t *testing.T) {
	files := append(exampleFiles(t), "base")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			var p *model.Program
			var err error
			if f == "base" {
				p, err = lang.LoadSource("base.sq", []byte(base), lang.Options{Lib: lib.FS})
			} else {
				p, err = lang.Load(f, lang.Options{Lib: lib.FS})
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("the lowered program: %v", err)
			}
			first := marshal(t, p)
			q := reread(t, p)
			if err := q.Validate(); err != nil {
				t.Fatalf("the program read back: %v", err)
			}
			if second := marshal(t, q); !bytes.Equal(first, second) {
				t.Errorf("the IR read back prints differently:\n%s", second)
			}
		})
	}
}

// TestGoldenIR reads lang's golden IR.
func TestGoldenIR(t *testing.T) {
	golden, err := os.ReadFile("../lang/testdata/llmd_nixl_pull.ir.golden")
	if err != nil {
		t.Fatal(err)
	}
	var p model.Program
	if err := json.Unmarshal(golden, &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := marshal(t, &p); !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(golden)) {
		t.Errorf("the golden IR read back prints differently:\n%s", got)
	}
}

func TestEnumText(t *testing.T) {
	type enum interface {
		MarshalText() ([]byte, error)
	}
	check := func(v enum, back func([]byte) (enum, error)) {
		t.Helper()
		text, err := v.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		got, err := back(text)
		if err != nil || got != v {
			t.Errorf("%T %v: %q reads back as %v, %v", v, v, text, got, err)
		}
	}
	for k := model.FIFO; k <= model.Step; k++ {
		check(k, func(b []byte) (enum, error) { var x model.StageKind; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.PreemptNone; k <= model.PreemptBy; k++ {
		check(k, func(b []byte) (enum, error) { var x model.PreemptKind; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.ServeVLLM; k <= model.ServeBody; k++ {
		check(k, func(b []byte) (enum, error) { var x model.ServeKind; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.SchedAdvance; k <= model.SchedSet; k++ {
		check(k, func(b []byte) (enum, error) { var x model.SchedOp; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.ArriveNone; k <= model.ArriveBatch; k++ {
		check(k, func(b []byte) (enum, error) { var x model.ArrivalKind; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.OpSet; k <= model.OpJoin; k++ {
		check(k, func(b []byte) (enum, error) { var x model.Op; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.ModeNone; k <= model.ModeDecode; k++ {
		check(k, func(b []byte) (enum, error) { var x model.RunMode; err := x.UnmarshalText(b); return x, err })
	}
	for k := model.ENum; k <= model.EObsAgg; k++ {
		check(k, func(b []byte) (enum, error) { var x model.ExprOp; err := x.UnmarshalText(b); return x, err })
	}
	for f := model.FNone; f <= model.CPrefixTotal; f++ {
		if f == model.DExp {
			continue // "exp" reads as the pure function; a draw's reads as the distribution
		}
		check(f, func(b []byte) (enum, error) { var x model.Func; err := x.UnmarshalText(b); return x, err })
	}
	var e model.Expr
	if err := json.Unmarshal([]byte(`{"op":"draw","fn":"exp","args":[{"op":"num","num":1}]}`), &e); err != nil || e.Fn != model.DExp {
		t.Errorf("a draw of exp reads as fn %d, %v; want DExp", e.Fn, err)
	}
	if err := json.Unmarshal([]byte(`{"op":"func","fn":"exp","args":[{"op":"num","num":1}]}`), &e); err != nil || e.Fn != model.FExp {
		t.Errorf("a func exp reads as fn %d, %v; want FExp", e.Fn, err)
	}
}

func TestNumbers(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 0.1, -2.5e-300, 1e300, 5e-324, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
		b, err := json.Marshal(model.Num(x))
		if err != nil {
			t.Fatal(err)
		}
		var e model.Expr
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !(math.Float64bits(e.Num) == math.Float64bits(x) || math.IsNaN(x) && math.IsNaN(e.Num)) {
			t.Errorf("%s reads back as %v, want %v", b, e.Num, x)
		}
		b, err = json.Marshal(model.F64(x))
		if err != nil {
			t.Fatal(err)
		}
		var f model.F64
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !(math.Float64bits(float64(f)) == math.Float64bits(x) || math.IsNaN(x) && math.IsNaN(float64(f))) {
			t.Errorf("F64 %s reads back as %v, want %v", b, f, x)
		}
	}
}

// TestUnmarshalErrors reads malformed IR text.
// programFuncs are the functions an IR may name, as its error lists
// them: model.Predeclared's but the debugger's, in Func order, each name
// once (exp is a function before it is a distribution).
func programFuncs() string {
	var names []string
	for f := model.FNone + 1; f.Info() != nil; f++ {
		if b := f.Info(); !b.Debugger() && !slices.Contains(names, b.Name) {
			names = append(names, b.Name)
		}
	}
	return strings.Join(names, ", ")
}

func TestUnmarshalErrors(t *testing.T) {
	if want := "min, max, abs, floor, ceil, sqrt, exp, ln, pow, det, uniform"; !strings.HasPrefix(programFuncs(), want) {
		t.Errorf("the IR's functions are %s, want them to start %s", programFuncs(), want)
	}
	tests := []struct{ in, want string }{
		{`{"op":"sett"}`, `"op": unknown statement kind "sett" (want set, observe, hold, grow, drop, release, load, run, branch, while, loop, choose, end, turn, fork, join, reading, try)`},
		{`{"op":"run","mode":"fast"}`, `"mode": unknown run mode "fast" (want prefill, decode)`},
		{`{"op":"set","value":{"op":"plus"}}`, `"op": unknown expression op "plus" (want num, attr, ctx, reg, neg, not, +, -, *, /, ^, <, <=, >, >=, ==, !=, &&, ||, ?:, func, draw, stage, pool, budget_left, observations, up, seen)`},
		{`{"op":"set","value":{"op":"func","fn":"cos"}}`, `"fn": unknown function "cos" (want ` + programFuncs() + `)`},
		{`{"op":"set","value":{"op":"num"}}`, `"num": missing from a constant expression`},
		{`{"op":"set","value":{"op":"num","num":"many"}}`, `"num": "many" is no number (want a number, "inf", "-inf" or "NaN")`},
		{`{"op":"set","value":{"op":"num","num":null}}`, `"num": null is no number (want a number, "inf", "-inf" or "NaN")`},
		{`{"op":"set","value":{"op":"num","num":1e999}}`, `"num": 1e999 is out of range for a float64`},
		{`{"op":"set","value":{"op":"attr","num":1}}`, `"num": given on a "attr" expression, which is no constant`},
		{`{"op":"set","value":{"op":"num","num":1}`, `unexpected end of JSON input`},
	}
	for _, tt := range tests {
		var st model.Stmt
		err := json.Unmarshal([]byte(tt.in), &st)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
	other := []struct {
		in   string
		into any
		want string
	}{
		{`"lifo"`, new(model.StageKind), `"kind": unknown stage kind "lifo" (want fifo, ps, delay, step)`},
		{`"fifo"`, new(model.PreemptKind), `"preempt": unknown preempt policy "fifo" (want none, lifo, by)`},
		{`"sglang"`, new(model.ServeKind), `"serve": unknown serve kind "sglang" (want vllm, exclusive_prefill, body)`},
		{`"evict"`, new(model.SchedOp), `"op": unknown schedule step "evict" (want advance, admit, branch, set)`},
		{`"open"`, new(model.ArrivalKind), `"arrive": unknown arrival process "open" (want none, poisson, renewal, closed, batch, constant)`},
		{`3`, new(model.ArrivalKind), `json: cannot unmarshal number into Go value of type *model.ArrivalKind`},
		{`"Inf"`, new(model.F64), `"Inf" is no number (want a number, "inf", "-inf" or "NaN")`},
		{`true`, new(model.F64), `true is no number (want a number, "inf", "-inf" or "NaN")`},
	}
	for _, tt := range other {
		err := json.Unmarshal([]byte(tt.in), tt.into)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s into %T:\n got %v\nwant %s", tt.in, tt.into, err, tt.want)
		}
	}
}

func num(x float64) *model.Expr { return model.Num(x) }

// TestValidate corrupts the base program one way at a time.
func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *model.Program)
		want string // "" for a valid program
	}{
		{"base", func(p *model.Program) {}, ""},
		{"no server", func(p *model.Program) { p.Server = nil }, ""},

		// Families and members.
		{"family past the stages", func(p *model.Program) { p.StageFams[3].Count = 2 },
			"ir: stage_families[3]: members 3 to 4 are not all stages: the program has 4"},
		{"empty family", func(p *model.Program) { p.PoolFams[0].Count = 0 },
			"ir: pool_families[0].count: a family has at least one member, not 0"},
		{"member outside its family", func(p *model.Program) { p.Stages[1].Fam = 0 },
			"ir: stages[1].family: family 0 (`s`) has members 0 to 0, not 1"},
		{"pool family out of range", func(p *model.Program) { p.Pools[2].Fam = 3 },
			"ir: pools[2].family: pool family 3 does not exist (the program has 3)"},

		// Stages, engines, pools.
		{"ps without capacity", func(p *model.Program) { p.Stages[1].Phi = nil },
			"ir: stages[1].phi: missing: a ps stage needs its capacity"},
		{"step stage without engine", func(p *model.Program) { p.Stages[3].Engine = -1 },
			"ir: stages[3].engine: engine -1 does not exist (the program has 1)"},
		{"engine on a fifo stage", func(p *model.Program) { p.Stages[0].Engine = 0 },
			"ir: stages[0].engine: a fifo stage has no engine: want -1, not 0"},
		{"engine runs another stage", func(p *model.Program) { p.Engines[0].Stage = 9 },
			"ir: stages[3].engine: engine 0 runs stage 9, not this one"},
		{"shared engine", func(p *model.Program) { p.Stages[3].Shared = true },
			"ir: stages[3].shared: an engine's stage cannot carry flows"},
		{"flows without share", func(p *model.Program) { p.Share = "" },
			"ir: stages[1].shared: a stage carrying flows needs the program's share policy (\"share\" is empty)"},
		{"unknown share", func(p *model.Program) { p.Share = "fair" },
			"ir: share: unknown share policy \"fair\" (want maxmin or bottleneck)"},
		{"admit via a fifo stage", func(p *model.Program) { p.Pools[1].AdmitVia = 0 },
			"ir: pools[1].admit_via: stage 0 (`s`) is a fifo stage, not an engine"},
		{"admit via an engine that does not", func(p *model.Program) { p.Engines[0].Admits = []int{} },
			"ir: pools[1].admit_via: engine 0 (stage `E`) does not admit this pool"},
		{"memory of no stage", func(p *model.Program) { p.Pools[0].MemoryOf = 4 },
			"ir: pools[0].memory_of: stage 4 does not exist (the program has 4)"},
		{"engine memory out of range", func(p *model.Program) { p.Engines[0].Memory = 5; p.Pools[0].MemoryOf = -1 },
			"ir: engines[0].memory: pool 5 does not exist (the program has 3)"},
		{"engine admits a missing pool", func(p *model.Program) { p.Engines[0].Admits = append(p.Engines[0].Admits, 9) },
			"ir: engines[0].admits[1]: pool 9 does not exist (the program has 3)"},
		{"engine admits a settle pool", func(p *model.Program) { p.Engines[0].Admits = append(p.Engines[0].Admits, 2) },
			"ir: engines[0].admits[1]: pool 2 (`slots`) is admitted via stage -1, not this engine's"},
		{"engine without budget", func(p *model.Program) { p.Engines[0].Budget = nil },
			"ir: engines[0].budget: missing expression"},
		{"budget_left in a tokens cap", func(p *model.Program) {
			p.Engines[0].Budget = &model.Expr{Op: model.EBudget, Ref: &model.Ref{Fam: 3}}
		}, "ir: engines[0].budget: budget_left is read in an engine's tokens cap, which budget_left itself evaluates"},
		{"register out of range", func(p *model.Program) { p.Engines[0].Body[2].Value.Args[0].Slot = 1 },
			"ir: engines[0].body[2].value.args[0]: slot 1 is no register of engine 0 (it has 1)"},
		{"schedule sets a missing register", func(p *model.Program) { p.Engines[0].Body[2].Reg = 4 },
			"ir: engines[0].body[2].reg: register 4 does not exist: engine 0 has 1"},
		{"schedule branch without guard", func(p *model.Program) { p.Engines[0].Body[1].Cond = nil },
			"ir: engines[0].body[1].cond: missing expression"},
		{"attribute in a schedule guard", func(p *model.Program) {
			p.Engines[0].Body[1].Then[0].While = &model.Expr{Op: model.EAttr, Slot: 6, Name: "n"}
		}, "ir: engines[0].body[1].then[0].while: attribute 6 (`n`) is read in a schedule's guard, where there is no session"},

		{"spill", func(p *model.Program) { p.Pools[2].Spill = &model.Spill{Tier: 1, Stage: 0, Work: num(1), When: num(1)} }, ""},
		{"spill to a missing pool", func(p *model.Program) { p.Pools[2].Spill = &model.Spill{Tier: 7, Stage: 0, Work: num(1), When: num(1)} },
			"ir: pools[2].spill.tier: pool 7 does not exist (the program has 3)"},
		{"spill into itself", func(p *model.Program) { p.Pools[2].Spill = &model.Spill{Tier: 2, Stage: 0, Work: num(1), When: num(1)} },
			"ir: pools[2].spill.tier: the spill tiers come back to pool 2 (`slots`): evicting into a tier must end"},
		{"spill tiers in a cycle", func(p *model.Program) {
			p.Pools[2].Spill = &model.Spill{Tier: 1, Stage: 0, Work: num(1), When: num(1)}
			p.Pools[1].Spill = &model.Spill{Tier: 2, Stage: 0, Work: num(1), When: num(1)}
		}, "ir: pools[1].spill.tier: the spill tiers come back to pool 1 (`reqs`): evicting into a tier must end"},
		{"spill via an engine", func(p *model.Program) { p.Pools[2].Spill = &model.Spill{Tier: 1, Stage: 3, Work: num(1), When: num(1)} },
			"ir: pools[2].spill.stage: stage 3 (`E`) is an engine: a spill is a job on a fifo, ps or delay stage"},
		{"spill without when", func(p *model.Program) { p.Pools[2].Spill = &model.Spill{Tier: 1, Stage: 0, Work: num(1)} },
			"ir: pools[2].spill.when: missing expression"},

		// Builtins and automatic observes.
		{"builtin past the attributes", func(p *model.Program) { p.Builtin.More = 8 },
			"ir: builtins.more: slot 8 is no attribute (the program has 8)"},
		{"auto observe past the observes", func(p *model.Program) { p.AutoTTFT = 2 },
			"ir: auto_ttft: slot 2 is no observe (the program has 2); -1 means none"},

		// Workload.
		{"no session block", func(p *model.Program) { p.Workload.Session = nil },
			"ir: workload.session: missing block"},
		{"poisson rate 0", func(p *model.Program) { p.Workload.Arg = num(0) },
			"ir: workload.arg: a poisson rate must be positive and finite, not 0"},
		{"poisson rate not constant", func(p *model.Program) { p.Workload.Arg = &model.Expr{Op: model.ENeg, Args: []*model.Expr{num(1)}} },
			"ir: workload.arg: a poisson workload needs a constant, not a \"neg\" expression"},
		{"closed without count", func(p *model.Program) { p.Workload.Arrive, p.Workload.Arg = model.ArriveClosed, nil },
			"ir: workload.arg: missing: a closed workload needs its constant"},
		{"batch of too many", func(p *model.Program) { p.Workload.Arrive, p.Workload.Arg = model.ArriveBatch, num(1e7) },
			"ir: workload.arg: a batch workload takes a whole number of sessions from 1 to 1000000, not 1e+07"},
		{"attribute in a renewal gap", func(p *model.Program) {
			p.Workload.Arrive, p.Workload.Arg = model.ArriveRenewal, &model.Expr{Op: model.EAttr, Slot: 5}
		}, "ir: workload.arg: attribute 5 is read in the arrival process, where there is no session"},
		{"inlined sessions", func(p *model.Program) {
			p.Workload.Ordered, p.Workload.Sessions = true, [][]model.TraceTurn{{{New: 1, Out: 2, Think: 3}}}
		}, ""},
		{"inlined sessions and a trace", func(p *model.Program) {
			p.Workload.Ordered, p.Workload.Trace, p.Workload.Sessions = true, "t.csv", [][]model.TraceTurn{{{New: 1}}}
		}, `ir: workload.sessions: inlined sessions replace the trace: a workload has not both (trace "t.csv")`},
		{"inlined sessions unordered", func(p *model.Program) { p.Workload.Sessions = [][]model.TraceTurn{{{New: 1}}} },
			"ir: workload.sessions: inlined sessions are replayed in order: the workload must be ordered"},
		{"inlined session without turns", func(p *model.Program) {
			p.Workload.Ordered, p.Workload.Sessions = true, [][]model.TraceTurn{{{New: 1}}, {}}
		}, "ir: workload.sessions[1]: a recorded session has at least one turn"},
		{"inlined NaN", func(p *model.Program) {
			p.Workload.Ordered, p.Workload.Sessions = true, [][]model.TraceTurn{{{New: 1}, {Think: model.F64(math.NaN())}}}
		}, "ir: workload.sessions[0][1].think: not a number"},
		{"init sets a missing attribute", func(p *model.Program) { p.Workload.Init.Stmts[0].Slot = -1 },
			"ir: workload.init.stmts[0]: slot -1 is no attribute (the program has 8)"},
		{"distribution arity", func(p *model.Program) {
			d := p.Workload.Turn.Stmts[0].Value.Args[0]
			d.Args = d.Args[:1]
		}, "ir: workload.turn.stmts[0].value.args[0]: distribution uniform takes 2 argument(s), not 1"},

		// Statements.
		{"attribute slot", func(p *model.Program) { p.Server.Stmts[4].Value.Args[1].Slot = 99 },
			"ir: server.stmts[4].value.args[1]: slot 99 is no attribute (the program has 8)"},
		{"observe slot", func(p *model.Program) { p.Server.Stmts[4].Slot = 2 },
			"ir: server.stmts[4]: slot 2 is no observe (the program has 2)"},
		{"operator arity", func(p *model.Program) { v := p.Server.Stmts[4].Value; v.Args = v.Args[:1] },
			"ir: server.stmts[4].value: op \"-\" takes 2 argument(s), not 1"},
		{"missing argument", func(p *model.Program) { p.Server.Stmts[4].Value.Args[0] = nil },
			"ir: server.stmts[4].value.args[0]: missing expression"},
		{"context slot", func(p *model.Program) { p.Server.Stmts[4].Value.Args[0].Slot = int(model.NumCtx) },
			fmt.Sprintf("ir: server.stmts[4].value.args[0]: slot %d is no context variable (there are %d)", model.NumCtx, model.NumCtx)},
		{"register in a statement", func(p *model.Program) { p.Server.Stmts[4].Value.Args[0] = &model.Expr{Op: model.EReg, Name: "r"} },
			"ir: server.stmts[4].value.args[0]: register 0 (`r`) is read in a statement, outside an engine"},
		{"expression op", func(p *model.Program) { p.Server.Stmts[4].Value.Op = 99 },
			"ir: server.stmts[4].value: op 99 is no expression op"},
		{"statement op", func(p *model.Program) { p.Server.Stmts[4].Op = 99 },
			"ir: server.stmts[4].op: op 99 is no statement kind"},
		{"missing statement", func(p *model.Program) { p.Server.Stmts[2] = nil },
			"ir: server.stmts[2]: missing statement"},
		{"run without stages", func(p *model.Program) { p.Server.Stmts[0].Stages = nil },
			"ir: server.stmts[0].stages: missing: a run names at least one stage"},
		{"run without work", func(p *model.Program) { p.Server.Stmts[0].Value = nil },
			"ir: server.stmts[0].value: missing expression"},
		{"run on a missing family", func(p *model.Program) { p.Server.Stmts[0].Stages[0].Fam = 7 },
			"ir: server.stmts[0].stages[0].family: stage family 7 does not exist (the program has 4)"},
		{"flow over a stage that is not shared", func(p *model.Program) { p.Stages[2].Shared = false },
			"ir: server.stmts[1].body.stmts[0].stages[1]: a run over several stages is a flow, but stage 2 (`y`) is not shared"},
		{"flow names a stage twice", func(p *model.Program) { p.Server.Stmts[1].Body.Stmts[0].Stages[1].Fam = 1 },
			"ir: server.stmts[1].body.stmts[0].stages[1]: a flow names stage `x` twice"},
		{"engine run without mode", func(p *model.Program) { p.Server.Stmts[2].Body.Stmts[1].Mode = model.ModeNone },
			"ir: server.stmts[2].body.stmts[1].mode: missing: a run on engine `E` needs mode prefill or decode"},
		{"growing a missing pool family", func(p *model.Program) { p.Server.Stmts[2].Body.Stmts[0].Growing.Fam = 3 },
			"ir: server.stmts[2].body.stmts[0].growing.family: pool family 3 does not exist (the program has 3)"},
		{"constant index past the family", func(p *model.Program) { p.Server.Stmts[0].Stages[0].Index = num(1e300) },
			"ir: server.stmts[0].stages[0].index: index 1e+300 is out of range: family `s` has 1 member(s)"},
		{"hold without pools", func(p *model.Program) { p.Server.Stmts[1].Holds = nil },
			"ir: server.stmts[1].holds: missing: a hold holds at least one pool"},
		{"hold on a missing pool family", func(p *model.Program) { p.Server.Stmts[1].Holds[0].Pool.Fam = 3 },
			"ir: server.stmts[1].holds[0].pool.family: pool family 3 does not exist (the program has 3)"},
		{"hold without units", func(p *model.Program) { p.Server.Stmts[2].Holds[1].Units = nil },
			"ir: server.stmts[2].holds[1].units: missing expression"},
		{"hold without body", func(p *model.Program) { p.Server.Stmts[1].Body = nil },
			"ir: server.stmts[1].body: missing: \"hold\" needs its block"},
		{"lease past the pools", func(p *model.Program) { p.Server.Stmts[1].Lease = 2 },
			"ir: server.stmts[1].lease: lease 2 names no pool of the hold (1 to 1, or 0 for none)"},
		{"lease without duration", func(p *model.Program) { p.Server.Stmts[1].LeaseFor = nil },
			"ir: server.stmts[1].lease_for: missing: a lease needs its duration"},
		{"prefix segment without length", func(p *model.Program) {
			p.Server.Stmts[2].Prefix = []model.Segment{{Key: num(1), Length: num(8)}, {Key: num(2)}}
		}, "ir: server.stmts[2].prefix[1].length: missing expression"},
		{"prefix segment without key", func(p *model.Program) { p.Server.Stmts[2].Prefix = []model.Segment{{Length: num(8)}} },
			"ir: server.stmts[2].prefix[0].key: missing expression"},
		{"cache without length", func(p *model.Program) { p.Server.Stmts[2].Cache = nil },
			"ir: server.stmts[2].cache: missing: a hold with has_cache needs its cache length"},
		{"release without pool", func(p *model.Program) { p.Server.Stmts[3].Pool = nil },
			"ir: server.stmts[3].pool: missing: \"release\" needs its pool"},
		{"branch without body", func(p *model.Program) {
			p.Server.Stmts = append(p.Server.Stmts, &model.Stmt{Op: model.OpBranch, Value: num(1)})
		}, "ir: server.stmts[5].body: missing: \"branch\" needs its block"},
		{"empty loop", func(p *model.Program) {
			p.Server.Stmts = append(p.Server.Stmts, &model.Stmt{Op: model.OpLoop, Body: &model.Block{}})
		}, "ir: server.stmts[5].body.stmts: missing: \"loop\" repeats its block, and an empty one would spin without end"},
		{"empty while", func(p *model.Program) {
			p.Server.Stmts = append(p.Server.Stmts, &model.Stmt{Op: model.OpWhile, Value: num(1), Body: &model.Block{}})
		}, "ir: server.stmts[5].body.stmts: missing: \"while\" repeats its block, and an empty one would spin without end"},
		{"choose without count", func(p *model.Program) {
			p.Server.Stmts = append(p.Server.Stmts, &model.Stmt{Op: model.OpChoose, Slot: 6})
		}, "ir: server.stmts[5].n: missing expression"},

		// Expressions.
		{"function of the wrong kind", func(p *model.Program) { p.Gauges[0].Expr.Fn = model.PUsed },
			"ir: gauges[0].expr: fn \"used\" does not apply to op \"stage\""},
		{"observable without ref", func(p *model.Program) { p.Gauges[0].Expr.Ref = nil },
			"ir: gauges[0].expr.ref: missing: op \"stage\" needs its ref"},
		{"ref on an operator", func(p *model.Program) { p.Server.Stmts[4].Value.Ref = &model.Ref{} },
			"ir: server.stmts[4].value.ref: op \"-\" takes no ref"},
		{"attribute in a gauge", func(p *model.Program) { p.Gauges[0].Expr = &model.Expr{Op: model.EAttr, Slot: 5, Name: "t0"} },
			"ir: gauges[0].expr: attribute 5 (`t0`) is read in a gauge, where there is no session"},
		{"attribute in a claim", func(p *model.Program) { p.Claims[0].Expr.Args[0] = &model.Expr{Op: model.EAttr, Slot: 6, Name: "n"} },
			"ir: claims[0].expr.args[0]: attribute 6 (`n`) is read in a claim's expression, where there is no session"},
		{"observation aggregate slot", func(p *model.Program) {
			p.Claims[0].Expr.Args[0] = &model.Expr{Op: model.EObsAgg, Fn: model.CTotal, Slot: 7}
		}, "ir: claims[0].expr.args[0]: slot 7 is no observe (the program has 2)"},
		{"budget_left of a fifo stage", func(p *model.Program) {
			p.Server.Stmts[4].Value = &model.Expr{Op: model.EBudget, Ref: &model.Ref{Fam: 0}}
		}, "ir: server.stmts[4].value.ref.family: budget_left reads an engine, and `s` is a fifo stage"},

		// Claims, queues, relations.
		{"iteration claim of a fifo stage", func(p *model.Program) { p.Claims[0].Stage = 0 },
			"ir: claims[0].stage: stage 0 (`s`) is a fifo stage, not an engine"},
		{"unknown claim kind", func(p *model.Program) { p.Claims[0].Kind = "always" },
			"ir: claims[0].kind: unknown claim kind \"always\" (want every_iteration, some_iteration or at_end)"},
		{"queue on a missing stage family", func(p *model.Program) { p.Queues = []model.Queue{{Name: "q", Stage: 9, Nic: -1, Leases: -1}} },
			"ir: queues[0].stage: stage family 9 does not exist (the program has 4)"},
		{"queue larger than its stage", func(p *model.Program) { p.Queues = []model.Queue{{Name: "q", Count: 2, Stage: 0, Nic: -1, Leases: -1}} },
			"ir: queues[0].stage: family 0 (`s`) has 1 member(s), and queue `q` 2"},
		{"queue twice", func(p *model.Program) {
			p.Queues = []model.Queue{{Name: "q", Count: 1, Stage: -1, Nic: -1, Leases: -1}, {Name: "q", Count: 1, Stage: -1, Nic: -1, Leases: -1}}
		}, "ir: queues[1].name: queue `q` is also queues[0]"},
		{"relation on a missing stage family", func(p *model.Program) { p.Relations = []model.Relation{{Stage: 4}} },
			"ir: relations[0].latency_stage: stage family 4 does not exist (the program has 4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := loadBase(t)
			tt.edit(p)
			err := p.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzValidate reads arbitrary bytes as IR: reading and validating never
// panic, and a program that validates prints, reads back and validates the
// same. The end-to-end fuzz, which also runs what validates, is
// interp's FuzzIR.
func FuzzValidate(f *testing.F) {
	p, err := lang.LoadSource("base.sq", []byte(base), lang.Options{Lib: lib.FS})
	if err != nil {
		f.Fatal(err)
	}
	b, _ := json.Marshal(p)
	f.Add(b)
	f.Add([]byte(`{"workload":{"init":{"stmts":[]},"turn":{"stmts":[]},"session":{"stmts":[{"op":"turn"}]}}}`))
	for _, src := range testutil.HostileSeeds() {
		if p, err := lang.LoadSource("hostile.sq", src, lang.Options{}); err == nil {
			b, _ := json.Marshal(p)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p model.Program
		if json.Unmarshal(data, &p) != nil || p.Validate() != nil {
			return
		}
		first, err := json.Marshal(&p)
		if err != nil {
			t.Fatalf("a valid program does not print: %v", err)
		}
		var q model.Program
		if err := json.Unmarshal(first, &q); err != nil {
			t.Fatalf("a valid program does not read back: %v", err)
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("a valid program read back does not validate: %v", err)
		}
		if second, _ := json.Marshal(&q); !bytes.Equal(first, second) {
			t.Fatalf("a valid program read back prints differently:\n%s\n%s", first, second)
		}
	})
}
