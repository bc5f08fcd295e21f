package calib

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/importers/nvlink"
	"github.com/gpupath/gpupath/pkg/importers/p2plat"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// This file judges other tools' outputs (gpupath import) against the model:
// each series beside the model of the path it took, how much of that
// ceiling it reaches, and what that means, in words. The report renders
// the verdicts; it judges nothing itself.

// ImportedSeries is a measured curve of another tool's output with what the
// output says about it beyond the curve. The Series' Probe is the tool,
// Variant what tells the test's series apart, Path the model path the output
// says it measured ("" when it does not say), Stage the copy stage of a copy
// benchmark ("A" device to host, "G" host to device), Quantity Latency or
// Bandwidth; a point's Median is the tool's time per message.
type ImportedSeries struct {
	record.Series
	// Test is what ran ("all_reduce_perf"), Op the collective or operation.
	Test, Op string
	// RoundTrip marks latencies of a whole round trip (ib_read_lat);
	// Bidirectional rates that add both directions (osu_bibw, -b).
	RoundTrip, Bidirectional bool
	// Streams is the number of parallel TCP streams (iperf3 -P), 0 when
	// not said.
	Streams int
	// Collective is set for nccl-tests.
	Collective *Collective
}

// Collective describes an nccl-tests series: the collective, how many ranks
// on how many nodes, and busbw's factor.
type Collective struct {
	Op                        string
	Ranks, Nodes, GPUsPerNode int
	Factor                    float64
	Formula                   string
}

// NCCLPath is the path an NCCL log says the traffic took.
type NCCLPath struct {
	// Path is between nodes (gdr, rdma, tcp, mixed, ""), Intra inside a
	// node; Line the log line to look at; NICs the devices NCCL used on a
	// node; Verdict the log's own account.
	Path, Intra string
	Line        int
	NICs        []string
	Verdict     string
}

// JudgedPoint is a measured point against the model of its series' path.
type JudgedPoint struct {
	record.Point
	// At is the size the model was evaluated at: the point's, or where the
	// output gives none, a small message for a latency and a large one for
	// a bandwidth.
	At units.Bytes
	// Measured is the value compared (the rate, busbw for a collective, or
	// the time); Ceiling the model's (for a latency its floor); Share the
	// measured value over the ceiling (for a latency the floor over the
	// measured value); Bound what limits the model there ("infeasible: …"
	// where the path cannot run). Ceiling and Share are 0 without a model.
	Measured, Ceiling, Share float64
	Bound                    string
}

// ImportedVerdict is one imported series against the model of its path.
type ImportedVerdict struct {
	Series ImportedSeries
	// Path is the model path it is compared with ("copy G" for a copy
	// stage) and PathWhy why; Best the fastest path between nodes the
	// scenario allows, where it is not Path.
	Path, PathWhy, Best string
	// Factor is how many times one path's bandwidth the series can reach
	// (NICs in parallel, both directions) and FactorWhy why.
	Factor    float64
	FactorWhy string
	Points    []JudgedPoint
	// None says why there is no model to compare with; Verdict is the
	// judgement in words.
	None, Verdict string
	// Lines are the model's lines a figure of the series' group draws
	// after the series' points: its path's and the fastest path's ceiling,
	// each once per group.
	Lines []CeilingLine
	// Collective is an nccl-tests busbw series against NCCL's cost model
	// of its cluster (nil for any other series).
	Collective *CollectiveVerdict
}

// CeilingLine is the model's ceiling of one path over the sizes a figure
// spans.
type CeilingLine struct {
	Path   string
	Factor float64
	// Best marks the fastest path here, which the series did not take.
	Best   bool
	Bytes  []units.Bytes
	Values []float64
}

// ImportedGroup is the series of one test and quantity of a file: one
// figure and one table in the report.
type ImportedGroup struct {
	Test     string
	Quantity record.Quantity
	Verdicts []ImportedVerdict
}

