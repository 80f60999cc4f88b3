// Command serq checks, compiles and runs serQ programs.
//
//	serq check FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]
//	serq ir    FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]
//	serq run   FILE --horizon T [--warmup T] [--seed N] [--arrivals N]
//	                [--set name=expr]... [--def name=expr]... [--json] [--dump DIR]
//	                [--plot DIR] [-- --name value ...]
//	serq tui   FILE [--horizon T] [--warmup T] [--seed N]
//	                [--set name=expr]... [--def name=expr]... [-- --name value ...]
//	serq draw  FILE [--format svg|txt|tikz] [--standalone] [--out PATH]
//	                [--set name=expr]... [--def name=expr]... [-- --name value ...]
//	serq target FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]
//	serq sweep FILE --vary NAME=V1,V2,…|A:B:STEP... [--seeds A-B] --horizon T
//	                [--warmup T] [--jobs N] [--out DIR] [--shard i/n] [--fail-fast]
//	                [--plot [--metric NAME]...] [--set …]... [-- --name value ...]
//	serq sweep merge --out DIR SHARD_DIR...
//	serq fmt   [--check] [FILE...]
//	serq lsp
//	serq --version
//
// FILE is program text (.sq), or IR JSON (.json) as `serq ir` prints it,
// whose inputs are bound already: it takes no --set, --def or program
// arguments.
//
// Exit status: 0 on success; 1 when the program does not load or cannot
// run, or an output cannot be written; 2 on a usage error (unknown command
// or option, a missing or invalid value, a bad --set, --def or program
// argument); 128 plus the signal's number when a signal stops serq run or
// serq tui (docs/cli.md). Usage errors print
// "error: …" and the command's usage line to stderr; load errors print each
// error with its source line and a caret under the column.
//
// The command line is described to kong as structs, but the arguments are
// first scanned here against kong's model, so that the messages are those
// of the reference serQ CLI (github.com/servingQ/serQ): FILE must
// follow the command, a flag of another command is named as such, and a
// flag's value may not start with "--". Everything after the first bare
// "--" is the program's arguments, which kong never sees.
//
// The files: main.go (the command line, loading, check, ir, run, tui,
// draw, and rendering errors with lang.WriteError), progress.go
// (the progress line), guard.go (--max-live), signals.go and
// tui_signals.go (stopping cleanly on a signal), target.go, fmt.go and
// lsp.go (their commands), sweep.go, sweepout.go, merge.go and plot.go
// (serq sweep: points, runs, its files, shards and charts).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/alecthomas/kong"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-isatty"

	"github.com/serq/serq/draw"
	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
	"github.com/serq/serq/report"
	"github.com/serq/serq/tui"
)

// version is what `serq --version` prints after "serq ".
const version = "0.1.0"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// cli is the command line. Each command is a struct with a Run method that
// kong calls with the *env of this invocation.
type cli struct {
	Version bool     `short:"V" help:"Print the version and exit (alone: serq --version)."`
	Check   checkCmd `cmd:"" help:"Parse, link and validate a program without simulating it."`
	IR      irCmd    `cmd:"" name:"ir" help:"Print the lowered program as JSON."`
	Run     runCmd   `cmd:"" help:"Simulate a program and print the report."`
	Tui     tuiCmd   `cmd:"" name:"tui" help:"Step a simulation live in the terminal UI (without --horizon it runs to t=1e9)."`
	Draw    drawCmd  `cmd:"" name:"draw" help:"Draw the deployment as a standalone SVG, box-drawing text or a TikZ picture for LaTeX."`

	// The language's tools, each in a file of its own (target.go, fmt.go, lsp.go).
	Target targetCmd `cmd:"" name:"target" help:"Print the vLLM configuration the program describes, as JSON (refused where vLLM cannot run it)."`
	Sweep  sweepCmd  `cmd:"" name:"sweep" help:"Run a program over a product of input values and seeds, in parallel (serq sweep merge combines shards)."`
	Fmt    fmtCmd    `cmd:"" name:"fmt" help:"Format .sq files in the canonical layout (in place; no files: stdin to stdout)."`
	LSP    lspCmd    `cmd:"" name:"lsp" help:"Run the language server on stdin and stdout (for editors)."`
	Import importCmd `cmd:"" name:"import" help:"Write a serQ program from another tool's configuration (serq import vllm)."`
}

// usages are the commands' usage lines, printed after a usage error.
var usages = map[string]string{
	"":      "serq <check|ir|run|tui|draw|target|sweep|fmt|lsp> FILE [OPTIONS] | serq import vllm OPTIONS | serq --version",
	"check": "serq check FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]",
	"ir": "serq ir FILE [--horizon T] [--warmup T] [--seed N] [--arrivals N] [--trace F] [--inline-trace] " +
		"[--set name=expr]... [--def name=expr]... [-- --name value ...]",
	"run": "serq run FILE --horizon T [--warmup T] [--seed N] [--arrivals N] [--trace F] [--set name=expr]... " +
		"[--def name=expr]... [--json] [--dump DIR] [--plot DIR] [--max-live N] [-- --name value ...]",
	"tui": "serq tui FILE [--horizon T] [--warmup T] [--seed N] [--break EXPR]... [--stale T] [--at T] " +
		"[--follow N] [--arrivals N] [--tour F] [--record F.cast] [--report] [--screenshot PATH [--size WxH]] [--set name=expr]... [--def name=expr]... [-- --name value ...]",
	"draw": "serq draw FILE [--format svg|txt|tikz] [--standalone] [--out PATH] [--set name=expr]... " +
		"[--def name=expr]... [-- --name value ...]",
	"target": "serq target FILE [--set name=expr]... [--def name=expr]... [-- --name value ...]",
	"sweep":  sweepUsage,
	"fmt":    "serq fmt [--check] [FILE...]",
	"lsp":    "serq lsp",
	"import": "serq import vllm --model-config CONFIG.json --gpu GPU --workload inference-perf:PROFILE.yaml [--inference-perf-version V] " +
		"[--tensor-parallel-size N] [--max-num-batched-tokens N] [--max-num-seqs N] [--max-model-len N] [--block-size N] " +
		"[--gpu-memory-utilization F] [--num-gpu-blocks-override N] [--no-enable-prefix-caching] [--long-prefill-token-threshold N] [-o FILE]",
}

