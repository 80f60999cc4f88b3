package debugger

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/serq/serq/internal/spell"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/model"
)

// Kind is what a breakpoint waits for.
type Kind uint8

const (
	BreakExpr    Kind = iota // Expr becomes true: false (or NaN) after one event, true after the next
	BreakTime                // the clock reaches T: the first event at or after it
	BreakCount               // Count events have been processed (a tour's stop at an event)
	BreakSession             // an event of session Session
	BreakLine                // a session begins a statement at File:Line
	BreakOn                  // an event of class On (at Where, if given)
	Watch                    // Expr's value changes
	Display                  // Expr's value, shown; it never stops the run
)

var kindNames = [...]string{"break", "break t", "break #", "break session", "break line", "break on", "watch", "display"}

func (k Kind) String() string { return kindNames[k] }

// Spec says what breakpoint to create; Kind says which fields it reads.
type Spec struct {
	Kind    Kind
	Expr    string  // BreakExpr, Watch, Display: a debugger expression (lang.CompileQuery)
	T       float64 // BreakTime
	Count   uint64  // BreakCount
	Session uint64  // BreakSession
	File    string  // BreakLine: the file's name (its base name will do)
	Line    int     // BreakLine
	On      string  // BreakOn: a class of event (EventClasses)
	Where   string  // BreakOn: only at this pool, stage or member ("D.kv[0]"; a family "D.kv" takes its members); "" for anywhere
	Cond    string  // an expression that must hold when it hits; "" for none
	// Temporary: deleted when it stops the run. Ignore: its next Ignore
	// hits do not stop the run. Hidden: a front end's own (a tour's stop),
	// left out of Breakpoints.
	Temporary bool
	Ignore    uint64
	Hidden    bool
}

// Breakpoint is a breakpoint, a watchpoint or a display, numbered in the
// order they were created.
type Breakpoint struct {
	ID int
	Spec
	expr, cond *model.Expr
	class      *EventClass
	// Disabled breakpoints are not checked; Hits counts the times it hit
	// running forward (ignored hits included).
	Disabled bool
	Hits     uint64
	// Value is a watch's or display's value after the last operation
	// (NaN before one, or when it cannot be read).
	Value float64
}

// Src is the breakpoint as its spec says it: the expression, "t 30",
// "#5312", "session 35", "file.sq:145", "on preemption at D.kv[0]", with
// " if COND" after a condition.
func (b *Breakpoint) Src() string {
	var s string
	switch b.Kind {
	case BreakExpr, Watch, Display:
		s = b.Expr
	case BreakTime:
		s = "t " + fmtNum(b.T)
	case BreakCount:
		s = fmt.Sprintf("#%d", b.Count)
	case BreakSession:
		s = fmt.Sprintf("session %d", b.Session)
	case BreakLine:
		s = fmt.Sprintf("%s:%d", b.File, b.Line)
	case BreakOn:
		s = "on " + b.On
		if b.Where != "" {
			s += " at " + b.Where
		}
	}
	if b.Cond != "" {
		s += " if " + b.Cond
	}
	return s
}

// SpecError is a spec that does not compile: Field names the part at
// fault ("expr", "cond", "line", "on", "where", "t") and Err is a
// *lang.Error (its column counted in that part's text) or a plain error.
type SpecError struct {
	Field string
	Err   error
	Hint  string
}

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

// EventClass is a class of event a breakpoint can stop at: its name, the
// traced kinds it covers, and what it is in words.
type EventClass struct {
	Name  string
	Kinds []interp.EventKind
	Words string
}