// ValueText spells a value of the series' quantity: a rate or a time.
func (v *ImportedVerdict) ValueText(x float64) string {
	if v.Series.Quantity == record.Bandwidth {
		return units.Rate(x).Human()
	}
	return units.Seconds(x).Human()
}

// The sizes a point without a size is modeled at: a small message for a
// latency, a large one for a bandwidth (those the report's summary quotes).
const (
	smallRef units.Bytes = 8
	bigRef   units.Bytes = 1 << 30
)

// gpuPaths and hostPaths are the paths between nodes an unknown series is
// compared with (the fastest of them): GPU to GPU, and host to host, as the
// model's path registry names them by role.
func gpuPaths() []string {
	return pathNames(func(p model.Path) bool { return p.GPU && p.Internode })
}

func hostPaths() []string {
	return pathNames(func(p model.Path) bool { return p.Role == model.RoleReference })
}

func pathNames(keep func(model.Path) bool) []string {
	var out []string
	for _, p := range model.PathsWith(keep) {
		out = append(out, p.Name)
	}
	return out
}

// JudgeImported judges the series of one imported file against the model on
// s (the scenario with the hardware the file names): each series' path (what
// the output or NCCL's log says, or the fastest the scenario allows), the
// model's ceiling and the share of it at every point, and the verdict. A
// series of parallel TCP streams is modeled with that many flows. The
// series are grouped by test and quantity, in order; points whose values are
// not finite and non-negative are left out, and a series left without
// points too. nccl is what an NCCL log in the file says (or nil);
// memoryGPU tells whether the measured buffers were in GPU memory.
func JudgeImported(s *model.Scenario, series []ImportedSeries, nccl *NCCLPath, memoryGPU bool) []ImportedGroup {
	g, _ := JudgeImportedStop(s, series, nccl, memoryGPU, nil)
	return g
}

// JudgeImportedStop is JudgeImported that asks stop (when not nil) every
// fit.StopEvery points and returns its error.
func JudgeImportedStop(s *model.Scenario, series []ImportedSeries, nccl *NCCLPath, memoryGPU bool, stop func() error) ([]ImportedGroup, error) {
	type key struct {
		test string
		q    record.Quantity
	}
	var groups []ImportedGroup
	var on [][]*model.Scenario // the scenario each verdict was judged on
	idx := map[key]int{}
	for _, se := range series {
		se.Points = usablePoints(se.Points)
		if len(se.Points) == 0 {
			continue
		}
		ss := s
		if se.Streams > 1 && (se.Path == "host-tcp" || se.Path == "tcp") {
			if fs, ok := withFlows(s, se.Streams); ok {
				ss = fs
			}
		}
		v, err := judge(ss, se, nccl, memoryGPU, stop)
		if err != nil {
			return nil, err
		}
		if ss != s {
			v.PathWhy += fmt.Sprintf("; with stack.flows=%d, the run's parallel streams", se.Streams)
		}
		k := key{se.Test, se.Quantity}
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, ImportedGroup{Test: se.Test, Quantity: se.Quantity})
			on = append(on, nil)
		}
		groups[i].Verdicts = append(groups[i].Verdicts, v)
		on[i] = append(on[i], ss)
	}
	for i := range groups {
		ceilingLines(&groups[i], on[i])
	}
	return groups, nil
}

// usablePoints drops points whose values are not finite and non-negative
// (the importer never produces them, a caller might).
func usablePoints(ps []record.Point) []record.Point {
	var out []record.Point
	for i, p := range ps {
		ok := p.Bytes >= 0
		for _, v := range []float64{float64(p.Median), float64(p.Rate), float64(p.BusRate)} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				ok = false
			}
		}
		switch {
		case ok && out != nil:
			out = append(out, p)
		case !ok && out == nil:
			out = append(make([]record.Point, 0, len(ps)-1), ps[:i]...) // the first one left out: copy from here
		}
	}
	if out == nil {
		return ps // all usable: no copy
	}
	return out
}

