package tui

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/internal/spell"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
)

// The command line's commands (`:`), as gdb names them where it can.
const commandHelp = "break EXPR | break t T | break session N | break on expiry|late-read|down|failed-read|failure | watch EXPR | list | delete N | " +
	"goto T | goto #N | follow N | unfollow | why N | stale T | iterations on|off | save tour F"

// cmdError is a command that cannot be carried out: the message, and the
// column of the input (0-based, in characters) it is about.
type cmdError struct {
	col  int
	msg  string
	hint string
}

func (e *cmdError) Error() string { return e.msg }

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
		return nil, &cmdError{col: 0, msg: "empty command", hint: commandHelp}
	}
	verb, args := ws[0], ws[1:]
	rest := func() (string, int) { // the text after the verb, and its offset
		if len(args) == 0 {
			return "", len(line)
		}
		return strings.TrimRight(line[args[0].at:], " \t"), args[0].at
	}
	need := func(what string) *cmdError {
		if len(args) == 0 {
			return errAt(line, len(line), "`%s` needs %s", verb.text, what)
		}
		return nil
	}
	switch verb.text {
	case "break", "b", "watch", "w":
		watch := verb.text == "watch" || verb.text == "w"
		if err := need("an expression"); err != nil {
			return nil, err
		}
		b := breakpoint{id: m.nextID, watch: watch}
		src, at := rest()
		switch {
		case !watch && args[0].text == "t" && len(args) >= 2:
			t, err := m.timeArg(line, args[1:], "break t")
			if err != nil {
				return nil, err
			}
			b.kind, b.t, b.src = breakTime, t, args[1].text
		case !watch && args[0].text == "session" && len(args) >= 2:
			n, err := serialArg(line, args[1:], "break session")
			if err != nil {
				return nil, err
			}
			b.kind, b.serial, b.src = breakSession, n, args[1].text
		case !watch && args[0].text == "on" && len(args) >= 1:
			if len(args) != 2 || eventWhat(args[1].text) == interp.EvNone {
				var kinds []string
				for _, k := range eventKinds {
					kinds = append(kinds, k.kind)
				}
				col := args[0].at
				if len(args) >= 2 {
					col = args[1].at
				}
				err := errAt(line, col, "`break on` takes a kind of event: %s", strings.Join(kinds, ", "))
				if len(args) >= 2 {
					if best := spell.Nearest(args[1].text, kinds); best != "" {
						err.hint = "did you mean `" + best + "`?"
					}
				}
				return nil, err
			}
			b.kind, b.on, b.src = breakOn, args[1].text, "on "+args[1].text
		default:
			e, err := compileQuery(m.prog, src)
			if err != nil {
				return nil, langErr(line, at, err)
			}
			b.kind, b.expr, b.src = breakExpr, e, src
		}
		m.nextID++
		m.breaks = append(m.breaks, b)
		m.flash = "set " + b.String()
		return m.enqueue(request{kind: reqSnapshot}), nil
	case "list", "l", "info":
		if len(args) > 0 {
			return nil, errAt(line, args[0].at, "`list` takes nothing")
		}
		if len(m.breaks) == 0 {
			m.msg = []string{"no breakpoint and no watch: break EXPR, watch EXPR"}
			return nil, nil
		}
		m.msg = nil
		for _, b := range m.breaks {
			m.msg = append(m.msg, b.String())
		}
		return nil, nil
	case "delete", "d":
		if err := need("a breakpoint's number (list shows them)"); err != nil {
			return nil, err
		}
		if len(args) > 1 {
			return nil, errAt(line, args[1].at, "`delete` takes one number")
		}
		n, err := strconv.Atoi(args[0].text)
		k := -1
		for i, b := range m.breaks {
			if err == nil && b.id == n {
				k = i
			}
		}
		if k < 0 {
			return nil, errAt(line, args[0].at, "no breakpoint or watch %s (list shows them)", args[0].text)
		}
		m.flash = "deleted " + m.breaks[k].String()
		m.breaks = append(m.breaks[:k:k], m.breaks[k+1:]...)
		return m.enqueue(request{kind: reqSnapshot}), nil
	case "goto", "g", "run":
		if err := need("a time T or an event #N"); err != nil {
			return nil, err
		}
		if len(args) > 1 {
			return nil, errAt(line, args[1].at, "`goto` takes one time or #event")
		}
		a := args[0]
		if strings.HasPrefix(a.text, "#") {
			n, err := strconv.ParseUint(strings.ReplaceAll(a.text[1:], ",", ""), 10, 64)
			if err != nil {
				return nil, errAt(line, a.at+1, "`%s` is not an event number: #N, N ≥ 0", a.text)
			}
			m.pause()
			m.queue = nil
			return m.enqueue(request{kind: reqSeekEvent, n: n}), nil
		}
		t, err := m.timeArg(line, args, "goto")
		if err != nil {
			return nil, err
		}
		m.pause()
		m.queue = nil
		return m.enqueue(request{kind: reqSeekTime, dt: t}), nil
	case "follow", "f":
		if err := need("a session's number"); err != nil {
			return nil, err
		}
		n, err := serialArg(line, args, "follow")
		if err != nil {
			return nil, err
		}
		return m.setFollow(n), nil
	case "unfollow":
		if len(args) > 0 {
			return nil, errAt(line, args[0].at, "`unfollow` takes nothing")
		}
		return m.setFollow(noSession), nil
	case "why":
		if err := need("a session's number"); err != nil {
			return nil, err
		}
		n, err := serialArg(line, args, "why")
		if err != nil {
			return nil, err
		}
		return m.setWhy(n), nil
	case "iterations":
		if len(args) != 1 || (args[0].text != "on" && args[0].text != "off") {
			at := len(line)
			if len(args) > 0 {
				at = args[0].at
			}
			return nil, errAt(line, at, "`iterations` takes on or off")
		}
		m.iters = args[0].text == "on"
		m.flash = "engine iterations in the log: " + args[0].text
		return nil, nil
	case "save":
		if len(args) < 2 || args[0].text != "tour" {
			at := len(line)
			if len(args) > 0 {
				at = args[0].at
			}
			return nil, errAt(line, at, "`save` takes tour and a file: save tour F.yaml")
		}
		path, at := strings.TrimSpace(line[args[1].at:]), args[1].at
		if err := m.saveTour(path); err != nil {
			return nil, errAt(line, at, "%v", err)
		}
		return nil, nil
	case "stale":
		if err := need("a time in seconds"); err != nil {
			return nil, err
		}
		if len(args) > 1 {
			return nil, errAt(line, args[1].at, "`stale` takes one time")
		}
		t, err := strconv.ParseFloat(args[0].text, 64)
		if err != nil || !(t > 0) || math.IsInf(t, 0) {
			return nil, errAt(line, args[0].at, "`%s` is not a positive time in seconds", args[0].text)
		}
		m.setStale(t)
		return m.enqueue(request{kind: reqSnapshot}), nil
	}
	return nil, &cmdError{col: 0, msg: fmt.Sprintf("unknown command `%s`", verb.text), hint: commandHelp}
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
	e.hint = le.Hint
	return e
}
