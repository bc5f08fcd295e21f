package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
)

// drawer is anything that draws itself on a canvas: a *plot.Plot, a
// diagram, tiles of plots.
type drawer interface {
	Draw(c draw.Canvas)
}

// drawFunc adapts a function to drawer.
type drawFunc func(c draw.Canvas)

func (f drawFunc) Draw(c draw.Canvas) { f(c) }

// figure is one numbered figure: what it draws, its data, where the data
// comes from.
type figure struct {
	Num     int
	ID      string // slug in the file names: figure-02-latency.csv
	Title   string
	Caption string
	// Kind is "modeled", "measured" or "modeled and measured"; Origin says
	// from which scenario, or where and when it was measured.
	Kind     string
	Origin   string
	W, H     vg.Length
	Draw     drawer
	Data     *table
	NotDrawn []notDrawnJSON
}

// Base is the file name of the figure's data without extension.
func (f *figure) Base() string { return fmt.Sprintf("figure-%02d-%s", f.Num, f.ID) }

// Anchor is the HTML id of the figure.
func (f *figure) Anchor() string { return fmt.Sprintf("fig-%d", f.Num) }

func (a *analysis) notDrawnJSON() []notDrawnJSON {
	var out []notDrawnJSON
	for _, p := range a.notDrawn() {
		out = append(out, notDrawnJSON{Path: p, Reason: a.routes[p].Reason})
	}
	return out
}

// notDrawnText says which paths a figure leaves out, for its caption.
func (a *analysis) notDrawnText() string {
	nd := a.notDrawn()
	if len(nd) == 0 {
		return ""
	}
	var parts []string
	for _, p := range nd {
		parts = append(parts, p+" ("+shortReason(a.routes[p].Reason)+")")
	}
	return " Not drawn, infeasible on this scenario: " + strings.Join(parts, "; ")
}

// addLine adds a path's curve to p, skipping points a log axis cannot show.
func addLine(p *legendPlot, path, label string, xs []model.Bytes, y func(model.Bytes) float64, sty draw.LineStyle) {
	var pts plotter.XYs
	for _, n := range xs {
		if v := y(n); finitePos(v) {
			pts = append(pts, plotter.XY{X: float64(n), Y: v})
		}
	}
	if len(pts) < 2 {
		return
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		panic(err) // the points are checked above
	}
	l.LineStyle = sty
	p.Add(l)
	if label != "" {
		p.Leg.Add(label, l)
	}
}

// curves is a figure of one quantity against message size, one line per
// drawn path; base, when not nil, is drawn thin and dotted underneath for
// comparison (what-if figures).
type curveSpec struct {
	id, title, ylabel string
	y                 func(r model.Result) float64
	yLabel            func(float64) string
	// nicRate draws the NIC's nominal rate as a horizontal line.
	nicRate bool
	columns           []string
	row               func(path string, r model.Result) []any
}

func (a *analysis) curves(spec curveSpec, title string, base *analysis, baseName string) (*legendPlot, *table) {
	p := newLegendPlot(newPlot(title, "message size", spec.ylabel))
	sizeAxis(&p.X)
	logAxis(&p.Y, spec.yLabel)
	sizes := curveSizes()
	t := &table{Columns: spec.columns}
	if base != nil {
		for _, path := range base.drawn() {
			sty := lineStyle(path)
			sty.Width = vg.Points(0.8)
			sty.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
			addLine(p, path, "", sizes, func(n model.Bytes) float64 { return spec.y(base.eval(path, n)) }, sty)
		}
	}
	for _, path := range a.drawn() {
		results := make(map[model.Bytes]model.Result, len(sizes))
		for _, n := range sizes {
			r := a.eval(path, n)
			results[n] = r
			t.add(spec.row(path, r)...)
		}
		addLine(p, path, path, sizes, func(n model.Bytes) float64 { return spec.y(results[n]) }, lineStyle(path))
	}
	if spec.nicRate {
		nr := float64(a.s.NIC.Rate)
		addLine(p, "", "NIC "+a.s.NIC.Rate.Gbits(), []model.Bytes{sizes[0], sizes[len(sizes)-1]}, func(model.Bytes) float64 { return nr },
			draw.LineStyle{Color: textGrey, Width: vg.Points(0.7), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}})
	}
	if base != nil {
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 2}})
		if err == nil {
			l.LineStyle = draw.LineStyle{Color: textGrey, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
			p.Leg.Add(baseName+" (dotted)", l)
		}
	}
	return p, t
}