// judge compares a series with the model of its path.
// unmodeled are the paths an imported output names that the model does not
// price, each with why: shown beside the series instead of a comparison
// with a path it did not take.
var unmodeled = map[string]string{
	p2plat.PathLocal:    "a copy inside one GPU's memory (the matrix's diagonal, its bytes counted twice): no path between GPUs to model",
	p2plat.PathStaged:   "a copy between GPUs without P2P (staged through host memory by the driver): the model has no such path; the P2P-enabled cells are compared with gpu-peer",
	p2plat.PathBoth:     "both directions at once, their sum: the model's gpu-peer path is one direction; the unidirectional cells are compared with it",
	p2plat.PathAsyncLat: "back-to-back asynchronous copies on one stream (the sample's latency): the model's gpu-peer latency is one synchronous copy (gpu.peer_copy_latency)",
	nvlink.PathLink:     "a link's line rate as nvidia-smi reports it: a fact of the hardware, not a transfer (the scenario's gpu.nvlink_rate is the sum over a GPU's active links)",
}

// It asks stop (when not nil) every fit.StopEvery points and returns its
// error.
func judge(s *model.Scenario, se ImportedSeries, nccl *NCCLPath, memoryGPU bool, stop func() error) (ImportedVerdict, error) {
	j := ImportedVerdict{Series: se, Factor: 1}
	switch {
	case se.Stage != "":
		j.Path, j.PathWhy = "copy "+se.Stage, "a copy between host and GPU memory: the model's copy stage"
	case unmodeled[se.Path] != "":
		j.None = unmodeled[se.Path]
	case se.Path != "":
		j.Path, j.PathWhy = se.Path, "as the output says"
		if se.Path == "gdr" {
			j.PathWhy = "the run used GPU memory"
		}
		// nccl-tests: the log says which path the traffic took.
		if nccl != nil && se.Collective != nil && nccl.Path != "" && nccl.Path != "mixed" {
			j.Path, j.PathWhy = nccl.Path, fmt.Sprintf("NCCL's log, line %d", nccl.Line)
		}
	case se.Collective != nil && nccl != nil && nccl.Path != "" && nccl.Path != "mixed" && nccl.Path != "collnet":
		j.Path, j.PathWhy = nccl.Path, fmt.Sprintf("NCCL's log, line %d", nccl.Line)
	case se.Collective != nil && se.Collective.Nodes == 1:
		j.Path, j.PathWhy = "gpu-peer", "all ranks on one node"
	case strings.Contains(strings.ToLower(se.Variant), "udp") || strings.Contains(strings.ToLower(se.Test), "udp"):
		j.None = "the model has no UDP path"
	default:
		cands, what := hostPaths(), "host"
		if memoryGPU || se.Collective != nil {
			cands, what = gpuPaths(), "GPU"
		}
		j.Path = bestPath(s, cands)
		j.PathWhy = fmt.Sprintf("the output does not say which path; compared with the fastest %s path the scenario allows", what)
		if j.Path == "" {
			j.None = "no " + what + " path between nodes is feasible in the scenario"
		}
	}
	// The fastest GPU path, to say what a host-staged path costs.
	if se.Collective != nil && j.Path != "gpu-peer" {
		if b := bestPath(s, gpuPaths()); b != "" && b != j.Path {
			j.Best = b
		}
	}
	if c := se.Collective; c != nil && se.Quantity == record.Bandwidth {
		j.Factor, j.FactorWhy = busCeilingFactor(c, nccl, j.Path)
	}
	if se.Bidirectional {
		j.Factor, j.FactorWhy = 2*j.Factor, "both directions at once"
	}
	if j.None != "" {
		j.Verdict = "not compared: " + j.None + "."
		return j, nil
	}
	// The model once per size: an import may repeat a size many times.
	memo := map[int64]modeled{}
	j.Points = make([]JudgedPoint, 0, len(se.Points))
	for i, pt := range se.Points {
		if i%fit.StopEvery == 0 && stop != nil {
			if err := stop(); err != nil {
				return ImportedVerdict{}, err
			}
		}
		j.Points = append(j.Points, judgePoint(s, &j.Series, j.Path, j.Factor, pt, memo))
	}
	j.Verdict = verdictOf(s, &j, nccl)
	if se.Collective != nil && se.Quantity == record.Bandwidth {
		j.Collective = judgeCollective(s, se, nccl)
		j.Verdict += " " + j.Collective.Text()
	}
	return j, nil
}

