package interp

import (
	"math"

	"github.com/serq/serq/interp/internal/stats"
	"github.com/serq/serq/model"
)

// job is what a session waits for at a stage.
type job struct {
	stage int32   // the stage, -1 when none (a flow keeps its stages in flowSet)
	work  float64 // the amount asked
	enq   float64 // when it joined
	start float64 // when service started
	tag   float64 // ps: virtual finish tag
	seq   uint64  // ps: start order, for equal tags
	hidx  int     // ps: heap index; fifo/delay: index in the in-service list
	flow  int32   // flow id, -1 when none

	// engine runs
	mode       model.RunMode
	rem        float64 // tokens left
	growing    int     // pool index of a growing run, -1
	admSeq     uint64  // admission sequence of the run's session (resident order)
	assign     float64 // tokens given in the running iteration
	stalled    bool    // a grower waiting for memory
	servedIt   uint64  // the engine attempt that last served it
	passedStmt uint64  // the advance statement that last looked at it
}

type stage struct {
	m       *model.Stage
	index   int
	kind    model.StageKind
	servers int
	shared  bool

	waiting []*session // fifo: waiting jobs, from whead
	whead   int
	svc     []*session // fifo and delay: jobs in service
	present int
	qwork   float64 // fifo: work of the waiting jobs

	// ps (not shared)
	heap  []*session
	v     float64 // attained service per job since the stage started
	lastT float64
	rate  float64
	epoch uint32
	dirty bool
	seq   uint64

	eng *engine

	num     stats.TimeIntegral // jobs present
	util    stats.TimeIntegral
	done    uint64
	waitW   stats.Welford
	svcW    stats.Welford
	joins   uint64
	waitAll stats.Welford // est_wait: every start, warm-up included

	// Faults (faults.go): down with its member or alone; stalled, a
	// shared stage down alone carries its flows at rate 0.
	down, stalled bool
	downDepth     int // the stage faults that hold it down now
	downSince     float64
	downs         uint64
	downTime      float64
}

func (s *Sim) initStages() {
	s.stages = make([]stage, len(s.p.Stages))
	for i := range s.p.Stages {
		m := &s.p.Stages[i]
		st := &s.stages[i]
		st.m, st.index, st.kind, st.servers, st.shared = m, i, m.Kind, m.Servers, m.Shared
		if st.kind == model.FIFO && st.servers < 1 {
			st.servers = 1
		}
	}
	s.flows.init(s)
	s.initEngines()
}

func (st *stage) resetStats(now float64) {
	st.num.Reset(now)
	st.util.Reset(now)
	st.done = 0
	st.waitW = stats.Welford{}
	st.svcW = stats.Welford{}
}

func (s *Sim) runError(ss *session, st *model.Stmt, what string, x float64) {
	s.fail(ss, st.Pos, "%s is %s: an amount must be at least 0", what, fmtNum(x))
}

// run starts a run statement's job; false means the session blocked.
func (s *Sim) run(ss *session, st *model.Stmt) bool {
	return s.runWork(ss, st, s.eval(st.Value, ss))
}

// runWork is run with the statement's work evaluated.
func (s *Sim) runWork(ss *session, st *model.Stmt, work float64) bool {
	if math.IsNaN(work) || work < 0 {
		s.runError(ss, st, "the work of `run`", work)
		return false
	}
	if s.canFail {
		if go_, next := s.runAllowed(ss, st); !go_ {
			return next
		}
	}
	if len(st.Stages) > 1 {
		if work == 0 {
			return true
		}
		return s.startFlow(ss, st.Stages, work)
	}
	i, ok := s.member(&st.Stages[0], ss, true)
	if !ok {
		return false
	}
	stg := &s.stages[i]
	if stg.kind == model.Step {
		return s.engineRun(ss, st, stg, work)
	}
	if work == 0 {
		return true
	}
	if stg.shared {
		return s.startFlow(ss, st.Stages, work)
	}
	j := &ss.job
	j.stage, j.work, j.enq = int32(i), work, s.now
	ss.state = sBlocked
	stg.joins++
	switch stg.kind {
	case model.FIFO:
		if len(stg.svc) < stg.servers {
			s.fifoStart(stg, ss)
		} else {
			s.trace(ss, EvStageQueued, stg.m.Label, work)
			stg.waiting = append(stg.waiting, ss)
			stg.qwork += work
		}
	case model.Delay:
		s.traceStage(ss, EvStarted, stg, work)
		j.start = s.now
		j.hidx = len(stg.svc)
		stg.svc = append(stg.svc, ss)
		s.schedule(s.now+work, evJobDone, 0, ss.gen, ss)
	case model.PS:
		s.traceStage(ss, EvStarted, stg, work)
		s.psAdvance(stg)
		stg.seq++
		j.start, j.tag, j.seq = s.now, stg.v+work, stg.seq
		stg.heapPush(ss)
		s.markStage(stg)
	}
	stg.present++
	s.stageChanged(stg)
	return false
}

