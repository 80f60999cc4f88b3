package vllmimport_test

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serq/serq/calib"
	"github.com/serq/serq/hardware"
	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/vllmimport"
)

const groundTruth = "../validation/groundtruth"

// TestImportGoldens writes the program of every measured run from its
// configuration and profile.yaml with the calibration serq carries, holds
// it to testdata/<run>.sq.golden (go test -update rewrites them after a
// fit; examples/inference-perf holds one of them too) and loads it.
func TestImportGoldens(t *testing.T) {
	exps, err := calib.Load(groundTruth)
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 12 {
		t.Fatalf("%d experiments, want 12", len(exps))
	}
	cal, err := vllmimport.DefaultCalibration()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		t.Run(e.Short(), func(t *testing.T) {
			src, _, err := e.Program(cal)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", e.Name+".sq.golden"), src)
			if e.Short() == "llama-2-70b-tp4-general" { // the example is this one
				testutil.Golden(t, "../examples/inference-perf/llama-2-70b-tp4-general.sq", src)
			}
			if _, err := lang.LoadSource(e.Name+".sq", src, lang.Options{Lib: lib.FS}); err != nil {
				t.Fatalf("the program does not load: %v", err)
			}
		})
	}
}

// profile reads a measured run's file as a version of inference-perf.
func profile(t *testing.T, run, file, version string) (*vllmimport.Profile, error) {
	t.Helper()
	return vllmimport.ReadProfile(filepath.Join(groundTruth, "experiments", run, file), version)
}

// The profile and inference-perf's record of the run agree on what ran
// when the profile is read as the runs' inference-perf (0.2): 10 groups of
// 10, the new spellings ignored; read as 0.4 the profile asks for 9 of 5
// and a multi-turn chat, which serq does not map.
func TestProfileVersions(t *testing.T) {
	const run = "20260217-231439-llama-2-7b-tp1-general"
	for _, file := range []string{"profile.yaml", "results/config.yaml"} {
		p, err := profile(t, run, file, "0.2")
		if err != nil {
			t.Fatal(err)
		}
		if p.Groups != 10 || p.PerGroup != 10 || p.SystemLen != 100 || p.QuestionLen != 447 || p.OutputLen != 248 ||
			len(p.Stages) != 2 || p.Stages[1] != (vllmimport.Stage{Rate: 20, Duration: 600}) || p.Timeout != 300 || !p.Streaming {
			t.Errorf("%s: %+v", file, p)
		}
	}
	p, _ := profile(t, run, "profile.yaml", "0.2")
	if got := strings.Join(p.Ignored, ","); got != "data.shared_prefix.enable_multi_turn_chat,data.shared_prefix.num_unique_system_prompts,data.shared_prefix.num_users_per_system_prompt" {
		t.Errorf("ignored %s", got)
	}
	_, err := profile(t, run, "profile.yaml", "0.4")
	if err == nil || !strings.HasSuffix(err.Error(), "`data.shared_prefix.enable_multi_turn_chat` is true: serq does not map inference-perf's multi-turn chat (each user's conversation growing turn by turn)") {
		t.Errorf("0.4: %v", err)
	}
	_, err = profile(t, run, "profile.yaml", "0.9")
	if err == nil || !strings.HasSuffix(err.Error(), `--inference-perf-version "0.9": serq reads 0.2, 0.3, 0.4`) {
		t.Errorf("0.9: %v", err)
	}
}

// What serq cannot map is refused with the field named.
func TestProfileErrors(t *testing.T) {
	base := `{"api":{"streaming":true,"type":"completion"},"data":{"shared_prefix":{"output_len":10},"type":"shared_prefix"},"load":{"stages":[{"duration":10,"rate":1}],"type":"constant"},"server":{"ignore_eos":true}}`
	for _, c := range []struct{ from, to, want string }{
		{`"type":"completion"`, `"type":"chat"`, "`api.type` is \"chat\": serq maps the completion API (a chat API adds the chat template's tokens, which serq does not model)"},
		{`"ignore_eos":true`, `"ignore_eos":false`, "`server.ignore_eos` is false: the outputs then end where the model samples EOS, which serq cannot know (inference-perf's shared_prefix runs set it)"},
		{`"type":"shared_prefix"`, `"type":"random"`, "`data.type` is \"random\": serq maps inference-perf's shared_prefix data set"},
		{`"type":"constant"`, `"type":"poisson"`, "`load.type` is \"poisson\": serq maps inference-perf's constant load type"},
		{`"stages":[{"duration":10,"rate":1}]`, `"stages":[]`, "`load.stages` is missing or empty"},
		{`"rate":1`, `"rate":0.01`, "`load.stages[0]`: rate 0.01 for 10 s sends no request"},
		{`"output_len":10`, `"output_len":1`, "`data.shared_prefix.output_len` is 1: serq maps outputs of at least 2 tokens (an inter-token latency needs two)"},
		{`"output_len":10`, `"output_len":"ten"`, "`data.shared_prefix.output_len` is ten: it must be a whole number"},
		{`"constant"}`, `"constant","sweep":{"num_stages":3}}`, "`load.sweep`: serq maps explicit stages, not a sweep inference-perf sizes at run time"},
	} {
		src := strings.Replace(base, c.from, c.to, 1)
		if src == base {
			t.Fatalf("%s not in the base profile", c.from)
		}
		_, err := vllmimport.ParseProfile([]byte(src), "")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v\nwant %s", c.to, err, c.want)
		}
	}
	if _, err := vllmimport.ParseProfile([]byte(base), ""); err != nil {
		t.Errorf("the base profile: %v", err)
	}
}

