package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// Imported is a run directory written by gpupath import: other tools'
// outputs, for the section "Imported measurements", which puts every series
// beside the model of the path it took — on the hardware the output names —
// and says how much of that ceiling it reaches.
type Imported struct {
	// Source is the run directory.
	Source string
	Files  []ImportedFile
	// Hardware is what the inventory files of the run (ibstat,
	// ibv_devinfo, nvidia-smi topo -m) say; it applies to every file.
	Hardware Hardware
}

// ImportedFile is one imported file.
type ImportedFile struct {
	File                string
	Tool, Version, Test string
	Command             string
	Hardware            Hardware
	// NCCL is what an NCCL log in the file says about the path, or nil.
	NCCL   *NCCLPath
	Series []ImportedSeries
	// Failures are errors the tool itself printed; Problems lines that
	// could not be read (file:line: reason); Notes what else the import
	// noted.
	Failures, Problems, Notes []string
}

// Hardware is what an output says about the machines. Sources say where
// ("moc.txt line 4").
type Hardware struct {
	Hosts                     []string
	GPUs                      []string
	GPUSource                 string
	NICs                      []NIC
	GPUNIC, GPUNICSource      string
	Ranks, Nodes, GPUsPerNode int
	MemoryGPU                 bool
}

// NIC is a network adapter an output names.
type NIC struct {
	Name, LinkLayer, State string
	RateBps                float64 // bits per second; 0 when not said
	Source                 string
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

// ImportedSeries is one measured curve of a file: a test and variant.
type ImportedSeries struct {
	Label             string
	Test, Op, Variant string
	// Quantity is Latency or Bandwidth.
	Quantity
	// Path is the model path the output says it measured ("" when it does
	// not say); Stage the copy stage ("A" device to host, "G" host to
	// device) of a copy benchmark.
	Path, Stage string
	// RoundTrip marks latencies of a whole round trip (ib_read_lat);
	// Bidirectional rates that add both directions (osu_bibw, -b).
	RoundTrip, Bidirectional bool
	// Streams is the number of parallel TCP streams (iperf3 -P), 0 when
	// not said.
	Streams int
	// Collective is set for nccl-tests.
	Collective *Collective
	Points     []ImportedPoint
}

// Collective describes an nccl-tests series: the collective, how many ranks
// on how many nodes, and busbw's factor.
type Collective struct {
	Op                        string
	Ranks, Nodes, GPUsPerNode int
	Factor                    float64
	Formula                   string
}

// ImportedPoint is one record: a size, the time per message, the rate
// (algbw for nccl-tests) and busbw, the line it came from.
type ImportedPoint struct {
	Bytes               units.Bytes
	Time, Rate, BusRate float64
	Target              string
	Line                int
	BytesNote           string
}

// judgedPoint is a point against its model.
type judgedPoint struct {
	ImportedPoint
	measured, ceiling, share float64
	bound                    string
	at                       units.Bytes // the size the model was evaluated at
}

// judged is a series against the model of its path.
type judged struct {
	s         ImportedSeries
	path      string // the model path it is compared with
	pathWhy   string
	best      string // the fastest path between nodes the scenario allows, when not path
	factor    float64
	factorWhy string
	points    []judgedPoint
	none      string // why there is no model to compare with
	verdict   string
}

// gpuPaths and hostPaths are the paths between nodes an unknown series is
// compared with, in order of preference for "the fastest".
var (
	gpuPaths  = []string{"gdr", "rdma", "devmem", "tcp"}
	hostPaths = []string{"host-rdma", "host-tcp"}
)

// importedSections adds the sections of imported runs and of a two-run
// comparison, before "Model against measurement".
func (b *builder) importedSections(d *doc) {
	var add []*section
	if len(b.in.Imported) > 0 {
		sec := &section{ID: "imported", Title: "Imported measurements"}
		b.imported(sec)
		add = append(add, sec)
	}
	if b.in.Compare != nil {
		sec := &section{ID: "compare", Title: "Two runs compared"}
		b.compare(sec, b.in.Compare)
		add = append(add, sec)
	}
	if len(add) == 0 {
		return
	}
	at := len(d.Sections)
	for i, s := range d.Sections {
		if s.ID == "calibration" {
			at = i
			break
		}
	}
	d.Sections = append(d.Sections[:at], append(add, d.Sections[at:]...)...)
}

func (b *builder) imported(sec *section) {
	sec.text("Outputs of other tools, imported with gpupath import. Each series is drawn beside the model of the path it took, on the hardware the output names (the GPU, the NIC's link layer and rate, the GPU–NIC distance) where it names it, and on scenario " + b.in.Scenario.Name + " for the rest. The share is the measured value over the model's ceiling (for a latency, the model's floor over the measured value): what the hardware and that path allow. The verdict says what the numbers mean and where to look.")
	n := 0
	for ri, run := range b.in.Imported {
		sec.h3(fmt.Sprintf("Imported run %d: %s", ri+1, run.Source))
		for _, f := range run.Files {
			n++
			b.importedFile(sec, run, f, n)
		}
	}
}

func (b *builder) importedFile(sec *section, run Imported, f ImportedFile, n int) {
	title := f.File + " — " + f.Tool
	if f.Version != "" {
		title += " " + f.Version
	}
	if f.Test != "" && f.Test != f.Tool {
		title += ": " + f.Test
	}
	sec.h3(title)
	hw := mergeHardware(f.Hardware, run.Hardware)
	if says := hardwareLine(hw); says != "" {
		sec.text("The output names: " + says + ".")
	}
	if f.Command != "" {
		sec.text("Command line: " + f.Command)
	}
	s, sets, agrees, refused := hardwareScenario(b.in.Scenario, hw)
	if len(f.Series) > 0 {
		line := "Modeled on scenario " + scenarioName(b.in.Scenario)
		if len(sets) > 0 {
			line += " with the hardware the output names: " + strings.Join(sets, "; ")
		} else {
			line += " as given"
		}
		if len(agrees) > 0 {
			line += "; the output agrees with it on " + strings.Join(agrees, ", ")
		}
		sec.text(line + ".")
		if !hasRate(hw.NICs) && usesNetwork(f.Series) {
			sec.note("The NIC's rate is the scenario's " + nicRateText(s) + ": the output does not say the port rate. Import ibstat or ibv_devinfo output of the same hosts with it, or give --set nic.rate=…, for the model of this NIC.")
		}
	}
	if len(refused) > 0 {
		sec.note("Hardware the scenario does not take: " + strings.Join(refused, "; ") + ".")
	}
	if f.NCCL != nil && f.NCCL.Verdict != "" {
		sec.text("NCCL's log: " + f.NCCL.Verdict)
	}
	if len(f.Failures) > 0 {
		sec.note(f.Tool + " reported a failure: " + strings.Join(f.Failures, "; ") + ". The records printed before it are kept.")
	}
	if len(f.Problems) > 0 {
		items := f.Problems
		if len(items) > 10 {
			items = append(append([]string(nil), items[:10]...), fmt.Sprintf("… and %d more", len(f.Problems)-10))
		}
		sec.p("Lines that could not be read (%d):", len(f.Problems))
		sec.list(items)
	}
	if len(f.Series) == 0 {
		if len(f.Failures) == 0 {
			sec.text("No measurements in this file (it describes hardware, or holds no result table).")
		}
		return
	}
	var js []judged
	for _, se := range f.Series {
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
		j := judge(ss, se, f, hw)
		if ss != s {
			j.pathWhy += fmt.Sprintf("; with stack.flows=%d, the run's parallel streams", se.Streams)
		}
		js = append(js, j)
	}
	// One figure and table per test and quantity.
	type key struct {
		test string
		q    Quantity
	}
	var order []key
	groups := map[key][]judged{}
	for _, j := range js {
		k := key{j.s.Test, j.s.Quantity}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], j)
	}
	origin := fmt.Sprintf("measured by %s (%s, imported into %s); model: scenario %s", f.Tool, f.File, run.Source, scenarioName(b.in.Scenario))
	if len(sets) > 0 {
		origin += " with the output's hardware"
	}
	for gi, k := range order {
		g := groups[k]
		b.importedFigure(sec, s, f, g, fmt.Sprintf("imported-%d-%d", n, gi+1), origin)
		sec.table(importedTable(g))
		var items []string
		for _, j := range g {
			items = append(items, j.s.Label+": "+j.verdict)
		}
		sec.list(items)
		if c := g[0].s.Collective; c != nil {
			sec.text(collectiveText(g[0]))
		}
	}
	if len(f.Notes) > 0 {
		notes := f.Notes
		if len(notes) > 6 {
			notes = append(append([]string(nil), notes[:6]...), fmt.Sprintf("… and %d more", len(f.Notes)-6))
		}
		sec.p("Notes of the import:")
		sec.list(notes)
	}
}

