package tui

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/internal/spell"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// A Tour is a prepared walk through a run: the run it was made on, and
// stops, each with a moment, a caption and what the screen shows there.
// `>` goes to the next stop, `<` to the previous one. It is read from
// YAML:
//
//	title: One request, then the coupling
//	run:                          # the run it was made on (Tour.Check)
//	  program: llmd_nixl_pull.sq
//	  hash: sha256:…              # of the program's text
//	  instance: [examples/…/pressure.sq]
//	  args: {Lambda: 1.2, blocksD: 1200}   # inputs not at their default
//	  seed: 1
//	  warmup: 0
//	  horizon: 2000
//	stops:
//	  - name: an arrival
//	    at: 12.5                  # a time, s; or event: 1234; or when: EXPR
//	    caption: |
//	      Session 35 arrives at the router.
//	    show: [leases, session, log]
//	    focus: session
//	    follow: 35
//	    trends: ["P.kv[0] leased", "D[0] waiting"]   # the Trends rows, in order (quoted: [ ] are YAML's)
//	    speed: 0.25               # run to the stop at this speed, s/s
//
// The stops' moments are in order: a stop at a time or an event is not
// before the stop at a time or an event before it.
type Tour struct {
	File  string
	Title string
	Stops []Stop
	// Run is the run the tour was made on, nil for a tour that names
	// none; runPos is where the file says it.
	Run    *RunID
	runPos model.Pos
	// Warning is what Check found that does not stop the tour from
	// playing (another version of the program, no run named), shown when
	// it starts.
	Warning string
}

// Stop is one stop of a tour.
type Stop struct {
	Name    string
	Kind    StopKind
	T       float64 // StopTime: the clock at the stop
	Event   uint64  // StopEvent: the events processed at the stop
	When    string  // StopWhen: a break expression; the first event after which it holds
	Caption string
	Show    []int // the panes shown, in pane numbers; nil leaves them as they are
	Focus   int   // the focused pane; -1 leaves it
	Follow  uint64
	// FollowSet: the stop follows Follow (noSession: none).
	FollowSet bool
	Speed     float64 // > 0: run to the stop at this speed; 0: jump
	// Trends are the Trends rows shown, in order, by name; nil leaves
	// them as they are.
	Trends []string
	Pos    model.Pos

	expr *model.Expr
}

// StopKind says what a stop's moment is.
type StopKind int

const (
	StopTime StopKind = iota
	StopEvent
	StopWhen
)

// paneNames are the panes' names in tours and commands, by pane number.
var paneNames = [numPanes]string{"leases", "kv", "nic", "trends", "log", "deploy", "why", "session", "report", "inspect"}

// paneByName is the pane named, -1 if none; `gauges`, the Trends pane's
// name in older tours, reads as `trends`.
func paneByName(s string) int {
	if s == "gauges" {
		s = "trends"
	}
	for i, n := range paneNames {
		if n == s {
			return i
		}
	}
	return -1
}

// paneHint is the hint of an unknown pane: the pane nearest to a misspelt
// name (`gauges`, the Trends pane's old name, is `trends`), else the
// panes' names.
func paneHint(name string) string {
	if spell.Nearest(name, []string{"gauges"}) != "" {
		return "did you mean `trends`?"
	}
	if best := spell.Nearest(name, paneNames[:]); best != "" {
		return "did you mean `" + best + "`?"
	}
	return "panes: " + strings.Join(paneNames[:], ", ")
}

var stopKeys = []string{"name", "at", "event", "when", "caption", "show", "focus", "follow", "trends", "speed"}

// LoadTour reads a tour for a run of p to horizon. Every mistake is a
// *lang.Error at the file's line and column, with a hint; the first is
// returned, as a lang.ErrorList.
func LoadTour(path string, p *model.Program, horizon float64) (*Tour, error) {
	src, err := TourKind.Read(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the tour %s: %w", path, unwrapPathErr(err))
	}
	return ParseTour(path, src, p, horizon)
}

