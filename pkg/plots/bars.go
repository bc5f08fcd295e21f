package plots

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BreakdownSizes are Breakdown's default sizes: a small message (latency
// is fixed costs), a medium one (the stages' rates start to matter) and a
// large one (the slowest rate dominates).
var BreakdownSizes = []units.Bytes{8, 64 << 10, 16 << 20}

// stageLetters are the stage letters A–G: what each stands for in
// every path, in a few words for Breakdown's legend (meaning), in the
// Diagram's key (key) and fewer for a column heading of StageMap (role).
var stageLetters = []struct{ letter, role, meaning, key string }{
	{"A", "copy GPU→host", "GPU → host copy (cudaMemcpy D2H)", "GPU → DDR copy"},
	{"B", "send (CPU)", "send: copy + TCP/IP stack, or RDMA post", "send side on the CPU"},
	{"C", "NIC reads", "NIC DMA read (DDR, or GPU by P2P)", "NIC DMA read"},
	{"D", "wire", "wire: serialization, hops, propagation", "wire"},
	{"E", "NIC writes", "NIC DMA write (DDR, or GPU by P2P)", "NIC DMA write"},
	{"F", "receive (CPU)", "receive: TCP/IP stack + copy, or poll", "receive side on the CPU"},
	{"G", "copy host→GPU", "host → GPU copy (cudaMemcpy H2D)", "DDR → GPU copy"},
}

// Breakdown draws, for each of a few message sizes (in.Sizes, at most
// four; nil: BreakdownSizes), one horizontal bar per feasible path split
// into its stages' step-by-step times (each stage as if it had the whole
// message before the next starts: they add up to the step-by-step
// latency, not the one-message latency), coloured by stage letter
// A–G (LetterColors), with the total at the end of the bar. Infeasible
// paths are listed, not drawn. It reads Scenario (required), Paths and
// Sizes.
func Breakdown(in Input) (*Figure, error) {
	if in.Sizes == nil {
		in.Sizes = BreakdownSizes
	}
	in.Measured = nil
	c, err := check(in, true)
	if err != nil {
		return nil, err
	}
	if len(c.sizes) > 4 {
		return nil, inputErr("breakdown: at most 4 sizes, got %d", len(c.sizes))
	}
	routes := c.feasible()
	if len(routes) == 0 {
		return nil, inputErr("breakdown: no feasible path among %s in scenario %s", strings.Join(c.Paths, ", "), c.Scenario.Name)
	}

	f := &Figure{Name: "breakdown", Title: "Latency by stage", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(false), legendBelow: true, panelGap: 10}
	f.Data = Table{Columns: []Column{textCol("path"), numCol("bytes", "B"), textCol("stage"), textCol("letter"), textCol("side"), numCol("latency_s", "s")}}
	used := map[string]int{} // segments drawn per letter ("other": none)
	for k, n := range c.sizes {
		p := breakdownPanel(routes, n, k == 0, used, &f.Data)
		f.panels = append(f.panels, axes{p: p, xlabel: "latency (step by step)"})
	}
	for _, l := range stageLetters {
		if used[l.letter] > 0 {
			f.legend = append(f.legend, legendEntry{label: l.letter + "  " + l.meaning, thumbs: []plot.Thumbnailer{toSwatch(LetterColors[l.letter])}, count: used[l.letter]})
		}
	}
	if used["other"] > 0 {
		f.legend = append(f.legend, legendEntry{label: "stage without a letter A–G", thumbs: []plot.Thumbnailer{toSwatch(OtherStageColor)}, count: used["other"]})
	}
	bad, reasons := c.infeasible()
	if n := c.infeasibleNote(bad); n != "" {
		f.Notes = append(f.Notes, n)
	}
	f.Caption = caption("Each path's one-way step-by-step latency (each stage finishing before the next starts) split into its stages, at "+humanList(c.sizes)+
		"; each stage coloured by its letter (A–G), total at the end of the bar. Each panel has its own scale.", f.Provenance, reasons)
	return f, nil
}