// mergeHardware adds the run's inventory to a file's hardware where the
// file says nothing.
func mergeHardware(f, run Hardware) Hardware {
	if len(f.NICs) == 0 || !hasRate(f.NICs) {
		f.NICs = append(f.NICs, run.NICs...)
	}
	if f.GPUNIC == "" {
		f.GPUNIC, f.GPUNICSource = run.GPUNIC, run.GPUNICSource
	}
	if len(f.GPUs) == 0 {
		f.GPUs, f.GPUSource = run.GPUs, run.GPUSource
	}
	return f
}

// usablePoints drops points whose values are not finite and non-negative
// (Render's input is not checked elsewhere for imported runs: the importer
// never produces them, a caller might).
func usablePoints(ps []ImportedPoint) []ImportedPoint {
	var out []ImportedPoint
	for _, p := range ps {
		ok := p.Bytes >= 0
		for _, v := range []float64{p.Time, p.Rate, p.BusRate} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				ok = false
			}
		}
		if ok {
			out = append(out, p)
		}
	}
	return out
}

// usesNetwork tells whether a series goes between nodes (so the NIC's
// rate matters): not a copy, not inside a node.
func usesNetwork(ss []ImportedSeries) bool {
	for _, s := range ss {
		if s.Stage == "" && s.Path != "gpu-peer" && (s.Collective == nil || s.Collective.Nodes != 1) {
			return true
		}
	}
	return false
}