// TourKind is a tour file as serq reads it (internal/safeio): a .yaml or
// .yml file of at most [MaxTourSize] bytes, whose lines an error quotes.
var TourKind = safeio.Kind{What: "a tour", Exts: []string{".yaml", ".yml"}, Limit: MaxTourSize, Quote: []string{".yaml", ".yml"}}

// The tour's limits. A tour is a title and a list of stops, each a
// mapping with a list of panes: four levels deep, a few kilobytes.
const (
	// MaxTourSize caps a tour file, in bytes.
	MaxTourSize = 1 << 20
	// MaxTourNesting caps how deeply a tour's YAML nests (block and flow
	// collections within one another), checked before the YAML parser
	// runs: its memory grows with the square of the depth.
	MaxTourNesting = 16
)

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseTour is LoadTour of the text src, named path in errors.
func ParseTour(path string, src []byte, p *model.Program, horizon float64) (*Tour, error) {
	tp := &tourParser{file: path, prog: p, horizon: horizon}
	t, err := tp.parse(src)
	if err != nil {
		var le *lang.Error
		if errors.As(err, &le) {
			return nil, lang.ErrorList{le}
		}
		return nil, err
	}
	return t, nil
}

type tourParser struct {
	file    string
	prog    *model.Program
	horizon float64
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// tokenOf is the token an error about node n points at: a mapping's first
// key.
func tokenOf(n ast.Node) *token.Token {
	if kvs, ok := mapping(n); ok && len(kvs) > 0 {
		return kvs[0].Key.GetToken()
	}
	return n.GetToken()
}

func (tp *tourParser) errAt(tk *token.Token, hint, format string, args ...any) *lang.Error {
	pos := model.Pos{File: tp.file, Line: 1, Col: 1}
	if tk != nil && tk.Position != nil {
		pos.Line, pos.Col = tk.Position.Line, tk.Position.Column
	}
	return &lang.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

func (tp *tourParser) parse(src []byte) (*Tour, error) {
	if line, col, ok := tooDeep(src, MaxTourNesting); !ok {
		return nil, &lang.Error{Pos: model.Pos{File: tp.file, Line: line, Col: col},
			Msg:  fmt.Sprintf("the tour nests deeper than %d levels, the limit", MaxTourNesting),
			Hint: "a tour is `stops:` and a list of stops, each a mapping of keys with a list of panes"}
	}
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			msg := ye.GetMessage()
			return nil, tp.errAt(ye.GetToken(), "a tour is YAML: `stops:` and a list of stops, each `- at: T` with `caption: …`", "%s", msg)
		}
		return nil, tp.errAt(nil, "", "%v", err)
	}
	t := &Tour{File: tp.file}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, tp.errAt(nil, "write `stops:` and a list of stops, each `- at: T` with `caption: …`", "a tour is one YAML document with stops")
	}
	top, ok := mapping(f.Docs[0].Body)
	if !ok {
		return nil, tp.errAt(f.Docs[0].Body.GetToken(), "write `stops:` and a list of stops", "a tour is a mapping with `title` and `stops`")
	}
	var stops ast.Node
	for _, kv := range top {
		k := keyText(kv)
		switch k {
		case "title":
			if t.Title, err = tp.str(kv.Value, "title"); err != nil {
				return nil, err
			}
			t.Title = safeio.PrintableLine(t.Title)
		case "stops":
			stops = kv.Value
		case "run":
			if t.Run, err = tp.run(kv.Value); err != nil {
				return nil, err
			}
			tk := kv.Key.GetToken()
			t.runPos = model.Pos{File: tp.file, Line: tk.Position.Line, Col: tk.Position.Column}
		default:
			return nil, tp.errAt(kv.Key.GetToken(), "a tour takes title, run and stops"+suggest(k, []string{"title", "run", "stops"}), "unknown key `%s`", k)
		}
	}
	if stops == nil {
		return nil, tp.errAt(tokenOf(f.Docs[0].Body), "add `stops:` and a list of stops, each `- at: T` with `caption: …`", "the tour has no stops")
	}
	seq, ok := stops.(*ast.SequenceNode)
	if !ok || len(seq.Values) == 0 {
		return nil, tp.errAt(tokenOf(stops), "each stop is a list item: `- at: T`", "`stops` is a list of stops")
	}
	for _, n := range seq.Values {
		s, err := tp.stop(n)
		if err != nil {
			return nil, err
		}
		if err := tp.inOrder(t.Stops, s); err != nil {
			return nil, err
		}
		t.Stops = append(t.Stops, s)
	}
	inherit(t.Stops)
	return t, nil
}

