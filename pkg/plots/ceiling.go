package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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
	// Provenance says what is measured (by what, from which file) and what
	// is modeled (from which scenario); it is drawn under the title and
	// ends the caption, as in every Figure.
	Provenance string
	// What is the caption's account of what the figure shows.
	What string
	// Latency draws seconds on a log axis; otherwise bytes per second on a
	// linear axis in GB/s (10^9 B/s).
	Latency bool
	// YLabel names the y axis ("": "one-way latency", or "streaming
	// bandwidth"; a bandwidth's label gets " (GB/s)").
	YLabel string
	Series []CeilingSeries
}

// Ceiling draws measured values against the modeled ceiling (or, for
// latency, floor) of a path, over message size on a log axis: a Figure
// like every other one (title and provenance at the top left, the legend
// in a column at the right or in rows underneath, outside the data), with
// the data behind it (series, kind, path, bytes, value in seconds or bytes
// per second). Its input is checked first: sizes and values must be finite
// and positive, and a series must have as many values as sizes. Only a
// series that is drawn gets a legend entry: a model line on top of an
// earlier one is drawn once and named in its entry ("model: gdr = model:
// rdma").
func Ceiling(in CeilingInput) (*Figure, error) {
	unit := "B/s"
	if in.Latency {
		unit = "s"
	}
	t := Table{Columns: []Column{textCol("series"), textCol("kind"), textCol("path"), numCol("bytes", BytesUnit), numCol("value", unit)}}
	if len(in.Series) == 0 {
		return nil, inputErr("no series")
	}
	sizes, msizes, vals := newSpan(), newSpan(), newSpan()
	for _, s := range in.Series {
		if len(s.Bytes) != len(s.Values) {
			return nil, inputErr("series %q: %d sizes, %d values", s.Label, len(s.Bytes), len(s.Values))
		}
		for i, x := range s.Bytes {
			y := s.Values[i]
			if !(x >= 1) || math.IsInf(x, 0) || !(y > 0) || math.IsInf(y, 0) {
				return nil, inputErr("series %q: size %v value %v: sizes and values must be finite and positive", s.Label, x, y)
			}
			sizes.add(x)
			if !s.Model {
				msizes.add(x)
			}
			vals.add(y)
		}
	}
	if sizes.lo > sizes.hi {
		return nil, inputErr("no point to draw")
	}
	pn := panel{p: newPlot(), xlabel: "message size", lo: math.Inf(1), hi: math.Inf(-1)}
	p := pn.p
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	scale, q := 1e9, qBandwidth
	if in.Latency {
		scale, q = 1, qLatency
		p.Y.Scale = plot.LogScale{}
	}
	p.Y.Tick.Marker = q.ticker
	pn.ylabel = q.label
	if in.YLabel != "" {
		pn.ylabel = in.YLabel
		if !in.Latency {
			pn.ylabel += " (GB/s)"
		}
	}
	// Model lines that lie on one another (the gdr and rdma ceilings of a
	// link both paths saturate) are drawn once, labelled with both names;
	// the data keeps every series.
	drawn, labels := sameLines(in.Series)
	var lines, marks []legendEntry
	other, measured := 0, 0
	for si, s := range in.Series {
		kind := "measured"
		if s.Model {
			kind = "modeled"
		}
		pts := make(plotter.XYs, len(s.Bytes))
		for i := range s.Bytes {
			pts[i] = plotter.XY{X: s.Bytes[i], Y: s.Values[i] / scale}
			t.add(s.Label, kind, s.Path, s.Bytes[i], s.Values[i])
		}
		st := PathStyle(s.Path)
		if s.Model {
			if !drawn[si] {
				continue
			}
			l, _ := plotter.NewLine(pts) // checked: finite
			l.LineStyle = draw.LineStyle{Color: st.Color, Width: LineWidth}
			if s.Dashed {
				l.LineStyle.Dashes, l.LineStyle.Width = Dashed, RefLineWidth
			}
			p.Add(l)
			lines = append(lines, legendEntry{label: labels[si], thumbs: []plot.Thumbnailer{l}})
			continue
		}
		sc, _ := plotter.NewScatter(pts) // checked: finite
		// The first measured series of a path takes its glyph, the others
		// other shapes in its colour.
		glyph := st.Glyph
		if s.Path == "" || measured > 0 {
			glyph = otherGlyphs[other%len(otherGlyphs)]
			other++
		}
		measured++
		sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: GlyphRadius, Shape: glyph}
		marks = append(marks, legendEntry{label: s.Label, thumbs: []plot.Thumbnailer{sc}})
	}
	// Points over the lines: a measured point is not hidden by the model.
	for _, e := range marks {
		p.Add(e.thumbs[0].(*plotter.Scatter))
	}
	p.X.Min, p.X.Max = logRange(sizes.lo, sizes.hi, 2)
	if msizes.lo <= p.X.Min {
		p.X.Min /= 2
	}
	if msizes.hi >= p.X.Max {
		p.X.Max *= 2
	}
	if in.Latency {
		p.Y.Min, p.Y.Max = logRange(vals.lo, vals.hi, 10)
	} else {
		p.Y.Min, p.Y.Max = 0, niceMax(vals.hi/scale)
	}
	f := &Figure{Name: "ceiling", Title: in.Title, Provenance: in.Provenance, Width: DefaultWidth, Height: DefaultHeight, Data: t}
	f.panels = []axes{{p: p, xlabel: pn.xlabel, ylabel: pn.ylabel}}
	f.legend = append(lines, marks...)
	// A legend of long labels would squeeze the data: it goes underneath.
	f.legendBelow = legendWidth(f.legend) > f.Width/3
	f.Caption = caption(in.What, in.Provenance, nil)
	return f, nil
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