// Options take vLLM's defaults for the GPU, and a deployment vLLM would
// refuse is refused.
func TestOptions(t *testing.T) {
	h100, _ := hardware.LookupGPU("H100")
	a100, _ := hardware.LookupGPU("A100")
	for _, c := range []struct {
		g             hardware.GPU
		batched, seqs int
	}{{h100, 8192, 1024}, {a100, 2048, 256}} {
		var o vllmimport.Options
		if err := o.Resolve(c.g, 4096); err != nil || o.MaxBatched != c.batched || o.MaxSeqs != c.seqs || o.TP != 1 || o.BlockSize != 16 || o.GPUMemUtil != 0.9 || o.MaxModelLen != 4096 {
			t.Errorf("%s: %v %+v", c.g.Name, err, o)
		}
	}
	m, err := hardware.ReadModel(filepath.Join(groundTruth, "models", "Llama-2-7b-hf", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile(t, "20260217-170634-llama-2-7b-tp1-reasoning", "profile.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	cal, _ := vllmimport.DefaultCalibration()
	for _, c := range []struct {
		o    vllmimport.Options
		want string
	}{
		{vllmimport.Options{MaxModelLen: 2048}, "--max-model-len 2048: a request of "},
		{vllmimport.Options{MaxModelLen: 4096, BlocksOverride: 100}, "--max-model-len 4096 is more than the 1600 tokens of KV cache (100 blocks of 16): vLLM would not start (raise --gpu-memory-utilization or --tensor-parallel-size, or lower --max-model-len)"},
		{vllmimport.Options{GPUMemUtil: 0.1}, "no memory is left for the KV cache on a NVIDIA H100 SXM 80GB"},
	} {
		o := c.o
		if err := o.Resolve(h100, m.MaxPositions); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		err := vllmimport.Write(&b, vllmimport.Input{Model: m, ModelName: "Llama-2-7b-hf", GPU: h100, GPUName: "H100", Options: o, Profile: p, Cal: cal})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %s…", c.o, err, c.want)
		}
	}
}

// t_client is off the GPU's path: a program with 5 ms more of it runs the
// same steps (every request reaches the engine 5 ms later, all alike), and
// each request's ttft and e2e are 5 ms longer. (Two stages of 30 s, 800
// requests.)
func TestClientOverheadOffTheGPU(t *testing.T) {
	exps, err := calib.Load(groundTruth)
	if err != nil {
		t.Fatal(err)
	}
	var e *calib.Experiment
	for _, x := range exps {
		if x.Short() == "llama-2-7b-tp1-general" {
			e = x
		}
	}
	cal, _ := vllmimport.DefaultCalibration()
	run := func(tc float64) *interp.Report {
		c := cal
		c.TClient = tc
		src, _, err := e.Program(c)
		if err != nil {
			t.Fatal(err)
		}
		// two stages of 30 s, which the run outlasts: it drains
		p, err := lang.LoadSource("7b.sq", src, lang.Options{Lib: lib.FS, Sets: []lang.Override{{Name: "dur0", Expr: "30"}, {Name: "dur1", Expr: "30"}}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := interp.New(p, interp.Options{Horizon: 1000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s.Report()
	}
	a, b := run(0.002), run(0.007)
	samples := func(r *interp.Report, name string) map[uint64]float64 {
		m := map[uint64]float64{}
		for _, o := range r.Observes {
			if o.Name == name {
				for _, x := range o.Samples {
					m[x.Session] = x.Value
				}
			}
		}
		return m
	}
	for _, name := range []string{"ttft", "e2e"} {
		sa, sb := samples(a, name), samples(b, name)
		if len(sa) < 400 {
			t.Fatalf("%d %s samples", len(sa), name)
		}
		for k, v := range sa {
			if w, ok := sb[k]; !ok || math.Abs(w-v-0.005) > 1e-9 {
				t.Fatalf("session %d: %s %v, then %v with 5 ms more of t_client", k, name, v, w)
			}
		}
	}
	sa, sb := a.Stages[0], b.Stages[0] // the engine
	if sa.Name != "vllm" || sa.Iterations != sb.Iterations || math.Abs(sa.MeanDecodeStep-sb.MeanDecodeStep) > 1e-12 || sa.MeanDecodeBatch != sb.MeanDecodeBatch {
		t.Errorf("the steps differ: %d iterations of %v s (batch %v), then %d of %v s (batch %v)", sa.Iterations, sa.MeanDecodeStep, sa.MeanDecodeBatch,
			sb.Iterations, sb.MeanDecodeStep, sb.MeanDecodeBatch)
	}
}
