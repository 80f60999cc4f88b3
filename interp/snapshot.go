package interp

import (
	"math"
	"sort"

	"github.com/serq/serq/model"
)

// Snapshot is a read-only picture of a run at one instant, for the TUI.
// It shares nothing with the simulation: stepping after taking it does not
// change it.
type Snapshot struct {
	Time     float64
	Events   uint64
	Arrivals uint64
	Live     int
	Done     bool
	Err      error
	Stages   []StageSnap
	Pools    []PoolSnap
	Gauges   []GaugeSnap
	Observes []ObserveSnap
	// Members are the queues' members of a program that can fail (nil
	// otherwise): which are down, since when.
	Members []MemberSnap
}

// StageSnap is one stage member.
type StageSnap struct {
	Label   string
	Kind    string // fifo, ps, delay, step
	Present int    // jobs present (engine: residents)
	Busy    int    // in service (engine: in the running iteration)
	Phi     float64
	Shared  bool
	Util    float64    // capacity in use now, 0..1
	Flows   []FlowSnap // shared stages: the flows on it
	Engine  *EngineSnap
	Down    bool // a fault of its own holds it down (its member's shows in Members)
	Stalled bool // and it carries its flows at rate 0
}

// FlowSnap is one flow on a shared stage.
type FlowSnap struct {
	Session   uint64
	Turn      int
	Rate      float64
	Remaining float64
	Stages    []string // every stage the flow holds, in order
}

// EngineSnap is an engine's state.
type EngineSnap struct {
	Residents  int
	Waiting    int // requests queued at the pools it admits (waiting(E))
	Decoding   int
	Batch      int
	Running    bool
	Iterations uint64
	Memory     string // its memory pool, "" if none
}

// PoolSnap is one pool member.
type PoolSnap struct {
	Label       string
	Cap         float64
	Used        float64
	Cached      float64
	Holders     int
	Queued      int
	Preemptions uint64 // since the warm-up, as the report counts them
	Admissions  uint64
	// The same since t = 0, warm-up included, and the evictions so far.
	RunPreemptions, RunAdmissions, RunEvictions uint64
	Leased                                      float64 // units held by live leases
	// Running: holders that are residents of the engine whose memory this
	// is; Parked: holders that are not (waiting for a slot, a transfer…).
	Running int
	Parked  int
	Engine  string // the engine whose memory it is, "" if none
	Leases  []LeaseSnap
	// A program that can fail: its member is down; its leases that
	// expired and the reads after expiry, so far.
	Down      bool
	Expired   uint64
	LateReads uint64
}

// LeaseSnap is a lease: an allocation that outlived its hold.
type LeaseSnap struct {
	Session uint64
	Turn    int
	Units   float64
	Start   float64 // when the lease began
	Age     float64
	// Waits says what the leasing session waits for now (who will take
	// the lease), e.g. "queued at D.kv[1]" or "on D.nic[0]".
	Waits string
	// Expires: it has a time, and ends at End (a lease of inf has none).
	Expires bool
	End     float64
	// Renewer is the member renewing it every Every seconds, "" if none.
	Renewer string
	Every   float64
	// Stranded: a failed or given-up request left it to expire.
	Stranded bool
	// Moving: its session's read of it is under way (a transfer at a
	// rate above 0), so its age grows while it moves, not while it waits.
	Moving bool
	// Life is how long it lives and who keeps it, as why-chain steps
	// (WhyRenewed, WhyExpires, …).
	Life []WhyStep
}

// GaugeSnap is a gauge's current value.
type GaugeSnap struct {
	Name  string
	Value float64
}

// ObserveSnap is an observe's running statistics (after warm-up).
type ObserveSnap struct {
	Name  string
	Count uint64
	Mean  float64
	Last  float64
}

