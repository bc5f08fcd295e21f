package report

import (
	"image/color"
	"math"
	"strconv"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
)

// Figure sizes: the PDF's text width (A4 less two 50 pt margins), and the
// HTML scales them to the width of the screen.
const (
	figW vg.Length = 495
	figH vg.Length = 290
)

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
	textGrey = color.RGBA{0x44, 0x44, 0x44, 0xff}
	gridGrey = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
)

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

func textStyle(size float64, f font.Font) text.Style {
	return text.Style{Color: color.Black, Font: font.From(f, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

// newPlot makes a plot in the report's style: sans-serif text, a light grid.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(boldFont, 10.5)
	p.Title.Padding = vg.Points(6)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sansFont, 9.5)
		ax.Tick.Label.Font = font.From(sansFont, 8.5)
		ax.Tick.Length = vg.Points(4)
		ax.Padding = vg.Points(2)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.TextStyle.Font = font.From(sansFont, 8)
	p.Legend.ThumbnailWidth = vg.Points(22)
	p.Legend.Padding = vg.Points(1)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridGrey, gridGrey
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.4), vg.Points(0.4)
	p.Add(g)
	return p
}

// sizeAxis makes a logarithmic axis of message sizes labelled in binary
// units every factor of 32 (1 B, 32 B, 1 KiB, …), a minor tick every factor 2.
func sizeAxis(ax *plot.Axis) {
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		if !finitePos(min) || !finitePos(max) {
			return nil
		}
		var ts []plot.Tick
		for k := 0; k < 63; k++ {
			v := math.Ldexp(1, k)
			if v > max*1.0001 {
				break
			}
			if v < min*0.9999 {
				continue
			}
			t := plot.Tick{Value: v}
			if k%5 == 0 {
				t.Label = model.Bytes(v).Human()
			}
			ts = append(ts, t)
		}
		return ts
	})
}

// logAxis makes a logarithmic axis with a label at every power of ten
// (and at 2× and 5× when the range spans less than two decades).
func logAxis(ax *plot.Axis, label func(float64) string) {
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		if !finitePos(min) || !finitePos(max) || max < min {
			return nil
		}
		lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
		majors := 0
		for e := lo; e <= hi; e++ {
			if v := math.Pow(10, float64(e)); v >= min*0.9999 && v <= max*1.0001 {
				majors++
			}
		}
		var ts []plot.Tick
		for e := lo; e <= hi; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow(10, float64(e))
				if v < min*0.9999 || v > max*1.0001 {
					continue
				}
				t := plot.Tick{Value: v}
				if m == 1 || (majors < 2 && (m == 2 || m == 5)) {
					t.Label = label(v)
				}
				ts = append(ts, t)
			}
		}
		return ts
	})
}

func secondsLabel(v float64) string { return model.Seconds(v).Human() }

// finitePos reports whether v can go on a logarithmic axis.
func finitePos(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// legendPlot is a plot with its legend in a column at its right, outside
// the data, so that no entry hides a curve.
type legendPlot struct {
	*plot.Plot
	Leg plot.Legend
}

func newLegendPlot(p *plot.Plot) *legendPlot {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sansFont, 8)
	l.ThumbnailWidth = vg.Points(20)
	l.Padding = vg.Points(2)
	l.Top, l.Left = true, true
	return &legendPlot{Plot: p, Leg: l}
}

// Draw draws the plot in the left part of c and the legend at its right,
// level with the top of the data area.
func (lp *legendPlot) Draw(c draw.Canvas) {
	r := lp.Leg.Rectangle(c)
	w := r.Max.X - r.Min.X
	if w > 0 {
		w += vg.Points(10)
	}
	lp.Plot.Draw(draw.Crop(c, 0, -w, 0, 0))
	if w == 0 {
		return
	}
	lc := draw.Crop(c, c.Max.X-c.Min.X-w+vg.Points(8), 0, 0, 0)
	if lp.Plot.Title.Text != "" {
		lc = draw.Crop(lc, 0, 0, 0, -(lp.Plot.Title.TextStyle.Height(lp.Plot.Title.Text) + lp.Plot.Title.Padding + vg.Points(4)))
	}
	lp.Leg.Draw(lc)
}

// linearTicks is gonum's default ticks with labels written short: 25, not 25.00.
var linearTicks = plot.TickerFunc(func(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
})
