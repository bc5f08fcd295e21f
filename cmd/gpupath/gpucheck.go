package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() {
	commands["gpucheck"] = command{
		summary: "run the GPU, topology and RDMA probes and write what they found (self-check)",
		run:     runGPUCheck,
	}
}

// stringsFlag is a repeatable flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, " ") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// gpucheckProbe is the record of one probe in inventory.json.
type gpucheckProbe struct {
	Name      string  `json:"name"`
	Status    string  `json:"status"` // ok, unavailable, failed
	Error     string  `json:"error,omitempty"`
	Records   int     `json:"records"`
	Seconds   float64 `json:"seconds"`
	Inventory any     `json:"inventory,omitempty"`
}

func runGPUCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gpucheck", stderr)
	out := fs.String("out", "", "directory to write results.jsonl, inventory.json, overrides.json, set-flags.txt, this-host.yaml (required)")
	probes := fs.String("probes", "nvml,topo,rdma,cuda,perftest", "probes to run, in this order")
	quick := fs.Bool("quick", false, "fewer sizes and a smaller budget")
	budget := fs.Duration("budget", 0, "time budget of each probe (0: the probe's default; cuda: 60s, 15s with -quick)")
	sizes := fs.String("sizes", "", "message sizes, e.g. 4,4KiB,1MiB,1GiB (default: each probe's sweep)")
	sysfs := fs.String("sysfs", "/sys", "sysfs root for the topo, rdma and perftest probes")
	target := fs.String("target", "", "perftest: peer host running the servers (default: loopback)")
	quiet := fs.Bool("quiet", false, "no diagnostics on stderr")
	var opts stringsFlag
	fs.Var(&opts, "opt", "probe option key=value, repeatable (gpus=0,1  nvml_check=2s  variants=h2d-pinned-stream  use_cuda=off ...)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if *out == "" {
		return usagef("gpucheck: -out DIR is required")
	}
	plan := measure.Plan{Budget: *budget, Quick: *quick, Target: *target, Options: map[string]string{}}
	for _, o := range opts {
		k, v, ok := strings.Cut(o, "=")
		if !ok || k == "" {
			return usagef("gpucheck: -opt %q: want key=value", o)
		}
		plan.Options[k] = v
	}
	if *sizes != "" {
		s, err := parseSizeList(*sizes)
		if err != nil {
			return usagef("gpucheck: -sizes: %v", err)
		}
		plan.Sizes = s
	}
	names := strings.Split(*probes, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if _, err := measure.New(names[i]); err != nil {
			return usagef("gpucheck: %v", err)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	rf, err := os.OpenFile(filepath.Join(*out, "results.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer rf.Close()

	logf := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, a...))
		}
	}
	host, _ := os.Hostname()
	started := time.Now()
	logf("gpupath %s gpucheck on %s: probes %s, out %s", Version, host, strings.Join(names, ","), *out)

	var (
		report  []gpucheckProbe
		results []record.Result
		failed  []string
	)
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		p, _ := measure.New(name)
		switch q := p.(type) {
		case *measure.TopoProbe:
			q.SysRoot = *sysfs
		case *measure.RDMAProbe:
			q.SysRoot = *sysfs
		case *measure.PerftestProbe:
			q.SysRoot = *sysfs
		}
		if v, ok := p.(measure.Verboser); ok && !*quiet {
			v.SetLog(logf)
		}
		rec := gpucheckProbe{Name: name}
		t0 := time.Now()
		logf("%s: start", name)
		err := p.Run(ctx, plan, func(r record.Result) error {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if _, err := rf.Write(append(b, '\n')); err != nil {
				return err
			}
			rec.Records++
			results = append(results, r)
			return nil
		})
		rec.Seconds = time.Since(t0).Seconds()
		switch {
		case err == nil:
			rec.Status = "ok"
		case errors.Is(err, measure.ErrUnavailable):
			rec.Status, rec.Error = "unavailable", err.Error()
		default:
			rec.Status, rec.Error = "failed", err.Error()
			failed = append(failed, name+": "+err.Error())
		}
		if ir, ok := p.(measure.InventoryReporter); ok {
			rec.Inventory = ir.Inventory()
		}
		logf("%s: %s, %d records in %.1fs %s", name, rec.Status, rec.Records, rec.Seconds, rec.Error)
		report = append(report, rec)
	}

	facts := calib.GPUHostFacts{Results: results}
	for _, r := range report {
		switch inv := r.Inventory.(type) {
		case *record.GPUInventory:
			facts.NVML = inv
		case record.CUDAInventory:
			if len(inv.Devices) > 0 {
				facts.CUDA = &inv
			}
		case *record.TopoInventory:
			facts.Topo = inv
		}
	}
	overrides := calib.GPUHostOverrides(facts)
	if overrides == nil {
		overrides = []calib.Override{}
	}

	manifest := map[string]any{
		"tool": "gpupath " + Version, "command": "gpucheck", "host": host,
		"start": started.UTC().Format(time.RFC3339), "seconds": time.Since(started).Seconds(),
		"plan": plan, "probes": report, "overrides": overrides,
	}
	if err := writeJSON(filepath.Join(*out, "inventory.json"), manifest); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(*out, "overrides.json"), overrides); err != nil {
		return err
	}
	var flags, yaml strings.Builder
	for _, o := range overrides {
		fmt.Fprintf(&flags, "--set %s=%s\n", o.Key, o.Value)
	}
	writeYAMLFragment(&yaml, host, started, overrides)
	if err := os.WriteFile(filepath.Join(*out, "set-flags.txt"), []byte(flags.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "this-host.yaml"), []byte(yaml.String()), 0o644); err != nil {
		return err
	}
	summary := gpucheckSummary(report, results, overrides)
	if err := os.WriteFile(filepath.Join(*out, "summary.txt"), []byte(summary), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, summary)
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("gpucheck: %d probe(s) failed: %s", len(failed), strings.Join(failed, "; "))
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeYAMLFragment writes the overrides as the nested scenario keys, each
// with its source as a comment.
func writeYAMLFragment(w io.Writer, host string, t time.Time, os []calib.Override) {
	fmt.Fprintf(w, "# Measured on %s by gpupath gpucheck at %s.\n", host, t.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "# Only the keys measured here: merge into a preset (or pass set-flags.txt to gpupath model).\n")
	groups := map[string][]calib.Override{}
	var order []string
	for _, o := range os {
		g, _, _ := strings.Cut(o.Key, ".")
		if _, seen := groups[g]; !seen {
			order = append(order, g)
		}
		groups[g] = append(groups[g], o)
	}
	for _, g := range order {
		fmt.Fprintf(w, "%s:\n", g)
		for _, o := range groups[g] {
			_, k, _ := strings.Cut(o.Key, ".")
			fmt.Fprintf(w, "  %s: %s # %s\n", k, o.Value, strings.ReplaceAll(o.Source, "\n", " "))
		}
	}
}

