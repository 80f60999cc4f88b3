// Package target compiles a lowered serQ program to the configuration of
// the system it describes, which `serq target` prints: today vLLM's (the
// vLLM v1 engine the repository's programs cite, ref/vllm at 0c87a197).
//
// vLLM runs one scheduling policy and its configuration parameterises it:
// one step engine that advances its running requests in admission order
// and then admits waiting ones first come first served while no request
// was preempted, a token budget per step, a cap on running requests, a KV
// cache of fixed-size blocks with an LRU prefix cache, and preemption of
// the latest admitted request when a step needs a block none frees. A
// program written on that architecture is compiled to the options that
// make vLLM run it, by vLLM's own names (EngineArgs: max_num_batched_tokens,
// max_num_seqs, block_size, num_gpu_blocks_override,
// long_prefill_token_threshold, enable_chunked_prefill,
// enable_prefix_caching, scheduler_reserve_full_isl, kv_transfer_config).
// A program that states another policy is refused with the construct vLLM
// cannot run and its position. The engines' `execute` cost is not read:
// vLLM runs the model itself.
//
// A program without queues must have exactly one engine. A program with
// queues (prefill/decode disaggregation, as examples/pd-disaggregation) is
// one vLLM deployment per queue family whose members are engines: each
// gets its configuration, and a family that takes part in a `pull` or
// `push` relation gets the KV-transfer settings of vLLM's NIXL connector
// (kv_producer for the source, kv_consumer for the reader).
package target

import (
	"fmt"
	"math"
	"strings"

	"github.com/serq/serq/model"
)

// Refusal is why vLLM cannot run the program: the construct, where it is
// written, and how a program would say what vLLM does.
type Refusal struct {
	Pos  model.Pos
	Msg  string
	Hint string
}

func (r *Refusal) Error() string { return r.Pos.String() + ": " + r.Msg }

// VLLMTarget is the configuration of a program: Engine and Config for a
// program of one engine, Roles for a deployment of queue families.
type VLLMTarget struct {
	Target string   `json:"target"` // "vllm"
	Engine string   `json:"engine,omitempty"`
	Config *Config  `json:"config,omitempty"`
	Roles  []*Group `json:"roles,omitempty"`
}

// Group is the vLLM instances of one queue family: Count instances of
// Config.
type Group struct {
	Queue  string  `json:"queue"`
	Role   string  `json:"role"` // the queue's roles, comma-separated; "" for none
	Count  int     `json:"instances"`
	Config *Config `json:"config"`
}

// Config is one vLLM engine's options, by vLLM's names (vllm/engine/arg_utils.py
// EngineArgs; SchedulerConfig, CacheConfig and KVTransferConfig fields).
type Config struct {
	MaxNumBatchedTokens  int64 `json:"max_num_batched_tokens"`
	MaxNumSeqs           int64 `json:"max_num_seqs"`
	BlockSize            int64 `json:"block_size"`
	NumGPUBlocksOverride int64 `json:"num_gpu_blocks_override"`
	// 0 is no cap, as in vLLM.
	LongPrefillTokenThreshold int64       `json:"long_prefill_token_threshold"`
	EnableChunkedPrefill      bool        `json:"enable_chunked_prefill"`
	EnablePrefixCaching       bool        `json:"enable_prefix_caching"`
	SchedulerReserveFullISL   bool        `json:"scheduler_reserve_full_isl"`
	KVTransferConfig          *KVTransfer `json:"kv_transfer_config,omitempty"`
}

// KVTransfer is vLLM's KVTransferConfig for the NIXL connector.
type KVTransfer struct {
	KVConnector    string `json:"kv_connector"`     // NixlConnector (pull) or NixlPushConnector
	KVRole         string `json:"kv_role"`          // kv_producer, kv_consumer or kv_both
	KVBufferDevice string `json:"kv_buffer_device"` // "cuda"
}

// The NIXL connectors by relation: NixlConnector is the pull connector
// (the decoder READs the prefiller's blocks), NixlPushConnector the one
// where the prefiller WRITEs into the decoder's.
var connectors = map[string]string{"pull": "NixlConnector", "push": "NixlPushConnector"}

