package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// quantity is one y quantity of a size sweep: how to read it from the
// model and from a measured point, and how to draw its axis.
type quantity struct {
	key    string // column name in the data table: "latency_s"
	unit   string // base unit of the values: "s"
	label  string // y axis label
	log    bool
	scale  float64 // values are divided by it for drawing (1e9: GB/s)
	ticker plot.Ticker
	model  func(model.Result) float64
	meas   func(Point) float64 // 0: not measured
}

var (
	qLatency = quantity{key: "latency_s", unit: "s", label: "one-way latency", log: true, scale: 1,
		ticker: decadeTicks{label: secondsLabel},
		model:  func(r model.Result) float64 { return float64(r.Latency) },
		meas:   func(p Point) float64 { return p.Seconds }}
	qPipelined = quantity{key: "pipelined_latency_s", unit: "s", label: "one-way latency", log: true, scale: 1,
		ticker: decadeTicks{label: secondsLabel},
		model:  func(r model.Result) float64 { return float64(r.Pipelined) }}
	qBandwidth = quantity{key: "bandwidth_Bps", unit: "B/s", label: "streaming bandwidth (GB/s)", scale: 1e9,
		ticker: linearTicks{},
		model:  func(r model.Result) float64 { return float64(r.Bandwidth) },
		meas:   func(p Point) float64 { return p.Rate }}
	qCPU = quantity{key: "cpu_s", unit: "s", label: "CPU time per message (both nodes)", log: true, scale: 1,
		ticker: decadeTicks{label: secondsLabel},
		model:  func(r model.Result) float64 { return float64(r.CPU) },
		meas:   func(p Point) float64 { return p.CPU }}
	qCores = quantity{key: "cores", unit: "cores", label: "CPU cores to carry the line rate (both nodes)", log: true, scale: 1,
		ticker: decadeTicks{label: plainLabel},
		model:  func(r model.Result) float64 { return r.Cores }}
)

// panel is one plot of a figure with what it adds to the legend, notes and data.
type panel struct {
	p      *plot.Plot
	xlabel string
	ylabel string
	legend []legendEntry
	data   Table // sweepTable
	notes  []string
	lo, hi float64 // y data range (drawing units)
	// dotted are the pipelined lines drawn, for the legend's entry.
	dotted []plot.Plotter
}

func newPlot() *plot.Plot {
	p := plot.New()
	styleAxes(p)
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: GridColor, Width: vg.Points(0.5)}
	g.Horizontal = g.Vertical
	p.Add(g)
	return p
}

// sweepTable is the long form of a size sweep's data: one row per drawn
// value, its kind (model or measured), series (the scenario or the
// measured label), path, message size, quantity and value (in the
// quantity's unit: unit, or "" where the quantities differ).
func sweepTable(unit string) Table {
	return Table{Columns: []Column{textCol("kind"), textCol("series"), textCol("path"), numCol("bytes", "B"),
		textCol("quantity"), numCol("value", unit)}}
}

// sweepPanel draws quantities q (q[1], when given, dotted: the pipelined
// latency) against message size for every feasible route, and the
// measured points that have q[0].
func sweepPanel(c *checked, q []quantity, measured bool) panel {
	pn := panel{p: newPlot(), xlabel: "message size", ylabel: q[0].label, lo: math.Inf(1), hi: math.Inf(-1), data: sweepTable(q[0].unit)}
	p := pn.p
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	if q[0].log {
		p.Y.Scale = plot.LogScale{}
	}
	p.Y.Tick.Marker = q[0].ticker
	sizes, msizes := newSpan(), newSpan() // all drawn sizes, measured sizes
	for qi, qq := range q {
		noValue := pn.modelLines(c, qq, qi == 1, &sizes)
		if qi == 0 && len(noValue) > 0 {
			pn.notes = append(pn.notes, "No "+strings.TrimSuffix(q[0].label, " (GB/s)")+" to draw (zero or unbounded) for: "+strings.Join(noValue, ", ")+".")
		}
	}
	if measured && q[0].meas != nil {
		pn.measuredPoints(c, q[0], &sizes, &msizes)
	}
	pn.setRanges(q[0], sizes, msizes)
	return pn
}

// span is a range of values, empty (lo > hi) until one is added.
type span struct{ lo, hi float64 }

func newSpan() span { return span{math.Inf(1), math.Inf(-1)} }

func (s *span) add(v float64) { s.lo, s.hi = math.Min(s.lo, v), math.Max(s.hi, v) }

