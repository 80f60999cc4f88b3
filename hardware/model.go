package hardware

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
)

// Model is the architecture of a decoder-only transformer, as its Hugging
// Face config.json gives it.
type Model struct {
	Name         string // the file it was read from, or what the caller says
	Architecture string // architectures[0]
	Layers       int    // num_hidden_layers
	Hidden       int    // hidden_size
	Heads        int    // num_attention_heads
	KVHeads      int    // num_key_value_heads (the heads when absent)
	HeadDim      int    // head_dim, or hidden_size / num_attention_heads
	Intermediate int    // the MLP's width (per expert for a mixture of experts)
	Experts      int    // routed experts per layer; 1 for a dense model
	ActiveK      int    // experts each token uses; 1 for a dense model
	Vocab        int    // vocab_size
	TiedEmbed    bool   // tie_word_embeddings
	MaxPositions int    // max_position_embeddings (0 when absent)
	DType        string // torch_dtype (or dtype)
	DTypeBytes   int    // bytes per weight and KV element as vLLM serves the dtype
}

// architectures are the config.json architectures Model reads, with
// whether they are mixtures of experts.
var architectures = map[string]bool{
	"LlamaForCausalLM":    false,
	"MistralForCausalLM":  false,
	"Qwen2ForCausalLM":    false,
	"Qwen3ForCausalLM":    false,
	"MixtralForCausalLM":  true,
	"Qwen3MoeForCausalLM": true,
}

// Architectures lists the config.json architectures serq reads, sorted.
func Architectures() []string {
	var a []string
	for k := range architectures {
		a = append(a, k)
	}
	sort.Strings(a)
	return a
}

// dtypeBytes is the bytes per element vLLM serves a config's dtype with:
// its "auto" dtype keeps a 16-bit dtype and serves a float32 checkpoint in
// 16 bits (vllm/config/model.py, _resolve_auto_dtype).
var dtypeBytes = map[string]int{"float16": 2, "bfloat16": 2, "float32": 2, "half": 2, "float": 2}

