package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Curve is one series of a SizeChart, in base units (bytes; seconds,
// bytes per second, percent): a model line (Mark nil, solid unless Dashes)
// or measured points (Mark set).
type Curve struct {
	Label  string
	Color  color.Color
	Dashes []vg.Length
	Mark   *Mark
	X, Y   []float64
}

// RefLine is a horizontal reference line (a link's rate) with its label.
type RefLine struct {
	Label  string
	Y      float64
	Color  color.Color
	Dashes []vg.Length
}

// SizePanel is one panel of a SizeChart: values against message size on a
// log x axis.
type SizePanel struct {
	Title  string
	YLabel string
	LogY   bool
	// Scale divides the y values for drawing (1e9: bytes per second drawn
	// as GB/s); 0 means 1.
	Scale float64
	// YFormat labels a log y axis's decades (nil: the plain number).
	YFormat func(float64) string
	Curves  []Curve
	Refs    []RefLine
	// Signed lets a linear y axis go below zero (it starts at zero
	// otherwise); Zero draws the line y = 0; NoLegend leaves the legend out.
	Signed, Zero, NoLegend bool
	// LegendDown moves the legend (top left) down by that many points,
	// below a reference line at the top.
	LegendDown vg.Length
}

// SizeChart draws panels of values against message size, stacked, in a
// Chart of the default figure width and the given height: model lines,
// measured points (on top) and reference lines, each panel with its legend
// in the top left corner. Values that cannot be drawn (not finite; not
// positive on a log axis) are left out; a curve left with nothing is an
// error, so that drawing cannot fail.
func SizeChart(title, subtitle string, height vg.Length, panels ...SizePanel) (*Chart, error) {
	c := &Chart{Title: title, Subtitle: subtitle, Width: DefaultWidth, Height: height}
	for _, sp := range panels {
		p, err := sp.plot()
		if err != nil {
			return nil, err
		}
		c.panels = append(c.panels, p)
	}
	if len(c.panels) == 0 {
		return nil, inputErr("size chart: no panels")
	}
	if !(height > 0) {
		return nil, inputErr("size chart: height %v", height)
	}
	return c, nil
}

// plot draws the panel: its axes, then reference lines and the zero line
// under the curves, model lines under measured points.
func (sp SizePanel) plot() (*plot.Plot, error) {
	scale := sp.Scale
	if scale == 0 {
		scale = 1
	}
	p := sp.axes()
	lines, marks, xs, err := sp.curves(scale)
	if err != nil {
		return nil, err
	}
	for _, r := range sp.Refs {
		if !(r.Y > 0) || math.IsInf(r.Y, 0) || xs.lo > xs.hi {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xs.lo, Y: r.Y / scale}, {X: xs.hi, Y: r.Y / scale}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: r.Color, Width: RefLineWidth, Dashes: r.Dashes}
		p.Add(l)
		if !sp.NoLegend {
			p.Legend.Add(r.Label, l)
		}
	}
	if sp.Zero && xs.lo <= xs.hi {
		l, err := plotter.NewLine(plotter.XYs{{X: xs.lo, Y: 0}, {X: xs.hi, Y: 0}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: MutedColor, Width: vg.Points(0.8)}
		p.Add(l)
	}
	// Lines first, points on top of them; the legend in the same order.
	for _, e := range append(lines, marks...) {
		p.Add(e.t)
		if t, ok := e.t.(plot.Thumbnailer); ok && !sp.NoLegend {
			p.Legend.Add(e.label, t)
		}
	}
	return p, nil
}

// axes is the panel's empty plot: its title, a log axis of sizes, a log or
// linear y axis, the grid and the legend's place (top left).
func (sp SizePanel) axes() *plot.Plot {
	p := plot.New()
	chartStyle(p)
	p.Title.Text = sp.Title
	p.X.Label.Text = "message size"
	p.Y.Label.Text = sp.YLabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	if sp.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{label: sp.YFormat, every: 1}
	} else {
		if !sp.Signed {
			p.Y.Min = 0
		}
		p.Y.Tick.Marker = linearTicks{round: true}
	}
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: GridColor, Width: vg.Points(0.5)}
	g.Horizontal = g.Vertical
	p.Add(g)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.YOffs = -sp.LegendDown
	p.Legend.XOffs = vg.Points(6)
	p.Legend.Padding = vg.Points(3)
	p.Legend.ThumbnailWidth = vg.Points(20)
	return p
}

// sizeEntry is a curve of a panel, ready to add, with its legend label.
type sizeEntry struct {
	label string
	t     plot.Plotter
}

// curves makes the panel's model lines and measured points from the
// values that can be drawn (y divided by scale), and the span of their
// sizes; a curve with nothing to draw is an error.
func (sp SizePanel) curves(scale float64) (lines, marks []sizeEntry, xs span, err error) {
	xs = newSpan()
	for _, cv := range sp.Curves {
		if len(cv.X) != len(cv.Y) {
			return nil, nil, xs, inputErr("size chart: %q has %d sizes and %d values", cv.Label, len(cv.X), len(cv.Y))
		}
		var xy plotter.XYs
		for i := range cv.X {
			x, y := cv.X[i], cv.Y[i]/scale
			if !(x > 0) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || sp.LogY && !(y > 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: x, Y: y})
			xs.lo, xs.hi = min(xs.lo, x), max(xs.hi, x)
		}
		if len(xy) == 0 {
			return nil, nil, xs, inputErr("size chart: %q has nothing to draw", cv.Label)
		}
		if cv.Mark != nil {
			s, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, nil, xs, err
			}
			s.GlyphStyle = draw.GlyphStyle{Color: cv.Color, Radius: GlyphRadius, Shape: *cv.Mark}
			marks = append(marks, sizeEntry{cv.Label, s})
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, nil, xs, err
		}
		l.LineStyle = draw.LineStyle{Color: cv.Color, Width: LineWidth, Dashes: cv.Dashes}
		lines = append(lines, sizeEntry{cv.Label, l})
	}
	return lines, marks, xs, nil
}
