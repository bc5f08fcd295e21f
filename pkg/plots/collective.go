package plots

import (
	"image/color"
	"math"
	"slices"
	"strconv"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The collective figures: one collective of NCCL's cost model
// (model.Collectives) on each inter-node path NCCL can take between the
// nodes of a scenario (model.CollectivePaths: its socket transport tcp, its
// host-staged IB transport rdma, GPUDirect RDMA, devmem), each path in its
// style from the model's registry.
//
//	CollectiveBusBW  nccl-tests' busbw against message size, NCCL's
//	                 algorithm and protocol on each path marked where they
//	                 change and named in a band underneath
//	CollectiveScale  busbw of one size against the node count
//	CollectiveGain   what GPUDirect RDMA buys over NCCL's host-staged
//	                 transport, against the node count (model GDRGain)
//	CollectiveCores  the CPU cores a node's network traffic keeps busy,
//	                 against the node count (model TCPCores for tcp)

// CollectiveInput is what the collective figures draw: one collective on a
// scenario, on each of its inter-node paths.
type CollectiveInput struct {
	// Scenario is the scenario modeled (required).
	Scenario *model.Scenario
	// Collectives is Scenario prepared for the collective model, to share
	// between figures (nil: Scenario.Collectives()).
	Collectives *model.Collectives
	// Spec is the collective. Its Path is ignored (a figure draws each of
	// Paths); the node-count figures ignore its Nodes.
	Spec model.CollectiveSpec
	// Paths are the inter-node paths to draw, in order: names of
	// model.CollectivePaths (nil: all of them). One the scenario cannot take
	// is listed, not drawn.
	Paths []string
	// Sizes are CollectiveBusBW's sizes (nil: CollectiveSizes).
	Sizes []units.Bytes
	// Size is the size of the node-count figures (0: CollectiveScaleSize);
	// Nodes their node counts (nil: CollectiveNodes).
	Size  units.Bytes
	Nodes []int
	// ReasonsAt and ReasonsSaid are Input's: where the document says why a
	// path cannot run, and the reasons it gives there.
	ReasonsAt   string
	ReasonsSaid map[string]string
}

// CollectiveScaleSize is the default size of the node-count figures: 64 MiB,
// a gradient bucket of data-parallel training.
const CollectiveScaleSize units.Bytes = 64 << 20

// CollectiveSizes are CollectiveBusBW's default sizes: every power of two
// from 8 B to 16 GiB (nccl-tests' range; 32 sizes).
func CollectiveSizes() []units.Bytes {
	var out []units.Bytes
	for n := units.Bytes(8); n <= 16<<30; n *= 2 {
		out = append(out, n)
	}
	return out
}

// CollectiveNodes are the node-count figures' default node counts: every
// power of two from 1 to 16,384.
func CollectiveNodes() []int {
	var out []int
	for n := 1; n <= 1<<14; n *= 2 {
		out = append(out, n)
	}
	return out
}

// collChecked is a CollectiveInput after validation: the scenario prepared
// for the collective model, NCCL's route of each path, the paths it can
// take, the sizes and node counts sorted.
type collChecked struct {
	CollectiveInput
	cs       *model.Collectives
	routes   *checked // NCCL's route of each path, for the infeasible paths' notes
	feasible []string
	sizes    []units.Bytes
	nodes    []int
	// label is the collective in words: "all_reduce on 16 nodes × 8 GPUs".
	label string
	// lines are the values of each drawn line, for covered.
	lines []drawnLine
}

// drawnLine is a path's line as drawn: its values at the same x for every
// path of a figure.
type drawnLine struct {
	path string
	ys   []float64
}

// checkCollective validates in: a scenario, known paths each once, sizes
// of at least 1 B, node counts within the model's range, and a spec the
// model takes (its op, GPUs and NICs per node, algorithm and protocol).
func checkCollective(in CollectiveInput, needNodes bool) (*collChecked, error) {
	if in.Scenario == nil {
		return nil, inputErr("collective: no scenario")
	}
	c := &collChecked{CollectiveInput: in}
	if in.Paths == nil {
		c.Paths = model.CollectivePaths
	}
	if len(c.Paths) == 0 {
		return nil, inputErr("collective: the path list is empty")
	}
	c.routes = &checked{Input: Input{Scenario: in.Scenario, ReasonsAt: in.ReasonsAt, ReasonsSaid: in.ReasonsSaid}}
	for i, p := range c.Paths {
		if slices.Contains(c.Paths[:i], p) {
			return nil, inputErr("collective: path %q is listed twice", p)
		}
		r, err := in.Scenario.NCCLRoute(p)
		if err != nil {
			return nil, inputErr("collective: %v", err)
		}
		c.routes.routes = append(c.routes.routes, r)
		if r.Feasible {
			c.feasible = append(c.feasible, p)
		}
	}
	c.sizes = in.Sizes
	if c.sizes == nil {
		c.sizes = CollectiveSizes()
	}
	if len(c.sizes) == 0 {
		return nil, inputErr("collective: the size list is empty")
	}
	for _, n := range c.sizes {
		if n < 1 {
			return nil, inputErr("collective: message size %d B: sizes must be at least 1 byte (log axis)", n)
		}
	}
	c.sizes = slices.Compact(slices.Sorted(slices.Values(c.sizes)))
	if c.Size == 0 {
		c.Size = CollectiveScaleSize
	}
	if c.Size < 1 {
		return nil, inputErr("collective: size %d B: at least 1 byte", c.Size)
	}
	c.nodes = in.Nodes
	if c.nodes == nil {
		c.nodes = CollectiveNodes()
	}
	for _, n := range c.nodes {
		if n < 1 || n > model.MaxCollectiveNodes {
			return nil, inputErr("collective: %d nodes: out of range [1, %d]", n, model.MaxCollectiveNodes)
		}
	}
	c.nodes = slices.Compact(slices.Sorted(slices.Values(c.nodes)))
	if needNodes && len(c.nodes) == 0 {
		return nil, inputErr("collective: the node list is empty")
	}
	spec := in.Spec
	spec.Path = ""
	if !needNodes && spec.Nodes < 2 {
		return nil, inputErr("collective: %d node(s): a figure of the paths between nodes needs two or more", spec.Nodes)
	}
	if needNodes {
		spec.Nodes = max(2, c.nodes[len(c.nodes)-1])
	}
	c.cs = in.Collectives
	if c.cs == nil {
		c.cs = in.Scenario.Collectives()
	} else if c.cs.Scenario().Name != in.Scenario.Name {
		return nil, inputErr("collective: the prepared model is of scenario %q, not %q", c.cs.Scenario().Name, in.Scenario.Name)
	}
	if _, err := c.cs.Model(spec, c.sizes[:1]); err != nil {
		return nil, inputErr("collective: %v", err)
	}
	op, _ := model.CollectiveOp(spec.Op)
	c.label = op + " on " + strconv.Itoa(spec.Nodes) + " nodes × " + strconv.Itoa(spec.GPUsPerNode) + " GPUs"
	if needNodes {
		c.label = op + " of " + c.Size.Human() + " on " + strconv.Itoa(spec.GPUsPerNode) + " GPUs a node"
	}
	return c, nil
}

// spec is the collective on path p over nodes nodes.
func (c *collChecked) spec(p string, nodes int) model.CollectiveSpec {
	s := c.Spec
	s.Path, s.Nodes = p, nodes
	return s
}

func (c *collChecked) provenance() string {
	return "modeled: scenario " + c.Scenario.Name + " · NCCL's cost model (tuning.cc at NVIDIA/nccl 5067397c)"
}

// covered is a note on each line drawn under a later one that it never
// leaves by more than 3 %: the reader sees one line where there are two.
func (c *collChecked) covered() []string {
	const within = 0.03
	var out []string
	for i, a := range c.lines {
		for _, b := range c.lines[i+1:] {
			if len(a.ys) != len(b.ys) {
				continue
			}
			worst := 0.0
			for k := range a.ys {
				worst = math.Max(worst, math.Abs(a.ys[k]/b.ys[k]-1))
			}
			if worst <= within {
				out = append(out, a.path+" lies under "+b.path+" (within "+units.FormatSig(100*worst, 2)+" % everywhere).")
				break
			}
		}
	}
	return out
}

// notDrawn are the infeasible paths' note on the figure and reasons for
// the caption (as the size sweeps say them).
func (c *collChecked) notDrawn(f *Figure) []string {
	names, reasons := c.routes.infeasible()
	if n := c.routes.infeasibleNote(names); n != "" {
		f.Notes = append(f.Notes, n)
	}
	return reasons
}

// choiceMark is the glyph of a point where NCCL's choice changes: a ring
// in the path's colour.
func choiceMark(clr color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: clr, Radius: GlyphRadius, Shape: Mark{Shape: Circle}}
}

