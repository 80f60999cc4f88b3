package vllmimport

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// Error is a mapping error: an input serq cannot map, naming the field or
// option. The command exits 2 on one.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Profile is an inference-perf run as its configuration says, read as one
// version of inference-perf reads it.
type Profile struct {
	Path            string
	Version         string  // the inference-perf version the fields were read as
	Groups          int     // shared_prefix groups (system prompts)
	PerGroup        int     // prompts per group
	SystemLen       int     // system_prompt_len, tokens of random ids
	QuestionLen     int     // question_len
	OutputLen       int     // output_len: max_tokens of every request
	Stages          []Stage // load.stages
	Timeout         float64 // load.request_timeout, or aiohttp's default 300 s
	TimeoutSet      bool    // the configuration set it
	Streaming       bool    // api.streaming
	Workers         int     // load.num_workers (0: inference-perf's default, one per CPU)
	WorkerMax       int     // load.worker_max_concurrency
	Ignored         []string
	GroupsFromNames string // the field the groups came from
}

// Stage is one constant-rate load stage.
type Stage struct {
	Rate     float64 // requests per second
	Duration float64 // seconds
}

// Requests is the stage's request count: int(rate · duration).
func (s Stage) Requests() int { return int(math.Floor(s.Rate * s.Duration)) }

// Versions are the inference-perf versions Profile reads as.
var Versions = []string{"0.2", "0.3", "0.4"}

// ReadProfile reads an inference-perf configuration file (a profile as
// written, JSON or YAML, or the results' config.yaml record).
func ReadProfile(path, version string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf("--workload: %v", err)
	}
	p, err := ParseProfile(b, version)
	if err != nil {
		return nil, errorf("%s: %v", path, err)
	}
	p.Path = path
	return p, nil
}