// EventClasses are the classes of event `break on` takes.
var EventClasses = []EventClass{
	{"arrival", []interp.EventKind{interp.EvArrived}, "a session arrived"},
	{"admission", []interp.EventKind{interp.EvAdmitted}, "a request was admitted at a pool"},
	{"queued", []interp.EventKind{interp.EvQueued}, "a request queued at a pool behind another"},
	{"rejection", []interp.EventKind{interp.EvRejected}, "a request was rejected: it asks more than a pool's cap"},
	{"preemption", []interp.EventKind{interp.EvPreempted}, "a request was preempted"},
	{"lease", []interp.EventKind{interp.EvLeased}, "a lease began"},
	{"lease-end", []interp.EventKind{interp.EvLeaseEnded, interp.EvLeaseExpired, interp.EvLeaseLost}, "a lease ended, expired or was lost"},
	{"expiry", []interp.EventKind{interp.EvLeaseExpired}, "a lease expired"},
	{"stranded", []interp.EventKind{interp.EvLeaseStranded}, "a lease was stranded"},
	{"late-read", []interp.EventKind{interp.EvLateRead}, "a read after its lease expired"},
	{"failed-read", []interp.EventKind{interp.EvReadFailed}, "a read failed"},
	{"failure", []interp.EventKind{interp.EvFailed}, "a request failed"},
	{"down", []interp.EventKind{interp.EvDown}, "a member or stage went down"},
	{"up", []interp.EventKind{interp.EvUp}, "a member or stage came back"},
	{"transfer", []interp.EventKind{interp.EvTransfer}, "a transfer began"},
	{"end", []interp.EventKind{interp.EvEnded}, "a session ended"},
}

// Class is the class named, nil if none.
func Class(name string) *EventClass {
	for i := range EventClasses {
		if EventClasses[i].Name == name {
			return &EventClasses[i]
		}
	}
	return nil
}

// ClassNames are the classes' names, in order.
func ClassNames() []string {
	out := make([]string, len(EventClasses))
	for i, c := range EventClasses {
		out[i] = c.Name
	}
	return out
}

// Create compiles a spec into a breakpoint and sets it. On an error
// nothing is set.
func (d *Debugger) Create(s Spec) (*Breakpoint, error) {
	b, err := d.compile(s)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b.ID = d.nextID
	d.nextID++
	d.bps = append(d.bps, b)
	if b.expr != nil {
		b.Value = d.sim().Query(b.expr)
	}
	d.setReach()
	return b, nil
}

// compile compiles a spec; it reads only the program.
func (d *Debugger) compile(s Spec) (*Breakpoint, error) {
	b := &Breakpoint{Spec: s, Value: math.NaN()}
	var err error
	switch s.Kind {
	case BreakExpr, Watch, Display:
		if b.expr, err = lang.CompileQuery(d.prog, s.Expr); err != nil {
			return nil, &SpecError{Field: "expr", Err: err}
		}
	case BreakTime:
		if !(s.T >= 0) || s.T > d.cfg.Options.Horizon {
			return nil, &SpecError{Field: "t", Err: fmt.Errorf("t %s is not in the run, from 0 to the horizon %s", fmtNum(s.T), fmtNum(d.cfg.Options.Horizon))}
		}
	case BreakLine:
		file, err := d.lineOf(s.File, s.Line)
		if err != nil {
			return nil, err
		}
		b.File = file
	case BreakOn:
		if b.class = Class(s.On); b.class == nil {
			e := &SpecError{Field: "on", Err: fmt.Errorf("`%s` is no class of event", s.On), Hint: "classes: " + strings.Join(ClassNames(), ", ")}
			if best := nearest(s.On, ClassNames()); best != "" {
				e.Hint = "did you mean `" + best + "`?"
			}
			return nil, e
		}
		if s.Where != "" && !d.knownLabel(s.Where) {
			e := &SpecError{Field: "where", Err: fmt.Errorf("`%s` is no pool, stage or member of the program", s.Where)}
			if best := nearest(s.Where, d.labels()); best != "" {
				e.Hint = "did you mean `" + best + "`?"
			}
			return nil, e
		}
	}
	if s.Cond != "" {
		if b.cond, err = lang.CompileQuery(d.prog, s.Cond); err != nil {
			return nil, &SpecError{Field: "cond", Err: err}
		}
	}
	return b, nil
}

