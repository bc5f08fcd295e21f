package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/internal/termtext"
	"io"
	"os"
	"strings"

	"github.com/gpupath/gpupath/pkg/record"

	"github.com/gpupath/gpupath/pkg/importers"
)

func init() {
	commands["import"] = command{usage: "FILE... --out DIR [--tool NAME] [--format table|json]",
		summary: "turn other tools' outputs (nccl-tests, NCCL logs, perftest, OSU, nvbandwidth, iperf3, ...) into a run directory", run: runImport, reads: true}
}

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stdout)
	out := fs.String("out", "", "run `DIR` to create (it must not hold a run); gpupath report --data DIR reads it")
	format := fs.Format(cli.Table, cli.JSON)
	hostDir := fs.Bool("host-dir", false, "name the host of each file that names none by its directory (node17/ib_write_bw.txt: node17)")
	tool := fs.String("tool", "", "the `tool` that wrote the files, instead of detecting it from their content ("+strings.Join(importers.Names(), ", ")+")")
	// Files and flags may come in any order: gpupath import a.txt b.json --out run.
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usagef("import needs at least one FILE (gpupath import FILE... --out DIR)")
	case *out == "":
		return usagef("import needs --out DIR, the run directory to create")
	}
	if *tool != "" {
		if _, err := importers.Lookup(*tool); err != nil {
			return usagef("--tool: %v", err)
		}
	}
	if err := checkOut(*out); err != nil {
		return err
	}
	parsed, err := importers.ReadFilesStream(ctx, files, *tool)
	var lineErr *importers.Error
	var pathErr *os.PathError
	switch {
	case errors.As(err, &lineErr):
	case errors.As(err, &pathErr):
		return usagef("%s: %v", pathErr.Path, pathErr.Err)
	case err != nil:
		return badInput(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m, werr := importers.WriteRunContext(ctx, *out, parsed, importers.Meta{Version: Version, Time: now().UTC(), Command: "gpupath import " + strings.Join(os.Args[min(2, len(os.Args)):], " "), HostDir: *hostDir})
	if werr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(werr, record.ErrTooManySizes) || errors.Is(werr, record.ErrTooManyPoints) {
			return badInput(werr) // the file is past what a run may hold
		}
		if errors.Is(werr, record.ErrNotRunDir) || errors.Is(werr, record.ErrRunExists) {
			return usagef("--out %s: %v", *out, unwrapPath(werr))
		}
		return fmt.Errorf("--out %s: %w", *out, unwrapPath(werr))
	}
	for _, f := range parsed {
		fmt.Fprintln(stderr, termtext.Name(f.Summary())) // a file name may hold a line break
	}
	// What the tools themselves reported: the run keeps it as the file's
	// status; it is not an error of the import.
	for _, f := range parsed {
		importers.PrintLines(stderr, f.Failures(), "such lines (the run's manifest lists the first 1,000)")
	}
	if sum := record.Summarize("import", *out, m); *format == cli.JSON {
		// The run's summary, and what was read from each file.
		err = cli.WriteJSON(stdout, struct {
			record.Summary
			Read []importers.FileRead `json:"read"`
		}{sum, importers.Describe(parsed)})
	} else {
		_, err = fmt.Fprintln(stdout, sum.Line())
	}
	if err != nil {
		return err
	}
	if lineErr == nil && m.Status == record.StatusFailed {
		return errors.New(m.Reason) // nothing imported; the files say why above
	}
	if lineErr != nil {
		importers.PrintLines(stderr, lineErr.Lines, "lines that could not be read")
		if n := m.Counted(); n > 0 {
			return fmt.Errorf("%d line(s) could not be read (listed above); %s keeps the %d records of the others", len(lineErr.Lines), *out, n)
		}
		return fmt.Errorf("%d line(s) could not be read (listed above); no other line held a record: %s holds none", len(lineErr.Lines), *out)
	}
	return nil
}