// choiceEntry is the legend's entry for the rings of every path.
func choiceEntry(label string, rings []plot.Plotter) legendEntry {
	sample := &plotter.Scatter{GlyphStyle: choiceMark(MutedColor)}
	return legendEntry{label: label, thumbs: []plot.Thumbnailer{sample}, stands: rings}
}

// pathLine is a model line of collective path p in its style.
func pathLine(p string, xys plotter.XYs) *plotter.Line {
	st := PathStyle(p)
	l, _ := plotter.NewLine(xys) // the callers pass finite values only
	l.LineStyle = draw.LineStyle{Color: st.Color, Width: LineWidth, Dashes: st.Dashes}
	return l
}

func rateLabel(v float64) string { return units.Rate(v).Human() }

func countLabel(v float64) string { return units.Thousands(int(math.Round(v))) }

// nodeAxis makes p's x axis a log₂ axis of node counts over nodes.
func nodeAxis(p *plot.Plot, nodes []int) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{label: countLabel}
	p.X.Min, p.X.Max = logRange(float64(nodes[0]), float64(nodes[len(nodes)-1]), 2)
}

// CollectiveBusBW draws nccl-tests' bus bandwidth of the collective (Spec,
// on Spec.Nodes nodes) against message size, log–log: one line per path
// the scenario can take, each with NCCL's choice of algorithm and protocol
// on that path (its least estimated time); a ring marks each size at which
// that choice changes (model Choices), and a band under the plot names the
// choice on each path, size by size. The legend names the path NCCL itself
// takes (Scenario.NCCLPath), and the caption says why. Its data has kind
// (curve: the sizes drawn; choice: the first size of each choice), path,
// nccl_path, bytes, algo, proto, time_s, algbw_Bps and busbw_Bps.
func CollectiveBusBW(in CollectiveInput) (*Figure, error) {
	c, err := checkCollective(in, false)
	if err != nil {
		return nil, err
	}
	if len(c.feasible) == 0 {
		return nil, inputErr("collective: no path to draw: %s", c.routes.infeasibleNote(c.Paths))
	}
	nccl, why := c.Scenario.NCCLPath(c.Spec.GPUsPerNode)
	t := Table{Columns: []Column{textCol("kind"), textCol("path"), boolCol("nccl_path"), numCol("bytes", BytesUnit), textCol("algo"), textCol("proto"),
		numCol("time_s", "s"), numCol("algbw_Bps", "B/s"), numCol("busbw_Bps", "B/s")}}
	main := newPlot()
	main.X.Scale, main.Y.Scale = plot.LogScale{}, plot.LogScale{}
	main.X.Tick.Marker = sizeTicks{blank: true}
	main.Y.Tick.Marker = decadeTicks{label: rateLabel}
	lo, hi := c.sizes[0], c.sizes[len(c.sizes)-1]
	ys := newSpan()
	bands := &choiceBands{}
	var legend []legendEntry
	var rings []plot.Plotter
	for i, p := range c.feasible {
		sp := c.spec(p, c.Spec.Nodes)
		rs, err := c.cs.Model(sp, c.sizes)
		if err != nil {
			return nil, inputErr("collective: %s: %v", p, err)
		}
		segs, err := c.cs.Choices(sp, lo, hi)
		if err != nil {
			return nil, inputErr("collective: %s: %v", p, err)
		}
		starts := make([]units.Bytes, len(segs))
		for k, sg := range segs {
			starts[k] = sg.From
		}
		at, err := c.cs.Model(sp, starts)
		if err != nil {
			return nil, inputErr("collective: %s: %v", p, err)
		}
		var xys, marks plotter.XYs
		for _, r := range rs {
			t.add("curve", p, p == nccl, r.Bytes, r.Algo, r.Proto, r.Time, r.AlgBW, r.BusBW)
			if y := float64(r.BusBW); finitePos(y) {
				xys = append(xys, plotter.XY{X: float64(r.Bytes), Y: y})
				ys.add(y)
			}
		}
		c.addLine(p, xys)
		for k, r := range at {
			t.add("choice", p, p == nccl, r.Bytes, r.Algo, r.Proto, r.Time, r.AlgBW, r.BusBW)
			if y := float64(r.BusBW); k > 0 && finitePos(y) {
				marks = append(marks, plotter.XY{X: float64(r.Bytes), Y: y})
			}
		}
		if len(xys) == 0 {
			return nil, inputErr("collective: %s: no bus bandwidth to draw", p)
		}
		l := pathLine(p, xys)
		main.Add(l)
		label := p
		if p == nccl {
			label += ": NCCL's path"
		}
		legend = append(legend, legendEntry{label: label, thumbs: []plot.Thumbnailer{l}})
		if len(marks) > 0 {
			s, _ := plotter.NewScatter(marks) // finite
			s.GlyphStyle = choiceMark(PathStyle(p).Color)
			rings = append(rings, s)
		}
		bands.rows = append(bands.rows, bandRow{y: float64(len(c.feasible) - 1 - i), color: PathStyle(p).Color, segs: segs})
	}
	for _, r := range rings {
		main.Add(r) // over every line
	}
	if len(rings) > 0 {
		legend = append(legend, choiceEntry("NCCL's algorithm or protocol changes", rings))
	}
	main.X.Min, main.X.Max = logRange(float64(lo), float64(hi), 2)
	main.Y.Min, main.Y.Max = logRange(ys.lo, ys.hi, 10)

	strip := newPlot()
	strip.X.Scale = plot.LogScale{}
	strip.X.Tick.Marker = sizeTicks{}
	strip.X.Min, strip.X.Max = main.X.Min, main.X.Max
	names := make([]string, len(c.feasible))
	for i, p := range c.feasible {
		names[len(c.feasible)-1-i] = p
	}
	strip.NominalY(names...)
	strip.Y.Min, strip.Y.Max = -0.5, float64(len(names))-0.5
	bands.lo, bands.hi = float64(lo), float64(hi)
	strip.Add(bands)

	f := &Figure{Name: "collective-busbw", Title: c.label + ": bus bandwidth vs message size", Width: DefaultWidth, Height: DefaultHeight + 90,
		Provenance: c.provenance(), legendBelow: true, legend: legend}
	f.panels = []axes{{p: main, ylabel: "bus bandwidth (busbw)"}, {p: strip, xlabel: "message size", ylabel: "NCCL's choice"}}
	f.rows = []vg.Length{0, vg.Length(20*len(names) + 26)}
	f.Data = t
	f.Notes = append(f.Notes, c.covered()...)
	reasons := c.notDrawn(f)
	what := "nccl-tests' bus bandwidth against message size (log–log) on each inter-node path, with the algorithm and protocol NCCL picks there (its least estimated time): rings mark the sizes where the pick changes, and the band under the plot names it where it has room."
	switch {
	case slices.Contains(c.feasible, nccl):
		what += " NCCL itself takes " + nccl + ": " + why + "."
	default:
		what += " NCCL itself would take " + nccl + " (" + why + "), which cannot run here."
	}
	f.Caption = caption(what, f.Provenance, reasons)
	return f, nil
}