// ParseProfile reads the text of an inference-perf configuration.
func ParseProfile(b []byte, version string) (*Profile, error) {
	if version == "" {
		version = "0.2"
	}
	known := false
	for _, v := range Versions {
		known = known || v == version
	}
	if !known {
		return nil, errorf("--inference-perf-version %q: serq reads %s", version, strings.Join(Versions, ", "))
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("not an inference-perf configuration (a YAML or JSON object): %v", err)
	}
	p := &Profile{Version: version, Timeout: 300, Streaming: false}
	api := obj(raw, "api")
	if t := str(api, "type", "completion"); t != "completion" {
		return nil, fmt.Errorf("`api.type` is %q: serq maps the completion API (a chat API adds the chat template's tokens, which serq does not model)", t)
	}
	p.Streaming = boolean(api, "streaming", false)
	server := obj(raw, "server")
	if !boolean(server, "ignore_eos", true) {
		return nil, fmt.Errorf("`server.ignore_eos` is false: the outputs then end where the model samples EOS, which serq cannot know (inference-perf's shared_prefix runs set it)")
	}
	data := obj(raw, "data")
	if t := str(data, "type", "mock"); t != "shared_prefix" {
		return nil, fmt.Errorf("`data.type` is %q: serq maps inference-perf's shared_prefix data set", t)
	}
	sp := obj(data, "shared_prefix")
	if sp == nil {
		return nil, fmt.Errorf("`data.shared_prefix` is missing")
	}
	var err error
	num := func(key string, def int) int {
		v, ok := sp[key]
		if !ok || v == nil {
			return def
		}
		f, isNum := number(v)
		if !isNum || f != math.Floor(f) || f < 0 || f > 1e9 {
			err = fmt.Errorf("`data.shared_prefix.%s` is %v: it must be a whole number", key, v)
			return def
		}
		return int(f)
	}
	// inference-perf's defaults (its config.py SharedPrefix).
	p.Groups, p.PerGroup = num("num_groups", 10), num("num_prompts_per_group", 10)
	p.GroupsFromNames = "num_groups, num_prompts_per_group"
	p.SystemLen, p.QuestionLen, p.OutputLen = num("system_prompt_len", 100), num("question_len", 50), num("output_len", 50)
	newNames := []string{"num_unique_system_prompts", "num_users_per_system_prompt"}
	switch version {
	case "0.4":
		if _, ok := sp[newNames[0]]; ok {
			p.Groups = num(newNames[0], p.Groups)
			p.GroupsFromNames = newNames[0] + ", " + newNames[1]
		}
		if _, ok := sp[newNames[1]]; ok {
			p.PerGroup = num(newNames[1], p.PerGroup)
		}
		for _, k := range []string{"question_distribution", "output_distribution"} {
			if v, ok := sp[k]; ok && v != nil {
				return nil, fmt.Errorf("`data.shared_prefix.%s`: serq maps fixed question and output lengths", k)
			}
		}
	default:
		for _, k := range newNames {
			if _, ok := sp[k]; ok {
				p.Ignored = append(p.Ignored, "data.shared_prefix."+k)
			}
		}
	}
	if version == "0.2" {
		if _, ok := sp["enable_multi_turn_chat"]; ok {
			p.Ignored = append(p.Ignored, "data.shared_prefix.enable_multi_turn_chat")
		}
	} else if boolean(sp, "enable_multi_turn_chat", false) {
		return nil, fmt.Errorf("`data.shared_prefix.enable_multi_turn_chat` is true: serq does not map inference-perf's multi-turn chat (each user's conversation growing turn by turn)")
	}
	if err != nil {
		return nil, err
	}
	if p.Groups < 1 || p.PerGroup < 1 {
		return nil, fmt.Errorf("`data.shared_prefix`: %d groups of %d prompts: there must be at least one prompt", p.Groups, p.PerGroup)
	}
	if p.OutputLen < 2 {
		return nil, fmt.Errorf("`data.shared_prefix.output_len` is %d: serq maps outputs of at least 2 tokens (an inter-token latency needs two)", p.OutputLen)
	}
	load := obj(raw, "load")
	if t := str(load, "type", "constant"); t != "constant" {
		return nil, fmt.Errorf("`load.type` is %q: serq maps inference-perf's constant load type", t)
	}
	if v, ok := load["sweep"]; ok && v != nil {
		return nil, fmt.Errorf("`load.sweep`: serq maps explicit stages, not a sweep inference-perf sizes at run time")
	}
	stages, _ := load["stages"].([]any)
	if len(stages) == 0 {
		return nil, fmt.Errorf("`load.stages` is missing or empty")
	}
	for i, s := range stages {
		m, _ := s.(map[string]any)
		r, okR := number(m["rate"])
		d, okD := number(m["duration"])
		if !okR || !okD || !(r > 0) || !(d > 0) || math.IsInf(r, 0) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("`load.stages[%d]` needs a positive rate and duration, not %v", i, s)
		}
		if _, ok := m["concurrency_level"]; ok {
			return nil, fmt.Errorf("`load.stages[%d].concurrency_level`: serq maps request rates, not concurrency", i)
		}
		st := Stage{Rate: r, Duration: d}
		if st.Requests() < 1 {
			return nil, fmt.Errorf("`load.stages[%d]`: rate %g for %g s sends no request", i, r, d)
		}
		p.Stages = append(p.Stages, st)
	}
	if v, ok := load["request_timeout"]; ok && v != nil {
		t, isNum := number(v)
		if !isNum || !(t > 0) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("`load.request_timeout` is %v: it must be a positive number of seconds", v)
		}
		p.Timeout, p.TimeoutSet = t, true
	}
	if v, ok := number(load["num_workers"]); ok {
		p.Workers = int(v)
	}
	p.WorkerMax = 100
	if v, ok := number(load["worker_max_concurrency"]); ok {
		p.WorkerMax = int(v)
	}
	sort.Strings(p.Ignored)
	return p, nil
}

// Prompts is the number of distinct prompts inference-perf cycles through.
func (p *Profile) Prompts() int { return p.Groups * p.PerGroup }

func obj(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	v, _ := m[key].(map[string]any)
	return v
}

func str(m map[string]any, key, def string) string {
	if m == nil {
		return def
	}
	if v, ok := m[key].(string); ok {
		return v
	}
	return def
}

func boolean(m map[string]any, key string, def bool) bool {
	if m == nil {
		return def
	}
	if v, ok := m[key].(bool); ok {
		return v
	}
	return def
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}
