package model

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// This file is `gpupath model --collective`: one collective on every
// inter-node path asked for, at every size, and its three writers (table,
// CSV, JSON), each made whole before its one write.

// PathNCCL is the collective path "nccl": the one NCCL takes by its own
// rule (Scenario.NCCLPath), shown beside the paths asked for.
const PathNCCL = "nccl"

// MaxCollectiveResults bounds paths × sizes in one collective sweep: each
// result carries every alternative NCCL weighs, so the JSON of one is a
// few kilobytes.
const MaxCollectiveResults = 10000

// CollectiveSizes are the default sizes of `gpupath model --collective`:
// nccl-tests' range in steps of ×4 (8 B to 16 GiB).
const CollectiveSizes = "8B:16GiB:x4"

// ParseCollectivePaths reads a --paths list for a collective: "all" (NCCL's
// own path, then every CollectivePaths entry), or names from nccl and
// CollectivePaths, each once.
func ParseCollectivePaths(list string) ([]string, error) {
	names, err := splitNames(strings.ToLower(list))
	if err != nil {
		return nil, err
	}
	if names == nil {
		return append([]string{PathNCCL}, CollectivePaths...), nil
	}
	for _, p := range names {
		if p != PathNCCL && !containsString(CollectivePaths, p) {
			return nil, fmt.Errorf("path %q is not an inter-node path of a collective (all, %s, %s)", p, PathNCCL, strings.Join(CollectivePaths, ", "))
		}
	}
	return names, nil
}

// CollectivePathResults is one asked path of a collective sweep: the path
// evaluated (NCCL's choice for "nccl"; "" on one node), its results by size,
// or why it is not modeled.
type CollectivePathResults struct {
	Asked   string             `json:"asked"`
	Path    string             `json:"path,omitempty"`
	Results []CollectiveResult `json:"results,omitempty"`
	Reason  string             `json:"reason,omitempty"`
}

// CollectiveSweep is c on every asked path at every size: the collective
// of `gpupath model --collective`. c is checked first (an error is bad
// input); a path the model cannot take on this scenario gets its Reason.
// On one node there is no network: one entry, whatever was asked.
func (s *Scenario) CollectiveSweep(ctx context.Context, c CollectiveSpec, paths []string, sizes []units.Bytes) (CollectiveSpec, []CollectivePathResults, error) {
	c, err := c.normalize()
	if err != nil {
		return c, nil, err
	}
	if len(sizes) == 0 {
		return c, nil, fmt.Errorf("no sizes")
	}
	if c.Nodes == 1 {
		paths = []string{PathNCCL}
	}
	if n := len(paths) * len(sizes); n > MaxCollectiveResults {
		return c, nil, fmt.Errorf("%d paths × %d sizes is more than %d results: ask for fewer", len(paths), len(sizes), MaxCollectiveResults)
	}
	cs := s.Collectives()
	out := make([]CollectivePathResults, 0, len(paths))
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return c, nil, err
		}
		one := c
		if one.Path = p; p == PathNCCL {
			one.Path = ""
		}
		pr := CollectivePathResults{Asked: p}
		rs, err := cs.Model(one, sizes)
		if err != nil {
			pr.Reason = err.Error()
		} else {
			pr.Results, pr.Path = rs, rs[0].Path
		}
		out = append(out, pr)
	}
	return c, out, nil
}