// lineOf checks that some statement of the program is at file:line (file
// may be the base name) and returns the file as the program names it.
func (d *Debugger) lineOf(file string, line int) (string, error) {
	lines := map[string]map[int]bool{}
	d.prog.Walk(func(st *model.Stmt) {
		if st.Pos.File == "" {
			return
		}
		if lines[st.Pos.File] == nil {
			lines[st.Pos.File] = map[int]bool{}
		}
		lines[st.Pos.File][st.Pos.Line] = true
	})
	var files []string
	for f := range lines {
		files = append(files, f)
	}
	sort.Strings(files)
	match := ""
	for _, f := range files {
		if f == file || filepath.Base(f) == filepath.Base(file) && match == "" {
			match = f
		}
	}
	if match == "" {
		var names []string
		for _, f := range files {
			names = append(names, filepath.Base(f))
		}
		e := &SpecError{Field: "line", Err: fmt.Errorf("no statement of the program is in `%s`: its files are %s", file, strings.Join(names, ", "))}
		if best := nearest(filepath.Base(file), names); best != "" {
			e.Hint = "did you mean `" + best + "`?"
		}
		return "", e
	}
	if lines[match][line] {
		return filepath.Base(match), nil
	}
	var near []int
	for l := range lines[match] {
		near = append(near, l)
	}
	sort.Slice(near, func(i, j int) bool {
		di, dj := abs(near[i]-line), abs(near[j]-line)
		return di < dj || di == dj && near[i] < near[j]
	})
	near = near[:min(3, len(near))]
	sort.Ints(near)
	var at []string
	for _, l := range near {
		at = append(at, fmt.Sprintf("%s:%d", filepath.Base(match), l))
	}
	return "", &SpecError{Field: "line", Err: fmt.Errorf("no statement begins at %s:%d", filepath.Base(match), line),
		Hint: "the nearest are at " + strings.Join(at, ", ")}
}

// nearest is the one name that begins with q, or else the name nearest
// to q (internal/spell); "" for none.
func nearest(q string, names []string) string {
	found := ""
	for _, n := range names {
		if strings.HasPrefix(n, q) && n != q {
			if found != "" {
				found = ""
				break
			}
			found = n
		}
	}
	if found != "" {
		return found
	}
	return spell.Nearest(q, names)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// labels are the program's pool, stage and member labels.
func (d *Debugger) labels() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, p := range d.prog.Pools {
		add(p.Label)
	}
	for _, s := range d.prog.Stages {
		add(s.Label)
	}
	for _, q := range d.prog.Queues {
		for i := 0; i < q.Count; i++ {
			add(fmt.Sprintf("%s[%d]", q.Name, i))
		}
	}
	return out
}

func (d *Debugger) knownLabel(w string) bool {
	for _, l := range d.labels() {
		if atLabel(l, w) {
			return true
		}
	}
	return false
}

// atLabel reports whether an event at label is at w: the label itself,
// or a member of the family w ("D.kv" takes "D.kv[0]").
func atLabel(label, w string) bool {
	if label == w {
		return true
	}
	if rest, ok := strings.CutPrefix(label, w); ok && strings.HasPrefix(rest, "[") {
		return true
	}
	// a transfer's stages, joined by " + "
	for _, part := range strings.Split(label, " + ") {
		if part == w || strings.HasPrefix(part, w+"[") {
			return true
		}
	}
	return false
}

// Breakpoints are the breakpoints, watchpoints and displays set, by id;
// hidden ones are left out.
func (d *Debugger) Breakpoints() []*Breakpoint {
	var out []*Breakpoint
	for _, b := range d.bps {
		if !b.Hidden {
			out = append(out, b)
		}
	}
	return out
}

