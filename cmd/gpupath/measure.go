package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() {
	commands["measure"] = command{
		summary: "measure this host: TCP latency/bandwidth/CPU cost, memory copies, syscalls",
		run:     runMeasure,
	}
}

func runMeasure(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("measure", stdout)
	probes := fs.String("probes", "", "comma-separated probes to run (default: all; known: "+strings.Join(measure.Names(), ",")+")")
	out := fs.String("out", "", "run directory (default reports/runs/<host>-<UTC time>)")
	budget := fs.Duration("budget", 30*time.Second, "wall time of the whole run, shared among the probes")
	quick := fs.Bool("quick", false, "the quick run that gpupath report makes: short sweeps of tcp, memcpy, syscall, about 20s")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	target := fs.String("target", "loopback", "where the network probes go: loopback, veth (two network namespaces; root), or host:port of a gpupath serve peer")
	rate := fs.String("rate", "", "with --target veth: shape the link with tbf to this rate, e.g. 1Gbit/s")
	port := fs.Int("port", 0, "port of the local TCP server (loopback or veth target; 0: any free port)")
	timeout := fs.Duration("timeout", 5*time.Second, "deadline of every network connect, read and write")
	sizes := fs.String("sizes", "", "comma-separated sizes instead of each probe's sweep, e.g. 64,4KiB,1MiB")
	variants := fs.String("variants", "", "tcp variants: pingpong,stream (default both)")
	tolerance := fs.Float64("tolerance", 0, "stop repeating a size when its median moves less than this fraction (default 0.02)")
	var extra multiFlag
	fs.Var(&extra, "opt", "a probe option key=value, repeatable (e.g. pingpong_max=256MiB for tcp, chunk=1MiB for staged, gpus=0,1)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	cfg := measure.RunConfig{Budget: *budget, Version: Version, Plan: measure.Plan{Target: *target}}
	if *quick {
		cfg = measure.QuickConfig("", nil, Version)
		if set["budget"] {
			cfg.Budget = *budget
		}
		cfg.Plan.Target = *target
	}
	if set["budget"] && *budget <= 0 {
		return usagef("--budget must be positive, got %v", *budget)
	}
	if *probes != "" {
		cfg.Probes = nil
		for _, p := range strings.Split(*probes, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if _, err := measure.New(p); err != nil {
				return usagef("unknown probe %q (probes: %s)", p, strings.Join(measure.Names(), ", "))
			}
			cfg.Probes = append(cfg.Probes, p)
		}
		if len(cfg.Probes) == 0 {
			return usagef("--probes names no probe")
		}
	}
	if *sizes != "" {
		for _, s := range strings.Split(*sizes, ",") {
			n, err := measure.ParseBytes(s)
			if err != nil {
				return usagef("--sizes: %v", err)
			}
			if n < 1 {
				return usagef("--sizes: size must be at least 1 byte, got %q", s)
			}
			cfg.Plan.Sizes = append(cfg.Plan.Sizes, n)
		}
	}
	if *tolerance < 0 || *tolerance >= 1 {
		return usagef("--tolerance must be in [0, 1), got %v", *tolerance)
	}
	cfg.Plan.Tolerance = *tolerance
	if *timeout <= 0 {
		return usagef("--timeout must be positive, got %v", *timeout)
	}
	if *port < 0 || *port > 65535 {
		return usagef("--port %d out of range [0, 65535]", *port)
	}
	opts := map[string]string{"timeout": timeout.String()}
	if *port != 0 {
		opts["port"] = strconv.Itoa(*port)
	}
	if *rate != "" {
		if _, err := measure.ParseBitRate(*rate); err != nil {
			return usagef("--rate: %v", err)
		}
		opts["rate"] = *rate
	}
	if *variants != "" {
		opts["variants"] = *variants
	}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usagef("--opt %q: expected key=value", kv)
		}
		opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	cfg.Plan.Options = opts
	runsTCP := len(cfg.Probes) == 0 || contains(cfg.Probes, "tcp")
	if runsTCP {
		if err := measure.CheckTCPPlan(cfg.Plan); err != nil {
			return badInput(err)
		}
	}
	if runsTCP && *port != 0 && (*target == "loopback" || *target == "") {
		if err := portFree(*port); err != nil {
			return usagef("--port %d: %v", *port, err)
		}
	}
	if runsTCP && *target == "veth" {
		if err := measure.VethAvailable(); err != nil {
			return err
		}
	}
	if runsTCP && *target != "loopback" && *target != "veth" && *target != "" {
		// A peer that does not answer fails now, within the timeout, not
		// after the other probes have run.
		if err := measure.CheckPeer(ctx, *target, *timeout); err != nil {
			return err
		}
	}

	host := measure.ReadHost("/")
	dir := *out
	if dir == "" {
		dir = filepath.Join("reports", "runs", record.RunDirName(host.Hostname, time.Now()))
	}
	if _, err := os.Stat(filepath.Join(dir, record.ManifestFile)); err == nil {
		return usagef("--out %s already holds a run", dir)
	}
	cfg.Dir, cfg.Host = dir, &host
	if !*quiet {
		cfg.Progress = newProgress(stdout)
	}
	m, err := measure.Run(ctx, cfg)
	if m == nil {
		return err
	}
	results := 0
	var failed []string
	for _, p := range m.Probes {
		results += p.Results
		if p.Status == record.StatusFailed {
			failed = append(failed, p.Name+": "+p.Reason)
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("interrupted: %d results kept in %s", results, dir)
	}
	if err != nil {
		return err
	}
	if err := writeHostScenario(dir, stdout, *quiet); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "wrote %s (%d results)\n", dir, results)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s (results in %s)", strings.Join(failed, "; "), dir)
	}
	return nil
}

