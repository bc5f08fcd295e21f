package calib

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// An nccl-tests series against NCCL's own cost model (model.Collectives) of
// the cluster its output describes: the collective as it ran (operation,
// nodes, GPUs per node, the NICs NCCL's log lists, the path the log names),
// modeled at every measured size, with the residual of each point.

// assumedGPUsPerNode is the GPUs per node assumed for an output that lists
// no hosts: the eight-GPU board (HGX, DGX) that nccl-tests runs on most.
const assumedGPUsPerNode = 8

// LargeCollective is the size from which a collective's points count in
// CollectiveVerdict.MedianLarge: the bandwidth regime, past NCCL's latency
// terms and protocol switches (16 MiB).
const LargeCollective units.Bytes = 16 << 20

// CollectiveVerdict is an nccl-tests series against NCCL's cost model of its
// cluster.
type CollectiveVerdict struct {
	// Spec is the collective modeled (defaults filled), Headline it in words
	// (model.CollectiveHeadline), Assumed what the comparison had to assume
	// and why.
	Spec     model.CollectiveSpec
	Headline string
	Assumed  []string
	Points   []CollectivePoint
	// Line is the model's busbw from half the smallest to twice the largest
	// size measured (the curve a figure draws).
	Line CeilingLine
	// MedianLarge is the median of |measured/modeled − 1| over the Large
	// points of LargeCollective or more (NaN when there are none).
	MedianLarge float64
	Large       int
	// None says why the series is not compared with the model.
	None string
}

// CollectivePoint is one measured size against the model: busbw measured
// and modeled, the modeled time, NCCL's choice there, and Residual =
// measured/modeled − 1.
type CollectivePoint struct {
	Bytes             units.Bytes
	Line              int
	Measured, Modeled units.Rate
	Time              units.Seconds
	Algo, Proto, Path string
	Residual          float64
}

// ncclLogPath is the inter-node path an NCCL log names, when the
// collective model has it as one of its paths (model.CollectivePaths).
func ncclLogPath(nccl *NCCLPath) (string, bool) {
	if nccl == nil || !slices.Contains(model.CollectivePaths, nccl.Path) {
		return "", false
	}
	return nccl.Path, true
}

