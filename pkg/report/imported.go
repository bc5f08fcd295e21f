package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Imported is a run directory written by gpupath import: other tools'
// outputs, for the section "Imported measurements", which puts every series
// beside the model of the path it took — on the hardware the output names —
// and says how much of that ceiling it reaches. FromImported makes it, with
// the verdicts; the report renders them.
type Imported struct {
	// Source is the run directory.
	Source string
	Files  []ImportedFile
	// Hardware is what the inventory files of the run (ibstat,
	// ibv_devinfo, nvidia-smi topo -m) that name no host, or several, say;
	// it applies to every file. ByHost is what those of one host say: it
	// applies to that host's files first.
	Hardware Hardware
	ByHost   map[string]Hardware
	// Hosts are the hosts the run's files name, each with its files, where
	// there are more than one (the run's manifest keeps them apart).
	Hosts []ImportedHost
}

// ImportedHost is one host of an imported run: its files (those of it
// alone), their tools and records, and the hardware its files name.
type ImportedHost struct {
	Name         string
	Files, Tools []string
	Records      int
	Shared       int // files of several hosts that name it
	Hardware     Hardware
}

// ImportedFile is one imported file.
type ImportedFile struct {
	File string
	// SHA256 is the file's content hash as imported ("" for runs imported
	// before it was kept).
	SHA256              string
	Tool, Version, Test string
	Command             string
	Hardware            Hardware
	// NCCL is what an NCCL log in the file says about the path, or nil.
	NCCL   *calib.NCCLPath
	Series []calib.ImportedSeries
	// Failures are errors the tool itself printed; Problems lines that
	// could not be read (file:line: reason); Notes what else the import
	// noted.
	Failures, Problems, Notes []string
	// Model is the file against the model (FromImported judges it); a file
	// with series needs one to be rendered.
	Model *ImportedModel
}

// ImportedModel is an imported file against the model: the scenario with
// the hardware the file and its run's inventory files name, and the file's
// series judged on it (calib.JudgeImported).
type ImportedModel struct {
	// Hardware is the file's, with the run's inventory where the file says
	// nothing.
	Hardware Hardware
	// Scenario is the report's scenario with the keys the hardware names
	// set: Sets says which, with their sources; Agrees the keys the
	// hardware confirms; Refused those the scenario does not take.
	Scenario              *model.Scenario
	Sets, Agrees, Refused []string
	// Groups are the verdicts, one group per test and quantity.
	Groups []calib.ImportedGroup
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
	// Inline is the test's inline size where the output says it; nil
	// when it does not.
	Inline       *int64
	InlineSource string
}

// NIC is a network adapter an output names.
type NIC struct {
	Name, LinkLayer, State string
	RateBps                float64 // bits per second; 0 when not said
	Source                 string
}

func (b *builder) imported(sec *section) {
	sec.text("Outputs of other tools, imported with gpupath import. Each series is drawn beside the model of the path it took, on the hardware the output names (the GPU, the NIC's link layer and rate, the GPU–NIC distance) where it names it, and on scenario " + b.in.Scenario.Name + " for the rest. The share is the measured value over the model's ceiling (for a latency, the model's floor over the measured value): what the hardware and that path allow. The verdict says what the numbers mean and where to look.")
	n := 0
	for ri, run := range b.in.Imported {
		sec.h3(fmt.Sprintf("Imported run %d: %s", ri+1, run.Source))
		importedHosts(sec, run)
		for _, f := range run.Files {
			n++
			b.importedFile(sec, run, f, n)
		}
	}
	if ic := b.in.ImportedCalibration; ic != nil {
		b.importedCalibration(sec, ic)
	}
}