// env is what a command's Run method works with.
type env struct {
	stdout, stderr io.Writer
	progArgs       []string // the elements after the first bare "--"
	instances      []string // the --instance files given, in order (expandInstances replaced them)
	sourceHash     string   // the loaded program's text, hashed (tui.ProgramHash), for a tour's run
}

// loadFlags are the flags and argument of every command that loads a program.
type loadFlags struct {
	File string   `arg:"" name:"FILE" help:"Program text (.sq), or IR JSON (.json) as serq ir prints it."`
	Set  []string `name:"set" sep:"none" placeholder:"name=expr" help:"Bind an args.number input to a constant expression (repeatable; the last value for a name wins)."`
	Def  []string `name:"def" sep:"none" placeholder:"name=expr" help:"Replace the body of an expression def (repeatable; the last value for a name wins)."`
	// Instance is expanded into --set and setting flags before parsing
	// (expandInstances); the field documents it.
	Instance []string `name:"instance" sep:"none" placeholder:"F" help:"Read an instance file: its lets act as --set, its run block as --horizon/--warmup/--seed/--arrivals, at this place on the command line."`
}

// Help is the detail of every command's --help.
func (loadFlags) Help() string {
	return "Program arguments follow a bare --, as --name value or --name=value " +
		"(serq run FILE --horizon 10 -- --rate 2); each binds an input declared " +
		"with args.number, after any --set."
}

type checkCmd struct {
	loadFlags `embed:""`
}

type irCmd struct {
	loadFlags    `embed:""`
	settingFlags `embed:""`
	Arrivals     *string `placeholder:"N" help:"Record a run of exactly N arrivals, then drain."`
	Trace        *string `placeholder:"F" help:"Replace the program's trace CSV (a path relative to the current directory)."`
	InlineTrace  bool    `name:"inline-trace" help:"Write the program's ordered trace into the IR as explicit sessions, so that the IR runs without the CSV."`
}

// drawCmd is `serq draw`: the deployment figure of package draw. Format
// is a string so that a bad value gets the reference message.
type drawCmd struct {
	loadFlags  `embed:""`
	Format     string  `placeholder:"svg|txt|tikz" default:"svg" help:"svg: a standalone SVG image (default); txt: box-drawing text, 100 columns; tikz: a TikZ picture for LaTeX."`
	Out        *string `placeholder:"PATH" help:"Write the figure to PATH instead of stdout."`
	Standalone bool    `help:"With --format tikz: a LaTeX document that compiles by itself (pdflatex), not a picture to \\input."`
}

// settingFlags are the run settings. They are strings so that their values
// are checked here, with the reference messages; nil means not given.
type settingFlags struct {
	Horizon *string `placeholder:"T" help:"Simulated end time, finite and > 0."`
	Warmup  *string `placeholder:"T" help:"Statistics exclude [0, T) (default 0)."`
	Seed    *string `placeholder:"N" help:"RNG seed, an unsigned 64-bit integer (default 1)."`
}

type runCmd struct {
	loadFlags    `embed:""`
	settingFlags `embed:""`
	Arrivals     *string `placeholder:"N" help:"Stop after exactly N arrivals, then drain their sessions."`
	JSON         bool    `name:"json" help:"Print the report as one line of JSON."`
	Trace        *string `placeholder:"F" help:"Replace the program's trace CSV (a path relative to the current directory)."`
	Dump         *string `placeholder:"DIR" help:"Write per-sample CSVs into DIR."`
	MaxLive      *string `name:"max-live" placeholder:"N" help:"Stop when more than N sessions and fork legs are live at once (default 1000000)."`
	Plot         *string `placeholder:"DIR" help:"Write SVG and PNG charts into DIR: each gauge over time, each observe's CDF."`
	NoFastPath   bool    `name:"no-fast-path" hidden:"" help:"Take the interpreter's reference path (full scans, no memos): the same report, slower; for differential tests."`
}

type tuiCmd struct {
	loadFlags    `embed:""`
	settingFlags `embed:""`
	Break        []string `name:"break" sep:"none" placeholder:"EXPR" help:"Stop the run at the first event after which EXPR holds, e.g. 'used(D[0].kv) > 2000' (repeatable)."`
	Stale        *string  `placeholder:"T" help:"Flag a lease older than T seconds as stale (default 1)."`
	At           *string  `placeholder:"T" help:"Start paused at the first event at or after time T."`
	Follow       *string  `placeholder:"N" help:"Follow session N from the start."`
	Size         *string  `placeholder:"WxH" help:"The screen size of --screenshot (default 160x48)."`
	Screenshot   *string  `placeholder:"PATH" help:"Render the screen at --at T, or where the first --break stops (at the horizon if none does), to PATH as text (.txt) or SVG (.svg), and exit; needs no terminal."`
	Arrivals     *string  `placeholder:"N" help:"Stop after exactly N arrivals, then drain their sessions (as serq run)."`
	Tour         *string  `placeholder:"F" help:"Play the walk-through F (YAML): > and < go to its next and previous stop."`
	Record       *string  `placeholder:"F.cast" help:"Record the session as an asciinema v2 cast in F.cast, to replay in any asciinema player."`
	Report       bool     `help:"Print the report serq run prints, of the run where the TUI left it, on quit."`
}

// settings are validated run settings.
type settings struct {
	horizon  float64 // 0 when not given
	warmup   float64
	seed     uint64
	arrivals uint64 // 0 when not given
}

// usageError is a bad command line: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// loadError is a program that does not load (or cannot run): exit 1. It
// is rendered with source snippets, read from sources first.
type loadError struct {
	file    string            // FILE as given
	err     error             // lang.ErrorList, *lang.Error, or any error
	sources map[string][]byte // the files Load read, by the path it read them with
	partial *interp.Report    // a run stopped by a progress guard: its report so far
}

func (e *loadError) Error() string { return e.file + ": " + e.err.Error() }

