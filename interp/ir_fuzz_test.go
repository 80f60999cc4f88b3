package interp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/serq/serq/draw"
	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// irSeed is testutil.RichProgram, for the IR fuzz to start from.
var irSeed = testutil.RichProgram

// irFuzzSteps bounds the events of one fuzzed run.
const irFuzzSteps = 20000

// irSeeds are the JSON of irSeed and of every example.
func irSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	add := func(p *model.Program) {
		b, err := json.Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	p, err := lang.LoadSource("seed.sq", []byte(irSeed), lang.Options{Lib: lib.FS})
	if err != nil {
		f.Fatal(err)
	}
	add(p)
	// spill, and an ordered trace inlined as explicit sessions
	p, err = lang.LoadSource("spill.sq", []byte(testutil.SpillProgram), lang.Options{Lib: lib.FS})
	if err != nil {
		f.Fatal(err)
	}
	add(p)
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trace.csv"), []byte(testutil.TraceCSV), 0o644); err != nil {
		f.Fatal(err)
	}
	p, err = lang.LoadSource(filepath.Join(dir, "trace.sq"), []byte(testutil.TraceProgram), lang.Options{Lib: lib.FS})
	if err == nil {
		err = interp.InlineTrace(p, interp.TraceKind.Opener())
	}
	if err != nil {
		f.Fatal(err)
	}
	add(p)
	for _, path := range testutil.Examples(f, "../examples") {
		p, err := lang.Load(path, lang.Options{Lib: lib.FS})
		if err != nil {
			f.Fatal(err)
		}
		add(p)
	}
	// Deep nesting and wide defs just inside the loader's limits.
	for _, src := range testutil.HostileSeeds() {
		if p, err := lang.LoadSource("hostile.sq", src, lang.Options{}); err == nil {
			add(p)
		}
	}
	return seeds
}

// runIR reads data as IR, as `serq run FILE.json` does: what does not
// read or validate is refused, and what validates runs to horizon 10 (at
// most irFuzzSteps events), reports, snapshots and draws without a panic.
// A run may fail with a RunError: the IR is sound, the program is not.
func runIR(data []byte) {
	var p model.Program
	if json.Unmarshal(data, &p) != nil || p.Validate() != nil {
		return
	}
	// A trace is a file outside the IR: a fuzzed path could name anything
	// on the machine.
	p.Workload.Trace = ""
	_ = draw.SVG(&p)
	_ = draw.Text(&p, 100, nil)
	sim, err := interp.New(&p, interp.Options{Horizon: 10, Seed: 1})
	if err != nil {
		return
	}
	sim.SetTracer(func(interp.TraceEvent) {})
	for n := 0; n < irFuzzSteps && sim.Step(); n++ {
		if n%1000 == 0 {
			_ = sim.Snapshot()
		}
	}
	_ = sim.Snapshot()
	_ = sim.Report()
	if err := sim.Err(); err != nil && strings.Contains(err.Error(), "internal error") {
		if re, ok := err.(*interp.RunError); ok && os.Getenv("SERQ_STACK") != "" {
			os.Stderr.Write(re.Stack)
		}
		panic(err) // the interpreter's recover must not hide a broken invariant from the fuzzer
	}
}

// FuzzIR feeds arbitrary bytes to runIR, starting from the seeds' JSON.
//
//	go test ./interp -run '^$' -fuzz '^FuzzIR$' -fuzztime 2m -fuzzminimizetime 5s
func FuzzIR(f *testing.F) {
	for _, b := range irSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { runIR(data) })
}