// modelLines adds a line of quantity q per feasible route (dotted when
// pipelined, else in the path's style and in the legend), its rows to the
// data, its sizes to sizes; it returns the paths with no value to draw.
func (pn *panel) modelLines(c *checked, q quantity, pipelined bool, sizes *span) (noValue []string) {
	for _, r := range drawOrder(c.feasible()) {
		st := PathStyle(r.Path.Name)
		var xys plotter.XYs
		for _, n := range c.sizes {
			v := q.model(r.Evaluate(n))
			if math.IsNaN(v) || math.IsInf(v, 0) || !(v > 0 || !q.log && v >= 0) {
				continue
			}
			pn.data.add("model", c.Scenario.Name, r.Path.Name, n, q.key, v)
			y := v / q.scale
			xys = append(xys, plotter.XY{X: float64(n), Y: y})
			pn.lo, pn.hi = math.Min(pn.lo, y), math.Max(pn.hi, y)
			sizes.add(float64(n))
		}
		if len(xys) == 0 {
			noValue = append(noValue, r.Path.Name)
			continue
		}
		if pipelined && !differs(r, c.sizes, q, qLatency) {
			continue // the dotted line would lie under the solid one, unseen
		}
		l, _ := plotter.NewLine(xys) // values are finite: no error
		l.LineStyle = draw.LineStyle{Color: st.Color, Width: lineWidth(r.Path), Dashes: st.Dashes}
		if pipelined {
			l.LineStyle = draw.LineStyle{Color: st.Color, Width: LineWidth * 0.8, Dashes: Dotted}
			pn.dotted = append(pn.dotted, l)
		} else {
			pn.legend = append(pn.legend, legendEntry{label: pathLabel(r.Path), thumbs: []plot.Thumbnailer{l}})
		}
		pn.p.Add(l)
	}
	return noValue
}

// differs reports whether quantities a and b of route r differ by more than
// 1% at some size: a line of a drawn over the line of b would show.
func differs(r *model.Route, sizes []units.Bytes, a, b quantity) bool {
	for _, n := range sizes {
		res := r.Evaluate(n)
		x, y := a.model(res), b.model(res)
		if x > 0 && y > 0 && math.Abs(x/y-1) > 0.01 {
			return true
		}
	}
	return false
}

// measuredPoints adds the measured points that have quantity q, a series
// at a time, with their rows and legend entries.
func (pn *panel) measuredPoints(c *checked, q quantity, sizes, msizes *span) {
	other := 0
	for _, m := range c.Measured {
		var xys plotter.XYs
		for _, pt := range m.Points {
			v := q.meas(pt)
			if v <= 0 {
				continue
			}
			pn.data.add("measured", m.Label, m.Path, pt.Bytes, q.key, v)
			y := v / q.scale
			xys = append(xys, plotter.XY{X: pt.Bytes, Y: y})
			pn.lo, pn.hi = math.Min(pn.lo, y), math.Max(pn.hi, y)
			sizes.add(pt.Bytes)
			msizes.add(pt.Bytes)
		}
		if len(xys) == 0 {
			continue
		}
		s, _ := plotter.NewScatter(xys)
		s.GlyphStyle = measuredGlyph(m, &other)
		pn.p.Add(s)
		pn.legend = append(pn.legend, legendEntry{label: "measured: " + m.Label, thumbs: []plot.Thumbnailer{s}})
	}
}

// setRanges fits the axes around what was drawn: powers of two around the
// sizes (one more where a measured point sits on the edge), decades or a
// round maximum around the values of q.
func (pn *panel) setRanges(q quantity, sizes, msizes span) {
	p := pn.p
	if sizes.lo > sizes.hi { // nothing at all: keep the axes valid
		sizes, pn.lo, pn.hi = span{1, 1 << 20}, 1, 10
	}
	p.X.Min, p.X.Max = logRange(sizes.lo, sizes.hi, 2)
	// Measured points on the edge of the axis get a little room.
	if msizes.lo <= p.X.Min {
		p.X.Min /= 2
	}
	if msizes.hi >= p.X.Max {
		p.X.Max *= 2
	}
	if q.log {
		p.Y.Min, p.Y.Max = logRange(pn.lo, pn.hi, 10)
	} else {
		p.Y.Min, p.Y.Max = 0, niceMax(pn.hi)
	}
}

func measuredGlyph(m Measured, other *int) draw.GlyphStyle {
	st := PathStyle(m.Path)
	shape := st.Glyph
	if !knownPath(m.Path) {
		shape = otherGlyphs[*other%len(otherGlyphs)]
		*other++
	}
	return draw.GlyphStyle{Color: st.Color, Radius: GlyphRadius, Shape: shape}
}

