package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/serq/serq/debugger"
)

// Tab completion in the command line, from the command table: the
// commands' names, then each command's own words — the program's names
// (pools, stages and members as the panes label them, built-ins,
// constants, gauges, observes, its files), sessions, classes of event,
// breakpoints, panes, Trends rows.

// comp is what the last Tab offered.
type comp struct {
	all        []string // the candidates, sorted
	next       int      // the one the next Tab puts in
	start, end int      // the bytes of the line the candidate replaces
}

// complete completes the word before the cursor: one candidate is put in
// whole, several are listed under the line and their common prefix put
// in; a Tab again puts in the next candidate.
func (m *Model) complete() {
	line := m.cmd.Value()
	if c := m.comp; c != nil && len(c.all) > 1 && c.end <= len(line) {
		cand := c.all[c.next%len(c.all)]
		c.next++
		m.setLine(line[:c.start]+cand+line[c.end:], c.start+len(cand))
		c.end = c.start + len(cand)
		return
	}
	pos := len(string([]rune(line)[:min(m.cmd.Position(), len([]rune(line)))]))
	head := line[:pos]
	start := wordStart(head)
	prefix := head[start:]
	ws := words(head)
	var cands []string
	if len(ws) == 0 || len(ws) == 1 && start == ws[0].at {
		cands = commandNames()
	} else if cmd := lookup(ws[0].text); cmd != nil && cmd.complete != nil {
		args := ws[1:]
		i := len(args)
		if start < len(head) && len(args) > 0 {
			i-- // the word under way is an argument already
		}
		if start == len(head) {
			args = append(args, word{text: "", at: start})
		}
		cands = cmd.complete(m, &call{line: head, verb: ws[0], args: args, cmd: cmd}, i)
	}
	var match []string
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !seen[c] {
			seen[c] = true
			match = append(match, c)
		}
	}
	sort.Strings(match)
	switch len(match) {
	case 0:
		m.flash = "nothing to complete"
		m.comp = nil
	case 1:
		cand := match[0]
		if !strings.HasSuffix(cand, ":") && !strings.HasSuffix(cand, "(") {
			cand += " "
		}
		m.setLine(line[:start]+cand+line[pos:], start+len(cand))
		m.comp = nil
	default:
		common := commonPrefix(match)
		m.setLine(line[:start]+common+line[pos:], start+len(common))
		m.comp = &comp{all: match, start: start, end: start + len(common)}
	}
}

// setLine puts text in the command line with the cursor at byte at.
func (m *Model) setLine(text string, at int) {
	m.cmd.SetValue(text)
	m.cmd.SetCursor(len([]rune(text[:at])))
}

// wordStart is where the word under way at the end of head begins: after
// the last blank, parenthesis, comma or operator.
func wordStart(head string) int {
	for i := len(head) - 1; i >= 0; i-- {
		if strings.ContainsRune(" \t(,+-*/<>=!&|?", rune(head[i])) {
			return i + 1
		}
	}
	return 0
}

func commonPrefix(xs []string) string {
	p := xs[0]
	for _, x := range xs[1:] {
		for !strings.HasPrefix(x, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// exprWords are the words an expression may use.
func (m *Model) exprWords() []string {
	n := m.names
	var out []string
	for _, f := range n.Funcs {
		out = append(out, f+"(")
	}
	return append(append(out, n.Values...), n.Labels...)
}

func completeExpr(m *Model, c *call, i int) []string {
	if i > 0 && c.args[i-1].text == "if" {
		return m.exprWords()
	}
	return append(m.exprWords(), "if")
}

func completeBreak(m *Model, c *call, i int) []string {
	if i == 0 {
		out := append([]string{"t", "session", "on"}, m.exprWords()...)
		for _, f := range m.names.Files {
			out = append(out, f+":")
		}
		return out
	}
	switch a0 := c.args[0].text; {
	case a0 == "on" && i == 1:
		return debugger.ClassNames()
	case a0 == "on" && i == 2:
		return []string{"at", "if"}
	case a0 == "on" && i == 3 && c.args[2].text == "at":
		return m.names.Labels
	case a0 == "session" && i == 1:
		return completeSession(m, c, 0)
	}
	return completeExpr(m, c, i)
}

// completeSession offers the sessions the screen shows: those with a
// lease or a flow, the followed one, those of the log's last lines.
func completeSession(m *Model, _ *call, _ int) []string {
	f := m.frame
	if f == nil {
		return nil
	}
	seen := map[uint64]bool{}
	for _, p := range f.snap.Pools {
		for _, l := range p.Leases {
			seen[l.Session] = true
		}
	}
	for _, s := range f.snap.Stages {
		for _, fl := range s.Flows {
			seen[fl.Session] = true
		}
	}
	for i := f.log.Len() - 1; i >= 0 && i >= f.log.Len()-200; i-- {
		if e := f.log.At(i); !e.System {
			seen[e.Session] = true
		}
	}
	var out []string
	for s := range seen {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

func completePool(m *Model, _ *call, i int) []string {
	if i > 0 {
		return nil
	}
	var out []string
	for _, p := range m.prog.Pools {
		out = append(out, p.Label)
	}
	return out
}

func completeEngine(m *Model, _ *call, i int) []string {
	if i > 0 {
		return nil
	}
	var out []string
	for _, s := range m.prog.Stages {
		if s.Engine >= 0 {
			out = append(out, s.Label)
		}
	}
	return out
}

func completeBreakID(m *Model, _ *call, _ int) []string {
	out := []string{"all"}
	for _, b := range m.bpList() {
		out = append(out, fmt.Sprint(b.id))
	}
	return out
}

func completeCondition(m *Model, c *call, i int) []string {
	if i == 0 {
		return completeBreakID(m, c, i)[1:]
	}
	return m.exprWords()
}

func completePane(_ *Model, _ *call, i int) []string {
	if i > 0 {
		return nil
	}
	return paneNames[:]
}

func completeTrend(m *Model, _ *call, _ int) []string {
	gp, ok := m.panes[paneGauges].(*gaugesPane)
	if !ok {
		return nil
	}
	return append(gp.rowNames(), "all")
}

func completeOnOff(_ *Model, _ *call, i int) []string {
	if i > 0 {
		return nil
	}
	return []string{"on", "off"}
}

func completeSave(_ *Model, _ *call, i int) []string {
	if i > 0 {
		return nil
	}
	return []string{"tour"}
}

func completeCommand(_ *Model, _ *call, i int) []string {
	if i > 0 {
		return nil
	}
	return commandNames()
}
