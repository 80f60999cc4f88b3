// Package hardware turns a model's Hugging Face configuration and a GPU's
// datasheet into what a serving step costs: the numbers serQ's `execute`
// expression of a vLLM engine multiplies by the batch it runs.
//
// # The plan
//
// A model is read from its config.json (ReadModel, ParseModel): the
// architecture (Llama, Mistral, Mixtral, Qwen2, Qwen3 and Qwen3-MoE, the
// decoder-only transformers with SwiGLU MLPs and grouped-query attention
// that vLLM serves with one attention layer per block), layers, hidden
// size, attention and KV heads, head dimension, MLP width, experts and the
// experts each token uses, vocabulary, tied embeddings and dtype. Anything
// else is refused with the field named (an unknown architecture, a missing
// or non-positive size, heads that do not divide the hidden size).
//
// A GPU is a few datasheet numbers (GPU): dense 16-bit tensor FLOP/s, HBM
// bytes/s, the memory the driver reports, and the per-direction bandwidth
// of the link tensor parallelism all-reduces over. GPUs lists the GPUs of
// the measured runs and their kin (H100 SXM, H200, A100 80GB, L40S); a
// user adds one by building a GPU value.
//
// Derive combines them with vLLM's serving options (tensor-parallel size,
// block size, memory utilization, max_num_batched_tokens, max_num_seqs)
// into Costs, per GPU of the tensor-parallel group:
//
//   - FLOPs per token through the weights (2 per active parameter: the
//     attention projections and the MLP, or the k experts a token uses),
//     and per sampled token through the LM head (vLLM computes logits only
//     where it samples: one per request in a step);
//   - FLOPs per (query token, attended token) pair of attention
//     (QKᵀ and PV: 4 · layers · heads · head_dim);
//   - bytes of weights read per step (all of them for a dense model; for a
//     mixture of experts the shared part plus, per layer, the experts the
//     batch's tokens touch, E·(1 − (1 − k/E)^T) of E on average for T
//     tokens routed uniformly);
//   - KV bytes per token (2 · layers · KV heads · head_dim · dtype bytes,
//     the KV heads split across the group, or replicated when there are
//     fewer heads than GPUs);
//   - the all-reduces of tensor parallelism: two per layer (after the
//     attention output and after the MLP), each of hidden · dtype bytes per
//     token, which a ring all-reduce moves in 2(tp − 1) steps, each GPU
//     sending 2(tp − 1)/tp of them (the α–β model: a latency a step, the
//     bytes at the link's bandwidth);
//   - the KV capacity vLLM allocates (KVBlocks): the memory the driver
//     reports times gpu_memory_utilization, less the weights, the peak
//     activation of vLLM's profiling pass over max_num_batched_tokens
//     tokens and max_num_seqs sampled tokens, and the memory outside
//     PyTorch's allocator, in blocks of block_size tokens
//     (vllm/v1/worker/gpu_worker.py determine_available_memory,
//     vllm/v1/core/kv_cache_utils.py), unless num_gpu_blocks_override
//     says otherwise.
//
// Nothing here is fitted: the efficiencies and overheads that turn these
// quantities into seconds are the calibration's (package calib), and the
// program `serq import vllm` writes states both.
package hardware