func hasRate(ns []NIC) bool {
	for _, n := range ns {
		if n.RateBps > 0 {
			return true
		}
	}
	return false
}

func hardwareLine(hw Hardware) string {
	var parts []string
	if len(hw.Hosts) > 0 {
		hs := hw.Hosts
		if len(hs) > 4 {
			hs = append(append([]string(nil), hs[:4]...), fmt.Sprintf("… (%d in all)", len(hw.Hosts)))
		}
		parts = append(parts, "host(s) "+strings.Join(hs, ", "))
	}
	if len(hw.GPUs) > 0 {
		parts = append(parts, fmt.Sprintf("%d× %s", len(hw.GPUs), hw.GPUs[0]))
	}
	if hw.Ranks > 0 {
		s := fmt.Sprintf("%d ranks", hw.Ranks)
		if hw.Nodes > 0 {
			s += fmt.Sprintf(" on %d node(s)", hw.Nodes)
		}
		parts = append(parts, s)
	}
	var nics []string
	for i, n := range hw.NICs {
		if i == 4 {
			nics = append(nics, fmt.Sprintf("… (%d in all)", len(hw.NICs)))
			break
		}
		s := n.Name
		var d []string
		if n.LinkLayer != "" {
			d = append(d, n.LinkLayer)
		}
		if n.RateBps > 0 {
			d = append(d, fmt.Sprintf("%g Gbit/s", n.RateBps/1e9))
		}
		if n.State != "" {
			d = append(d, n.State)
		}
		if len(d) > 0 {
			s += " (" + strings.Join(d, ", ") + ")"
		}
		nics = append(nics, s)
	}
	if len(nics) > 0 {
		parts = append(parts, "NIC "+strings.Join(nics, ", "))
	}
	if hw.GPUNIC != "" {
		parts = append(parts, "GPU–NIC "+hw.GPUNIC)
	}
	return strings.Join(parts, "; ")
}