// exitSignal carries kong's exit status (after --help) out of kong.Parse.
type exitSignal struct{ code int }

// run runs serq with the arguments after the program name and returns the
// exit status. Nothing reaches stdout unless the command succeeds.
func run(args []string, stdout, stderr io.Writer) (code int) {
	startGC()
	// A failed write to stdout (a full disk, a closed pipe) fails the
	// command, whatever it printed.
	out := &checkedWriter{w: stdout}
	stdout = out
	defer func() {
		if out.err != nil {
			fmt.Fprintf(stderr, "serq: cannot write the output: %v\n", unwrapPath(out.err))
			code = 1
		}
	}()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-V") {
		if len(args) > 1 {
			return usage(stderr, "", fmt.Sprintf("`%s` takes no arguments, found `%s`", args[0], args[1]))
		}
		fmt.Fprintf(stdout, "serq %s\n", version)
		return 0
	}
	if len(args) > 0 && args[0] == "sweep" && len(args) > 1 && args[1] == "merge" {
		return runSweepMerge(args[2:], stdout, stderr)
	}
	flags, progArgs := args, []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		flags, progArgs = args[:i], args[i+1:]
	}
	instances := instancePaths(flags)
	flags, err := expandInstances(flags)
	if err != nil {
		var lerr *loadError
		if errors.As(err, &lerr) {
			renderLoadError(stderr, lerr)
			return 1
		}
		cmd := ""
		if len(flags) > 0 {
			cmd = flags[0]
		}
		return usage(stderr, cmd, err.Error())
	}

	var root cli
	parser, err := kong.New(&root,
		kong.Name("serq"),
		kong.Description("serQ: serving specifications for LLM deployments, simulated as discrete-event systems."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitSignal{code}) }),
		kong.WithHyphenPrefixedParameters(true), // `--warmup -3` reaches our check; scan has refused values starting with "--"
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars(importVars()),
	)
	if err != nil {
		panic(err) // the grammar above is broken
	}

	helpAsked := slices.ContainsFunc(flags, func(a string) bool { return a == "--help" || a == "-h" })
	cmd := ""
	if !helpAsked {
		if cmd, err = scan(parser.Model, flags); err != nil {
			return usage(stderr, cmd, err.Error())
		}
	}

	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(exitSignal)
			if !ok {
				panic(r)
			}
			code = s.code
		}
	}()
	kctx, err := parser.Parse(flags)
	if err != nil && out.err != nil {
		return 1 // --help could not be written
	}
	if err != nil {
		if cmd == "" {
			var perr *kong.ParseError
			if errors.As(err, &perr) && perr.Context != nil && perr.Context.Selected() != nil {
				cmd = perr.Context.Selected().Name
			}
		}
		return usage(stderr, cmd, err.Error())
	}
	cmd = strings.Fields(kctx.Command())[0]
	if root.Version {
		return usage(stderr, cmd, "`--version` takes no arguments and no command")
	}

	err = kctx.Run(&env{stdout: stdout, stderr: stderr, progArgs: progArgs, instances: instances})
	var (
		uerr *usageError
		lerr *loadError
		ierr *interruptedError
	)
	switch {
	case err == nil:
		return 0
	case out.err != nil:
		return 1 // the deferred message says why
	case errors.As(err, &uerr):
		return usage(stderr, cmd, uerr.msg)
	case errors.As(err, &lerr):
		renderLoadError(stderr, lerr)
		return 1
	case errors.As(err, &ierr):
		fmt.Fprintf(stderr, "serq %s: %v\n", cmd, err)
		return ierr.code()
	default:
		fmt.Fprintf(stderr, "serq %s: %v\n", cmd, err)
		return 1
	}
}

// usage prints a usage error for cmd ("" for none) and returns 2.
func usage(w io.Writer, cmd, msg string) int {
	line, ok := usages[cmd]
	if !ok {
		line = usages[""]
	}
	fmt.Fprintf(w, "error: %s\nusage: %s\n", msg, line)
	return 2
}

// scan checks the arguments before the first "--" against kong's model the
// way the reference CLI does: the command first, FILE right after it, then
// only the command's own flags, each value present and not starting with
// "--". It returns the command's name (once known) and the first error.
func scan(app *kong.Application, args []string) (string, error) {
	var names []string
	var cmd *kong.Node
	for _, c := range app.Children {
		names = append(names, c.Name)
		if len(args) > 0 && c.Name == args[0] {
			cmd = c
		}
	}
	choose := "help: choose " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + ", or --version"
	switch {
	case len(args) == 0:
		return "", fmt.Errorf("missing command\n%s", choose)
	case cmd == nil:
		return "", fmt.Errorf("unknown command `%s`\n%s", args[0], choose)
	}
	name := cmd.Name
	switch name {
	case "fmt":
		return name, scanFmt(args[1:]) // files, not FILE and the load flags
	case "lsp":
		return name, scanLSP(args[1:])
	case "import":
		return name, scanImport(importFlags(cmd), args[1:])
	}
	if len(args) < 2 || strings.HasPrefix(args[1], "--") {
		return name, errors.New("missing FILE\nhelp: supply a .sq program file")
	}
	for i := 2; i < len(args); i++ {
		arg := args[i]
		flagName, _, hasValue := strings.Cut(arg, "=")
		f := findFlag(cmd, flagName)
		if f == nil {
			var owners []string
			for _, c := range app.Children {
				if findFlag(c, flagName) != nil {
					owners = append(owners, c.Name)
				}
			}
			if len(owners) > 0 {
				return name, fmt.Errorf("%s is not supported by `%s`\nhelp: %s applies to %s",
					flagName, name, flagName, strings.Join(owners, ", "))
			}
			return name, fmt.Errorf("unknown option `%s`\nhelp: use the options in the usage below", arg)
		}
		if f.IsBool() {
			if hasValue {
				return name, fmt.Errorf("%s takes no value, found `%s`", flagName, arg)
			}
			continue
		}
		if !hasValue {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return name, fmt.Errorf("missing value for %s\nhelp: supply a value immediately after %s", flagName, flagName)
			}
			i++
		}
	}
	return name, nil
}

