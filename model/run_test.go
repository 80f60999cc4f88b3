package model_test

import (
	"errors"
	"math"
	"testing"

	"github.com/serq/serq/model"
)

// TestRunSettings checks the run settings an IR may record: they survive
// the JSON, and Validate refuses a horizon or a warm-up no run could take.
func TestRunSettings(t *testing.T) {
	p := loadBase(t)
	p.Run = &model.RunSettings{Horizon: 10, Warmup: 2, Seed: 5, Arrivals: 3}
	back := reread(t, p)
	if back.Run == nil || *back.Run != *p.Run {
		t.Fatalf("run settings %+v after the JSON, want %+v", back.Run, p.Run)
	}
	if err := back.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	for _, tc := range []struct {
		run  model.RunSettings
		path string
	}{
		{model.RunSettings{Horizon: 0}, "run.horizon"},
		{model.RunSettings{Horizon: math.Inf(1)}, "run.horizon"},
		{model.RunSettings{Horizon: 10, Warmup: 10}, "run.warmup"},
		{model.RunSettings{Horizon: 10, Warmup: -1}, "run.warmup"},
	} {
		q := loadBase(t)
		q.Run = &tc.run
		var irErr *model.IRError
		if err := q.Validate(); !errors.As(err, &irErr) || irErr.Path != tc.path {
			t.Errorf("Validate of run %+v = %v, want an error at %s", tc.run, err, tc.path)
		}
	}
}