// choiceBands draws NCCL's choice along the size axis of a panel of
// nominal rows, one per path: a band per range of sizes over which the
// choice holds, in a tint of the path's colour (lighter for LL, darker
// for Simple), its algorithm/protocol written inside where it fits.
type choiceBands struct {
	rows   []bandRow
	lo, hi float64 // the sizes spanned
}

type bandRow struct {
	y     float64
	color color.Color
	segs  []model.CollectiveSegment
}

// protoTint is how much of the path's colour a band of each protocol
// takes (the rest white): dark text stays readable on all three.
var protoTint = map[string]float64{model.ProtoLL: 0.22, model.ProtoLL128: 0.4, model.ProtoSimple: 0.6}

func tint(c color.Color, a float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(math.Round(255*(1-a) + float64(v>>8)*a)) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}

// Plot implements plot.Plotter.
func (b *choiceBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ts := textStyle(NoteSize, false, TextColor)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
	sep := draw.LineStyle{Color: color.White, Width: vg.Points(1)}
	for _, r := range b.rows {
		y0, y1 := trY(r.y-0.38), trY(r.y+0.38)
		for k, s := range r.segs {
			from, to := float64(s.From), b.hi
			if k+1 < len(r.segs) {
				to = float64(r.segs[k+1].From)
			}
			x0, x1 := trX(math.Max(from, p.X.Min)), trX(math.Min(to, p.X.Max))
			if !(x1 > x0) {
				continue
			}
			c.FillPolygon(tint(r.color, protoTint[s.Proto]), []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			if k > 0 {
				c.StrokeLine2(sep, x0, y0, x0, y1)
			}
			if label := s.Algo + "/" + s.Proto; ts.Width(label)+4 <= x1-x0 {
				c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
			}
		}
	}
}

// DataRange implements plot.DataRanger.
func (b *choiceBands) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.lo, b.hi, -0.5, float64(len(b.rows)) - 0.5
}