// findFlag returns cmd's flag spelled arg ("--name"), or nil.
func findFlag(cmd *kong.Node, arg string) *kong.Flag {
	name, ok := strings.CutPrefix(arg, "--")
	if !ok || name == "" {
		return nil
	}
	for _, f := range cmd.Flags {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (c *checkCmd) Run(e *env) error {
	prog, err := c.load(e)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "OK: %d pool(s), %d stage(s), %d attribute(s), %d block(s)\n",
		len(prog.Pools), len(prog.Stages), len(prog.Attrs), prog.Blocks)
	return nil
}

func (c *irCmd) Run(e *env) error {
	s, err := c.settings()
	if err != nil {
		return err
	}
	if s.arrivals, err = arrivalsFlag(c.Arrivals); err != nil {
		return err
	}
	prog, err := c.load(e)
	if err != nil {
		return err
	}
	// The run settings given are recorded in the IR, for a run of it; an
	// IR read back keeps those it recorded that no flag replaces.
	if c.Horizon != nil || c.Warmup != nil || c.Seed != nil || c.Arrivals != nil {
		horizonText, warmupText := "", "0"
		if c.Horizon != nil {
			horizonText = *c.Horizon
		}
		if c.Warmup != nil {
			warmupText = *c.Warmup
		}
		if r := prog.Run; r != nil {
			if c.Horizon == nil {
				s.horizon, horizonText = r.Horizon, fmtSetting(r.Horizon)
			}
			if c.Warmup == nil {
				s.warmup, warmupText = r.Warmup, fmtSetting(r.Warmup)
			}
			if c.Seed == nil {
				s.seed = r.Seed
			}
			if c.Arrivals == nil {
				s.arrivals = r.Arrivals
			}
		}
		if horizonText == "" {
			return &loadError{file: c.File, err: errors.New("no horizon: the IR records run settings with --horizon T")}
		}
		if s.warmup >= s.horizon {
			return &loadError{file: c.File, err: fmt.Errorf("warmup %s is not below the horizon %s", warmupText, horizonText)}
		}
		prog.Run = &model.RunSettings{Horizon: s.horizon, Warmup: s.warmup, Seed: s.seed, Arrivals: s.arrivals}
	}
	if err := replaceTrace(c.File, prog, c.Trace); err != nil {
		return err
	}
	if c.InlineTrace {
		if err := interp.InlineTrace(prog, interp.TraceKind.Opener()); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("--inline-trace: %w", err)}
		}
	}
	b, err := json.MarshalIndent(prog, "", "  ")
	if err != nil {
		return &loadError{file: c.File, err: fmt.Errorf("cannot encode the IR: %w", err)}
	}
	_, err = e.stdout.Write(append(b, '\n'))
	return err
}

// replaceTrace applies --trace F: the program replays F instead of its
// trace, or of the sessions an IR has inlined from one.
func replaceTrace(file string, prog *model.Program, path *string) error {
	if path == nil {
		return nil
	}
	w := &prog.Workload
	if w.Trace == "" && len(w.Sessions) == 0 {
		return &loadError{file: file, err: errors.New("--trace: the program replays no trace (its workload has no `trace \"…\";`)")}
	}
	w.Trace, w.Sessions = *path, nil
	return nil
}

func (c *drawCmd) Run(e *env) error {
	if c.Format != "svg" && c.Format != "txt" && c.Format != "tikz" {
		return usagef("invalid value `%s` for --format; expected svg, txt or tikz\nhelp: use --format svg", c.Format)
	}
	if c.Standalone && c.Format != "tikz" {
		return usagef("--standalone is for --format tikz\nhelp: use --format tikz --standalone")
	}
	prog, err := c.load(e)
	if err != nil {
		return err
	}
	var out []byte
	switch c.Format {
	case "txt":
		out = []byte(draw.Text(prog, drawWidth, nil))
	case "tikz":
		out = draw.TikZ(prog, c.Standalone)
	default:
		out = draw.SVG(prog)
	}
	if c.Out != nil {
		defer safeio.Guard()() // a signal leaves no temporary file
		if err := safeio.WriteFile(*c.Out, out); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Out, err)}
		}
		return nil
	}
	_, err = e.stdout.Write(out)
	return err
}

// drawWidth is the width of `serq draw --format txt`, in columns.
const drawWidth = 100

