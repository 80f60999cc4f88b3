package interp

import (
	"math"
	"strconv"

	"github.com/serq/serq/interp/internal/stats"
	"github.com/serq/serq/model"
)

// ReportVersion is the version of the JSON report's shape (docs/cli.md §5):
// renaming, removing or retyping a field bumps it; adding one does not.
const ReportVersion = 1

// Report is what a run reports: the run line, the observes, gauges,
// claims, stages and pools, field for field as the JSON report of docs/cli.md §5
// holds them and in its order. It is plain data; cmd/serq renders it as
// text, JSON or --dump CSVs. Float fields may be NaN or ±Inf (JSON null).
type Report struct {
	Version string // the serq version that ran (JSON "serq_version")

	Horizon  float64 // configured deadline
	End      float64 // actual end: Horizon, or earlier with --arrivals
	Warmup   float64 // statistics exclude [0, Warmup)
	Seed     uint64
	Events   uint64  // events of the whole run
	Arrivals uint64  // arrivals of the whole run
	Ended    uint64  // sessions that ended after warm-up
	Turns    uint64  // turns started after warm-up
	MeanLive float64 // time-average live sessions after warm-up

	Observes []ObserveRow // program (declaration) order
	Gauges   []GaugeRow   // program (declaration) order
	Claims   []ClaimRow   // program order; none: no "claims" key in JSON
	Stages   []StageRow   // IR order, array members in index order
	Pools    []PoolRow    // IR order, array members in index order

	// Failures is what a program that can fail (faults, a timeout, a
	// renewed lease, a read policy, a retry) reports of its failures,
	// counted over the whole run; nil for any other program.
	Failures *Failures
}

// Failures are the failed requests of a run, the outcome of its sessions,
// its leases' lifetimes and its members' faults, over the whole run.
type Failures struct {
	Requests   uint64      // requests that failed (a retried one counts each time)
	Retries    uint64      // entry calls made again after a failure
	Recomputes uint64      // failed reads the reader recomputed
	Causes     []FailCause // by cause, in the order first met
	// Sessions: ended with their last request served, ended with it
	// failed, ended by a request that could never fit, live at the end.
	Completed, Failed, Rejected, Live uint64
	Leases                            []LeaseRow // every leased pool, IR order
	Down                              []DownRow  // every member and stage a fault names, in the order named
}

// FailCause is one cause of failed requests: how many requests failed of
// it, and how many sessions ended with their last request failed of it.
type FailCause struct {
	Cause    string
	Requests uint64
	Sessions uint64
}

// LeaseRow is what happened to the leases of one pool.
type LeaseRow struct {
	Pool        string // its label
	Granted     uint64 // leases taken
	Expired     uint64 // ended by their time running out
	LateReads   uint64 // reads that went ahead after the lease expired
	FailedReads uint64 // reads that failed (source down, lease lost or expired and declined, a link down)
	Lost        uint64 // lost with their member
	Stranded    uint64 // left to expire by a failed or given-up request
	Live        uint64 // live at the end (stranded ones included)
}

// DownRow is a member or stage a fault names: how often it went down and
// for how long (a spell not over at the end counts to the end).
type DownRow struct {
	Label    string
	Downs    uint64
	TimeDown float64
}

// ObserveRow is one observe's statistics over its post-warm-up samples.
type ObserveRow struct {
	Name  string
	Count uint64
	Mean  float64 // NaN without samples
	CI    float64 // batch-means 95 % half-width; +Inf below 40 samples
	CV2   float64 // NaN below 2 samples
	P99   float64 // nearest rank; NaN without samples

	// Test says the observed expression is a test: its top-level operator
	// is a comparison, `&&`, `||` or `!`.
	Test bool
	// AllZero says every sample is 0 (true without samples).
	AllZero bool
	// Samples are the post-warm-up samples in recording order (--dump);
	// none from a lean run (Options.Lean).
	Samples []Sample
}

// ConstantZero reports whether the row earns the text report's note
// "observe NAME is constant 0 over N samples": a test-valued observe that
// was 0 in every one of at least [stats.CIMinSamples] samples.
func (o *ObserveRow) ConstantZero() bool {
	if o.Samples == nil && o.Count > 0 { // a lean run's row
		return o.Test && o.Count >= stats.CIMinSamples && o.AllZero
	}
	if !o.Test || len(o.Samples) < stats.CIMinSamples {
		return false
	}
	for _, s := range o.Samples {
		if s.Value != 0 {
			return false
		}
	}
	return true
}

