package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/serq/serq/hardware"
	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/vllmimport"
)

// importCmd is `serq import`: programs written from other tools'
// configurations (package vllmimport). Every error it meets is a usage
// error, exit 2: an input it cannot read or map, named.
type importCmd struct {
	VLLM importVLLMCmd `cmd:"" name:"vllm" help:"Write the serQ program of a vLLM deployment under an inference-perf workload."`
}

// importVLLMCmd is `serq import vllm`.
type importVLLMCmd struct {
	ModelConfig string  `name:"model-config" required:"" placeholder:"CONFIG.json" help:"The model's Hugging Face config.json: architectures (${archs}), num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, head_dim, intermediate_size (moe_intermediate_size), num_local_experts or num_experts, num_experts_per_tok, vocab_size, tie_word_embeddings, max_position_embeddings, torch_dtype."`
	GPU         string  `name:"gpu" required:"" placeholder:"GPU" help:"The GPU: ${gpus}."`
	Workload    string  `name:"workload" required:"" placeholder:"inference-perf:PROFILE.yaml" help:"inference-perf's configuration (a profile, or a run's results/config.yaml): api (type, streaming), server.ignore_eos, data (type shared_prefix and its shared_prefix lengths and counts), load (type constant, stages, request_timeout)."`
	IPVersion   string  `name:"inference-perf-version" default:"0.2" placeholder:"V" help:"Read the configuration as this inference-perf reads it: 0.2 (the measured runs' build: num_groups, num_prompts_per_group), 0.3 (also enable_multi_turn_chat) or 0.4 (num_unique_system_prompts, num_users_per_system_prompt)."`
	TP          int     `name:"tensor-parallel-size" placeholder:"N" help:"vLLM's --tensor-parallel-size (default 1)."`
	MaxBatched  int     `name:"max-num-batched-tokens" placeholder:"N" help:"vLLM's --max-num-batched-tokens (default 8192 on a GPU of 70 GiB or more but an A100, else 2048)."`
	MaxSeqs     int     `name:"max-num-seqs" placeholder:"N" help:"vLLM's --max-num-seqs (default 1024 or 256, as above)."`
	MaxModelLen int     `name:"max-model-len" placeholder:"N" help:"vLLM's --max-model-len (default the config's max_position_embeddings)."`
	BlockSize   int     `name:"block-size" placeholder:"N" help:"vLLM's --block-size (default 16)."`
	MemUtil     float64 `name:"gpu-memory-utilization" placeholder:"F" help:"vLLM's --gpu-memory-utilization (default 0.9)."`
	Blocks      int     `name:"num-gpu-blocks-override" placeholder:"N" help:"vLLM's --num-gpu-blocks-override: the KV blocks, instead of what the memory leaves."`
	NoPrefix    bool    `name:"no-enable-prefix-caching" help:"vLLM's --no-enable-prefix-caching."`
	LongPrefill int     `name:"long-prefill-token-threshold" placeholder:"N" help:"vLLM's --long-prefill-token-threshold (default none)."`
	Out         string  `name:"out" short:"o" placeholder:"FILE" help:"Write the program to FILE (default stdout)."`
}

// importVars fill the help's ${…}.
func importVars() map[string]string {
	return map[string]string{"archs": strings.Join(hardware.Architectures(), ", "), "gpus": strings.Join(hardware.GPUs(), ", ")}
}

// The files serq import reads: a model's config.json and inference-perf's
// configuration (YAML, or JSON, which is YAML), 16 MiB at most.
var (
	modelConfigKind = safeio.Kind{What: "a model config", Exts: []string{".json"}, Limit: 16 << 20}
	workloadKind    = safeio.Kind{What: "an inference-perf configuration", Exts: []string{".yaml", ".yml", ".json"}, Limit: 16 << 20}
)

// scanImport checks `serq import`'s arguments as scan does: the importer
// first, then only its flags, each value present.
func scanImport(node *importNode, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New("missing importer\nhelp: serq import vllm --model-config CONFIG.json --gpu GPU --workload inference-perf:PROFILE.yaml")
	}
	if args[0] != "vllm" {
		return fmt.Errorf("unknown importer `%s`\nhelp: serq imports vllm", args[0])
	}
	for i := 1; i < len(args); i++ {
		arg := args[i]
		name, _, hasValue := strings.Cut(arg, "=")
		if name == "-o" {
			name = "--out"
		}
		isBool, known := node.flags[name]
		switch {
		case !known:
			return fmt.Errorf("unknown option `%s`\nhelp: serq import vllm --help lists what it reads", arg)
		case isBool && hasValue:
			return fmt.Errorf("%s takes no value, found `%s`", name, arg)
		case !isBool && !hasValue:
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return fmt.Errorf("missing value for %s\nhelp: supply a value immediately after %s", name, name)
			}
			i++
		}
	}
	return nil
}

