package vllmimport

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/serq/serq/hardware"
	"github.com/serq/serq/internal/safeio"
)

// Input is what Write needs: the model, the GPU, vLLM's options (resolved)
// and the workload, the calibration, and the command that asked.
type Input struct {
	Model     *hardware.Model
	ModelName string // what the header calls it (the config's directory)
	GPU       hardware.GPU
	GPUName   string // as the command line named it
	Options   Options
	Profile   *Profile
	Cal       Calibration
	Command   string // the command line, for the header
}

// Plan is what a program is made of, computed before a line is written.
type Plan struct {
	Costs          *hardware.Costs
	SysTokens      int // the system prompt's tokens after the BOS token: round(ratio · system_prompt_len)
	QuestionTokens int // a question's, with the space before it: round(ratio · question_len)
	Prompt         int // 1 (BOS) + SysTokens + QuestionTokens
	Stride         int // the permutation of the prompts: prompt p is the (p · Stride mod P)-th
	Horizon        float64
}

// NewPlan checks the input and computes the plan.
func NewPlan(in *Input) (*Plan, error) {
	m, o, p := in.Model, &in.Options, in.Profile
	c, err := hardware.Derive(m, in.GPU, o.Serving())
	if err != nil {
		return nil, errorf("%v", err)
	}
	pl := &Plan{Costs: c}
	r := in.Cal.TokenRatio
	if !(r > 0) {
		r = 1
	}
	pl.SysTokens = int(math.Round(r * float64(p.SystemLen)))
	pl.QuestionTokens = int(math.Round(r * float64(p.QuestionLen)))
	pl.Prompt = 1 + pl.SysTokens + pl.QuestionTokens
	if pl.Prompt+p.OutputLen > o.MaxModelLen {
		return nil, errorf("--max-model-len %d: a request of %d prompt tokens and %d output tokens does not fit, and vLLM would refuse every one", o.MaxModelLen, pl.Prompt, p.OutputLen)
	}
	if kvTokens := c.KVBlocks * o.BlockSize; o.MaxModelLen > kvTokens {
		return nil, errorf("--max-model-len %d is more than the %d tokens of KV cache (%d blocks of %d): vLLM would not start (raise --gpu-memory-utilization or --tensor-parallel-size, or lower --max-model-len)",
			o.MaxModelLen, kvTokens, c.KVBlocks, o.BlockSize)
	}
	pl.Stride = stride(p.Prompts())
	total := 0.0
	for _, s := range p.Stages {
		total += s.Duration
	}
	pl.Horizon = math.Ceil((total+p.Timeout)/100)*100 + 100
	return pl, nil
}

