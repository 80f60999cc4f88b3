package hardware

import (
	"fmt"
	"math"
)

// Serving is the part of a vLLM deployment's options that costs and
// capacity read (vLLM's defaults in DefaultServing).
type Serving struct {
	TP              int     // --tensor-parallel-size
	BlockSize       int     // --block-size
	GPUMemUtil      float64 // --gpu-memory-utilization
	MaxBatched      int     // --max-num-batched-tokens
	MaxSeqs         int     // --max-num-seqs
	BlocksOverride  int     // --num-gpu-blocks-override; 0: none
	NonTorchPerTP1  float64 // memory outside PyTorch's allocator with one GPU, bytes
	NonTorchPerTPgt float64 // the same with tensor parallelism (NCCL's buffers), bytes
}

// DefaultServing is vLLM's V1 defaults: one GPU, blocks of 16 tokens, 90 %
// of the memory, 2048 batched tokens (the OpenAI server's default with
// chunked prefill), 256 running requests. The memory outside PyTorch (the
// CUDA context, cuBLAS workspaces, NCCL's buffers) is what vLLM's profiling
// logs show on an H100: about 0.35 GiB alone, 0.6 GiB with NCCL.
func DefaultServing() Serving {
	return Serving{TP: 1, BlockSize: 16, GPUMemUtil: 0.9, MaxBatched: 2048, MaxSeqs: 256,
		NonTorchPerTP1: 0.35 * gib, NonTorchPerTPgt: 0.6 * gib}
}

// Costs are a model's step quantities on one GPU of its tensor-parallel
// group: FLOPs and bytes, never seconds.
type Costs struct {
	TP               int
	FlopsPerToken    float64 // through the layers' weights, per scheduled token
	FlopsPerSample   float64 // through the LM head, per sampled token (a request in the step)
	AttnFlopsPerPair float64 // attention, per (query token, attended token) pair
	DenseBytes       float64 // weights read once per step whatever the batch (all of a dense model's)
	ExpertBytes      float64 // one expert's weights in every layer (0 for a dense model)
	Experts, ActiveK int     // routed experts per layer and per token (1, 1 for dense)
	KVBytesPerToken  float64 // KV cache bytes per token
	AllReduces       int     // all-reduces per step (0 on one GPU)
	AllReduceSteps   int     // the steps of one (a ring's 2(tp − 1)), each a latency
	AllReduceBytes   float64 // bytes each GPU sends per token per all-reduce (ring: 2(tp−1)/tp of hidden · dtype)
	WeightBytes      float64 // the weights a GPU holds
	ActivationBytes  float64 // the peak activation of vLLM's profiling pass
	NonTorchBytes    float64 // memory outside PyTorch's allocator
	KVBytes          float64 // what is left for the KV cache
	KVBlocks         int     // blocks of BlockSize tokens (num_gpu_blocks)
	BlockSize        int
	BlocksOverridden bool // KVBlocks is --num-gpu-blocks-override's
}

