package main

import (
	"context"
	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/internal/termtext"
	"io"

	"github.com/gpupath/gpupath/pkg/model"
)

func init() {
	commands["model"] = command{usage: "[--preset NAME | --scenario FILE] [--set k=v]... [--paths LIST] [--sizes LIST] [--format table|csv|json]\n       [--collective OP --nodes N --gpus-per-node G [--nics-per-node K] [--algo A] [--proto P] [--channels C] [--no-pxn]]",
		summary: "model every path stage by stage (latency, bandwidth, CPU, DDR, PCIe)", run: runModel, reads: true}
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
	var c model.CollectiveSpec
	fs.StringVar(&c.Op, "collective", "", "model this collective with NCCL's cost model: "+joinNames(model.CollectiveOps)+" (--paths then lists nccl, "+joinNames(model.CollectivePaths)+")")
	fs.IntVar(&c.Nodes, "nodes", 2, "--collective: nodes")
	fs.IntVar(&c.GPUsPerNode, "gpus-per-node", 8, "--collective: GPUs (ranks) per node")
	fs.IntVar(&c.NICsPerNode, "nics-per-node", 0, "--collective: NICs per node (0: one per GPU)")
	fs.StringVar(&c.Algo, "algo", "auto", "--collective: NCCL_ALGO: auto, "+joinNames(model.Algorithms))
	fs.StringVar(&c.Proto, "proto", "auto", "--collective: NCCL_PROTO: auto, "+joinNames(model.Protocols))
	fs.IntVar(&c.Channels, "channels", 0, "--collective: NCCL's channels (0: from the topology)")
	fs.BoolVar(&c.NoPXN, "no-pxn", false, "--collective: NCCL_PXN_DISABLE=1")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	s, err := sf.resolve(ctx)
	if err != nil {
		return err
	} else if *format == cli.JSON {
		stdout = termtext.NewJSONWriter(stdout) // pkg/model's JSON, streamed, through the one JSON writer
	}
	for _, f := range []string{"nodes", "gpus-per-node", "nics-per-node", "algo", "proto", "channels", "no-pxn"} {
		if c.Op == "" && fs.Changed(f) {
			return usagef("--%s describes a collective: add --collective OP", f)
		}
	}
	if c.Op != "" {
		return modelCollective(ctx, fs, s, c, *pathList, *sizeList, *format, stdout)
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

// modelCollective is `gpupath model --collective`: the collective on each
// asked path (all: NCCL's own and every inter-node path) at each size.
func modelCollective(ctx context.Context, fs *cli.FlagSet, s *model.Scenario, c model.CollectiveSpec, paths, sizes, format string, stdout io.Writer) error {
	if !fs.Changed("sizes") {
		sizes = model.CollectiveSizes
	}
	bs, err := parseSizes(sizes)
	if err != nil {
		return err
	}
	ps, err := model.ParseCollectivePaths(paths)
	if err != nil {
		return usagef("--paths: %w", err)
	}
	c, results, err := s.CollectiveSweep(ctx, c, ps, bs)
	if err != nil {
		return usagef("--collective: %w", err)
	}
	return model.WriteCollective(ctx, stdout, format, s, c, results)
}
