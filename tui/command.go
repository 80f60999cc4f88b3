package tui

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/internal/spell"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// The command line (`:`): a table of commands, from which its help and
// its Tab completion are made, as gdb names them where it can.

// command is one command of the table.
type command struct {
	name    string
	aliases []string
	args    string // its arguments, as the help writes them
	help    string // what it does, one line
	run     func(m *Model, c *call) (tea.Cmd, *cmdError)
	// complete offers the words that may stand at argument i (0-based)
	// of c; nil for none.
	complete func(m *Model, c *call, i int) []string
}

// call is a command line being carried out: its text, its verb and its
// arguments.
type call struct {
	line string
	verb word
	args []word
	cmd  *command
}

// commands is the table. Its order is the help's.
var commands []*command

func init() {
	commands = []*command{
		{name: "break", aliases: []string{"b"}, args: "EXPR | t T | #N | session N | FILE:LINE | on CLASS [at POOL] … [if COND]",
			help: "stop when EXPR becomes true, at time T, after event N, at each event of session N, when a session reaches FILE:LINE, or at each event of CLASS (at POOL); if COND holds then",
			run:  runBreak, complete: completeBreak},
		{name: "tbreak", args: "as break", help: "a temporary breakpoint: deleted when it stops the run", run: runBreak, complete: completeBreak},
		{name: "watch", aliases: []string{"w"}, args: "EXPR [if COND]", help: "stop when EXPR's value changes (its value shown)", run: runBreak, complete: completeExpr},
		{name: "display", args: "EXPR", help: "show EXPR's value under the panes, never stopping", run: runBreak, complete: completeExpr},
		{name: "condition", args: "N [COND]", help: "breakpoint N stops only when COND holds (none: always)", run: runCondition, complete: completeCondition},
		{name: "ignore", args: "N COUNT", help: "breakpoint N ignores its next COUNT hits", run: runIgnore, complete: completeBreakID},
		{name: "enable", args: "N… | all", help: "enable breakpoints", run: runEnable, complete: completeBreakID},
		{name: "disable", args: "N… | all", help: "disable breakpoints (they stay listed)", run: runEnable, complete: completeBreakID},
		{name: "delete", aliases: []string{"d"}, args: "N… | all", help: "delete breakpoints, watches and displays", run: runDelete, complete: completeBreakID},
		{name: "list", aliases: []string{"l", "info"}, help: "the breakpoints, watches and displays, with their hits", run: runList},
		{name: "goto", aliases: []string{"g", "run"}, args: "T | #N", help: "go to time T, or to the state after event N, either way", run: runGoto},
		{name: "follow", aliases: []string{"f"}, args: "N", help: "follow session N in every pane", run: runFollow, complete: completeSession},
		{name: "unfollow", help: "follow no session", run: runUnfollow},
		{name: "why", args: "N", help: "why session N waits", run: runWhy, complete: completeSession},
		{name: "queue", args: "POOL", help: "the Inspect pane: POOL's queue, head first", run: runQueue, complete: completePool},
		{name: "batch", args: "ENGINE", help: "the Inspect pane: ENGINE's iteration and residents", run: runBatch, complete: completeEngine},
		{name: "pending", help: "the Inspect pane: the pending events, the next first", run: runPending},
		{name: "earlier", help: "load the log's span before its first line", run: runEarlier},
		{name: "trends", args: "ROW, ROW… | all", help: "show these Trends rows in this order (all: every one)", run: runTrends, complete: completeTrend},
		{name: "zoom", args: "[PANE]", help: "show the focused pane (or PANE) alone; again: every pane", run: runZoom, complete: completePane},
		{name: "stale", args: "T", help: "a lease waiting longer than T s is stale", run: runStale},
		{name: "iterations", args: "on | off", help: "log every engine iteration's batch", run: runIterations, complete: completeOnOff},
		{name: "save", args: "tour F.yaml", help: "write the marks (m + letter) as a tour of this run", run: runSave, complete: completeSave},
		{name: "help", aliases: []string{"h"}, args: "[COMMAND]", help: "the commands, or one", run: runHelp, complete: completeCommand},
	}
}