func (s *Sim) stageChanged(stg *stage) {
	stg.num.Set(s.now, float64(stg.present))
	switch stg.kind {
	case model.FIFO:
		stg.util.Set(s.now, float64(len(stg.svc))/float64(stg.servers))
	case model.PS, model.Delay:
		stg.util.Set(s.now, math.Min(float64(stg.present), 1))
	}
}

func (s *Sim) fifoStart(stg *stage, ss *session) {
	j := &ss.job
	j.start = s.now
	j.hidx = len(stg.svc)
	stg.svc = append(stg.svc, ss)
	stg.waitAll.Add(s.now - j.enq)
	s.traceStage(ss, EvStarted, stg, j.work)
	s.schedule(s.now+j.work, evJobDone, 0, ss.gen, ss)
}

// jobDone completes a fifo or delay job.
func (s *Sim) jobDone(ss *session) {
	j := &ss.job
	stg := &s.stages[j.stage]
	stg.dropService(ss)
	stg.present--
	s.traceStage(ss, EvFinished, stg, j.work)
	s.completed(stg, ss)
	s.fifoNext(stg)
	s.stageChanged(stg)
	j.stage = -1
	s.makeReady(ss)
}

// dropService takes a job out of a fifo or delay stage's in-service list
// (swap with the last, O(1)).
func (stg *stage) dropService(ss *session) {
	j := &ss.job
	last := len(stg.svc) - 1
	moved := stg.svc[last]
	stg.svc[j.hidx] = moved
	moved.job.hidx = j.hidx
	stg.svc[last] = nil
	stg.svc = stg.svc[:last]
}

// fifoNext starts the next waiting job of a fifo stage with a free server.
func (s *Sim) fifoNext(stg *stage) {
	if stg.kind != model.FIFO || len(stg.svc) >= stg.servers || stg.whead >= len(stg.waiting) {
		return
	}
	next := stg.waiting[stg.whead]
	stg.waiting[stg.whead] = nil
	stg.whead++
	if stg.whead == len(stg.waiting) {
		stg.waiting, stg.whead = stg.waiting[:0], 0
	}
	stg.qwork -= next.job.work
	s.fifoStart(stg, next)
}

func (s *Sim) completed(stg *stage, ss *session) {
	if !s.warm {
		return
	}
	j := &ss.job
	stg.done++
	stg.waitW.Add(j.start - j.enq)
	stg.svcW.Add(s.now - j.start)
}

// ps: a min-heap of jobs by (tag, start order).

func psLess(a, b *session) bool {
	if a.job.tag != b.job.tag {
		return a.job.tag < b.job.tag
	}
	return a.job.seq < b.job.seq
}

func (st *stage) heapPush(ss *session) {
	ss.job.hidx = len(st.heap)
	st.heap = append(st.heap, ss)
	st.siftUp(len(st.heap) - 1)
}

func (st *stage) heapPop() *session {
	top := st.heap[0]
	st.heapDelete(0)
	return top
}