// busCeilingFactor is how many times one path's bandwidth busbw can reach:
// a ring collective between nodes carries each rank's share over the NICs
// of a node in parallel, so busbw is bounded by the NICs per node times one
// NIC's path (one NIC per GPU when the output does not list them);
// sendrecv crosses between nodes on one pair of NICs.
func busCeilingFactor(c *Collective, nccl *NCCLPath, path string) (float64, string) {
	if path == "gpu-peer" || c.Nodes == 1 {
		return 1, "one GPU's peer links"
	}
	switch c.Op {
	case model.SendRecv, model.Hypercube:
		return 1, "one pair of NICs between the nodes"
	case model.AllToAll:
		return 1, "one NIC's path (all-to-all: the share between nodes is not modeled)"
	}
	nics := 0
	if nccl != nil {
		nics = len(nccl.NICs)
	}
	per := c.GPUsPerNode
	switch {
	case nics > 0 && per > 0:
		k := min(nics, per)
		return float64(k), fmt.Sprintf("%d NIC(s) per node in parallel (NCCL's log lists %d)", k, nics)
	case per > 1:
		return float64(per), fmt.Sprintf("%d NICs per node in parallel (one NIC per GPU assumed: the output does not list them)", per)
	}
	return 1, "one NIC per node"
}

// judgePoint models one point of se on the path, with the factor; memo
// (nil: none) keeps the model's value per size across a series' points.
func judgePoint(s *model.Scenario, se *ImportedSeries, path string, factor float64, pt record.Point, memo map[int64]modeled) JudgedPoint {
	jp := JudgedPoint{Point: pt, At: pt.Bytes}
	if jp.At < 1 {
		jp.At = smallRef
		if se.Quantity == record.Bandwidth {
			jp.At = bigRef
		}
	}
	m, ok := memo[int64(jp.At)]
	switch {
	case ok:
	case strings.HasPrefix(path, "copy "):
		m = evalCopy(s, strings.TrimPrefix(path, "copy "), int64(jp.At))
	default:
		m = evalPath(s, path, int64(jp.At))
	}
	if memo != nil {
		memo[int64(jp.At)] = m
	}
	if !m.Feasible {
		jp.Bound = "infeasible: " + m.Reason
		return jp
	}
	if se.Quantity == record.Bandwidth {
		jp.Measured = float64(pt.Rate)
		if se.Collective != nil && pt.BusRate > 0 {
			jp.Measured = float64(pt.BusRate)
		}
		jp.Ceiling = m.Rate * factor
		jp.Bound = m.RateBound
		if jp.Ceiling > 0 {
			jp.Share = jp.Measured / jp.Ceiling
		}
		return jp
	}
	jp.Measured = float64(pt.Median)
	jp.Ceiling = m.Latency
	if se.RoundTrip {
		jp.Ceiling *= 2
	}
	jp.Bound = m.LatencyBound
	if jp.Measured > 0 {
		jp.Share = jp.Ceiling / jp.Measured
	}
	return jp
}