// inOrder refuses a stop whose moment is before an earlier stop's: a time
// before an earlier time, an event before an earlier event.
func (tp *tourParser) inOrder(before []Stop, s Stop) error {
	for i := len(before) - 1; i >= 0; i-- {
		b := before[i]
		if b.Kind != s.Kind || s.Kind == StopWhen {
			continue
		}
		bad := s.Kind == StopTime && s.T < b.T || s.Kind == StopEvent && s.Event < b.Event
		if !bad {
			return nil
		}
		what := func(x Stop) string {
			if x.Kind == StopTime {
				return "at " + num(x.T)
			}
			return fmt.Sprintf("event %d", x.Event)
		}
		return &lang.Error{Pos: s.Pos, Msg: fmt.Sprintf("stop %d (%s) is before stop %d (%s): stops are in the run's order", len(before)+1,
			what(s), i+1, what(b)), Hint: "put the stops in the order of their moments"}
	}
	return nil
}

// inherit gives each stop the panes, focus and session of the stop before
// it where it says nothing of them, so a stop shows the same screen
// whichever way it is reached.
func inherit(stops []Stop) {
	for i := 1; i < len(stops); i++ {
		s, prev := &stops[i], stops[i-1]
		if s.Show == nil && prev.Show != nil {
			s.Show = append([]int(nil), prev.Show...)
			if s.Focus >= 0 && !containsInt(s.Show, s.Focus) {
				s.Show = append(s.Show, s.Focus)
			}
		}
		if s.Focus < 0 && (s.Show == nil || containsInt(s.Show, prev.Focus)) {
			s.Focus = prev.Focus
		}
		if !s.FollowSet && prev.FollowSet {
			s.Follow, s.FollowSet = prev.Follow, true
		}
	}
}

// mapping is a node's key-value pairs, if it is a mapping.
func mapping(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch n := n.(type) {
	case *ast.MappingNode:
		return n.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{n}, true
	}
	return nil, false
}

func keyText(kv *ast.MappingValueNode) string {
	if s, ok := kv.Key.(*ast.StringNode); ok {
		return s.Value
	}
	return kv.Key.String()
}