func (c *runCmd) Run(e *env) error {
	s, err := c.settings()
	if err != nil {
		return err
	}
	if s.arrivals, err = arrivalsFlag(c.Arrivals); err != nil {
		return err
	}
	prog, err := c.load(e)
	if err != nil {
		return err
	}
	if r := prog.Run; r != nil {
		// an IR's recorded settings, where the flags say nothing
		horizon, warmup, seed := fmtSetting(r.Horizon), fmtSetting(r.Warmup), strconv.FormatUint(r.Seed, 10)
		if c.Horizon == nil {
			c.Horizon, s.horizon = &horizon, r.Horizon
		}
		if c.Warmup == nil {
			c.Warmup, s.warmup = &warmup, r.Warmup
		}
		if c.Seed == nil {
			c.Seed, s.seed = &seed, r.Seed
		}
		if c.Arrivals == nil {
			s.arrivals = r.Arrivals
		}
	}
	if c.Horizon == nil {
		return &loadError{file: c.File, err: errors.New("no horizon: `serq run` needs --horizon T, the simulated end time")}
	}
	if s.warmup >= s.horizon {
		return &loadError{file: c.File, err: fmt.Errorf("warmup %s is not below the horizon %s", *c.Warmup, *c.Horizon)}
	}
	if err := replaceTrace(c.File, prog, c.Trace); err != nil {
		return err
	}
	maxLive, err := c.maxLive()
	if err != nil {
		return err
	}
	opt := interp.Options{Horizon: s.horizon, Warmup: s.warmup, Seed: s.seed, Arrivals: s.arrivals, Version: version, MaxLive: maxLive, NoFastPath: c.NoFastPath,
		OpenTrace: interp.TraceKind.Opener(),
		// the samples and change points are kept only for the charts of
		// --plot; --dump writes them as the run goes
		Lean: c.Plot == nil}
	var dump *report.Dump
	if c.Dump != nil {
		gauges := make([]string, len(prog.Gauges))
		for i, g := range prog.Gauges {
			gauges[i] = g.Name
		}
		if dump, err = report.NewDump(*c.Dump, prog.Observes, gauges); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Dump, err)}
		}
		defer dump.Abort() // a run or dump that does not commit leaves no file
		opt.Dump = dump
	}
	sim, err := interp.New(prog, opt)
	if err != nil {
		return &loadError{file: c.File, err: err}
	}
	var gc *leanGC
	if c.Plot == nil && ownGC() {
		gc = newLeanGC()
	}
	in := catchInterrupts()
	defer in.stop()
	var dumpFailed func() error
	if dump != nil {
		dumpFailed = dump.Err
	}
	if err := runWithProgress(sim, e.stderr, in, dumpFailed, gc); err != nil {
		if dump != nil && dump.Err() != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Dump, dump.Err())}
		}
		if errors.As(err, new(*interruptedError)) {
			return err
		}
		lerr := &loadError{file: c.File, err: err}
		if errors.As(err, new(*interp.ProgressError)) {
			lerr.partial = sim.Report()
		}
		return lerr
	}
	rep := sim.Report()
	if dump != nil {
		dump.Failures(rep.Failures)
		each := func() {
			if signalHook != nil {
				signalHook("dump", nil)
			}
		}
		if err := dump.Commit(in.stopped, each); err != nil {
			if errors.Is(err, report.ErrStopped) {
				return &interruptedError{sig: in.caught(), what: fmt.Sprintf("the dump was abandoned, no file in %s changed; no report written", *c.Dump)}
			}
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Dump, err)}
		}
	}
	if sig := in.caught(); sig != nil && c.Dump == nil {
		return &interruptedError{sig: sig, what: "the run ended; no report written"}
	}
	if c.Plot != nil {
		if err := writeRunPlots(*c.Plot, c.File, rep); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Plot, err)}
		}
	}
	if c.JSON {
		return report.JSON(e.stdout, rep)
	}
	return report.Text(e.stdout, rep)
}

// tuiHorizon is the horizon of `serq tui` without --horizon: far enough
// that a person watching stops first.
const tuiHorizon = 1e9

func (c *tuiCmd) Run(e *env) error {
	s, err := c.settings()
	if err != nil {
		return err
	}
	prog, err := c.load(e)
	if err != nil {
		return err
	}
	tuiGC()
	if r := prog.Run; r != nil {
		// an IR's recorded settings, where the flags say nothing
		if c.Horizon == nil {
			h := fmtSetting(r.Horizon)
			c.Horizon, s.horizon = &h, r.Horizon
		}
		if c.Warmup == nil {
			w := fmtSetting(r.Warmup)
			c.Warmup, s.warmup = &w, r.Warmup
		}
		if c.Seed == nil {
			s.seed = r.Seed
		}
	}
	horizon, horizonText := s.horizon, "1e9 (the default of serq tui)"
	if c.Horizon != nil {
		horizonText = *c.Horizon
	} else {
		horizon = tuiHorizon
	}
	if s.warmup >= horizon {
		return &loadError{file: c.File, err: fmt.Errorf("warmup %s is not below the horizon %s", *c.Warmup, horizonText)}
	}
	opts := tui.Options{Horizon: horizon, Warmup: s.warmup, Seed: s.seed, Version: version, Title: safeio.PrintableLine(filepath.Base(c.File)),
		Breaks: c.Break}
	if opts.Arrivals, err = arrivalsFlag(c.Arrivals); err != nil {
		return err
	}
	// the run a tour names, and :save tour writes (tui.RunID)
	opts.Run = tui.RunID{Program: safeio.PrintableLine(filepath.Base(c.File)), Hash: e.sourceHash, Instances: e.instances,
		Args: tui.ArgsOf(prog), Seed: s.seed, Warmup: s.warmup, Arrivals: opts.Arrivals}
	if c.Horizon != nil {
		opts.Run.Horizon = horizon
	}
	if c.Tour != nil {
		tourErr := func(err error) error {
			var sources map[string][]byte
			if src, rerr := tui.TourKind.Read(*c.Tour); rerr == nil && tui.TourKind.Quotes(*c.Tour) {
				sources = map[string][]byte{*c.Tour: src}
			}
			return &loadError{file: *c.Tour, err: err, sources: sources}
		}
		t, err := tui.LoadTour(*c.Tour, prog, horizon)
		if err != nil {
			return tourErr(err)
		}
		// a tour made on another run is refused before the UI starts
		if err := t.Check(opts.Run, prog); err != nil {
			return tourErr(err)
		}
		opts.Tour = t
	}
	w, h, err := c.debugFlags(&opts)
	if err != nil {
		return err
	}
	if c.Screenshot != nil {
		screen, err := tui.Screenshot(prog, opts, w, h)
		if err != nil {
			return c.breakError(err)
		}
		if strings.HasSuffix(*c.Screenshot, ".svg") {
			screen = tui.SVG(screen)
		} else {
			screen += "\n"
		}
		defer safeio.Guard()() // a signal leaves no temporary file
		if err := safeio.WriteFile(*c.Screenshot, []byte(screen)); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Screenshot, err)}
		}
		return nil
	}
	out, ok := stdoutFile(e.stdout)
	if !ok || !(isatty.IsTerminal(out.Fd()) || isatty.IsCygwinTerminal(out.Fd())) {
		if _, err := tui.New(prog, opts); err != nil {
			return c.breakError(err)
		}
		return errors.New("stdout is not a terminal: the TUI needs one (serq run prints a report anywhere)")
	}
	var term io.Writer = out
	var cast *tui.Cast
	// The cast is written as every output is (internal/safeio): to a
	// temporary file beside it, renamed into place when the TUI ends (a
	// signal included), a symlink at its name replaced, never written
	// through.
	var castFile *safeio.File
	var castBatch safeio.Batch
	defer castBatch.Abort()
	if c.Record != nil {
		castFile, err = castBatch.Open(*c.Record)
		if err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Record, unwrapPath(err))}
		}
		w, h := tui.TerminalSize(out)
		if cast, err = tui.NewCast(castFile.W, w, h, "serq tui "+safeio.PrintableLine(filepath.Base(c.File)), nil); err != nil {
			return &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Record, unwrapPath(err))}
		}
		term = tui.Record(out, cast)
	}
	var m *tui.Model
	err = runTUI(func(ctx context.Context) error {
		// runTUI alone handles the signals: Bubble Tea's own handler, sending
		// to a program that the context has just stopped, could block its
		// shutdown.
		var err error
		m, err = tui.Run(prog, opts, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithOutput(term), tea.WithContext(ctx), tea.WithoutSignalHandler())
		return err
	})
	if cast != nil {
		cast.Flush()
		cerr := cast.Err()
		if cerr == nil {
			cerr = castFile.Close()
		}
		if cerr == nil {
			cerr = castBatch.Commit()
		}
		if cerr != nil && err == nil {
			err = &loadError{file: c.File, err: fmt.Errorf("cannot write %s: %w", *c.Record, unwrapPath(cerr))}
		}
	}
	if err != nil {
		return c.breakError(err)
	}
	if c.Report && m != nil {
		text, err := m.ReportText()
		if err != nil {
			return &loadError{file: c.File, err: err}
		}
		_, err = io.WriteString(e.stdout, text)
		return err
	}
	return nil
}