// lookup is the command named or aliased, nil if none.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
		for _, a := range c.aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// commandNames are the commands' names and aliases, sorted.
func commandNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
		out = append(out, c.aliases...)
	}
	sort.Strings(out)
	return out
}

// synopsis is a command as the help writes it: "break EXPR | … (b)".
func (c *command) synopsis() string {
	s := c.name
	if c.args != "" {
		s += " " + c.args
	}
	if len(c.aliases) > 0 {
		s += " (" + strings.Join(c.aliases, ", ") + ")"
	}
	return s
}

// commandHint is the line under an open command line: once a command is
// typed, its synopsis and what it does; before, the commands.
func (m *Model) commandHint() string {
	if ws := words(m.cmd.Value()); len(ws) > 0 && (len(ws) > 1 || strings.HasSuffix(m.cmd.Value(), " ")) {
		if c := lookup(ws[0].text); c != nil {
			return c.synopsis() + ": " + c.help
		}
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, " · ") + " · tab completes · ↑/↓ history · :help CMD · esc"
}

// cmdError is a command that cannot be carried out: the message, and the
// column of the input (0-based, in characters) it is about; the hint, and
// a lang error's notes.
type cmdError struct {
	col   int
	msg   string
	hint  string
	notes []string
}

func (e *cmdError) Error() string { return e.msg }

// diag is e as the diagnostic lang writes under the command line
// (lang.WriteErrorUnder), the one writer of an error with its caret.
func (e *cmdError) diag() *lang.Error {
	return &lang.Error{Pos: model.Pos{Line: 1, Col: e.col + 1}, Msg: e.msg, Hint: e.hint, Notes: e.notes}
}

// word is one word of a command, with its byte offset in the line.
type word struct {
	text string
	at   int
}

func words(line string) []word {
	var out []word
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, word{line[i:j], i})
		}
		i = j
	}
	return out
}

// col is the character column of byte offset at in line.
func col(line string, at int) int {
	at = max(0, min(at, len(line)))
	return utf8.RuneCountInString(line[:at])
}

func errAt(line string, at int, format string, args ...any) *cmdError {
	return &cmdError{col: col(line, at), msg: fmt.Sprintf(format, args...)}
}

// command carries out one command line. On an error nothing has changed.
func (m *Model) command(line string) (tea.Cmd, *cmdError) {
	ws := words(line)
	if len(ws) == 0 {
		return nil, &cmdError{col: 0, msg: "empty command", hint: m.commandHint()}
	}
	c := &call{line: line, verb: ws[0], args: ws[1:]}
	if c.cmd = lookup(c.verb.text); c.cmd == nil {
		e := &cmdError{col: 0, msg: fmt.Sprintf("unknown command `%s`", c.verb.text), hint: m.commandHint()}
		if best := spell.Nearest(c.verb.text, commandNames()); best != "" {
			e.hint = "did you mean `" + best + "`?"
		}
		return nil, e
	}
	return c.cmd.run(m, c)
}

// rest is the text after the verb (from argument k on), and its offset.
func (c *call) rest(k int) (string, int) {
	if len(c.args) <= k {
		return "", len(c.line)
	}
	return strings.TrimRight(c.line[c.args[k].at:], " \t"), c.args[k].at
}

// need is the error of a command without its arguments.
func (c *call) need(what string) *cmdError {
	if len(c.args) == 0 {
		return errAt(c.line, len(c.line), "`%s` needs %s", c.verb.text, what)
	}
	return nil
}

// none is the error of an argument given to a command that takes none.
func (c *call) none() *cmdError {
	if len(c.args) > 0 {
		return errAt(c.line, c.args[0].at, "`%s` takes nothing", c.verb.text)
	}
	return nil
}

// fileLine matches a breakpoint's place in the program: `file.sq:145`.
var fileLine = regexp.MustCompile(`^([^\s:]+\.sq):([0-9]+)$`)

