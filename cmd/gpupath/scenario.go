package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"os"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/model"
)

// scenarioFlags are the flags that choose a scenario: --preset or
// --scenario, then --set overrides.
type scenarioFlags struct {
	preset string
	file   string
	sets   []string
}

func (f *scenarioFlags) register(fs *cli.FlagSet) {
	fs.StringVar(&f.preset, "preset", "", "built-in scenario (gpupath preset list); default: default")
	fs.StringVar(&f.file, "scenario", "", "scenario YAML `file` (it may start from a preset with a line base: NAME)")
	fs.StringArrayVar(&f.sets, "set", nil, "override one key, e.g. --set nic.rate=100Gbit/s (repeatable)")
}

// resolve returns the scenario the flags describe; every error is bad input.
func (f *scenarioFlags) resolve(ctx context.Context) (*model.Scenario, error) {
	if f.preset != "" && f.file != "" {
		return nil, usagef("give --preset or --scenario, not both")
	}
	var s *model.Scenario
	var err error
	switch {
	case f.file != "":
		s, err = readScenario(ctx, f.file)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	case f.preset != "":
		s, err = model.Preset(f.preset)
	default:
		s = model.Default()
	}
	if err != nil {
		return nil, badInput(err)
	}
	ovs, err := model.ParseSets(f.sets, "--set")
	if err != nil {
		return nil, badInput(err)
	}
	if err := s.Apply(ovs...); err != nil {
		return nil, badInput(fmt.Errorf("--set %w", err))
	}
	return s, nil
}

// readScenario reads a scenario file through the one bounded reader: a
// FIFO, a device or a directory is refused at once, a file over
// model.MaxScenarioBytes with an error that names the limit. Every error
// but ctx's names the file (a model.InputError).
func readScenario(ctx context.Context, path string) (*model.Scenario, error) {
	data, err := safeio.ReadFile(ctx, path, model.MaxScenarioBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, safeio.ErrTooLarge) || errors.Is(err, safeio.ErrNotRegular) {
			return nil, &model.InputError{File: path, Err: errors.New(strings.TrimPrefix(err.Error(), path+": "))}
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, &model.InputError{File: path, Err: pe.Err}
		}
		return nil, &model.InputError{File: path, Err: err}
	}
	return model.Parse(data, path)
}
