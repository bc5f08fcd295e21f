package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() {
	commands["fit"] = command{summary: "fit the model to measured runs and write a calibrated scenario", run: runFit}
}

// readRuns reads measurement run directories; a missing or damaged one is
// bad input.
func readRuns(ctx context.Context, dirs []string) ([]*record.RunData, error) {
	var runs []*record.RunData
	total := 0
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, usagef("--data %s: %v", d, errors.Unwrap(err))
		}
		if !st.IsDir() {
			return nil, usagef("--data %s: not a directory", d)
		}
		rd, err := record.ReadRunContext(ctx, d)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, badInput(fmt.Errorf("--data %s: %w", d, err))
		}
		if total += len(rd.Results); total > record.MaxRecords {
			return nil, usagef("--data: more than %d records in all (the limit of one fit or report)", record.MaxRecords)
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
	out := fs.String("out", "", "write the calibrated scenario YAML here (an existing file only with --force)")
	force := fs.Bool("force", false, "let --out replace an existing file")
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
	if *out != "" {
		if err := checkOutFile(*out, *force); err != nil {
			return err
		}
	}
	base, err := sf.resolve(ctx)
	if err != nil {
		return err
	}
	runs, err := readRuns(ctx, data)
	if err != nil {
		return err
	}
	c, err := calib.Calibrate(runs, base, fit.Options{Seed: *seed, Stop: ctx.Err}) // interrupted: ctx's error, exit 1
	if err != nil {
		return badInput(err)
	}
	if *out != "" {
		if err := writeFileAtomic(*out, c.YAML(now())); err != nil {
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

// checkOutFile refuses an --out that is a directory, or an existing file
// without force, before any work is done.
func checkOutFile(path string, force bool) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return usagef("--out %s: its directory %s does not exist", path, filepath.Dir(path))
		}
		return nil
	case err != nil:
		return usagef("--out %s: %v", path, errors.Unwrap(err))
	case st.IsDir():
		return usagef("--out %s: is a directory (give a file name, e.g. %s)", path, filepath.Join(path, "scenario.yaml"))
	case !st.Mode().IsRegular():
		return usagef("--out %s: not a regular file", path)
	case !force:
		return usagef("--out %s: the file exists (add --force to replace it)", path)
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