// splitIf cuts `… if COND` into the text before and the condition, with
// the condition's offset in the line; no `if`: cond is "".
func splitIf(text string, at int) (before string, cond string, condAt int) {
	for i := 0; i+4 <= len(text); i++ {
		if text[i:i+4] == " if " {
			return strings.TrimRight(text[:i], " "), strings.TrimSpace(text[i+4:]), at + i + 4 + (len(text[i+4:]) - len(strings.TrimLeft(text[i+4:], " ")))
		}
	}
	return text, "", 0
}

// runBreak is break, tbreak, watch and display.
func runBreak(m *Model, c *call) (tea.Cmd, *cmdError) {
	verb := c.cmd.name
	if err := c.need("an expression"); err != nil {
		if verb == "break" || verb == "tbreak" {
			err.msg = fmt.Sprintf("`%s` needs what to stop at: %s", c.verb.text, commands[0].args)
		}
		return nil, err
	}
	text, at := c.rest(0)
	body, cond, condAt := text, "", 0
	if verb != "display" {
		body, cond, condAt = splitIf(text, at)
	}
	spec := debugger.Spec{Cond: cond, Temporary: verb == "tbreak"}
	a0 := c.args[0]
	var second *word
	if len(c.args) > 1 {
		second = &c.args[1]
	}
	field := map[string]int{"cond": condAt}
	switch {
	case verb == "watch":
		spec.Kind, spec.Expr = debugger.Watch, body
		field["expr"] = at
	case verb == "display":
		spec.Kind, spec.Expr = debugger.Display, body
		field["expr"] = at
	case a0.text == "t" && second != nil:
		t, err := m.timeArg(c.line, []word{*second}, verb+" t")
		if err != nil {
			return nil, err
		}
		if w := words(body); len(w) > 2 {
			return nil, errAt(c.line, at+w[2].at, "`%s t` takes one time", verb)
		}
		spec.Kind, spec.T = debugger.BreakTime, t
	case strings.HasPrefix(a0.text, "#") && len(words(body)) == 1:
		n, err := strconv.ParseUint(strings.ReplaceAll(a0.text[1:], ",", ""), 10, 64)
		if err != nil {
			return nil, errAt(c.line, a0.at+1, "`%s` is not an event number: #N, N ≥ 0", a0.text)
		}
		spec.Kind, spec.Count = debugger.BreakCount, n
	case a0.text == "session" && second != nil:
		n, err := serialArg(c.line, []word{*second}, verb+" session")
		if err != nil {
			return nil, err
		}
		if w := words(body); len(w) > 2 {
			return nil, errAt(c.line, at+w[2].at, "`%s session` takes one session number", verb)
		}
		spec.Kind, spec.Session = debugger.BreakSession, n
	case a0.text == "on":
		w := words(body)
		if len(w) < 2 {
			return nil, &cmdError{col: col(c.line, a0.at), msg: "`" + verb + " on` takes a class of event: " + strings.Join(debugger.ClassNames(), ", ")}
		}
		spec.Kind, spec.On = debugger.BreakOn, w[1].text
		field["on"] = at + w[1].at
		switch {
		case len(w) == 4 && w[2].text == "at":
			spec.Where = w[3].text
			field["where"] = at + w[3].at
		case len(w) > 2:
			return nil, errAt(c.line, at+w[2].at, "`%s on CLASS` then `at POOL` or `if COND`", verb)
		}
	case fileLine.MatchString(a0.text) && len(words(body)) == 1:
		sm := fileLine.FindStringSubmatch(a0.text)
		n, _ := strconv.Atoi(sm[2])
		spec.Kind, spec.File, spec.Line = debugger.BreakLine, sm[1], n
		field["line"] = a0.at
	default:
		spec.Kind, spec.Expr = debugger.BreakExpr, body
		field["expr"] = at
	}
	if err := m.drv.dbg.Check(spec); err != nil {
		return nil, specErr(c.line, field, err)
	}
	m.flash = "set " + verb + " " + strings.TrimSpace(text)
	return m.edit(func(d *debugger.Debugger) error {
		_, err := d.Create(spec)
		return err
	}), nil
}

