package interp

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"

	"github.com/serq/serq/interp/internal/stats"
	"github.com/serq/serq/model"
)

// Options are a run's settings.
type Options struct {
	Horizon  float64 // simulated end time; must be finite and > 0
	Warmup   float64 // statistics exclude [0, Warmup)
	Seed     uint64
	Arrivals uint64 // > 0: exactly this many arrivals, then drain (open workloads)
	Version  string // reported as serq_version
	MaxLive  int    // bound on sessions and legs live at once; 0 means DefaultMaxLive
	// OpenTrace opens the CSV file a program's `trace` names; nil refuses
	// every trace with a [TraceError].
	OpenTrace Opener

	// NoFastPath takes the reference path, for tests: every pool, engine,
	// stage and gauge scanned after every event, every expression
	// evaluated afresh by the general evaluator (no statement compiled, a
	// `choose`'s keys for every candidate), every engine iteration taken
	// through the settle, cache evicted block by block. The results are the
	// same, bit for bit (the differential tests hold them to it); only the
	// speed differs.
	NoFastPath bool

	// Lean keeps only what the report's statistics need, so a run's memory
	// does not grow with its horizon but for one float64 per observe
	// sample (the CI's batch means and the exact p99 need the values): no
	// samples' times, sessions and turns (ObserveRow.Samples is nil) and,
	// without Arrivals, no gauge change points (GaugeRow.Points is nil; the
	// gauges' statistics are folded as the run goes). The report of a run
	// that ends at its horizon is the same bit for bit; a report taken
	// before the end has its gauges' CI +Inf. For `serq run` without
	// --plot (--dump streams the samples and points through Dump).
	Lean bool

	// Dump, if not nil, receives every observe sample after the warm-up
	// and every gauge change point as the run makes them (DumpSink), so a
	// lean run can still write them all out. It is not part of the run's
	// state: a checkpoint has none.
	Dump DumpSink
}

// RunError is a failure of a running program: the program was valid but
// did something the semantics refuse (a guard that is not 0 or 1, a
// negative amount, an index out of range, a livelock).
//
// An internal error (a broken invariant of the interpreter, caught by
// Step's recover) says "internal error: …" in Msg, keeps the panic's value
// in Err when it is an error and the goroutine's stack at the panic in
// Stack, for the bug report.
type RunError struct {
	Pos     model.Pos // the statement being run; zero if none
	Time    float64   // simulated time of the failure
	Session int64     // serial of the session, -1 if none
	Msg     string
	// Calls are the entry calls and statement defs the statement at Pos
	// was inlined from, innermost first: its serQ call stack (none for a
	// statement written where it runs, or an IR's, which keeps none).
	Calls []model.Call
	Err   error  // the cause, if any: what Unwrap returns
	Stack []byte // an internal error's stack (runtime/debug.Stack); nil otherwise
}

// Message is the error without its position: the simulated time, the
// session and what went wrong, as every front end says it.
func (e *RunError) Message() string {
	who := ""
	if e.Session >= 0 {
		who = fmt.Sprintf(" session %d:", e.Session)
	}
	return fmt.Sprintf("at t=%s:%s %s", fmtTime(e.Time), who, e.Msg)
}

// Notes say where the statement at Pos was called from, innermost first:
// "in `D.decode`, called at main.sq:70:9".
func (e *RunError) Notes() []string {
	var out []string
	for _, c := range e.Calls {
		out = append(out, fmt.Sprintf("in `%s`, called at %s", c.Name, c.Pos))
	}
	return out
}

func (e *RunError) Error() string {
	if e.Pos.Line == 0 {
		return e.Message()
	}
	return e.Pos.String() + ": " + e.Message()
}

// Unwrap returns the cause of the failure, nil if it has none.
func (e *RunError) Unwrap() error { return e.Err }

// Internal reports whether e is an internal error of the interpreter (a
// bug of serq's, not of the program).
func (e *RunError) Internal() bool { return e.Stack != nil }

func fmtTime(t float64) string { return fmt.Sprintf("%.6g", t) }

type evKind uint8