func (tp *tourParser) stop(n ast.Node) (Stop, error) {
	s := Stop{Focus: -1}
	kvs, ok := mapping(n)
	if !ok {
		return s, tp.errAt(n.GetToken(), "a stop is a mapping: `- at: 12.5` then `caption: …` indented under it", "a stop must be a mapping of keys")
	}
	if len(kvs) == 0 { // `{}`
		return s, tp.errAt(n.GetToken(), "add `at: T` (a time), `event: N` or `when: EXPR` (a condition, as for :break)", "the stop does not say when it is")
	}
	tk := kvs[0].Key.GetToken()
	s.Pos = model.Pos{File: tp.file, Line: tk.Position.Line, Col: tk.Position.Column}
	var moment *ast.MappingValueNode
	seen := map[string]bool{}
	for _, kv := range kvs {
		k := keyText(kv)
		if seen[k] {
			return s, tp.errAt(kv.Key.GetToken(), "write each key once", "`%s` is given twice", k)
		}
		seen[k] = true
		var err error
		switch k {
		case "name":
			s.Name, err = tp.str(kv.Value, k)
			s.Name = safeio.PrintableLine(s.Name)
		case "caption":
			// shown on the terminal and in a --record cast: no escape
			// sequence of the file's reaches them
			s.Caption, err = tp.str(kv.Value, k)
			s.Caption = strings.TrimRight(safeio.Printable(s.Caption), "\n")
		case "at", "event", "when":
			if moment != nil {
				return s, tp.errAt(kv.Key.GetToken(), "a stop has one of at (a time), event (a number) or when (a condition)",
					"`%s` and `%s` both say when the stop is", keyText(moment), k)
			}
			moment = kv
			err = tp.moment(&s, k, kv.Value)
		case "show":
			err = tp.show(&s, kv.Value)
		case "focus":
			var name string
			if name, err = tp.str(kv.Value, k); err == nil {
				if s.Focus = paneByName(name); s.Focus < 0 {
					err = tp.errAt(kv.Value.GetToken(), paneHint(name), "unknown pane `%s`", name)
				}
			}
		case "follow":
			err = tp.follow(&s, kv.Value)
		case "trends":
			err = tp.trends(&s, kv.Value)
		case "speed":
			var v float64
			if v, err = tp.number(kv.Value, k); err == nil && !(v >= minSpeed && v <= maxSpeed) {
				err = tp.errAt(kv.Value.GetToken(), fmt.Sprintf("a speed in simulated s per s, from 1/1024 to %d", maxSpeed),
					"speed %s is out of range", num(v))
			}
			s.Speed = v
		default:
			return s, tp.errAt(kv.Key.GetToken(), "a stop takes "+strings.Join(stopKeys, ", ")+suggest(k, stopKeys), "unknown key `%s`", k)
		}
		if err != nil {
			return s, err
		}
	}
	if moment == nil {
		return s, tp.errAt(tk, "add `at: T` (a time), `event: N` or `when: EXPR` (a condition, as for :break)", "the stop does not say when it is")
	}
	if s.Focus >= 0 && s.Show != nil && !containsInt(s.Show, s.Focus) {
		s.Show = append(s.Show, s.Focus)
	}
	return s, nil
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// suggest is "; did you mean K?" for the key nearest to k, if near
// (internal/spell).
func suggest(k string, keys []string) string {
	best := spell.Nearest(k, keys)
	if best == "" {
		return ""
	}
	return "; did you mean `" + best + "`?"
}

func (tp *tourParser) str(n ast.Node, key string) (string, error) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, nil
	case *ast.LiteralNode:
		return v.Value.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return n.GetToken().Value, nil
	}
	return "", tp.errAt(n.GetToken(), "write text, quoted if it has `:` or `#`, or a block after `|`", "`%s` must be text", key)
}

func (tp *tourParser) number(n ast.Node, key string) (float64, error) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		f, err := strconv.ParseFloat(strings.ReplaceAll(v.Token.Value, "_", ""), 64)
		if err == nil {
			return f, nil
		}
	case *ast.FloatNode:
		if !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) {
			return v.Value, nil
		}
	}
	return 0, tp.errAt(n.GetToken(), "write a number, e.g. 12.5", "`%s` must be a number", key)
}

func (tp *tourParser) moment(s *Stop, key string, n ast.Node) error {
	switch key {
	case "at":
		t, err := tp.number(n, key)
		if err != nil {
			return err
		}
		switch {
		case t < 0:
			return tp.errAt(n.GetToken(), "a time from 0 to the horizon", "at %s is before the start (t 0)", num(t))
		case t > tp.horizon:
			return tp.errAt(n.GetToken(), "the run ends at the horizon "+num(tp.horizon)+
				": give a --horizon past it, or an earlier time", "at %s is past the horizon %s", num(t), num(tp.horizon))
		}
		s.Kind, s.T = StopTime, t
	case "event":
		v, ok := n.(*ast.IntegerNode)
		var e uint64
		var err error
		if ok {
			e, err = strconv.ParseUint(strings.ReplaceAll(v.Token.Value, "_", ""), 10, 64)
		}
		if !ok || err != nil {
			return tp.errAt(n.GetToken(), "an event number N ≥ 0: the state after N events", "`event` must be a whole number")
		}
		s.Kind, s.Event = StopEvent, e
	case "when":
		src, err := tp.str(n, key)
		if err != nil {
			return err
		}
		e, err := lang.CompileQuery(tp.prog, src)
		if err != nil {
			return tp.exprErr(n, src, err)
		}
		s.Kind, s.When, s.expr = StopWhen, src, e
	}
	return nil
}

