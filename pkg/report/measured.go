package report

import (
	"fmt"
	"image/color"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
)

var glyphShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

// measurements fills the measurements section: for each run, the measured
// series over the model's curves, a table of the points against the model,
// and what could not be measured.
func (b *builder) measurements(sec *section, a *analysis) {
	in := b.in
	if len(in.Measured) == 0 {
		why := "this report was rendered from the model alone"
		if in.ProbeNote != "" {
			why += " (" + in.ProbeNote + ")"
		}
		sec.note("No measurements: " + why + ". Every figure above is modeled from scenario " + in.Scenario.Name + "; none is a measurement. Give measurement runs with gpupath report --data DIR (DIR from gpupath measure).")
		return
	}
	sec.text("Measured points are drawn over the model's curves for the path they measure, in the model's colour; the model comes from scenario " + in.Scenario.Name + ", the points from the run named. Where the run measured a different machine or link (loopback, another NIC) than the scenario describes, the gap is the difference between them, not an error of either.")
	for i, m := range in.Measured {
		sec.h3(fmt.Sprintf("Run %d: %s", i+1, m.Source))
		status := ""
		if m.Status != "" {
			status = ", run " + m.Status
		}
		sec.p("Measured on %s, started %s, by gpupath %s%s.", orNone(m.Host), stamp(m.Start), orNone(m.Tool), status)
		origin := fmt.Sprintf("measured on %s at %s (%s); model from scenario %s", orNone(m.Host), stamp(m.Start), m.Source, in.Scenario.Name)
		for _, q := range []Quantity{Latency, Bandwidth, Cost} {
			var ss []Series
			for _, s := range m.Series {
				if s.Quantity == q && len(s.Points) > 0 {
					ss = append(ss, s)
				}
			}
			if len(ss) == 0 {
				continue
			}
			p, t := a.measuredPlot(q, ss, fmt.Sprintf("Measured %s, run %d", q, i+1))
			kind := "modeled and measured"
			if q == Cost {
				kind = "measured"
			}
			caption := fmt.Sprintf("Points: measured medians from %s; lines: the model of the path each series measures.", m.Source)
			if q == Cost {
				caption = fmt.Sprintf("Measured medians from %s: costs of single operations (copies, system calls) that the model takes as parameters.", m.Source)
			}
			b.fig(sec, &figure{ID: fmt.Sprintf("run%d-%s", i+1, q), Title: fmt.Sprintf("Measured %s, run %d", q, i+1), Kind: kind, Origin: origin, Draw: p, Data: t,
				Caption: caption})
			sec.table(measuredTable(a, q, ss))
		}
		if len(m.NotMeasured) > 0 {
			var items []string
			for _, n := range m.NotMeasured {
				items = append(items, n.Probe+": not measured: "+n.Reason)
			}
			sec.p("Not measured in this run:")
			sec.list(items)
		}
		if len(m.Skipped) > 0 {
			sec.p("Input not used (%d line(s)):", len(m.Skipped))
			items := m.Skipped
			if len(items) > 20 {
				items = append(append([]string(nil), items[:20]...), fmt.Sprintf("… and %d more", len(m.Skipped)-20))
			}
			sec.list(items)
		}
	}
}

func (q Quantity) value(p Point) float64 {
	if q == Bandwidth {
		return float64(p.Rate)
	}
	return float64(p.Median)
}

func (a *analysis) modelValue(q Quantity, path string, n model.Bytes) (float64, bool) {
	r, ok := a.routes[path]
	if !ok || !r.Feasible || q == Cost {
		return 0, false
	}
	res := r.Evaluate(n)
	if q == Bandwidth {
		return float64(res.Bandwidth), true
	}
	return float64(res.Pipelined), true
}

