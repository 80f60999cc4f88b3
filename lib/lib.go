// Package lib holds the serQ libraries that programs bring in with
// `use "…/lib/NAME.sq";`, embedded so that a serq binary resolves them
// without a source checkout.
//
// A library holds only definitions (`def`) and `use` lines: no resources,
// no workload and no `fn main`. vllm.sq has the expressions a vLLM v1
// program reads: the full blocks a prefix-cache hit may cover, the hit
// itself, the tokens a preempted request has, and
// long_prefill_token_threshold as a schedule's per-request cap.
package lib

import "embed"

// FS holds every library of this directory under its base name
// ("vllm.sq"), for a loader that resolves `use` paths through an [io/fs.FS]
// rather than the program's own directory.
//
//go:embed *.sq
var FS embed.FS