// ceilingLines gives each verdict of a group the model's lines it adds to
// the group's figure: its path's and the fastest path's, each once, from
// half the smallest to twice the largest size of the group, eight sizes
// per factor of two (a line drawn through them is the model's curve, not
// a polyline between a few sizes), on the scenario the verdict was judged on (on[i] for the i-th: the
// file's, or with the run's parallel TCP streams), so that the lines are
// the ceilings the verdicts quote.
func ceilingLines(g *ImportedGroup, on []*model.Scenario) {
	lo, hi := units.Bytes(math.MaxInt64), units.Bytes(0)
	for _, v := range g.Verdicts {
		for _, p := range v.Points {
			lo, hi = min(lo, p.At), max(hi, p.At)
		}
	}
	if hi == 0 {
		return
	}
	type line struct {
		path   string
		factor float64
		flows  int
	}
	done := map[line]bool{}
	for i := range g.Verdicts {
		v, s := &g.Verdicts[i], on[i]
		for _, path := range []string{v.Path, v.Best} {
			k := line{path, v.Factor, s.Stack.Flows}
			if path == "" || done[k] || v.None != "" {
				continue
			}
			done[k] = true
			line := CeilingLine{Path: path, Factor: v.Factor, Best: path == v.Best}
			for _, n := range lineSizes(max(lo/2, 1), hi*2) {
				if jp := judgePoint(s, &v.Series, path, v.Factor, record.Point{Bytes: n}, nil); jp.Ceiling > 0 {
					line.Bytes, line.Values = append(line.Bytes, n), append(line.Values, jp.Ceiling)
				}
			}
			if len(line.Bytes) > 0 {
				v.Lines = append(v.Lines, line)
			}
		}
	}
}

// lineSteps is the number of sizes per factor of two of a ceiling line.
const lineSteps = 8

// lineSizes are the sizes of a ceiling line from lo to hi: lo × 2^(k/lineSteps)
// rounded to whole bytes, each at least one byte more than the one before
// (so that the powers of two from lo are among them, exactly).
func lineSizes(lo, hi units.Bytes) []units.Bytes {
	var out []units.Bytes
	for k := 0; ; k++ {
		n := units.Bytes(math.Round(float64(lo) * math.Exp2(float64(k)/lineSteps)))
		if len(out) > 0 {
			n = max(n, out[len(out)-1]+1)
		}
		if n > hi {
			return out
		}
		out = append(out, n)
	}
}

// representative is the point a verdict quotes: the largest message for a
// bandwidth (the streaming regime), the smallest for a latency.
func representative(ps []JudgedPoint, q record.Quantity) (JudgedPoint, bool) {
	var best JudgedPoint
	found := false
	for _, p := range ps {
		if p.Ceiling <= 0 || p.Measured <= 0 {
			continue
		}
		if !found || q == record.Bandwidth && p.At > best.At || q != record.Bandwidth && p.At < best.At {
			best, found = p, true
		}
	}
	return best, found
}

// ShareText spells a share of the model's ceiling as the verdicts do:
// "94%", "2.5%", "<0.1%".
func ShareText(x float64) string {
	switch {
	case x >= 0.1:
		return strconv.FormatFloat(math.Round(x*100), 'f', 0, 64) + "%"
	case x >= 0.001:
		return strconv.FormatFloat(x*100, 'f', 1, 64) + "%"
	}
	return "<0.1%"
}

// hostStaged reports whether the path copies through host memory (the
// registry's Path.HostStaged).
func hostStaged(name string) bool {
	p, err := model.LookupPath(name)
	return err == nil && p.HostStaged
}