// specErr places a spec's error at the column of the field it is about.
func specErr(line string, field map[string]int, err error) *cmdError {
	var se *debugger.SpecError
	if !asSpecError(err, &se) {
		return errAt(line, 0, "%v", err)
	}
	at := field[se.Field]
	if le := firstLangError(se.Err); le != nil {
		e := langErr(line, at, se.Err)
		if e.hint == "" {
			e.hint = se.Hint
		}
		return e
	}
	e := errAt(line, at, "%v", se.Err)
	e.hint = se.Hint
	return e
}

// breakIDs are the breakpoints' numbers given (all: every one), checked
// against the breakpoints set.
func (m *Model) breakIDs(c *call, from int) ([]int, *cmdError) {
	if len(c.args) <= from {
		return nil, errAt(c.line, len(c.line), "`%s` needs breakpoints' numbers (list shows them), or all", c.verb.text)
	}
	var ids []int
	if len(c.args) == from+1 && c.args[from].text == "all" {
		for _, b := range m.bpList() {
			ids = append(ids, b.id)
		}
		return ids, nil
	}
	for _, a := range c.args[from:] {
		n, err := strconv.Atoi(strings.TrimPrefix(a.text, "#"))
		if err != nil || m.bp(n) == nil {
			return nil, errAt(c.line, a.at, "no breakpoint, watch or display %s (list shows them)", a.text)
		}
		ids = append(ids, n)
	}
	return ids, nil
}

func (m *Model) bpList() []bpView {
	if m.frame == nil {
		return nil
	}
	return m.frame.bps
}

func (m *Model) bp(id int) *bpView {
	for _, b := range m.bpList() {
		if b.id == id {
			return &b
		}
	}
	return nil
}

func runDelete(m *Model, c *call) (tea.Cmd, *cmdError) {
	ids, err := m.breakIDs(c, 0)
	if err != nil {
		return nil, err
	}
	m.flash = "deleted " + plural(len(ids), "breakpoint", "breakpoints")
	return m.edit(func(d *debugger.Debugger) error {
		for _, id := range ids {
			if err := d.Clear(id); err != nil {
				return err
			}
		}
		return nil
	}), nil
}

func runEnable(m *Model, c *call) (tea.Cmd, *cmdError) {
	ids, err := m.breakIDs(c, 0)
	if err != nil {
		return nil, err
	}
	on := c.cmd.name == "enable"
	m.flash = c.cmd.name + "d " + plural(len(ids), "breakpoint", "breakpoints")
	return m.edit(func(d *debugger.Debugger) error {
		for _, id := range ids {
			if err := d.Enable(id, on); err != nil {
				return err
			}
		}
		return nil
	}), nil
}

func runCondition(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("a breakpoint's number and a condition"); err != nil {
		return nil, err
	}
	ids, err := m.breakIDs(&call{line: c.line, verb: c.verb, args: c.args[:1], cmd: c.cmd}, 0)
	if err != nil {
		return nil, err
	}
	cond, at := c.rest(1)
	if cond != "" {
		if _, err := lang.CompileQuery(m.prog, cond); err != nil {
			return nil, langErr(c.line, at, err)
		}
	}
	id := ids[0]
	if cond == "" {
		m.flash = fmt.Sprintf("breakpoint %d stops with no condition", id)
	} else {
		m.flash = fmt.Sprintf("breakpoint %d stops if %s", id, cond)
	}
	return m.edit(func(d *debugger.Debugger) error { return d.Condition(id, cond) }), nil
}

func runIgnore(m *Model, c *call) (tea.Cmd, *cmdError) {
	if len(c.args) != 2 {
		return nil, errAt(c.line, len(c.line), "`ignore` takes a breakpoint's number and a count: ignore 2 5")
	}
	ids, err := m.breakIDs(&call{line: c.line, verb: c.verb, args: c.args[:1], cmd: c.cmd}, 0)
	if err != nil {
		return nil, err
	}
	n, perr := strconv.ParseUint(c.args[1].text, 10, 64)
	if perr != nil {
		return nil, errAt(c.line, c.args[1].at, "`%s` is not a count of hits", c.args[1].text)
	}
	id := ids[0]
	m.flash = fmt.Sprintf("breakpoint %d ignores its next %s", id, plural(int(n), "hit", "hits"))
	return m.edit(func(d *debugger.Debugger) error { return d.Ignore(id, n) }), nil
}