// CollectiveScale draws nccl-tests' bus bandwidth of the collective at
// Size against the node count (log₂ nodes, log busbw): one line per path
// the scenario can take from two nodes on, NCCL's choice on each, a ring
// where that choice changes; one node, where no network is crossed, is one
// grey point. Its data has path ("none" for one node), nodes, bytes, algo,
// proto, time_s and busbw_Bps.
func CollectiveScale(in CollectiveInput) (*Figure, error) {
	c, err := checkCollective(in, true)
	if err != nil {
		return nil, err
	}
	if len(c.feasible) == 0 {
		return nil, inputErr("collective: no path to draw: %s", c.routes.infeasibleNote(c.Paths))
	}
	t := Table{Columns: []Column{textCol("path"), intCol("nodes", ""), numCol("bytes", BytesUnit), textCol("algo"), textCol("proto"),
		numCol("time_s", "s"), numCol("busbw_Bps", "B/s")}}
	p := newPlot()
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{label: rateLabel, clip: true}
	nodeAxis(p, c.nodes)
	ys := newSpan()
	var legend []legendEntry
	var rings []plot.Plotter
	var one *legendEntry
	if c.nodes[0] == 1 {
		r, err := c.cs.Model(c.spec("", 1), []units.Bytes{c.Size})
		if err != nil {
			return nil, inputErr("collective: one node: %v", err)
		}
		t.add("none", 1, r[0].Bytes, r[0].Algo, r[0].Proto, r[0].Time, r[0].BusBW)
		if y := float64(r[0].BusBW); finitePos(y) {
			s, _ := plotter.NewScatter(plotter.XYs{{X: 1, Y: y}})
			s.GlyphStyle = draw.GlyphStyle{Color: MutedColor, Radius: GlyphRadius, Shape: Mark{Shape: Circle, Filled: true}}
			p.Add(s)
			ys.add(y)
			one = &legendEntry{label: "one node (no network): " + r[0].Algo + "/" + r[0].Proto, thumbs: []plot.Thumbnailer{s}}
		}
	}
	for _, path := range c.feasible {
		var xys, marks plotter.XYs
		prev := ""
		for _, n := range c.nodes {
			if n < 2 {
				continue
			}
			r, err := c.cs.Model(c.spec(path, n), []units.Bytes{c.Size})
			if err != nil {
				return nil, inputErr("collective: %s, %d nodes: %v", path, n, err)
			}
			x := r[0]
			t.add(path, n, x.Bytes, x.Algo, x.Proto, x.Time, x.BusBW)
			y := float64(x.BusBW)
			if !finitePos(y) {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(n), Y: y})
			ys.add(y)
			choice := x.Algo + "/" + x.Proto
			if prev != "" && choice != prev {
				marks = append(marks, plotter.XY{X: float64(n), Y: y})
			}
			prev = choice
		}
		if len(xys) == 0 {
			continue
		}
		c.addLine(path, xys)
		l := pathLine(path, xys)
		p.Add(l)
		legend = append(legend, legendEntry{label: path, thumbs: []plot.Thumbnailer{l}})
		if len(marks) > 0 {
			s, _ := plotter.NewScatter(marks)
			s.GlyphStyle = choiceMark(PathStyle(path).Color)
			rings = append(rings, s)
		}
	}
	if ys.lo > ys.hi {
		return nil, inputErr("collective: no bus bandwidth to draw")
	}
	for _, r := range rings {
		p.Add(r)
	}
	if len(rings) > 0 {
		legend = append(legend, choiceEntry("NCCL's algorithm or protocol changes", rings))
	}
	if one != nil {
		legend = append(legend, *one)
	}
	// Room around the values, labels at 2 and 5 times a decade where the
	// axis spans less than two.
	p.Y.Min, p.Y.Max = ys.lo/1.25, ys.hi*1.25
	f := &Figure{Name: "collective-scale", Title: c.label + ": bus bandwidth vs node count", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(), legend: legend, legendBelow: true, Data: t}
	f.panels = []axes{{p: p, xlabel: "nodes", ylabel: "bus bandwidth (busbw)"}}
	f.Notes = append(f.Notes, c.covered()...)
	reasons := c.notDrawn(f)
	what := "nccl-tests' bus bandwidth against the node count (log–log) on each inter-node path, with NCCL's pick of algorithm and protocol there: rings mark the node counts where the pick changes; one node crosses no network."
	f.Caption = caption(what, f.Provenance, reasons)
	return f, nil
}