// GaugeRow is one gauge's statistics over [warmup, end].
type GaugeRow struct {
	Name string
	Mean float64 // time average
	CI   float64 // batch-means 95 % half-width over 20 equal windows
	Min  float64 // least value held for a positive time
	Max  float64 // greatest value held for a positive time
	// Points are the change points from time 0, warm-up included, at most
	// one per instant (--dump); none from a lean run (Options.Lean).
	Points []TimePoint
}

// ClaimKind is when a claim is read.
type ClaimKind int

const (
	ClaimEveryIteration ClaimKind = iota // must hold at every iteration read
	ClaimSomeIteration                   // must hold at some iteration read
	ClaimAtEnd                           // read once, at the end
)

// String is the JSON spelling: every_iteration, some_iteration, at_end.
func (k ClaimKind) String() string {
	switch k {
	case ClaimEveryIteration:
		return "every_iteration"
	case ClaimSomeIteration:
		return "some_iteration"
	case ClaimAtEnd:
		return "at_end"
	}
	return "ClaimKind(" + strconv.Itoa(int(k)) + ")"
}

// ClaimResult is what a run says of a claim.
type ClaimResult int

const (
	ClaimHolds        ClaimResult = iota // every read satisfied it
	ClaimFails                           // some read did not
	ClaimWitnessed                       // a `some` claim: a read satisfied it
	ClaimNotWitnessed                    // a `some` claim: no read satisfied it
	ClaimNotEvaluated                    // at end, with sessions live at the end
	ClaimOutOfScope                      // a session failed the claim's `given`
)

// String is the JSON spelling: holds, fails, witnessed, not_witnessed,
// not_evaluated, out_of_scope.
func (r ClaimResult) String() string {
	switch r {
	case ClaimHolds:
		return "holds"
	case ClaimFails:
		return "fails"
	case ClaimWitnessed:
		return "witnessed"
	case ClaimNotWitnessed:
		return "not_witnessed"
	case ClaimNotEvaluated:
		return "not_evaluated"
	case ClaimOutOfScope:
		return "out_of_scope"
	}
	return "ClaimResult(" + strconv.Itoa(int(r)) + ")"
}

// ClaimRow is what the run found of one claim, over the whole run (warm-up
// included).
type ClaimRow struct {
	Name     string
	Kind     ClaimKind
	Result   ClaimResult
	Checked  uint64   // iterations read, or 1 for a claim read at the end
	Failures uint64   // of those, the reads that gave 0
	First    *float64 // first failure or first witness; nil if none
	Note     *string  // why it was not read (live sessions, failed `given`)
}

// StageRow is one stage (or stage-array member).
type StageRow struct {
	Name  string
	Index *int // member index in a stage array; nil for a single stage
	// Label is the row's name in the text report (`rep[1]`, `D[0]`); empty
	// means Name, or Name[Index] for an array member.
	Label string

	MeanNumber  float64 // time-average jobs present
	Utilization float64 // time-average busy fraction (or carried capacity)
	Completed   uint64
	Throughput  float64 // Completed / (end − warmup)
	MeanWait    float64
	MeanService float64
	Iterations  uint64 // step stages: iterations of the whole run

	// Step stages (0 on other stages): time fractions with an iteration of
	// prefill only, decode only, or both running.
	PrefillOnly float64
	DecodeOnly  float64
	Mixed       float64
	// Step stages: time-average decodes in the running iteration (0 on
	// other stages).
	MeanDecodes float64
	// Decode-carrying iterations started after warm-up (NaN if none or on
	// other stages): their decodes and their duration.
	MeanDecodeBatch float64
	MeanDecodeStep  float64
	// Inter-token gaps ending on this stage after warm-up (NaN if none).
	MeanITL float64
	ITLP50  float64
	ITLP99  float64
	// IdleWithWork: the run ended with residents or waiting requests and
	// the stage's last iteration scheduling nothing.
	IdleWithWork bool
}

// DisplayName is the row's label in the text report.
func (s *StageRow) DisplayName() string { return reportRowLabel(s.Label, s.Name, s.Index) }

// OverCap says the run ended with the head of a queue asking a pool for
// more than its cap.
type OverCap struct {
	Queue string  // label of the pool whose queue's head asks
	Need  float64 // what it asks
}