// Snapshot returns the current state.
func (s *Sim) Snapshot() *Snapshot {
	snap := &Snapshot{Time: s.now, Events: s.events, Arrivals: s.arrivals, Live: len(s.live), Done: s.Done(), Err: s.err,
		Members: s.memberSnaps()}
	for i := range s.stages {
		st := &s.stages[i]
		ss := StageSnap{Label: st.m.Label, Kind: st.kind.String(), Present: st.present, Shared: st.shared,
			Down: st.downDepth > 0, Stalled: st.stalled}
		if st.m.Phi != nil {
			ss.Phi, _ = st.m.Phi.IsConst()
		}
		switch {
		case st.eng != nil:
			e := st.eng
			dec := 0
			for _, r := range e.res {
				if r.job.mode == model.ModeDecode {
					dec++
				}
			}
			es := &EngineSnap{Residents: len(e.res), Decoding: dec, Running: e.busy, Iterations: e.iters,
				Waiting: int(s.runningWaiting(st, model.SWaiting))}
			if e.busy {
				es.Batch = len(e.assign)
				ss.Util = 1
			}
			if e.m.Memory >= 0 {
				es.Memory = s.pools[e.m.Memory].m.Label
			}
			ss.Engine = es
			ss.Present, ss.Busy = len(e.res), es.Batch
		case st.shared:
			fs := &s.flows
			sum := 0.0
			for _, id := range fs.stageFlows[i] {
				sess := fs.sess[id]
				f := FlowSnap{Rate: fs.rates[id], Remaining: fs.rem[id] - fs.rates[id]*(s.now-fs.last[id])}
				if sess != nil {
					f.Session = sess.serial
					f.Turn = int(rootOf(sess).attrs[s.p.Builtin.TurnNo])
				}
				for _, k := range fs.flowStages[id] {
					f.Stages = append(f.Stages, s.stages[k].m.Label)
				}
				sum += f.Rate
				ss.Flows = append(ss.Flows, f)
			}
			ss.Busy = len(ss.Flows)
			if ss.Phi > 0 {
				ss.Util = sum / ss.Phi
			}
		default:
			ss.Busy = int(s.stageObservable(st, model.SBusy))
			if st.kind == model.FIFO {
				ss.Util = float64(len(st.svc)) / float64(st.servers)
			} else {
				ss.Util = math.Min(float64(st.present), 1)
			}
		}
		snap.Stages = append(snap.Stages, ss)
	}
	threads := s.threadsNow()
	for i := range s.pools {
		pl := &s.pools[i]
		ps := PoolSnap{Label: pl.m.Label, Cap: pl.cap, Used: pl.used, Cached: pl.cached, Holders: pl.holders,
			Queued: len(pl.queue), Preemptions: pl.preempts, Admissions: pl.admits,
			RunPreemptions: pl.runPreempts, RunAdmissions: pl.runAdmits, RunEvictions: pl.runEvictN,
			Down: pl.down, Expired: pl.expired, LateReads: pl.late}
		if pl.memoryOf >= 0 {
			ps.Engine = s.stages[pl.memoryOf].m.Label
		}
		for _, t := range threads {
			if h, _ := innermost(t, i); h != nil {
				if pl.memoryOf >= 0 && s.isResident(t, pl.memoryOf) {
					ps.Running++
				} else {
					ps.Parked++
				}
			}
			for _, l := range t.leases {
				if l.leased >= 0 && l.pools[l.leased].pool == i {
					root := rootOf(t)
					ls := s.leaseSnap(l, root.serial, int(root.attrs[s.p.Builtin.TurnNo]), s.waits(root))
					ls.Moving = s.moving(root)
					ps.Leases = append(ps.Leases, ls)
					ps.Leased += ls.Units
				}
			}
		}
		for _, l := range s.stranded {
			if l.pools[l.leased].pool == i {
				ps.Leases = append(ps.Leases, s.leaseSnap(l, l.strandSerial, l.strandTurn, "nothing: stranded"))
				ps.Leased += l.pools[l.leased].alloc
			}
		}
		sort.SliceStable(ps.Leases, func(a, b int) bool { return ps.Leases[a].Age > ps.Leases[b].Age })
		snap.Pools = append(snap.Pools, ps)
	}
	for _, g := range s.p.Gauges {
		snap.Gauges = append(snap.Gauges, GaugeSnap{Name: g.Name, Value: s.eval(g.Expr, nil)})
	}
	for i, name := range s.p.Observes {
		o := &s.obs[i]
		os := ObserveSnap{Name: name, Count: o.Count(), Mean: o.Mean(), Last: o.Last()}
		snap.Observes = append(snap.Observes, os)
	}
	return snap
}

// moving reports whether a session (or one of its legs) transfers at a
// rate above 0 now.
func (s *Sim) moving(ss *session) bool {
	for _, t := range append([]*session{ss}, s.legsOf(ss)...) {
		if t.state == sBlocked && t.job.flow >= 0 && s.flows.rates[t.job.flow] > 0 {
			return true
		}
	}
	return false
}

// waits describes what a session (or one of its legs) waits for now.
func (s *Sim) waits(ss *session) string {
	if w := s.waitsOne(ss); w != "running" {
		return w
	}
	for _, t := range s.legsOf(ss) {
		if w := s.waitsOne(t); w != "running" {
			return w
		}
	}
	return "running"
}

// waitsOne describes what one session or leg waits for now.
func (s *Sim) waitsOne(t *session) string {
	if t.state != sBlocked {
		return "running"
	}
	switch {
	case t.waitHold != nil && t.waitHold.waiting:
		return "queued at " + s.pools[t.waitHold.pools[0].pool].m.Label
	case t.job.flow >= 0:
		var names []string
		for _, k := range s.flows.flowStages[t.job.flow] {
			names = append(names, s.stages[k].m.Label)
		}
		return "on " + joinLabels(names)
	case t.job.stage >= 0:
		return "on " + s.stageWords(&s.stages[t.job.stage])
	case t.growHold != nil:
		return "growing at " + s.pools[t.growHold.pools[t.growIdx].pool].m.Label
	case t.joining:
		return "at a join"
	}
	return "running"
}

func (s *Sim) legsOf(ss *session) []*session {
	var out []*session
	for _, l := range s.legsLive {
		if l.parent == ss {
			out = append(out, l)
		}
	}
	return out
}

func joinLabels(ls []string) string {
	out := ""
	for i, l := range ls {
		if i > 0 {
			out += " + "
		}
		out += l
	}
	return out
}