var latencySpec = curveSpec{
	id: "latency", ylabel: "one-way latency", yLabel: secondsLabel,
	y:       func(r model.Result) float64 { return float64(r.Pipelined) },
	columns: []string{"path", "bytes", "latency_s", "pipelined_latency_s", "chunks"},
	row: func(path string, r model.Result) []any {
		return []any{path, int64(r.Bytes), float64(r.Latency), float64(r.Pipelined), r.Chunks}
	},
}

var bandwidthSpec = curveSpec{
	id: "bandwidth", ylabel: "streaming bandwidth", yLabel: rateLabel, nicRate: true,
	y:       func(r model.Result) float64 { return float64(r.Bandwidth) },
	columns: []string{"path", "bytes", "bandwidth_Bps", "bottleneck", "line_rate_Bps"},
	row: func(path string, r model.Result) []any {
		return []any{path, int64(r.Bytes), float64(r.Bandwidth), r.Bottleneck, float64(r.LineRate)}
	},
}

var cpuSpec = curveSpec{
	id: "cpu", ylabel: "CPU time per message (both nodes)", yLabel: secondsLabel,
	y:       func(r model.Result) float64 { return float64(r.CPU) },
	columns: []string{"path", "bytes", "cpu_s", "cpu_sender_s", "cpu_receiver_s"},
	row: func(path string, r model.Result) []any {
		return []any{path, int64(r.Bytes), float64(r.CPU), float64(r.CPUSender), float64(r.CPUReceiver)}
	},
}

var coresSpec = curveSpec{
	id: "cores", ylabel: "CPU cores to carry the line rate", yLabel: numberLabel,
	y:       func(r model.Result) float64 { return r.Cores },
	columns: []string{"path", "bytes", "cores_at_line_rate", "cores_sender", "cores_receiver", "line_rate_Bps"},
	row: func(path string, r model.Result) []any {
		return []any{path, int64(r.Bytes), r.Cores, r.CoresSender, r.CoresReceiver, float64(r.LineRate)}
	},
}

// letterRoles names what each seed letter does, for legends.
var letterRoles = []struct{ letter, role string }{
	{"A", "copy GPU→host"}, {"B", "send (CPU)"}, {"C", "NIC reads"}, {"D", "wire"},
	{"E", "NIC writes"}, {"F", "receive (CPU)"}, {"G", "copy host→GPU"}, {"", "other"},
}

var letterColors = map[string]color.Color{
	"A": rgb(0xE69F00), "B": rgb(0xD55E00), "C": rgb(0x56B4E9), "D": rgb(0x999999),
	"E": rgb(0x0072B2), "F": rgb(0xCC79A7), "G": rgb(0xF0E442), "": rgb(0x333333),
}

