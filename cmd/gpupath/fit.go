package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() {
	commands["fit"] = command{summary: "fit the model to measured runs and write a calibrated scenario", run: runFit}
}

// readRuns reads measurement run directories; a missing or damaged one is
// bad input.
func readRuns(dirs []string) ([]*record.RunData, error) {
	var runs []*record.RunData
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, usagef("--data %s: %v", d, errors.Unwrap(err))
		}
		if !st.IsDir() {
			return nil, usagef("--data %s: not a directory", d)
		}
		rd, err := record.ReadRun(d)
		if err != nil {
			return nil, badInput(fmt.Errorf("--data %s: %w", d, err))
		}
		runs = append(runs, rd)
	}
	return runs, nil
}

func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fit", stdout)
	var sf scenarioFlags
	sf.register(fs)
	var data multiFlag
	fs.Var(&data, "data", "a measurement run directory (gpupath measure --out); repeatable")
	out := fs.String("out", "", "write the calibrated scenario YAML here")
	format := fs.String("format", "text", "what to print: text or json")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap (results are deterministic for a seed)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if len(data) == 0 {
		return usagef("fit needs at least one --data DIR")
	}
	if *format != "text" && *format != "json" {
		return usagef("--format %q: use text or json", *format)
	}
	base, err := sf.resolve()
	if err != nil {
		return err
	}
	runs, err := readRuns(data)
	if err != nil {
		return err
	}
	c, err := calib.Calibrate(runs, base, fit.Options{Seed: *seed})
	if err != nil {
		return badInput(err)
	}
	if *out != "" {
		if err := writeFileAtomic(*out, c.YAML(time.Now())); err != nil {
			return err
		}
	}
	if *format == "json" {
		return c.WriteJSON(stdout)
	}
	if err := c.WriteText(stdout); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stdout, "\nwrote %s (gpupath model --scenario %s)\n", *out, *out)
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return usagef("--out %s: %v", path, errors.Unwrap(err))
	}
	tmp := f.Name()
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
