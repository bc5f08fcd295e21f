package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"

	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/importers/nccltests"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/report"
)

// importedInput prepares the --data runs for the report's sections on
// imported runs and on comparing two runs. Runs written by gpupath import
// go to "Imported measurements" (their entry in measured keeps the run's
// description and failures, without series: the section draws them on the
// hardware the outputs name). With exactly two --data runs it asks for
// their comparison, B (the second) against A (the first).
func importedInput(runs []*record.RunData, measured []report.Measured) ([]report.Measured, []report.Imported, *report.Comparison) {
	var imported []report.Imported
	var cmp []report.CompareRun
	for i, rd := range runs {
		run, err := importers.FromRunData(rd)
		if err != nil {
			cmp = append(cmp, compareNative(rd))
			continue
		}
		imported = append(imported, importedOf(run))
		cmp = append(cmp, compareImported(run))
		if i < len(measured) {
			measured[i].Series = nil
			measured[i].Tool = fmt.Sprintf("%s (gpupath import %s; the series are in section “Imported measurements”)", describeTools(run), measured[i].Tool)
		}
	}
	var c *report.Comparison
	if len(runs) == 2 {
		c = &report.Comparison{A: cmp[0], B: cmp[1], Seed: 1}
	}
	return measured, imported, c
}

func describeTools(run *importers.Run) string {
	var tools []string
	seen := map[string]bool{}
	for _, f := range run.Files {
		if t := f.Output.Tool; !seen[t] {
			seen[t] = true
			tools = append(tools, t)
		}
	}
	return strings.Join(tools, ", ")
}

// importedOf converts an imported run for the report.
func importedOf(run *importers.Run) report.Imported {
	im := report.Imported{Source: run.Dir}
	for _, fi := range run.Files {
		o := fi.Output
		f := report.ImportedFile{File: fi.File, Tool: o.Tool, Version: o.Version, Test: o.Test, Command: o.Command, Hardware: hardwareOf(fi.File, o.Hardware)}
		np := o.Path
		if fi.NCCL != nil {
			np = fi.NCCL.Path
			f.Hardware = mergeNCCL(f.Hardware, hardwareOf(fi.File, fi.NCCL.Hardware))
		}
		if np != nil {
			f.NCCL = &report.NCCLPath{Path: np.Path, Intra: np.Intra, Line: np.Line, NICs: np.NICs, Verdict: np.Verdict}
		}
		for _, out := range []*obs.Output{o, fi.NCCL} {
			if out == nil {
				continue
			}
			for _, p := range out.Failures {
				s := fmt.Sprintf("%s:%d: %s", fi.File, p.Line, p.Reason)
				if p.Text != "" {
					s += ": " + p.Text
				}
				f.Failures = append(f.Failures, s)
			}
			for _, p := range out.Problems {
				f.Problems = append(f.Problems, fmt.Sprintf("%s:%d: %s", fi.File, p.Line, p.Reason))
			}
			f.Notes = append(f.Notes, out.Notes...)
		}
		f.Series = seriesOf(o)
		if len(o.Records) == 0 {
			// Hardware listings (ibstat, ibv_devinfo, nvidia-smi topo -m)
			// describe the run's machines: every file is modeled on them.
			im.Hardware.NICs = append(im.Hardware.NICs, f.Hardware.NICs...)
			if f.Hardware.GPUNIC != "" && im.Hardware.GPUNIC == "" {
				im.Hardware.GPUNIC, im.Hardware.GPUNICSource = f.Hardware.GPUNIC, f.Hardware.GPUNICSource
			}
		}
		im.Files = append(im.Files, f)
	}
	return im
}

func hardwareOf(file string, h obs.Hardware) report.Hardware {
	at := func(key string) string {
		if l := h.Lines[key]; l > 0 {
			return fmt.Sprintf("%s line %d", file, l)
		}
		return file
	}
	out := report.Hardware{Hosts: h.Hosts, GPUs: h.GPUs, GPUSource: at("gpus"), GPUNIC: h.GPUNIC, Ranks: h.Ranks, Nodes: h.Nodes,
		GPUsPerNode: h.GPUsPerNode, MemoryGPU: h.MemoryGPU}
	if h.GPUNIC != "" {
		out.GPUNICSource = file
	}
	for _, n := range h.NICs {
		src := file
		if n.Line > 0 {
			src = fmt.Sprintf("%s line %d", file, n.Line)
		}
		name := n.Name
		if n.Port > 0 {
			name = fmt.Sprintf("%s port %d", n.Name, n.Port)
		}
		out.NICs = append(out.NICs, report.NIC{Name: name, LinkLayer: n.LinkLayer, State: n.State, RateBps: n.RateBps, Source: src})
	}
	return out
}

// mergeNCCL adds what an NCCL log says to the hardware of its file.
func mergeNCCL(h, l report.Hardware) report.Hardware {
	if h.Ranks == 0 {
		h.Ranks, h.Nodes, h.GPUsPerNode = l.Ranks, l.Nodes, l.GPUsPerNode
	}
	if len(h.NICs) == 0 {
		h.NICs = l.NICs
	}
	if len(h.Hosts) == 0 {
		h.Hosts = l.Hosts
	}
	return h
}