func verdictOf(s *model.Scenario, j *ImportedVerdict, nccl *NCCLPath) string {
	q := j.Series.Quantity
	p, ok := representative(j.Points, q)
	if !ok {
		for _, jp := range j.Points {
			if strings.HasPrefix(jp.Bound, "infeasible") {
				return "not compared: the " + j.Path + " path is " + jp.Bound + "."
			}
		}
		return "not compared: no point with a value and a model."
	}
	what := "what this link and this path allow"
	if strings.HasPrefix(j.Path, "copy ") {
		what = "what this GPU's PCIe link allows for the copy"
	}
	at := p.At.Human()
	if p.Bytes < 1 {
		at += " (the output does not give the size)"
	}
	quoted := fmt.Sprintf("%s at %s; model of %s: %s", j.ValueText(p.Measured), at, pathLabel(j), j.ValueText(p.Ceiling))
	bound := ""
	if p.Bound != "" {
		bound = ", bound by " + p.Bound
	}
	nicRate := s.NIC.Rate.Gbits()
	// The traffic took a host-staged path where GPUDirect RDMA was
	// possible: blame the path only where the model says it costs (its
	// ceiling is lower than the fastest path's), with the log's line.
	logRef := ""
	if nccl != nil && nccl.Line > 0 && strings.HasPrefix(j.PathWhy, "NCCL") {
		logRef = fmt.Sprintf(" (the %s path, as NCCL's log line %d says)", j.Path, nccl.Line)
	}
	bestRaises := false // the fastest path would allow more than the one taken
	if j.Best != "" && hostStaged(j.Path) && q == record.Bandwidth {
		bp := judgePoint(s, &j.Series, j.Best, j.Factor, p.Point, nil)
		bestRaises = bp.Ceiling > 0 && p.Ceiling < 0.9*bp.Ceiling
		if bestRaises && logRef != "" {
			return fmt.Sprintf("at %s of what this link allows on the %s path: the traffic took the host-staged %s path, see NCCL's log line %d (it reaches %s of what the %s path allows%s; %s).",
				ShareText(bp.Share), j.Best, j.Path, nccl.Line, ShareText(p.Share), j.Path, bound, quoted)
		}
		if bp.Ceiling > 0 && !bestRaises {
			bound += fmt.Sprintf("; the %s path would not raise the ceiling at this size", j.Best)
		}
	}
	what += logRef
	switch {
	case p.Share > 1.1 && q != record.Bandwidth:
		return fmt.Sprintf("at %s of %s: faster than the model — the scenario's network is longer or slower than what ran (check network.hops, network.cable, nic.latency, the preset) (%s).", ShareText(p.Share), what, quoted)
	case p.Share > 1.1:
		return fmt.Sprintf("at %s of %s: faster than the model — the scenario's hardware is slower than what ran (check nic.rate, gpu.pcie, the preset), or the traffic did not take the %s path (%s).", ShareText(p.Share), what, pathLabel(j), quoted)
	case p.Share >= 0.8:
		return fmt.Sprintf("at %s of %s (%s%s).", ShareText(p.Share), what, quoted, bound)
	case p.Share >= 0.5:
		why := "at this size per-message costs dominate (posting, completions, synchronisation), beyond the ones the model counts"
		switch {
		case strings.HasPrefix(j.Path, "copy "):
			why = "a copy's gap is the copy engine's and the PCIe link's efficiency beyond what the model counts, pageable host memory, or a GPU behind a switch or on the far socket"
		case p.At >= 64<<10:
			why = fmt.Sprintf("at this size the gap is streaming efficiency the model does not count — a NIC slower than the scenario's %s, contention, or the tool's own overheads", nicRate)
		}
		return fmt.Sprintf("at %s of %s: short of the ceiling%s (%s); %s.", ShareText(p.Share), what, bound, quoted, why)
	}
	hint := "the gap is larger than the path explains: look at the link's rate and width, the GPU–NIC placement, and whether the traffic took this path at all"
	switch {
	case hostStaged(j.Path) && bestRaises:
		hint = "the traffic took the host-staged " + j.Path + " path; GPUDirect RDMA (" + j.Best + ") would avoid the copies"
	case q == record.Bandwidth && !strings.HasPrefix(j.Path, "copy "):
		hint = fmt.Sprintf("the gap is larger than the path explains: look at the NIC's real rate (the scenario's is %s), the GPU–NIC placement, and whether the traffic took this path at all", nicRate)
	}
	return fmt.Sprintf("at %s of %s%s: %s (%s).", ShareText(p.Share), what, bound, hint, quoted)
}

func pathLabel(j *ImportedVerdict) string {
	l := j.Path
	if j.Factor != 1 {
		l = fmt.Sprintf("%s × %g", l, j.Factor)
	}
	return l
}
