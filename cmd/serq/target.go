package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/serq/serq/lang"
	"github.com/serq/serq/target"
)

// targetCmd is `serq target`: the vLLM configuration a program describes
// (package target), as indented JSON. A program vLLM cannot run is refused
// like a static error, at the construct, and exits 1.
type targetCmd struct {
	loadFlags `embed:""`
}

func (c *targetCmd) Run(e *env) error {
	prog, err := c.load(e)
	if err != nil {
		return err
	}
	cfg, err := target.VLLM(prog)
	if err != nil {
		var r *target.Refusal
		if errors.As(err, &r) {
			err = &lang.Error{Pos: r.Pos, Msg: r.Msg, Hint: r.Hint}
		}
		return &loadError{file: c.File, err: err}
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return &loadError{file: c.File, err: fmt.Errorf("cannot encode the configuration: %w", err)}
	}
	_, err = e.stdout.Write(append(b, '\n'))
	return err
}