// breakdown draws, for a small, a medium and a large size, each feasible
// GPU path's store-and-forward latency as a bar split by stage.
func (a *analysis) breakdown() (drawer, *table) {
	t := &table{Columns: []string{"path", "bytes", "letter", "stage", "side", "latency_s"}}
	paths := append([]string(nil), a.feasible...)
	var plots []*plot.Plot
	for _, n := range breakdownSizes {
		// Choose a time unit that keeps the axis numbers short.
		var top float64
		for _, path := range paths {
			top = math.Max(top, float64(a.eval(path, n).Latency))
		}
		unit, uname := 1e-6, "µs"
		if top >= 2e-3 {
			unit, uname = 1e-3, "ms"
		}
		p := newPlot(fmt.Sprintf("%s messages", n.Human()), "store-and-forward latency ("+uname+")", "")
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.Legend = plot.NewLegend()
		var prev *plotter.BarChart
		// One bar chart per letter, stacked in stage order.
		for _, lr := range letterRoles {
			vals := make(plotter.Values, len(paths))
			found := false
			for i, path := range paths {
				i := len(paths) - 1 - i // the first path at the top
				r := a.eval(path, n)
				for _, st := range r.Stages {
					if st.Letter == lr.letter {
						vals[i] += float64(st.Latency) / unit
						found = true
					}
				}
			}
			if !found {
				continue
			}
			bc, err := plotter.NewBarChart(vals, vg.Points(11))
			if err != nil {
				panic(err)
			}
			bc.Horizontal = true
			bc.Color = letterColors[lr.letter]
			bc.LineStyle.Width = vg.Points(0.3)
			bc.LineStyle.Color = color.White
			if prev != nil {
				bc.StackOn(prev)
			}
			prev = bc
			p.Add(bc)
		}
		rev := make([]string, len(paths))
		for i, path := range paths {
			rev[len(paths)-1-i] = path
		}
		p.NominalY(rev...)
		p.X.Tick.Marker = linearTicks
		p.Y.Tick.Label.Font.Size = vg.Points(8.5)
		plots = append(plots, p)
		for _, path := range paths {
			r := a.eval(path, n)
			for _, st := range r.Stages {
				t.add(path, int64(n), st.Letter, st.Name, string(st.Side), float64(st.Latency))
			}
		}
	}
	d := drawFunc(func(c draw.Canvas) {
		legendH := vg.Points(22)
		drawLetterLegend(c, c.Max.Y-legendH, legendH)
		body := draw.Crop(c, 0, 0, 0, -legendH)
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(4)}
		grid := [][]*plot.Plot{}
		for _, p := range plots {
			grid = append(grid, []*plot.Plot{p})
		}
		canvases := plot.Align(grid, tiles, body)
		for i, p := range plots {
			p.Draw(canvases[i][0])
		}
	})
	return d, t
}

// drawLetterLegend draws the stage colours in one or two rows at the top.
func drawLetterLegend(c draw.Canvas, y0, h vg.Length) {
	sty := textStyle(7.5, sansFont)
	sty.YAlign = draw.YCenter
	x := c.Min.X + vg.Points(4)
	y := y0 + h/2
	for _, lr := range letterRoles[:7] {
		label := lr.letter + " " + lr.role
		w := sty.Width(label) + vg.Points(18)
		c.FillPolygon(letterColors[lr.letter], []vg.Point{{X: x, Y: y - 4}, {X: x + 8, Y: y - 4}, {X: x + 8, Y: y + 4}, {X: x, Y: y + 4}})
		c.FillText(sty, vg.Point{X: x + 11, Y: y}, label)
		x += w
	}
}

// costs draws copies, DDR bytes per payload byte and PCIe crossings per
// path side by side.
func (a *analysis) costs() (*legendPlot, *table) {
	t := &table{Columns: []string{"path", "copies", "ddr_bytes_per_byte", "pcie_crossings", "cores_at_line_rate_1MiB"}}
	paths := a.drawn()
	p := newLegendPlot(newPlot("Copies, DDR traffic and PCIe crossings per message", "", "count, or bytes per payload byte"))
	p.Y.Tick.Marker = linearTicks
	metrics := []struct {
		label string
		clr   color.Color
		get   func(model.Result) float64
	}{
		{"explicit copies", rgb(0xD55E00), func(r model.Result) float64 { return float64(r.Copies) }},
		{"DDR bytes per payload byte", rgb(0x0072B2), func(r model.Result) float64 { return r.DDRBytes / float64(r.Bytes) }},
		{"PCIe crossings of the payload", rgb(0x009E73), func(r model.Result) float64 { return float64(r.Crossings) }},
	}
	w := vg.Points(14)
	for i, m := range metrics {
		vals := make(plotter.Values, len(paths))
		for j, path := range paths {
			vals[j] = m.get(a.eval(path, refSize))
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			panic(err)
		}
		bc.Color = m.clr
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(i-1) * (w + vg.Points(1))
		p.Add(bc)
		p.Leg.Add(m.label, bc)
	}
	p.NominalX(paths...)
	p.Y.Min = 0
	for _, path := range paths {
		r := a.eval(path, refSize)
		t.add(path, r.Copies, r.DDRBytes/float64(r.Bytes), r.Crossings, r.Cores)
	}
	return p, t
}