// judge compares a series with the model of its path.
func judge(s *model.Scenario, se ImportedSeries, f ImportedFile, hw Hardware) judged {
	j := judged{s: se, factor: 1}
	switch {
	case se.Stage != "":
		j.path, j.pathWhy = "copy "+se.Stage, "a copy between host and GPU memory: the model's copy stage"
	case se.Path != "":
		j.path, j.pathWhy = se.Path, "as the output says"
		if se.Path == "gdr" {
			j.pathWhy = "the run used GPU memory"
		}
		// nccl-tests: the log says which path the traffic took.
		if f.NCCL != nil && se.Collective != nil && f.NCCL.Path != "" && f.NCCL.Path != "mixed" {
			j.path, j.pathWhy = f.NCCL.Path, fmt.Sprintf("NCCL's log, line %d", f.NCCL.Line)
		}
	case se.Collective != nil && f.NCCL != nil && f.NCCL.Path != "" && f.NCCL.Path != "mixed" && f.NCCL.Path != "collnet":
		j.path, j.pathWhy = f.NCCL.Path, fmt.Sprintf("NCCL's log, line %d", f.NCCL.Line)
	case se.Collective != nil && se.Collective.Nodes == 1:
		j.path, j.pathWhy = "gpu-peer", "all ranks on one node"
	case strings.Contains(strings.ToLower(se.Variant), "udp") || strings.Contains(strings.ToLower(se.Test), "udp"):
		j.none = "the model has no UDP path"
	default:
		cands, what := hostPaths, "host"
		if hw.MemoryGPU || se.Collective != nil {
			cands, what = gpuPaths, "GPU"
		}
		j.path = bestPath(s, cands)
		j.pathWhy = fmt.Sprintf("the output does not say which path; compared with the fastest %s path the scenario allows", what)
		if j.path == "" {
			j.none = "no " + what + " path between nodes is feasible in the scenario"
		}
	}
	// The fastest GPU path, to say what a host-staged path costs.
	if se.Collective != nil && j.path != "gpu-peer" {
		if b := bestPath(s, gpuPaths); b != "" && b != j.path {
			j.best = b
		}
	}
	if c := se.Collective; c != nil && se.Quantity == Bandwidth {
		j.factor, j.factorWhy = busCeilingFactor(c, hw, f, j.path)
	}
	if se.Bidirectional {
		j.factor, j.factorWhy = 2*j.factor, "both directions at once"
	}
	if j.none != "" {
		j.verdict = "not compared: " + j.none + "."
		return j
	}
	for _, pt := range se.Points {
		j.points = append(j.points, judgePoint(s, j, pt))
	}
	j.verdict = verdictOf(s, &j, f)
	return j
}

