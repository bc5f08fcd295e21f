package main

import (
	"context"
	"errors"
	"github.com/spf13/pflag"

	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/cluster"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	commands["measure"] = command{usage: "[--probes LIST] [--out DIR] [--budget 30s] [--quick] [--sizes LIST] [--opt k=v]... [--target loopback|veth|HOST:PORT] [--diagnose] [pairing flags] [--format table|json]",

		summary: "measure this host: TCP latency/bandwidth/CPU cost, memory copies, syscalls (GPUs too; --diagnose)",
		run:     runMeasure,
	}
	commands["gpucheck"] = command{usage: "[flags of measure]   (gpupath measure --diagnose)",

		summary: "gpupath measure --diagnose: the GPU, topology and RDMA probes with diagnostics (self-check)",
		run:     runGPUCheck,
	}
}

// diagnoseProbes are the probes of the diagnostic run (--diagnose,
// gpucheck) unless --probes says otherwise: what a new GPU machine has.
var diagnoseProbes = []string{"nvml", "topo", "rdma", "cuda", "perftest"}

// diagnoseBudget is the default budget of a diagnostic run (and of a quick
// one): the copy sweep takes most of it.
const (
	diagnoseBudget      = 90 * time.Second
	diagnoseQuickBudget = 30 * time.Second
)

func runMeasure(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return measureCommand(ctx, "measure", false, args, stdout, stderr)
}

// runGPUCheck is `gpupath measure --diagnose` under its older name: the
// same flags (one dash or two), the same runner, the same run directory.
func runGPUCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return measureCommand(ctx, "gpucheck", true, args, stdout, stderr)
}

// measureFlags are the flags of measure (and of gpucheck, its diagnostic
// alias).
type measureFlags struct {
	diagnose                                   bool
	probes, out, target, rate, sizes, variants string
	sysfs                                      string
	budget, timeout                            time.Duration
	quick, quiet                               bool
	port                                       int
	tolerance                                  float64
	opts                                       []string
	pair                                       pairFlags
	format                                     *string

	set     map[string]bool // the flags given on the command line
	names   []string        // the probes that run
	runsTCP bool
}

func (f *measureFlags) register(fs *cli.FlagSet, diagnose bool) {
	fs.BoolVar(&f.diagnose, "diagnose", diagnose, "diagnostics on: the GPU, topology and RDMA probes by default ("+strings.Join(diagnoseProbes, ",")+
		"), what each loads and finds on stderr, a summary (summary.txt) at the end")
	fs.StringVar(&f.probes, "probes", "", "comma-separated probes to run (default: all, or the diagnostic ones with --diagnose; known: "+strings.Join(measure.Names(), ",")+")")
	fs.StringVar(&f.out, "out", "", "run directory (default reports/runs/<host>-<UTC time>)")
	fs.DurationVar(&f.budget, "budget", 30*time.Second, "wall time of the whole run, shared among the probes (default 90s with --diagnose)")
	fs.BoolVar(&f.quick, "quick", false, "short sweeps; without --diagnose, the quick run that gpupath report makes (tcp, memcpy, syscall, about 20s)")
	fs.BoolVar(&f.quiet, "quiet", false, "print nothing but errors (and, with --diagnose, the summary)")
	fs.StringVar(&f.target, "target", "loopback", "where the network probes go: loopback, veth (two network namespaces; root), or host:port of a gpupath serve peer (perftest: the host of its servers)")
	fs.StringVar(&f.rate, "rate", "", "with --target veth: shape the link with tbf to this rate, e.g. 1Gbit/s")
	fs.IntVar(&f.port, "port", 0, "port of the local TCP server (loopback or veth target; 0: any free port)")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "deadline of every network connect, read and write")
	fs.StringVar(&f.sizes, "sizes", "", "message sizes instead of each probe's sweep: a list (64,4KiB,1MiB) or a range (1B:1GiB:x2)")
	fs.StringVar(&f.variants, "variants", "", "tcp variants: pingpong,stream (default both)")
	fs.Float64Var(&f.tolerance, "tolerance", 0, "stop repeating a size when its median moves less than this fraction (default 0.02)")
	fs.StringVar(&f.sysfs, "sysfs", "", "sysfs root of the topo, rdma and perftest probes and of memcpy's cache size (default /sys)")
	f.pair.register(fs)
	f.format = fs.Format(cli.Table, cli.JSON)
	fs.StringArrayVar(&f.opts, "opt", nil, "a probe option key=value, repeatable (e.g. pingpong_max=256MiB for tcp, chunk=1MiB for staged, gpus=0,1); unknown keys are refused")
}