func runList(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.none(); err != nil {
		return nil, err
	}
	bps := m.bpList()
	if len(bps) == 0 {
		m.msg = []string{"no breakpoint, watch or display: break EXPR, watch EXPR, display EXPR"}
		return nil, nil
	}
	m.msg = nil
	for _, b := range bps {
		m.msg = append(m.msg, bpWords(b)+bpState(b))
	}
	return nil, nil
}

// bpWords is a breakpoint as the strip and list show it: "1 break EXPR".
func bpWords(b bpView) string {
	verb := "break"
	switch {
	case b.kind == debugger.Watch:
		verb = "watch"
	case b.kind == debugger.Display:
		verb = "display"
	case b.temporary:
		verb = "tbreak"
	}
	s := fmt.Sprintf("%d %s %s", b.id, verb, b.src)
	if b.disabled {
		s += " (off)"
	}
	return s
}

// bpState is what list adds: its hits, what it ignores.
func bpState(b bpView) string {
	var parts []string
	if b.kind != debugger.Display {
		parts = append(parts, plural64(b.hits, "hit", "hits"))
	}
	if b.ignore > 0 {
		parts = append(parts, "ignores the next "+plural64(b.ignore, "hit", "hits"))
	}
	if len(parts) == 0 {
		return ""
	}
	return " · " + strings.Join(parts, " · ")
}

func runGoto(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("a time T or an event #N"); err != nil {
		return nil, err
	}
	if len(c.args) > 1 {
		return nil, errAt(c.line, c.args[1].at, "`goto` takes one time or #event")
	}
	a := c.args[0]
	if strings.HasPrefix(a.text, "#") {
		n, err := strconv.ParseUint(strings.ReplaceAll(a.text[1:], ",", ""), 10, 64)
		if err != nil {
			return nil, errAt(c.line, a.at+1, "`%s` is not an event number: #N, N ≥ 0", a.text)
		}
		m.pause()
		m.queue = nil
		return m.enqueue(request{kind: reqSeekEvent, n: n}), nil
	}
	t, err := m.timeArg(c.line, c.args, "goto")
	if err != nil {
		return nil, err
	}
	m.pause()
	m.queue = nil
	return m.enqueue(request{kind: reqSeekTime, dt: t}), nil
}

func runFollow(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("a session's number"); err != nil {
		return nil, err
	}
	n, err := serialArg(c.line, c.args, "follow")
	if err != nil {
		return nil, err
	}
	return m.setFollow(n), nil
}

func runUnfollow(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.none(); err != nil {
		return nil, err
	}
	return m.setFollow(noSession), nil
}

func runWhy(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("a session's number"); err != nil {
		return nil, err
	}
	n, err := serialArg(c.line, c.args, "why")
	if err != nil {
		return nil, err
	}
	return m.setWhy(n), nil
}

func runQueue(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("a pool, as the panes name it (D.kv[0])"); err != nil {
		return nil, err
	}
	i, err := m.poolArg(c.line, c.args[0])
	if err != nil {
		return nil, err
	}
	return m.setInspect(inspect{mode: inspectQueue, index: i}), nil
}

func runBatch(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("an engine, as the panes name it (D[0])"); err != nil {
		return nil, err
	}
	i, err := m.engineArg(c.line, c.args[0])
	if err != nil {
		return nil, err
	}
	return m.setInspect(inspect{mode: inspectBatch, index: i}), nil
}

func runPending(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.none(); err != nil {
		return nil, err
	}
	return m.setInspect(inspect{mode: inspectPending}), nil
}

func runEarlier(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.none(); err != nil {
		return nil, err
	}
	if f := m.frame; f != nil && f.log.Complete {
		m.flash = "the log holds the run from its start"
		return nil, nil
	}
	return m.enqueue(request{kind: reqEarlier}), nil
}

