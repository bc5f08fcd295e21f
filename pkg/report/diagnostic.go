package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// DiagnosticText is the human summary of a diagnostic run (gpupath measure
// --diagnose, gpucheck), which the command prints at the end and keeps as
// summary.txt: each probe's outcome, the CUDA copies at every size, the NVML
// cross-check of the sustained copies and this host's scenario values
// (overrides, calib.ThisHost of the run).
func DiagnosticText(rd *record.RunData, overrides []model.Override) string {
	var b strings.Builder
	fmt.Fprintln(&b, "probes:")
	for _, p := range rd.Manifest.Probes {
		secs := 0.0
		if !p.Start.IsZero() && !p.End.IsZero() {
			secs = p.End.Sub(p.Start).Seconds()
		}
		fmt.Fprintf(&b, "  %-9s %-11s %4d records %6.1fs  %s\n", p.Name, p.Status, p.Results, secs, p.Reason)
	}
	writeCopyTable(&b, rd.Results)
	for _, r := range rd.Results {
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
			v, err := o.Text()
			if err != nil {
				v = "refused: " + err.Error()
			}
			fmt.Fprintf(&b, "  %-18s %-12s %s\n", o.Key, v, o.Source)
		}
	}
	return b.String()
}

// writeCopyTable writes the cuda probe's records as a table: one row per
// variant, target and timer, one column per size, the median time and the
// rate in GB/s.
func writeCopyTable(b *strings.Builder, results []record.Result) {
	var copies []record.Result
	for _, r := range results {
		if r.Probe == "cuda" && !strings.HasSuffix(r.Variant, "-sustained") {
			copies = append(copies, r)
		}
	}
	series := record.Group(copies, record.ByVariant|record.ByTarget|record.ByTimer)
	if len(series) == 0 {
		return
	}
	sort.Slice(series, func(i, j int) bool {
		a, c := series[i].SeriesKey, series[j].SeriesKey
		if a.Variant != c.Variant {
			return a.Variant < c.Variant
		}
		if a.Target != c.Target {
			return a.Target < c.Target
		}
		return a.Timer < c.Timer
	})
	var sizes []units.Bytes
	seen := map[units.Bytes]bool{}
	for _, s := range series {
		for _, p := range s.Points {
			if !seen[p.Bytes] {
				seen[p.Bytes] = true
				sizes = append(sizes, p.Bytes)
			}
		}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	fmt.Fprintln(b, "\ncuda copies: median time | rate (GB/s, decimal)")
	fmt.Fprintf(b, "  %-20s %-11s %-10s", "variant", "target", "timer")
	for _, n := range sizes {
		fmt.Fprintf(b, " %16s", n.String())
	}
	fmt.Fprintln(b)
	for _, s := range series {
		at := map[units.Bytes]record.Point{}
		for _, p := range s.Points {
			at[p.Bytes] = p
		}
		fmt.Fprintf(b, "  %-20s %-11s %-10s", s.Variant, s.Target, s.Timer)
		for _, n := range sizes {
			if p, ok := at[n]; ok {
				fmt.Fprintf(b, " %16s", p.Median.Compact()+"|"+strconv.FormatFloat(float64(p.Rate)/1e9, 'f', 2, 64))
			} else {
				fmt.Fprintf(b, " %16s", "-")
			}
		}
		fmt.Fprintln(b)
	}
}