// parseMeasure reads the flags of measure (or gpucheck, diagnose true)
// into the runner's configuration, without touching the network or disk.
func parseMeasure(name string, diagnose bool, args []string, stdout io.Writer) (*measureFlags, measure.RunConfig, error) {
	f := &measureFlags{}
	fs := newFlagSet(name, stdout)
	f.register(fs, diagnose)
	if err := parseFlags(fs, args, false); err != nil {
		return nil, measure.RunConfig{}, err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *pflag.Flag) { f.set[fl.Name] = true })
	cfg, err := f.config()
	return f, cfg, err
}

func measureCommand(ctx context.Context, name string, diagnose bool, args []string, stdout, stderr io.Writer) error {
	f, cfg, err := parseMeasure(name, diagnose, args, stdout)
	if err != nil {
		return err
	}
	pr, err := f.pair.resolve(os.Getenv)
	if err != nil {
		return err
	}
	if pr != nil && !f.set["probes"] && !f.diagnose {
		cfg.Probes, f.names = append([]string(nil), pairProbes...), pairProbes
	}
	// Each probe that runs declares the sizes it takes: checked before anything runs.
	if err := measure.CheckSizes(f.names, cfg.Plan.Sizes); err != nil {
		return usagef("--sizes: %v", err)
	}
	if pr != nil && pr.sweep && !f.set["target"] {
		return f.sweep(ctx, pr, cfg, stdout) // only rank 0 writes: it checks --out
	}
	if err := checkOut(f.out); f.out != "" && err != nil {
		return err
	}
	if pr != nil {
		if f.set["target"] {
			return usagef("--target: a two-host run measures against its peer")
		}
		if pr.role == cluster.Server {
			return f.serveRank0(ctx, pr, stdout)
		}
	} else if err := f.checkNetwork(ctx, cfg.Plan); err != nil {
		return err
	}
	host := measure.ReadHost("/")
	dir := f.out
	if dir == "" {
		dir = filepath.Join(reportsDir, "runs", record.RunDirName(host.Hostname, time.Now()))
		if err := report.WritableHere("runs", filepath.Dir(dir)); err != nil {
			return badInput(err)
		}
	}
	cfg.Dir, cfg.Host = dir, &host
	if !f.quiet {
		cfg.Progress = newProgress(stderr)
	}
	if f.diagnose && !f.quiet {
		cfg.Env.Log = func(format string, a ...any) {
			fmt.Fprintf(stderr, "%s %s\n", time.Now().Format("15:04:05.000"), termtext.Clean(fmt.Sprintf(format, a...)))
		}
		cfg.Env.Log("gpupath %s measure --diagnose on %s: probes %s, out %s", Version, host.Hostname, strings.Join(cfg.Probes, ","), dir)
	}
	if pr != nil {
		return f.measureRank1(ctx, pr, cfg, dir, stdout, stderr)
	}
	m, err := measure.Run(ctx, cfg)
	if m == nil {
		return badInputIf(err, errors.Is(err, record.ErrRunExists) || errors.Is(err, record.ErrNotRunDir) || errors.Is(err, record.ErrRunLocked))
	}
	return f.finish(ctx, m, err, dir, stdout, stderr)
}

