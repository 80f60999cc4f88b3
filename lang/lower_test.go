package lang

import (
	"encoding/json"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// repoRoot is the repository's root: tests run in lang/.
var repoRoot, _ = filepath.Abs("..")

// seed is the seed program, relative to the repository root: the path
// `serq ir` is given in the README's commands.
const seed = "examples/pd-disaggregation/llmd_nixl_pull.sq"

// loadSeed loads the seed program the way `serq ir` does when run from the
// repository root, so that the positions in the IR name the same files.
func loadSeed(t *testing.T, sets ...Override) *model.Program {
	t.Helper()
	t.Chdir(repoRoot)
	p, err := Load(seed, Options{Lib: lib.FS, Sets: sets})
	if err != nil {
		t.Fatalf("Load(%s): %v", seed, err)
	}
	return p
}

// TestSeedIRGolden compares `serq ir`'s JSON of the seed program with
// testdata/llmd_nixl_pull.ir.golden.
func TestSeedIRGolden(t *testing.T) {
	file, err := filepath.Abs(filepath.Join("testdata", "llmd_nixl_pull.ir.golden"))
	if err != nil {
		t.Fatal(err)
	}
	p := loadSeed(t)
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, file, append(b, '\n'))
}

// TestSeedTransfer checks the lowering of the remote decode entry's
// `transfer (prompt - c) from P to kv (prompt - 1 - c)` under
// `D pull P latency x0`: the poster's latency, the flow over both NICs, the
// load of the decoder's KV and the release of the prefiller's lease, in
// this order and nothing between them.
func TestSeedTransfer(t *testing.T) {
	p := loadSeed(t)
	block, i := findStmt(p.Server, func(s *model.Stmt) bool {
		return s.Op == model.OpRun && p.StageFams[s.Stages[0].Fam].Name == "D.nic.latency"
	})
	if block == nil {
		t.Fatal("no run on D.nic.latency in the server")
	}
	var got []string
	for _, s := range block.Stmts[i : i+5] {
		got = append(got, stmtString(p, s))
	}
	want := []string{
		"run D.nic.latency[j] (0.002)",
		"run P.nic[i], D.nic[j] ((prompt - D.c))",
		"load D.kv[j] (((prompt - 1) - D.c))",
		"release P.kv[i]",
		"set D.read_done = now", // mark read_done
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the remote decode's transfer (-want +got):\n%s", diff)
	}
	// The flow's stages are shared (max-min), the latency stage is not.
	for _, name := range []string{"P.nic", "D.nic"} {
		if st := p.Stages[p.StageFams[stageFam(t, p, name)].First]; !st.Shared || st.Kind != model.PS {
			t.Errorf("stage %s: Shared %v, Kind %v; want a shared ps stage", name, st.Shared, st.Kind)
		}
	}
	if st := p.Stages[p.StageFams[stageFam(t, p, "D.nic.latency")].First]; st.Shared || st.Kind != model.Delay {
		t.Errorf("stage D.nic.latency: Shared %v, Kind %v; want an unshared delay stage", st.Shared, st.Kind)
	}
	if p.Share != "maxmin" {
		t.Errorf("Share = %q, want maxmin", p.Share)
	}
	wantRel := []model.Relation{{Kind: "pull", Reader: "D", Source: "P", Latency: 0.002, Stage: stageFam(t, p, "D.nic.latency")}}
	if diff := cmp.Diff(wantRel, p.Relations); diff != "" {
		t.Errorf("Relations (-want +got):\n%s", diff)
	}
}

// TestSeedAutoObserves checks the automatic `ttft` and `response` of
// docs/semantics.md ("Requests and their automatic observes"): the seed observes neither itself.
func TestSeedAutoObserves(t *testing.T) {
	p := loadSeed(t)
	for _, o := range []struct {
		name string
		slot int
	}{{"ttft", p.AutoTTFT}, {"response", p.AutoResponse}} {
		if o.slot < 0 || o.slot >= len(p.Observes) || p.Observes[o.slot] != o.name {
			t.Errorf("automatic %s: slot %d of %q", o.name, o.slot, p.Observes)
		}
	}
	want := []string{"too_long", "remote_tokens", "lease", "local_tokens", "remote", "ttft", "response"}
	if diff := cmp.Diff(want, p.Observes); diff != "" {
		t.Errorf("Observes (-want +got):\n%s", diff)
	}
}

