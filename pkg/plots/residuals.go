package plots

import (
	"math"

	"github.com/gpupath/gpupath/pkg/model"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Residuals draws the model's error against measurement, in percent,
// against message size: 100·(model − measured)/measured for every
// measured point (positive: the model predicts more than was measured).
// One panel for latency (points with Seconds; the store-and-forward
// latency, or the pipelined one when in.Pipelined) and one for bandwidth
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
	lat := qLatency
	if in.Pipelined {
		lat = qPipelined
		lat.meas = qLatency.meas
	}
	f := &Figure{Name: "residuals", Title: "Model error against measurement", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: c.provenance(true), legendBelow: true}
	f.Data.Columns = []string{"series", "path", "bytes", "quantity", "measured", "model", "error_percent"}
	var pns []panel
	for _, q := range []struct {
		q    quantity
		name string
	}{{lat, "latency"}, {qBandwidth, "bandwidth"}} {
		pn := panel{p: newPlot(), xlabel: "message size", ylabel: q.name + " error (%)", lo: math.Inf(1), hi: math.Inf(-1)}
		xlo, xhi := math.Inf(1), math.Inf(-1)
		other := 0
		for i, m := range c.Measured {
			var xys plotter.XYs
			for _, pt := range m.Points {
				meas := q.q.meas(pt)
				if meas <= 0 {
					continue
				}
				n := model.Bytes(math.Max(1, math.Round(pt.Bytes)))
				mod := q.q.model(routes[i].Evaluate(n))
				if !(mod > 0) || math.IsInf(mod, 0) {
					continue
				}
				e := 100 * (mod - meas) / meas
				f.Data.Rows = append(f.Data.Rows, []string{m.Label, m.Path, fmtFloat(pt.Bytes), q.q.key, fmtFloat(meas), fmtFloat(mod), fmtFloat(e)})
				xys = append(xys, plotter.XY{X: pt.Bytes, Y: e})
				pn.lo, pn.hi = math.Min(pn.lo, e), math.Max(pn.hi, e)
				xlo, xhi = math.Min(xlo, pt.Bytes), math.Max(xhi, pt.Bytes)
			}
			if len(xys) == 0 {
				continue
			}
			gs := measuredGlyph(m, &other)
			l, _ := plotter.NewLine(xys)
			l.LineStyle = draw.LineStyle{Color: gs.Color, Width: vg.Points(0.8)}
			s, _ := plotter.NewScatter(xys)
			s.GlyphStyle = gs
			pn.p.Add(l, s)
			pn.legend = append(pn.legend, legendEntry{label: "measured: " + m.Label + " vs model " + m.Path, thumbs: []plot.Thumbnailer{l, s}})
		}
		if xlo > xhi {
			continue
		}
		pn.p.Add(&refLine{y: 0, label: "model = measured", style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8)}})
		pn.p.X.Scale = plot.LogScale{}
		pn.p.X.Tick.Marker = sizeTicks{maxLabels: 5}
		pn.p.X.Min, pn.p.X.Max = logRange(xlo/1.5, xhi*1.5, 2)
		lim := niceMax(math.Max(math.Max(math.Abs(pn.lo), math.Abs(pn.hi)), 9.5))
		pn.p.Y.Min, pn.p.Y.Max = -lim, lim
		pn.p.Y.Tick.Marker = percentTicks{}
		pns = append(pns, pn)
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
	which := "store-and-forward"
	if in.Pipelined {
		which = "pipelined (" + c.Scenario.Pipeline.Chunk.Human() + " chunks)"
	}
	f.Caption = caption("The model's error against each measured point, 100·(model − measured)/measured, against message size; positive: the model predicts more latency (or bandwidth) than was measured. Latency is compared with the model's "+
		which+" latency of the path each series names.", f.Provenance, nil)
	return f, nil
}

func containsLabel(es []legendEntry, label string) bool {
	for _, e := range es {
		if e.label == label {
			return true
		}
	}
	return false
}