// debugFlags checks the debugger's flags into opts and returns the
// screenshot's size.
func (c *tuiCmd) debugFlags(opts *tui.Options) (w, h int, err error) {
	if c.Stale != nil {
		if opts.StaleAfter, err = timeValue("--stale", *c.Stale, true); err != nil {
			return 0, 0, err
		}
	}
	if c.At != nil {
		if opts.At, err = timeValue("--at", *c.At, false); err != nil {
			return 0, 0, err
		}
		if opts.At > opts.Horizon {
			return 0, 0, usagef("invalid value `%s` for --at; it is past the horizon %s\nhelp: use --at 0", *c.At,
				strconv.FormatFloat(opts.Horizon, 'g', -1, 64))
		}
		opts.AtSet = true
	}
	if c.Follow != nil {
		if opts.Follow, err = parseCount(*c.Follow); err != nil {
			return 0, 0, usagef("invalid value `%s` for --follow; expected a session number\nhelp: use --follow 35", *c.Follow)
		}
		opts.FollowSet = true
	}
	w, h = 160, 48
	if c.Size != nil {
		ws, hs, ok := strings.Cut(*c.Size, "x")
		var err1, err2 error
		w, err1 = strconv.Atoi(ws)
		h, err2 = strconv.Atoi(hs)
		if !ok || err1 != nil || err2 != nil || w < 64 || h < 20 || w > 1000 || h > 1000 {
			return 0, 0, usagef("invalid value `%s` for --size; expected WxH, at least 64x20\nhelp: use --size 160x48", *c.Size)
		}
		if c.Screenshot == nil {
			return 0, 0, usagef("--size applies to --screenshot\nhelp: add --screenshot screen.txt")
		}
	}
	if c.Screenshot != nil && c.At == nil && c.Horizon == nil {
		return 0, 0, usagef("--screenshot without --at runs to the horizon: it needs --horizon T\nhelp: add --horizon 100, or --at T")
	}
	if c.Screenshot != nil && !strings.HasSuffix(*c.Screenshot, ".txt") && !strings.HasSuffix(*c.Screenshot, ".svg") {
		return 0, 0, usagef("invalid value `%s` for --screenshot; expected a .txt or .svg path\nhelp: use --screenshot screen.txt", *c.Screenshot)
	}
	return w, h, nil
}

// breakError shows a --break that does not compile with its caret.
func (c *tuiCmd) breakError(err error) error {
	var be *tui.BreakError
	if errors.As(err, &be) {
		return &loadError{file: c.File, err: be.Err, sources: map[string][]byte{lang.QueryFile: []byte(be.Expr)}}
	}
	return err
}

// settings validates the run settings given.
func (c *settingFlags) settings() (settings, error) {
	s := settings{seed: 1}
	var err error
	if c.Horizon != nil {
		if s.horizon, err = timeValue("--horizon", *c.Horizon, true); err != nil {
			return s, err
		}
	}
	if c.Warmup != nil {
		if s.warmup, err = timeValue("--warmup", *c.Warmup, false); err != nil {
			return s, err
		}
	}
	if c.Seed != nil {
		if s.seed, err = parseCount(*c.Seed); err != nil {
			return s, usagef("invalid value `%s` for --seed; expected an unsigned integer\nhelp: use --seed 1", *c.Seed)
		}
	}
	return s, nil
}

// timeValue parses a --horizon (positive) or --warmup (nonnegative) value.
func timeValue(flag, v string, positive bool) (float64, error) {
	x, ok := parseNumber(v)
	if ok && !math.IsInf(x, 0) && (x > 0 || !positive && x == 0) {
		return x, nil
	}
	kind, example := "nonnegative", "0"
	if positive {
		kind, example = "positive", "10"
	}
	return 0, usagef("invalid value `%s` for %s; expected a finite %s number\nhelp: use %s %s", v, flag, kind, flag, example)
}

// parseCount parses an unsigned 64-bit integer, a leading '+' allowed.
func parseCount(v string) (uint64, error) {
	return strconv.ParseUint(strings.TrimPrefix(v, "+"), 10, 64)
}

// arrivalsFlag is the value of an --arrivals flag: 0 when it is not given,
// a usage error unless it is a positive integer.
func arrivalsFlag(v *string) (uint64, error) {
	if v == nil {
		return 0, nil
	}
	n, err := parseCount(*v)
	if err != nil || n == 0 {
		return 0, usagef("invalid value `%s` for --arrivals; expected a positive integer", *v)
	}
	return n, nil
}