// Derive computes the costs of model m on GPUs g with the serving options.
func Derive(m *Model, g GPU, o Serving) (*Costs, error) {
	if o.TP < 1 {
		return nil, fmt.Errorf("--tensor-parallel-size must be at least 1, not %d", o.TP)
	}
	if m.Heads%o.TP != 0 {
		return nil, fmt.Errorf("--tensor-parallel-size %d does not divide the model's %d attention heads", o.TP, m.Heads)
	}
	if m.KVHeads >= o.TP && m.KVHeads%o.TP != 0 {
		return nil, fmt.Errorf("--tensor-parallel-size %d does not divide the model's %d KV heads", o.TP, m.KVHeads)
	}
	if o.BlockSize < 1 || o.MaxBatched < 1 || o.MaxSeqs < 1 {
		return nil, fmt.Errorf("--block-size, --max-num-batched-tokens and --max-num-seqs must be at least 1")
	}
	if !(o.GPUMemUtil > 0 && o.GPUMemUtil <= 1) {
		return nil, fmt.Errorf("--gpu-memory-utilization must be above 0 and at most 1, not %g", o.GPUMemUtil)
	}
	tp := float64(o.TP)
	b := float64(m.DTypeBytes)
	c := &Costs{TP: o.TP, Experts: m.Experts, ActiveK: m.ActiveK, BlockSize: o.BlockSize}
	c.FlopsPerToken = 2 * m.ActiveParams() / tp
	c.FlopsPerSample = 2 * float64(m.Vocab) * float64(m.Hidden) / tp
	c.AttnFlopsPerPair = 4 * float64(m.Layers) * float64(m.Heads) * float64(m.HeadDim) / tp
	// Every weight but the embedding table (a lookup, not a read of the
	// whole table) is read once a step; the experts only where touched.
	lmHead := float64(m.Vocab) * float64(m.Hidden)
	perLayer := m.attnParams() + m.routerParams() + 2*float64(m.Hidden)
	if m.MoE() {
		c.ExpertBytes = float64(m.Layers) * m.expertParams() * b / tp
	} else {
		perLayer += m.expertParams()
	}
	c.DenseBytes = (float64(m.Layers)*perLayer + lmHead + float64(m.Hidden)) * b / tp
	kvHeads := math.Max(1, float64(m.KVHeads)/tp) // fewer heads than GPUs: each keeps one
	c.KVBytesPerToken = 2 * float64(m.Layers) * kvHeads * float64(m.HeadDim) * b
	if o.TP > 1 {
		c.AllReduces = 2 * m.Layers
		c.AllReduceSteps = 2 * (o.TP - 1)
		c.AllReduceBytes = 2 * (tp - 1) / tp * float64(m.Hidden) * b
	}
	// Memory: the weights, sharded (the embedding and LM head by vocabulary).
	c.WeightBytes = m.Params() * b / tp
	c.ActivationBytes = activation(m, o)
	c.NonTorchBytes = o.NonTorchPerTP1
	if o.TP > 1 {
		c.NonTorchBytes = o.NonTorchPerTPgt
	}
	c.KVBytes = g.Memory*o.GPUMemUtil - c.WeightBytes - c.ActivationBytes - c.NonTorchBytes
	if o.BlocksOverride > 0 {
		c.KVBlocks, c.BlocksOverridden = o.BlocksOverride, true
		return c, nil
	}
	if c.KVBytes <= 0 {
		return nil, fmt.Errorf("no memory is left for the KV cache on a %s: %.1f GiB × %g leaves %.1f GiB after %.1f GiB of weights and %.1f GiB of activations (raise --tensor-parallel-size or --gpu-memory-utilization)",
			g.Name, g.Memory/gib, o.GPUMemUtil, (g.Memory*o.GPUMemUtil-c.WeightBytes)/gib, c.WeightBytes/gib, c.ActivationBytes/gib)
	}
	c.KVBlocks = int(math.Floor(c.KVBytes / (float64(o.BlockSize) * c.KVBytesPerToken)))
	return c, nil
}

// activation estimates the peak of vLLM's profiling forward pass (a batch
// of max_num_batched_tokens tokens, then the sampler on max_num_seqs): one
// layer's largest live tensors over the batch — the MLP's gate and up
// projections and their product, the residual stream twice, the query,
// key and value — and the logits of the sampled tokens in float32, which
// the sampler holds about three copies of. For Llama-3-8B at 8192 tokens
// and 256 sequences this is 1.24 GiB, where vLLM's logs show 1.19 to
// 1.24 GiB.
func activation(m *Model, o Serving) float64 {
	tp := float64(o.TP)
	t := float64(o.MaxBatched)
	b := float64(m.DTypeBytes)
	inter := float64(m.Intermediate)
	if m.MoE() {
		inter *= float64(m.ActiveK) // the routed tokens' expert outputs
	}
	perToken := (3*inter/tp + 2*float64(m.Hidden) + float64(m.HeadDim)*float64(m.Heads+2*m.KVHeads)/tp) * b
	logits := 3 * float64(o.MaxSeqs) * float64(m.Vocab) * 4
	return t*perToken + logits
}

// ExpertsTouched is the mean number of distinct experts of E that T
// tokens use when each takes k of them uniformly at random: E·(1 − (1 −
// k/E)^T).
func ExpertsTouched(experts, k int, tokens float64) float64 {
	e := float64(experts)
	return e * (1 - math.Pow(1-float64(k)/e, tokens))
}