// WriteCollective writes a collective sweep in format (table, csv, json),
// made whole before its one write: a stop (ctx done) writes nothing.
func WriteCollective(ctx context.Context, w io.Writer, format string, s *Scenario, c CollectiveSpec, paths []CollectivePathResults) error {
	var b bytes.Buffer
	var err error
	switch format {
	case "table":
		err = writeCollectiveTable(&b, s, c, paths)
	case "csv":
		err = writeCollectiveCSV(ctx, &b, s, paths)
	case "json":
		err = writeCollectiveJSON(ctx, &b, s, c, paths)
	default:
		return fmt.Errorf("unknown format %q (use %s)", format, strings.Join(Formats, ", "))
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// CollectiveCSVHeader is the header row of the collective CSV: one row per
// asked path × size (a path not modeled: one row with its reason).
var CollectiveCSVHeader = []string{"scenario", "op", "nodes", "gpus_per_node", "ranks", "nics_per_node", "asked_path", "path",
	"bytes", "algo", "proto", "chosen", "channels", "time_s", "nccl_time_s", "latency_s", "algbw_Bps", "busbw_Bps",
	"link_busbw_Bps", "bottleneck", "latency_bound", "pxn", "net_bytes_per_node", "cpu_s_per_node", "cores_per_node",
	"ddr_bytes_per_node", "nccl_path", "nccl_path_algo", "nccl_path_proto", "nccl_path_busbw_Bps", "reason"}

func writeCollectiveCSV(ctx context.Context, w io.Writer, s *Scenario, paths []CollectivePathResults) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CollectiveCSVHeader); err != nil {
		return err
	}
	g, i := units.Cell, strconv.Itoa
	for _, p := range paths {
		if p.Reason != "" {
			row := make([]string, len(CollectiveCSVHeader))
			row[0], row[6], row[len(row)-1] = s.Name, p.Asked, p.Reason
			if err := cw.Write(row); err != nil {
				return err
			}
			continue
		}
		for k, r := range p.Results {
			if k%CheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			row := []string{s.Name, r.Op, i(r.Nodes), i(r.GPUsPerNode), i(r.Ranks), i(r.NICsPerNode), p.Asked, r.Path,
				strconv.FormatInt(int64(r.Bytes), 10), r.Algo, r.Proto, r.Chosen, i(r.Channels),
				g(float64(r.Time)), g(float64(r.NCCLTime)), g(float64(r.Latency)), g(finite(float64(r.AlgBW))), g(finite(float64(r.BusBW))),
				g(finite(float64(r.LinkBusBW))), r.Bottleneck, strconv.FormatBool(r.LatencyBound), strconv.FormatBool(r.PXN),
				g(r.NetBytesPerNode), g(float64(r.CPUPerNode)), g(r.CoresPerNode), g(r.DDRBytesPerNode),
				r.NCCLPath.Path, r.NCCLPath.Algo, r.NCCLPath.Proto, g(finite(float64(r.NCCLPath.BusBW))), ""}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// CollectiveJSON is the object `gpupath model --collective --format json`
// writes: the scenario as `gpupath model` gives it (its keys, base preset,
// what was given, warnings), the collective as checked (defaults filled),
// the compute capability whose tables NCCL uses and why, and each asked
// path's results (CollectiveResult's documented object, with its steps).
type CollectiveJSON struct {
	Scenario          map[string]any          `json:"scenario"`
	Base              string                  `json:"base,omitempty"`
	Given             []JSONGiven             `json:"given,omitempty"`
	Warnings          []string                `json:"warnings,omitempty"`
	Collective        CollectiveSpec          `json:"collective"`
	ComputeCapability int                     `json:"compute_capability"`
	CapabilitySource  string                  `json:"compute_capability_source"`
	BusFactor         string                  `json:"bus_factor"`
	Paths             []CollectivePathResults `json:"paths"`
}

func writeCollectiveJSON(ctx context.Context, w *bytes.Buffer, s *Scenario, c CollectiveSpec, paths []CollectivePathResults) error {
	cc, why := s.ComputeCapability()
	_, formula, _ := BusFactor(c.Op, c.Nodes*c.GPUsPerNode)
	out := CollectiveJSON{Scenario: s.Map(), Base: s.Base(), Given: jsonGiven(s), Warnings: s.Warnings(),
		Collective: c, ComputeCapability: cc, CapabilitySource: why, BusFactor: formula, Paths: paths}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := ctx.Err(); err != nil {
		return err
	}
	return enc.Encode(out)
}

// CollectiveHeadline says which collective in one line: "all_reduce on 16
// nodes × 8 GPUs (128 ranks), 8 NICs per node (1 GPU per NIC), NCCL's
// algorithm and protocol, 0 channels: from the topology".
func CollectiveHeadline(c CollectiveSpec) string {
	ranks := c.Nodes * c.GPUsPerNode
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s on %d node%s × %d GPU%s (%d ranks)", c.Op, c.Nodes, plural(c.Nodes), c.GPUsPerNode, plural(c.GPUsPerNode), ranks)
	if c.Nodes > 1 {
		fmt.Fprintf(b, ", %d NIC%s per node (%s GPU per NIC)", c.NICsPerNode, plural(c.NICsPerNode),
			units.FormatSig(float64(c.GPUsPerNode)/float64(c.NICsPerNode), 3))
	}
	switch {
	case c.Algo == AlgoAuto && c.Proto == AlgoAuto:
		b.WriteString(", algorithm and protocol: NCCL's choice")
	case c.Algo == AlgoAuto:
		fmt.Fprintf(b, ", protocol %s, algorithm: NCCL's choice", c.Proto)
	case c.Proto == AlgoAuto:
		fmt.Fprintf(b, ", algorithm %s, protocol: NCCL's choice", c.Algo)
	default:
		fmt.Fprintf(b, ", algorithm %s, protocol %s", c.Algo, c.Proto)
	}
	if c.Channels > 0 {
		fmt.Fprintf(b, ", %d channels", c.Channels)
	} else {
		b.WriteString(", channels from the topology")
	}
	if c.NoPXN {
		b.WriteString(", PXN off")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeCollectiveTable(w io.Writer, s *Scenario, c CollectiveSpec, paths []CollectivePathResults) error {
	fmt.Fprintf(w, "scenario: %s — %s\n", s.Name, s.Description)
	if g := GivenLine(s); g != "" {
		fmt.Fprintln(w, g)
	}
	for _, warn := range s.Warnings() {
		fmt.Fprintln(w, "warning: "+warn)
	}
	cc, _ := s.ComputeCapability()
	_, formula, _ := BusFactor(c.Op, c.Nodes*c.GPUsPerNode)
	fmt.Fprintf(w, "collective: %s\n", CollectiveHeadline(c))
	fmt.Fprintf(w, "NCCL's cost model (src/graph/tuning.cc at %s) with the tables of compute capability %d.%d;\n", ncclSource, cc/10, cc%10)
	fmt.Fprintf(w, "time: NCCL's latency plus the larger of its bandwidth term and what the links carry (NCCL's own estimate beside it); algbw = size / time,\nbusbw = algbw × %s (nccl-tests); *: latency-bound (latency over half the time); cores and DDR B/B: per node, over the time and per payload byte\n\n", formula)
	t := &table{right: []bool{false, true, true, true, true, true, false, true, false, true, true}}
	t.add("path", "size", "time", "NCCL's est.", "algbw", "busbw", "algorithm", "channels", "bottleneck", "cores", "DDR B/B")
	var notes []string
	noted := map[string]bool{}
	note := func(n string) {
		if !noted[n] {
			noted[n] = true
			notes = append(notes, n)
		}
	}
	// What NCCL does not allow, one line per reason over every path;
	// bottlenecks in the table by their short name, in full below.
	var reasons []string
	notAllowed := map[string][]string{}
	full := map[string]string{}
	var shorts []string
	for k, p := range paths {
		if k > 0 {
			t.add()
		}
		label := p.Asked
		if p.Asked == PathNCCL && p.Path != "" {
			label = "nccl: " + p.Path
		} else if c.Nodes == 1 {
			label = "one node"
		}
		if p.Reason != "" {
			t.add(label, "—", "not modeled (see below)")
			note(p.Asked + ": not modeled: " + p.Reason)
			continue
		}
		r0 := p.Results[0]
		if r0.NCCLPath.Path != "" && r0.NCCLPath.Why != "" {
			note(fmt.Sprintf("NCCL's own path: %s (%s)", r0.NCCLPath.Path, r0.NCCLPath.Why))
		}
		for _, u := range r0.Unavailable {
			ap := u.Algo + "/" + u.Proto
			if _, ok := notAllowed[u.Reason]; !ok {
				reasons = append(reasons, u.Reason)
			}
			if !containsString(notAllowed[u.Reason], ap) {
				notAllowed[u.Reason] = append(notAllowed[u.Reason], ap)
			}
		}
		for _, r := range p.Results {
			for _, n := range r.Notes {
				note(n)
			}
			tm := r.Time.Human()
			if r.LatencyBound {
				tm += "*"
			}
			ddr := "—"
			if r.Bytes > 0 {
				ddr = units.FormatSig(r.DDRBytesPerNode/float64(r.Bytes), 2)
			}
			short := r.Bottleneck
			if i := strings.Index(short, " ("); i > 0 {
				short = short[:i]
				if _, ok := full[short]; !ok {
					shorts = append(shorts, short)
					full[short] = r.Bottleneck
				}
			}
			t.add(label, r.Bytes.Human(), tm, r.NCCLTime.Human(), r.AlgBW.Human(), r.BusBW.Human(), r.Algo+"/"+r.Proto,
				strconv.Itoa(r.Channels), short, humanCores(r.CoresPerNode), ddr)
		}
	}
	for _, sh := range shorts {
		note("bottleneck " + full[sh])
	}
	for _, why := range reasons {
		note("not allowed here: " + strings.Join(notAllowed[why], ", ") + ": " + why)
	}
	if err := t.write(w); err != nil {
		return err
	}
	for _, n := range notes {
		if _, err := fmt.Fprintf(w, "\n%s\n", wrap(n, 100, "    ")); err != nil {
			return err
		}
	}
	return nil
}