// addLine keeps a drawn line's values for covered.
func (c *collChecked) addLine(path string, xys plotter.XYs) {
	ys := make([]float64, len(xys))
	for i, xy := range xys {
		ys[i] = xy.Y
	}
	c.lines = append(c.lines, drawnLine{path: path, ys: ys})
}

// need fails, naming the paths and where the document says why, when one
// of paths cannot run on c's scenario.
func (c *collChecked) need(what string, paths ...string) error {
	var missing []string
	for _, p := range paths {
		if !slices.Contains(c.feasible, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sub := &checked{Input: c.routes.Input}
	for _, r := range c.routes.routes {
		if slices.Contains(missing, r.Path.Name) {
			sub.routes = append(sub.routes, r)
		}
	}
	for _, p := range missing {
		if !slices.ContainsFunc(sub.routes, func(r *model.Route) bool { return r.Path.Name == p }) {
			return inputErr("%s needs path %s, which the figure was not asked to draw", what, p)
		}
	}
	_, reasons := sub.infeasible()
	return inputErr("%s needs %s; %s", what, list(paths), joinSentences(reasons))
}

// nodesFrom2 are the node counts of c that cross a network.
func (c *collChecked) nodesFrom2() ([]int, error) {
	var out []int
	for _, n := range c.nodes {
		if n >= 2 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, inputErr("collective: no node count of two or more")
	}
	return out, nil
}

// CollectiveGain draws what GPUDirect RDMA buys the collective at Size
// against the node count: its time on NCCL's host-staged rdma transport
// over its time on gdr (model GDRGain; above 1, GDR is faster), NCCL's
// choice on each, with the line of no gain. It needs both paths. Its data
// has nodes, bytes, gdr_s, host_staged_s, gain, gdr_choice and
// host_staged_choice.
func CollectiveGain(in CollectiveInput) (*Figure, error) {
	c, err := checkCollective(in, true)
	if err != nil {
		return nil, err
	}
	if err := c.need("GPUDirect RDMA's gain", "gdr", "rdma"); err != nil {
		return nil, err
	}
	nodes, err := c.nodesFrom2()
	if err != nil {
		return nil, err
	}
	gs, err := c.cs.GDRGain(c.Spec, c.Size, nodes)
	if err != nil {
		return nil, inputErr("collective: %v", err)
	}
	t := Table{Columns: []Column{intCol("nodes", ""), numCol("bytes", BytesUnit), numCol("gdr_s", "s"), numCol("host_staged_s", "s"), numCol("gain", ""),
		textCol("gdr_choice"), textCol("host_staged_choice")}}
	p := newPlot()
	nodeAxis(p, nodes)
	p.Y.Tick.Marker = linearTicks{round: true}
	var xys plotter.XYs
	top := 1.0
	for _, g := range gs {
		t.add(g.Nodes, c.Size, g.GDR, g.HostStaged, g.Ratio, g.GDRAlgo, g.HostAlgo)
		if finitePos(g.Ratio) {
			xys = append(xys, plotter.XY{X: float64(g.Nodes), Y: g.Ratio})
			top = math.Max(top, g.Ratio)
		}
	}
	if len(xys) == 0 {
		return nil, inputErr("collective: no gain to draw")
	}
	p.Add(&refLine{y: 1, label: "no gain (1×)", style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8), Dashes: Dotted}, right: true})
	l := pathLine("gdr", xys)
	p.Add(l)
	p.Y.Min, p.Y.Max = 0, niceMax(top)
	f := &Figure{Name: "collective-gdr-gain", Title: c.label + ": what GPUDirect RDMA buys", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(), Data: t, legendBelow: true,
		legend: []legendEntry{{label: "rdma time / gdr time", thumbs: []plot.Thumbnailer{l}}}}
	f.panels = []axes{{p: p, xlabel: "nodes", ylabel: "time on rdma / time on gdr"}}
	what := "The collective's time through NCCL's host buffers (rdma) over its time with GPUDirect RDMA (gdr), each with NCCL's pick of algorithm and protocol, against the node count (log₂ x): above the dotted line at 1, GPUDirect RDMA is faster."
	f.Caption = caption(what, f.Provenance, nil)
	return f, nil
}

