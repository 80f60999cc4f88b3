package vllmimport

import (
	"fmt"
	"strings"

	"github.com/serq/serq/hardware"
)

// Options are the vLLM serve options serq reads; a zero field takes vLLM's
// default (Resolve).
type Options struct {
	TP               int     // --tensor-parallel-size (1)
	MaxBatched       int     // --max-num-batched-tokens (8192 on a GPU of 70 GiB or more but an A100, else 2048)
	MaxSeqs          int     // --max-num-seqs (1024 or 256 alike)
	MaxModelLen      int     // --max-model-len (the config's max_position_embeddings)
	BlockSize        int     // --block-size (16)
	GPUMemUtil       float64 // --gpu-memory-utilization (0.9)
	BlocksOverride   int     // --num-gpu-blocks-override (none)
	NoPrefixCaching  bool    // --no-enable-prefix-caching
	LongPrefill      int     // --long-prefill-token-threshold (0: none)
	setBatched, setN bool    // what Resolve filled in, for the program's comments
}

// Resolve fills in vLLM's defaults: those of vllm/engine/arg_utils.py
// (EngineArgs.get_batch_defaults for the OpenAI server: a GPU of 70 GiB or
// more that is not an A100 gets 8192 batched tokens and 1024 sequences,
// others 2048 and 256) and vllm/config/cache.py (blocks of 16 tokens, 90 %
// of the memory).
func (o *Options) Resolve(g hardware.GPU, maxPos int) error {
	big := g.Memory >= 70*(1<<30) && !strings.Contains(strings.ToUpper(g.Name), "A100")
	if o.TP == 0 {
		o.TP = 1
	}
	if o.MaxBatched == 0 {
		o.MaxBatched, o.setBatched = 2048, true
		if big {
			o.MaxBatched = 8192
		}
	}
	if o.MaxSeqs == 0 {
		o.MaxSeqs, o.setN = 256, true
		if big {
			o.MaxSeqs = 1024
		}
	}
	if o.MaxModelLen == 0 {
		o.MaxModelLen = maxPos
	}
	if o.BlockSize == 0 {
		o.BlockSize = 16
	}
	if o.GPUMemUtil == 0 {
		o.GPUMemUtil = 0.9
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"--tensor-parallel-size", o.TP}, {"--max-num-batched-tokens", o.MaxBatched}, {"--max-num-seqs", o.MaxSeqs},
		{"--max-model-len", o.MaxModelLen}, {"--block-size", o.BlockSize}} {
		if c.v < 1 {
			return errorf("%s must be at least 1, not %d", c.name, c.v)
		}
	}
	if o.BlocksOverride < 0 || o.LongPrefill < 0 {
		return errorf("--num-gpu-blocks-override and --long-prefill-token-threshold must be at least 0")
	}
	if !(o.GPUMemUtil > 0 && o.GPUMemUtil <= 1) {
		return errorf("--gpu-memory-utilization must be above 0 and at most 1, not %g", o.GPUMemUtil)
	}
	return nil
}

// Serving is the part of the options package hardware reads.
func (o *Options) Serving() hardware.Serving {
	s := hardware.DefaultServing()
	s.TP, s.BlockSize, s.GPUMemUtil = o.TP, o.BlockSize, o.GPUMemUtil
	s.MaxBatched, s.MaxSeqs, s.BlocksOverride = o.MaxBatched, o.MaxSeqs, o.BlocksOverride
	return s
}

// commandLine is the options as vLLM's command line spells them.
func (o *Options) commandLine() string {
	parts := []string{
		fmt.Sprintf("--tensor-parallel-size %d", o.TP),
		fmt.Sprintf("--max-num-batched-tokens %d", o.MaxBatched),
		fmt.Sprintf("--max-num-seqs %d", o.MaxSeqs),
		fmt.Sprintf("--max-model-len %d", o.MaxModelLen),
		fmt.Sprintf("--block-size %d", o.BlockSize),
		fmt.Sprintf("--gpu-memory-utilization %g", o.GPUMemUtil),
	}
	if o.BlocksOverride > 0 {
		parts = append(parts, fmt.Sprintf("--num-gpu-blocks-override %d", o.BlocksOverride))
	}
	if o.NoPrefixCaching {
		parts = append(parts, "--no-enable-prefix-caching")
	}
	if o.LongPrefill > 0 {
		parts = append(parts, fmt.Sprintf("--long-prefill-token-threshold %d", o.LongPrefill))
	}
	return strings.Join(parts, " ")
}
