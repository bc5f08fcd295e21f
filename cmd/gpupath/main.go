// Command gpupath explains and quantifies how data travels from a GPU on one
// node to a GPU on another: it models every data path stage by stage, measures
// the real machine, and renders both into reports.
//
// Usage:
//
//	gpupath model   [--preset NAME | --scenario FILE] [--set k=v] [--paths ...] [--sizes ...] [--format table|csv|json]
//	gpupath preset  list | show NAME | show --resolved [NAME | --scenario FILE] [--format table|json]
//	gpupath catalog list [--kind gpu|nic|cpu|switch|infiniband] | show NAME [--kind K] [--format table|json]
//	gpupath measure [--probes ...] [--out DIR] [--budget 30s] [--quiet] [--quick] [--target loopback|veth|host:port] [--sizes ...] [--opt k=v] [--diagnose] [--format table|json]
//	gpupath gpucheck [flags of measure]        (gpupath measure --diagnose)
//	gpupath serve   [--listen 127.0.0.1:7470]   (the peer of measure --target host:port)
//	gpupath fit     --data DIR [--out scenario.yaml] [--format table|json]
//	gpupath report  [--preset NAME | --scenario FILE] [--data DIR] [--out DIR] [--model-only] [--format table|json]
//	gpupath import  FILE... --out DIR [--tool NAME] [--format table|json]   (other tools' outputs → a run directory)
//	gpupath doctor  [--sysfs ROOT] [--proc ROOT] [--boot DIR] [--format table|json] [--fail-on error|warn] [--preset NAME | --scenario FILE] [--set k=v] [--nvml auto|on|off|FILE] [--save-tree FILE]
//	gpupath validate [--partial] [--data TABLE.csv] [--format table|json|csv] [--sources]
//	gpupath version [--format table|json]
//
// Flags are GNU style (internal/cli) and may come anywhere among the
// positional arguments; gpupath help CMD is gpupath CMD --help.
//
// The GPU probes link NVML (go-nvml) only when built with -tags nvml.
//
// Exit status: 0 on success, 2 on bad input (one line on stderr), 1 when a
// run fails, measures nothing, or doctor finds what --fail-on names.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/gpupath/gpupath/internal/cli"

	// The GPU probes (cuda, nvml, staged) register themselves with the
	// runner; the rest of the command needs nothing else from them.
	_ "github.com/gpupath/gpupath/pkg/measure/gpu"
)

// command is one subcommand: it parses its own flags and does its work.
type command struct {
	usage   string // the usage line after "gpupath NAME"
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// reads marks a command whose memory grows with what it is given (runs,
	// outputs, sweeps up to their limits): cli.LimitMemory.
	reads bool
}

// commands is filled by each subcommand's file in an init function, so that
// a new subcommand is one new file.
var commands = map[string]command{}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err as one line and maps it to the process exit status
// (cli.Exit: 0, 1 or 2, the same for every command).
func exitCode(err error, stderr io.Writer) int { return cli.Exit(err, stderr) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command given (gpupath help lists the commands; try: gpupath model)")
	}
	if err := cli.CheckEnv(); err != nil {
		return usagef("%v", err)
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		return printUsage(stdout)
	case "help":
		// gpupath help CMD is gpupath CMD --help.
		if len(args) == 1 {
			return printUsage(stdout)
		}
		if _, ok := commands[args[1]]; !ok || len(args) > 2 {
			return usagef("help: unknown command %q (commands: %s)", strings.Join(args[1:], " "), strings.Join(commandNames(), ", "))
		}
		args = []string{args[1], "--help"}
		name = args[0]
	case "--version":
		name, args = "version", []string{"version"}
	}
	c, ok := commands[name]
	if !ok {
		return usagef("unknown command %q (commands: %s)", name, strings.Join(commandNames(), ", "))
	}
	return runCommand(ctx, c, args[1:], stdout, stderr)
}

// runCommand runs c with its stdout and stderr through the one terminal
// writer (termout.go): every command, so none prints outside text raw; and
// under it cli.StopWriter, so that a signal ends a command whose output
// blocks on a pipe nobody reads.
func runCommand(ctx context.Context, c command, args []string, stdout, stderr io.Writer) error {
	if c.reads {
		cli.LimitMemory()
	}
	out, flushOut := cleanTerm(cli.NewStopWriter(ctx, stdout))
	errw, flushErr := cleanTerm(cli.NewStopWriter(ctx, stderr))
	err := c.run(ctx, args, out, errw)
	if e := flushOut(); e != nil && (err == nil || errors.Is(err, cli.ErrHelp)) {
		err = e // the help too: a write that failed is no success
	}
	flushErr()
	return err
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func printUsage(w io.Writer) error {
	var b strings.Builder
	b.WriteString("usage: gpupath <command> [flags]\n\n")
	for _, n := range commandNames() {
		fmt.Fprintf(&b, "  %-8s %s\n", n, commands[n].summary)
	}
	b.WriteString("\ngpupath help <command> (or gpupath <command> --help) prints the flags of one command.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// now is cli.Now: the clock, or SOURCE_DATE_EPOCH.
var now = cli.Now