func runTrends(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("the rows to show, or all"); err != nil {
		return nil, err
	}
	text, at := c.rest(0)
	gp, ok := m.panes[paneGauges].(*gaugesPane)
	if !ok {
		return nil, errAt(c.line, 0, "this program has no Trends pane")
	}
	if text == "all" {
		gp.pick(nil)
		m.flash = "every trend"
		return nil, nil
	}
	var rows []int
	off := at
	for _, part := range strings.Split(text, ",") {
		name := strings.TrimSpace(part)
		i := gp.row(name)
		if i < 0 {
			e := errAt(c.line, off+strings.Index(part, name), "no Trends row `%s`", name)
			if best := spell.Nearest(name, gp.rowNames()); best != "" {
				e.hint = "did you mean `" + best + "`?"
			} else {
				e.hint = "rows: " + strings.Join(gp.rowNames(), ", ")
			}
			return nil, e
		}
		rows = append(rows, i)
		off += len(part) + 1
	}
	gp.pick(rows)
	m.show(paneGauges)
	m.flash = "trends: " + text
	return nil, nil
}

func runZoom(m *Model, c *call) (tea.Cmd, *cmdError) {
	if len(c.args) > 1 {
		return nil, errAt(c.line, c.args[1].at, "`zoom` takes one pane")
	}
	if len(c.args) == 1 {
		i := paneByName(c.args[0].text)
		if i < 0 {
			e := errAt(c.line, c.args[0].at, "unknown pane `%s`", c.args[0].text)
			e.hint = paneHint(c.args[0].text)
			return nil, e
		}
		m.shown[i], m.focus, m.zoom = true, i, i
		m.layout()
		return m.enqueue(request{kind: reqSnapshot}), nil
	}
	if m.zoom >= 0 {
		m.zoom = -1
	} else {
		m.zoom = m.focus
	}
	m.layout()
	return nil, nil
}

func runStale(m *Model, c *call) (tea.Cmd, *cmdError) {
	if err := c.need("a time in seconds"); err != nil {
		return nil, err
	}
	if len(c.args) > 1 {
		return nil, errAt(c.line, c.args[1].at, "`stale` takes one time")
	}
	t, err := strconv.ParseFloat(c.args[0].text, 64)
	if err != nil || !(t > 0) || math.IsInf(t, 0) {
		return nil, errAt(c.line, c.args[0].at, "`%s` is not a positive time in seconds", c.args[0].text)
	}
	m.setStale(t)
	return m.enqueue(request{kind: reqSnapshot}), nil
}

func runIterations(m *Model, c *call) (tea.Cmd, *cmdError) {
	if len(c.args) != 1 || (c.args[0].text != "on" && c.args[0].text != "off") {
		at := len(c.line)
		if len(c.args) > 0 {
			at = c.args[0].at
		}
		return nil, errAt(c.line, at, "`iterations` takes on or off")
	}
	on := c.args[0].text == "on"
	m.iters = on
	m.flash = "engine iterations in the log: " + c.args[0].text
	return m.edit(func(d *debugger.Debugger) error {
		d.SetIterations(on)
		return nil
	}), nil
}

func runSave(m *Model, c *call) (tea.Cmd, *cmdError) {
	if len(c.args) < 2 || c.args[0].text != "tour" {
		at := len(c.line)
		if len(c.args) > 0 {
			at = c.args[0].at
		}
		return nil, errAt(c.line, at, "`save` takes tour and a file: save tour F.yaml")
	}
	path, at := strings.TrimSpace(c.line[c.args[1].at:]), c.args[1].at
	if err := m.saveTour(path); err != nil {
		return nil, errAt(c.line, at, "%v", err)
	}
	return nil, nil
}

func runHelp(m *Model, c *call) (tea.Cmd, *cmdError) {
	if len(c.args) > 1 {
		return nil, errAt(c.line, c.args[1].at, "`help` takes one command")
	}
	if len(c.args) == 1 {
		cmd := lookup(c.args[0].text)
		if cmd == nil {
			e := errAt(c.line, c.args[0].at, "unknown command `%s`", c.args[0].text)
			if best := spell.Nearest(c.args[0].text, commandNames()); best != "" {
				e.hint = "did you mean `" + best + "`?"
			}
			return nil, e
		}
		m.msg = []string{cmd.synopsis() + ": " + cmd.help}
		return nil, nil
	}
	m.msg = nil
	for _, cmd := range commands {
		m.msg = append(m.msg, cmd.synopsis()+": "+cmd.help)
	}
	return nil, nil
}