// seriesOf groups a file's records into series: one per test, operation,
// variant, type, operation and metric.
func seriesOf(o *obs.Output) []report.ImportedSeries {
	type key struct {
		test, op, variant, typ, redop, path, stage string
		metric                                     obs.Metric
	}
	idx := map[key]int{}
	var out []report.ImportedSeries
	hw := o.Hardware
	for _, r := range o.Records {
		if r.Op != "" && nccltests.OpOf(r.Test) != "" && r.Bytes == 0 {
			continue // nccl-tests' size-0 rows time an empty collective
		}
		k := key{r.Test, r.Op, r.Variant, r.Type, r.Redop, r.Path, importers.StageOf(r), r.Metric}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			label := strings.TrimSpace(r.Test + " " + r.Variant)
			if r.Type != "" && r.Type != "float" {
				label += " " + r.Type
			}
			if r.Redop != "" && r.Redop != "sum" && r.Redop != "none" {
				label += " " + r.Redop
			}
			s := report.ImportedSeries{Label: label, Test: r.Test, Op: r.Op, Variant: r.Variant, Path: r.Path, Stage: importers.StageOf(r),
				RoundTrip: r.Extra["round_trip"] == 1, Bidirectional: strings.Contains(r.Variant, "bidirectional"), Quantity: report.Latency,
				Streams: int(r.Extra["streams"])}
			if r.Metric == obs.Bandwidth {
				s.Quantity = report.Bandwidth
			}
			if op := nccltests.OpOf(r.Test); op != "" {
				c := &report.Collective{Op: op, Ranks: hw.Ranks, Nodes: hw.Nodes, GPUsPerNode: hw.GPUsPerNode}
				c.Factor, c.Formula, _ = nccltests.BusFactor(op, hw.Ranks)
				s.Collective = c
			}
			out = append(out, s)
		}
		out[i].Points = append(out[i].Points, report.ImportedPoint{Bytes: units.Bytes(r.Bytes), Time: r.Time, Rate: r.Rate, BusRate: r.BusRate,
			Target: r.Target, Line: r.Line, BytesNote: r.BytesNote})
	}
	for i := range out {
		sort.SliceStable(out[i].Points, func(a, b int) bool { return out[i].Points[a].Bytes < out[i].Points[b].Bytes })
	}
	return out
}

// compareImported and compareNative give a run's series for a comparison.
func compareImported(run *importers.Run) report.CompareRun {
	cr := report.CompareRun{Source: run.Dir}
	idx := map[string]int{}
	for _, fi := range run.Files {
		for _, r := range fi.Output.Records {
			q := report.Latency
			v := r.Time
			if r.Metric == obs.Bandwidth {
				q, v = report.Bandwidth, r.Rate
			}
			k := strings.Join([]string{fi.Output.Tool, r.Test, r.Op, r.Variant, r.Type, r.Redop, r.Target, string(r.Metric)}, "|")
			i, ok := idx[k]
			if !ok {
				i = len(cr.Series)
				idx[k] = i
				cr.Series = append(cr.Series, report.CompareSeries{Key: k, Label: strings.TrimSpace(fi.Output.Tool + " " + r.Test + " " + r.Variant + " " + r.Target), Quantity: q})
			}
			cr.Series[i].Points = append(cr.Series[i].Points, report.ComparePoint{Bytes: units.Bytes(r.Bytes), Value: v, Samples: samplesAs(q, r.Bytes, r.Samples)})
		}
	}
	return cr
}

func compareNative(rd *record.RunData) report.CompareRun {
	cr := report.CompareRun{Source: rd.Dir}
	idx := map[string]int{}
	for _, r := range rd.Results {
		q, v := report.Latency, r.MedianS
		switch {
		case strings.Contains(r.Variant, "stream") || strings.Contains(r.Variant, "bw"):
			q, v = report.Bandwidth, r.ThroughputBps
		case r.Probe == "memcpy" || r.Probe == "syscall":
			q = report.Cost
		}
		k := strings.Join([]string{r.Probe, r.Variant, r.Path, r.Stage, r.Target}, "|")
		i, ok := idx[k]
		if !ok {
			i = len(cr.Series)
			idx[k] = i
			cr.Series = append(cr.Series, report.CompareSeries{Key: k, Label: seriesLabel(r), Quantity: q})
		}
		cr.Series[i].Points = append(cr.Series[i].Points, report.ComparePoint{Bytes: units.Bytes(r.Bytes), Value: v, Samples: samplesAs(q, r.Bytes, r.Samples)})
	}
	return cr
}

// samplesAs turns per-message times into the series' quantity: times as
// they are, rates as bytes per time.
func samplesAs(q report.Quantity, bytes int64, times []float64) []float64 {
	if q != report.Bandwidth {
		return times
	}
	if bytes <= 0 {
		return nil
	}
	out := make([]float64, 0, len(times))
	for _, t := range times {
		if t > 0 {
			out = append(out, float64(bytes)/t)
		}
	}
	return out
}