// CollectiveCores draws the CPU cores a node keeps busy for the
// collective's network traffic at Size against the node count (log–log):
// one line per path the scenario can take (tcp from model TCPCores: the
// socket calls, the TCP stack and the copies between NCCL's host buffers
// and the kernel; the others their proxy's posts and polls), with one core
// as a reference. It needs tcp. Its data has path, nodes, bytes,
// cores_per_node, cpu_s_per_node and time_s.
func CollectiveCores(in CollectiveInput) (*Figure, error) {
	c, err := checkCollective(in, true)
	if err != nil {
		return nil, err
	}
	if err := c.need("the cores of NCCL's socket transport", "tcp"); err != nil {
		return nil, err
	}
	nodes, err := c.nodesFrom2()
	if err != nil {
		return nil, err
	}
	t := Table{Columns: []Column{textCol("path"), intCol("nodes", ""), numCol("bytes", BytesUnit), numCol("cores_per_node", "cores"),
		numCol("cpu_s_per_node", "s"), numCol("time_s", "s")}}
	p := newPlot()
	nodeAxis(p, nodes)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{label: plainLabel}
	ys := newSpan()
	var legend []legendEntry
	var zero []string
	for _, path := range c.feasible {
		var xys plotter.XYs
		if path == "tcp" {
			tc, err := c.cs.TCPCores(c.Spec, c.Size, nodes)
			if err != nil {
				return nil, inputErr("collective: %v", err)
			}
			for _, x := range tc {
				t.add(path, x.Nodes, c.Size, x.Cores, x.CPU, x.Time)
				if finitePos(x.Cores) {
					xys = append(xys, plotter.XY{X: float64(x.Nodes), Y: x.Cores})
					ys.add(x.Cores)
				}
			}
		} else {
			for _, n := range nodes {
				r, err := c.cs.Model(c.spec(path, n), []units.Bytes{c.Size})
				if err != nil {
					return nil, inputErr("collective: %s, %d nodes: %v", path, n, err)
				}
				x := r[0]
				t.add(path, n, c.Size, x.CoresPerNode, x.CPUPerNode, x.Time)
				if finitePos(x.CoresPerNode) {
					xys = append(xys, plotter.XY{X: float64(n), Y: x.CoresPerNode})
					ys.add(x.CoresPerNode)
				}
			}
		}
		if len(xys) == 0 {
			zero = append(zero, path)
			continue
		}
		c.addLine(path, xys)
		l := pathLine(path, xys)
		p.Add(l)
		legend = append(legend, legendEntry{label: path, thumbs: []plot.Thumbnailer{l}})
	}
	p.Add(&refLine{y: 1, label: "1 core", style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8), Dashes: Dotted}, right: true})
	ys.add(1)
	p.Y.Min, p.Y.Max = logRange(math.Max(ys.lo, coresFloor), ys.hi, 10)
	f := &Figure{Name: "collective-cores", Title: c.label + ": CPU cores a node keeps busy", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(), legend: legend, legendBelow: true, Data: t}
	f.panels = []axes{{p: p, xlabel: "nodes", ylabel: "cores per node"}}
	f.Notes = append(f.Notes, c.covered()...)
	if len(zero) > 0 {
		f.Notes = append(f.Notes, "No CPU cost to draw (zero) for: "+list(zero)+".")
	}
	reasons := c.notDrawn(f)
	what := "The CPU cores a node keeps busy for the collective's network traffic against the node count (log–log; the axis stops at 0.001 cores): on tcp, NCCL's socket transport, they make the socket calls, run the TCP stack and copy between NCCL's host buffers and the kernel. Dotted grey: one core."
	f.Caption = caption(what, f.Provenance, reasons)
	return f, nil
}

// list joins words as people write them: "a", "a and b", "a, b and c".
func list(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := xs[0]
	for _, x := range xs[1 : len(xs)-1] {
		out += ", " + x
	}
	return out + " and " + xs[len(xs)-1]
}

// joinSentences joins reasons into one text, each ending in a full stop.
func joinSentences(rs []string) string {
	out := ""
	for i, r := range rs {
		if i > 0 {
			out += " "
		}
		out += r
		if r != "" && r[len(r)-1] != '.' {
			out += "."
		}
	}
	return out
}