const (
	evArrive   evKind = iota
	evJobDone         // a fifo or delay job ends; s, gen
	evPSDone          // a ps stage's next completion; id = stage, epoch
	evFlowDone        // a flow ends; s, gen
	evWarmup
	evIterEnd  // an engine iteration ends; id = stage, epoch
	evLeaseEnd // a lease expires; h, epoch = the hold's lease generation

	// A program that can fail (faults.go).
	evFaultDown // a fault's member or stage goes down; id = Sim.faults index
	evFaultUp   // and comes back
	evRenew     // a member's renewal clock ticks; id = member, epoch = its tickGen
	evTimeout   // a client gives up a request; s, epoch = its reqID
	evWake      // a retry's backoff ends; s, epoch = its reqID
)

// event is a pending event of the calendar; which fields it uses depends
// on its kind.
type event struct {
	t     float64
	seq   uint64
	kind  evKind
	id    int32
	epoch uint32
	s     *session
	h     *holdInst
}

// Sim is one simulation run: the lowered program, the calendar of pending
// events and the state of every session, stage, pool and engine. It is
// driven by Step (or Run); it prints nothing and opens no file.
type Sim struct {
	p   *model.Program
	opt Options

	// The clock and the calendar.
	now    float64 // simulated time of the event being handled
	seq    uint64  // last sequence number given to an event or a cache entry: ties break by it
	cal    []event // pending events, a binary heap ordered by evLess
	taken  bool    // cal[0] is the event being handled, removed by the next push or dropTop (take)
	events uint64  // events handled so far

	// Sessions.
	ready     []*session // sessions ready to run, in the order they became ready
	readyHead int        // the first of ready not yet run in this settle
	live      []*session // sessions that arrived and have not ended (no fork legs)
	free      []*session // ended sessions kept for reuse by the next arrival
	zero      *session   // a session whose attributes are all 0: what an ended session reads (attrsOf)
	threads   []*session // allThreads' buffer: live sessions and running legs
	legsLive  []*session // fork legs still running
	admSeq    uint64     // admissions so far: the `admission` sequence of the last one

	// Counts and the end of the run.
	arrivals uint64
	ended    uint64
	turns    uint64
	liveAvg  stats.TimeIntegral // sessions live over time, for the report's mean live
	warm     bool               // past the warm-up: statistics are kept
	draining bool               // --arrivals reached: no more arrivals
	// arrStages sends `arrive constant(…), …;` (arrivestages.go)
	arrStages arrivalStages
	finished  bool    // the run is over (horizon, drain or deadlock)
	end       float64 // the time the run ended
	err       error   // the failure that stopped the run, a *RunError or *ProgressError

	// The deployment.
	stages []stage
	flows  flowSet // flows across ps stages (flow.go, share.go)
	pools  []pool
	engs   []engine

	// Statistics.
	obs         []stats.ObserveStat
	gauges      []stats.TimeAvg
	claims      []claimState
	claimObs    []stats.Log[float64] // every sample (warm-up included) of the observes claims aggregate
	keepObs     []bool               // by observe slot: a claim aggregates it, so claimObs keeps its samples
	poolVer     uint64               // bumped by every change of a pool's state
	gaugeDumped []int                // by gauge: the change points handed to Options.Dump so far

	// Random streams not of a session (rng.go).
	arrStream     *stream // arrivals
	hashSession   uint64  // kindHash of the seed and kindSession: the sessions' streams are seeded with it
	hashTurn      uint64  // kindHash of the seed and kindTurn
	machineStream *stream // the machine's draws: an engine's `tokens cap` and `execute`, a ps capacity

	// Evaluation context.
	ctx    [model.NumCtx]float64 // the context variables (model.Ctx) being read
	curEng *engine               // the engine whose clause is being evaluated (registers, budget_left)
	// batchReads: the program reads the batch's count or exact context
	// (engine.go batchContext), which attempts then compute
	batchReads bool
	prefix     prefixState // the tries of shared prefixes (prefix.go)
	// While an engine admits, budget_left of budgetEngine is
	// budgetOverride, the budget the iteration has left.
	budgetOverride float64
	budgetEngine   *engine
	reads          *readsCache // what each expression reads (reads.go), shared by checkpoints
	curStmt        *model.Stmt // the statement being executed, for run errors that have no other position (curPos)
	traceData      *traceData
	keys           keyMins // the key-tuple picks' buffers

	// The fast paths (doc.go, "Cost"), each one's state in a struct of its
	// own: the dirty sets, the gauges' trees and the chooses' indexes.
	noFastPath bool   // Options.NoFastPath: scan everything after every event
	cprog      *cprog // the session blocks' compiled statements (compile.go); empty with NoFastPath
	dirtySets
	gaugeTrees
	chooseIndexes

	// Failures and lease lifetimes (faults.go).
	faultState

	// The driver's: tracing and guards.
	tracer     func(TraceEvent)
	reach      func(Reach) // the debugger's statement hook (SetReach), nil for none
	choiceKeys []string    // the keys of a `choose` being traced (debug.go)
	traceIters bool        // trace every engine iteration's batch
	progress   progressGuard
	maxLive    int // Options.MaxLive, DefaultMaxLive for 0
}