// TestSeedInputs checks that `--set` and `-- --name value` bind the seed's
// inputs, and what they change.
func TestSeedInputs(t *testing.T) {
	def := loadSeed(t)
	if got := inputs(def); got != "blocksD=10000 thr=512 Lambda=0.6" {
		t.Errorf("default inputs: %s", got)
	}
	if got := poolCaps(def, "D.kv"); got != "160000 160000" {
		t.Errorf("default D.kv caps: %s", got)
	}
	if got := remoteTest(t, def); got != "((prompt >= 0) && ((prompt - hitD) >= 512))" {
		t.Errorf("default decider: %s", got)
	}

	// --set thr=1: the guide's always-disagg decider.
	p := loadSeed(t, Override{Name: "thr", Expr: "1"})
	if got := inputs(p); got != "blocksD=10000 thr=1 Lambda=0.6" {
		t.Errorf("--set thr=1: inputs %s", got)
	}
	if got := remoteTest(t, p); got != "((prompt >= 0) && ((prompt - hitD) >= 1))" {
		t.Errorf("--set thr=1: decider %s", got)
	}

	// -- --blocksD 1200: the decoder's KV shrinks to 1200 blocks of 16.
	p = loadSeed(t, Override{Name: "blocksD", Expr: "1200"})
	if got := poolCaps(p, "D.kv"); got != "19200 19200" {
		t.Errorf("-- --blocksD 1200: D.kv caps %s", got)
	}
	if got := poolCaps(p, "P.kv"); got != "160000 160000" {
		t.Errorf("-- --blocksD 1200: P.kv caps %s", got)
	}
	// A constant expression, later overrides winning.
	p = loadSeed(t, Override{Name: "Lambda", Expr: "2 * 0.5"}, Override{Name: "Lambda", Expr: "0.25"})
	if got := inputs(p); got != "blocksD=10000 thr=512 Lambda=0.25" {
		t.Errorf("Lambda twice: inputs %s", got)
	}
	if got := exprString(p, p.Workload.Arg); got != "0.25" {
		t.Errorf("Lambda twice: poisson rate %s", got)
	}
}

// TestSeedInputErrors checks the overrides the seed refuses.
func TestSeedInputErrors(t *testing.T) {
	t.Chdir(repoRoot)
	tests := []struct {
		set  Override
		want string
	}{
		{Override{Name: "bs", Expr: "8"}, "examples/pd-disaggregation/llmd_nixl_pull.sq:32:5: `bs` is a plain `let` and cannot be set from outside; declare it with `args.number(\"bs\", …)`"},
		{Override{Name: "nope", Expr: "1"}, "examples/pd-disaggregation/llmd_nixl_pull.sq:0:0: unknown input `nope`; the program's inputs are blocksD, thr, Lambda"},
		{Override{Name: "thr", Expr: "0/0"}, "examples/pd-disaggregation/llmd_nixl_pull.sq:0:0: input \"thr\": \"0/0\" is NaN"},
		{Override{Name: "thr", Expr: "now"}, "--set thr:1:1: `now` cannot be read in a constant"},
	}
	for _, tt := range tests {
		_, err := Load(seed, Options{Lib: lib.FS, Sets: []Override{tt.set}})
		if err == nil || err.Error() != tt.want {
			t.Errorf("--set %s=%s: %v\nwant %s", tt.set.Name, tt.set.Expr, err, tt.want)
		}
	}
}

