package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const importUsage = "usage: serq import vllm --model-config CONFIG.json --gpu GPU --workload inference-perf:PROFILE.yaml [--inference-perf-version V] " +
	"[--tensor-parallel-size N] [--max-num-batched-tokens N] [--max-num-seqs N] [--max-model-len N] [--block-size N] " +
	"[--gpu-memory-utilization F] [--num-gpu-blocks-override N] [--no-enable-prefix-caching] [--long-prefill-token-threshold N] [-o FILE]\n"

const (
	gt70b   = "validation/groundtruth/models/Llama-2-70b-hf/config.json"
	gtRun   = "validation/groundtruth/experiments/20260217-202857-llama-2-70b-tp4-general"
	gtProf  = "inference-perf:" + gtRun + "/profile.yaml"
	gtGolde = "vllmimport/testdata/20260217-202857-llama-2-70b-tp4-general.sq.golden"
)

// TestImportVLLM writes the program of a measured run from the command
// line, the same as vllmimport's golden of it, and the program runs.
func TestImportVLLM(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.sq")
	code, stdout, stderr := serqIn(t, "../..", "import", "vllm", "--model-config", gt70b, "--gpu", "H100", "--workload", gtProf,
		"--tensor-parallel-size", "4", "--max-num-batched-tokens", "2048", "--max-num-seqs", "128", "--max-model-len", "4096", "-o", out)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(gtGolde)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("serq import vllm differs from vllmimport's golden (-want +got):\n%s", d)
	}
	// to stdout without -o; `serq check` takes it
	code, stdout, _ = serq(t, "import", "vllm", "--model-config", gt70b, "--gpu", "H100", "--workload", gtProf,
		"--tensor-parallel-size", "4", "--max-num-batched-tokens", "2048", "--max-num-seqs", "128", "--max-model-len", "4096")
	if code != 0 || stdout != string(got) {
		t.Errorf("to stdout: exit %d, the same program %v", code, stdout == string(got))
	}
	if code, stdout, stderr := serq(t, "check", out); code != 0 || !strings.HasPrefix(stdout, "OK: ") {
		t.Errorf("serq check: exit %d %s %s", code, stdout, stderr)
	}
}

// Every input it cannot read or map is a usage error naming it.
func TestImportVLLMErrors(t *testing.T) {
	t.Chdir("../..")
	dir := t.TempDir()
	gpt2 := filepath.Join(dir, "config.json")
	if err := os.WriteFile(gpt2, []byte(`{"architectures":["GPT2LMHeadModel"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(dir, "chat.yaml")
	if err := os.WriteFile(chat, []byte("api:\n  type: chat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"import", "vllm", "--model-config", gt70b, "--gpu", "H100", "--workload", gtProf, "--tensor-parallel-size", "4"}
	with := func(k, v string) []string {
		a := append([]string(nil), base...)
		for i := range a {
			if a[i] == k {
				a[i+1] = v
			}
		}
		return a
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(base, "--swap-space", "4"), "error: unknown option `--swap-space`\nhelp: serq import vllm --help lists what it reads\n"},
		{[]string{"import", "sglang"}, "error: unknown importer `sglang`\nhelp: serq imports vllm\n"},
		{[]string{"import"}, "error: missing importer\nhelp: serq import vllm --model-config CONFIG.json --gpu GPU --workload inference-perf:PROFILE.yaml\n"},
		{with("--gpu", "V100"), "error: --gpu: unknown GPU \"V100\": serq knows A100, A100-80, A100-80GB, A100-SXM, H100, H100-80GB, H100-SXM, H200, H200-SXM, L40S\n"},
		{with("--model-config", gpt2), "error: --model-config " + gpt2 + ": `architectures` is \"GPT2LMHeadModel\", which serq does not model (it reads LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM)\n"},
		{with("--workload", "sharegpt:x.json"), "error: --workload \"sharegpt:x.json\": give inference-perf:PROFILE.yaml (serq maps inference-perf's configurations)\n"},
		{with("--workload", "inference-perf:"+chat), "error: --workload " + chat + ": `api.type` is \"chat\": serq maps the completion API (a chat API adds the chat template's tokens, which serq does not model)\n"},
		{with("--tensor-parallel-size", "1"), "error: no memory is left for the KV cache on a NVIDIA H100 SXM 80GB: 79.1 GiB × 0.9 leaves -57.3 GiB after 128.5 GiB of weights and 2.1 GiB of activations (raise --tensor-parallel-size or --gpu-memory-utilization)\n"},
		{append(base, "--max-model-len", "800"), "error: --max-model-len 800: a request of 573 prompt tokens and 248 output tokens does not fit, and vLLM would refuse every one\n"},
		{append(base, "--inference-perf-version", "0.4"), "error: --workload " + gtRun + "/profile.yaml: `data.shared_prefix.enable_multi_turn_chat` is true: serq does not map inference-perf's multi-turn chat (each user's conversation growing turn by turn)\n"},
	} {
		code, stdout, stderr := serq(t, c.args...)
		if code != 2 || stdout != "" || stderr != c.want+importUsage {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant:\n%s", c.args, code, stderr, c.want)
		}
	}
}

// --help lists what it reads.
func TestImportVLLMHelp(t *testing.T) {
	code, stdout, _ := serq(t, "import", "vllm", "--help")
	for _, want := range []string{"--model-config=CONFIG.json", "num_key_value_heads", "MixtralForCausalLM", "--gpu=GPU", "H100", "L40S",
		"--workload=inference-perf:PROFILE.yaml", "shared_prefix", "request_timeout", "--tensor-parallel-size=N", "--num-gpu-blocks-override=N",
		"--no-enable-prefix-caching", "--inference-perf-version=V"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("serq import vllm --help (exit %d) lacks %q", code, want)
		}
	}
}

// A path with a newline in it stays inside the header's comments: the
// program it writes is the program, one `fn main`.
func TestImportVLLMHostilePath(t *testing.T) {
	t.Chdir("../..")
	b, err := os.ReadFile(gt70b)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "x\nfn main() { }\n// ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := serq(t, "import", "vllm", "--model-config", cfg, "--gpu", "H100", "--workload", gtProf, "--tensor-parallel-size", "4")
	mains := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "fn main") {
			mains++
		}
	}
	if code != 0 || mains != 1 {
		t.Fatalf("exit %d, %d lines of fn main, stderr %s", code, mains, stderr)
	}
	out := filepath.Join(t.TempDir(), "run.sq")
	if err := os.WriteFile(out, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := serq(t, "check", out); code != 0 {
		t.Errorf("serq check: exit %d: %s", code, stderr)
	}
}