// niceMax rounds a linear axis maximum up to 1, 2, 2.5 or 5 times a power
// of ten, with 5% headroom.
func niceMax(v float64) float64 {
	if !(v > 0) {
		return 1
	}
	v *= 1.05
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// drawOrder puts the GPU paths first and the references (dashed, thinner)
// on top, so that a reference equal to a GPU path does not hide it. The
// legend keeps this order too.
func drawOrder(rs []*model.Route) []*model.Route {
	var gpu, ref []*model.Route
	for _, r := range rs {
		if isReference(r.Path) {
			ref = append(ref, r)
		} else {
			gpu = append(gpu, r)
		}
	}
	return append(gpu, ref...)
}

func isReference(p model.Path) bool {
	return p.Role == model.RoleReference || p.Role == model.RoleIntraNode
}

func lineWidth(p model.Path) vg.Length {
	if isReference(p) {
		return RefLineWidth
	}
	return LineWidth
}

func pathLabel(p model.Path) string {
	switch p.Role {
	case model.RoleIntraNode:
		return p.Name + " (inside one node)"
	case model.RoleReference:
		return p.Name + " (host reference)"
	}
	return p.Name
}

// finishSweep assembles a figure from panels with a shared legend.
func finishSweep(c *checked, name, title, what string, measured bool, pns ...panel) *Figure {
	f := &Figure{Name: name, Title: title, Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(measured && len(c.Measured) > 0)}
	var tables []Table
	for _, pn := range pns {
		tables = append(tables, pn.data)
	}
	f.Data = joinSweeps(tables)
	seen := map[string]bool{}
	for _, pn := range pns {
		f.panels = append(f.panels, axes{p: pn.p, xlabel: pn.xlabel, ylabel: pn.ylabel})
		for _, e := range pn.legend {
			if !seen[e.label] {
				seen[e.label] = true
				f.legend = append(f.legend, e)
			}
		}
		for _, n := range pn.notes {
			if !seen[n] {
				seen[n] = true
				f.Notes = append(f.Notes, n)
			}
		}
	}
	var names, reasons []string
	if c.Scenario != nil {
		names, reasons = c.infeasible()
		if n := c.infeasibleNote(names); n != "" {
			f.Notes = append(f.Notes, n)
		}
	}
	f.Notes = append(f.Notes, c.notes...)
	f.Caption = caption(what, f.Provenance, reasons)
	return f
}

// joinSweeps joins the long-form tables of a figure's panels: one value
// column when their units agree, else one per unit ("value_s",
// "value_cores"), empty on the rows of the other units, so that a column
// holds one unit.
func joinSweeps(ts []Table) Table {
	var units []string
	for _, t := range ts {
		if u := t.Column("value").Unit; !hasString(units, u) {
			units = append(units, u)
		}
	}
	if len(units) == 1 {
		out := sweepTable(units[0])
		for _, t := range ts {
			out.append(t)
		}
		return out
	}
	out := Table{Columns: sweepTable("").Columns[:5]}
	for _, u := range units {
		out.Columns = append(out.Columns, numCol("value_"+unitSuffix(u), u))
	}
	for _, t := range ts {
		u := t.Column("value").Unit
		for i := 0; i < t.Len(); i++ {
			row := []any{t.Columns[0].Text[i], t.Columns[1].Text[i], t.Columns[2].Text[i], t.Columns[3].Num[i], t.Columns[4].Text[i]}
			for _, v := range units {
				x := math.NaN()
				if v == u {
					x = t.Columns[5].Num[i]
				}
				row = append(row, x)
			}
			out.add(row...)
		}
	}
	return out
}

// unitSuffix is a unit as a column name's suffix: "s", "Bps", "cores", "pct".
func unitSuffix(u string) string {
	return strings.NewReplacer("B/s", "Bps", "%", "pct", "/", "per").Replace(u)
}

func caption(what, prov string, reasons []string) string {
	var b strings.Builder
	b.WriteString(what)
	if prov != "" {
		b.WriteString(" Data: " + prov + ".")
	}
	if len(reasons) > 0 {
		b.WriteString(" Not drawn: " + strings.Join(reasons, " "))
		if !strings.HasSuffix(reasons[len(reasons)-1], ".") {
			b.WriteString(".")
		}
	}
	return b.String()
}

// Latency plots one-way latency against message size, log–log: one solid
// (or, for the host references, dashed) line per feasible path with its
// one-message latency (as the hardware moves one message: device stages
// overlap packet by packet), the pipelined latency dotted when
// in.Pipelined, and measured latencies (Point.Seconds) as points. Paths
// infeasible in the scenario are listed, not drawn. It reads Scenario,
// Paths, Sizes, Measured and Pipelined.
func Latency(in Input) (*Figure, error) {
	c, err := check(in, false)
	if err != nil {
		return nil, err
	}
	if err := needMeasured(c, qLatency, "latency (seconds)"); err != nil {
		return nil, err
	}
	q := []quantity{qLatency}
	if in.Pipelined && c.Scenario != nil {
		q = append(q, qPipelined)
	}
	pn := sweepPanel(c, q, true)
	// The legend's dotted sample stands for the dotted lines drawn; where
	// pipelining changes no path's latency, there are none, and no entry.
	if len(pn.dotted) > 0 {
		l := &plotter.Line{LineStyle: draw.LineStyle{Color: MutedColor, Width: LineWidth * 0.8, Dashes: Dotted}}
		pn.legend = insertAfterModel(pn.legend, legendEntry{
			label: "pipelined, " + c.Scenario.Pipeline.Chunk.Human() + " chunks", thumbs: []plot.Thumbnailer{l}, stands: pn.dotted})
	}
	what := "One-way latency against message size (log–log)."
	if c.Scenario != nil {
		what += " Lines: the model's one-message latency, as the hardware moves one message (device stages overlap packet by packet)"
		if len(pn.dotted) > 0 {
			what += "; dotted: pipelined in " + c.Scenario.Pipeline.Chunk.Human() + " chunks, where pipelining changes it"
		}
		what += "."
	}
	if len(c.Measured) > 0 {
		what += " Points: measured."
	}
	return finishSweep(c, "latency", "Latency vs message size", what, true, pn), nil
}

// insertAfterModel puts e after the model entries (before the measured ones).
func insertAfterModel(entries []legendEntry, e legendEntry) []legendEntry {
	i := len(entries)
	for j, x := range entries {
		if strings.HasPrefix(x.label, "measured: ") {
			i = j
			break
		}
	}
	return append(entries[:i], append([]legendEntry{e}, entries[i:]...)...)
}

// needMeasured fails when the figure has no model and no measured point
// carries its quantity.
func needMeasured(c *checked, q quantity, what string) error {
	if c.Scenario != nil {
		return nil
	}
	for _, m := range c.Measured {
		for _, p := range m.Points {
			if q.meas(p) > 0 {
				return nil
			}
		}
	}
	return inputErr("no scenario and no measured %s: nothing to draw", what)
}

// Bandwidth plots streaming bandwidth (back-to-back messages) against
// message size: log x, linear y in GB/s, with the NIC's port rate as a
// reference line and measured throughputs (Point.Rate) as points. It
// reads Scenario, Paths, Sizes and Measured.
func Bandwidth(in Input) (*Figure, error) {
	c, err := check(in, false)
	if err != nil {
		return nil, err
	}
	if err := needMeasured(c, qBandwidth, "rate (bytes per second)"); err != nil {
		return nil, err
	}
	pn := sweepPanel(c, []quantity{qBandwidth}, true)
	what := "Streaming bandwidth of back-to-back messages against message size (log x; 1 GB/s = 10^9 B/s)."
	// The scale follows the paths between nodes, the measurements and the
	// wire; a path inside one node (NVLink: hundreds of GB/s) may run off it.
	hiNet := 0.0
	for _, r := range c.feasible() {
		if r.Path.Internode {
			for _, n := range c.sizes {
				if v := float64(r.Evaluate(n).Bandwidth) / 1e9; !math.IsInf(v, 0) {
					hiNet = math.Max(hiNet, v)
				}
			}
		}
	}
	for _, m := range c.Measured {
		for _, p := range m.Points {
			hiNet = math.Max(hiNet, p.Rate/1e9)
		}
	}
	if s := c.Scenario; s != nil && s.NIC.Kind != model.KindLoopback && s.NIC.Rate > 0 {
		y := float64(s.NIC.Rate) / 1e9
		hiNet = math.Max(hiNet, y*1.08)
		ref := &refLine{y: y, label: "NIC port rate " + s.NIC.Rate.Gbits(), style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8), Dashes: Dashed}}
		pn.p.Add(ref)
		pn.p.Y.Max = math.Max(pn.p.Y.Max, niceMax(y*1.08))
		what += " Lines: the model, limited by its tightest resource (wire, PCIe, DDR or CPU); dashed grey: the NIC's nominal port rate."
	}
	if hiNet > 0 && pn.hi > 2*hiNet {
		pn.p.Y.Max = niceMax(hiNet)
		var off []string
		for _, r := range c.feasible() {
			top := 0.0
			for _, n := range c.sizes {
				if v := float64(r.Evaluate(n).Bandwidth) / 1e9; !math.IsInf(v, 0) {
					top = math.Max(top, v)
				}
			}
			if top > pn.p.Y.Max {
				off = append(off, r.Path.Name+" (up to "+units.Rate(top*1e9).Human()+")")
			}
		}
		pn.notes = append(pn.notes, "Off the scale: "+strings.Join(off, ", ")+".")
	}
	if len(c.Measured) > 0 {
		what += " Points: measured."
	}
	return finishSweep(c, "bandwidth", "Bandwidth vs message size", what, true, pn), nil
}