// load validates the overrides and the program arguments, then loads FILE:
// program text, or IR JSON when its extension is .json.
func (c *loadFlags) load(e *env) (*model.Program, error) {
	defer loadedGC() // the start is over (startGC)
	isIR := filepath.Ext(c.File) == ".json"
	if isIR && (len(c.Set) > 0 || len(c.Def) > 0 || len(e.progArgs) > 0) {
		return nil, &loadError{file: c.File, err: errIRBound}
	}
	opts := lang.Options{Lib: lib.FS}
	var err error
	if opts.Sets, err = overrides("--set", c.Set, "use --set name=expr with an input declared by args.number"); err != nil {
		return nil, err
	}
	if opts.Defs, err = overrides("--def", c.Def, "use --def name=expr with a declared `def name(...) { expr }`"); err != nil {
		return nil, err
	}
	args, err := programArgs(e.progArgs)
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	opts.Sets = append(opts.Sets, args...)

	read := lang.ReadSource
	if isIR {
		read = irKind.Read
	}
	src, err := read(c.File)
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			err = perr.Err
		}
		return nil, &loadError{file: c.File, err: fmt.Errorf("cannot read: %w", err)}
	}
	e.sourceHash = tui.ProgramHash(src)
	if isIR {
		return readIR(c.File, src)
	}
	sources := map[string][]byte{}
	if lang.SourceKind.Quotes(c.File) {
		sources[c.File] = src // else FILE's lines are not quoted
	}
	opts.ReadFile = func(p string) ([]byte, error) {
		if p == c.File {
			return src, nil
		}
		if b, ok := sources[p]; ok {
			return b, nil
		}
		b, err := lang.ReadSource(p)
		if err == nil {
			sources[p] = b
		}
		return b, err
	}
	prog, err := lang.Load(c.File, opts)
	if err != nil {
		return nil, &loadError{file: c.File, err: err, sources: sources}
	}
	printableStrings(reflect.ValueOf(prog))
	return prog, nil
}

// printableStrings drops the control characters of every string in v
// (safeio.Printable): the names and texts of a program or an IR reach a
// terminal, a cast and the reports, where an escape sequence in a claim's
// name or an IR's observe name would be obeyed.
func printableStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			printableStrings(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				printableStrings(f)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			printableStrings(v.Index(i))
		}
	case reflect.String:
		if s := v.String(); safeio.Printable(s) != s && v.CanSet() {
			v.SetString(safeio.Printable(s))
		}
	}
}

// errIRBound refuses inputs for an IR file: `serq ir` folded its
// constants, bound its inputs and expanded its defs.
var errIRBound = errors.New("an IR file has its inputs bound already: --set, --def and program arguments do not apply\n" +
	"help: pass them when producing the IR (serq ir … --set …)")

// maxIRSize caps an IR file. An IR holds a program within the loader's
// limits, its families expanded (the seed example at its largest,
// 682 prefill and 682 decode instances, as its aggregates' 4096 terms
// allow, prints 182 MiB), and may hold the sessions of a trace of up to
// interp.MaxTraceSize inlined (each CSV byte up to about three bytes of
// JSON): 1 GiB holds both.
const maxIRSize = 1 << 30

// irKind is FILE when it is IR: a .json file; its lines are not quoted.
var irKind = safeio.Kind{What: "an IR file", Exts: []string{".json"}, Limit: maxIRSize}

// readIR reads IR JSON as `serq ir` prints it and validates it, so that a
// hand-edited or truncated file is an error and not a crash.
func readIR(file string, src []byte) (*model.Program, error) {
	var prog model.Program
	if err := json.Unmarshal(src, &prog); err != nil {
		return nil, &loadError{file: file, err: err}
	}
	if err := prog.Validate(); err != nil {
		return nil, &loadError{file: file, err: err}
	}
	printableStrings(reflect.ValueOf(&prog))
	return &prog, nil
}

// overrides checks `--set`/`--def` values: name=expr, the name an
// identifier, the expression one that parses.
func overrides(flag string, vals []string, help string) ([]lang.Override, error) {
	var out []lang.Override
	for _, kv := range vals {
		name, expr, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usagef("invalid %s `%s`; expected name=expr\nhelp: %s", flag, kv, help)
		}
		name = strings.TrimSpace(name)
		if !isIdent(name) {
			return nil, usagef("invalid %s name `%s`; expected an identifier\nhelp: %s", flag, name, help)
		}
		if _, err := syntax.ParseExpr("<arg>", expr); err != nil {
			msg := err.Error()
			var lerr *lang.Error
			if errors.As(err, &lerr) {
				msg = lerr.Msg
				if lerr.Pos.Col > 0 {
					msg = fmt.Sprintf("column %d: %s", lerr.Pos.Col, lerr.Msg)
				}
			}
			return nil, usagef("invalid expression in %s `%s`: %s\nhelp: %s", flag, kv, msg, help)
		}
		out = append(out, lang.Override{Name: name, Expr: expr})
	}
	return out, nil
}

// programArgs reads the program's arguments, `--name value` or
// `--name=value` each, as overrides binding the number's value.
func programArgs(args []string) ([]lang.Override, error) {
	var out []lang.Override
	for i := 0; i < len(args); i++ {
		arg := args[i]
		opt, ok := strings.CutPrefix(arg, "--")
		if !ok {
			return nil, fmt.Errorf("unexpected program argument `%s`; expected --name value", arg)
		}
		name, value, ok := strings.Cut(opt, "=")
		if !ok {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("missing value for program argument `--%s`", opt)
			}
			i++
			value = args[i]
		}
		if !isIdent(name) {
			return nil, fmt.Errorf("invalid argument name `%s`; expected an identifier", name)
		}
		x, ok := parseNumber(value)
		if !ok || math.IsNaN(x) {
			return nil, fmt.Errorf("invalid number `%s` for program argument `--%s`", value, name)
		}
		out = append(out, lang.Override{Name: name, Expr: numberExpr(x)})
	}
	return out, nil
}

// isIdent reports whether s is an identifier: a letter or '_', then
// letters, digits or '_'.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsNumber(r)) {
			return false
		}
	}
	return true
}