// gpucheckSummary is the human summary printed at the end.
func gpucheckSummary(report []gpucheckProbe, results []record.Result, overrides []calib.Override) string {
	var b strings.Builder
	fmt.Fprintln(&b, "probes:")
	for _, r := range report {
		fmt.Fprintf(&b, "  %-9s %-11s %4d records %6.1fs  %s\n", r.Name, r.Status, r.Records, r.Seconds, r.Error)
	}
	type key struct {
		variant, target, timer string
	}
	table := map[key]map[int64]record.Result{}
	var sizes []int64
	seen := map[int64]bool{}
	for _, r := range results {
		if r.Probe != "cuda" || strings.HasSuffix(r.Variant, "-sustained") {
			continue
		}
		k := key{r.Variant, r.Target, r.Timer}
		if table[k] == nil {
			table[k] = map[int64]record.Result{}
		}
		table[k][r.Bytes] = r
		if !seen[r.Bytes] {
			seen[r.Bytes] = true
			sizes = append(sizes, r.Bytes)
		}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	if len(table) > 0 {
		var keys []key
		for k := range table {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].variant != keys[j].variant {
				return keys[i].variant < keys[j].variant
			}
			if keys[i].target != keys[j].target {
				return keys[i].target < keys[j].target
			}
			return keys[i].timer < keys[j].timer
		})
		fmt.Fprintln(&b, "\ncuda copies: median time | rate (GB/s, decimal)")
		fmt.Fprintf(&b, "  %-20s %-11s %-10s", "variant", "target", "timer")
		for _, n := range sizes {
			fmt.Fprintf(&b, " %16s", sizeName(n))
		}
		fmt.Fprintln(&b)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %-20s %-11s %-10s", k.variant, k.target, k.timer)
			for _, n := range sizes {
				if r, ok := table[k][n]; ok {
					fmt.Fprintf(&b, " %16s", measure.FormatSeconds(r.MedianS)+"|"+strconv.FormatFloat(r.ThroughputBps/1e9, 'f', 2, 64))
				} else {
					fmt.Fprintf(&b, " %16s", "-")
				}
			}
			fmt.Fprintln(&b)
		}
	}
	for _, r := range results {
		if r.Probe == "cuda" && strings.HasSuffix(r.Variant, "-sustained") {
			dir, nv := "rx", r.Extra["nvml_rx_Bps"]
			if strings.HasPrefix(r.Variant, "d2h") {
				dir, nv = "tx", r.Extra["nvml_tx_Bps"]
			}
			fmt.Fprintf(&b, "\nNVML check %s: copy %.2f GB/s over %.2fs; NVML %s %.2f GB/s (median of %v windows); ratio %.3f; link under load gen%v x%v\n",
				r.Variant, r.ThroughputBps/1e9, r.Extra["duration_s"], dir, nv/1e9, r.Extra["nvml_"+dir+"_samples"], r.Extra["nvml_ratio"],
				r.Extra["pcie_gen_load"], r.Extra["pcie_width_load"])
		}
	}
	if len(overrides) > 0 {
		fmt.Fprintln(&b, "\nthis host (scenario overrides):")
		for _, o := range overrides {
			fmt.Fprintf(&b, "  %-18s %-12s %s\n", o.Key, o.Value, o.Source)
		}
	}
	return b.String()
}

func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// parseSizeList parses "4,4KiB,1MiB,1GiB" (binary units; B or none for bytes).
func parseSizeList(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := int64(1)
		for _, u := range []struct {
			suffix string
			m      int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
			if v, ok := strings.CutSuffix(f, u.suffix); ok {
				f, mult = v, u.m
				break
			}
		}
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n <= 0 || n > (1<<40)/mult {
			return nil, fmt.Errorf("bad size %q (want e.g. 4, 64KiB, 1GiB)", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}