// VLLM is the vLLM configuration that runs p, or the *Refusal that says
// why none does.
func VLLM(p *model.Program) (*VLLMTarget, error) {
	c := &compiler{p: p, inQueue: make([]bool, len(p.StageFams)), nic: make([]bool, len(p.StageFams))}
	var fams []*model.Queue
	for qi := range p.Queues {
		q := &p.Queues[qi]
		if q.Nic >= 0 && q.Nic < len(c.nic) {
			c.nic[q.Nic] = true
		}
		if q.Stage < 0 || q.Stage >= len(p.StageFams) {
			continue
		}
		c.inQueue[q.Stage] = true
		fams = append(fams, q)
	}
	if err := c.stages(len(fams) > 0); err != nil {
		return nil, err
	}
	if len(fams) == 0 {
		engine := -1
		for si, st := range p.Stages {
			if st.Kind == model.Step {
				engine = si
			}
		}
		cfg, err := c.engine(engine)
		if err != nil {
			return nil, err
		}
		if err := c.noForks(); err != nil {
			return nil, err
		}
		return &VLLMTarget{Target: "vllm", Engine: p.Stages[engine].Label, Config: cfg}, nil
	}
	out := &VLLMTarget{Target: "vllm"}
	for _, q := range fams {
		g, err := c.group(q)
		if err != nil {
			return nil, err
		}
		out.Roles = append(out.Roles, g)
	}
	return out, nil
}

type compiler struct {
	p       *model.Program
	inQueue []bool // stage family is a queue's engine
	nic     []bool // stage family is a queue's NIC
}

func (c *compiler) refuse(pos model.Pos, hint, format string, args ...any) error {
	return &Refusal{Pos: pos, Msg: "not on vLLM's architecture: " + fmt.Sprintf(format, args...), Hint: hint}
}

// stages checks the stages: the engines, and besides them only delays and
// (in a deployment) the queues' NICs.
func (c *compiler) stages(deployment bool) error {
	p := c.p
	steps := 0
	for f, fam := range p.StageFams {
		st := p.Stages[fam.First]
		switch {
		case st.Kind == model.Step && deployment && !c.inQueue[f]:
			return c.refuse(st.Pos, "put the engine in a queue family, as the deployment's other engines",
				"engine `%s` is outside the deployment's queues; each vLLM instance is a queue member", fam.Name)
		case st.Kind == model.Step:
			steps += fam.Count
		case (st.Kind == model.FIFO || st.Kind == model.PS) && !c.nic[f]:
			return c.refuse(st.Pos, "model the time outside vLLM as a `delay` stage",
				"stage `%s` is a queueing server (%s); vLLM's only server is its engine, and all else it is given is a delay",
				fam.Name, st.Kind)
		}
	}
	if !deployment && steps != 1 {
		pos := model.Pos{File: p.File, Line: 1, Col: 1}
		if len(p.Stages) > 0 {
			pos = p.Stages[0].Pos
		}
		return c.refuse(pos, "a program for vLLM has one `engine`; several are a deployment of queue families (examples/pd-disaggregation)",
			"vLLM is one step engine, and the program has %d", steps)
	}
	return nil
}

// noForks refuses legs in a program of one engine: a leg runs beside the
// request, which is a router's doing, not vLLM's.
func (c *compiler) noForks() error {
	var fork *model.Stmt
	c.p.Walk(func(st *model.Stmt) {
		if st.Op == model.OpFork && fork == nil {
			fork = st
		}
	})
	if fork != nil {
		return c.refuse(fork.Pos, "write the legs in a deployment's gateway, in front of the vLLM instances",
			"the request has legs (`fork`); one vLLM engine serves a request as one sequence")
	}
	return nil
}

// group is the configuration of queue family q's engines: every member's
// must be the same.
func (c *compiler) group(q *model.Queue) (*Group, error) {
	p := c.p
	fam := p.StageFams[q.Stage]
	st := p.Stages[fam.First]
	if st.Kind != model.Step {
		return nil, c.refuse(st.Pos, "make the queue's server an `engine`",
			"queue `%s` serves with a %s stage; a vLLM instance is a step engine", q.Name, st.Kind)
	}
	var cfg *Config
	for m := 0; m < fam.Count; m++ {
		mc, err := c.engine(fam.First + m)
		if err != nil {
			return nil, err
		}
		if cfg != nil && *mc != *cfg {
			return nil, c.refuse(p.Stages[fam.First+m].Pos, "",
				"the members of queue `%s` differ (%s); one vLLM configuration serves a queue family", q.Name, p.Stages[fam.First+m].Label)
		}
		cfg = mc
	}
	kv, err := c.transfer(q, st.Pos)
	if err != nil {
		return nil, err
	}
	cfg.KVTransferConfig = kv
	return &Group{Queue: q.Name, Role: strings.Join(q.Roles, ", "), Count: fam.Count, Config: cfg}, nil
}