// ReadModel reads a config.json file.
func ReadModel(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := ParseModel(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.Name = path
	return m, nil
}

// ParseModel reads the text of a config.json. An error names the field.
func ParseModel(b []byte) (*Model, error) {
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	m := &Model{}
	archs, _ := raw["architectures"].([]any)
	if len(archs) == 0 {
		return nil, fmt.Errorf("`architectures` is missing: a Hugging Face config.json names its model class there (one of %s)", strings.Join(Architectures(), ", "))
	}
	m.Architecture, _ = archs[0].(string)
	moe, ok := architectures[m.Architecture]
	if !ok {
		return nil, fmt.Errorf("`architectures` is %q, which serq does not model (it reads %s)", m.Architecture, strings.Join(Architectures(), ", "))
	}
	var errs []string
	num := func(key string, def int) int {
		v, present := raw[key]
		if !present || v == nil {
			if def > 0 {
				return def
			}
			errs = append(errs, fmt.Sprintf("`%s` is missing", key))
			return 0
		}
		f, isNum := v.(float64)
		if !isNum || f != float64(int(f)) || f < 1 {
			errs = append(errs, fmt.Sprintf("`%s` is %v: it must be a whole number at least 1", key, v))
			return 0
		}
		return int(f)
	}
	m.Layers = num("num_hidden_layers", 0)
	m.Hidden = num("hidden_size", 0)
	m.Heads = num("num_attention_heads", 0)
	m.KVHeads = num("num_key_value_heads", max(m.Heads, 1))
	m.Vocab = num("vocab_size", 0)
	m.Experts, m.ActiveK = 1, 1
	switch {
	case m.Architecture == "MixtralForCausalLM":
		m.Intermediate = num("intermediate_size", 0)
		m.Experts = num("num_local_experts", 0)
		m.ActiveK = num("num_experts_per_tok", 0)
	case moe:
		m.Intermediate = num("moe_intermediate_size", 0)
		m.Experts = num("num_experts", 0)
		m.ActiveK = num("num_experts_per_tok", 0)
	default:
		m.Intermediate = num("intermediate_size", 0)
	}
	if _, present := raw["head_dim"]; present && raw["head_dim"] != nil {
		m.HeadDim = num("head_dim", 0)
	} else if m.Heads > 0 && m.Hidden > 0 {
		if m.Hidden%m.Heads != 0 {
			errs = append(errs, fmt.Sprintf("`hidden_size` %d is not a multiple of `num_attention_heads` %d, and there is no `head_dim`", m.Hidden, m.Heads))
		}
		m.HeadDim = m.Hidden / m.Heads
	}
	if m.Heads > 0 && m.KVHeads > 0 && m.Heads%m.KVHeads != 0 {
		errs = append(errs, fmt.Sprintf("`num_key_value_heads` %d does not divide `num_attention_heads` %d", m.KVHeads, m.Heads))
	}
	if m.Experts > 0 && m.ActiveK > m.Experts {
		errs = append(errs, fmt.Sprintf("`num_experts_per_tok` %d is more than the %d experts", m.ActiveK, m.Experts))
	}
	if v, ok := raw["max_position_embeddings"].(float64); ok && v >= 1 && v == float64(int(v)) {
		m.MaxPositions = int(v)
	}
	if t, ok := raw["tie_word_embeddings"].(bool); ok {
		m.TiedEmbed = t
	}
	dt, _ := raw["torch_dtype"].(string)
	if dt == "" {
		dt, _ = raw["dtype"].(string)
	}
	if dt == "" {
		dt = "bfloat16" // transformers' default for these checkpoints when unstated
	}
	m.DType = dt
	m.DTypeBytes = dtypeBytes[dt]
	if m.DTypeBytes == 0 {
		keys := make([]string, 0, len(dtypeBytes))
		for k := range dtypeBytes {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		errs = append(errs, fmt.Sprintf("`torch_dtype` is %q: serq reads %s", dt, strings.Join(keys, ", ")))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return m, nil
}

// MoE reports a mixture of experts.
func (m *Model) MoE() bool { return m.Experts > 1 }

// attnParams is the attention projections' parameters in one layer: q and
// o of heads·head_dim, k and v of kv_heads·head_dim, each against hidden.
func (m *Model) attnParams() float64 {
	return float64(m.Hidden) * float64(m.HeadDim) * float64(2*m.Heads+2*m.KVHeads)
}

// expertParams is one MLP's (one expert's) parameters: gate, up and down.
func (m *Model) expertParams() float64 {
	return 3 * float64(m.Hidden) * float64(m.Intermediate)
}

// routerParams is a mixture of experts' gate in one layer.
func (m *Model) routerParams() float64 {
	if !m.MoE() {
		return 0
	}
	return float64(m.Hidden) * float64(m.Experts)
}

// embedParams is the embedding table and, unless tied, the LM head.
func (m *Model) embedParams() float64 {
	v := float64(m.Vocab) * float64(m.Hidden)
	if m.TiedEmbed {
		return v
	}
	return 2 * v
}

// Params is the model's parameter count: per layer the attention, the
// experts, the router and two norms, then the embeddings and the final
// norm.
func (m *Model) Params() float64 {
	layer := m.attnParams() + float64(m.Experts)*m.expertParams() + m.routerParams() + 2*float64(m.Hidden)
	return float64(m.Layers)*layer + m.embedParams() + float64(m.Hidden)
}

// ActiveParams is the parameters a token's forward pass multiplies by in
// the layers: attention, the k experts it uses and the router (not the
// embedding lookup, not the LM head).
func (m *Model) ActiveParams() float64 {
	return float64(m.Layers) * (m.attnParams() + float64(m.ActiveK)*m.expertParams() + m.routerParams())
}

// String describes the architecture in one line.
func (m *Model) String() string {
	moe := ""
	if m.MoE() {
		moe = fmt.Sprintf(", %d experts (%d per token)", m.Experts, m.ActiveK)
	}
	return fmt.Sprintf("%s: %d layers, hidden %d, %d heads (%d KV heads, head dim %d), intermediate %d%s, vocabulary %d, %s",
		m.Architecture, m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Intermediate, moe, m.Vocab, m.DType)
}
