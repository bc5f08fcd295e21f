package main

import (
	"context"
	"github.com/gpupath/gpupath/internal/cli"
	"io"

	"github.com/gpupath/gpupath/pkg/model"
)

func init() {
	commands["model"] = command{usage: "[--preset NAME | --scenario FILE] [--set k=v]... [--paths LIST] [--sizes LIST] [--format table|csv|json]",
		summary: "model every path stage by stage (latency, bandwidth, CPU, DDR, PCIe)", run: runModel}
}

// defaultModelSizes keeps the table readable: eight sizes from 8 B to 1 GiB.
const defaultModelSizes = "8,512,4KiB,64KiB,1MiB,16MiB,256MiB,1GiB"

func runModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("model", stdout)
	var sf scenarioFlags
	sf.register(fs)
	pathList := fs.String("paths", "all", "comma-separated paths: "+joinNames(model.PathNames()))
	sizeList := fs.String("sizes", defaultModelSizes, "message sizes: a list (8,4096,1MiB) or a range (1B:1GiB:x2)")
	format := fs.Format(cli.Table, cli.CSV, cli.JSON)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	s, err := sf.resolve(ctx)
	if err != nil {
		return err
	}
	ps, err := model.ParsePaths(*pathList)
	if err != nil {
		return badInput(err)
	}
	sizes, err := parseSizes(*sizeList)
	if err != nil {
		return err
	}
	results, err := model.SweepContext(ctx, s, ps, sizes)
	if err != nil {
		return err
	}
	return model.Write(ctx, stdout, *format, s, results)
}
