package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

func init() {
	commands["fit"] = command{usage: "--data DIR... [--out scenario.yaml [--force]] [--format table|json]",
		summary: "fit the model to measured runs and write a calibrated scenario", run: runFit, reads: true}
}

// readRuns reads the run directories of one fit or report with read, the
// records of all counted first (record.CheckTotal); a missing or damaged
// one, or too many records in all, is bad input.
func readRuns(ctx context.Context, dirs []string, read func(context.Context, string) (*record.RunData, error)) ([]*record.RunData, error) {
	if err := record.CheckDirs(dirs); err != nil {
		return nil, usagef("--data %v", err)
	}
	if err := record.CheckTotal(ctx, dirs); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, usagef("--data: %v", err)
	}
	var runs []*record.RunData
	for _, d := range dirs {
		rd, err := read(ctx, d)
		if ctx.Err() != nil {
			return nil, ctx.Err() // interrupted while reading: write nothing
		}
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
	var data []string
	fs.StringArrayVar(&data, "data", nil, "a measurement run directory (gpupath measure --out); repeatable")
	out := fs.String("out", "", "write the calibrated scenario YAML here (an existing file only with --force)")
	force := fs.Bool("force", false, "let --out replace an existing file")
	format := fs.Format(cli.Table, cli.JSON)
	seed := fs.Uint64("seed", 1, "seed of the bootstrap (results are deterministic for a seed)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if len(data) == 0 {
		return usagef("fit needs at least one --data DIR")
	}
	if *out != "" {
		if err := checkOutFile("--out", *out, *force); err != nil {
			return err
		}
	}
	base, err := sf.resolve(ctx)
	if err != nil {
		return err
	}
	runs, err := readRuns(ctx, data, record.ReadRunContext)
	if err != nil {
		return err
	}
	opt := fit.Options{Seed: *seed, Stop: ctx.Err} // interrupted: ctx's error, exit 1
	imported, dirs, err := report.CalibrateImportedContext(ctx, runs, base, opt)
	switch {
	case err != nil:
		return badInput(err)
	case imported != nil && len(dirs) < len(runs):
		return usagef("--data: %d run(s) of gpupath import and %d measured: fit them apart (the imported runs calibrate from other tools' outputs)", len(dirs), len(runs)-len(dirs))
	case imported != nil && imported.Empty() != nil:
		return badInput(imported.Empty())
	case imported != nil:
		y, err := imported.YAML(base, dirs, now())
		return writeFit(imported, y, err, *out, *force, *format, stdout)
	}
	c, err := calib.Calibrate(runs, base, opt)
	if err != nil {
		return badInput(err)
	}
	return writeFit(c, c.YAML(now()), nil, *out, *force, *format, stdout)
}

// writeFit writes a calibration: its scenario to out, itself to stdout.
func writeFit(c interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
}, yaml []byte, yerr error, out string, force bool, format string, stdout io.Writer) error {
	if out != "" {
		if yerr != nil {
			return badInput(fmt.Errorf("calibrated scenario: %w", yerr))
		}
		if err := safeio.WriteFile(out, yaml, force); err != nil {
			return outFileError("--out", err)
		}
	}
	if format == cli.JSON {
		return c.WriteJSON(stdout)
	}
	if err := c.WriteText(stdout); err != nil {
		return err
	}
	if out != "" {
		fmt.Fprintf(stdout, "\nwrote %s (gpupath model --scenario %s)\n", termtext.Name(out), termtext.Name(termtext.ShellWord(out)))
	}
	return nil
}

// checkOutFile refuses, before any work is done, an output file flag
// (fit --out, doctor --save-tree) that the one writer would refuse: a
// directory, anything existing without force (a dangling link too), a
// missing parent directory. It is bad input.
func checkOutFile(flag, path string, force bool) error {
	if err := safeio.CheckCreate(path, force); err != nil {
		if st, e := os.Lstat(path); e == nil && st.IsDir() {
			example := "scenario.yaml"
			if flag == "--save-tree" {
				example = "host-tree.txt"
			}
			return usagef("%s %s: is a directory (give a file name, e.g. %s)", flag, path, filepath.Join(path, example))
		}
		return usagef("%s %v", flag, err)
	}
	return nil
}

// outFileError is a write of an output file that failed: a destination
// that appeared meanwhile is bad input, anything else (a full disk) is not.
func outFileError(flag string, err error) error {
	if errors.Is(err, safeio.ErrExists) {
		return usagef("%s %v", flag, err)
	}
	return err
}
