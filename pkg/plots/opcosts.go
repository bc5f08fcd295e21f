package plots

import (
	"fmt"
	"image/color"

	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// CostSeries is one measured series of the cost of single operations (a
// memcpy, a system call: parameters of the model, not paths), as
// OperationCosts draws it.
type CostSeries struct {
	Label                         string
	Probe, Variant, Stage, Target string
	Points                        []CostPoint
}

// CostPoint is one measured size of a CostSeries: the median, minimum and
// 99th percentile time per operation, the CPU time per operation
// (negative: not measured), the iterations and whether the median was
// stable.
type CostPoint struct {
	Bytes                 units.Bytes
	Median, Min, P99, CPU units.Seconds
	Iterations            int
	Stable                bool
}

// The glyphs and colours of OperationCosts' series, in turn.
var (
	costGlyphs = []draw.GlyphDrawer{Mark{Shape: Circle, Filled: true}, Mark{Shape: Triangle}, Mark{Shape: Square}, Mark{Shape: Cross},
		Mark{Shape: Plus}, Mark{Shape: Diamond}, Mark{Shape: Circle}, Mark{Shape: Square, Filled: true}}
	costColors = []color.Color{Black, Vermillion, Blue, BluishGreen, ReddishPurple, Orange}
)

// OperationCosts draws measured costs of single operations against message
// size, log–log: points only (the model has no curve for them), one glyph
// and colour per series, as a Figure like every other (title and
// provenance at the top, the legend in a column at the right). Points
// whose median is not drawable (drawableTime) or whose size is below one
// byte are listed in the data, not drawn, and counted in a note.
// The data has a row per point: series, probe, variant, stage, target,
// bytes, median_s, min_s, p99_s, cpu_s, iterations, stable.
func OperationCosts(title, provenance string, series []CostSeries) *Figure {
	p := newPlot()
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	p.Y.Tick.Marker = decadeTicks{label: secondsLabel}
	f := &Figure{Name: "operation-costs", Title: title, Provenance: provenance, Width: DefaultWidth, Height: DefaultHeight}
	f.Data = Table{Columns: []Column{textCol("series"), textCol("probe"), textCol("variant"), textCol("stage"), textCol("target"),
		numCol("bytes", BytesUnit), numCol("median_s", "s"), numCol("min_s", "s"), numCol("p99_s", "s"), numCol("cpu_s", "s"),
		intCol("iterations", ""), boolCol("stable")}}
	sizes, times := newSpan(), newSpan()
	left := 0 // points not drawn: in the data only
	for i, s := range series {
		var pts plotter.XYs
		for _, pt := range s.Points {
			f.Data.add(s.Label, s.Probe, s.Variant, s.Stage, s.Target, pt.Bytes, pt.Median, pt.Min, pt.P99, pt.CPU, pt.Iterations, pt.Stable)
			if v := float64(pt.Median); drawableTime(v) && pt.Bytes >= 1 {
				times.add(v)
				sizes.add(float64(pt.Bytes))
				pts = append(pts, plotter.XY{X: float64(pt.Bytes), Y: v})
			} else {
				left++
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, _ := plotter.NewScatter(pts) // finite and positive: checked above
		sc.GlyphStyle = draw.GlyphStyle{Color: costColors[i%len(costColors)], Radius: GlyphRadius, Shape: costGlyphs[i%len(costGlyphs)]}
		p.Add(sc)
		f.legend = append(f.legend, legendEntry{label: s.Label, thumbs: []plot.Thumbnailer{sc}})
	}
	if left > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("Not drawn: %d point(s) with a time outside %g – %g s or no size (they are in the data).", left, MinDrawnSeconds, MaxDrawnSeconds))
	}
	// Room around the points, so that none sits on the frame (and a single
	// point still gives a range a log axis can draw).
	if sizes.lo <= sizes.hi {
		p.X.Min, p.X.Max = logRange(sizes.lo/1.5, sizes.hi*1.5, 2)
		p.Y.Min, p.Y.Max = logRange(times.lo/1.5, times.hi*1.5, 10)
	} else {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 1<<20, 1e-9, 1e-3 // nothing drawn: an empty frame a log axis can draw
	}
	f.panels = []axes{{p: p, xlabel: "message size", ylabel: "time per operation"}}
	f.Caption = caption("Measured medians of single operations (copies, system calls) that the model takes as parameters, against message size (log–log); points only: the model draws no curve for them.", provenance, nil)
	return f
}