// FuzzIREdits edits a seed's JSON tree and feeds the result to runIR, so
// that the fuzz spends its time on IR that parses: each 4 bytes of edits
// pick a value of the tree (2 bytes), an edit (1 byte) and an argument (1
// byte). The edits are those of a careless hand: a number or a name
// replaced, a value moved elsewhere, an element or a field deleted or
// duplicated, a null.
//
//	go test ./interp -run '^$' -fuzz FuzzIREdits -fuzztime 2m -fuzzminimizetime 5s
func FuzzIREdits(f *testing.F) {
	seeds := irSeeds(f)
	for i := range seeds {
		f.Add(uint8(i), []byte{})
	}
	f.Add(uint8(0), []byte{0, 40, 0, 7, 1, 3, 1, 200})
	f.Fuzz(func(t *testing.T, which uint8, edits []byte) {
		var tree any
		if err := json.Unmarshal(seeds[int(which)%len(seeds)], &tree); err != nil {
			t.Fatal(err)
		}
		root := &jsonSlot{get: func() any { return tree }, set: func(v any) { tree = v }}
		for ; len(edits) >= 4; edits = edits[4:] {
			slots := jsonSlots(root, nil)
			s := slots[(int(edits[0])<<8|int(edits[1]))%len(slots)]
			arg := int(edits[3])
			switch edits[2] % 6 {
			case 0:
				s.set(editNumbers[arg%len(editNumbers)])
			case 1:
				s.set(deepCopy(slots[arg*len(slots)/256].get()))
			case 2:
				if s.del != nil {
					s.del()
				}
			case 3:
				s.set(nil)
			case 4:
				s.set(editNames[arg%len(editNames)])
			case 5:
				if s.dup != nil {
					s.dup()
				}
			}
		}
		data, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		runIR(data)
	})
}

// editNumbers are the numbers an edit writes: indices at and past the
// ends of small lists, and the numbers that break arithmetic.
var editNumbers = []any{-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 8.0, 16.0, 25.0, 26.0, 99.0, 1e6, 1e7, 0.5, -0.5, 1e-300, 1e300, "inf", "-inf", "NaN"}

// editNames are the names an edit writes: every enum's, and the claims'
// and the share's words.
var editNames = []any{"fifo", "ps", "delay", "step", "none", "lifo", "by", "vllm", "exclusive_prefill", "body",
	"advance", "admit", "branch", "set", "poisson", "renewal", "closed", "batch",
	"observe", "hold", "grow", "drop", "release", "load", "run", "while", "loop", "choose", "end", "turn", "fork", "join",
	"prefill", "decode", "", "num", "attr", "ctx", "reg", "neg", "not", "+", "-", "*", "/", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||", "?:",
	"func", "draw", "stage", "pool", "budget_left", "observations",
	"min", "max", "abs", "floor", "ceil", "sqrt", "exp", "ln", "pow", "det", "uniform", "erlang", "h2", "bernoulli",
	"queue", "busy", "work", "est_lambda", "est_rho", "est_wait", "used", "free", "cachedin", "holders", "queued",
	"total", "count", "largest", "smallest", "prefix_total",
	"every_iteration", "some_iteration", "at_end", "maxmin", "bottleneck", "pull", "push"}

// jsonSlot is a place in a JSON tree: its value can be read and replaced,
// and, in an object or an array, deleted or duplicated.
type jsonSlot struct {
	get      func() any
	set      func(any)
	del, dup func()
}

// jsonSlots lists s and every place under it, objects' keys in order.
func jsonSlots(s *jsonSlot, out []*jsonSlot) []*jsonSlot {
	out = append(out, s)
	switch v := s.get().(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = jsonSlots(&jsonSlot{
				get: func() any { return v[k] },
				set: func(x any) { v[k] = x },
				del: func() { delete(v, k) },
			}, out)
		}
	case []any:
		for i := range v {
			out = jsonSlots(&jsonSlot{
				get: func() any { return v[i] },
				set: func(x any) { v[i] = x },
				del: func() { s.set(slices.Delete(slices.Clone(v), i, i+1)) },
				dup: func() { s.set(slices.Insert(slices.Clone(v), i, deepCopy(v[i]))) },
			}, out)
		}
	}
	return out
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = deepCopy(x)
		}
		return s
	}
	return v
}