// parseNumber parses a decimal float the way Rust's f64::from_str does:
// an optional sign, digits with an optional fraction and exponent, or
// inf/infinity/nan in any case. Go's hexadecimal floats and '_'
// separators are refused; a value too large for f64 is ±inf.
func parseNumber(s string) (float64, bool) {
	if strings.ContainsAny(s, "xX_") {
		return 0, false
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return x, true
}

// numberExpr writes x as a serQ expression: a number literal, negated if
// negative, or the name inf.
func numberExpr(x float64) string { return model.FormatNum(x) }

// renderLoadError prints each error of e: `file:line:col: message`, the
// source line and a caret under the column, the message's further lines
// and the hint.
func renderLoadError(w io.Writer, e *loadError) {
	if e.partial != nil {
		defer renderPartial(w, e)
	}
	var internal *interp.RunError
	if errors.As(e.err, &internal) && internal.Internal() {
		defer fmt.Fprintf(w, "This is a bug in serq: please report it with the program and this stack:\n%s", internal.Stack)
	}
	var list lang.ErrorList
	var one *lang.Error
	var rerr *interp.RunError
	switch {
	case errors.As(e.err, &list):
	case errors.As(e.err, &one):
		list = lang.ErrorList{one}
	case errors.As(e.err, &rerr) && rerr.Pos.Line > 0:
		// A run error at a statement: shown like a static error, with the
		// simulated time and the session in the message and the calls
		// the statement was inlined from in its notes.
		list = lang.ErrorList{{Pos: rerr.Pos, Msg: rerr.Message(), Notes: rerr.Notes()}}
	default:
		fmt.Fprintf(w, "%s: %s\n", safeio.Printable(e.file), safeio.Printable(e.err.Error()))
		return
	}
	for _, le := range list {
		renderError(w, e, le)
	}
}

// renderError prints one error as every front end does (lang.WriteError),
// quoting the files Load read, the file system or the embedded library.
func renderError(w io.Writer, e *loadError, le *lang.Error) {
	lang.WriteError(w, le, e.file, func(file string, n int) (string, bool) { return sourceLine(e, file, n) })
}

// sourceLine returns line n (1-based) of file, from the files Load read,
// the file system, or the embedded library.
func sourceLine(e *loadError, file string, n int) (string, bool) {
	src, ok := e.sources[file]
	if !ok {
		if filepath.Ext(file) != ".sq" {
			return "", false // an IR position may name any file: quote serQ source only
		}
		var err error
		if src, err = lang.ReadSource(file); err != nil {
			if src, err = fs.ReadFile(lib.FS, path.Base(file)); err != nil {
				return "", false
			}
		}
	}
	lines := bytes.Split(src, []byte("\n"))
	if n > len(lines) {
		return "", false
	}
	line := string(bytes.TrimSuffix(lines[n-1], []byte("\r")))
	if !safeio.Quotable(line) { // the package doc's quoting rule
		return "", false
	}
	return line, true
}

// instanceSettings are the run settings an instance may give, per command.
var instanceSettings = map[string][]string{
	"run": {"horizon", "warmup", "seed", "arrivals"},
	"ir":  {"horizon", "warmup", "seed", "arrivals"},
	"tui": {"horizon", "warmup", "seed", "arrivals"},
}

// instancePaths are the files of the `--instance F` flags, in order.
func instancePaths(flags []string) []string {
	var out []string
	for i, a := range flags {
		if p, ok := strings.CutPrefix(a, "--instance="); ok {
			out = append(out, p)
		} else if a == "--instance" && i+1 < len(flags) {
			out = append(out, flags[i+1])
		}
	}
	return out
}

// expandInstances replaces each `--instance F` by the flags it stands for,
// at its place on the command line: its lets become `--set`s and its run
// block `--horizon`, `--warmup`, `--seed`, `--arrivals`. A later flag or
// `--set` therefore beats the instance, and the instance beats anything
// earlier (docs/cli.md §2). Settings the command does not take are
// ignored.
func expandInstances(flags []string) ([]string, error) {
	if !slices.ContainsFunc(flags, func(a string) bool { return a == "--instance" || strings.HasPrefix(a, "--instance=") }) {
		return flags, nil
	}
	cmd := ""
	if len(flags) > 0 {
		cmd = flags[0]
	}
	var out []string
	for i := 0; i < len(flags); i++ {
		a := flags[i]
		path, ok := strings.CutPrefix(a, "--instance=")
		if a == "--instance" {
			if i+1 >= len(flags) || strings.HasPrefix(flags[i+1], "--") {
				return nil, errors.New("missing value for --instance\nhelp: supply a value immediately after --instance")
			}
			i++
			path, ok = flags[i], true
		}
		if !ok || i < 2 {
			out = append(out, a)
			continue
		}
		in, err := lang.ReadInstance(path, nil)
		if err != nil {
			return nil, &loadError{file: path, err: err, sources: instanceSources(path)}
		}
		for _, s := range in.Sets {
			out = append(out, "--set", s.Name+"="+s.Expr)
		}
		vals := map[string]string{}
		for name, v := range map[string]*float64{"horizon": in.Horizon, "warmup": in.Warmup} {
			if v != nil {
				vals[name] = strconv.FormatFloat(*v, 'f', -1, 64)
			}
		}
		for name, v := range map[string]*uint64{"seed": in.Seed, "arrivals": in.Arrivals} {
			if v != nil {
				vals[name] = strconv.FormatUint(*v, 10)
			}
		}
		for _, name := range instanceSettings[cmd] {
			if v, ok := vals[name]; ok {
				out = append(out, "--"+name, v)
			}
		}
	}
	return out, nil
}

// instanceSources are the lines an instance file's error may quote: a .sq
// file's, or one that parses as an instance file (its error is in a
// value), never those of a file that is no instance at all
// (`--instance /etc/shadow`).
func instanceSources(path string) map[string][]byte {
	src, err := lang.ReadSource(path)
	if err != nil {
		return nil
	}
	if _, err := syntax.ParseInstance(path, src); err != nil && !lang.InstanceKind.Quotes(path) {
		return nil
	}
	return map[string][]byte{path: src}
}

// fmtSetting writes a recorded run setting as a flag would give it.
func fmtSetting(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