// TestTransferSugar is T11 of the reference's P/D behaviours (docs/validation.md): `transfer (1) from memP to memD
// (9)` lowers to exactly `run link (1); load memD (9); release memP;`.
func TestTransferSugar(t *testing.T) {
	const prog = `fn main() {
  pool memP { cap 10; }
  pool memD { cap 10; }
  stage link : delay;
  server {
    hold memP (cost(memP, 10)) {
      hold memD (cost(memD, 10)) {
        %s
      }
    }
  }
}
`
	body := func(stmts string) string {
		p, err := LoadSource("t11.sq", []byte(strings.Replace(prog, "%s", stmts, 1)), Options{ReadFile: noFiles})
		if err != nil {
			t.Fatalf("%s: %v", stmts, err)
		}
		inner := p.Server.Stmts[0].Body.Stmts[0].Body
		clearPos(inner)
		b, err := json.Marshal(inner)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sugar := body("transfer (1) from memP to memD (9);")
	kernel := body("run link (cost(link, 1)); load memD (cost(memD, 9)); release memP;")
	if sugar != kernel {
		t.Errorf("transfer lowers to\n%s\nwant\n%s", sugar, kernel)
	}
	if strings.Count(sugar, `"op":"`) < 3 {
		t.Errorf("transfer lowers to too little: %s", sugar)
	}
}

// TestSeedCheckSummary pins the numbers `serq check` prints for the seed.
func TestSeedCheckSummary(t *testing.T) {
	p := loadSeed(t)
	got := strconv.Itoa(len(p.Pools)) + " pools, " + strconv.Itoa(len(p.Stages)) + " stages, " +
		strconv.Itoa(len(p.Attrs)) + " attributes, " + strconv.Itoa(p.Blocks) + " blocks"
	if want := "8 pools, 11 stages, 21 attributes, 17 blocks"; got != want {
		t.Errorf("seed: %s, want %s", got, want)
	}
}

func clearPos(b *model.Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		s.Pos = model.Pos{}
		clearPos(s.Body)
		clearPos(s.Else)
	}
}

// findStmt finds the first statement, depth first, that f accepts, and
// returns its block and index.
func findStmt(b *model.Block, f func(*model.Stmt) bool) (*model.Block, int) {
	if b == nil {
		return nil, 0
	}
	for i, s := range b.Stmts {
		if f(s) {
			return b, i
		}
		if fb, fi := findStmt(s.Body, f); fb != nil {
			return fb, fi
		}
		if fb, fi := findStmt(s.Else, f); fb != nil {
			return fb, fi
		}
	}
	return nil, 0
}

func stageFam(t *testing.T, p *model.Program, name string) int {
	t.Helper()
	for i, f := range p.StageFams {
		if f.Name == name {
			return i
		}
	}
	t.Fatalf("no stage family %s", name)
	return -1
}

func inputs(p *model.Program) string {
	var s []string
	for _, in := range p.Inputs {
		s = append(s, in.Name+"="+strconv.FormatFloat(float64(in.Value), 'g', -1, 64))
	}
	return strings.Join(s, " ")
}

func poolCaps(p *model.Program, name string) string {
	var s []string
	for _, pl := range p.Pools {
		if pl.Name == name {
			s = append(s, strconv.FormatFloat(float64(pl.Cap), 'g', -1, 64))
		}
	}
	return strings.Join(s, " ")
}

// remoteTest is the value the gateway's decider sets remote_prefill to.
func remoteTest(t *testing.T, p *model.Program) string {
	t.Helper()
	b, i := findStmt(p.Server, func(s *model.Stmt) bool {
		return s.Op == model.OpSet && p.Attrs[s.Slot].Name == "remote_prefill"
	})
	if b == nil {
		t.Fatal("no set of remote_prefill")
	}
	return exprString(p, b.Stmts[i].Value)
}

