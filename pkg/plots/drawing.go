package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Drawing is a figure that the document around it frames: it has no
// title, provenance, legend column or caption of a Figure's (the report
// prints its number, title and caption), it fills the width it is drawn
// at, and Height is the height it reads best at (0: any; the report's
// default). Data is the data behind it.
//
// OperationCosts, Comparison and StageMap make Drawings; they draw in the
// look of the report's own drawings (plainPlot), larger type than a
// Figure's.
type Drawing struct {
	Drawer
	Height vg.Length
	Data   Table
}

// drawFunc adapts a function to Drawer.
type drawFunc func(c draw.Canvas)

func (f drawFunc) Draw(c draw.Canvas) { f(c) }

// The look of Drawings: black text, a grey for secondary text and a light
// grid.
var (
	plainGrey = rgb(0x444444)
	plainGrid = rgb(0xdddddd)
)

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

// plainText is the text style of Drawings: Font at size points, black.
func plainText(size float64, bold bool) draw.TextStyle {
	return textStyle(vg.Points(size), bold, color.Black)
}

// plainPlot makes a gonum plot in the look of Drawings: gonum draws its
// title and axis labels, a light grid lies under the data.
func plainPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(boldFont(), 10.5)
	p.Title.Padding = vg.Points(6)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(Font, 9.5)
		ax.Tick.Label.Font = font.From(Font, 8.5)
		ax.Tick.Length = vg.Points(4)
		ax.Padding = vg.Points(2)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.TextStyle.Font = font.From(Font, 8)
	p.Legend.ThumbnailWidth = vg.Points(22)
	p.Legend.Padding = vg.Points(1)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = plainGrid, plainGrid
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.4), vg.Points(0.4)
	p.Add(g)
	return p
}

// plainSizeAxis makes ax a log axis of message sizes labelled every factor
// of 32 (1 B, 32 B, 1 KiB, …), a minor tick every factor of 2.
func plainSizeAxis(ax *plot.Axis) {
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = sizeTicks{every: 5, clip: true}
}

// plainSecondsAxis makes ax a log axis of seconds labelled at every power
// of ten (and at 2× and 5× on a range of less than two decades).
func plainSecondsAxis(ax *plot.Axis) {
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = decadeTicks{label: secondsLabel, every: 1, clip: true}
}

// legendPlot is a plot with its legend in a column at its right, outside
// the data, so that no entry hides a curve.
type legendPlot struct {
	*plot.Plot
	Leg plot.Legend
}

func newLegendPlot(p *plot.Plot) *legendPlot {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(Font, 8)
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

// legendItem is one entry of a legend row under panels.
type legendItem struct {
	label  string
	thumbs []plot.Thumbnailer
}

// drawPanels draws plots side by side, their data areas aligned, each
// with its title above its data area, and a legend in rows underneath.
func drawPanels(dc draw.Canvas, ps []*plot.Plot, titles []string, entries []legendItem) {
	sty := plainText(8, false)
	sty.YAlign = draw.YCenter
	const thumbW, gap, rowH = 18, 14, 13
	width := dc.Max.X - dc.Min.X - 8
	var rows [][]legendItem
	var x vg.Length
	for _, e := range entries {
		w := thumbW + 4 + sty.Width(e.label) + gap
		if len(rows) == 0 || x+w > width {
			rows = append(rows, nil)
			x = 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], e)
		x += w
	}
	legendH := vg.Length(len(rows))*rowH + 4
	for i, r := range rows {
		x := dc.Min.X + 6
		y := dc.Min.Y + legendH - vg.Length(i+1)*rowH + rowH/2
		for _, e := range r {
			tc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - 4}, Max: vg.Point{X: x + thumbW, Y: y + 4}}}
			for _, th := range e.thumbs {
				th.Thumbnail(&tc)
			}
			dc.FillText(sty, vg.Point{X: x + thumbW + 4, Y: y}, e.label)
			x += thumbW + 4 + sty.Width(e.label) + gap
		}
	}
	const titleH = 16
	body := draw.Crop(dc, 0, 0, legendH+2, -titleH)
	tiles := draw.Tiles{Rows: 1, Cols: len(ps), PadX: vg.Points(16), PadTop: vg.Points(4)}
	cs := plot.Align([][]*plot.Plot{ps}, tiles, body)
	ts := plainText(9.5, true)
	ts.YAlign = draw.YTop
	for i, p := range ps {
		p.Draw(cs[0][i])
		if i < len(titles) {
			da := p.DataCanvas(cs[0][i])
			dc.FillText(ts, vg.Point{X: da.Min.X, Y: dc.Max.Y - 2}, titles[i])
		}
	}
}