// judgeCollective models an nccl-tests series of busbw with NCCL's cost
// model on s (the scenario with the output's hardware).
func judgeCollective(s *model.Scenario, se ImportedSeries, nccl *NCCLPath) *CollectiveVerdict {
	c := se.Collective
	v := &CollectiveVerdict{MedianLarge: math.NaN()}
	spec := model.CollectiveSpec{Op: c.Op, Nodes: c.Nodes, GPUsPerNode: c.GPUsPerNode}
	switch {
	case c.Op == "":
		v.None = "the output does not say which collective ran"
	case c.Nodes < 1 && c.Ranks > 0 && c.GPUsPerNode > 0 && c.Ranks%c.GPUsPerNode == 0:
		spec.Nodes = c.Ranks / c.GPUsPerNode
	case c.Nodes < 1 && c.GPUsPerNode < 1 && c.Ranks >= assumedGPUsPerNode && c.Ranks%assumedGPUsPerNode == 0:
		// An excerpt of the table alone: the ranks come from busbw/algbw
		// (the importer), the nodes from the eight-GPU server nccl-tests
		// runs on most.
		spec.GPUsPerNode, spec.Nodes = assumedGPUsPerNode, c.Ranks/assumedGPUsPerNode
		v.Assumed = append(v.Assumed, fmt.Sprintf("%d GPUs per node, so %d node(s) for the %d ranks (the output lists no hosts)", assumedGPUsPerNode, spec.Nodes, c.Ranks))
	case c.Nodes < 1 && c.Ranks > 0:
		v.None = fmt.Sprintf("the output lists no hosts, and its %d rank(s) do not fill eight-GPU nodes: one node or several cannot be told apart", c.Ranks)
	case c.Nodes < 1:
		v.None = "the output does not say how many nodes or ranks ran"
	}
	if v.None == "" && spec.GPUsPerNode < 1 {
		if c.Ranks > 0 && spec.Nodes > 0 && c.Ranks%spec.Nodes == 0 {
			spec.GPUsPerNode = c.Ranks / spec.Nodes
		} else {
			v.None = "the output does not say how many GPUs each node ran"
		}
	}
	if v.None != "" {
		return v
	}
	if spec.Nodes > 1 {
		if p, ok := ncclLogPath(nccl); ok {
			spec.Path = p
			v.Assumed = append(v.Assumed, fmt.Sprintf("path %s from NCCL's log (line %d)", p, nccl.Line))
		} else {
			p, why := s.NCCLPath(spec.GPUsPerNode)
			v.Assumed = append(v.Assumed, fmt.Sprintf("path %s by NCCL's own rule (the output does not say): %s", p, why))
		}
		if nccl != nil && len(nccl.NICs) > 0 {
			spec.NICsPerNode = min(len(nccl.NICs), 4*model.MaxGPUsPerNode)
			v.Assumed = append(v.Assumed, fmt.Sprintf("%d NIC(s) per node, as NCCL's log lists them", spec.NICsPerNode))
		} else {
			v.Assumed = append(v.Assumed, "one NIC per GPU (the output does not list the NICs)")
		}
	}
	spec.Algo, spec.Proto = model.AlgoAuto, model.AlgoAuto
	v.Assumed = append(v.Assumed, "modeled on "+hardwareText(s))
	var sizes []units.Bytes
	var keep []int
	lo, hi := units.Bytes(math.MaxInt64), units.Bytes(0)
	for i, p := range se.Points {
		if p.Bytes < 1 || p.BusRate <= 0 {
			continue
		}
		sizes, keep = append(sizes, p.Bytes), append(keep, i)
		lo, hi = min(lo, p.Bytes), max(hi, p.Bytes)
	}
	if len(sizes) == 0 {
		v.None = "no point has a size and a busbw"
		return v
	}
	// The model once per size (an import may repeat sizes), in order.
	uniq := slices.Clone(sizes)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	cs := s.Collectives()
	ur, err := cs.Model(spec, uniq)
	if err != nil {
		v.None = "NCCL's cost model cannot take it here: " + err.Error()
		return v
	}
	v.Spec = spec
	if v.Spec.NICsPerNode == 0 {
		v.Spec.NICsPerNode = spec.GPUsPerNode
	}
	rs := make([]model.CollectiveResult, len(sizes))
	for i, n := range sizes {
		k, _ := slices.BinarySearch(uniq, n)
		rs[i] = ur[k]
	}
	v.Spec.Op = rs[0].Op
	v.Headline = model.CollectiveHeadline(v.Spec)
	var large []float64
	for k, r := range rs {
		p := se.Points[keep[k]]
		cp := CollectivePoint{Bytes: p.Bytes, Line: p.Line, Measured: p.BusRate, Modeled: r.BusBW, Time: r.Time,
			Algo: r.Algo, Proto: r.Proto, Path: r.Path, Residual: math.NaN()}
		if r.BusBW > 0 {
			cp.Residual = float64(p.BusRate)/float64(r.BusBW) - 1
		}
		v.Points = append(v.Points, cp)
		if p.Bytes >= LargeCollective && !math.IsNaN(cp.Residual) {
			large = append(large, math.Abs(cp.Residual))
		}
	}
	if v.Large = len(large); v.Large > 0 {
		v.MedianLarge = stats.MedianInPlace(large)
	}
	path := rs[0].Path
	if path == "" {
		path = "gpu-peer"
	}
	v.Line = CeilingLine{Path: path, Factor: 1}
	if line, err := cs.Model(spec, lineSizes(max(lo/2, 1), hi*2)); err == nil {
		for _, r := range line {
			if r.BusBW > 0 {
				v.Line.Bytes, v.Line.Values = append(v.Line.Bytes, r.Bytes), append(v.Line.Values, float64(r.BusBW))
			}
		}
	}
	return v
}

// Text says the comparison in one sentence: the collective modeled, the
// median error in the bandwidth regime and the largest size's numbers.
func (v *CollectiveVerdict) Text() string {
	if v.None != "" {
		return "NCCL's cost model: not compared: " + v.None + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "NCCL's cost model of this cluster (%s; %s): ", v.Headline, strings.Join(v.Assumed, "; "))
	if v.Large > 0 {
		fmt.Fprintf(&b, "median error %s over the %d size(s) of %s or more", units.Percent(v.MedianLarge), v.Large, LargeCollective.Human())
	} else {
		fmt.Fprintf(&b, "no size of %s or more measured", LargeCollective.Human())
	}
	last := v.Points[len(v.Points)-1]
	fmt.Fprintf(&b, "; at %s measured %s against %s modeled (%s/%s, %s).", last.Bytes.Human(), last.Measured.Human(), last.Modeled.Human(), last.Algo, last.Proto, units.SignedPercent(last.Residual))
	return b.String()
}

// hardwareText names the hardware a collective is modeled on: the GPU, its
// NVLink, and the NIC.
func hardwareText(s *model.Scenario) string {
	get := func(k string) string { v, _ := s.Get(k); return v }
	nvl := "no NVLink"
	if r := get("gpu.nvlink_rate"); r != "" && r != "0" && r != "0B/s" {
		nvl = "NVLink " + r
	}
	return fmt.Sprintf("gpu.model %s (%s), nic.kind %s at %s", get("gpu.model"), nvl, get("nic.kind"), get("nic.rate"))
}