// stmtString renders the statements the tests look at, compactly.
func stmtString(p *model.Program, s *model.Stmt) string {
	switch s.Op {
	case model.OpRun:
		var stages []string
		for _, r := range s.Stages {
			stages = append(stages, refString(p, p.StageFams, r))
		}
		return "run " + strings.Join(stages, ", ") + " (" + exprString(p, s.Value) + ")"
	case model.OpLoad, model.OpGrow:
		return s.Op.String() + " " + refString(p, p.PoolFams, *s.Pool) + " (" + exprString(p, s.Value) + ")"
	case model.OpRelease, model.OpDrop:
		return s.Op.String() + " " + refString(p, p.PoolFams, *s.Pool)
	case model.OpSet:
		return "set " + p.Attrs[s.Slot].Name + " = " + exprString(p, s.Value)
	}
	return s.Op.String() + " …"
}

func refString(p *model.Program, fams []model.Family, r model.Ref) string {
	s := fams[r.Fam].Name
	if r.Index != nil {
		s += "[" + exprString(p, r.Index) + "]"
	}
	return s
}

// exprString renders a lowered expression, each operation parenthesised.
func exprString(p *model.Program, e *model.Expr) string {
	args := func() []string {
		var a []string
		for _, x := range e.Args {
			a = append(a, exprString(p, x))
		}
		return a
	}
	switch e.Op {
	case model.ENum:
		return fmtNum(e.Num)
	case model.EAttr:
		return p.Attrs[e.Slot].Name
	case model.ECtx:
		return model.Ctx(e.Slot).String()
	case model.EReg:
		return "reg " + e.Name
	case model.ENeg:
		return "(-" + args()[0] + ")"
	case model.ENot:
		return "(!" + args()[0] + ")"
	case model.ECond:
		a := args()
		return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")"
	case model.EFunc:
		return e.Fn.String() + "(" + strings.Join(args(), ", ") + ")"
	case model.EDraw:
		return "~" + e.Fn.String() + "(" + strings.Join(args(), ", ") + ")"
	case model.EStage:
		return e.Fn.String() + "(" + refString(p, p.StageFams, *e.Ref) + ")"
	case model.EPool:
		return e.Fn.String() + "(" + refString(p, p.PoolFams, *e.Ref) + ")"
	case model.EBudget:
		return "budget_left(" + refString(p, p.StageFams, *e.Ref) + ")"
	}
	a := args()
	return "(" + a[0] + " " + e.Op.String() + " " + a[1] + ")"
}

// TestCostFamilies checks that `cost(R, …)` names a family: an array needs
// no index there, and an index written is checked but not kept.
func TestCostFamilies(t *testing.T) {
	const prog = "fn main() {\n  stage s[2] : delay;\n  pool kv[2] { cap 10; }\n  server { hold kv[0] (cost(kv, 1)) { run s[1] (cost(s[%s], 2)); } }\n}\n"
	p, err := LoadSource("c.sq", []byte(strings.Replace(prog, "%s", "0", 1)), Options{ReadFile: noFiles})
	if err != nil {
		t.Fatal(err)
	}
	hold := p.Server.Stmts[0]
	if got := exprString(p, hold.Holds[0].Units) + " " + stmtString(p, hold.Body.Stmts[0]); got != "1 run s[1] (2)" {
		t.Errorf("lowered %q, want %q", got, "1 run s[1] (2)")
	}
	_, err = LoadSource("c.sq", []byte(strings.Replace(prog, "%s", "2", 1)), Options{ReadFile: noFiles})
	if want := "c.sq:4:56: index 2 of `s` is out of range: it has 2 members"; err == nil || err.Error() != want {
		t.Errorf("cost(s[2], 2): %v, want %s", err, want)
	}
}