// writeHostScenario derives the "this host" scenario values from the run
// (host and GPU probes) and writes them next to it as host-scenario.yaml: a
// scenario file that `gpupath model --scenario` reads (keys it does not set
// come from the default preset). It checks that the model accepts it.
func writeHostScenario(dir string, stdout io.Writer, quiet bool) error {
	rd, err := record.ReadRun(dir)
	if err != nil {
		return err
	}
	ovs, notes, err := calib.ThisHost(rd)
	if err != nil {
		return err
	}
	if len(ovs) == 0 {
		return nil
	}
	text, err := hostScenarioYAML(rd, ovs, notes)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "host-scenario.yaml")
	if _, err := model.Parse(text, path); err != nil {
		return fmt.Errorf("the derived host scenario does not load: %w", err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		return err
	}
	if !quiet {
		var sets []string
		for _, o := range ovs {
			sets = append(sets, "--set "+o.SetArg())
		}
		fmt.Fprintf(stdout, "this host: %s\n", strings.Join(sets, " "))
		fmt.Fprintf(stdout, "model it: gpupath model --scenario %s\n", path)
	}
	return nil
}

// hostScenarioYAML writes the scenario file of a run: a title comment,
// name and description, then the measured keys with their sources.
func hostScenarioYAML(rd *record.RunData, ovs []calib.Override, notes []string) ([]byte, error) {
	var b strings.Builder
	title := fmt.Sprintf("This host (%s), measured by gpupath %s at %s. Keys not listed come from the default preset.",
		rd.Manifest.Host.Hostname, rd.Manifest.Version, rd.Manifest.Start.Format(time.RFC3339))
	if len(notes) > 0 {
		title += " Not derived: " + strings.Join(notes, "; ")
	}
	for _, line := range calib.WrapLines(title, 98) {
		b.WriteString("# " + line + "\n")
	}
	fmt.Fprintf(&b, "name: %q\n", "this-host "+rd.Manifest.Host.Hostname)
	fmt.Fprintf(&b, "description: %q\n", fmt.Sprintf("%s as measured at %s (run %s)", rd.Manifest.Host.Hostname, rd.Manifest.Start.Format(time.RFC3339), filepath.Base(rd.Dir)))
	if err := calib.WriteScenarioYAML(&b, "", ovs); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// portFree tells whether a TCP port on loopback can be listened on.
func portFree(port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return errors.New("port in use")
		}
		return err
	}
	return ln.Close()
}

// newProgress picks a bar for a terminal and plain lines otherwise.
func newProgress(w io.Writer) measure.Progress {
	if isTerminal(w) {
		return &measure.Bar{W: w}
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