// transfer is the KV-transfer settings of queue q from the relations it
// takes part in, or nil for none.
func (c *compiler) transfer(q *model.Queue, pos model.Pos) (*KVTransfer, error) {
	var kinds []string
	producer, consumer := false, false
	for _, r := range c.p.Relations {
		if r.Source != q.Name && r.Reader != q.Name {
			continue
		}
		if _, ok := connectors[r.Kind]; !ok {
			return nil, c.refuse(pos, "", "the relation `%s %s %s` has no vLLM connector", r.Reader, r.Kind, r.Source)
		}
		if len(kinds) > 0 && kinds[0] != r.Kind {
			return nil, c.refuse(pos, "one relation kind per queue: pull (NixlConnector) or push (NixlPushConnector)",
				"queue `%s` takes part in a pull and a push relation; a vLLM instance has one KV connector", q.Name)
		}
		kinds = append(kinds, r.Kind)
		if r.Source == q.Name {
			producer = true
		}
		if r.Reader == q.Name {
			consumer = true
		}
	}
	if len(kinds) == 0 {
		return nil, nil
	}
	role := "kv_producer"
	switch {
	case producer && consumer:
		role = "kv_both"
	case consumer:
		role = "kv_consumer"
	}
	return &KVTransfer{KVConnector: connectors[kinds[0]], KVRole: role, KVBufferDevice: "cuda"}, nil
}

// engine is the configuration of step stage si.
func (c *compiler) engine(si int) (*Config, error) {
	p := c.p
	st := p.Stages[si]
	if st.Engine < 0 || st.Engine >= len(p.Engines) {
		return nil, c.refuse(st.Pos, "", "stage `%s` has no engine", st.Label)
	}
	e := p.Engines[st.Engine]
	switch {
	case e.Serve == model.ServeExclusive:
		return nil, c.refuse(st.Pos, "write `schedule { advance running; admit waiting while (running.preempted == 0); }`",
			"engine `%s` serves exclusive prefill; vLLM mixes prefills and decodes in a step", st.Label)
	case e.Serve == model.ServeBody || len(e.Regs) > 0:
		return nil, c.refuse(st.Pos, "write `schedule { advance running; admit waiting while (running.preempted == 0); }`, vLLM's Scheduler.schedule()",
			"engine `%s` has its own schedule; vLLM's advances the running requests, then admits waiting ones while none was preempted", st.Label)
	case len(e.Order) > 0:
		return nil, c.refuse(st.Pos, "write `advance running;` without an order",
			"engine `%s` advances its running requests by keys; vLLM advances them in admission order", st.Label)
	case e.Granule != 0:
		return nil, c.refuse(st.Pos, "remove the `granule`",
			"engine `%s` rounds its steps to a granule of %s tokens; vLLM schedules single tokens", st.Label, model.FormatNum(float64(e.Granule)))
	}
	cfg := &Config{EnableChunkedPrefill: true}
	budget, ok := e.Budget.IsConst()
	if !ok {
		return nil, c.refuse(st.Pos, "write `tokens cap N;` with a constant N",
			"engine `%s`'s token budget is an expression; vLLM reads max_num_batched_tokens once from its configuration", st.Label)
	}
	var err error
	if cfg.MaxNumBatchedTokens, err = c.count(st.Pos, budget, "engine `"+st.Label+"`'s token budget"); err != nil {
		return nil, err
	}
	if cfg.LongPrefillTokenThreshold, err = c.chunk(st, e.Chunk); err != nil {
		return nil, err
	}
	// The KV cache.
	if e.Memory < 0 || e.Memory >= len(p.Pools) {
		return nil, c.refuse(st.Pos, "run the engine `on` a device with a `kv cap`, and declare `pool kv on gpu { block bs; … }`",
			"engine `%s` has no memory; vLLM's engine has its KV cache", st.Label)
	}
	kv := p.Pools[e.Memory]
	if kv.Block <= 0 {
		return nil, c.refuse(kv.Pos, "declare the pool with `block N;` (vLLM's block_size)",
			"pool `%s` has no block; vLLM allocates the KV cache in blocks", kv.Label)
	}
	if len(kv.Evict.Keys) > 0 {
		return nil, c.refuse(kv.Pos, "write `evict lru;`", "pool `%s` evicts by keys; vLLM's prefix cache evicts the least recently freed block", kv.Label)
	}
	if kv.Preempt != model.PreemptLIFO || kv.RequeueTail {
		return nil, c.refuse(kv.Pos, "write `preempt lifo;`",
			"pool `%s` does not preempt as vLLM does: vLLM preempts the latest admitted request and re-queues it at the head of the waiting queue", kv.Label)
	}
	if cfg.BlockSize, err = c.count(kv.Pos, float64(kv.Block), "pool `"+kv.Label+"`'s block"); err != nil {
		return nil, err
	}
	blocks := float64(kv.Cap) / float64(kv.Block)
	if blocks != math.Trunc(blocks) || math.IsInf(blocks, 0) {
		return nil, c.refuse(kv.Pos, "make the device's `kv cap` blocks × block_size",
			"pool `%s`'s cap %s is not a whole number of %s-token blocks", kv.Label, model.FormatNum(float64(kv.Cap)), model.FormatNum(float64(kv.Block)))
	}
	n, err := c.count(kv.Pos, blocks, "pool `"+kv.Label+"`'s blocks")
	if err != nil {
		return nil, err
	}
	// vLLM's block pool keeps block 0 as its null block, which serQ's pool
	// leaves out: num_gpu_blocks counts one more.
	cfg.NumGPUBlocksOverride = n + 1
	// The request slots: the one other pool the engine admits.
	slots := -1
	for _, pi := range e.Admits {
		if pi == e.Memory {
			continue
		}
		if slots >= 0 {
			pl := p.Pools[pi]
			return nil, c.refuse(pl.Pos, "",
				"engine `%s` admits pools `%s` and `%s` besides its KV cache; vLLM has one pool of request slots", st.Label, p.Pools[slots].Label, pl.Label)
		}
		slots = pi
	}
	if slots < 0 {
		return nil, c.refuse(st.Pos, "declare `pool reqs on ENGINE { queue fifo; }` and the engine's `reqs cap N;`",
			"engine `%s` admits no pool of request slots; vLLM's running list is bounded by max_num_seqs", st.Label)
	}
	sp := p.Pools[slots]
	if sp.Block > 0 || math.IsInf(float64(sp.Cap), 0) {
		return nil, c.refuse(sp.Pos, "give the engine `reqs cap N;` with a finite N (max_num_seqs)",
			"pool `%s` is not a finite count of request slots", sp.Label)
	}
	if cfg.MaxNumSeqs, err = c.count(sp.Pos, float64(sp.Cap), "pool `"+sp.Label+"`'s cap"); err != nil {
		return nil, err
	}
	for _, pl := range []model.Pool{kv, sp} {
		if len(pl.QueueKeys) > 0 {
			return nil, c.refuse(pl.Pos, "write `queue fifo;`", "pool `%s` admits by keys; vLLM admits first come, first served", pl.Label)
		}
		if pl.ReserveHeld {
			return nil, c.refuse(pl.Pos, "remove `reserve held;`",
				"pool `%s` holds its reservations; vLLM tests a reservation at admission and keeps nothing", pl.Label)
		}
	}
	// The holds of the KV cache: a cache at release is the prefix cache, a
	// reservation scheduler_reserve_full_isl.
	memFam := kv.Fam
	reserve, plain := 0, 0
	c.p.Walk(func(s *model.Stmt) {
		if s.Op != model.OpHold {
			return
		}
		for _, h := range s.Holds {
			if h.Pool.Fam != memFam {
				continue
			}
			if s.HasCache {
				cfg.EnablePrefixCaching = true
			}
			if h.Reserve != nil {
				reserve++
			} else {
				plain++
			}
		}
	})
	if reserve > 0 && plain > 0 {
		return nil, c.refuse(kv.Pos, "reserve the prompt's blocks in every hold of the pool, or in none",
			"some holds of pool `%s` reserve and some do not; vLLM's scheduler_reserve_full_isl is one setting", kv.Label)
	}
	cfg.SchedulerReserveFullISL = reserve > 0
	return cfg, nil
}