// Breakpoint is the breakpoint with the id, nil if none.
func (d *Debugger) Breakpoint(id int) *Breakpoint {
	for _, b := range d.bps {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// ErrNoBreakpoint is the error of an operation on a breakpoint that is
// not set.
var ErrNoBreakpoint = errors.New("no such breakpoint")

// Clear deletes a breakpoint.
func (d *Debugger) Clear(id int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, b := range d.bps {
		if b.ID == id {
			d.bps = append(d.bps[:i:i], d.bps[i+1:]...)
			delete(d.prev, id)
			d.setReach()
			return nil
		}
	}
	return ErrNoBreakpoint
}

// Enable enables or disables a breakpoint. A breakpoint enabled again
// takes its value anew: an expression that holds must become false and
// true again to stop the run.
func (d *Debugger) Enable(id int, on bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.Breakpoint(id)
	if b == nil {
		return ErrNoBreakpoint
	}
	b.Disabled = !on
	delete(d.prev, id)
	d.setReach()
	return nil
}

// Condition sets a breakpoint's condition ("" removes it).
func (d *Debugger) Condition(id int, cond string) error {
	b := d.Breakpoint(id)
	if b == nil {
		return ErrNoBreakpoint
	}
	var c *model.Expr
	if cond != "" {
		var err error
		if c, err = lang.CompileQuery(d.prog, cond); err != nil {
			return &SpecError{Field: "cond", Err: err}
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b.Cond, b.cond = cond, c
	return nil
}

// Ignore makes a breakpoint ignore its next n hits.
func (d *Debugger) Ignore(id int, n uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.Breakpoint(id)
	if b == nil {
		return ErrNoBreakpoint
	}
	b.Ignore = n
	return nil
}

// Hit is a breakpoint's hit: what it saw, at which event.
type Hit struct {
	ID    int
	Kind  Kind
	Src   string // the breakpoint as it reads (Breakpoint.Src): it may be gone (temporary)
	Event uint64
	Time  float64
	// Who: the session of a session, line or class breakpoint's event
	// (HasWho); Where: the label of a class breakpoint's event; Pos: the
	// statement a line breakpoint's session began.
	Who    interp.SessionRef
	HasWho bool
	Where  string
	What   interp.EventKind // the kind of event a session or class breakpoint stopped at
	Line   string           // and that event as the log says it (TraceEvent.Text)
	Pos    model.Pos
	// Old and New: a watchpoint's value before and after.
	Old, New float64
}

// pendingHit is what the tracer or the statement hook saw for a
// breakpoint in the event under way.
type pendingHit struct {
	b   *Breakpoint
	hit Hit
}

// seeEvent notes the session and class breakpoints a traced event hits.
func (d *Debugger) seeEvent(e *interp.TraceEvent) {
	for _, b := range d.bps {
		if b.Disabled {
			continue
		}
		switch b.Kind {
		case BreakSession:
			if !e.System && e.Session == b.Session {
				d.note(b, Hit{Who: interp.SessionRef{Serial: e.Session, Turn: e.Turn, Leg: e.Leg}, HasWho: true, What: e.Kind, Line: e.Text()})
			}
		case BreakOn:
			for _, k := range b.class.Kinds {
				if e.Kind == k && (b.Where == "" || atLabel(e.Where, b.Where)) {
					h := Hit{Where: e.Where, What: e.Kind, Line: e.Text()}
					if !e.System {
						h.Who, h.HasWho = interp.SessionRef{Serial: e.Session, Turn: e.Turn, Leg: e.Leg}, true
					}
					d.note(b, h)
				}
			}
		}
	}
}

// seeReach notes the line breakpoints a statement begun hits.
func (d *Debugger) seeReach(r interp.Reach) {
	for _, b := range d.bps {
		if !b.Disabled && b.Kind == BreakLine && r.Pos.Line == b.Line && filepath.Base(r.Pos.File) == b.File {
			d.note(b, Hit{Who: r.Who, HasWho: true, Pos: r.Pos})
		}
	}
}

// note keeps a breakpoint's first hit in the event under way.
func (d *Debugger) note(b *Breakpoint, h Hit) {
	for _, p := range d.seen {
		if p.b == b {
			return
		}
	}
	d.seen = append(d.seen, pendingHit{b, h})
}

// checker evaluates an operation's breakpoints after each event. The
// values before an event are the debugger's (prev): taken after events
// only, so a condition that a clock move made true (RunTo ends by moving
// the clock to its target) stops the run at the next event.
type checker struct {
	d   *Debugger
	bps []*Breakpoint
}

// newChecker takes the values of breakpoints it has not seen before, so a
// condition that holds already must become false and then true again to
// stop the run; nil when no breakpoint can stop the run.
func (d *Debugger) newChecker(extra ...*Breakpoint) *checker {
	c := &checker{d: d}
	for _, b := range append(d.bps, extra...) {
		if !b.Disabled && b.Kind != Display {
			c.bps = append(c.bps, b)
		}
	}
	if len(c.bps) == 0 {
		return nil
	}
	if d.prev == nil {
		d.prev = map[int]float64{}
	}
	s := d.sim()
	for _, b := range c.bps {
		if _, ok := d.prev[b.ID]; !ok {
			d.prev[b.ID] = d.value(s, b)
		}
	}
	d.seen = d.seen[:0]
	d.watching = true
	return c
}

// traced reports whether the checker needs the tracer (a session or
// class breakpoint) or the statement hook (a line breakpoint).
func (c *checker) traced() bool {
	if c == nil {
		return false
	}
	for _, b := range c.bps {
		if b.Kind == BreakSession || b.Kind == BreakOn || b.Kind == BreakLine {
			return true
		}
	}
	return false
}

// done ends the checker's watch.
func (c *checker) done() {
	if c != nil {
		c.d.watching = false
		c.d.seen = c.d.seen[:0]
	}
}

// value is a breakpoint's value in s: an expression's, the truth (1 or
// 0) of a time or count breakpoint; NaN for the others.
func (d *Debugger) value(s *interp.Sim, b *Breakpoint) float64 {
	switch b.Kind {
	case BreakExpr, Watch, Display:
		return s.Query(b.expr)
	case BreakTime:
		return truth(s.Now() >= b.T && s.Events() > 0)
	case BreakCount:
		return truth(s.Events() >= b.Count)
	}
	return math.NaN()
}

func truth(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func holds(v float64) bool { return v != 0 && !math.IsNaN(v) }

// same reports whether two values are the same, NaN the same as NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// after checks the breakpoints after an event: every breakpoint that hit
// counts the hit (or ignores it); it returns the first that stops the
// run, nil if none. A temporary breakpoint that stops the run is deleted.
func (c *checker) after() *Hit {
	if c == nil {
		return nil
	}
	d, s := c.d, c.d.sim()
	var stop *Hit
	for _, b := range c.bps {
		var h *Hit
		switch b.Kind {
		case BreakExpr, BreakTime, BreakCount:
			v := d.value(s, b)
			if holds(v) && !holds(d.prev[b.ID]) {
				h = &Hit{}
			}
			d.prev[b.ID] = v
		case Watch:
			v := d.value(s, b)
			if old := d.prev[b.ID]; !same(old, v) {
				h = &Hit{Old: old, New: v}
			}
			d.prev[b.ID] = v
		default:
			for _, p := range d.seen {
				if p.b == b {
					hh := p.hit
					h = &hh
				}
			}
		}
		if h == nil || b.cond != nil && !holds(s.Query(b.cond)) {
			continue
		}
		b.Hits++
		if b.Ignore > 0 {
			b.Ignore--
			continue
		}
		if stop == nil {
			h.ID, h.Kind, h.Src, h.Event, h.Time = b.ID, b.Kind, b.Src(), s.Events(), s.Now()
			stop = h
		}
	}
	d.seen = d.seen[:0]
	if stop != nil {
		if b := d.Breakpoint(stop.ID); b != nil && b.Temporary {
			for i, x := range d.bps {
				if x == b {
					d.bps = append(d.bps[:i:i], d.bps[i+1:]...)
				}
			}
			d.setReach()
		}
	}
	return stop
}

// values refreshes the watches' and displays' values shown.
func (d *Debugger) values() {
	s := d.sim()
	for _, b := range d.bps {
		if b.expr != nil {
			b.Value = s.Query(b.expr)
		}
	}
}

func fmtNum(x float64) string { return interp.WordNum(x) }

// Compile compiles a spec into a breakpoint that is not set: for a run's
// Limits.Extra (a front end's own, such as a tour's stop), whose ID the
// caller gives (a fresh one for a fresh edge: the value is taken anew for
// an ID not seen before). Check is Compile for its error alone.
func (d *Debugger) Compile(s Spec) (*Breakpoint, error) { return d.compile(s) }

// Check reports whether a spec compiles, without setting it; it may be
// called while an operation runs (it reads only the program).
func (d *Debugger) Check(s Spec) error {
	_, err := d.compile(s)
	return err
}
