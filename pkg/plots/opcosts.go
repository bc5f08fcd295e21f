package plots

import (
	"fmt"
	"image/color"
	"math"

	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
	costGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	costColors = []color.Color{rgb(0x000000), rgb(0xD55E00), rgb(0x0072B2), rgb(0x009E73), rgb(0xCC79A7), rgb(0xE69F00)}
)

// OperationCosts draws measured costs of single operations against message
// size, log–log: points only (the model has no curve for them), one glyph
// and colour per series, the legend at the right, titled title. Points
// whose median is not drawable (drawableTime) are listed in the data, not
// drawn, and counted in the legend.
// The data has a row per point: series, probe, variant, stage, target,
// bytes, median_s, min_s, p99_s, cpu_s, iterations, stable.
func OperationCosts(title string, series []CostSeries) Drawing {
	p := newLegendPlot(plainPlot(title, "message size", "time per operation"))
	plainSizeAxis(&p.X)
	plainSecondsAxis(&p.Y)
	t := Table{Columns: []Column{textCol("series"), textCol("probe"), textCol("variant"), textCol("stage"), textCol("target"),
		intCol("bytes", "B"), numCol("median_s", "s"), numCol("min_s", "s"), numCol("p99_s", "s"), numCol("cpu_s", "s"),
		intCol("iterations", ""), boolCol("stable")}}
	lo, hi := units.Bytes(1<<62), units.Bytes(1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	left := 0 // points whose median is not drawable: in the data only
	for i, s := range series {
		var pts plotter.XYs
		for _, pt := range s.Points {
			lo, hi = min(lo, pt.Bytes), max(hi, pt.Bytes)
			if v := float64(pt.Median); drawableTime(v) {
				ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
				pts = append(pts, plotter.XY{X: float64(pt.Bytes), Y: v})
			} else {
				left++
			}
			t.add(s.Label, s.Probe, s.Variant, s.Stage, s.Target, pt.Bytes, pt.Median, pt.Min, pt.P99, pt.CPU, pt.Iterations, pt.Stable)
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			panic(err) // the points are finite and positive: checked above
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: costColors[i%len(costColors)], Radius: vg.Points(3), Shape: costGlyphs[i%len(costGlyphs)]}
		p.Add(sc)
		p.Leg.Add(s.Label, sc)
	}
	if left > 0 {
		p.Leg.Add(fmt.Sprintf("not drawn: %d point(s) with a time outside %g – %g s (in the data)", left, MinDrawnSeconds, MaxDrawnSeconds))
	}
	// Room around the points, so that none sits on the frame (and a single
	// point still gives a range a log axis can draw).
	p.X.Min, p.X.Max = float64(lo)/2, float64(hi)*2
	if ylo <= yhi {
		p.Y.Min, p.Y.Max = ylo/2, yhi*2
	} else {
		p.Y.Min, p.Y.Max = 1e-9, 1e-3 // nothing drawn: an empty frame a log axis can draw
	}
	return Drawing{Drawer: p, Data: t}
}