// PoolRow is one pool (or pool-array member).
type PoolRow struct {
	Name  string
	Index *int // member index in a pool array; nil for a single pool
	// Label is the row's name in the text report and its notes (`kv`,
	// `kvD[0]`, `D.kv[0]`); empty means Name, or Name[Index].
	Label string

	MeanUsed       float64
	MeanCached     float64
	MeanQueue      float64
	MeanHolders    float64
	MeanWait       float64 // mean admission wait; NaN if none
	Admissions     uint64
	EvictedEntries uint64
	EvictedUnits   float64
	Preemptions    uint64
	Spills         uint64
	Rejected       uint64
	Stuck          uint64
	OverCap        *OverCap // nil: JSON null
}

// DisplayName is the row's label in the text report.
func (p *PoolRow) DisplayName() string { return reportRowLabel(p.Label, p.Name, p.Index) }

func reportRowLabel(label, name string, index *int) string {
	switch {
	case label != "":
		return label
	case index != nil:
		return name + "[" + strconv.Itoa(*index) + "]"
	}
	return name
}

// Building the report from a run.

// testObserves marks the observe slots whose expression is a test.
func testObserves(p *model.Program) []bool {
	out := make([]bool, len(p.Observes))
	p.Walk(func(st *model.Stmt) {
		if st.Op == model.OpObserve && st.Test {
			out[st.Slot] = true
		}
	})
	return out
}

// Report summarises the run so far (the whole run once it is over).
func (s *Sim) Report() *Report {
	end := s.end
	if !s.finished {
		end = s.now
	}
	p := s.p
	span := end - s.opt.Warmup
	r := &Report{
		Version: s.opt.Version, Horizon: s.opt.Horizon, End: end, Warmup: s.opt.Warmup, Seed: s.opt.Seed,
		Events: s.events, Arrivals: s.arrivals, Ended: s.ended, Turns: s.turns,
		MeanLive: s.liveAvg.Mean(end),
	}
	tests := testObserves(p)
	var keys []int64
	for i, name := range p.Observes {
		r.Observes = append(r.Observes, observeRow(&s.obs[i], name, tests[i], &keys))
	}
	for i, g := range p.Gauges {
		r.Gauges = append(r.Gauges, gaugeRow(&s.gauges[i], g.Name, s.opt.Warmup, end))
	}
	r.Claims = s.claimRows()
	nan := math.NaN()
	for i := range s.stages {
		st := &s.stages[i]
		m := st.m
		row := StageRow{Name: m.Name, Label: m.Label,
			MeanNumber: st.num.Mean(end), Utilization: st.util.Mean(end), Completed: st.done,
			Throughput: float64(st.done) / span, MeanWait: st.waitW.Mean(), MeanService: st.svcW.Mean(),
			MeanDecodeBatch: nan, MeanDecodeStep: nan, MeanITL: nan, ITLP50: nan, ITLP99: nan}
		if m.Index >= 0 {
			idx := m.Index
			row.Index = &idx
		}
		if e := st.eng; e != nil {
			row.Iterations = e.iters
			row.PrefillOnly = e.prefOnlyI.Mean(end)
			row.DecodeOnly = e.decOnlyI.Mean(end)
			row.Mixed = e.mixedI.Mean(end)
			row.MeanDecodes = e.decodesI.Mean(end)
			row.MeanDecodeBatch = e.decBatchW.Mean()
			row.MeanDecodeStep = e.decStepW.Mean()
			row.MeanITL = e.itlW.Mean()
			if e.itl.Count() > 0 {
				row.ITLP50 = e.itl.Quantile(0.5)
				row.ITLP99 = e.itl.Quantile(0.99)
			}
			row.IdleWithWork = e.idle && (len(e.res) > 0 || s.engineHasWaiters(e))
		}
		r.Stages = append(r.Stages, row)
	}
	overCap := s.overCaps()
	for i := range s.pools {
		pl := &s.pools[i]
		m := pl.m
		row := PoolRow{Name: m.Name, Label: m.Label,
			MeanUsed: pl.usedI.Mean(end), MeanCached: pl.cachedI.Mean(end), MeanQueue: pl.queueI.Mean(end),
			MeanHolders: pl.holdersI.Mean(end), MeanWait: pl.waitW.Mean(), Admissions: pl.admits,
			EvictedEntries: pl.evictN, EvictedUnits: pl.evictU, Preemptions: pl.preempts,
			Spills: pl.spills, Rejected: pl.rejected, Stuck: pl.stuck}
		if m.Index >= 0 {
			idx := m.Index
			row.Index = &idx
		}
		row.OverCap = overCap[i]
		r.Pools = append(r.Pools, row)
	}
	if s.canFail {
		r.Failures = s.failures(end)
	}
	return r
}

