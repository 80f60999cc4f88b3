package hardware

import (
	"path/filepath"
	"strings"
	"testing"
)

// The four models of validation/groundtruth, each with the numbers worked
// out by hand from its config.json (the formulas of derive.go written out
// with the config's sizes; the block count is floor((79.11 GiB · 0.9 −
// weights − activation − non-torch) / (16 · KV bytes per token))), on an
// H100 with vLLM's defaults and the runs' 2048 batched tokens and 128
// sequences.
func TestDeriveGroundTruthModels(t *testing.T) {
	cases := []struct {
		dir                          string
		tp                           int
		params, active               float64
		flopsTok, flopsSample, attn  float64
		dense, expert, kv, allreduce float64
		weights, activation          float64
		blocks                       int
	}{
		// 32 layers · (attention 4096·128·(2·32+2·32) + MLP 3·4096·11008 +
		// norms 2·4096) + embeddings 2·32000·4096 + 4096
		{"Llama-2-7b-hf", 1, 6738415616, 6476005376, 12952010752, 262144000, 524288,
			13214687232, 0, 524288, 0, 13476831232, 268304384, 7430},
		{"Llama-2-70b-hf", 4, 68976648192, 68451041280, 34225520640, 131072000, 655360,
			34357252096, 0, 81920, 24576, 34488324096, 214827008, 31358},
		{"CodeLlama-34b-Instruct-hf", 2, 33743970304, 33218887680, 33218887680, 262144000, 786432,
			33481826304, 0, 98304, 16384, 33743970304, 272498688, 26568},
		// 8 experts of 3·4096·14336, 2 per token, a 4096·8 router per layer
		{"Mixtral-8x7B-v0.1", 2, 46702792704, 12617515008, 12617515008, 131072000, 262144,
			1474564096, 5637144576, 65536, 8192, 46702792704, 271450112, 27495},
	}
	h100, err := LookupGPU("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		m, err := ReadModel(filepath.Join("..", "validation", "groundtruth", "models", c.dir, "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultServing()
		o.TP, o.MaxSeqs = c.tp, 128
		k, err := Derive(m, h100, o)
		if err != nil {
			t.Fatal(err)
		}
		got := []float64{m.Params(), m.ActiveParams(), k.FlopsPerToken, k.FlopsPerSample, k.AttnFlopsPerPair,
			k.DenseBytes, k.ExpertBytes, k.KVBytesPerToken, k.AllReduceBytes, k.WeightBytes, k.ActivationBytes, float64(k.KVBlocks)}
		want := []float64{c.params, c.active, c.flopsTok, c.flopsSample, c.attn,
			c.dense, c.expert, c.kv, c.allreduce, c.weights, c.activation, float64(c.blocks)}
		names := []string{"params", "active params", "FLOPs per token", "FLOPs per sample", "attention FLOPs per pair",
			"dense bytes", "expert bytes", "KV bytes per token", "all-reduce bytes", "weight bytes", "activation bytes", "KV blocks"}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: %s = %.0f, want %.0f", c.dir, names[i], got[i], want[i])
			}
		}
		if c.tp > 1 && (k.AllReduces != 2*m.Layers || k.AllReduceSteps != 2*(c.tp-1)) || c.tp == 1 && (k.AllReduces != 0 || k.AllReduceSteps != 0) {
			t.Errorf("%s: %d all-reduces a step of %d steps each", c.dir, k.AllReduces, k.AllReduceSteps)
		}
	}
}

func TestBlocksOverride(t *testing.T) {
	m, err := ReadModel(filepath.Join("..", "validation", "groundtruth", "models", "Llama-2-7b-hf", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultServing()
	o.BlocksOverride = 1000
	k, err := Derive(m, gpus["H100"], o)
	if err != nil || k.KVBlocks != 1000 || !k.BlocksOverridden {
		t.Fatalf("override: %v %+v", err, k)
	}
}

func TestExpertsTouched(t *testing.T) {
	// one token touches exactly its k experts; 8 of 8 with top-2 after
	// many tokens; 8·(1 − 0.75²) = 3.5 with two tokens
	for _, c := range []struct {
		t, want float64
	}{{1, 2}, {2, 3.5}, {0, 0}} {
		if got := ExpertsTouched(8, 2, c.t); got != c.want {
			t.Errorf("ExpertsTouched(8, 2, %g) = %g, want %g", c.t, got, c.want)
		}
	}
}

func TestParseModelErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`[]`, "not a JSON object"},
		{`{}`, "`architectures` is missing"},
		{`{"architectures":["GPT2LMHeadModel"]}`, "`architectures` is \"GPT2LMHeadModel\", which serq does not model (it reads LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM)"},
		{`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"intermediate_size":11008}`, "`vocab_size` is missing"},
		{`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":0,"hidden_size":4096,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":1}`, "`num_hidden_layers` is 0: it must be a whole number at least 1"},
		{`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":2,"hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":5,"intermediate_size":11008,"vocab_size":1}`, "`num_key_value_heads` 5 does not divide `num_attention_heads` 32"},
		{`{"architectures":["MixtralForCausalLM"],"num_hidden_layers":2,"hidden_size":4096,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":1,"num_local_experts":8}`, "`num_experts_per_tok` is missing"},
		{`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":2,"hidden_size":4096,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":1,"torch_dtype":"int8"}`, "`torch_dtype` is \"int8\": serq reads bfloat16, float, float16, float32, half"},
	} {
		_, err := ParseModel([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.json, err, c.want)
		}
	}
}

func TestLookupGPU(t *testing.T) {
	if g, err := LookupGPU("A100-80GB"); err != nil || g.FLOPS != 312e12 {
		t.Errorf("A100-80GB: %v %+v", err, g)
	}
	_, err := LookupGPU("V100")
	if err == nil || err.Error() != `unknown GPU "V100": serq knows A100, A100-80, A100-80GB, A100-SXM, H100, H100-80GB, H100-SXM, H200, H200-SXM, L40S` {
		t.Errorf("V100: %v", err)
	}
}

func TestDeriveErrors(t *testing.T) {
	m, err := ReadModel(filepath.Join("..", "validation", "groundtruth", "models", "Llama-2-70b-hf", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultServing()
	o.TP = 3
	if _, err := Derive(m, gpus["H100"], o); err == nil || err.Error() != "--tensor-parallel-size 3 does not divide the model's 64 attention heads" {
		t.Errorf("tp 3: %v", err)
	}
	o.TP = 1 // 138 GB of weights on one 80 GB card
	if _, err := Derive(m, gpus["H100"], o); err == nil || !strings.HasPrefix(err.Error(), "no memory is left for the KV cache on a NVIDIA H100 SXM 80GB") {
		t.Errorf("tp 1: %v", err)
	}
}