// importNode is the flags of `serq import vllm`: bool or not, by name.
type importNode struct{ flags map[string]bool }

// importFlags reads `serq import vllm`'s flags from kong's model of
// `serq import`.
func importFlags(cmd *kong.Node) *importNode {
	n := &importNode{flags: map[string]bool{}}
	for _, c := range cmd.Children {
		if c.Name != "vllm" {
			continue
		}
		for _, f := range c.Flags {
			n.flags["--"+f.Name] = f.IsBool()
		}
	}
	return n
}

func (c *importVLLMCmd) Run(e *env) error {
	if len(e.progArgs) > 0 {
		return usagef("unexpected argument `%s`\nhelp: serq import vllm takes no program arguments", e.progArgs[0])
	}
	text, err := c.write()
	if err != nil {
		var me *vllmimport.Error
		if errors.As(err, &me) {
			return usagef("%s", me.Msg)
		}
		return usagef("%v", err)
	}
	if c.Out != "" {
		if err := safeio.WriteFile(c.Out, text); err != nil {
			return fmt.Errorf("cannot write %s: %w", c.Out, err)
		}
		return nil
	}
	_, err = e.stdout.Write(text)
	return err
}

// write reads the inputs and writes the program.
func (c *importVLLMCmd) write() ([]byte, error) {
	b, err := modelConfigKind.Read(c.ModelConfig)
	if err != nil {
		return nil, fmt.Errorf("--model-config: %v", err)
	}
	m, err := hardware.ParseModel(b)
	if err != nil {
		return nil, fmt.Errorf("--model-config %s: %v", c.ModelConfig, err)
	}
	m.Name = c.ModelConfig
	g, err := hardware.LookupGPU(c.GPU)
	if err != nil {
		return nil, fmt.Errorf("--gpu: %v", err)
	}
	kind, path, ok := strings.Cut(c.Workload, ":")
	if !ok || kind != "inference-perf" || path == "" {
		return nil, fmt.Errorf("--workload %q: give inference-perf:PROFILE.yaml (serq maps inference-perf's configurations)", c.Workload)
	}
	b, err = workloadKind.Read(path)
	if err != nil {
		return nil, fmt.Errorf("--workload: %v", err)
	}
	p, err := vllmimport.ParseProfile(b, c.IPVersion)
	if err != nil {
		return nil, fmt.Errorf("--workload %s: %v", path, err)
	}
	p.Path = path
	o := vllmimport.Options{TP: c.TP, MaxBatched: c.MaxBatched, MaxSeqs: c.MaxSeqs, MaxModelLen: c.MaxModelLen,
		BlockSize: c.BlockSize, GPUMemUtil: c.MemUtil, BlocksOverride: c.Blocks, NoPrefixCaching: c.NoPrefix, LongPrefill: c.LongPrefill}
	if m.MaxPositions == 0 && c.MaxModelLen == 0 {
		return nil, fmt.Errorf("--max-model-len: the config has no max_position_embeddings, so give it")
	}
	if err := o.Resolve(g, m.MaxPositions); err != nil {
		return nil, err
	}
	cal, err := vllmimport.DefaultCalibration()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = vllmimport.Write(&out, vllmimport.Input{Model: m, ModelName: filepath.Base(filepath.Dir(c.ModelConfig)), GPU: g, GPUName: c.GPU,
		Options: o, Profile: p, Cal: cal, Command: c.commandLine()})
	return out.Bytes(), err
}

// commandLine is the command as the program's header quotes it.
func (c *importVLLMCmd) commandLine() string {
	parts := []string{"serq import vllm", "--model-config " + c.ModelConfig, "--gpu " + c.GPU, "--workload " + c.Workload}
	if c.IPVersion != "0.2" {
		parts = append(parts, "--inference-perf-version "+c.IPVersion)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"--tensor-parallel-size", c.TP}, {"--max-num-batched-tokens", c.MaxBatched}, {"--max-num-seqs", c.MaxSeqs},
		{"--max-model-len", c.MaxModelLen}, {"--block-size", c.BlockSize}, {"--num-gpu-blocks-override", c.Blocks},
		{"--long-prefill-token-threshold", c.LongPrefill}} {
		if f.v != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", f.name, f.v))
		}
	}
	if c.MemUtil != 0 {
		parts = append(parts, fmt.Sprintf("--gpu-memory-utilization %g", c.MemUtil))
	}
	if c.NoPrefix {
		parts = append(parts, "--no-enable-prefix-caching")
	}
	return strings.Join(parts, " ")
}