// Run simulates p to the end and returns its report.
func Run(ctx context.Context, p *model.Program, opt Options) (*Report, error) {
	s, err := New(p, opt)
	if err != nil {
		return nil, err
	}
	if err := s.Run(ctx); err != nil {
		return nil, err
	}
	return s.Report(), nil
}

// New prepares a run of p.
func New(p *model.Program, opt Options) (*Sim, error) {
	if !(opt.Horizon > 0) || math.IsInf(opt.Horizon, 0) {
		return nil, fmt.Errorf("the horizon must be finite and > 0")
	}
	if !(opt.Warmup >= 0) || opt.Warmup >= opt.Horizon {
		return nil, fmt.Errorf("the warm-up must be at least 0 and below the horizon")
	}
	if a := p.Workload.Arrive; opt.Arrivals > 0 && a != model.ArrivePoisson && a != model.ArriveRenewal && a != model.ArriveConstant {
		return nil, fmt.Errorf("--arrivals needs an open workload (poisson, renewal or constant)")
	}
	s := &Sim{p: p, opt: opt, noFastPath: opt.NoFastPath, maxLive: opt.MaxLive}
	if s.maxLive == 0 {
		s.maxLive = DefaultMaxLive
	}
	a := newStream()
	a.seed(opt.Seed, kindArrival, 0, 0)
	s.arrStream = a
	s.hashSession, s.hashTurn = kindHash(opt.Seed, kindSession), kindHash(opt.Seed, kindTurn)
	m := newStream()
	m.seed(opt.Seed, kindMachine, 0, 0)
	s.machineStream = m
	s.obs = make([]stats.ObserveStat, len(p.Observes))
	s.gauges = make([]stats.TimeAvg, len(p.Gauges))
	s.gaugeDumped = make([]int, len(p.Gauges))
	if opt.Lean {
		for i := range s.obs {
			s.obs[i].SetLean()
		}
		if opt.Arrivals == 0 { // the run ends at the horizon
			for i := range s.gauges {
				s.gauges[i].LeanOver(opt.Warmup, opt.Horizon)
			}
		}
	}
	s.initReads()
	s.initStages()
	s.initPools()
	s.initDirty()
	s.initFaults()
	s.initPictures()
	s.cprog = &cprog{} // the reference path compiles nothing
	if !opt.NoFastPath {
		s.compileProgram()
	}
	if err := s.initTrace(); err != nil {
		return nil, err
	}
	s.initClaims()
	if opt.Warmup > 0 {
		s.schedule(opt.Warmup, evWarmup, 0, 0, nil)
	} else {
		s.warm = true
	}
	switch p.Workload.Arrive {
	case model.ArrivePoisson:
		s.schedule(0, evArrive, 0, 0, nil)
	case model.ArriveRenewal:
		gap, err := s.renewalGap()
		if err != nil {
			return nil, err
		}
		s.schedule(gap, evArrive, 0, 0, nil)
	case model.ArriveConstant:
		if t, ok := s.nextConstant(); ok {
			s.schedule(t, evArrive, 0, 0, nil)
		}
	case model.ArriveClosed, model.ArriveBatch:
		// All n sessions arrive in one event: they start in order and run
		// before any of them is admitted anywhere.
		n, _ := p.Workload.Arg.IsConst()
		s.schedule(0, evArrive, int32(n), 0, nil)
	}
	s.reads.frozen = true // read only from here on: checkpoints share it
	return s, nil
}

