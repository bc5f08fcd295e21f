package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CalibrationSeries is one measured series of a calibration check: at the
// sizes no key was fitted on, its error against the preset's model and
// against the calibrated one, as fractions (measured/modeled − 1).
type CalibrationSeries struct {
	// Label names the series in the legend; Name in the data ("" : Label),
	// where a longer name (its file's) fits.
	Label, Name string
	// Path picks the colour (PathStyle); "" is grey.
	Path               string
	Bytes              []float64
	Preset, Calibrated []float64
}

// calibrationColors tell the series of a check apart (the Okabe–Ito
// palette without grey, which the legend's style entries use).
var calibrationColors = []color.Color{Blue, Vermillion, BluishGreen, ReddishPurple, Orange, SkyBlue, Black}

// CalibrationInput is the check of a calibration on the sizes left out.
type CalibrationInput struct {
	Title, Provenance, What string
	Series                  []CalibrationSeries
}

// CalibrationResiduals draws, for every series, its error on the sizes
// left out against message size, in percent: 100·(measured/modeled − 1)
// for the preset (dashed, open marks) and for the calibrated model (solid,
// filled), one colour and mark shape per series. A figure like every other
// one, with the data behind it (series, bytes, preset and calibrated error
// in percent). Sizes and errors must be finite, sizes positive.
func CalibrationResiduals(in CalibrationInput) (*Figure, error) {
	t := Table{Columns: []Column{textCol("series"), textCol("path"), numCol("bytes", BytesUnit), numCol("preset_error_percent", "%"), numCol("calibrated_error_percent", "%")}}
	if len(in.Series) == 0 {
		return nil, inputErr("no series")
	}
	pn := panel{p: newPlot(), xlabel: "message size", ylabel: "error (%)", lo: math.Inf(1), hi: math.Inf(-1)}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	// One entry per series (its calibrated curve), then what the two
	// styles mean: a legend half as long.
	var legend []legendEntry
	var preLine, calLine draw.LineStyle
	for si, s := range in.Series {
		if len(s.Bytes) != len(s.Preset) || len(s.Bytes) != len(s.Calibrated) {
			return nil, inputErr("series %q: %d sizes, %d and %d errors", s.Label, len(s.Bytes), len(s.Preset), len(s.Calibrated))
		}
		var pre, cal plotter.XYs
		for i, x := range s.Bytes {
			a, b := 100*s.Preset[i], 100*s.Calibrated[i]
			if !(x >= 1) || math.IsInf(x, 0) || math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
				return nil, inputErr("series %q: size %v errors %v, %v: sizes and errors must be finite", s.Label, x, a, b)
			}
			name := s.Name
			if name == "" {
				name = s.Label
			}
			t.add(name, s.Path, x, a, b)
			pre, cal = append(pre, plotter.XY{X: x, Y: a}), append(cal, plotter.XY{X: x, Y: b})
			pn.lo, pn.hi = math.Min(pn.lo, math.Min(a, b)), math.Max(pn.hi, math.Max(a, b))
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		}
		if len(pre) == 0 {
			continue
		}
		col := calibrationColors[si%len(calibrationColors)]
		shape := otherGlyphs[(si/len(calibrationColors))%len(otherGlyphs)]
		preLine = draw.LineStyle{Color: col, Width: vg.Points(0.7), Dashes: Dashed}
		calLine = draw.LineStyle{Color: col, Width: vg.Points(1.1)}
		addErrorCurve(pn.p, pre, preLine, draw.GlyphStyle{Color: col, Radius: GlyphRadius, Shape: draw.RingGlyph{}})
		cl, cs := addErrorCurve(pn.p, cal, calLine, draw.GlyphStyle{Color: col, Radius: GlyphRadius, Shape: shape})
		legend = append(legend, legendEntry{label: s.Label, thumbs: []plot.Thumbnailer{cl, cs}})
	}
	grey := func(l draw.LineStyle) draw.LineStyle { l.Color = MutedColor; return l }
	pl, _ := plotter.NewLine(plotter.XYs{{X: 1, Y: 0}})
	pl.LineStyle = grey(preLine)
	cl, _ := plotter.NewLine(plotter.XYs{{X: 1, Y: 0}})
	cl.LineStyle = grey(calLine)
	// They stand for every point drawn in their style.
	legend = append(legend, legendEntry{label: "dashed, open marks: the preset", thumbs: []plot.Thumbnailer{pl}, count: t.Len()},
		legendEntry{label: "solid, filled marks: calibrated", thumbs: []plot.Thumbnailer{cl}, count: t.Len()})
	if xlo > xhi {
		return nil, inputErr("no point to draw")
	}
	pn.p.Add(&refLine{y: 0, label: "model = measured", style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8)}})
	xmin, xmax := logRange(xlo/1.5, xhi*1.5, 2)
	lim := niceMax(math.Max(math.Max(math.Abs(pn.lo), math.Abs(pn.hi)), 9.5))
	errorAxes(pn.p, sizeTicks{maxLabels: 5}, xmin, xmax, lim, percentTicks{})
	f := &Figure{Name: "calibration-residuals", Title: in.Title, Provenance: in.Provenance, Width: DefaultWidth, Height: DefaultHeight, Data: t}
	f.panels = []axes{{p: pn.p, xlabel: pn.xlabel, ylabel: pn.ylabel}}
	f.legend = legend
	f.legendBelow = true
	// A long legend under the data: the figure grows by its rows, so the
	// data keep their height.
	if n := min(len(legend), MaxLegendEntries); n > 6 {
		f.Height += vg.Points(13) * vg.Length(n-6)
	}
	f.Caption = caption(in.What, in.Provenance, nil)
	return f, nil
}
