// Package vllmimport writes the serQ program of a vLLM deployment under an
// inference-perf workload: `serq import vllm --model-config CONFIG.json
// --gpu H100 --workload inference-perf:PROFILE.yaml [vLLM serve options]`.
//
// # The plan
//
// The inputs are what a vLLM user has: the model's Hugging Face
// config.json, the GPU's name, vLLM's serve options (Options, with vLLM's
// defaults for the GPU) and inference-perf's configuration (Profile). The
// output is one readable program (Write) that `serq run`, `serq tui` and
// `serq sweep` take as it is:
//
//   - the deployment: one vLLM V1 engine on the tensor-parallel group (the
//     scheduler of lib/vllm.sq: running requests first, then the waiting
//     ones while blocks, slots and the token budget last; a request's KV
//     grows block by block and the last admitted is preempted and
//     recomputed when a block cannot be had), its KV capacity as vLLM
//     allocates it (package hardware), prefix caching shared across
//     sessions by content (`hold … prefix (…)`);
//   - the step's cost: the quantities package hardware derives from the
//     config and the GPU (FLOPs and bytes per token, per sampled token, per
//     attended pair, weights a step, KV bytes a token, the all-reduces of
//     tensor parallelism), weighted by the few calibrated constants of a
//     Calibration (efficiencies and fixed overheads), each written with
//     where it came from;
//   - the client as inference-perf is: its shared_prefix prompts (groups of
//     prompts sharing a system prompt, cycled in a fixed order, their
//     lengths as the model's tokenizer counts the decoded random tokens),
//     outputs of exactly output_len tokens (ignore_eos), its constant load
//     stages (`arrive constant(…)`), its request timeout (aiohttp's 300 s
//     when it sets none), streaming;
//   - the observes inference-perf reports, once per request: `ttft` and
//     `e2e` (seconds, its time_to_first_token and request_latency, which
//     include the API server's work before the engine and the streaming
//     after it), `itl` ((e2e − ttft) / (output tokens − 1)), `stage` (the
//     0-based load stage the request was sent in) and, for a request that
//     fails or times out, `failed` (1).
//
// Anything it cannot map is an error that names the field or option
// (Error, which the command exits 2 on): an architecture package hardware
// does not model, a GPU it does not know, a data set other than
// shared_prefix, a chat API, outputs that end at EOS, a load type other
// than constant, prompts longer than --max-model-len.
//
// inference-perf's configuration changed under the measured runs
// (validation/groundtruth): its profile spells the groups
// num_unique_system_prompts and num_users_per_system_prompt and asks for
// enable_multi_turn_chat, names that inference-perf v0.4.0 introduced; the
// build that ran (between v0.2.0 and v0.3.0, by its results/config.yaml)
// ignored them and used its defaults, 10 groups of 10 prompts, and no
// conversation grew (the prompts stay 559–592 tokens). Profile reads a
// configuration as a given inference-perf version does (Version): "0.2"
// (the default, the runs' build), "0.3" (knows enable_multi_turn_chat) or
// "0.4" (knows the new names); a multi-turn chat is not mapped.
package vllmimport