// Now is the simulated clock.
func (s *Sim) Now() float64 { return s.now }

// Events is the number of events processed.
func (s *Sim) Events() uint64 { return s.events }

// Done reports whether the run is over (horizon reached, drained, or failed).
func (s *Sim) Done() bool { return s.finished || s.err != nil }

// Err is the run's error, if it failed.
func (s *Sim) Err() error { return s.err }

// NextTime is the time of the next event, +Inf if none.
func (s *Sim) NextTime() float64 {
	if len(s.cal) == 0 {
		return math.Inf(1)
	}
	return s.cal[0].t
}

// schedule adds an event of kind k at time t to the calendar.
func (s *Sim) schedule(t float64, k evKind, id int32, epoch uint32, ss *session) {
	s.push(event{t: t, kind: k, id: id, epoch: epoch, s: ss})
}

// push adds ev to the calendar (a binary heap ordered by evLess), after
// the events already scheduled at its time. If the calendar's top is the
// event being handled, taken but still in place (Sim.taken), ev replaces
// it: a pop and a push in one sift-down, the same events after it.
func (s *Sim) push(ev event) {
	s.seq++
	ev.seq = s.seq
	if s.taken {
		s.taken = false
		s.siftDown(ev)
		return
	}
	s.cal = append(s.cal, event{})
	// sift up, moving the hole rather than swapping: the same places as
	// swapping, one write a level
	c := s.cal
	i := len(c) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !evLess(&ev, &c[parent]) {
			break
		}
		c[i] = c[parent]
		i = parent
	}
	c[i].put(&ev)
}

// put writes x into e field by field. The event being scheduled was just
// built field by field (schedule); copied as a whole it would be read back
// in wider loads than the stores that wrote it, which stalls each push.
func (e *event) put(x *event) {
	e.t, e.seq, e.kind, e.id, e.epoch, e.s, e.h = x.t, x.seq, x.kind, x.id, x.epoch, x.s, x.h
}

func evLess(a, b *event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.seq < b.seq
}

// pop removes and returns the calendar's first event.
func (s *Sim) pop() event {
	c := s.cal
	top := c[0]
	last := len(c) - 1
	x := c[last]
	c[last] = event{}
	s.cal = c[:last]
	if last > 0 {
		s.siftDown(x)
	}
	return top
}

// siftDown puts x in the place of the calendar's top (len(s.cal) > 0),
// sifting it down, moving the hole.
func (s *Sim) siftDown(x event) {
	c := s.cal
	hole := &c[0]
	for i := 0; ; {
		l := 2*i + 1
		if uint(l) >= uint(len(c)) {
			break
		}
		m, child := l, &c[l]
		if r := l + 1; uint(r) < uint(len(c)) && evLess(&c[r], child) {
			m, child = r, &c[r]
		}
		if !evLess(child, &x) {
			break
		}
		*hole = *child
		hole, i = child, m
	}
	hole.put(&x)
}

// take marks the calendar's top as the event being handled: the next push
// replaces it (push), or dropTop removes it. Nothing reads the calendar while
// it is taken but push, secondTime and nextOther (startEngines, quietRun).
func (s *Sim) take() { s.taken = true }

// dropTop removes the taken top if no push replaced it.
func (s *Sim) dropTop() {
	if s.taken {
		s.taken = false
		s.pop()
	}
}

// nextOther is the time of the calendar's first event but a taken top,
// +Inf if none.
func (s *Sim) nextOther() float64 {
	if s.taken {
		return s.secondTime()
	}
	return s.NextTime()
}