// stride is a multiplier coprime to n near 0.37·n: p ↦ p·stride mod n
// permutes the prompts so that consecutive ones fall in different groups,
// as inference-perf's shuffle of its prompts does (an unseeded shuffle that
// no program can repeat).
func stride(n int) int {
	if n <= 2 {
		return 1
	}
	for s := max(1, int(0.37*float64(n))); s < n; s++ {
		if gcd(s, n) == 1 {
			return s
		}
	}
	return 1
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Write writes the program.
func Write(w io.Writer, in Input) error {
	pl, err := NewPlan(&in)
	if err != nil {
		return err
	}
	var b strings.Builder
	writeProgram(&b, &in, pl)
	_, err = io.WriteString(w, b.String())
	return err
}

// num writes a number as a serQ literal: whole numbers with their digits
// grouped by _, others in the shortest form.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		s := strconv.FormatInt(int64(math.Abs(x)), 10)
		var g []string
		for len(s) > 3 {
			g = append([]string{s[len(s)-3:]}, g...)
			s = s[:len(s)-3]
		}
		g = append([]string{s}, g...)
		out := strings.Join(g, "_")
		if x < 0 {
			out = "-" + out
		}
		return out
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// eng writes x in engineering notation with at most four significant
// digits: 989.5e12, 3.35e12, 6.476e9.
func eng(x float64) string {
	if x == 0 {
		return "0"
	}
	e := int(math.Floor(math.Log10(math.Abs(x))/3)) * 3
	m := x / math.Pow(10, float64(e))
	ms := strconv.FormatFloat(m, 'g', 4, 64)
	if e == 0 {
		return ms
	}
	return fmt.Sprintf("%se%d", ms, e)
}

// letBlock is a run of `let`s written with their values and comments in
// columns.
type letBlock struct{ rows [][3]string }

func (b *letBlock) add(name, value, comment string) {
	b.rows = append(b.rows, [3]string{name, value, comment})
}

func (b *letBlock) write(f func(string, ...any), indent string) {
	w := 0
	for _, r := range b.rows {
		w = max(w, len("let "+r[0]+" = "+r[1]+";"))
	}
	for _, r := range b.rows {
		head := "let " + r[0] + " = " + r[1] + ";"
		f("%s%s%s   // %s", indent, head, strings.Repeat(" ", w-len(head)), r[2])
	}
}

// line is a string from the command line made fit for a comment: one
// line, no control character (a path with a newline would end the comment
// and write code).
func line(s string) string { return safeio.PrintableLine(s) }

// gb writes bytes in GiB with two decimals.
func gb(x float64) string { return fmt.Sprintf("%.2f GiB", x/(1<<30)) }

func writeProgram(b *strings.Builder, in *Input, pl *Plan) {
	m, g, o, p, c, cal := in.Model, in.GPU, &in.Options, in.Profile, pl.Costs, in.Cal
	f := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	tp := o.TP
	gpus := "one " + g.Name
	if tp > 1 {
		gpus = fmt.Sprintf("%d × %s (tensor parallel)", tp, g.Name)
	}
	f("// vLLM serving %s on %s, under inference-perf's", line(in.ModelName), gpus)
	f("// shared_prefix workload, as `serq import vllm` wrote it:")
	f("//   %s", line(in.Command))
	f("// Every number below says where it came from. Run it with")
	f("//   serq run FILE --horizon %g", pl.Horizon)
	f("// (the run ends when the last request has; the horizon only bounds it).")
	f("// Each request is observed once: ttft and e2e (s, what inference-perf")
	f("// reports as time_to_first_token and request_latency), itl ((e2e − ttft)")
	f("// / (output tokens − 1)), stage (its load stage, from 0) and, when it")
	f("// fails or times out, failed (1).")
	f("//")
	f("// Modeled: one vLLM V1 engine (lib/vllm.sq's scheduler) on the GPUs, its")
	f("// step's time from the model's FLOPs and bytes and a few calibrated")
	f("// constants, its KV cache shared across requests by content, and")
	f("// inference-perf's client. Not modeled: vLLM's CPU KV offloading,")
	f("// speculative decoding, the API server's own queueing.")
	f(`use "lib/vllm.sq";`)
	f("")
	f(`use "std/args";`)
	f("")
	f("// The model (%s): %s.", line(filepath.Base(m.Name)), m.String())
	f("// The GPU (%s): %s; %s of memory; %s between GPUs.", line(in.GPUName), g.Name, gb(g.Memory), g.LinkTag)
	f("// A step's work on each GPU of the group (package hardware):")
	lets := &letBlock{}
	lets.add("flops_token", num(c.FlopsPerToken), fmt.Sprintf("FLOPs per scheduled token through the layers: 2 × %s active parameters / %d", eng(m.ActiveParams()), tp))
	lets.add("flops_sample", num(c.FlopsPerSample), fmt.Sprintf("FLOPs per sampled token (one a request) through the LM head: 2 × %d × %d / %d", m.Vocab, m.Hidden, tp))
	lets.add("flops_pair", num(c.AttnFlopsPerPair), fmt.Sprintf("attention FLOPs per (query, attended token) pair: 4 × %d layers × %d heads × %d / %d", m.Layers, m.Heads, m.HeadDim, tp))
	if m.MoE() {
		lets.add("dense_bytes", num(c.DenseBytes), "weights read once a step but the experts': attention, router, norms, LM head")
		lets.add("expert_bytes", num(c.ExpertBytes), fmt.Sprintf("one expert's weights in all %d layers", m.Layers))
		lets.add("experts", num(float64(m.Experts)), "experts a layer")
		lets.add("top_k", num(float64(m.ActiveK)), "experts a token")
	} else {
		lets.add("weight_bytes", num(c.DenseBytes), "weights read once a step: all but the embedding table")
	}
	lets.add("kv_token_bytes", num(c.KVBytesPerToken), fmt.Sprintf("KV bytes per token: 2 × %d layers × %d KV heads × %d × %d bytes / %d", m.Layers, m.KVHeads, m.HeadDim, m.DTypeBytes, tp))
	lets.add("allreduces", num(float64(c.AllReduces)), "all-reduces a step: two a layer with tensor parallelism")
	lets.add("allreduce_steps", num(float64(c.AllReduceSteps)), "the steps of one: 2 (TP − 1), a ring's")
	lets.add("allreduce_bytes", num(c.AllReduceBytes), fmt.Sprintf("bytes a GPU sends per token in one: 2 (TP − 1) / TP × %d × %d", m.Hidden, m.DTypeBytes))
	lets.add("peak_flops", eng(g.FLOPS), "the datasheet's dense 16-bit FLOP/s")
	lets.add("hbm_bw", eng(g.HBM), "its HBM bandwidth, B/s")
	lets.add("link_bw", eng(g.Link), "its GPU-to-GPU bandwidth each way, B/s")
	lets.write(f, "")
	f("// Calibrated on the measured runs of validation/groundtruth (vllmimport/calibration.json,")
	f("// `go run ./calib/cmd/fit`; docs/validation.md), the same for every model and GPU:")
	lets = &letBlock{}
	lets.add("eta_compute", num(cal.EtaCompute), "the fraction of peak FLOP/s a step's products reach")
	lets.add("eta_memory", num(cal.EtaMemory), "the fraction of HBM bandwidth a step's reads reach")
	lets.add("t_step", num(cal.TStep), "s a step: the scheduler, preparing inputs, the sampler")
	lets.add("t_request", num(cal.TRequest), "s per request in a step")
	lets.add("t_hop", num(cal.THop), "s per step of an all-reduce: its latency")
	lets.add("t_client", num(cal.TClient), "s the client sees off the GPU: the API server, detokenizing, streaming")
	lets.write(f, "")
	f("let bs = %d;   // --block-size", o.BlockSize)
	f("")
	f("fn main() {")
	f("  // vLLM's options: %s", o.commandLine())
	f("  let max_seqs = args.number(\"max_seqs\", %d);   // --max-num-seqs%s", o.MaxSeqs, defaultNote(o.setN))
	f("  let batched = args.number(\"batched\", %d);     // --max-num-batched-tokens%s", o.MaxBatched, defaultNote(o.setBatched))
	if c.BlocksOverridden {
		f("  let blocks = args.number(\"blocks\", %d);       // num_gpu_blocks: --num-gpu-blocks-override", c.KVBlocks)
	} else {
		f("  // num_gpu_blocks, as vLLM allocates it: (%s × %g − %s of weights − %s of", gb(g.Memory), o.GPUMemUtil, gb(c.WeightBytes), gb(c.ActivationBytes))
		f("  // peak activation − %s outside PyTorch) / (%d tokens × %s B)", gb(c.NonTorchBytes), o.BlockSize, num(c.KVBytesPerToken))
		f("  let blocks = args.number(\"blocks\", %d);", c.KVBlocks)
	}
	f("  // inference-perf's load stages: requests per second, seconds")
	for i, s := range p.Stages {
		f("  let rate%d = args.number(\"rate%d\", %s);", i, i, num(s.Rate))
		f("  let dur%d = args.number(\"dur%d\", %s);", i, i, num(s.Duration))
	}
	f("")
	f("  device gpu {")
	f("    compute (x) = x / (eta_compute * peak_flops);   // FLOPs to seconds")
	f("    memory (x) = x / (eta_memory * hbm_bw);         // bytes read to seconds")
	f("    kv cap blocks * bs;                              // the KV cache, in tokens")
	f("  }")
	f("")
	f("  // vLLM's scheduler (vllm/v1/core/sched/scheduler.py), one step a time.")
	f("  engine vllm on gpu {")
	f("    reqs cap max_seqs;")
	f("    tokens cap batched;")
	f("    schedule {")
	if o.LongPrefill > 0 {
		f("      let threshold = long_prefill(%d);   // --long-prefill-token-threshold", o.LongPrefill)
		f("      advance running each at most (threshold);")
		f("      admit waiting while (running.preempted == 0) each at most (threshold);")
	} else {
		f("      advance running;")
		f("      admit waiting while (running.preempted == 0);")
	}
	f("    }")
	f("    // A step: its fixed costs; then, for each kind of kernel, its compute")
	f("    // against its memory reads, whichever is longer (a roofline each): the")
	f("    // layers' products (every token through the weights, every request's")
	if m.MoE() {
		f("    // sample through the LM head) against reading the weights (those of")
		f("    // the experts its tokens touch: E (1 − (1 − k/E)^tokens) of E, routed")
		f("    // uniformly),")
	} else {
		f("    // sample through the LM head) against reading the weights,")
	}
	f("    // and attention (over every attended token) against reading the KV")
	f("    // it attends to and writing the new; then the all-reduces of tensor")
	f("    // parallelism.")
	weights := "weight_bytes"
	if m.MoE() {
		weights = "dense_bytes + expert_bytes * experts * (1 - pow(1 - top_k / experts, batch.tokens))"
	}
	f("    execute (t_step + t_request * batch.count")
	f("             + max(compute(flops_token * batch.tokens + flops_sample * batch.count),")
	f("                   memory(%s))", weights)
	f("             + max(compute(flops_pair * (batch.attention + batch.context_decode + batch.decoding)),")
	f("                   memory(kv_token_bytes * (batch.context_decode + batch.context_prefill + batch.tokens)))")
	f("             + allreduces * (allreduce_steps * t_hop + allreduce_bytes * batch.tokens / link_bw));")
	f("  }")
	f("")
	f("  // The KV cache (vllm/v1/core/kv_cache_manager.py): blocks of bs tokens;")
	f("  // freed blocks stay cached by content until evicted, least recently")
	f("  // freed first; a step that needs a block none frees preempts the last")
	f("  // running request, which computes its tokens again when readmitted.")
	f("  pool kv on gpu { block bs; evict lru; preempt lifo; }")
	f("  pool reqs on vllm { queue fifo; }   // the waiting queue, first come first served")
	f("  stage api : delay;                  // the API server, off the GPU's path")
	f("")
	writeWorkload(f, in, pl)
	writeServer(f, in, pl)
	f("}")
}

func defaultNote(set bool) string {
	if set {
		return " (vLLM's default on this GPU)"
	}
	return ""
}

func writeWorkload(f func(string, ...any), in *Input, pl *Plan) {
	p := in.Profile
	f("  // The client: inference-perf (%s, read as inference-perf %s reads it).", line(filepath.Base(p.Path)), p.Version)
	if len(p.Ignored) > 0 {
		f("  // inference-perf %s does not know %s: it used", p.Version, strings.Join(p.Ignored, ", "))
		f("  // %s as its configuration gives them.", p.GroupsFromNames)
	}
	f("  // %d system prompts of %d random token ids, each shared by %d prompts", p.Groups, p.SystemLen, p.PerGroup)
	f("  // that add a question of %d; the ids are decoded to text and the", p.QuestionLen)
	f("  // server encodes the text again: %d + 1 (BOS) + %d = %d tokens a", pl.SysTokens, pl.QuestionTokens, pl.Prompt)
	f("  // prompt at %g tokens an id (token_ratio, calibrated). The %d prompts are", in.Cal.TokenRatio, p.Prompts())
	f("  // sent in a fixed shuffled order, again from the first at each stage; a")
	f("  // request asks for %d tokens and gets them all (ignore_eos).", p.OutputLen)
	stages := make([]string, len(p.Stages))
	for i := range p.Stages {
		stages[i] = fmt.Sprintf("constant(rate%d, dur%d)", i, i)
	}
	f("  workload {")
	f("    arrive %s;", strings.Join(stages, ", "))
	if p.TimeoutSet {
		f("    timeout (%s);   // load.request_timeout", num(p.Timeout))
	} else {
		f("    timeout (%s);   // aiohttp's default total timeout: inference-perf sets none", num(p.Timeout))
	}
	f("    init {")
	// the stage of serial: cumulative counts
	if len(p.Stages) == 1 {
		f("      set st = 0;")
		f("      set k = serial;                       // the request's number in its stage")
	} else {
		var conds, firsts []string
		cum := ""
		for i := range p.Stages[:len(p.Stages)-1] {
			term := fmt.Sprintf("floor(rate%d * dur%d)", i, i)
			if cum == "" {
				cum = term
			} else {
				cum = cum + " + " + term
			}
			conds = append(conds, fmt.Sprintf("serial < %s ? %d : ", cum, i))
			firsts = append(firsts, cum)
		}
		f("      set st = %s%d;   // the load stage", strings.Join(conds, ""), len(p.Stages)-1)
		sel := "0"
		for i := len(firsts) - 1; i >= 0; i-- {
			sel = fmt.Sprintf("st == %d ? %s : %s", i+1, firsts[i], sel)
			if i > 0 {
				sel = "(" + sel + ")"
			}
		}
		f("      set k = serial - (%s);   // the request's number in its stage", sel)
	}
	n := p.Prompts()
	f("      set q = k - floor(k / %d) * %d;              // the prompt: k mod %d", n, n, n)
	f("      set j = q * %d - floor(q * %d / %d) * %d;   // its place in the shuffled order", pl.Stride, pl.Stride, n, n)
	f("      set g = floor(j / %d);                      // its system prompt", p.PerGroup)
	f("      set n = %d;                                 // prompt tokens", pl.Prompt)
	f("      set o = %d;                                 // output tokens", p.OutputLen)
	f("    }")
	f("    session {")
	f("      turn;")
	f("      observe stage = st;")
	f("      branch (failed) { observe failed = 1; }")
	f("    }")
	f("  }")
	f("")
}

func writeServer(f func(string, ...any), in *Input, pl *Plan) {
	o, p := &in.Options, in.Profile
	f("  // What vLLM does with one request (lib/vllm.sq explains the hold).")
	f("  server {")
	f("    set t0 = now;                    // the client sends it")
	f("    run api (cost(api, t_client));   // off the GPU's path: what the client sees besides the steps")
	f("    set prompt = n;")
	f("    set kept = prompt;")
	f("    hold reqs (cost(reqs, 1)), kv (cost(kv, min(known, reused + budget_left(vllm)))) reserve (cost(kv, known))")
	if o.NoPrefixCaching {
		f("         at admission (known = num_tokens(kept), reused = 0) {   // --no-enable-prefix-caching")
	} else {
		f("         // the prefix cache: whole blocks of the content it shares, the system")
		f("         // prompt (with BOS) with its group, the question with the same prompt")
		f("         reuse (cost(kv, reqs, reusable(known, bs))) prefix (g: %d, j: %d)", 1+pl.SysTokens, pl.QuestionTokens)
		f("         at admission (known = num_tokens(kept), reused = hit(kv, known)) {")
	}
	f("      set kept = known;")
	if o.NoPrefixCaching {
		f("      set c = 0;")
	} else {
		f("      set c = min(cached, reusable(known, bs));   // computed tokens the cache gave")
	}
	f("      run vllm prefill (cost(vllm, known - c)) growing kv;   // its last chunk samples a token")
	f("      set left = o - 1 - (known - prompt);                   // decode steps to go")
	if in.Cal.LagSteps > 0 {
		f("      // vLLM hands a step's outputs to the API server while the next step")
		f("      // runs: the client has the first token when the step after it ends.")
		f("      branch (t_first == 0 && left > 0) {")
		f("        run vllm decode (cost(vllm, 1)) growing kv;")
		f("        set t_first = now;")
		f("        set left = left - 1;")
		f("      }")
	}
	f("      branch (t_first == 0) { set t_first = now; }")
	f("      run vllm decode (cost(vllm, left)) growing kv;")
	if o.NoPrefixCaching {
		f("    }")
	} else {
		f("    } cache (cost(kv, reqs, prompt + o));")
	}
	last := "now"
	if in.Cal.LagSteps > 0 {
		f("    // the last token, one step later: one of this request's mean steps")
		last = "now + (now - t_first) / max(1, o - 2)"
	}
	f("    set e2e_s = %s - t0;", last)
	f("    set ttft_s = t_first - t0;")
	if !p.Streaming {
		f("    // (not streamed: inference-perf measures no first token, only e2e)")
	}
	f("    observe ttft = ttft_s;")
	f("    observe e2e = e2e_s;")
	f("    observe itl = (e2e_s - ttft_s) / (o - 1);")
	f("  }")
}