// chunk is long_prefill_token_threshold from an engine's `each at most`:
// none or inf is 0 (no cap), a constant is the cap. vLLM caps each
// request's prefill in a step whenever the threshold is positive; a cap
// that depends on the step (lib/vllm.sq's long_prefill with a finite
// limit exempts a request alone) is not vLLM's.
func (c *compiler) chunk(st model.Stage, e *model.Expr) (int64, error) {
	if e == nil {
		return 0, nil
	}
	v, ok := e.IsConst()
	if !ok && e.Op == model.ECond && len(e.Args) == 3 {
		// cond ? x : x is x whatever the condition (long_prefill(inf)).
		a, aok := e.Args[1].IsConst()
		b, bok := e.Args[2].IsConst()
		if aok && bok && a == b {
			v, ok = a, true
		}
	}
	if !ok {
		return 0, c.refuse(st.Pos, "write `each at most (c)` with a constant c, which vLLM applies to every request",
			"engine `%s`'s prefill cap depends on the step; vLLM caps a request's prefill at long_prefill_token_threshold whenever it is positive", st.Label)
	}
	if math.IsInf(v, 1) {
		return 0, nil
	}
	n, err := c.count(st.Pos, v, "engine `"+st.Label+"`'s prefill cap")
	if err == nil && n == 0 {
		return 0, c.refuse(st.Pos, "write a positive cap, or none", "engine `%s`'s prefill cap is 0; vLLM reads 0 as no cap", st.Label)
	}
	return n, err
}

// count is x as one of vLLM's counts: a whole number.
func (c *compiler) count(pos model.Pos, x float64, what string) (int64, error) {
	if x < 0 || x != math.Trunc(x) || x >= 1<<53 {
		return 0, c.refuse(pos, "", "%s is %s, and vLLM counts it in whole numbers", what, model.FormatNum(x))
	}
	return int64(x), nil
}