// Step processes the next event and settles. It returns false when the
// run is over.
func (s *Sim) Step() bool {
	if s.Done() {
		return false
	}
	// The one recover of the interpreter: a broken invariant becomes an
	// internal error naming the statement being run, never a crash of the
	// program driving the simulation.
	defer s.recoverInternal()
	return s.step()
}

// recoverInternal turns a panic of the interpreter into an internal
// RunError (deferred by Step and stepN).
func (s *Sim) recoverInternal() {
	if r := recover(); r != nil {
		s.dropTop() // the calendar as the event's pop left it
		cause, _ := r.(error)
		s.err = &RunError{Pos: s.curPos(), Time: s.now, Session: -1, Msg: fmt.Sprintf("internal error: %v", r), Err: cause, Stack: debug.Stack()}
	}
}

// step is Step without the recover.
func (s *Sim) step() bool {
	// an engine iteration that changes nothing else (stepn.go); without
	// engines there is none
	if (len(s.engs) > 0 || s.noFastPath) && s.quietRun(1, math.Inf(1)) > 0 {
		return !s.Done()
	}
	if len(s.cal) == 0 && s.deadlock() {
		return false
	}
	if len(s.cal) == 0 || s.cal[0].t > s.opt.Horizon {
		s.finish()
		return false
	}
	if s.cal[0].t > s.now && (len(s.gauges) > 0 || s.pics != nil) { // endInstant reads the gauges and pictures alone
		s.endInstant()
	}
	ev := s.cal[0]
	s.take() // the first schedule of the handler or the settle replaces it
	s.advance(ev.t)
	s.events++
	s.handle(ev)
	if s.err == nil {
		s.settle()
	}
	s.dropTop()
	if s.err == nil && (s.noFastPath || s.progressDue()) {
		s.checkProgress()
	}
	if s.err == nil && s.draining && len(s.live) == 0 {
		s.finishDrained()
	}
	return !s.Done()
}

// progressDue reports whether checkProgress after this event could do
// anything: more sessions and legs live than the bound, or a window of
// stallWindow events over (guard.go). Otherwise it would return at once.
func (s *Sim) progressDue() bool {
	return len(s.live)+len(s.legsLive) > s.maxLive || s.events-s.progress.windowEvent >= stallWindow
}

// RunUntil steps until the clock would pass t (or the run ends).
func (s *Sim) RunUntil(t float64) bool {
	for !s.Done() {
		if len(s.cal) > 0 && s.cal[0].t > t && s.cal[0].t <= s.opt.Horizon {
			s.endInstant()
			s.advance(t)
			return true
		}
		s.stepN(math.MaxUint64, t) // the events up to t (stepn.go)
	}
	return false
}

// Run runs to the end; ctx cancels it between events.
func (s *Sim) Run(ctx context.Context) error {
	for s.StepN(4096) == 4096 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return s.err
}

// advance moves the clock, keeping time integrals current.
func (s *Sim) advance(t float64) {
	if t < s.now {
		return
	}
	s.now = t
}

func (s *Sim) fail(ss *session, pos model.Pos, format string, args ...any) {
	if s.err != nil {
		return
	}
	serial := int64(-1)
	var calls []model.Call
	if ss != nil {
		serial = int64(ss.serial)
		if pos.Line == 0 {
			pos = s.curPos()
		}
		if st := s.curStmt; st != nil && st.Pos == pos {
			calls = s.p.CallStack(st.Call)
		}
	}
	s.err = &RunError{Pos: pos, Time: s.now, Session: serial, Msg: fmt.Sprintf(format, args...), Calls: calls}
}

