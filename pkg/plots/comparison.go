package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Comparison is one measured curve and the models of it, as the report's
// section "Model against measurement" compares them.
type Comparison struct {
	// Title, Provenance (what is measured where and when, what is modeled
	// from which scenario) and What (the caption's account of the figure)
	// frame the figure like every other.
	Title, Provenance, What string
	// Bytes are the measured sizes, ascending; Measured the measured
	// seconds at each (> 0).
	Bytes, Measured []float64
	// CurveBytes are the sizes the models' curves are drawn through
	// (ComparisonModel.Curve), ascending: many, over the measured range;
	// nil draws each model through the measured sizes.
	CurveBytes []float64
	// Models are the models of the curve, drawn in order.
	Models []ComparisonModel
	// Band is the error, in percent, within which a model counts as
	// right: the error panel shades ±Band.
	Band float64
}

// ComparisonModel is one model of a Comparison's curve.
type ComparisonModel struct {
	Label string
	Role  ModelRole
	// Seconds is the model's time at each size; a value that is not a
	// positive number is not drawn. Percent is its error at each size,
	// 100·(model − measured)/measured.
	Seconds, Percent []float64
	// Curve is the model's time at each of the Comparison's CurveBytes:
	// the line drawn (nil: the line goes through Seconds).
	Curve []float64
}

// ModelRole says which model of a Comparison a curve is: it picks the
// curve's colour, dashes and glyph and its columns in the data.
type ModelRole int

// The models a Comparison compares.
const (
	// PresetModel is the model with the preset's parameters: grey, dashed.
	PresetModel ModelRole = iota
	// CalibratedModel is the model fitted to the measurements: blue.
	CalibratedModel
	// ComponentModel is the calibrated model from the component probes
	// alone: light blue, dotted.
	ComponentModel
)

// key names the role's data columns: preset_s, preset_error_pct.
func (r ModelRole) key() string {
	return [...]string{"preset", "calibrated", "components"}[r]
}

func (r ModelRole) style() (draw.LineStyle, draw.GlyphDrawer) {
	switch r {
	case PresetModel:
		return draw.LineStyle{Color: rgb(0x7a7a7a), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}, draw.TriangleGlyph{}
	case ComponentModel:
		return draw.LineStyle{Color: rgb(0x6fa8dc), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}, draw.SquareGlyph{}
	}
	return draw.LineStyle{Color: rgb(0x0b5394), Width: vg.Points(1.5)}, draw.CircleGlyph{}
}

// ModelComparison draws c as a Figure of two panels side by side: the
// measured medians (points) and each model's curve against message size,
// log–log, and each model's error at each measured size on a percent axis
// with ±Band shaded; the legend in rows underneath, as every figure of two
// panels has it. The data has a row per measured size: bytes, measured_s,
// the first two models' times (ROLE_s) and then their errors
// (ROLE_error_pct, empty where the model has no time), then each further
// model's time and error. No size, sizes below one byte, measured times
// that are not positive numbers and lists of different lengths are errors
// wrapping ErrInput.
func ModelComparison(c Comparison) (*Figure, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	curves, times, elim := c.curves()
	lat := newPlot()
	lat.X.Scale, lat.Y.Scale = plot.LogScale{}, plot.LogScale{}
	lat.X.Tick.Marker = sizeTicks{maxLabels: 5}
	lat.Y.Tick.Marker = decadeTicks{label: secondsLabel, clip: true}
	lat.X.Min, lat.X.Max = logRange(c.Bytes[0]/1.5, c.Bytes[len(c.Bytes)-1]*1.5, 2)
	lat.Y.Min, lat.Y.Max = times.lo/1.6, times.hi*1.6
	ep := c.errorPanel(lat.X.Min, lat.X.Max, elim)
	f := &Figure{Name: "model-comparison", Title: c.Title, Provenance: c.Provenance, Width: DefaultWidth, Height: DefaultHeight,
		legendBelow: true, panelGap: 22, Data: c.table()}
	var models []legendEntry
	for _, cv := range curves {
		if len(cv.line) == 0 {
			continue
		}
		l, _ := plotter.NewLine(cv.line) // finite and positive: checked in curves
		l.LineStyle = cv.style
		lat.Add(l)
		es := cv.style
		es.Width = vg.Points(0.9)
		if len(cv.es) > 0 {
			addErrorCurve(ep, cv.es, es, draw.GlyphStyle{Color: cv.style.Color, Radius: vg.Points(2.2), Shape: cv.glyph})
		}
		models = append(models, legendEntry{label: cv.m.Label, thumbs: []plot.Thumbnailer{l}})
	}
	var meas plotter.XYs
	for j, n := range c.Bytes {
		meas = append(meas, plotter.XY{X: n, Y: c.Measured[j]})
	}
	ms, _ := plotter.NewScatter(meas) // checked: positive and finite
	ms.GlyphStyle = draw.GlyphStyle{Color: rgb(0x8a4b00), Radius: vg.Points(2.6), Shape: Mark{Shape: Circle, Filled: true}}
	lat.Add(ms)
	f.legend = append([]legendEntry{{label: "measured (median per size)", thumbs: []plot.Thumbnailer{ms}}}, models...)
	f.panels = []axes{{p: lat, xlabel: "message size", ylabel: "one-way time"}, {p: ep, xlabel: "message size", ylabel: "model − measured, % of measured"}}
	f.Caption = caption(c.What, c.Provenance, nil)
	return f, nil
}

// comparisonCurve is a model's curve of a Comparison: the line drawn
// through its times (at CurveBytes, or at the measured sizes), its errors
// at the measured sizes where it has a time, and its look.
type comparisonCurve struct {
	m        ComparisonModel
	style    draw.LineStyle
	glyph    draw.GlyphDrawer
	line, es plotter.XYs
}