// heapDelete removes the job at index i, restoring the heap property.
func (st *stage) heapDelete(i int) {
	h := st.heap
	last := len(h) - 1
	h[i] = h[last]
	h[i].job.hidx = i
	h[last] = nil
	st.heap = h[:last]
	if i < last {
		st.siftUp(i)
		st.siftDown(i)
	}
}

func (st *stage) siftUp(i int) {
	h := st.heap
	for i > 0 {
		p := (i - 1) / 2
		if !psLess(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		h[i].job.hidx, h[p].job.hidx = i, p
		i = p
	}
}

func (st *stage) siftDown(i int) {
	h := st.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && psLess(h[r], h[l]) {
			m = r
		}
		if !psLess(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		h[i].job.hidx, h[m].job.hidx = i, m
		i = m
	}
}

func (s *Sim) psAdvance(stg *stage) {
	if stg.rate > 0 {
		stg.v += stg.rate * (s.now - stg.lastT)
	}
	stg.lastT = s.now
}

func (s *Sim) psDone(stg *stage) {
	s.psAdvance(stg)
	ss := stg.heapPop()
	stg.v = math.Max(stg.v, ss.job.tag)
	stg.present--
	s.traceStage(ss, EvFinished, stg, ss.job.work)
	s.markStage(stg)
	s.completed(stg, ss)
	s.stageChanged(stg)
	ss.job.stage = -1
	s.makeReady(ss)
}

// reschedule recomputes the rates of ps stages and flows whose job set
// changed, and schedules their next completions.
func (s *Sim) reschedule() {
	if s.noFastPath {
		s.dirtyStages.fill(len(s.stages))
	}
	for i := s.dirtyStages.next(0); i >= 0; i = s.dirtyStages.next(i + 1) {
		stg := &s.stages[i]
		s.dirtyStages.clear(i)
		if !stg.dirty {
			continue
		}
		stg.dirty = false
		s.psAdvance(stg)
		stg.epoch++
		if stg.present == 0 {
			stg.rate = 0
			continue
		}
		s.ctx[model.CtxPresent] = float64(stg.present)
		phi := s.evalWith(stg.m.Phi, nil, s.machineStream)
		if !(phi > 0) || math.IsInf(phi, 0) {
			s.fail(nil, stg.m.Pos, "the capacity of ps stage `%s` is %s with %d present: it must be positive and finite", stg.m.Label, fmtNum(phi), stg.present)
			return
		}
		stg.rate = phi / float64(stg.present)
		dt := math.Max(0, (stg.heap[0].job.tag-stg.v)/stg.rate)
		s.schedule(s.now+dt, evPSDone, int32(i), stg.epoch, nil)
	}
	s.flows.reschedule()
}

// stageObservable reads queue/busy/work/est_* of a stage.
func (s *Sim) stageObservable(stg *stage, f model.Func) float64 {
	if f == model.SRunning || f == model.SWaiting {
		return s.runningWaiting(stg, f)
	}
	if stg.eng != nil {
		return s.engineObservable(stg, f)
	}
	if stg.shared {
		return s.flows.observable(stg, f)
	}
	switch f {
	case model.SQueue:
		return float64(stg.present)
	case model.SBusy:
		if stg.kind == model.FIFO {
			return float64(len(stg.svc))
		}
		return float64(stg.present)
	case model.SWork:
		w := 0.0
		switch stg.kind {
		case model.FIFO, model.Delay:
			w = stg.qwork
			for _, ss := range stg.svc {
				w += ss.job.start + ss.job.work - s.now
			}
		case model.PS:
			v := stg.v + stg.rate*(s.now-stg.lastT)
			for _, ss := range stg.heap {
				w += ss.job.tag - v
			}
		}
		return w
	case model.SEstLambda:
		if s.now <= 0 {
			return 0
		}
		return float64(stg.joins) / s.now
	case model.SEstRho:
		return math.Min(stg.util.Mean(s.now), 0.999)
	case model.SEstWait:
		if stg.waitAll.Count() == 0 {
			return 0
		}
		return stg.waitAll.Mean()
	}
	panic("interp: no stage observable " + f.String())
}
