package tui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// A tour is bound to the run it was made on: its moments (an event
// number, a condition first true, a session followed) are that run's. A
// tour names the run (RunID) and is refused against a run that differs
// (another program, its inputs bound otherwise, another seed, warm-up or
// arrivals), and played with a warning against another version of the
// same program's text.

// RunID names a run: the program and a hash of its text, the instance
// files that bound it, the inputs bound to a value other than their
// default, and the settings.
type RunID struct {
	Program   string   // the program's file name
	Hash      string   // "sha256:" and the hex of the program's text (ProgramHash)
	Instances []string // the --instance files, as given
	Args      []Arg    // the inputs not at their default, in the program's order
	Seed      uint64
	Warmup    float64
	Horizon   float64
	Arrivals  uint64 // 0: no limit
}

// Arg is an input bound.
type Arg struct {
	Name  string
	Value float64
}

// ProgramHash is the hash a RunID names a program's text by.
func ProgramHash(src []byte) string {
	sum := sha256.Sum256(src)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ArgsOf are a program's inputs bound to a value other than their
// default.
func ArgsOf(p *model.Program) []Arg {
	var out []Arg
	for _, in := range p.Inputs {
		if in.Value != in.Default {
			out = append(out, Arg{Name: in.Name, Value: float64(in.Value)})
		}
	}
	return out
}

// yaml is the run as a tour writes it.
func (r RunID) yaml() string {
	if r.Program == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("run:\n")
	fmt.Fprintf(&b, "  program: %s\n", strconv.Quote(r.Program))
	if r.Hash != "" {
		fmt.Fprintf(&b, "  hash: %s\n", r.Hash)
	}
	if len(r.Instances) > 0 {
		var q []string
		for _, in := range r.Instances {
			q = append(q, strconv.Quote(in))
		}
		fmt.Fprintf(&b, "  instance: [%s]\n", strings.Join(q, ", "))
	}
	if len(r.Args) > 0 {
		var a []string
		for _, x := range r.Args {
			a = append(a, x.Name+": "+num(x.Value))
		}
		fmt.Fprintf(&b, "  args: {%s}\n", strings.Join(a, ", "))
	}
	fmt.Fprintf(&b, "  seed: %d\n  warmup: %s\n  horizon: %s\n", r.Seed, num(r.Warmup), num(r.Horizon))
	if r.Arrivals > 0 {
		fmt.Fprintf(&b, "  arrivals: %d\n", r.Arrivals)
	}
	return b.String()
}

var runKeys = []string{"program", "hash", "instance", "args", "seed", "warmup", "horizon", "arrivals"}

// run reads a tour's `run:` block.
func (tp *tourParser) run(n ast.Node) (*RunID, error) {
	kvs, ok := mapping(n)
	if !ok {
		return nil, tp.errAt(n.GetToken(), "`run:` then program, hash, instance, args, seed, warmup and horizon indented under it", "`run` must be a mapping")
	}
	r := &RunID{}
	for _, kv := range kvs {
		k := keyText(kv)
		var err error
		switch k {
		case "program":
			r.Program, err = tp.str(kv.Value, k)
			r.Program = safeio.PrintableLine(r.Program)
		case "hash":
			r.Hash, err = tp.str(kv.Value, k)
			r.Hash = safeio.PrintableLine(r.Hash)
		case "instance":
			if seq, ok := kv.Value.(*ast.SequenceNode); ok {
				for _, v := range seq.Values {
					s, err := tp.str(v, k)
					if err != nil {
						return nil, err
					}
					r.Instances = append(r.Instances, safeio.PrintableLine(s))
				}
			} else {
				var s string
				s, err = tp.str(kv.Value, k)
				r.Instances = []string{safeio.PrintableLine(s)}
			}
		case "args":
			args, ok := mapping(kv.Value)
			if !ok {
				return nil, tp.errAt(kv.Value.GetToken(), "the inputs and their values: args: {Lambda: 1.2}", "`args` must be a mapping")
			}
			for _, a := range args {
				v, err := tp.number(a.Value, keyText(a))
				if err != nil {
					return nil, err
				}
				r.Args = append(r.Args, Arg{Name: safeio.PrintableLine(keyText(a)), Value: v})
			}
		case "seed", "arrivals":
			var v float64
			if v, err = tp.number(kv.Value, k); err == nil && (v < 0 || v != math.Trunc(v) || v >= 1<<63) {
				err = tp.errAt(kv.Value.GetToken(), "a whole number ≥ 0", "`%s` must be a whole number", k)
			}
			if k == "seed" {
				r.Seed = uint64(v)
			} else {
				r.Arrivals = uint64(v)
			}
		case "warmup":
			r.Warmup, err = tp.number(kv.Value, k)
		case "horizon":
			r.Horizon, err = tp.number(kv.Value, k)
		default:
			return nil, tp.errAt(kv.Key.GetToken(), "a run takes "+strings.Join(runKeys, ", ")+suggest(k, runKeys), "unknown key `%s`", k)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// trends reads a stop's Trends rows.
func (tp *tourParser) trends(s *Stop, n ast.Node) error {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return tp.errAt(n.GetToken(), "a list of Trends rows, quoted, e.g. [\"P.kv[0] leased\", \"D[0] waiting\"]", "`trends` must be a list of rows")
	}
	names := newGaugesPane(DefaultStyles(), tp.prog, 0).rowNames()
	s.Trends = []string{}
	for _, v := range seq.Values {
		name, err := tp.str(v, "trends")
		if err != nil {
			return err
		}
		found := false
		for _, r := range names {
			found = found || r == name
		}
		if !found {
			return tp.errAt(v.GetToken(), "rows: "+strings.Join(names, ", ")+suggest(name, names), "no Trends row `%s`", name)
		}
		s.Trends = append(s.Trends, name)
	}
	return nil
}

// Check checks the tour against the run it is played on, and is an error
// at the tour's `run:` (a *lang.Error, the differences in words, with the
// flags that make the run it names) when the program is another, or its
// inputs, seed, warm-up or arrivals differ. It sets Warning when the tour
// names no run, the program's text differs from the tour's, or the run
// ends at another horizon (run.Horizon 0: none given).
func (t *Tour) Check(run RunID, p *model.Program) error {
	if t.Run == nil {
		t.Warning = "this tour names no run (no `run:`): its stops may not be where their captions say"
		return nil
	}
	tr := t.Run
	bad := func(msg, hint string) error {
		pos := t.runPos
		if pos.File == "" {
			pos = model.Pos{File: t.File, Line: 1, Col: 1}
		}
		return lang.ErrorList{&lang.Error{Pos: pos, Msg: msg, Hint: hint}}
	}
	if tr.Program != "" && filepath.Base(tr.Program) != filepath.Base(run.Program) {
		return bad(fmt.Sprintf("the tour was made on %s; this run is of %s", tr.Program, run.Program),
			"play it on "+tr.Program+tr.flags())
	}
	var diffs []string
	defaults := map[string]float64{}
	for _, in := range p.Inputs {
		defaults[in.Name] = float64(in.Default)
	}
	value := func(args []Arg, name string) float64 {
		for _, a := range args {
			if a.Name == name {
				return a.Value
			}
		}
		return defaults[name]
	}
	var names []string
	for _, in := range p.Inputs {
		names = append(names, in.Name)
	}
	for _, a := range tr.Args {
		if _, ok := defaults[a.Name]; !ok {
			names = append(names, a.Name)
		}
	}
	for _, name := range names {
		if a, b := value(tr.Args, name), value(run.Args, name); a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s (this run: %s)", name, num(a), num(b)))
		}
	}
	if tr.Seed != run.Seed {
		diffs = append(diffs, fmt.Sprintf("seed %d (this run: %d)", tr.Seed, run.Seed))
	}
	if tr.Warmup != run.Warmup {
		diffs = append(diffs, fmt.Sprintf("warm-up %s (this run: %s)", num(tr.Warmup), num(run.Warmup)))
	}
	if tr.Arrivals != run.Arrivals {
		diffs = append(diffs, fmt.Sprintf("arrivals %d (this run: %d)", tr.Arrivals, run.Arrivals))
	}
	if len(diffs) > 0 {
		made := "the tour was made on another run"
		if len(tr.Instances) > 0 {
			made = "the tour was made on instance " + strings.Join(tr.Instances, ", ")
		}
		return bad(made+": "+strings.Join(diffs, ", "), "play it on the run it names:"+tr.flags())
	}
	if tr.Hash != "" && run.Hash != "" && tr.Hash != run.Hash {
		t.Warning = fmt.Sprintf("the tour was made on another version of %s (its text differs): its stops may not be where their captions say", run.Program)
	} else if tr.Horizon > 0 && tr.Horizon != run.Horizon {
		// the same run to another end: the stops are where they were, the
		// run's end and its report are not
		this := "none given"
		if run.Horizon > 0 {
			this = num(run.Horizon)
		}
		t.Warning = fmt.Sprintf("the tour was made on a run to horizon %s (this run: %s): add --horizon %s", num(tr.Horizon), this, num(tr.Horizon))
	}
	return nil
}

// flags are the command-line flags that make the run: " --instance F
// --seed 1 …".
func (r *RunID) flags() string {
	var b strings.Builder
	for _, in := range r.Instances {
		b.WriteString(" --instance " + in)
	}
	if len(r.Instances) == 0 {
		for _, a := range r.Args {
			b.WriteString(" --set " + a.Name + "=" + num(a.Value))
		}
	}
	fmt.Fprintf(&b, " --seed %d", r.Seed)
	if r.Warmup > 0 {
		b.WriteString(" --warmup " + num(r.Warmup))
	}
	if r.Horizon > 0 {
		b.WriteString(" --horizon " + num(r.Horizon))
	}
	if r.Arrivals > 0 {
		fmt.Fprintf(&b, " --arrivals %d", r.Arrivals)
	}
	return b.String()
}
