package plots

import (
	"fmt"
	"math"

	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CeilingSeries is one curve of a Ceiling figure: values by message size.
// Model series are drawn as lines in the style of their path, measured
// ones as points.
type CeilingSeries struct {
	Label string
	// Path picks the colour (PathStyle); "" is grey.
	Path  string
	Model bool
	// Dashed draws a model line dashed (a bound of another path, for
	// comparison).
	Dashed bool
	Bytes  []float64
	Values []float64 // seconds (Latency) or bytes per second
}

// CeilingInput is a measured series beside the model of the path it took:
// what the hardware and the path allow, and what was measured.
type CeilingInput struct {
	Title string
	// Latency draws seconds on a log axis; otherwise bytes per second on a
	// linear axis in GB/s (10⁹ B/s).
	Latency bool
	// YLabel names the y axis ("" : "one-way latency" or "GB/s").
	YLabel string
	Series []CeilingSeries
}

// Ceiling draws measured values against the modeled ceiling (or, for
// latency, floor) of a path, over message size on a log axis, with a
// legend. Its input is checked first: sizes and values must be finite and
// positive, and a series must have as many values as sizes. It returns the
// data behind the figure too.
func Ceiling(in CeilingInput) (*plot.Plot, Table, error) {
	t := Table{Columns: []Column{textCol("series"), textCol("kind"), textCol("path"), numCol("bytes", "B"), numCol("value", "")}}
	if len(in.Series) == 0 {
		return nil, t, inputErr("no series")
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range in.Series {
		if len(s.Bytes) != len(s.Values) {
			return nil, t, inputErr("series %q: %d sizes, %d values", s.Label, len(s.Bytes), len(s.Values))
		}
		for i, x := range s.Bytes {
			y := s.Values[i]
			if !(x >= 1) || math.IsInf(x, 0) || !(y > 0) || math.IsInf(y, 0) {
				return nil, t, inputErr("series %q: size %v value %v: sizes and values must be finite and positive", s.Label, x, y)
			}
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
	}
	if math.IsInf(xlo, 1) {
		return nil, t, inputErr("no point to draw")
	}
	p := plot.New()
	p.Title.Text = in.Title
	p.Title.TextStyle.Font = font.From(Font, TitleSize)
	p.Title.TextStyle.Color = TextColor
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(Font, LabelSize)
		a.Tick.Label.Font = font.From(Font, TickSize)
		a.Color, a.Tick.Color = MutedColor, MutedColor
	}
	p.Legend.TextStyle.Font = font.From(Font, LegendSize)
	p.Legend.Top, p.Legend.Left = true, true // curves rise to the right: the top left is free
	p.Legend.ThumbnailWidth = vg.Points(20)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = GridColor, GridColor
	p.Add(g)
	p.X.Label.Text = "message size"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = powTicks{base: 4, label: func(v float64) string { return units.Bytes(v).Human() }}
	p.X.Min, p.X.Max = xlo/1.5, xhi*1.5
	scale := 1e-9
	if in.Latency {
		p.Y.Label.Text = "one-way latency"
		if in.YLabel != "" {
			p.Y.Label.Text = in.YLabel
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = powTicks{base: 10, label: func(v float64) string { return units.Seconds(v).Human() }}
		p.Y.Min, p.Y.Max = ylo/2, yhi*6 // room for the legend
		scale = 1
	} else {
		p.Y.Label.Text = "GB/s"
		p.Y.Min, p.Y.Max = 0, yhi*scale*1.4 // room for the legend
	}
	// Model lines that lie on one another (the gdr and rdma ceilings of a
	// link both paths saturate) are drawn once, labelled with both names;
	// the data keeps every series.
	drawn, labels := sameLines(in.Series)
	other, measured := 0, 0
	for si, s := range in.Series {
		kind := "measured"
		if s.Model {
			kind = "modeled"
		}
		pts := make(plotter.XYs, len(s.Bytes))
		for i := range s.Bytes {
			pts[i] = plotter.XY{X: s.Bytes[i], Y: s.Values[i] * scale}
			t.add(s.Label, kind, s.Path, s.Bytes[i], s.Values[i])
		}
		st := PathStyle(s.Path)
		if s.Model && !drawn[si] {
			continue
		}
		if s.Model {
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, t, fmt.Errorf("plots: %w", err)
			}
			l.LineStyle = draw.LineStyle{Color: st.Color, Width: LineWidth}
			if s.Dashed {
				l.LineStyle.Dashes, l.LineStyle.Width = Dashed, RefLineWidth
			}
			p.Add(l)
			p.Legend.Add(labels[si], l)
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, t, fmt.Errorf("plots: %w", err)
		}
		// The first measured series of a path takes its glyph, the others
		// other shapes in its colour.
		glyph := st.Glyph
		if s.Path == "" || measured > 0 {
			glyph = otherGlyphs[other%len(otherGlyphs)]
			other++
		}
		measured++
		sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: GlyphRadius, Shape: glyph}
		p.Add(sc)
		p.Legend.Add(s.Label, sc)
	}
	return p, t, nil
}

// sameLines says which model series to draw and with what legend label: a
// model line within 0.5% of an earlier one at every size (the same sizes)
// is not drawn, dashed or not, and the earlier one's label names both
// ("gdr = rdma").
func sameLines(series []CeilingSeries) (drawn []bool, labels []string) {
	drawn, labels = make([]bool, len(series)), make([]string, len(series))
	for i, s := range series {
		drawn[i], labels[i] = true, s.Label
		if !s.Model {
			continue
		}
		for j := range i {
			if o := series[j]; o.Model && drawn[j] && sameCurve(o, s) {
				drawn[i] = false
				labels[j] += " = " + s.Label
				break
			}
		}
	}
	return drawn, labels
}

func sameCurve(a, b CeilingSeries) bool {
	if len(a.Bytes) != len(b.Bytes) || len(a.Bytes) == 0 {
		return false
	}
	for i := range a.Bytes {
		if a.Bytes[i] != b.Bytes[i] || math.Abs(a.Values[i]/b.Values[i]-1) > 0.005 {
			return false
		}
	}
	return true
}

// powTicks marks a log axis at the powers of base, labelled.
type powTicks struct {
	base  float64
	label func(float64) string
}

func (pt powTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var out []plot.Tick
	a := math.Floor(math.Log(lo) / math.Log(pt.base))
	b := math.Ceil(math.Log(hi) / math.Log(pt.base))
	step := math.Max(1, math.Ceil((b-a)/8))
	for e := a; e <= b; e++ {
		v := math.Pow(pt.base, e)
		if v < lo || v > hi {
			continue
		}
		tk := plot.Tick{Value: v}
		if math.Mod(e-a, step) == 0 {
			tk.Label = pt.label(v)
		}
		out = append(out, tk)
	}
	return out
}