// curves are the models' curves, the span of every time drawn (measured
// and modeled) and the largest error to show (at least twice the band).
func (c Comparison) curves() ([]*comparisonCurve, span, float64) {
	var curves []*comparisonCurve
	for _, m := range c.Models {
		st, gl := m.Role.style()
		curves = append(curves, &comparisonCurve{m: m, style: st, glyph: gl})
	}
	times, elim := newSpan(), 2*c.Band
	for j := range c.Bytes {
		times.add(c.Measured[j])
	}
	for _, cv := range curves {
		for j, n := range c.Bytes {
			p, e := cv.m.Seconds[j], cv.m.Percent[j]
			if !drawableTime(p) || math.IsNaN(e) || math.IsInf(e, 0) {
				continue
			}
			cv.es = append(cv.es, plotter.XY{X: n, Y: e})
			elim = math.Max(elim, math.Abs(e))
			if cv.m.Curve == nil {
				cv.line = append(cv.line, plotter.XY{X: n, Y: p})
				times.add(p)
			}
		}
		for j, n := range c.CurveBytes {
			if cv.m.Curve == nil {
				break
			}
			if p := cv.m.Curve[j]; drawableTime(p) {
				cv.line = append(cv.line, plotter.XY{X: n, Y: p})
				times.add(p)
			}
		}
	}
	return curves, times, elim
}

// errorPanel is the panel of the models' errors, from xmin to xmax, up to
// ±elim (rounded up), with ±Band shaded and the zero line.
func (c Comparison) errorPanel(xmin, xmax, elim float64) *plot.Plot {
	ep := newPlot()
	errorAxes(ep, sizeTicks{maxLabels: 5}, xmin, xmax, niceLimit(elim*1.1), percentTicks{minusSign: true})
	band, _ := plotter.NewPolygon(plotter.XYs{{X: ep.X.Min, Y: -c.Band}, {X: ep.X.Max, Y: -c.Band}, {X: ep.X.Max, Y: c.Band}, {X: ep.X.Min, Y: c.Band}})
	band.Color = rgb(0xe8f1e4)
	band.LineStyle.Width = 0
	ep.Add(band)
	zero, _ := plotter.NewLine(plotter.XYs{{X: ep.X.Min, Y: 0}, {X: ep.X.Max, Y: 0}})
	zero.LineStyle = draw.LineStyle{Color: rgb(0x555555), Width: vg.Points(0.6)}
	ep.Add(zero)
	return ep
}

func (c Comparison) check() error {
	n := len(c.Bytes)
	if n == 0 {
		return inputErr("model comparison: no measured size")
	}
	if len(c.Measured) != n {
		return inputErr("model comparison: %d sizes and %d measured times", n, len(c.Measured))
	}
	for j, b := range c.Bytes {
		if !(b >= 1) || math.IsInf(b, 0) || !drawableTime(c.Measured[j]) {
			return inputErr("model comparison: size %v measured %v: not a size of at least 1 byte and a time within %g – %g s", b, c.Measured[j], MinDrawnSeconds, MaxDrawnSeconds)
		}
	}
	for _, m := range c.Models {
		if len(m.Seconds) != n || len(m.Percent) != n {
			return inputErr("model comparison: %s: %d times and %d errors for %d sizes", m.Label, len(m.Seconds), len(m.Percent), n)
		}
		if m.Curve != nil && len(m.Curve) != len(c.CurveBytes) {
			return inputErr("model comparison: %s: %d curve times for %d curve sizes", m.Label, len(m.Curve), len(c.CurveBytes))
		}
	}
	for _, b := range c.CurveBytes {
		if !(b >= 1) || math.IsInf(b, 0) {
			return inputErr("model comparison: curve size %v: not a size of at least 1 byte", b)
		}
	}
	if !(c.Band >= 0) || math.IsInf(c.Band, 0) {
		return inputErr("model comparison: band %v%%", c.Band)
	}
	return nil
}

// table is the data of ModelComparison.
func (c Comparison) table() Table {
	t := Table{Columns: []Column{numCol("bytes", "B"), numCol("measured_s", "s")}}
	// The first two models' times, then their errors; then each further
	// model's time and error.
	var order []Column
	var cells []func(j int) float64
	addTime := func(m ComparisonModel) {
		order = append(order, numCol(m.Role.key()+"_s", "s"))
		cells = append(cells, func(j int) float64 { return m.Seconds[j] })
	}
	addErr := func(m ComparisonModel) {
		order = append(order, numCol(m.Role.key()+"_error_pct", "%"))
		cells = append(cells, func(j int) float64 {
			if !drawableTime(m.Seconds[j]) {
				return math.NaN()
			}
			return m.Percent[j]
		})
	}
	head := c.Models[:min(2, len(c.Models))]
	for _, m := range head {
		addTime(m)
	}
	for _, m := range head {
		addErr(m)
	}
	for _, m := range c.Models[len(head):] {
		addTime(m)
		addErr(m)
	}
	t.Columns = append(t.Columns, order...)
	row := make([]any, len(t.Columns))
	for j, n := range c.Bytes {
		row[0], row[1] = n, c.Measured[j]
		for k, f := range cells {
			row[2+k] = f(j)
		}
		t.add(row...)
	}
	return t
}

// niceLimit rounds a percentage up to a limit whose half is a round
// number: 20, 30, 40, 50, 60, 80, 100, 150, 200, …
func niceLimit(v float64) float64 {
	for _, l := range []float64{20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 400, 600, 800, 1000} {
		if v <= l {
			return l
		}
	}
	return math.Ceil(v/1000) * 1000
}
