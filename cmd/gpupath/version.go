package main

import (
	"context"
	"io"

	"github.com/gpupath/gpupath/internal/cli"
)

func init() {
	commands["version"] = command{usage: "[--format table|json]",
		summary: "the tool's version, the commit and Go it was built with, and its build tags", run: runVersion}
}

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stdout)
	format := fs.Format(cli.Table, cli.JSON)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	b := cli.ReadBuild(Version)
	if *format == cli.JSON {
		return cli.WriteJSON(stdout, b)
	}
	_, err := io.WriteString(stdout, b.Text())
	return err
}
