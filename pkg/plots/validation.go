package plots

import (
	"math"
	"sort"

	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ValidationPoint is one published measurement and the model's value for
// the same quantity on the scenario its hardware describes.
type ValidationPoint struct {
	ID string // the table's row id: "S08-06"
	// Path is the model path whose style the point takes ("gdr"); "" for
	// a figure of no path (a local copy, a registration): grey.
	Path string
	// Group is the legend entry the point belongs to (the table's path
	// name: "gdr", "rdma_host_staged", "cudamemcpy_pinned_h2d").
	Group string
	// Time is true for a time (seconds), false for a rate (bytes/s).
	Time               bool
	Published, Modeled float64
}

// ValidationBand is the relative error the figure's bands mark: ±25 %.
const ValidationBand = 0.25

// Validation draws the model against published measurements, log–log:
// published on x, modeled on y, one point per row, with the 1:1 line
// (model = measurement) and the ±25 % bands. Times and rates go in
// separate panels (each drawn when some point has its kind). Every value
// must be positive and finite.
func Validation(points []ValidationPoint, provenance string) (*Figure, error) {
	if len(points) == 0 {
		return nil, inputErr("validation: no points")
	}
	for _, p := range points {
		for _, v := range []float64{p.Published, p.Modeled} {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, inputErr("validation: row %s: value %v is not positive and finite (log axes)", p.ID, v)
			}
		}
	}
	f := &Figure{Name: "validation", Title: "Model against published measurements", Width: DefaultWidth, Height: DefaultHeight,
		Provenance: provenance, legendBelow: true, panelGap: 22}
	// One unit per column: times in the _s columns, rates in the _Bps ones
	// (the other pair is empty on a row).
	f.Data.Columns = []Column{textCol("id"), textCol("group"), textCol("path"), textCol("quantity"),
		numCol("published_s", "s"), numCol("modeled_s", "s"), numCol("published_Bps", "B/s"), numCol("modeled_Bps", "B/s"), numCol("ratio", "")}
	seen := map[string]bool{}
	// Groups of no path (local copies, registration) are grey, each with a
	// glyph of its own.
	var other []string
	for _, p := range points {
		if p.Path == "" && !hasString(other, p.Group) {
			other = append(other, p.Group)
		}
	}
	sort.Strings(other)
	for _, kind := range []bool{true, false} {
		var pts []ValidationPoint
		for _, p := range points {
			if p.Time == kind {
				pts = append(pts, p)
			}
		}
		if len(pts) == 0 {
			continue
		}
		p := newPlot()
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pt := range pts {
			lo, hi = math.Min(lo, math.Min(pt.Published, pt.Modeled)), math.Max(hi, math.Max(pt.Published, pt.Modeled))
		}
		lo, hi = logRange(lo/1.3, hi*1.3, 10)
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
		label, name := func(v float64) string { return units.Rate(v).Human() }, "bandwidth"
		if kind {
			label, name = secondsLabel, "time"
		}
		p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{label: label}, decadeTicks{label: label}
		for _, k := range []struct {
			factor float64
			style  draw.LineStyle
		}{
			{1, draw.LineStyle{Color: MutedColor, Width: vg.Points(1)}},
			{1 + ValidationBand, draw.LineStyle{Color: MutedColor, Width: vg.Points(0.7), Dashes: Dashed}},
			{1 - ValidationBand, draw.LineStyle{Color: MutedColor, Width: vg.Points(0.7), Dashes: Dashed}},
		} {
			l, _ := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * k.factor}, {X: hi, Y: hi * k.factor}})
			l.LineStyle = k.style
			p.Add(l)
			if k.factor == 1 && !seen["1:1"] {
				seen["1:1"] = true
				f.legend = append(f.legend, legendEntry{label: "model = published", thumbs: []plot.Thumbnailer{l}})
			} else if k.factor > 1 && !seen["band"] {
				seen["band"] = true
				f.legend = append(f.legend, legendEntry{label: "±25 %", thumbs: []plot.Thumbnailer{l}})
			}
		}
		groups := map[string]plotter.XYs{}
		paths := map[string]string{}
		var order []string
		for _, pt := range pts {
			if _, ok := groups[pt.Group]; !ok {
				order = append(order, pt.Group)
			}
			groups[pt.Group] = append(groups[pt.Group], plotter.XY{X: pt.Published, Y: pt.Modeled})
			paths[pt.Group] = pt.Path
			ps, ms, pr, mr := pt.Published, pt.Modeled, math.NaN(), math.NaN()
			if !kind {
				ps, ms, pr, mr = pr, mr, ps, ms
			}
			f.Data.add(pt.ID, pt.Group, pt.Path, name, ps, ms, pr, mr, pt.Modeled/pt.Published)
		}
		sort.Strings(order)
		for _, g := range order {
			st := Style{Color: Grey, Glyph: draw.RingGlyph{}}
			if paths[g] != "" {
				st = PathStyle(paths[g])
			} else {
				for i, o := range other {
					if o == g {
						st.Glyph = otherGlyphs[i%len(otherGlyphs)]
					}
				}
			}
			s, _ := plotter.NewScatter(groups[g])
			s.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(2.6), Shape: st.Glyph}
			p.Add(s)
			if !seen[g] {
				seen[g] = true
				f.legend = append(f.legend, legendEntry{label: g, thumbs: []plot.Thumbnailer{s}})
			}
		}
		f.panels = append(f.panels, axes{p: p, xlabel: "published " + name, ylabel: "modeled " + name})
	}
	f.Caption = caption("Each point is one published measurement (x) against the model's value for the same quantity on the scenario the row's hardware describes (y), log–log. On the solid line the model equals the measurement; the dashed lines are ±25 %. Points are coloured by the path the table names.", provenance, nil)
	return f, nil
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
