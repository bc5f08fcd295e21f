package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
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
	if in.Calibration != nil {
		sec.text("Section “Model against measurement” compares the same measurements with the model of what was measured — the same host, the loopback device for a transfer on one host — before and after the model was fitted to them.")
	}
	for i, m := range in.Measured {
		sec.h3(fmt.Sprintf("Run %d: %s", i+1, m.Source))
		status := ""
		if m.Status != "" {
			status = ", run " + m.Status
		}
		sec.p("Measured on %s, started %s, by gpupath %s%s.", orNone(m.Host), stamp(m.Start), orNone(m.Tool), status)
		origin := fmt.Sprintf("measured on %s at %s (%s); model from scenario %s", orNone(m.Host), stamp(m.Start), m.Source, in.Scenario.Name)
		b.measuredFigures(sec, a, i, m, origin)
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

// measuredFigures draws one run: latency, bandwidth and CPU time over the
// model (pkg/plots), the model's error against the run (Residuals), and the
// costs of single operations, each followed by its table.
func (b *builder) measuredFigures(sec *section, a *analysis, i int, m Measured, origin string) {
	s := a.s
	of := func(q Quantity) []Series {
		var out []Series
		for _, sr := range m.Series {
			if sr.Quantity == q && len(sr.Points) > 0 {
				out = append(out, sr)
			}
		}
		return out
	}
	run := fmt.Sprintf("run%d", i+1)
	lat, bw, cost := of(Latency), of(Bandwidth), of(Cost)
	pl := plotsMeasured(m, lat, func(_ Series, p Point) plots.Point { return plots.Point{Seconds: float64(p.Median)} })
	pb := plotsMeasured(m, bw, func(_ Series, p Point) plots.Point { return plots.Point{Rate: float64(p.Rate)} })
	pc := plotsMeasured(m, append(append([]Series(nil), lat...), bw...), func(_ Series, p Point) plots.Point {
		return plots.Point{CPU: max(float64(p.CPU), 0)}
	})
	if len(pl) > 0 {
		b.plot(sec, run+"-latency", "modeled and measured", origin)(roomForLegend(len(pl) + 2*len(measuredPaths(pl)))(plots.Latency(plots.Input{Scenario: s, Paths: measuredPaths(pl), Measured: pl, Pipelined: true})))
		sec.table(measuredTable(a, Latency, lat))
	}
	if len(pb) > 0 {
		b.plot(sec, run+"-bandwidth", "modeled and measured", origin)(roomForLegend(len(pb) + len(measuredPaths(pb)))(plots.Bandwidth(plots.Input{Scenario: s, Paths: measuredPaths(pb), Measured: pb})))
		sec.table(measuredTable(a, Bandwidth, bw))
	}
	if len(pc) > 0 {
		b.plot(sec, run+"-cpu", "modeled and measured", origin)(roomForLegend(len(pc) + len(measuredPaths(pc)))(plots.CPUTime(plots.Input{Scenario: s, Paths: measuredPaths(pc), Measured: pc})))
	}
	// Residuals compare only series whose path the scenario can run.
	var pr []plots.Measured
	for _, x := range append(append([]plots.Measured(nil), pl...), pb...) {
		if r, ok := a.routes[x.Path]; ok && r.Feasible {
			pr = append(pr, x)
		}
	}
	if len(pr) > 0 {
		b.plot(sec, run+"-residuals", "modeled and measured", origin)(roomForLegend(len(pr))(plots.Residuals(plots.Input{Scenario: s, Measured: pr, Pipelined: true})))
	}
	if len(cost) > 0 {
		p, t := costPlot(cost, fmt.Sprintf("Measured costs, run %d", i+1))
		b.fig(sec, &figure{ID: run + "-cost", Title: fmt.Sprintf("Measured costs, run %d", i+1), Kind: "measured", Origin: origin, Draw: p, Data: t,
			Caption: fmt.Sprintf("Measured medians from %s: costs of single operations (copies, system calls) that the model takes as parameters.", m.Source)})
		sec.table(measuredTable(a, Cost, cost))
	}
}

// roomForLegend makes a pkg/plots figure tall enough for a legend of n
// entries under its title and provenance: the figure lays them out at its
// size, and a run with many series would push the legend off the bottom.
func roomForLegend(n int) func(*plots.Figure, error) (*plots.Figure, error) {
	return func(pf *plots.Figure, err error) (*plots.Figure, error) {
		if err != nil {
			return pf, err
		}
		const titleH, provLineH, entryH, margins = 22, 10, 13, 70
		prov := textStyle(8, sansFont).Width(pf.Provenance) / (pf.Width - vg.Points(16))
		need := vg.Points(titleH+margins) + vg.Length(math.Ceil(float64(prov)))*provLineH + vg.Length(n)*entryH
		if need > pf.Height {
			pf.Height = need
		}
		return pf, nil
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

// costPlot draws measured costs of single operations (a memcpy, a system
// call): points only, the model has no curve for them.
func costPlot(ss []Series, title string) (*legendPlot, *table) {
	p := newLegendPlot(newPlot(title, "message size", "time per operation"))
	sizeAxis(&p.X)
	logAxis(&p.Y, secondsLabel)
	t := &table{Columns: []string{"series", "probe", "variant", "stage", "target", "bytes", "median_s", "min_s", "p99_s", "cpu_s", "iterations", "stable"}}
	lo, hi := model.Bytes(1<<62), model.Bytes(1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for i, s := range ss {
		var pts plotter.XYs
		for _, pt := range s.Points {
			lo, hi = min(lo, pt.Bytes), max(hi, pt.Bytes)
			if v := float64(pt.Median); finitePos(v) {
				ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
			}
			if v := float64(pt.Median); finitePos(v) {
				pts = append(pts, plotter.XY{X: float64(pt.Bytes), Y: v})
			}
			t.add(s.Label, s.Probe, s.Variant, s.Stage, s.Target, int64(pt.Bytes), float64(pt.Median), float64(pt.Min), float64(pt.P99),
				float64(pt.CPU), pt.Iterations, pt.Stable)
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			panic(err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: glyphColors[i%len(glyphColors)], Radius: vg.Points(3), Shape: glyphShapes[i%len(glyphShapes)]}
		p.Add(sc)
		p.Leg.Add(s.Label, sc)
	}
	// Room around the points, so that none sits on the frame (and a single
	// point still gives a range a log axis can draw).
	p.X.Min, p.X.Max = float64(lo)/2, float64(hi)*2
	if ylo <= yhi {
		p.Y.Min, p.Y.Max = ylo/2, yhi*2
	}
	return p, t
}

var glyphColors = []color.Color{rgb(0x000000), rgb(0xD55E00), rgb(0x0072B2), rgb(0x009E73), rgb(0xCC79A7), rgb(0xE69F00)}

func measuredTable(a *analysis, q Quantity, ss []Series) *docTable {
	t := &docTable{Caption: "Measured against the model of the path each series names (latency: pipelined, as in the summary).",
		Head:   []string{"series", "size", "median", "min", "p99", "model", "measured / model"},
		Widths: []float64{2.4, 0.8, 0.9, 0.9, 0.9, 0.9, 0.9},
		Right:  []bool{false, true, true, true, true, true, true}}
	switch q {
	case Bandwidth:
		t.Caption = "Measured against the model's streaming bandwidth of the path each series names."
		t.Head = []string{"series", "size", "throughput", "time per message", "CPU per message", "model", "measured / model"}
	case Cost:
		t.Caption = "Measured costs of single operations; the model takes them as parameters and has no curve for them."
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