// config turns the flags into the runner's configuration; every error is
// bad input.
func (f *measureFlags) config() (measure.RunConfig, error) {
	if fi, err := os.Stat(f.sysfs); f.sysfs != "" && (err != nil || !fi.IsDir()) {
		return measure.RunConfig{}, usagef("--sysfs %s: not a directory", f.sysfs)
	}
	cfg := measure.RunConfig{Budget: f.budget, Version: Version, Env: measure.Env{SysRoot: f.sysfs},
		Plan: measure.Plan{Target: f.target, Quick: f.quick}}
	switch {
	case f.set["budget"]:
	case f.diagnose && f.quick:
		cfg.Budget = diagnoseQuickBudget
	case f.diagnose:
		cfg.Budget = diagnoseBudget
	case f.quick:
		cfg.Budget = measure.QuickBudget
	}
	names, err := f.probeNames()
	if err != nil {
		return cfg, err
	}
	cfg.Probes, f.names = names, names
	if len(names) == 0 {
		f.names = measure.Names()
	}
	if err := measure.CheckBudget(cfg.Budget, len(f.names)); err != nil {
		return cfg, usagef("--budget %w", err)
	}
	f.runsTCP = slices.Contains(f.names, "tcp")
	if f.set["sizes"] {
		if cfg.Plan.Sizes, err = parseSizesInt64(f.sizes); err != nil {
			return cfg, err
		}
	}
	if !(f.tolerance >= 0 && f.tolerance < 1) { // NaN is refused too
		return cfg, usagef("--tolerance must be in [0, 1), got %v", f.tolerance)
	}
	cfg.Plan.Tolerance = f.tolerance
	if cfg.Plan.Options, err = f.options(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// probeNames resolves --probes, or the default of the mode (nil: all).
func (f *measureFlags) probeNames() ([]string, error) {
	if !f.set["probes"] {
		switch {
		case f.diagnose:
			return append([]string(nil), diagnoseProbes...), nil
		case f.quick:
			return append([]string(nil), measure.QuickProbes...), nil
		}
		return nil, nil
	}
	names, all, err := units.SplitNames(f.probes, "probe")
	if all {
		err = errors.New("all is the default: leave --probes out")
	}
	if err != nil {
		return nil, usagef("--probes: %v", err)
	}
	for _, p := range names {
		if _, err := measure.New(p, measure.Env{}); err != nil {
			return nil, usagef("unknown probe %q (probes: %s)", p, strings.Join(measure.Names(), ", "))
		}
	}
	return names, nil
}

// options are the probes' options: --opt key=value, checked against what
// the probes run declare, and the tcp probe's own flags (--timeout, --port,
// --rate, --variants), which need the tcp probe.
func (f *measureFlags) options() (map[string]string, error) {
	if err := measure.CheckTimeout(f.timeout); err != nil {
		return nil, usagef("%v", err)
	}
	if f.port < 0 || f.port > 65535 {
		return nil, usagef("--port %d out of range [0, 65535]", f.port)
	}
	opts := map[string]string{}
	if f.runsTCP {
		opts["timeout"] = units.Seconds(f.timeout.Seconds()).String()
		if f.port != 0 {
			opts["port"] = strconv.Itoa(f.port)
		}
		if f.rate != "" {
			if r, err := units.ParseRate(f.rate); err != nil || !(r > 0) {
				return nil, usagef("--rate: bad rate %q (want e.g. 1Gbit/s, 300Mbit/s, 1.5GB/s)", f.rate)
			}
			opts["rate"] = f.rate
		}
		if f.variants != "" {
			opts["variants"] = f.variants
		}
	} else {
		for _, fl := range []string{"rate", "port", "variants"} {
			if f.set[fl] {
				return nil, usagef("--%s is an option of the tcp probe, which --probes leaves out", fl)
			}
		}
	}
	given := map[string]string{}
	for _, kv := range f.opts {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--opt %q: expected key=value", kv)
		}
		given[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if err := measure.CheckOptions(f.names, given); err != nil {
		return nil, usagef("--opt: %v", err)
	}
	for k, v := range given {
		opts[k] = v
	}
	if err := measure.CheckOptions(f.names, opts); err != nil {
		return nil, badInput(err)
	}
	return opts, nil
}

// checkNetwork refuses bad TCP settings and unreachable targets before
// anything is measured.
func (f *measureFlags) checkNetwork(ctx context.Context, plan measure.Plan) error {
	if !f.runsTCP {
		return nil
	}
	if err := measure.CheckTCPPlan(plan); err != nil {
		return badInput(err)
	}
	switch t := f.target; t {
	case "", "loopback":
		if f.port != 0 {
			if err := measure.PortFree(f.port); err != nil {
				return usagef("--port %d: %v", f.port, err)
			}
		}
	case "veth":
		return measure.VethAvailable()
	default:
		if err := measure.CheckTarget(t); err != nil {
			return badInput(err)
		}
		// A peer that does not answer fails now, within the timeout, not
		// after the other probes have run.
		return measure.CheckPeer(ctx, t, f.timeout)
	}
	return nil
}

// finish reports what the run did: interrupted runs and failed probes are
// errors, and so is a run that measured nothing; otherwise the this-host
// scenario is written next to the run, and a diagnostic run's summary
// kept in summary.txt. Stdout gets the run's summary (one line, or the
// JSON object), stderr the rest.
func (f *measureFlags) finish(ctx context.Context, m *record.Manifest, runErr error, dir string, stdout, stderr io.Writer) error {
	sum := record.Summarize("measure", dir, m)
	var failed []string
	for _, p := range m.Probes {
		if p.Status == record.StatusFailed {
			failed = append(failed, p.Name+": "+p.Reason)
		}
	}
	if runErr != nil {
		// A script that asked for JSON gets the run's object however the
		// run ended: its status says interrupted or failed.
		if *f.format == cli.JSON {
			if err := cli.WriteJSON(stdout, sum); err != nil {
				return err
			}
		}
		if errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded) {
			return fmt.Errorf("interrupted: %d results kept in %s", sum.Results, dir)
		}
		return runErr
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		return err
	}
	ovs, notes, err := calib.ThisHost(rd)
	if err != nil {
		return err
	}
	if path, err := writeHostScenario(rd, ovs, notes, stderr, f.quiet); err != nil {
		return err
	} else if path != "" {
		sum.Files = append(sum.Files, path)
	}
	if f.diagnose {
		summary := report.DiagnosticText(rd, ovs)
		path := filepath.Join(dir, "summary.txt")
		if err := safeio.WriteFile(path, []byte(summary), false); err != nil {
			return err
		}
		sum.Files = append(sum.Files, path)
		if *f.format == cli.Table {
			fmt.Fprint(stdout, summary)
		}
	}
	if *f.format == cli.JSON {
		err = cli.WriteJSON(stdout, sum)
	} else if !f.quiet {
		_, err = fmt.Fprintln(stdout, sum.Line())
	}
	switch {
	case err != nil:
		return err
	case len(failed) > 0:
		return fmt.Errorf("%s (results in %s)", strings.Join(failed, "; "), dir)
	case !sum.Measured():
		return fmt.Errorf("%s (run in %s)", sum.Nothing(), dir)
	}
	return ctx.Err()
}

// parseSizes reads a --sizes flag with the one size-list grammar
// (units.ParseSizes: "8,4096,1MiB", "1B:1GiB:x2"), the same in every
// command; a bad list is bad input.
func parseSizes(list string) ([]units.Bytes, error) {
	bs, err := units.ParseSizes(list)
	if err != nil {
		return nil, usagef("--sizes: %w", err)
	}
	return bs, nil
}

// parseSizesInt64 is parseSizes for the probes' plans, which count bytes as int64.
func parseSizesInt64(list string) ([]int64, error) {
	bs, err := parseSizes(list)
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = int64(b)
	}
	return out, err
}

// writeHostScenario writes the run's host-scenario.yaml
// (calib.WriteHostScenario) and says how to model it.
func writeHostScenario(rd *record.RunData, ovs []model.Override, notes []string, stdout io.Writer, quiet bool) (string, error) {
	path, sets, err := calib.WriteHostScenario(rd, ovs, notes)
	if err == nil && path != "" && !quiet {
		fmt.Fprintf(stdout, "this host: %s\nmodel it: gpupath model --scenario %s\n", termtext.Name(sets), termtext.Name(termtext.ShellWord(path)))
	}
	return path, err
}

// newProgress picks a bar for a terminal and plain lines otherwise.
func newProgress(w io.Writer) measure.Progress {
	if isTerminal(device(w)) {
		return &measure.Bar{W: progressTerm(w)}
	}
	return measure.Lines{W: w}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
