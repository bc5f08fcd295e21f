package main

import (
	"context"
	"errors"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"os"

	"github.com/gpupath/gpupath/pkg/validate"
)

func init() {
	commands["validate"] = command{usage: "[--partial] [--data TABLE.csv] [--sources] [--format table|csv|json]",
		summary: "model published measurements (the table in the repo, with sources) and print the error per row, source and path", run: runValidate, reads: true}
}

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", stdout)
	format := fs.Format(cli.Table, cli.CSV, cli.JSON)
	data := fs.String("data", "", "a table in the published format (default: the one built in, pkg/validate/data/published.csv)")
	attribution := fs.Bool("sources", false, "print the table's README (its sources and conventions) and stop")
	partial := fs.Bool("partial", false, "also model each row from the default preset with only what the row states, beside the full mode (the preset of its generation)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if *attribution {
		_, err := io.WriteString(stdout, validate.Attribution)
		return err
	}
	rows := validate.Published()
	if *data != "" {
		var err error
		if rows, err = validate.ParseFile(ctx, *data); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var pe *os.PathError
			if errors.As(err, &pe) && pe.Path == *data {
				return usagef("--data %s: %v", *data, pe.Err)
			}
			return badInput(err)
		}
	}
	rep, err := validate.NewReportContext(ctx, rows)
	if err != nil {
		return err
	}
	rep.Both = *partial
	write := map[string]func(io.Writer) error{"json": rep.WriteJSON, "csv": rep.WriteCSV}[*format]
	if write == nil {
		write = rep.WriteTable
	}
	return errors.Join(write(stdout), rep.Empty()) // a table of which nothing was modeled is no pass
}
