// Command gpupath explains and quantifies how data travels from a GPU on one
// node to a GPU on another: it models every data path stage by stage, measures
// the real machine, and renders both into reports.
//
// Usage:
//
//	gpupath model   [--preset NAME | --scenario FILE] [--set k=v] [--paths ...] [--sizes ...] [--format table|csv|json]
//	gpupath preset  list | show NAME
//	gpupath catalog list [--kind gpu|nic|cpu|switch|infiniband] | show NAME [--kind K] [--format table|json]
//	gpupath measure [--probes ...] [--out DIR] [--budget 30s] [--quiet] [--quick] [--target loopback|veth|host:port] [--sizes ...] [--opt k=v] [--diagnose]
//	gpupath gpucheck [flags of measure]        (gpupath measure --diagnose)
//	gpupath serve   [--listen 127.0.0.1:7470]   (the peer of measure --target host:port)
//	gpupath fit     --data DIR [--out scenario.yaml] [--format text|json]
//	gpupath report  [--preset NAME | --scenario FILE] [--data DIR] [--out DIR] [--model-only]
//	gpupath import  FILE... --out DIR [--tool NAME]   (other tools' outputs → a run directory)
//	gpupath doctor  [--sysfs ROOT] [--proc ROOT] [--boot DIR] [--format text|json] [--preset NAME | --scenario FILE] [--set k=v] [--nvml auto|on|off|FILE] [--save-tree FILE]
//	gpupath validate [--partial] [--data TABLE.csv] [--format table|json|csv] [--sources]
//
// The GPU probes link NVML (go-nvml) only when built with -tags nvml.
//
// Exit status: 0 on success, 2 on bad input (one line on stderr), 1 when a
// run fails for another reason.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"

	// The GPU probes (cuda, nvml, staged) register themselves with the
	// runner; the rest of the command needs nothing else from them.
	_ "github.com/gpupath/gpupath/pkg/measure/gpu"
)

// command is one subcommand: it parses its own flags and does its work.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
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

// exitCode prints err as one line and maps it to the process exit status.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	if errors.Is(err, context.Canceled) {
		// SIGINT or SIGTERM: model, fit and report stop at their next check, write nothing
		// or say what they kept ("interrupted: kept …"); exit 1 however it was wrapped.
		msg, _ := strings.CutSuffix(err.Error(), ": "+context.Canceled.Error())
		if !strings.HasPrefix(msg, "interrupted: kept ") {
			msg = "interrupted: nothing written"
		}
		fmt.Fprintf(stderr, "gpupath: %s\n", termtext.Clean(msg))
		return 1
	}
	// One line, and nothing from outside that reaches the terminal raw.
	msg := termtext.Clean(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
	fmt.Fprintf(stderr, "gpupath: %s\n", msg)
	var u *usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command given (gpupath help lists the commands; try: gpupath model)")
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		printUsage(stdout)
		return nil
	case "version", "--version":
		fmt.Fprintln(stdout, "gpupath", Version)
		return nil
	}
	c, ok := commands[name]
	if !ok {
		return usagef("unknown command %q (commands: %s)", name, strings.Join(commandNames(), ", "))
	}
	return runCommand(ctx, c, args[1:], stdout, stderr)
}

// runCommand runs c with its stdout and stderr through the one terminal
// writer (termout.go): every command, so none prints outside text raw.
func runCommand(ctx context.Context, c command, args []string, stdout, stderr io.Writer) error {
	out, flushOut := cleanTerm(stdout)
	errw, flushErr := cleanTerm(stderr)
	err := c.run(ctx, args, out, errw)
	if e := flushOut(); err == nil {
		err = e
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

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: gpupath <command> [flags]")
	fmt.Fprintln(w)
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gpupath <command> -h' for the flags of one command.")
}

// now is the time a command writes into what it makes (a report's render
// time, an import's time, the comment of a calibrated scenario): the clock,
// or SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds
// convention) when it is set, so that the same input renders the same
// bytes. A value that is not a whole number of seconds is ignored.
func now() time.Time {
	if v, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok {
		if sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && sec >= 0 {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Now()
}
