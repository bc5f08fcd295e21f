package plots

import (
	"math"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Residuals draws the model's error against measurement, in percent,
// against message size: 100·(model − measured)/measured for every
// measured point (positive: the model predicts more than was measured).
// One panel for latency (points with Seconds; the one-message latency,
// or the pipelined one when in.Pipelined) and one for bandwidth
// (points with Rate), each drawn only when some point has it. Every
// measured series must name a path (Measured.Path) that is feasible in
// the scenario. It reads Scenario (required), Measured (required) and
// Pipelined.
func Residuals(in Input) (*Figure, error) {
	in.Sizes = nil
	c, err := check(in, true)
	if err != nil {
		return nil, err
	}
	routes, err := residualRoutes(c)
	if err != nil {
		return nil, err
	}
	lat := qLatency
	if in.Pipelined {
		lat = qPipelined
		lat.meas = qLatency.meas
	}
	f := &Figure{Name: "residuals", Title: "Model error against measurement", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(true), legendBelow: true}
	// One unit per column: latencies in the _s columns, rates in the _Bps
	// ones (the other pair is empty on a row).
	f.Data = Table{Columns: []Column{textCol("series"), textCol("path"), numCol("bytes", "B"), textCol("quantity"),
		numCol("measured_s", "s"), numCol("model_s", "s"), numCol("measured_Bps", "B/s"), numCol("model_Bps", "B/s"), numCol("error_percent", "%")}}
	var pns []panel
	for _, q := range []struct {
		q    quantity
		name string
	}{{lat, "latency"}, {qBandwidth, "bandwidth"}} {
		if pn, ok := residualPanel(c, routes, q.q, q.name, &f.Data); ok {
			pns = append(pns, pn)
		}
	}
	if len(pns) == 0 {
		return nil, inputErr("residuals: no measured point has a latency or a rate")
	}
	if len(pns) == 1 {
		f.legendBelow = false
	}
	for _, pn := range pns {
		f.panels = append(f.panels, axes{p: pn.p, xlabel: pn.xlabel, ylabel: pn.ylabel})
		for _, e := range pn.legend {
			if !containsLabel(f.legend, e.label) {
				f.legend = append(f.legend, e)
			}
		}
	}
	f.panelGap = 22
	f.Notes = append(f.Notes, c.notes...)
	which := "one-message"
	if in.Pipelined {
		which = "pipelined (" + c.Scenario.Pipeline.Chunk.Human() + " chunks)"
	}
	f.Caption = caption("The model's error against each measured point, 100·(model − measured)/measured, against message size; positive: the model predicts more latency (or bandwidth) than was measured. Latency is compared with the model's "+
		which+" latency of the path each series names.", f.Provenance, nil)
	return f, nil
}

// residualRoutes are the routes the measured series are compared with:
// every series must name a path that is feasible in the scenario.
func residualRoutes(c *checked) ([]*model.Route, error) {
	if len(c.Measured) == 0 {
		return nil, inputErr("residuals: no measured series")
	}
	routes := make([]*model.Route, len(c.Measured))
	for i, m := range c.Measured {
		if m.Path == "" {
			return nil, inputErr("residuals: measured series %q names no model path", m.Label)
		}
		p, _ := model.LookupPath(m.Path) // checked
		r := p.Route(c.Scenario)
		if !r.Feasible {
			return nil, inputErr("residuals: measured series %q is compared with path %s, which is infeasible in scenario %s", m.Label, m.Path, c.Scenario.Name)
		}
		routes[i] = r
	}
	return routes, nil
}

// residualPanel is the panel of the errors of quantity q (named name on
// the axis) at every measured point that has it, each series against its
// route; it adds a data row per point to data, and reports false when no
// point has q.
func residualPanel(c *checked, routes []*model.Route, q quantity, name string, data *Table) (panel, bool) {
	pn := panel{p: newPlot(), xlabel: "message size", ylabel: name + " error (%)", lo: math.Inf(1), hi: math.Inf(-1)}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	other := 0
	for i, m := range c.Measured {
		var xys plotter.XYs
		for _, pt := range m.Points {
			meas := q.meas(pt)
			if meas <= 0 {
				continue
			}
			n := units.Bytes(math.Max(1, math.Round(pt.Bytes)))
			mod := q.model(routes[i].Evaluate(n))
			if !(mod > 0) || math.IsInf(mod, 0) {
				continue
			}
			e := 100 * (mod - meas) / meas
			if math.IsInf(e, 0) || math.IsNaN(e) {
				continue // both drawable, but too far apart for a percentage
			}
			if q.unit == "s" {
				data.add(m.Label, m.Path, pt.Bytes, q.key, meas, mod, math.NaN(), math.NaN(), e)
			} else {
				data.add(m.Label, m.Path, pt.Bytes, q.key, math.NaN(), math.NaN(), meas, mod, e)
			}
			xys = append(xys, plotter.XY{X: pt.Bytes, Y: e})
			pn.lo, pn.hi = math.Min(pn.lo, e), math.Max(pn.hi, e)
			xlo, xhi = math.Min(xlo, pt.Bytes), math.Max(xhi, pt.Bytes)
		}
		if len(xys) == 0 {
			continue
		}
		gs := measuredGlyph(m, &other)
		l, s := addErrorCurve(pn.p, xys, draw.LineStyle{Color: gs.Color, Width: vg.Points(0.8)}, gs)
		pn.legend = append(pn.legend, legendEntry{label: "measured: " + m.Label + " vs model " + m.Path, thumbs: []plot.Thumbnailer{l, s}})
	}
	if xlo > xhi {
		return pn, false
	}
	pn.p.Add(&refLine{y: 0, label: "model = measured", style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8)}})
	xmin, xmax := logRange(xlo/1.5, xhi*1.5, 2)
	lim := niceMax(math.Max(math.Max(math.Abs(pn.lo), math.Abs(pn.hi)), 9.5))
	errorAxes(pn.p, sizeTicks{maxLabels: 5}, xmin, xmax, lim, percentTicks{})
	return pn, true
}

func containsLabel(es []legendEntry, label string) bool {
	for _, e := range es {
		if e.label == label {
			return true
		}
	}
	return false
}

// errorAxes makes p a panel of errors in percent against message size: a
// log x axis from xmin to xmax marked by x, a y axis from −lim to lim
// marked by y. Residuals and ModelComparison draw their errors on it.
func errorAxes(p *plot.Plot, x sizeTicks, xmin, xmax, lim float64, y percentTicks) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = x
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = -lim, lim
	p.Y.Tick.Marker = y
}

// addErrorCurve adds one series of errors to an error panel: a line
// through the points and the points on it.
func addErrorCurve(p *plot.Plot, xys plotter.XYs, line draw.LineStyle, glyph draw.GlyphStyle) (*plotter.Line, *plotter.Scatter) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		panic(err) // the errors are finite: the callers checked them
	}
	l.LineStyle = line
	s, _ := plotter.NewScatter(xys)
	s.GlyphStyle = glyph
	p.Add(l, s)
	return l, s
}