// importedHosts lists the hosts of a run of several: each with its own
// files, their tools and records, and its hardware, so that a report of a
// cluster's outputs shows which host measured what.
func importedHosts(sec *section, run Imported) {
	if len(run.Hosts) < 2 {
		return
	}
	t := &docTable{Caption: fmt.Sprintf("The %d hosts the files name (each file below names its host)", len(run.Hosts)),
		Head: []string{"host", "files", "records", "tools", "hardware its files name"}, Widths: []float64{1.4, 0.5, 0.6, 1.4, 2.4}}
	for _, h := range run.Hosts {
		files := fmt.Sprint(len(h.Files))
		if h.Shared > 0 {
			files += fmt.Sprintf(" (+%d of several hosts)", h.Shared)
		}
		hw := h.Hardware
		hw.Hosts = nil
		t.Rows = append(t.Rows, []cell{c(h.Name), c(files), c(fmt.Sprint(h.Records)), c(strings.Join(h.Tools, ", ")), c(or(hardwareLine(hw), "—"))})
	}
	sec.table(t)
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// importedCalibration shows the model calibrated from the imported
// outputs beside the preset: the keys fitted with their intervals and
// sources, then the median error on the sizes no key was fitted on, per
// tool and per series, preset against calibrated.
func (b *builder) importedCalibration(sec *section, ic *calib.ImportedCalibration) {
	sec.h3("Calibrated from these outputs")
	sec.text("Each key below is fitted on every other size of the series it decides (a NIC's latency on messages up to 4 KiB, its rate from 1 MiB, NCCL's share of the network from 16 MiB), on the scenario each file is judged on; the sizes left out check the fit. gpupath fit --data RUN --out FILE writes the calibrated scenario.")
	if len(ic.Fits) == 0 {
		sec.note("No key was fitted: no series is on a path and in a size range a key decides.")
	} else {
		t := &docTable{Head: []string{"key", "preset", "fitted", "interval", "points", "median error on them"}, Widths: []float64{2.4, 0.8, 0.8, 1.4, 0.5, 1}}
		for _, f := range ic.Fits {
			interval := f.Interval()
			if f.AtBound {
				interval += " (at the end of the search)"
			}
			t.Rows = append(t.Rows, []cell{{Text: f.Key, Sub: strings.Join(f.Sources, "; ")}, c(f.Before), c(f.Value), {Text: interval, NoWrap: true},
				c(fmt.Sprint(f.Points)), c(units.Percent(f.ErrorBefore) + " → " + units.Percent(f.ErrorAfter))})
		}
		sec.table(t)
	}
	if len(ic.Checks) > 0 {
		t := &docTable{Caption: "The sizes left out: median |measured/modeled − 1|, preset against calibrated", Head: []string{"tool or series", "points", "preset", "calibrated"}, Widths: []float64{3, 0.5, 0.7, 0.7}}
		for _, k := range ic.Checks {
			t.Rows = append(t.Rows, []cell{c(k.Tool), c(fmt.Sprint(k.Points)), c(units.Percent(k.Preset)), c(units.Percent(k.Calibrated))})
		}
		for _, k := range ic.Series {
			t.Rows = append(t.Rows, []cell{{Text: "", Sub: k.Tool}, c(fmt.Sprint(k.Points)), c(units.Percent(k.Preset)), c(units.Percent(k.Calibrated))})
		}
		sec.table(t)
	}
	b.calibrationResiduals(sec, ic)
	if len(ic.Unused) > 0 {
		sec.p("Not used for the calibration (%d):", len(ic.Unused))
		sec.list(ic.Unused)
	}
}

// calibrationResiduals draws the check of the calibration, one figure per
// tool (CalibrationFigures).
func (b *builder) calibrationResiduals(sec *section, ic *calib.ImportedCalibration) {
	figs, notes := CalibrationFigures(ic, b.in.Scenario.Name)
	for _, n := range notes {
		sec.note(n)
	}
	for n, pf := range figs {
		b.fig(sec, fromPlots(pf, fmt.Sprintf("imported-calibration-%d", n+1), "modeled and measured", pf.Provenance))
	}
}

// CalibrationFigures are the figures of an imported calibration's check,
// one per tool: each series' error on the sizes left out, preset (scenario
// base with each file's hardware) against calibrated; and a note for a
// tool whose figure could not be drawn.
func CalibrationFigures(ic *calib.ImportedCalibration, base string) ([]*plots.Figure, []string) {
	var tools []string
	byTool := map[string][]plots.CalibrationSeries{}
	at := map[string]int{} // series → index in its tool's list
	for _, p := range ic.LeftOut {
		if _, ok := byTool[p.Tool]; !ok {
			tools = append(tools, p.Tool)
		}
		i, ok := at[p.Series]
		if !ok {
			i = len(byTool[p.Tool])
			at[p.Series] = i
			se := plots.CalibrationSeries{Label: p.Series, Name: p.Series, Path: plotPath(p.Path)}
			if _, label, ok := strings.Cut(p.Series, ": "); ok && !slices.ContainsFunc(ic.LeftOut, func(q calib.CheckPoint) bool {
				_, l, _ := strings.Cut(q.Series, ": ")
				return l == label && q.Series != p.Series
			}) {
				se.Label = label // the file's name is in the data; the label alone tells the series apart
			}
			byTool[p.Tool] = append(byTool[p.Tool], se)
		}
		se := &byTool[p.Tool][i]
		se.Bytes, se.Preset, se.Calibrated = append(se.Bytes, float64(p.Bytes)), append(se.Preset, p.Preset), append(se.Calibrated, p.Calibrated)
	}
	origin := "modeled: scenario " + base + " with each file's hardware, and calibrated from the imported outputs · measured: the imported outputs, at the sizes no key was fitted on"
	var figs []*plots.Figure
	var notes []string
	for _, tool := range tools {
		pf, err := plots.CalibrationResiduals(plots.CalibrationInput{Title: tool + ": the model's error on the sizes left out, preset and calibrated", Provenance: origin,
			What: "Each series' measured/modeled − 1 at the sizes no key was fitted on (every other size), against message size: dashed with open marks for the preset with the file's hardware, solid with filled marks for the calibrated model. 0 is the model and the measurement agreeing.", Series: byTool[tool]})
		if err != nil {
			notes = append(notes, fmt.Sprintf("No figure of the check for %s: %v.", tool, strings.TrimPrefix(err.Error(), "plots: ")))
			continue
		}
		figs = append(figs, pf)
	}
	return figs, notes
}

func (b *builder) importedFile(sec *section, run Imported, f ImportedFile, n int) {
	title := f.File
	if len(run.Hosts) > 1 && len(f.Hardware.Hosts) == 1 {
		title += " (" + f.Hardware.Hosts[0] + ")" // files of several hosts may share a name
	}
	title += " — " + f.Tool
	if f.Version != "" {
		title += " " + f.Version
	}
	if f.Test != "" && f.Test != f.Tool {
		title += ": " + f.Test
	}
	sec.h3(title)
	m := f.Model
	hw := m.Hardware
	if says := hardwareLine(hw); says != "" {
		sec.text("The output names: " + says + ".")
	}
	if f.Command != "" {
		sec.text("Command line: " + f.Command)
	}
	if len(f.Series) > 0 {
		line := "Modeled on scenario " + b.in.Scenario.Name
		if len(m.Sets) > 0 {
			line += " with the hardware the output names: " + strings.Join(m.Sets, "; ")
		} else {
			line += " as given"
		}
		if len(m.Agrees) > 0 {
			line += "; the output agrees with it on " + strings.Join(m.Agrees, ", ")
		}
		sec.text(line + ".")
		if !hasRate(hw.NICs) && usesNetwork(f.Series) {
			sec.note("The NIC's rate is the scenario's " + m.Scenario.NIC.Rate.Gbits() + ": the output does not say the port rate. Import ibstat or ibv_devinfo output of the same hosts with it, or give --set nic.rate=…, for the model of this NIC.")
		}
	}
	if len(m.Refused) > 0 {
		sec.note("Hardware the scenario does not take: " + strings.Join(m.Refused, "; ") + ".")
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
	// One figure and table per test and quantity.
	origin := fmt.Sprintf("modeled: scenario %s", b.in.Scenario.Name)
	if len(m.Sets) > 0 {
		origin += " with the output's hardware"
	}
	origin += fmt.Sprintf(" · measured: %s (%s, imported into %s)", f.Tool, f.File, run.Source)
	for gi, g := range m.Groups {
		b.importedFigure(sec, g, fmt.Sprintf("imported-%d-%d", n, gi+1), origin)
		sec.table(importedTable(g))
		if t := collectiveModelTable(g); t != nil {
			sec.table(t)
		}
		var items []string
		for _, v := range g.Verdicts {
			items = append(items, v.Series.Label+": "+v.Verdict)
		}
		sec.list(items)
		if c := g.Verdicts[0].Series.Collective; c != nil {
			sec.text(collectiveText(g.Verdicts[0]))
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

// usesNetwork tells whether a series goes between nodes (so the NIC's
// rate matters): not a copy, not inside a node.
func usesNetwork(ss []calib.ImportedSeries) bool {
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

// collectiveText explains algbw and busbw for an nccl-tests series.
func collectiveText(j calib.ImportedVerdict) string {
	c := j.Series.Collective
	var b strings.Builder
	fmt.Fprintf(&b, "algbw is the message size over the time (what the application sees); busbw = algbw × a factor that makes collectives comparable with the hardware's bandwidth (nccl-tests' documentation: github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): ")
	switch {
	case c.Factor > 0 && c.Ranks > 0:
		fmt.Fprintf(&b, "for %s on %d ranks the factor is %s = %.4g.", c.Op, c.Ranks, c.Formula, c.Factor)
	case c.Op != "":
		fmt.Fprintf(&b, "for %s it is %s; the output does not say how many ranks ran.", c.Op, model.BusFormula(c.Op))
	default:
		b.WriteString("the output does not say which collective ran.")
	}
	if j.FactorWhy != "" && j.Series.Quantity == record.Bandwidth {
		fmt.Fprintf(&b, " The share compares busbw with %s × %g: %s.", j.Path, j.Factor, j.FactorWhy)
	}
	return b.String()
}

// importedTable lists the points of a group against the model, at most
// six sizes per series (the smallest, the largest and evenly between).
func importedTable(g calib.ImportedGroup) *docTable {
	q := g.Quantity
	coll := g.Verdicts[0].Series.Collective != nil
	t := &docTable{Caption: "Measured against the model of the path each series took (" + pathList(g) + ").",
		Head:   []string{"series", "size", "measured", "model", "share", "bound by", "line"},
		Widths: []float64{2, 0.8, 1, 1, 0.6, 2.2, 0.5},
		Right:  []bool{false, true, true, true, true, false, true}}
	if coll && q == record.Bandwidth {
		t.Head = []string{"series", "size", "time", "algbw", "busbw", "busbw ceiling", "share", "bound by", "line"}
		t.Widths = []float64{1.4, 0.8, 0.8, 0.8, 0.8, 0.9, 0.6, 1.9, 0.5}
		t.Right = []bool{false, true, true, true, true, true, true, false, true}
	}
	for _, j := range g.Verdicts {
		if j.None != "" {
			t.Rows = append(t.Rows, []cell{c(j.Series.Label), c("—"), c("—"), c("—"), c("—"), c(j.None), c("")})
			if coll && q == record.Bandwidth {
				t.Rows[len(t.Rows)-1] = append(t.Rows[len(t.Rows)-1], c(""), c(""))
			}
			continue
		}
		for _, p := range pick(j.Points, 6) {
			label := j.Series.Variant // the caption and the figure name the test
			if label == "" {
				label = j.Series.Test
			}
			if p.Target != "" && !strings.Contains(label, p.Target) {
				label += " " + p.Target
			}
			size := "—"
			if p.Bytes >= 1 {
				size = p.Bytes.Human()
			}
			share, model := "—", "—"
			if p.Ceiling > 0 {
				model, share = j.ValueText(p.Ceiling), calib.ShareText(p.Share)
			}
			line := strconv.Itoa(p.Line)
			if coll && q == record.Bandwidth {
				t.Rows = append(t.Rows, []cell{c(label), c(size), c(p.Median.Human()), c(p.Rate.Human()), c(p.BusRate.Human()), c(model), c(share), c(p.Bound), c(line)})
				continue
			}
			t.Rows = append(t.Rows, []cell{c(label), c(size), c(j.ValueText(p.Measured)), c(model), c(share), c(p.Bound), c(line)})
		}
	}
	return t
}

// collectiveModelTable lists an nccl-tests group's points against NCCL's
// cost model of its cluster (calib.CollectiveVerdict), at most eight sizes
// per series, and the median error in the bandwidth regime; nil for a group
// that is not a collective's busbw.
func collectiveModelTable(g calib.ImportedGroup) *docTable {
	var t *docTable
	for _, j := range g.Verdicts {
		cv := j.Collective
		if cv == nil {
			continue
		}
		if t == nil {
			t = &docTable{Head: []string{"series", "size", "measured busbw", "modeled busbw", "NCCL's choice", "path", "error", "line"},
				Widths: []float64{1.4, 0.8, 1, 1, 1.2, 0.7, 0.7, 0.5},
				Right:  []bool{false, true, true, true, false, false, true, true}}
			if cv.None == "" {
				t.Caption = "NCCL's cost model of this cluster against the measurement: " + cv.Headline + "; " + strings.Join(cv.Assumed, "; ") + "."
			} else {
				t.Caption = "NCCL's cost model of this cluster against the measurement."
			}
		}
		label := j.Series.Variant
		if label == "" {
			label = j.Series.Test
		}
		if cv.None != "" {
			t.Rows = append(t.Rows, []cell{c(label), c("—"), c("—"), c("—"), c("not compared: " + cv.None), c("—"), c("—"), c("")})
			continue
		}
		for _, p := range pick(cv.Points, 8) {
			t.Rows = append(t.Rows, []cell{c(label), c(p.Bytes.Human()), c(p.Measured.Human()), c(p.Modeled.Human()),
				c(p.Algo + "/" + p.Proto), c(p.Path), c(units.SignedPercent(p.Residual)), c(strconv.Itoa(p.Line))})
		}
		med, val := "no size of "+calib.LargeCollective.Human()+" or more", "—"
		if cv.Large > 0 {
			med, val = fmt.Sprintf("median |error| over %d sizes", cv.Large), units.Percent(cv.MedianLarge)
		}
		t.Rows = append(t.Rows, []cell{c(label), c("≥ " + calib.LargeCollective.Human()), c(""), c(""), c(med), c(""), c(val), c("")})
	}
	return t
}

func pathList(g calib.ImportedGroup) string {
	var ps []string
	seen := map[string]bool{}
	for _, j := range g.Verdicts {
		p := j.Path
		if p == "" {
			continue
		}
		if j.PathWhy != "" {
			p += ": " + j.PathWhy
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

// pick keeps at most n of xs, spread over them, the first and last
// included (the rows a table shows of many sizes).
func pick[T any](xs []T, n int) []T {
	if len(xs) <= n {
		return xs
	}
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, xs[i*(len(xs)-1)/(n-1)])
	}
	return out
}

// importedFigure draws a group: the measured points and the model's
// ceiling of each path over the measured sizes (the verdicts' Lines).
func (b *builder) importedFigure(sec *section, g calib.ImportedGroup, id, origin string) {
	q := g.Quantity
	first := g.Verdicts[0].Series
	title := first.Test + ": bandwidth against the model"
	switch {
	case q != record.Bandwidth:
		title = first.Test + ": latency against the model"
	case first.Collective != nil:
		title = first.Test + ": busbw against the model"
	}
	in := plots.CeilingInput{Latency: q != record.Bandwidth, Title: title}
	switch {
	case first.RoundTrip:
		in.YLabel = "round-trip latency"
	case first.Collective != nil && q == record.Bandwidth:
		in.YLabel = "busbw"
	}
	var hi units.Bytes
	for _, j := range g.Verdicts {
		for _, p := range j.Points {
			hi = max(hi, p.At)
		}
	}
	if hi == 0 {
		return
	}
	drawnNCCL := false // NCCL's model is one line per group
	thinned := false   // a series drawn as its median per size
	for _, j := range g.Verdicts {
		var ms plots.CeilingSeries
		ms.Label, ms.Path = "measured: "+j.Series.Label, plotPath(j.Path)
		if j.Series.Collective != nil && q == record.Bandwidth {
			ms.Label = "measured busbw: " + j.Series.Variant
		}
		pts, many := drawnPoints(j.Points)
		thinned = thinned || many
		for _, p := range pts {
			ms.Bytes, ms.Values = append(ms.Bytes, float64(p.at)), append(ms.Values, p.measured)
		}
		if len(ms.Bytes) > 0 {
			in.Series = append(in.Series, ms)
		}
		if cv := j.Collective; cv != nil && !drawnNCCL && len(cv.Line.Bytes) > 0 {
			drawnNCCL = true
			line := plots.CeilingSeries{Model: true, Path: plotPath(cv.Line.Path), Dashed: true,
				Label: "NCCL's cost model: " + cv.Line.Path + " (its tuner's algorithm and protocol)"}
			for i, n := range cv.Line.Bytes {
				line.Bytes, line.Values = append(line.Bytes, float64(n)), append(line.Values, cv.Line.Values[i])
			}
			in.Series = append(in.Series, line)
		}
		for _, l := range j.Lines {
			line := plots.CeilingSeries{Model: true, Path: plotPath(l.Path), Dashed: l.Best, Label: "model: " + l.Path}
			if l.Factor != 1 {
				line.Label += fmt.Sprintf(" × %g", l.Factor)
			}
			if l.Best {
				line.Label += " (the fastest path here)"
			}
			for i, n := range l.Bytes {
				line.Bytes, line.Values = append(line.Bytes, float64(n)), append(line.Values, l.Values[i])
			}
			in.Series = append(in.Series, line)
		}
	}
	what := "Measured bandwidth (points) against the model's streaming bandwidth of the path (lines), by message size."
	switch {
	case q != record.Bandwidth && first.RoundTrip:
		what = "Measured round-trip latency (points) against twice the model's one-way latency of the path (lines), by message size."
	case q != record.Bandwidth:
		what = "Measured one-way latency (points) against the model's latency of the path (lines), by message size."
	}
	if first.Collective != nil && q == record.Bandwidth {
		what = "Measured busbw (points) against what the path allows for busbw (lines: one NIC's path times the NICs that carry the collective in parallel), by message size."
		if drawnNCCL {
			what += " The dashed line is NCCL's cost model of the collective on this cluster: the time NCCL's tuner predicts for the algorithm and protocol it picks at each size, as busbw."
		}
	}
	if thinned {
		what += fmt.Sprintf(" A series of more than %s points is drawn as the median of its points at each size (the run's %s holds every point).", units.Thousands(maxDrawnPoints), record.ResultsFile)
	}
	in.What, in.Provenance = what, origin
	pf, err := plots.Ceiling(in)
	if err != nil {
		sec.note(fmt.Sprintf("No figure for %s: %v.", first.Test, strings.TrimPrefix(err.Error(), "plots: ")))
		return
	}
	b.fig(sec, fromPlots(pf, id, "modeled and measured", origin))
}

// maxDrawnPoints is the most points of one series a figure draws one by
// one: past it (an import of many runs of a table) each size is drawn once,
// as the median of its points, so that a figure stays readable and its page
// small.
const maxDrawnPoints = 2000

type drawnPoint struct {
	at       units.Bytes
	measured float64
}

// drawnPoints are the points of a series a figure draws (those with a
// measured value), and whether they are medians per size (more than
// maxDrawnPoints of them).
func drawnPoints(ps []calib.JudgedPoint) ([]drawnPoint, bool) {
	var out []drawnPoint
	for _, p := range ps {
		if p.Measured > 0 {
			out = append(out, drawnPoint{p.At, p.Measured})
		}
	}
	if len(out) <= maxDrawnPoints {
		return out, false
	}
	by := map[units.Bytes][]float64{}
	for _, p := range out {
		by[p.at] = append(by[p.at], p.measured)
	}
	sizes := slices.Sorted(maps.Keys(by))
	med := make([]drawnPoint, 0, len(sizes))
	for _, n := range sizes {
		med = append(med, drawnPoint{n, stats.MedianInPlace(by[n])})
	}
	return med, true
}

// plotPath is the path whose style a curve takes.
func plotPath(p string) string {
	if strings.HasPrefix(p, "copy ") {
		return "rdma"
	}
	return p
}