// CPUTime plots the CPU time each message costs (both nodes together)
// against message size, log–log, with measured CPU times (Point.CPU) as
// points. It reads Scenario, Paths, Sizes and Measured.
func CPUTime(in Input) (*Figure, error) {
	c, err := check(in, false)
	if err != nil {
		return nil, err
	}
	if err := needMeasured(c, qCPU, "CPU time"); err != nil {
		return nil, err
	}
	pn := sweepPanel(c, []quantity{qCPU}, true)
	return finishSweep(c, "cpu-time", "CPU time per message", cpuTimeWhat(c), true, pn), nil
}

func cpuTimeWhat(c *checked) string {
	w := "CPU time per message on both nodes together (sender + receiver) against message size (log–log)."
	if len(c.Measured) > 0 {
		w += " Points: measured user + system time per message."
	}
	return w
}

// coresFloor is the bottom of the cores axis.
const coresFloor = 1e-3

const coresWhat = "CPU cores both nodes need to carry the path's line rate (the rate its wire and links allow) with back-to-back messages of each size (log–log; the axis stops at 0.001 cores); dotted grey: one core."

// Cores plots the CPU cores both nodes need to sustain each path's line
// rate against message size, log–log, with one core as a reference. It is
// modeled only: it reads Scenario, Paths and Sizes.
func Cores(in Input) (*Figure, error) {
	in.Measured = nil
	c, err := check(in, true)
	if err != nil {
		return nil, err
	}
	pn := coresPanel(c)
	return finishSweep(c, "cores", "CPU cores at line rate", coresWhat, false, pn), nil
}