// busCeilingFactor is how many times one path's bandwidth busbw can reach:
// a ring collective between nodes carries each rank's share over the NICs
// of a node in parallel, so busbw is bounded by the NICs per node times one
// NIC's path (one NIC per GPU when the output does not list them);
// sendrecv crosses between nodes on one pair of NICs.
func busCeilingFactor(c *Collective, hw Hardware, f ImportedFile, path string) (float64, string) {
	if path == "gpu-peer" || c.Nodes == 1 {
		return 1, "one GPU's peer links"
	}
	switch c.Op {
	case "sendrecv", "hypercube":
		return 1, "one pair of NICs between the nodes"
	case "alltoall", "alltoallv":
		return 1, "one NIC's path (all-to-all: the share between nodes is not modeled)"
	}
	nics := 0
	if f.NCCL != nil {
		nics = len(f.NCCL.NICs)
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

func judgePoint(s *model.Scenario, j judged, pt ImportedPoint) judgedPoint {
	jp := judgedPoint{ImportedPoint: pt, at: pt.Bytes}
	if jp.at < 1 {
		jp.at = smallRef
		if j.s.Quantity == Bandwidth {
			jp.at = bigRef
		}
	}
	var m modeled
	if strings.HasPrefix(j.path, "copy ") {
		m = evalCopy(s, strings.TrimPrefix(j.path, "copy "), int64(jp.at))
	} else {
		m = evalPath(s, j.path, int64(jp.at))
	}
	if !m.Feasible {
		jp.bound = "infeasible: " + m.Reason
		return jp
	}
	if j.s.Quantity == Bandwidth {
		jp.measured = pt.Rate
		if j.s.Collective != nil && pt.BusRate > 0 {
			jp.measured = pt.BusRate
		}
		jp.ceiling = m.Rate * j.factor
		jp.bound = m.RateBound
		if jp.ceiling > 0 {
			jp.share = jp.measured / jp.ceiling
		}
		return jp
	}
	jp.measured = pt.Time
	jp.ceiling = m.Latency
	if j.s.RoundTrip {
		jp.ceiling *= 2
	}
	jp.bound = m.LatencyBound
	if jp.measured > 0 {
		jp.share = jp.ceiling / jp.measured
	}
	return jp
}

// representative is the point a verdict quotes: the largest message for a
// bandwidth (the streaming regime), the smallest for a latency.
func representative(ps []judgedPoint, q Quantity) (judgedPoint, bool) {
	var best judgedPoint
	found := false
	for _, p := range ps {
		if p.ceiling <= 0 || p.measured <= 0 {
			continue
		}
		if !found || q == Bandwidth && p.at > best.at || q != Bandwidth && p.at < best.at {
			best, found = p, true
		}
	}
	return best, found
}

func sharePct(x float64) string {
	switch {
	case x >= 0.1:
		return strconv.FormatFloat(math.Round(x*100), 'f', 0, 64) + "%"
	case x >= 0.001:
		return strconv.FormatFloat(x*100, 'f', 1, 64) + "%"
	}
	return "<0.1%"
}

// hostStaged are the paths that copy through host memory.
var hostStaged = map[string]bool{"rdma": true, "tcp": true, "host-tcp": true, "host-rdma": true}

func verdictOf(s *model.Scenario, j *judged, f ImportedFile) string {
	p, ok := representative(j.points, j.s.Quantity)
	if !ok {
		for _, jp := range j.points {
			if strings.HasPrefix(jp.bound, "infeasible") {
				return "not compared: the " + j.path + " path is " + jp.bound + "."
			}
		}
		return "not compared: no point with a value and a model."
	}
	what := "what this link and this path allow"
	if strings.HasPrefix(j.path, "copy ") {
		what = "what this GPU's PCIe link allows for the copy"
	}
	at := bytesText(int64(p.at))
	if p.Bytes < 1 {
		at += " (the output does not give the size)"
	}
	quoted := fmt.Sprintf("%s at %s; model of %s: %s", measuredText(j, p.measured), at, pathLabel(j), measuredText(j, p.ceiling))
	bound := ""
	if p.bound != "" {
		bound = ", bound by " + p.bound
	}
	// The traffic took a host-staged path where GPUDirect RDMA was
	// possible: blame the path only where the model says it costs (its
	// ceiling is lower than the fastest path's), with the log's line.
	logRef := ""
	if f.NCCL != nil && f.NCCL.Line > 0 && strings.HasPrefix(j.pathWhy, "NCCL") {
		logRef = fmt.Sprintf(" (the %s path, as NCCL's log line %d says)", j.path, f.NCCL.Line)
	}
	bestRaises := false // the fastest path would allow more than the one taken
	if j.best != "" && hostStaged[j.path] && j.s.Quantity == Bandwidth {
		bp := judgePoint(s, judged{s: j.s, path: j.best, factor: j.factor}, p.ImportedPoint)
		bestRaises = bp.ceiling > 0 && p.ceiling < 0.9*bp.ceiling
		if bestRaises && logRef != "" {
			return fmt.Sprintf("at %s of what this link allows on the %s path: the traffic took the host-staged %s path, see NCCL's log line %d (it reaches %s of what the %s path allows%s; %s).",
				sharePct(bp.share), j.best, j.path, f.NCCL.Line, sharePct(p.share), j.path, bound, quoted)
		}
		if bp.ceiling > 0 && !bestRaises {
			bound += fmt.Sprintf("; the %s path would not raise the ceiling at this size", j.best)
		}
	}
	what += logRef
	switch {
	case p.share > 1.1 && j.s.Quantity != Bandwidth:
		return fmt.Sprintf("at %s of %s: faster than the model — the scenario's network is longer or slower than what ran (check network.hops, network.cable, nic.latency, the preset) (%s).", sharePct(p.share), what, quoted)
	case p.share > 1.1:
		return fmt.Sprintf("at %s of %s: faster than the model — the scenario's hardware is slower than what ran (check nic.rate, gpu.pcie, the preset), or the traffic did not take the %s path (%s).", sharePct(p.share), what, pathLabel(j), quoted)
	case p.share >= 0.8:
		return fmt.Sprintf("at %s of %s (%s%s).", sharePct(p.share), what, quoted, bound)
	case p.share >= 0.5:
		why := "at this size per-message costs dominate (posting, completions, synchronisation), beyond the ones the model counts"
		switch {
		case strings.HasPrefix(j.path, "copy "):
			why = "a copy's gap is the copy engine's and the PCIe link's efficiency beyond what the model counts, pageable host memory, or a GPU behind a switch or on the far socket"
		case p.at >= 64<<10:
			why = fmt.Sprintf("at this size the gap is streaming efficiency the model does not count — a NIC slower than the scenario's %s, contention, or the tool's own overheads", nicRateText(s))
		}
		return fmt.Sprintf("at %s of %s: short of the ceiling%s (%s); %s.", sharePct(p.share), what, bound, quoted, why)
	}
	hint := "the gap is larger than the path explains: look at the link's rate and width, the GPU–NIC placement, and whether the traffic took this path at all"
	switch {
	case hostStaged[j.path] && bestRaises:
		hint = "the traffic took the host-staged " + j.path + " path; GPUDirect RDMA (" + j.best + ") would avoid the copies"
	case j.s.Quantity == Bandwidth && !strings.HasPrefix(j.path, "copy "):
		hint = fmt.Sprintf("the gap is larger than the path explains: look at the NIC's real rate (the scenario's is %s), the GPU–NIC placement, and whether the traffic took this path at all", nicRateText(s))
	}
	return fmt.Sprintf("at %s of %s%s: %s (%s).", sharePct(p.share), what, bound, hint, quoted)
}

func pathLabel(j *judged) string {
	l := j.path
	if j.factor != 1 {
		l = fmt.Sprintf("%s × %g", l, j.factor)
	}
	return l
}

func measuredText(j *judged, v float64) string {
	if j.s.Quantity == Bandwidth {
		return rateText(v)
	}
	return secondsText(v)
}

// collectiveText explains algbw and busbw for an nccl-tests series.
func collectiveText(j judged) string {
	c := j.s.Collective
	var b strings.Builder
	fmt.Fprintf(&b, "algbw is the message size over the time (what the application sees); busbw = algbw × a factor that makes collectives comparable with the hardware's bandwidth (nccl-tests' PERFORMANCE.md): ")
	switch {
	case c.Factor > 0 && c.Ranks > 0:
		fmt.Fprintf(&b, "for %s on %d ranks the factor is %s = %.4g.", c.Op, c.Ranks, c.Formula, c.Factor)
	case c.Op != "":
		fmt.Fprintf(&b, "for %s it is %s; the output does not say how many ranks ran.", c.Op, map[string]string{
			"allreduce": "2(n−1)/n", "allgather": "(n−1)/n", "reducescatter": "(n−1)/n", "alltoall": "(n−1)/n",
			"broadcast": "1", "reduce": "1", "sendrecv": "1"}[c.Op])
	default:
		b.WriteString("the output does not say which collective ran.")
	}
	if j.factorWhy != "" && j.s.Quantity == Bandwidth {
		fmt.Fprintf(&b, " The share compares busbw with %s × %g: %s.", j.path, j.factor, j.factorWhy)
	}
	return b.String()
}

// importedTable lists the points of a group against the model, at most
// six sizes per series (the smallest, the largest and evenly between).
func importedTable(g []judged) *docTable {
	q := g[0].s.Quantity
	coll := g[0].s.Collective != nil
	t := &docTable{Caption: "Measured against the model of the path each series took (" + pathList(g) + ").",
		Head:   []string{"series", "size", "measured", "model", "share", "bound by", "line"},
		Widths: []float64{2, 0.8, 1, 1, 0.6, 2.2, 0.5},
		Right:  []bool{false, true, true, true, true, false, true}}
	if coll && q == Bandwidth {
		t.Head = []string{"series", "size", "time", "algbw", "busbw", "busbw ceiling", "share", "bound by", "line"}
		t.Widths = []float64{1.4, 0.8, 0.8, 0.8, 0.8, 0.9, 0.6, 1.9, 0.5}
		t.Right = []bool{false, true, true, true, true, true, true, false, true}
	}
	for _, j := range g {
		if j.none != "" {
			t.Rows = append(t.Rows, []cell{c(j.s.Label), c("—"), c("—"), c("—"), c("—"), c(j.none), c("")})
			if coll && q == Bandwidth {
				t.Rows[len(t.Rows)-1] = append(t.Rows[len(t.Rows)-1], c(""), c(""))
			}
			continue
		}
		for _, p := range pick(j.points, 6) {
			label := j.s.Variant // the caption and the figure name the test
			if label == "" {
				label = j.s.Test
			}
			if p.Target != "" && !strings.Contains(label, p.Target) {
				label += " " + p.Target
			}
			size := "—"
			if p.Bytes >= 1 {
				size = p.Bytes.Human()
			}
			share, model := "—", "—"
			if p.ceiling > 0 {
				model, share = measuredText(&j, p.ceiling), sharePct(p.share)
			}
			line := strconv.Itoa(p.Line)
			if coll && q == Bandwidth {
				t.Rows = append(t.Rows, []cell{c(label), c(size), c(secondsText(p.Time)), c(rateText(p.Rate)), c(rateText(p.BusRate)), c(model), c(share), c(p.bound), c(line)})
				continue
			}
			t.Rows = append(t.Rows, []cell{c(label), c(size), c(measuredText(&j, p.measured)), c(model), c(share), c(p.bound), c(line)})
		}
	}
	return t
}

func pathList(g []judged) string {
	var ps []string
	seen := map[string]bool{}
	for _, j := range g {
		p := j.path
		if p == "" {
			continue
		}
		if j.pathWhy != "" {
			p += ": " + j.pathWhy
		}
		if !seen[p] {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, "; ")
}

// pick keeps at most n points, spread over the sizes, the first and last included.
func pick(ps []judgedPoint, n int) []judgedPoint {
	if len(ps) <= n {
		return ps
	}
	out := make([]judgedPoint, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, ps[i*(len(ps)-1)/(n-1)])
	}
	return out
}

// importedFigure draws a group: the measured points and the model's
// ceiling of each path over the measured sizes.
func (b *builder) importedFigure(sec *section, s *model.Scenario, f ImportedFile, g []judged, id, origin string) {
	q := g[0].s.Quantity
	title := g[0].s.Test + ": bandwidth against the model"
	switch {
	case q != Bandwidth:
		title = g[0].s.Test + ": latency against the model"
	case g[0].s.Collective != nil:
		title = g[0].s.Test + ": busbw against the model"
	}
	in := plots.CeilingInput{Latency: q != Bandwidth, Title: title}
	if g[0].s.RoundTrip {
		in.YLabel = "round-trip latency"
	}
	lo, hi := units.Bytes(math.MaxInt64), units.Bytes(0)
	for _, j := range g {
		for _, p := range j.points {
			lo, hi = min(lo, p.at), max(hi, p.at)
		}
	}
	if hi == 0 {
		return
	}
	modelDone := map[string]bool{}
	for _, j := range g {
		var ms plots.CeilingSeries
		ms.Label, ms.Path = "measured: "+j.s.Label, plotPath(j.path)
		if j.s.Collective != nil && q == Bandwidth {
			ms.Label = "measured busbw: " + j.s.Variant
		}
		for _, p := range j.points {
			if p.measured > 0 {
				ms.Bytes, ms.Values = append(ms.Bytes, float64(p.at)), append(ms.Values, p.measured)
			}
		}
		if len(ms.Bytes) > 0 {
			in.Series = append(in.Series, ms)
		}
		for _, path := range []string{j.path, j.best} {
			k := fmt.Sprintf("%s×%g", path, j.factor)
			if path == "" || modelDone[k] || j.none != "" {
				continue
			}
			modelDone[k] = true
			line := plots.CeilingSeries{Model: true, Path: plotPath(path), Dashed: path == j.best, Label: "model: " + path}
			if j.factor != 1 {
				line.Label += fmt.Sprintf(" × %g", j.factor)
			}
			if path == j.best {
				line.Label += " (the fastest path here)"
			}
			for n := max(lo/2, 1); n <= hi*2; n *= 2 {
				jp := judgePoint(s, judged{s: j.s, path: path, factor: j.factor}, ImportedPoint{Bytes: n})
				if jp.ceiling > 0 {
					line.Bytes, line.Values = append(line.Bytes, float64(n)), append(line.Values, jp.ceiling)
				}
			}
			if len(line.Bytes) > 0 {
				in.Series = append(in.Series, line)
			}
		}
	}
	p, data, err := plots.Ceiling(in)
	if err != nil {
		sec.note(fmt.Sprintf("No figure for %s: %v.", g[0].s.Test, strings.TrimPrefix(err.Error(), "plots: ")))
		return
	}
	what := "Measured bandwidth (points) against the model's streaming bandwidth of the path (lines), by message size."
	switch {
	case q != Bandwidth && g[0].s.RoundTrip:
		what = "Measured round-trip latency (points) against twice the model's one-way latency of the path (lines), by message size."
	case q != Bandwidth:
		what = "Measured one-way latency (points) against the model's latency of the path (lines), by message size."
	}
	if g[0].s.Collective != nil && q == Bandwidth {
		what = "Measured busbw (points) against what the path allows for busbw (lines: one NIC's path times the NICs that carry the collective in parallel), by message size."
	}
	b.fig(sec, &figure{ID: id, Title: in.Title, Kind: "modeled and measured", Origin: origin, Caption: what, Draw: p, Data: data,
		W: figW, H: vg.Length(270)})
}

// plotPath is the path whose style a curve takes.
func plotPath(p string) string {
	if strings.HasPrefix(p, "copy ") {
		return "rdma"
	}
	return p
}
