package nb

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is a figure of this package: gonum plots stacked in one column,
// drawn at Width × Height. It is a plots.Drawer.
type Chart struct {
	Title string
	// Subtitle, when set, is drawn in small muted type under the title:
	// what is measured (where, when) and what is modeled.
	Subtitle      string
	Width, Height vg.Length
	panels        []*plot.Plot
	keys          []key // the legend: one row across the top
}

// key is one legend entry: a colour swatch and its label.
type key struct {
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
	title := draw.TextStyle{Color: plots.TextColor, Font: plots.Font, Handler: plot.DefaultTextHandler}
	title.Font.Size = plots.TitleSize
	title.Font.Weight = xfont.WeightBold
	top := dc.Max.Y - 4
	dc.FillText(draw.TextStyle{Color: title.Color, Font: title.Font, Handler: title.Handler, YAlign: draw.YTop},
		vg.Point{X: dc.Min.X + 8, Y: top}, c.Title)
	label := draw.TextStyle{Color: plots.TextColor, Font: plots.Font, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	label.Font.Size = plots.LegendSize
	x, y := dc.Min.X+8, top-22
	if c.Subtitle != "" {
		sub := label
		sub.Color, sub.Font.Size = plots.MutedColor, plots.NoteSize
		dc.FillText(sub, vg.Point{X: x, Y: y}, c.Subtitle)
		y -= subHeight
	}
	for _, k := range c.keys {
		dc.FillPolygon(k.color, []vg.Point{{X: x, Y: y - 4}, {X: x + 12, Y: y - 4}, {X: x + 12, Y: y + 4}, {X: x, Y: y + 4}})
		dc.FillText(label, vg.Point{X: x + 16, Y: y}, k.label)
		x += 16 + label.Width(k.label) + 14
	}
}

// SensitivityChart draws, for each metric, one horizontal bar per path and
// parameter: the largest absolute relative change (in percent) that one
// step of the parameter, down or up, makes. Paths keep their colours from
// plots.PathStyles. rows come from Sensitivities.
func SensitivityChart(rows []Sensitivity, small, large model.Bytes) (*Chart, error) {
	var paths, params []string
	for _, r := range rows {
		if !slices.Contains(paths, r.Path) {
			paths = append(paths, r.Path)
		}
		if !slices.Contains(params, r.Param.Name) {
			params = append(params, r.Param.Name)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("nb: no sensitivities to draw")
	}
	const barWidth = 4.5
	c := &Chart{Width: 504, Title: "Sensitivity: how far one step of each parameter moves each path"}
	for m := Metric(0); m < numMetrics; m++ {
		p := plot.New()
		style(p)
		p.Title.Text = "Largest change of " + m.Name(small, large) + " for one step of each parameter"
		p.X.Label.Text = "|relative change| (%)"
		p.X.Min = 0
		for i, path := range paths {
			vals := make(plotter.Values, len(params))
			for _, r := range rows {
				if r.Path == path {
					v, _ := r.Largest(m)
					vals[len(params)-1-slices.Index(params, r.Param.Name)] = math.Abs(v) * 100
				}
			}
			bars, err := plotter.NewBarChart(vals, barWidth)
			if err != nil {
				return nil, err
			}
			bars.Horizontal = true
			bars.Color = plots.PathStyle(path).Color
			bars.LineStyle.Width = 0
			// Paths from top to bottom within each parameter.
			bars.Offset = vg.Length(float64(len(paths)-1)/2-float64(i)) * barWidth
			p.Add(bars)
			if m == 0 {
				c.keys = append(c.keys, key{path, bars.Color})
			}
		}
		p.NominalY(reversed(params)...) // first parameter on top
		p.Y.Tick.Label.XAlign = draw.XRight
		p.Add(plotter.NewGrid())
		c.panels = append(c.panels, p)
	}
	c.Height = headHeight + vg.Length(len(c.panels))*(vg.Length(len(params)*len(paths))*barWidth*1.25+70)
	return c, nil
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func style(p *plot.Plot) {
	p.Title.TextStyle.Font = plots.Font
	p.Title.TextStyle.Font.Size = plots.LabelSize
	p.Title.TextStyle.Color = plots.TextColor
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = plots.Font
		a.Label.TextStyle.Font.Size = plots.LabelSize
		a.Tick.Label.Font = plots.Font
		a.Tick.Label.Font.Size = plots.TickSize
	}
	p.Legend.TextStyle.Font = plots.Font
	p.Legend.TextStyle.Font.Size = plots.LegendSize
}
