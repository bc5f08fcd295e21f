package plots

import (
	"image/color"
	"slices"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is a figure of gonum plots stacked in one column, drawn at
// Width × Height under a title (and a subtitle) and, for some, a legend
// row of colour keys: what SizeChart and Sensitivity make, for the
// notebooks. It is a Drawer.
type Chart struct {
	Title string
	// Subtitle, when set, is drawn in small muted type under the title:
	// what is measured (where, when) and what is modeled.
	Subtitle      string
	Width, Height vg.Length
	panels        []*plot.Plot
	keys          []chartKey // the legend: one row across the top
}

// chartKey is one legend entry of a Chart: a colour swatch and its label.
type chartKey struct {
	label string
	color color.Color
}

// headHeight is the height of the title and legend strip; a subtitle
// adds subHeight.
const (
	headHeight = 34
	subHeight  = 14
)

// head is the height of the strip above the panels.
func (c *Chart) head() vg.Length {
	h := vg.Length(headHeight)
	if c.Subtitle != "" {
		h += subHeight
	}
	if len(c.keys) == 0 {
		h -= 16 // no legend row
	}
	return h
}

// Size is the size the chart was laid out for.
func (c *Chart) Size() (w, h vg.Length) { return c.Width, c.Height }

// Draw draws the panels, aligned, on a white background.
func (c *Chart) Draw(dc draw.Canvas) {
	dc.FillPolygon(color.White, []vg.Point{dc.Min, {X: dc.Max.X, Y: dc.Min.Y}, dc.Max, {X: dc.Min.X, Y: dc.Max.Y}})
	c.drawHead(draw.Crop(dc, 0, 0, dc.Size().Y-c.head(), 0))
	dc = draw.Crop(dc, 0, 0, 0, -c.head())
	grid := make([][]*plot.Plot, len(c.panels))
	for i, p := range c.panels {
		grid[i] = []*plot.Plot{p}
	}
	t := draw.Tiles{Rows: len(c.panels), Cols: 1, PadTop: 6, PadBottom: 6, PadLeft: 6, PadRight: 10, PadY: 14}
	cs := plot.Align(grid, t, dc)
	for i, p := range c.panels {
		p.Draw(cs[i][0])
	}
}

func (c *Chart) drawHead(dc draw.Canvas) {
	title := draw.TextStyle{Color: TextColor, Font: Font, Handler: plot.DefaultTextHandler}
	title.Font.Size = TitleSize
	title.Font.Weight = xfont.WeightBold
	top := dc.Max.Y - 4
	dc.FillText(draw.TextStyle{Color: title.Color, Font: title.Font, Handler: title.Handler, YAlign: draw.YTop},
		vg.Point{X: dc.Min.X + 8, Y: top}, c.Title)
	label := draw.TextStyle{Color: TextColor, Font: Font, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	label.Font.Size = LegendSize
	x, y := dc.Min.X+8, top-22
	if c.Subtitle != "" {
		sub := label
		sub.Color, sub.Font.Size = MutedColor, NoteSize
		dc.FillText(sub, vg.Point{X: x, Y: y}, c.Subtitle)
		y -= subHeight
	}
	for _, k := range c.keys {
		dc.FillPolygon(k.color, []vg.Point{{X: x, Y: y - 4}, {X: x + 12, Y: y - 4}, {X: x + 12, Y: y + 4}, {X: x, Y: y + 4}})
		dc.FillText(label, vg.Point{X: x + 16, Y: y}, k.label)
		x += 16 + label.Width(k.label) + 14
	}
}

// SensitivityBars are what Sensitivity draws: for each metric (a panel),
// path and parameter, the largest absolute relative change, in percent,
// that one step of the parameter (down or up) makes.
type SensitivityBars struct {
	// Metrics name the panels ("latency at 8 B"); Paths and Params the
	// bars of each panel: the paths in their colours (PathStyle) within
	// each parameter, the first parameter at the top.
	Metrics, Paths, Params []string
	// Percent[m][i][k] is the change of metric m of path i for one step
	// of parameter k (≥ 0).
	Percent [][][]float64
}

// Sensitivity draws, for each metric, one horizontal bar per path and
// parameter: the largest absolute relative change (in percent) that one
// step of the parameter, down or up, makes.
func Sensitivity(b SensitivityBars) (*Chart, error) {
	if len(b.Metrics) == 0 || len(b.Paths) == 0 || len(b.Params) == 0 {
		return nil, inputErr("sensitivity: no metric, path or parameter to draw")
	}
	if len(b.Percent) != len(b.Metrics) {
		return nil, inputErr("sensitivity: %d metrics and values for %d", len(b.Metrics), len(b.Percent))
	}
	for m := range b.Percent {
		if len(b.Percent[m]) != len(b.Paths) {
			return nil, inputErr("sensitivity: %s: %d paths and values for %d", b.Metrics[m], len(b.Paths), len(b.Percent[m]))
		}
		for i := range b.Percent[m] {
			if len(b.Percent[m][i]) != len(b.Params) {
				return nil, inputErr("sensitivity: %s, %s: %d parameters and values for %d", b.Metrics[m], b.Paths[i], len(b.Params), len(b.Percent[m][i]))
			}
		}
	}
	const barWidth = 4.5
	c := &Chart{Width: 504, Title: "Sensitivity: how far one step of each parameter moves each path"}
	for m, metric := range b.Metrics {
		p := plot.New()
		chartStyle(p)
		p.Title.Text = "Largest change of " + metric + " for one step of each parameter"
		p.X.Label.Text = "|relative change| (%)"
		p.X.Min = 0
		for i, path := range b.Paths {
			vals := make(plotter.Values, len(b.Params))
			for k := range b.Params {
				vals[len(b.Params)-1-k] = b.Percent[m][i][k]
			}
			bars, err := plotter.NewBarChart(vals, barWidth)
			if err != nil {
				return nil, err
			}
			bars.Horizontal = true
			bars.Color = PathStyle(path).Color
			bars.LineStyle.Width = 0
			// Paths from top to bottom within each parameter.
			bars.Offset = vg.Length(float64(len(b.Paths)-1)/2-float64(i)) * barWidth
			p.Add(bars)
			if m == 0 {
				c.keys = append(c.keys, chartKey{path, bars.Color})
			}
		}
		p.NominalY(reversed(b.Params)...) // first parameter on top
		p.Y.Tick.Label.XAlign = draw.XRight
		p.Add(plotter.NewGrid())
		c.panels = append(c.panels, p)
	}
	c.Height = headHeight + vg.Length(len(c.panels))*(vg.Length(len(b.Params)*len(b.Paths))*barWidth*1.25+70)
	return c, nil
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// chartStyle sets a Chart panel's fonts: Font at the figures' sizes.
func chartStyle(p *plot.Plot) {
	p.Title.TextStyle.Font = Font
	p.Title.TextStyle.Font.Size = LabelSize
	p.Title.TextStyle.Color = TextColor
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Font
		a.Label.TextStyle.Font.Size = LabelSize
		a.Tick.Label.Font = Font
		a.Tick.Label.Font.Size = TickSize
	}
	p.Legend.TextStyle.Font = Font
	p.Legend.TextStyle.Font.Size = LegendSize
}