func (a *analysis) measuredPlot(q Quantity, ss []Series, title string) (*legendPlot, *table) {
	ylabel, yl := "one-way latency", secondsLabel
	switch q {
	case Bandwidth:
		ylabel, yl = "throughput", rateLabel
	case Cost:
		ylabel = "time per operation"
	}
	p := newLegendPlot(newPlot(title, "message size", ylabel))
	sizeAxis(&p.X)
	logAxis(&p.Y, yl)
	t := &table{Columns: []string{"series", "probe", "variant", "path", "target", "bytes", "median_s", "min_s", "p99_s", "throughput_Bps", "cpu_s", "iterations", "stable", "model"}}
	if q == Bandwidth {
		t.Columns[len(t.Columns)-1] = "model_bandwidth_Bps"
	} else {
		t.Columns[len(t.Columns)-1] = "model_latency_s"
	}
	// Model lines for the paths measured, over the measured range.
	lo, hi := model.Bytes(1<<62), model.Bytes(1)
	paths := map[string]bool{}
	for _, s := range ss {
		for _, pt := range s.Points {
			lo, hi = min(lo, pt.Bytes), max(hi, pt.Bytes)
		}
		if _, ok := a.modelValue(q, s.Path, 1); ok {
			paths[s.Path] = true
		}
	}
	// Room around the points, so that none sits on the frame.
	p.X.Min, p.X.Max = float64(lo)/2, float64(hi)*2
	for _, path := range sortedKeys(paths) {
		var sizes []model.Bytes
		for n := model.Bytes(1); n <= 4*hi && n <= 1<<40; n *= 2 {
			if n*4 >= lo {
				sizes = append(sizes, n)
			}
		}
		addLine(p, path, "model: "+path, sizes, func(n model.Bytes) float64 { v, _ := a.modelValue(q, path, n); return v }, lineStyle(path))
	}
	for i, s := range ss {
		var pts plotter.XYs
		for _, pt := range s.Points {
			if v := q.value(pt); finitePos(v) {
				pts = append(pts, plotter.XY{X: float64(pt.Bytes), Y: v})
			}
			mv, ok := a.modelValue(q, s.Path, pt.Bytes)
			var mval any = ""
			if ok {
				mval = mv
			}
			t.add(s.Label, s.Probe, s.Variant, s.Path, s.Target, int64(pt.Bytes), float64(pt.Median), float64(pt.Min), float64(pt.P99),
				float64(pt.Rate), float64(pt.CPU), pt.Iterations, pt.Stable, mval)
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			panic(err)
		}
		var clr color.Color = color.Black
		if _, ok := pathStyles[s.Path]; ok {
			clr = styleOf(s.Path).color
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(3), Shape: glyphShapes[i%len(glyphShapes)]}
		p.Add(sc)
		p.Leg.Add("measured: "+s.Label, sc)
	}
	return p, t
}

func measuredTable(a *analysis, q Quantity, ss []Series) *docTable {
	t := &docTable{Head: []string{"series", "size", "median", "min", "p99", "model", "measured / model"},
		Widths: []float64{2.4, 0.8, 0.9, 0.9, 0.9, 0.9, 0.9},
		Right:  []bool{false, true, true, true, true, true, true}}
	if q == Bandwidth {
		t.Head = []string{"series", "size", "throughput", "time per message", "CPU per message", "model", "measured / model"}
	}
	for _, s := range ss {
		pts := append([]Point(nil), s.Points...)
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].Bytes < pts[j].Bytes })
		for _, pt := range pts {
			row := []cell{c(s.Label), c(pt.Bytes.Human())}
			if q == Bandwidth {
				cpu := "—"
				if pt.CPU > 0 {
					cpu = pt.CPU.Human()
				}
				row = append(row, c(pt.Rate.Human()), c(pt.Median.Human()), c(cpu))
			} else {
				row = append(row, c(pt.Median.Human()), c(pt.Min.Human()), c(pt.P99.Human()))
			}
			mv, ok := a.modelValue(q, s.Path, pt.Bytes)
			switch {
			case !ok:
				row = append(row, c("—"), c("—"))
			case q == Bandwidth:
				row = append(row, c(model.Rate(mv).Human()), c(ratio(q.value(pt), mv)))
			default:
				row = append(row, c(model.Seconds(mv).Human()), c(ratio(q.value(pt), mv)))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func ratio(m, v float64) string {
	if v <= 0 {
		return "—"
	}
	return strings.TrimSuffix(strconv.FormatFloat(m/v, 'f', 2, 64), ".00") + "×"
}