// exprErr places a lang error of the condition src, written at node n.
func (tp *tourParser) exprErr(n ast.Node, src string, err error) error {
	le := firstLangError(err)
	if le == nil {
		return tp.errAt(n.GetToken(), "", "%v", err)
	}
	tk := n.GetToken()
	out := tp.errAt(tk, le.Hint, "%s", le.Msg)
	if tk != nil && tk.Position != nil && le.Pos.Line <= 1 && le.Pos.Col > 0 {
		off := 0
		if tk.Type == token.DoubleQuoteType || tk.Type == token.SingleQuoteType {
			off = 1
		}
		out.Pos.Col += off + le.Pos.Col - 1
	}
	return out
}

func (tp *tourParser) show(s *Stop, n ast.Node) error {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return tp.errAt(n.GetToken(), "a list of panes, e.g. [leases, session, log]; panes: "+strings.Join(paneNames[:], ", "),
			"`show` must be a list of panes")
	}
	s.Show = []int{}
	for _, v := range seq.Values {
		name, err := tp.str(v, "show")
		if err != nil {
			return err
		}
		i := paneByName(name)
		if i < 0 {
			return tp.errAt(v.GetToken(), paneHint(name), "unknown pane `%s`", name)
		}
		if !containsInt(s.Show, i) {
			s.Show = append(s.Show, i)
		}
	}
	return nil
}

func (tp *tourParser) follow(s *Stop, n ast.Node) error {
	if v, ok := n.(*ast.StringNode); ok && v.Value == "none" {
		s.Follow, s.FollowSet = noSession, true
		return nil
	}
	v, ok := n.(*ast.IntegerNode)
	var k uint64
	var err error
	if ok {
		k, err = strconv.ParseUint(v.Token.Value, 10, 64)
	}
	if !ok || err != nil || k == noSession {
		return tp.errAt(n.GetToken(), "a session's number, e.g. 35, or none", "`follow` must be a session number")
	}
	s.Follow, s.FollowSet = k, true
	return nil
}

// mark is a moment marked with `m` and a letter: the screen then.
type mark struct {
	events uint64
	time   float64
	follow uint64
	shown  [numPanes]bool
	focus  int
	trends []string // the Trends rows shown, in order; nil: all
}

// tourText writes marks as a tour of run, in the order of their events.
func tourText(title string, run RunID, marks map[rune]mark) string {
	letters := make([]rune, 0, len(marks))
	for r := range marks {
		letters = append(letters, r)
	}
	sort.Slice(letters, func(i, j int) bool {
		a, b := marks[letters[i]], marks[letters[j]]
		if a.events != b.events {
			return a.events < b.events
		}
		return letters[i] < letters[j]
	})
	var b strings.Builder
	b.WriteString("# A tour of serq tui's marks: serq tui FILE --tour THIS\n")
	fmt.Fprintf(&b, "title: %s\n", strconv.Quote(title))
	b.WriteString(run.yaml())
	b.WriteString("stops:\n")
	for _, r := range letters {
		mk := marks[r]
		fmt.Fprintf(&b, "  - name: %s\n", strconv.Quote("mark "+string(r)))
		fmt.Fprintf(&b, "    event: %d\n", mk.events)
		fmt.Fprintf(&b, "    caption: %s\n", strconv.Quote(fmt.Sprintf("Mark %c: t %s s, event %d.", r,
			strconv.FormatFloat(mk.time, 'f', 4, 64), mk.events)))
		var show []string
		for _, i := range focusOrder {
			if mk.shown[i] {
				show = append(show, paneNames[i])
			}
		}
		fmt.Fprintf(&b, "    show: [%s]\n", strings.Join(show, ", "))
		if mk.focus >= 0 && mk.shown[mk.focus] {
			fmt.Fprintf(&b, "    focus: %s\n", paneNames[mk.focus])
		}
		if mk.follow != noSession {
			fmt.Fprintf(&b, "    follow: %d\n", mk.follow)
		} else {
			b.WriteString("    follow: none\n")
		}
		if mk.trends != nil {
			var rows []string
			for _, t := range mk.trends {
				rows = append(rows, strconv.Quote(t))
			}
			fmt.Fprintf(&b, "    trends: [%s]\n", strings.Join(rows, ", "))
		}
	}
	return b.String()
}