// breakdownPanel is Breakdown's panel of n-byte messages: a stacked bar
// per route (the first at the top, named when labels is set), coloured by
// letter. It counts the segments of each letter in used and adds a data row per
// stage to data.
func breakdownPanel(routes []*model.Route, n units.Bytes, labels bool, used map[string]int, data *Table) *plot.Plot {
	p := newPlot()
	bars := &stackBars{}
	for i := len(routes) - 1; i >= 0; i-- {
		r := routes[i]
		res := r.Evaluate(n)
		row := barRow{}
		for _, st := range res.Stages {
			v := float64(st.Latency)
			data.add(r.Path.Name, n, st.Name, st.Letter, string(st.Side), v)
			if !(v > 0) || math.IsInf(v, 0) {
				continue
			}
			clr, key := OtherStageColor, "other"
			if lc, ok := LetterColors[st.Letter]; ok {
				clr, key = lc, st.Letter
			}
			used[key]++
			row.segs = append(row.segs, barSeg{v: v, color: clr})
			row.total += v
		}
		row.label = units.Seconds(row.total).Human()
		bars.rows = append(bars.rows, row)
	}
	p.Add(bars)
	ticks := make([]plot.Tick, len(routes))
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i)}
		if labels {
			ticks[i].Label = routes[len(routes)-1-i].Path.Name // first path at the top
		}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length, p.Y.Width = 0, 0
	p.Y.Min, p.Y.Max = -0.6, float64(len(routes))-0.4
	p.X.Tick.Marker = timeAxisTicks{}
	p.X.Min = 0
	p.X.Max = bars.max() * 1.32 // room for the totals
	p.Title.Text = n.Human() + " messages"
	p.Title.TextStyle = textStyle(LabelSize, true, TextColor)
	p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
	p.Title.Padding = 4
	return p
}

func humanList(sizes []units.Bytes) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = n.Human()
	}
	switch len(s) {
	case 1:
		return s[0]
	case 2:
		return s[0] + " and " + s[1]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// swatch is a legend thumbnail: a filled square.
type swatch color.RGBA

func (s swatch) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	side := min(h, vg.Points(8))
	x0 := c.Max.X - side - 3
	y0 := c.Min.Y + (h-side)/2
	c.FillPolygon(color.RGBA(s), rect(x0, y0, x0+side, y0+side))
}

func toSwatch(c color.Color) swatch {
	r, g, b, a := c.RGBA()
	return swatch(color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)})
}