// TestScheduleLetReadsEarlierLet lowers a schedule whose second `let`
// reads the first, the reference's pattern for vLLM's adaptive long-prefill
// threshold (vllm/config/scheduler.py: max_num_partial_prefills above 1
// sets long_prefill_token_threshold to 4 % of max_model_len): the cap is
// the second let's value.
func TestScheduleLetReadsEarlierLet(t *testing.T) {
	const prog = `let max_model_len = 16384;
fn main() {
  device gpu { }
  engine llm on gpu {
    tokens cap 512;
    schedule {
      let n = %s;
      let c = n > 1 ? floor(max_model_len * 0.04) : inf;
      advance running each at most (c);
      admit waiting while (running.preempted == 0) each at most (c);
    }
    execute (1e-3);
  }
  workload { arrive poisson(1); }
  server { run llm prefill (cost(llm, 100)); }
}
`
	for n, want := range map[string]float64{"2": 655, "1": math.Inf(1)} {
		p, err := LoadSource("lets.sq", []byte(strings.Replace(prog, "%s", n, 1)), Options{ReadFile: noFiles})
		if err != nil {
			t.Fatalf("n = %s: %v", n, err)
		}
		if got, ok := p.Engines[0].Chunk.IsConst(); !ok || got != want {
			t.Errorf("n = %s: the cap is %v (constant %v), want %v", n, p.Engines[0].Chunk, ok, want)
		}
	}
}

// TestDevicePoolBeforeItsEngine: a pool on a device is its engine's
// memory whether it is declared before the engine or after it (the
// reference's target.rs declares it before).
func TestDevicePoolBeforeItsEngine(t *testing.T) {
	const engine = "engine llm on gpu { reqs cap 4; tokens cap 64; schedule { advance running; admit waiting while (running.preempted == 0); } execute (1); }\n"
	const pool = "pool kv on gpu { block 16; }\n"
	for name, decls := range map[string]string{"after": engine + pool, "before": pool + engine} {
		src := "fn main() {\ndevice gpu { kv cap 160; }\n" + decls + `pool reqs on llm { }
workload { arrive batch(1); }
server { hold reqs (cost(reqs, 1)), kv (cost(kv, 8)) { run llm prefill (cost(llm, 8)) growing kv; } }
}
`
		p, err := LoadSource("mem.sq", []byte(src), Options{ReadFile: noFiles})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kv := p.Pools[p.PoolFams[0].First]
		if kv.Name != "kv" || kv.MemoryOf != p.StageFams[0].First || p.Engines[0].Memory != p.PoolFams[0].First {
			t.Errorf("%s: pool %s is the memory of stage %d, the engine's memory is pool %d; want kv, stage %d, pool %d",
				name, kv.Name, kv.MemoryOf, p.Engines[0].Memory, p.StageFams[0].First, p.PoolFams[0].First)
		}
	}
	// a second pool on the device, before the engine, is refused as after it
	_, err := LoadSource("mem.sq", []byte("fn main() {\ndevice gpu { kv cap 160; kv2 cap 10; }\npool kv on gpu { }\npool kv2 on gpu { }\n"+engine+"pool reqs on llm { }\nworkload { arrive batch(1); }\nserver { hold reqs (cost(reqs, 1)) { run llm prefill (cost(llm, 8)); } }\n}\n"), Options{ReadFile: noFiles})
	if want := "mem.sq:4:1: engine `llm` has a memory pool already: which is its KV would be a choice"; err == nil || err.Error() != want {
		t.Errorf("two pools before the engine: %v, want %q", err, want)
	}
}

// TestCallStack checks the inlined calls a statement of the seed program
// came from: the decode entry's run, called from the gateway's route,
// called from the server; the server's own statements came from none.
func TestCallStack(t *testing.T) {
	p := loadSeed(t)
	stacks := map[string]bool{}
	p.Walk(func(st *model.Stmt) {
		var s []string
		for _, c := range p.CallStack(st.Call) {
			s = append(s, c.Name+"@"+strconv.Itoa(c.Pos.Line))
		}
		stacks[strings.Join(s, " < ")] = true
	})
	for _, want := range []string{"", "gw.route@209", "D.decode@70 < gw.route@209", "P.prefill@68 < gw.route@209", "D.decode@73 < gw.route@209"} {
		if !stacks[want] {
			t.Errorf("no statement came from %q; the stacks are %q", want, slices.Sorted(maps.Keys(stacks)))
		}
	}
}