func (s *Sim) handle(ev event) {
	switch ev.kind {
	case evArrive:
		for n := max(ev.id, 1); n > 0 && s.err == nil; n-- {
			s.arrive()
		}
	case evWarmup:
		s.warmup()
	case evJobDone:
		if ev.s.gen == ev.epoch {
			s.jobDone(ev.s)
		}
	case evPSDone:
		st := &s.stages[ev.id]
		if st.epoch == ev.epoch {
			s.psDone(st)
		}
	case evFlowDone:
		if ev.s.gen == ev.epoch {
			s.flowDone(ev.s)
		}
	case evIterEnd:
		s.iterEnd(int(ev.id), ev.epoch)
	case evLeaseEnd:
		s.leaseEnd(ev.h, ev.epoch)
	case evFaultDown:
		s.faultDown(ev.id)
	case evFaultUp:
		s.faultUp(ev.id)
	case evRenew:
		s.renewTick(ev.id, ev.epoch)
	case evTimeout:
		s.timedOut(ev.s, ev.epoch)
	case evWake:
		s.wake(ev.s, ev.epoch)
	}
}

func (s *Sim) warmup() {
	s.warm = true
	for i := range s.stages {
		s.stages[i].resetStats(s.now)
	}
	for i := range s.pools {
		s.pools[i].resetStats(s.now)
	}
	for i := range s.engs {
		s.engs[i].resetStats(s.now)
	}
	s.liveAvg.Reset(s.now)
}

// endInstant samples the gauges: the state at the end of an instant.
//
// A reading equal to the last one adds nothing (stats.TimeAvg.Record), so a
// gauge whose value cannot have changed is not evaluated:
//   - a gauge that is a function of some pools' states alone (used, free,
//     holders, queued of members named by constants: its pools, resolved
//     once) is read again only when one of its pools changed;
//   - another gauge that reads only pools (lease counts and ages,
//     observes' aggregates, computed indexes) is read again when any pool
//     changed, as before;
//   - the rest are read at every instant's end.
func (s *Sim) endInstant() {
	if s.pics != nil {
		s.recordPictures()
	}
	if len(s.gauges) == 0 {
		return // nothing to read (and no gauge's pools to track)
	}
	if s.gaugeKind == nil {
		s.initGauges()
	}
	fresh := s.poolVer != s.gaugeVer
	if fresh {
		for p := s.gaugePools.next(0); p >= 0; p = s.gaugePools.next(p + 1) {
			s.gaugePoolChanged(p)
		}
	}
	if !s.noFastPath && !s.gaugeFresh.empty() {
		s.readForest() // every gauge of pools at once (gaugetree.go)
	}
	for i := range s.p.Gauges {
		kind := s.gaugeKind[i]
		if s.noFastPath && kind == gaugeOfPools {
			kind = gaugePoolsAny
		}
		switch kind {
		case gaugeOfPools:
			if s.gaugeFresh.has(i) {
				s.recordGauge(i, s.gaugeForest.value(i))
			}
			continue
		case gaugePoolsAny:
			if !fresh {
				continue
			}
		}
		s.recordGauge(i, s.eval(s.p.Gauges[i].Expr, nil))
	}
	s.gaugeFresh.reset()
	s.gaugePools.reset()
	s.gaugeVer = s.poolVer
}

type gaugeKind uint8

const (
	gaugeAlways   gaugeKind = iota // read at every instant's end
	gaugePoolsAny                  // read when any pool changed
	gaugeOfPools                   // read when one of its pools changed
)

// initGauges classifies the gauges and resolves the pools each gaugeOfPools
// reads. Every gauge is read at the first instant's end.
func (s *Sim) initGauges() {
	s.gaugeKind = make([]gaugeKind, len(s.p.Gauges))
	s.gaugeForest.roots = make([]int32, len(s.p.Gauges))
	s.poolLeaves = make([][]int32, len(s.pools))
	s.poolGauges = make([][]int32, len(s.pools))
	s.gaugeFresh = newBitset(len(s.p.Gauges))
	build := &gaugeBuild{shapes: map[gaugeShape]int32{}}
	for i, g := range s.p.Gauges {
		only := !s.readsOf(g.Expr).Any(model.OpBits(model.EStage, model.EReg, model.EBudget, model.ECtx))
		switch {
		case only && s.gaugeOfPools(g.Expr):
			s.gaugeKind[i] = gaugeOfPools
			s.buildGauge(build, i, g.Expr)
			s.gaugeFresh.set(i)
		case only:
			s.gaugeKind[i] = gaugePoolsAny
		default:
			s.gaugeEvery = true
		}
		if s.gaugeKind[i] != gaugeOfPools {
			s.gaugeForest.roots[i] = -1
		}
	}
	s.endGauges()
	s.gaugeVer = ^uint64(0)
}