func coresPanel(c *checked) panel {
	pn := sweepPanel(c, []quantity{qCores}, false)
	pn.p.Add(&refLine{y: 1, label: "1 core", style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8), Dashes: Dotted}, right: true})
	// Below a thousandth of a core nobody cares: the lines run off the bottom.
	pn.p.Y.Min = math.Min(math.Max(pn.p.Y.Min, coresFloor), 0.1)
	pn.p.Y.Max = math.Max(pn.p.Y.Max, 10)
	return pn
}

// CPUCost draws CPUTime and Cores side by side as one figure with a shared
// legend. It reads Scenario (required), Paths, Sizes and Measured.
func CPUCost(in Input) (*Figure, error) {
	c, err := check(in, true)
	if err != nil {
		return nil, err
	}
	left := sweepPanel(c, []quantity{qCPU}, true)
	left.ylabel = "CPU time per message"
	right := coresPanel(c)
	right.ylabel = "cores at line rate"
	left.p.X.Tick.Marker = sizeTicks{maxLabels: 4}
	right.p.X.Tick.Marker = sizeTicks{maxLabels: 4}
	f := finishSweep(c, "cpu", "CPU cost: time per message and cores at line rate",
		"Left: "+cpuTimeWhat(c)+" Right: "+coresWhat, true, left, right)
	f.panelGap = 22
	f.legendBelow = true
	return f, nil
}

// refLine is a horizontal reference line across the plot with a label
// above its left end.
type refLine struct {
	y     float64
	label string
	style draw.LineStyle
	right bool // label at the right end
}

func (r *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(r.y)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
	ts := textStyle(NoteSize, false, MutedColor)
	ts.YAlign = draw.YBottom
	at := vg.Point{X: c.Min.X + 4, Y: y + 1.5}
	if r.right {
		ts.XAlign = draw.XRight
		at.X = c.Max.X - 4
	}
	// A white box behind the label keeps it readable over the lines.
	rect := ts.Rectangle(r.label)
	box := vg.Rectangle{Min: rect.Min.Add(at), Max: rect.Max.Add(at)}
	box.Min.X -= 1.5
	box.Max.X += 1.5
	c.FillPolygon(color.White, []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}})
	c.FillText(ts, at, r.label)
}

func (r *refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), r.y, r.y
}

var _ plot.DataRanger = (*refLine)(nil)

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
