package target

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

const (
	singleTurn = "../examples/single-turn/vllm.sq"
	seed       = "../examples/pd-disaggregation/llmd_nixl_pull.sq"
	push       = "../examples/pd-disaggregation/vllm_nixl_push.sq"
)

// load loads file with its text edited: each pair of edits replaces the
// first by the second (once, and the first must be there).
func load(t *testing.T, file string, sets []lang.Override, edits ...string) *model.Program {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("%s has no %q to edit", file, edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	p, err := lang.Load(file, lang.Options{Lib: lib.FS, Sets: sets, ReadFile: func(path string) ([]byte, error) {
		if path == file {
			return []byte(text), nil
		}
		return os.ReadFile(path)
	}})
	if err != nil {
		t.Fatalf("Load(%s): %v", file, err)
	}
	return p
}

// vllmSingle is examples/single-turn/vllm.sq's engine at its defaults.
var vllmSingle = Config{
	MaxNumBatchedTokens: 8192, MaxNumSeqs: 16, BlockSize: 16, NumGPUBlocksOverride: 10001,
	LongPrefillTokenThreshold: 0, EnableChunkedPrefill: true, EnablePrefixCaching: true, SchedulerReserveFullISL: true,
}

func TestSingleTurn(t *testing.T) {
	got, err := VLLM(load(t, singleTurn, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := &VLLMTarget{Target: "vllm", Engine: "vllm", Config: &vllmSingle}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The inputs reach the configuration: max_seqs, blocks, and a constant
	// prefill cap written over the library's.
	got, err = VLLM(load(t, singleTurn, []lang.Override{{Name: "max_seqs", Expr: "32"}, {Name: "blocks", Expr: "500"}},
		"let threshold = long_prefill(chunk_cap);", "let threshold = 512;"))
	if err != nil {
		t.Fatal(err)
	}
	c := vllmSingle
	c.MaxNumSeqs, c.NumGPUBlocksOverride, c.LongPrefillTokenThreshold = 32, 501, 512
	if diff := cmp.Diff(&c, got.Config); diff != "" {
		t.Errorf("with inputs (-want +got):\n%s", diff)
	}
	// No cache at release: no prefix caching; no reservation: no full-ISL check.
	got, err = VLLM(load(t, singleTurn, nil, " reserve (cost(kv, known))", "", "} cache (cost(kv, reqs, prompt + o));", "}",
		"set c = min(cached, reusable(known, bs));", "set c = 0;"))
	if err != nil {
		t.Fatal(err)
	}
	c = vllmSingle
	c.EnablePrefixCaching, c.SchedulerReserveFullISL = false, false
	if diff := cmp.Diff(&c, got.Config); diff != "" {
		t.Errorf("without cache and reserve (-want +got):\n%s", diff)
	}
}

// TestSeed checks the seed's deployment: one configuration per role, the
// prefillers producing the KV over the NIXL pull connector and the
// decoders consuming it.
func TestSeed(t *testing.T) {
	got, err := VLLM(load(t, seed, []lang.Override{{Name: "blocksD", Expr: "1200"}}))
	if err != nil {
		t.Fatal(err)
	}
	p, d := vllmSingle, vllmSingle
	p.KVTransferConfig = &KVTransfer{KVConnector: "NixlConnector", KVRole: "kv_producer", KVBufferDevice: "cuda"}
	d.MaxNumSeqs, d.NumGPUBlocksOverride = 64, 1201
	d.KVTransferConfig = &KVTransfer{KVConnector: "NixlConnector", KVRole: "kv_consumer", KVBufferDevice: "cuda"}
	want := &VLLMTarget{Target: "vllm", Roles: []*Group{
		{Queue: "P", Role: "prefill", Count: 2, Config: &p},
		{Queue: "D", Role: "decode", Count: 2, Config: &d},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPush(t *testing.T) {
	got, err := VLLM(load(t, push, nil))
	if err != nil {
		t.Fatal(err)
	}
	var conn []string
	for _, g := range got.Roles {
		conn = append(conn, g.Queue+" "+g.Config.KVTransferConfig.KVConnector+" "+g.Config.KVTransferConfig.KVRole)
	}
	if want := []string{"P NixlPushConnector kv_producer", "D NixlPushConnector kv_consumer"}; !cmp.Equal(conn, want) {
		t.Errorf("connectors %q, want %q", conn, want)
	}
}

// TestRefusals checks that each construct vLLM cannot run is refused at
// its position with its message.
func TestRefusals(t *testing.T) {
	const arch = "not on vLLM's architecture: "
	tests := []struct {
		name  string
		file  string
		sets  []lang.Override
		edits []string
		pos   string
		msg   string
	}{
		{"own schedule", singleTurn, nil,
			[]string{"admit waiting while (running.preempted == 0) each at most (threshold);",
				"admit waiting while (running.count < 4) each at most (threshold);"},
			"43:3", "engine `vllm` has its own schedule; vLLM's advances the running requests, then admits waiting ones while none was preempted"},
		{"exclusive prefill", "../examples/pd-disaggregation/pd_batching.sq", nil, nil,
			"60:5", "engine `E[0]` serves exclusive prefill; vLLM mixes prefills and decodes in a step"},
		{"running order", singleTurn, nil,
			[]string{"advance running each at most (threshold);", "advance running by (admission) each at most (threshold);"},
			"43:3", "engine `vllm` advances its running requests by keys; vLLM advances them in admission order"},
		{"no preemption", singleTurn, nil, []string{"preempt lifo;", ""},
			"65:3", "pool `kv` does not preempt as vLLM does: vLLM preempts the latest admitted request and re-queues it at the head of the waiting queue"},
		{"preempt by keys", singleTurn, nil, []string{"preempt lifo;", "preempt by (admission);"},
			"65:3", "pool `kv` does not preempt as vLLM does: vLLM preempts the latest admitted request and re-queues it at the head of the waiting queue"},
		{"requeue at the tail", singleTurn, nil, []string{"preempt lifo;", "preempt by (admission) requeue tail;"},
			"65:3", "pool `kv` does not preempt as vLLM does: vLLM preempts the latest admitted request and re-queues it at the head of the waiting queue"},
		{"evict by keys", singleTurn, nil, []string{"evict lru;", "evict by (size);"},
			"65:3", "pool `kv` evicts by keys; vLLM's prefix cache evicts the least recently freed block"},
		{"admit by keys", singleTurn, nil, []string{"pool reqs on vllm { queue fifo; }", "pool reqs on vllm { queue by (waited); }"},
			"69:3", "pool `reqs` admits by keys; vLLM admits first come, first served"},
		{"a step-dependent prefill cap", singleTurn, []lang.Override{{Name: "chunk_cap", Expr: "512"}}, nil,
			"43:3", "engine `vllm`'s prefill cap depends on the step; vLLM caps a request's prefill at long_prefill_token_threshold whenever it is positive"},
		{"a budget not whole", singleTurn, nil, []string{"let B = 8192;", "let B = 8192.5;"},
			"43:3", "engine `vllm`'s token budget is 8192.5, and vLLM counts it in whole numbers"},
		{"a queueing stage", "../examples/multi-turn/closed.sq", nil, nil,
			"38:3", "stage `svc` is a queueing server (fifo); vLLM's only server is its engine, and all else it is given is a delay"},
		{"blocks not whole", singleTurn, nil, []string{"kv cap blocks * bs;", "kv cap blocks * bs + 1;"},
			"65:3", "pool `kv`'s cap 160001 is not a whole number of 16-token blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := VLLM(load(t, tt.file, tt.sets, tt.edits...))
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("VLLM = %v, want a refusal", err)
			}
			if got := strings.TrimPrefix(r.Pos.String(), strings.TrimPrefix(tt.file, "")+":"); got != tt.pos || r.Msg != arch+tt.msg {
				t.Errorf("refusal at %s: %q\nwant at %s: %q", got, r.Msg, tt.pos, arch+tt.msg)
			}
			if r.Hint == "" && tt.name != "a budget not whole" {
				t.Errorf("refusal %q has no hint", r.Msg)
			}
		})
	}
}