// gaugeOfPools reports whether e is a function of some pools' states
// alone (pureOfPools, chooseindex.go): used, free, holders and queued of
// members named by constants in range.
func (s *Sim) gaugeOfPools(e *model.Expr) bool {
	r := s.readsOf(e)
	if !pureOfPools(r, -1, readsPools) {
		return false
	}
	for _, x := range r.Members {
		if x.Op == model.EPool && x.Ref.Index != nil && !constMember(x.Ref.Index, &s.p.PoolFams[x.Ref.Fam]) {
			return false
		}
	}
	return true
}

func (s *Sim) finish() {
	if s.finished {
		return
	}
	s.endInstant()
	if s.opt.Arrivals > 0 {
		s.now = s.opt.Horizon
		if s.arrivals < s.opt.Arrivals {
			s.fail(nil, model.Pos{}, "the horizon %s passed with %d of %d arrivals", fmtTime(s.opt.Horizon), s.arrivals, s.opt.Arrivals)
			return
		}
		s.fail(nil, model.Pos{}, "the horizon %s passed with %d session(s) still live", fmtTime(s.opt.Horizon), len(s.live))
		return
	}
	s.now = s.opt.Horizon
	s.end = s.opt.Horizon
	s.finished = true
	s.flushDump()
}

func (s *Sim) finishDrained() {
	s.endInstant()
	if s.now <= s.opt.Warmup {
		s.fail(nil, model.Pos{}, "the run drained at t=%s, at or before the warm-up %s", fmtTime(s.now), fmtTime(s.opt.Warmup))
		return
	}
	s.end = s.now
	s.finished = true
	s.flushDump()
}

// arrive starts a session and schedules the next arrival.
func (s *Sim) arrive() {
	w := &s.p.Workload
	if s.draining {
		return
	}
	s.arrivals++
	if s.opt.Arrivals > 0 && s.arrivals >= s.opt.Arrivals {
		s.draining = true
	}
	switch w.Arrive {
	case model.ArrivePoisson:
		if !s.draining {
			rate, _ := w.Arg.IsConst()
			gap := -math.Log(1-s.arrStream.u()) / rate
			if s.tracer == nil && !s.noFastPath {
				// The session starts before the next arrival goes on the
				// calendar: starting it schedules nothing and draws from
				// other streams, so the calendar, its sequence numbers and
				// every draw are the same, and the start's work overlaps
				// the logarithm the push waits for (without a tracer, which
				// could look at the calendar meanwhile).
				s.startSession()
				s.schedule(s.now+gap, evArrive, 0, 0, nil)
				return
			}
			s.schedule(s.now+gap, evArrive, 0, 0, nil)
		}
	case model.ArriveRenewal:
		if !s.draining {
			gap, err := s.renewalGap()
			if err != nil {
				s.err = err
				return
			}
			s.schedule(s.now+gap, evArrive, 0, 0, nil)
		}
	case model.ArriveConstant:
		if !s.draining {
			if t, ok := s.nextConstant(); ok {
				s.schedule(t, evArrive, 0, 0, nil)
			} else {
				s.draining = true // the last stage is sent
			}
		}
	}
	s.startSession()
}

func (s *Sim) renewalGap() (float64, error) {
	gap := s.evalWith(s.p.Workload.Arg, nil, s.arrStream)
	if !(gap > 0) || math.IsInf(gap, 0) {
		return 0, &RunError{Time: s.now, Session: -1, Msg: fmt.Sprintf("a renewal gap must be positive and finite, not %s", fmtNum(gap))}
	}
	return gap, nil
}

// curPos is the position of the statement being executed, zero if none.
func (s *Sim) curPos() model.Pos {
	if s.curStmt == nil {
		return model.Pos{}
	}
	return s.curStmt.Pos
}

// fmtNum writes a number in messages as a program would.
var fmtNum = model.FormatNum
