package calib

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// Experiment is one measured run of validation/groundtruth.
type Experiment struct {
	Name        string // its directory's name
	Dir         string
	ModelID     string // the Hugging Face id
	ModelConfig string // models/<name>/config.json
	TP          int
	MaxModelLen int
	MaxBatched  int
	MaxSeqs     int
	Profile     string               // profile.yaml
	OutputLen   int                  // its output_len: every request's tokens
	Rates       []float64            // its stages' request rates
	Durations   []float64            // and durations (s)
	Stages      []Measured           // per load stage
	BLIS        []map[string]float64 // per stage: BLIS's trained-physics predictions (ms), nil where none
}

// Measured is one load stage's figures, in seconds.
type Measured struct {
	Successes, Failures int
	E2E, TTFT           Dist
	PromptLen           float64 // mean prompt tokens as inference-perf counts them
	ITL                 float64 // (mean E2E − mean TTFT) / (output_len − 1)
}

// Dist is a distribution's mean and tail.
type Dist struct{ Mean, P90, P99 float64 }

// Overloaded reports a run whose clients timed out.
func (e *Experiment) Overloaded() bool {
	for _, s := range e.Stages {
		if s.Failures > 0 {
			return true
		}
	}
	return false
}

// Load reads the experiments of a ground-truth directory, in name order.
func Load(dir string) ([]*Experiment, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "experiments"))
	if err != nil {
		return nil, err
	}
	var blis map[string]map[string]map[string]map[string]float64
	if b, err := os.ReadFile(filepath.Join(dir, "blis-predictions.json")); err == nil {
		if err := json.Unmarshal(b, &blis); err != nil {
			return nil, fmt.Errorf("blis-predictions.json: %v", err)
		}
	}
	var out []*Experiment
	for _, en := range entries {
		if !en.IsDir() {
			continue
		}
		e, err := loadExperiment(dir, en.Name(), blis[en.Name()])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", en.Name(), err)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadExperiment(dir, name string, blis map[string]map[string]map[string]float64) (*Experiment, error) {
	d := filepath.Join(dir, "experiments", name)
	b, err := os.ReadFile(filepath.Join(d, "exp-config.yaml"))
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Model       string `yaml:"model"`
		TP          int    `yaml:"tensor_parallelism"`
		MaxModelLen int    `yaml:"max_model_len"`
		MaxBatched  int    `yaml:"max_num_batched_tokens"`
		MaxSeqs     int    `yaml:"max_num_seqs"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("exp-config.yaml: %v", err)
	}
	e := &Experiment{Name: name, Dir: d, ModelID: cfg.Model, TP: cfg.TP, MaxModelLen: cfg.MaxModelLen,
		MaxBatched: cfg.MaxBatched, MaxSeqs: cfg.MaxSeqs, Profile: filepath.Join(d, "profile.yaml"),
		ModelConfig: filepath.Join(dir, "models", path.Base(cfg.Model), "config.json")}
	outLen, err := profileOutputLen(e.Profile)
	if err != nil {
		return nil, err
	}
	e.OutputLen = outLen
	if e.Rates, e.Durations, err = profileRates(e.Profile); err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(d, "results", fmt.Sprintf("stage_%d_lifecycle_metrics.json", i)))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			return nil, err
		}
		m, err := parseStage(b, outLen)
		if err != nil {
			return nil, fmt.Errorf("stage %d: %v", i, err)
		}
		e.Stages = append(e.Stages, m)
		var p map[string]float64
		if s := blis[fmt.Sprintf("stage_%d", i)]; s != nil {
			p = map[string]float64{}
			for metric, v := range s {
				if x, ok := v["blis-trained-physics"]; ok {
					p[metric] = x
				}
			}
		}
		e.BLIS = append(e.BLIS, p)
	}
	if len(e.Stages) == 0 {
		return nil, fmt.Errorf("no results/stage_0_lifecycle_metrics.json")
	}
	return e, nil
}

// profileOutputLen is the profile's output_len.
func profileOutputLen(p string) (int, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	var prof struct {
		Data struct {
			SharedPrefix struct {
				OutputLen int `yaml:"output_len"`
			} `yaml:"shared_prefix"`
		} `yaml:"data"`
	}
	if err := yaml.Unmarshal(b, &prof); err != nil {
		return 0, err
	}
	if prof.Data.SharedPrefix.OutputLen < 2 {
		return 0, fmt.Errorf("profile.yaml: no output_len")
	}
	return prof.Data.SharedPrefix.OutputLen, nil
}

// profileRates is the profile's stages' rates and durations.
func profileRates(p string) (rates, durations []float64, err error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	var prof struct {
		Load struct {
			Stages []struct {
				Rate     float64 `yaml:"rate"`
				Duration float64 `yaml:"duration"`
			} `yaml:"stages"`
		} `yaml:"load"`
	}
	if err := yaml.Unmarshal(b, &prof); err != nil {
		return nil, nil, err
	}
	for _, s := range prof.Load.Stages {
		rates, durations = append(rates, s.Rate), append(durations, s.Duration)
	}
	return rates, durations, nil
}

func parseStage(b []byte, outLen int) (Measured, error) {
	var raw struct {
		Successes struct {
			Count   int `json:"count"`
			Latency map[string]map[string]float64
			Prompt  map[string]float64 `json:"prompt_len"`
		} `json:"successes"`
		Failures struct {
			Count int `json:"count"`
		} `json:"failures"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Measured{}, err
	}
	dist := func(k string) (Dist, error) {
		m := raw.Successes.Latency[k]
		if m == nil {
			return Dist{}, fmt.Errorf("no %s", k)
		}
		return Dist{m["mean"], m["p90"], m["p99"]}, nil
	}
	m := Measured{Successes: raw.Successes.Count, Failures: raw.Failures.Count, PromptLen: raw.Successes.Prompt["mean"]}
	var err error
	if m.E2E, err = dist("request_latency"); err != nil {
		return m, err
	}
	if m.TTFT, err = dist("time_to_first_token"); err != nil {
		return m, err
	}
	m.ITL = (m.E2E.Mean - m.TTFT.Mean) / float64(outLen-1)
	return m, nil
}

// Short is the experiment's name without its date.
func (e *Experiment) Short() string {
	parts := strings.SplitN(e.Name, "-", 3)
	if len(parts) == 3 {
		return parts[2]
	}
	return e.Name
}

// Find is the index of the one experiment whose name contains part.
func Find(exps []*Experiment, part string) (int, error) {
	found := -1
	var names []string
	for i, e := range exps {
		names = append(names, e.Name)
		if strings.Contains(e.Name, part) {
			if found >= 0 {
				return -1, fmt.Errorf("%q names more than one run: %s and %s", part, exps[found].Name, e.Name)
			}
			found = i
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("no run's name contains %q; the runs: %s", part, strings.Join(names, ", "))
	}
	return found, nil
}