// failures is the report's Failures section.
func (s *Sim) failures(end float64) *Failures {
	f := &Failures{Retries: s.retries, Recomputes: s.recomputes,
		Completed: s.completedN, Failed: s.failedN, Rejected: s.rejectedN, Live: uint64(len(s.live))}
	for _, c := range s.causes {
		f.Requests += c.Requests
		f.Causes = append(f.Causes, FailCause(c))
	}
	leased := map[int]bool{}
	for _, q := range s.p.Queues {
		if q.Leases >= 0 {
			leased[q.Leases] = true
		}
	}
	s.p.Walk(func(st *model.Stmt) {
		if st.Lease > 0 {
			leased[st.Holds[st.Lease-1].Pool.Fam] = true
		}
	})
	for i := range s.pools {
		pl := &s.pools[i]
		if !leased[pl.m.Fam] {
			continue
		}
		live, _ := s.leasesOf(i)
		f.Leases = append(f.Leases, LeaseRow{Pool: pl.m.Label, Granted: pl.leasesN, Expired: pl.expired, LateReads: pl.late,
			FailedReads: pl.failedReads, Lost: pl.lost, Stranded: pl.strandedN, Live: uint64(live)})
	}
	seen := map[string]bool{}
	for _, t := range s.faults {
		row := DownRow{}
		if t.member >= 0 {
			m := &s.members[t.member]
			row = DownRow{Label: m.label, Downs: m.downs, TimeDown: m.downTime}
			if m.down > 0 {
				row.TimeDown += end - m.downSince
			}
		} else {
			st := &s.stages[t.stage]
			row = DownRow{Label: st.m.Label, Downs: st.downs, TimeDown: st.downTime}
			if st.downDepth > 0 {
				row.TimeDown += end - st.downSince
			}
		}
		if !seen[row.Label] {
			seen[row.Label] = true
			f.Down = append(f.Down, row)
		}
	}
	return f
}

// overCaps finds the queue heads that ask some pool of their hold for more
// than its cap (the report's over_cap), by the asked pool; they can never
// be admitted. Reading them never changes the run.
func (s *Sim) overCaps() map[int]*OverCap {
	saved := s.err
	defer func() { s.err = saved }()
	overCap := map[int]*OverCap{}
	for i := range s.pools {
		s.headOverCap(&s.pools[i], func(asked *pool, need float64) bool {
			if overCap[asked.index] == nil {
				overCap[asked.index] = &OverCap{Queue: s.pools[i].m.Label, Need: need}
			}
			return true
		})
	}
	return overCap
}

// headOverCap calls over, in the hold's pool order, with each pool that
// the head of pl's queue asks for more than its cap and what it asks, until
// over returns false. The caller keeps s.err as it was.
func (s *Sim) headOverCap(pl *pool, over func(asked *pool, need float64) bool) {
	if len(pl.queue) == 0 {
		return
	}
	h := pl.queue[0]
	for k := range h.pools {
		asked := &s.pools[h.pools[k].pool]
		if need := asked.roundUp(s.demand(h.owner, h, k)); need > asked.cap && !over(asked, need) {
			return
		}
	}
}

// PoolNote is what the report's notes say of a pool so far: sessions stuck
// and rejected there, and a queue head that asks more than its cap. It
// costs a pass over the pools, not a report.
type PoolNote struct {
	Label           string
	Stuck, Rejected uint64
	OverCap         *OverCap
}

// PoolNotes lists the pools with something to note, in declaration order.
func (s *Sim) PoolNotes() []PoolNote {
	over := s.overCaps()
	var out []PoolNote
	for i := range s.pools {
		pl := &s.pools[i]
		if pl.stuck == 0 && pl.rejected == 0 && over[i] == nil {
			continue
		}
		out = append(out, PoolNote{Label: pl.m.Label, Stuck: pl.stuck, Rejected: pl.rejected, OverCap: over[i]})
	}
	return out
}