// timeArg is a time in [0, horizon].
func (m *Model) timeArg(line string, args []word, cmd string) (float64, *cmdError) {
	if len(args) > 1 {
		return 0, errAt(line, args[1].at, "`%s` takes one time", cmd)
	}
	a := args[0]
	t, err := strconv.ParseFloat(a.text, 64)
	switch {
	case err != nil || math.IsNaN(t):
		return 0, errAt(line, a.at, "`%s` is not a time in seconds", a.text)
	case t < 0:
		return 0, errAt(line, a.at, "%s is before the start (t 0)", a.text)
	case t > m.opts.Horizon:
		return 0, errAt(line, a.at, "%s is past the horizon %s", a.text, fmtValue(m.opts.Horizon))
	}
	return t, nil
}

// serialArg is a session's number: `35` or `s35`.
func serialArg(line string, args []word, cmd string) (uint64, *cmdError) {
	if len(args) > 1 {
		return 0, errAt(line, args[1].at, "`%s` takes one session number", cmd)
	}
	a := args[0]
	n, err := strconv.ParseUint(strings.TrimPrefix(a.text, "s"), 10, 64)
	if err != nil {
		return 0, errAt(line, a.at, "`%s` is not a session number (35 or s35)", a.text)
	}
	return n, nil
}

// poolArg is a pool named as the panes name it (D.kv[0]) or as the
// language writes it (D[0].kv).
func (m *Model) poolArg(line string, a word) (int, *cmdError) {
	var labels []string
	for i, p := range m.prog.Pools {
		if p.Label == a.text || memberForm(p.Label) == a.text {
			return i, nil
		}
		labels = append(labels, p.Label)
	}
	e := errAt(line, a.at, "no pool `%s`", a.text)
	if best := spell.Nearest(a.text, labels); best != "" {
		e.hint = "did you mean `" + best + "`?"
	}
	return 0, e
}

// engineArg is an engine's stage, by its label (D[0]).
func (m *Model) engineArg(line string, a word) (int, *cmdError) {
	var labels []string
	for i, s := range m.prog.Stages {
		if s.Engine < 0 {
			continue
		}
		if s.Label == a.text {
			return i, nil
		}
		labels = append(labels, s.Label)
	}
	e := errAt(line, a.at, "no engine `%s`", a.text)
	if best := spell.Nearest(a.text, labels); best != "" {
		e.hint = "did you mean `" + best + "`?"
	} else if len(labels) > 0 {
		e.hint = "engines: " + strings.Join(labels, ", ")
	}
	return 0, e
}

// memberForm writes a queue member's pool label as the language does:
// D.kv[0] → D[0].kv; other labels stay.
func memberForm(label string) string {
	dot, br := strings.Index(label, "."), strings.LastIndex(label, "[")
	if dot < 0 || br < dot || !strings.HasSuffix(label, "]") {
		return label
	}
	return label[:dot] + label[br:] + label[dot:br]
}

// firstLangError is err's first positioned lang error (the first of an
// ErrorList), nil when it has none.
func firstLangError(err error) *lang.Error {
	var list lang.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return list[0]
	}
	var le *lang.Error
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// langErr places a lang error of an expression that starts at byte at of
// line.
func langErr(line string, at int, err error) *cmdError {
	le := firstLangError(err)
	if le == nil {
		return errAt(line, at, "%v", err)
	}
	c := at
	if le.Pos.Col > 0 {
		c = at + le.Pos.Col - 1
	}
	e := errAt(line, c, "%s", le.Msg)
	e.hint, e.notes = le.Hint, le.Notes
	return e
}

// Commands are the command line's commands, as the help and docs/cli.md
// list them: each one's synopsis and what it does.
func Commands() [][2]string {
	out := make([][2]string, len(commands))
	for i, c := range commands {
		out[i] = [2]string{c.synopsis(), c.help}
	}
	return out
}