func rect(x0, y0, x1, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

type barSeg struct {
	v     float64
	color color.Color
}

type barRow struct {
	segs  []barSeg
	total float64
	label string
}

// stackBars draws horizontal stacked bars, row i at y = i, with the total
// written after each bar.
type stackBars struct{ rows []barRow }

func (b *stackBars) max() float64 {
	m := 0.0
	for _, r := range b.rows {
		m = math.Max(m, r.total)
	}
	if m == 0 {
		return 1
	}
	return m
}

func (b *stackBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	half := (trY(1) - trY(0)) * 0.34
	sep := draw.LineStyle{Color: color.White, Width: vg.Points(0.6)}
	ts := textStyle(NoteSize, false, TextColor)
	ts.YAlign = draw.YCenter
	for i, r := range b.rows {
		y := trY(float64(i))
		x := 0.0
		for j, s := range r.segs {
			x0, x1 := trX(x), trX(x+s.v)
			c.FillPolygon(s.color, rect(x0, y-half, x1, y+half))
			if j > 0 {
				c.StrokeLine2(sep, x0, y-half, x0, y+half)
			}
			x += s.v
		}
		c.FillText(ts, vg.Point{X: trX(r.total) + 3, Y: y}, r.label)
	}
}

func (b *stackBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, b.max(), -0.5, float64(len(b.rows)) - 0.5
}

// costMetrics are the three bars of Costs.
var costMetrics = []struct {
	key, label string
	value      func(res model.Result) float64
}{
	{"copies", "explicit copies of the payload", func(r model.Result) float64 { return float64(r.Copies) }},
	{"ddr_bytes_per_byte", "DDR bytes read + written per payload byte", func(r model.Result) float64 { return r.DDRBytes / float64(r.Bytes) }},
	{"pcie_crossings", "PCIe transfers of the payload", func(r model.Result) float64 { return float64(r.Crossings) }},
}

// costSize is the message size Costs evaluates at; the three counts do
// not depend on it.
const costSize = units.Bytes(1 << 20)

// Costs draws, per feasible path, the explicit copies of the payload and
// the PCIe transfers of the payload (counts, left panel), and the DDR bytes
// read and written per payload byte on both nodes (a ratio, right panel),
// each bar with its value on top: a count and a ratio never share an
// axis. Infeasible paths are listed, not drawn. It reads Scenario
// (required) and Paths.
func Costs(in Input) (*Figure, error) {
	in.Measured, in.Sizes = nil, []units.Bytes{costSize}
	c, err := check(in, true)
	if err != nil {
		return nil, err
	}
	routes := c.feasible()
	if len(routes) == 0 {
		return nil, inputErr("costs: no feasible path among %s in scenario %s", strings.Join(c.Paths, ", "), c.Scenario.Name)
	}
	f := &Figure{Name: "costs", Title: "Copies, DDR traffic and PCIe crossings per path", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(false), legendBelow: true, panelGap: 22}
	f.Data = Table{Columns: []Column{textCol("path"), intCol("copies", ""), numCol("ddr_bytes_per_byte", ""), intCol("pcie_crossings", "")}}
	counts := &groupBars{colors: []color.Color{MetricColors[0], MetricColors[2]}}
	ddr := &groupBars{colors: []color.Color{MetricColors[1]}}
	ticks := make([]plot.Tick, len(routes))
	for i, r := range routes {
		res := r.Evaluate(costSize)
		var vals []float64
		for _, m := range costMetrics {
			vals = append(vals, m.value(res))
		}
		counts.groups = append(counts.groups, []float64{vals[0], vals[2]})
		ddr.groups = append(ddr.groups, []float64{vals[1]})
		f.Data.add(r.Path.Name, vals[0], vals[1], vals[2])
		// The first path at the top.
		ticks[i] = plot.Tick{Value: float64(len(routes) - 1 - i), Label: r.Path.Name}
	}
	for k, pn := range []struct {
		g     *groupBars
		label string
	}{{counts, "copies and PCIe crossings per message"}, {ddr, "DDR bytes per payload byte"}} {
		p := newPlot()
		p.Add(pn.g)
		tk := ticks
		if k > 0 { // the paths are named once, at the left
			tk = make([]plot.Tick, len(ticks))
			for i := range ticks {
				tk[i] = plot.Tick{Value: ticks[i].Value}
			}
		}
		p.Y.Tick.Marker = plot.ConstantTicks(tk)
		p.Y.Tick.Length, p.Y.Width = 0, 0
		p.Y.Min, p.Y.Max = -0.5, float64(len(routes))-0.5
		p.X.Min, p.X.Max = 0, math.Max(niceMax(pn.g.max()*1.12), 1)
		p.X.Tick.Marker = linearTicks{round: true}
		f.panels = append(f.panels, axes{p: p, xlabel: pn.label})
	}
	for _, i := range []int{0, 2, 1} {
		f.legend = append(f.legend, legendEntry{label: costMetrics[i].label, thumbs: []plot.Thumbnailer{toSwatch(MetricColors[i])}, count: len(routes)})
	}
	bad, reasons := c.infeasible()
	if n := c.infeasibleNote(bad); n != "" {
		f.Notes = append(f.Notes, n)
	}
	f.Caption = caption("For each path: left, the explicit copies of the payload (by a CPU or a copy engine) and the number of times the payload crosses PCIe; right, the bytes read and written in DDR per payload byte on both nodes. They do not depend on the message size.",
		f.Provenance, reasons)
	return f, nil
}

// groupBars draws groups of horizontal bars, group i centred at
// y = len(groups)−1−i (the first at the top), bar j of a group (from the
// top) in colors[j], each value written after its bar.
type groupBars struct {
	groups [][]float64
	colors []color.Color
}

func (g *groupBars) max() float64 {
	m := 0.0
	for _, vs := range g.groups {
		for _, v := range vs {
			m = math.Max(m, v)
		}
	}
	return m
}

func (g *groupBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	unit := trY(1) - trY(0)
	ts := textStyle(NoteSize, false, TextColor)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	for i, vs := range g.groups {
		n := len(vs)
		h := unit * 0.78 / vg.Length(n)
		top := trY(float64(len(g.groups)-1-i)) + h*vg.Length(n)/2
		for j, v := range vs {
			y1 := top - vg.Length(j)*h
			x0, x1 := trX(0), trX(v)
			if x1-x0 < 0.8 {
				x1 = x0 + 0.8 // a zero shows as a hairline
			}
			c.FillPolygon(g.colors[j%len(g.colors)], rect(x0, y1-h+0.6, x1, y1-0.6))
			c.FillText(ts, vg.Point{X: x1 + 2, Y: y1 - h/2}, strconv.FormatFloat(v, 'g', 3, 64))
		}
	}
}

func (g *groupBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, g.max(), -0.5, float64(len(g.groups)) - 0.5
}
