package plots

import (
	"bytes"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawer is anything that draws itself into a rectangle of a canvas:
// a *Figure, and also a plain *plot.Plot.
type Drawer interface {
	Draw(c draw.Canvas)
}

// Figure is a finished figure: the panels (or the diagram) with a title,
// a provenance line that says what is modeled and what is measured, a
// legend, notes (such as the infeasible paths that are not drawn), a
// caption for the report to print under it, and the data behind it.
//
// A Figure draws onto any vg.Canvas (SVG, PNG, PDF, a recorder): it uses
// only lines, filled paths and text in the package's Font. Its input was
// checked when it was made, so drawing cannot fail.
type Figure struct {
	// Name is a short identifier, usable as a file name: "latency".
	Name string
	// Title is drawn at the top.
	Title string
	// Provenance says where the data come from, e.g.
	// "modeled: scenario default · measured: sockperf (gpu01, 2026-11-29 10:02 UTC)".
	// It is drawn under the title.
	Provenance string
	// Caption is a paragraph for the report to print under the figure: what
	// is shown, the provenance, and the reasons of paths left out.
	Caption string
	// Notes are drawn at the bottom of the figure.
	Notes []string
	// Width and Height are the size the figure was laid out for. Any size
	// works; this one reads best.
	Width, Height vg.Length
	// Data is the data behind the figure, one row per drawn value.
	Data Table

	legend []legendEntry
	panels []axes              // the gonum plots of the body, left to right
	body   func(c draw.Canvas) // draws the body instead of panels
	// panelGap is the horizontal space between panels.
	panelGap vg.Length
	// legendBelow puts the legend in rows under the body, not in a column
	// on the right.
	legendBelow bool
}

// axes is one gonum plot with its axis labels, which the figure draws
// itself: gonum reserves room for a centred axis label at the linear
// middle of the data range, which on a log axis is near one end.
type axes struct {
	p              *plot.Plot
	xlabel, ylabel string
}

// legendEntry is one row of the legend column: thumbnails drawn on top of
// each other, then the label. A header has no thumbnails and bold text.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
	header bool
}

// Size returns the size the figure was laid out for.
func (f *Figure) Size() (w, h vg.Length) { return f.Width, f.Height }

const pad = vg.Length(8)

// Draw draws the figure into c. It fills c's rectangle with white first.
func (f *Figure) Draw(c draw.Canvas) {
	c.FillPolygon(color.White, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
	in := draw.Crop(c, pad, -pad, pad/2, -pad)

	// Title and provenance, left-aligned at the top.
	top := in.Max.Y
	if f.Title != "" {
		ts := textStyle(TitleSize, true, TextColor)
		ts.YAlign = draw.YTop
		for _, line := range wrapText(ts, f.Title, in.Max.X-in.Min.X) {
			in.FillText(ts, vg.Point{X: in.Min.X, Y: top}, line)
			top -= lineHeight(ts)
		}
		top -= 2
	}
	if f.Provenance != "" {
		ps := textStyle(NoteSize+0.5, false, MutedColor)
		ps.YAlign = draw.YTop
		for _, line := range wrapText(ps, f.Provenance, in.Max.X-in.Min.X) {
			in.FillText(ps, vg.Point{X: in.Min.X, Y: top}, line)
			top -= lineHeight(ps)
		}
	}
	top -= 6
	body := in
	body.Max.Y = top

	// Notes at the bottom, wrapped to the width.
	ns := textStyle(NoteSize, false, MutedColor)
	var noteLines []string
	for _, n := range f.Notes {
		noteLines = append(noteLines, wrapText(ns, n, in.Max.X-in.Min.X)...)
	}
	if len(noteLines) > 0 {
		y := in.Min.Y + 2
		for i := len(noteLines) - 1; i >= 0; i-- {
			in.FillText(ns, vg.Point{X: in.Min.X, Y: y}, noteLines[i])
			y += lineHeight(ns)
		}
		body.Min.Y = y + 4
	}

	// The legend: rows under the body, or a column on the right.
	if len(f.legend) > 0 && f.legendBelow {
		body.Min.Y = drawLegendRows(body, f.legend) + 6
	} else if len(f.legend) > 0 {
		lw := legendWidth(f.legend)
		lc := body
		lc.Min.X = body.Max.X - lw
		drawLegend(lc, f.legend)
		body.Max.X = lc.Min.X - 10
	}

	switch {
	case f.body != nil:
		f.body(body)
	case len(f.panels) > 0:
		f.drawPanels(body)
	}
}

func (f *Figure) drawPanels(body draw.Canvas) {
	gap := f.panelGap
	if gap == 0 {
		gap = 14
	}
	ls := textStyle(LabelSize, false, TextColor)
	lh := ls.Height("Mg") + 3
	// Room for the axis labels, then align the data areas.
	body = draw.Crop(body, lh, 0, lh, 0)
	ps := make([]*plot.Plot, len(f.panels))
	for i, a := range f.panels {
		ps[i] = a.p
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(ps), PadX: gap + lh}
	cs := plot.Align([][]*plot.Plot{ps}, tiles, body)
	for i, a := range f.panels {
		tile := cs[0][i]
		a.p.Draw(tile)
		dc := a.p.DataCanvas(tile)
		if a.xlabel != "" {
			st := ls
			st.XAlign, st.YAlign = draw.XCenter, draw.YBottom
			tile.FillText(st, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: tile.Min.Y - lh + 1}, a.xlabel)
		}
		if a.ylabel != "" {
			st := ls
			st.Rotation = math.Pi / 2
			st.XAlign, st.YAlign = draw.XCenter, draw.YTop
			tile.FillText(st, vg.Point{X: tile.Min.X - lh + 1, Y: (dc.Min.Y + dc.Max.Y) / 2}, a.ylabel)
		}
	}
}

func lineHeight(s text.Style) vg.Length {
	e := s.FontExtents()
	return e.Height * 1.05
}

// wrapText breaks s into lines no wider than w (words longer than w stay whole).
func wrapText(s text.Style, txt string, w vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(txt, "\n") {
		words := strings.Fields(para)
		line := ""
		for _, word := range words {
			try := word
			if line != "" {
				try = line + " " + word
			}
			if line != "" && s.Width(try) > w {
				lines = append(lines, line)
				line = word
				continue
			}
			line = try
		}
		lines = append(lines, line)
	}
	return lines
}

func legendWidth(entries []legendEntry) vg.Length {
	var w vg.Length
	for _, e := range entries {
		ts := textStyle(LegendSize, e.header, TextColor)
		lw := ts.Width(e.label)
		if !e.header {
			lw += thumbWidth + 5
		}
		w = max(w, lw)
	}
	return w + 2
}

func drawLegend(c draw.Canvas, entries []legendEntry) {
	y := c.Max.Y - 4
	for i, e := range entries {
		ts := textStyle(LegendSize, e.header, TextColor)
		ts.YAlign = draw.YCenter
		h := max(lineHeight(ts), GlyphRadius*2+1)
		if e.header && i > 0 {
			y -= 5
		}
		mid := y - h/2
		x := c.Min.X
		if !e.header {
			tc := c
			tc.Min = vg.Point{X: x, Y: mid - h/2}
			tc.Max = vg.Point{X: x + thumbWidth, Y: mid + h/2}
			for _, t := range e.thumbs {
				t.Thumbnail(&tc)
			}
			x += thumbWidth + 5
		}
		c.FillText(ts, vg.Point{X: x, Y: mid}, e.label)
		y -= h + legendRowSpace
	}
}

// drawLegendRows draws the legend in rows under the body: each group of
// entries (groups are separated by header entries, which are not drawn)
// in as many columns as fit across c. It draws from the bottom of c up
// and returns the top of what it drew.
func drawLegendRows(c draw.Canvas, entries []legendEntry) vg.Length {
	var groups [][]legendEntry
	cur := []legendEntry{}
	for _, e := range entries {
		if e.header {
			if len(cur) > 0 {
				groups = append(groups, cur)
			}
			cur = []legendEntry{}
			continue
		}
		cur = append(cur, e)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	ts := textStyle(LegendSize, false, TextColor)
	ts.YAlign = draw.YCenter
	y := c.Min.Y
	for g := len(groups) - 1; g >= 0; g-- {
		items := groups[g]
		h := max(lineHeight(ts), GlyphRadius*2+1)
		for _, e := range items {
			for _, t := range e.thumbs {
				if _, ok := t.(badgeThumb); ok {
					h = max(h, 2*badgeR+1)
				}
			}
		}
		colW := legendWidth(items) + 16
		cols := max(1, int((c.Max.X-c.Min.X)/colW))
		cols = min(cols, len(items))
		rows := (len(items) + cols - 1) / cols
		x0 := c.Min.X + (c.Max.X-c.Min.X-vg.Length(cols)*colW)/2
		for i, e := range items {
			row, col := i/cols, i%cols
			mid := y + vg.Length(rows-1-row)*(h+legendRowSpace) + h/2
			x := x0 + vg.Length(col)*colW
			tc := c
			tc.Min = vg.Point{X: x, Y: mid - h/2}
			tc.Max = vg.Point{X: x + thumbWidth, Y: mid + h/2}
			for _, t := range e.thumbs {
				t.Thumbnail(&tc)
			}
			c.FillText(ts, vg.Point{X: x + thumbWidth + 5, Y: mid}, e.label)
		}
		y += vg.Length(rows)*(h+legendRowSpace) + 2
	}
	return y
}

// WriteSVG draws d into an SVG document of the given size and writes it to
// w. A zero width or height takes the figure's own size (for a *Figure).
func WriteSVG(w io.Writer, d Drawer, width, height vg.Length) error {
	width, height, err := size(d, width, height)
	if err != nil {
		return err
	}
	c := vgsvg.New(width, height)
	d.Draw(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// SVG returns d drawn as an SVG document (see WriteSVG).
func SVG(d Drawer, width, height vg.Length) (string, error) {
	var b bytes.Buffer
	if err := WriteSVG(&b, d, width, height); err != nil {
		return "", err
	}
	return b.String(), nil
}

// WritePNG draws d into a PNG image of the given size (points) at dpi dots
// per inch and writes it to w. A zero width or height takes the figure's
// own size; dpi 0 means 144.
func WritePNG(w io.Writer, d Drawer, width, height vg.Length, dpi int) error {
	width, height, err := size(d, width, height)
	if err != nil {
		return err
	}
	if dpi == 0 {
		dpi = 144
	}
	if dpi < 10 || dpi > 1200 {
		return inputErr("dpi %d is out of range [10, 1200]", dpi)
	}
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))
	d.Draw(draw.New(c))
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// PNG returns d drawn as a PNG image (see WritePNG).
func PNG(d Drawer, width, height vg.Length, dpi int) ([]byte, error) {
	var b bytes.Buffer
	if err := WritePNG(&b, d, width, height, dpi); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DrawTo draws d onto any vg.Canvas (a PDF page of the report, for one)
// in the rectangle from (0, 0) to (width, height). A zero width or height
// takes the figure's own size.
func DrawTo(c vg.Canvas, d Drawer, width, height vg.Length) error {
	width, height, err := size(d, width, height)
	if err != nil {
		return err
	}
	d.Draw(draw.NewCanvas(c, width, height))
	return nil
}

func size(d Drawer, w, h vg.Length) (vg.Length, vg.Length, error) {
	if d == nil {
		return 0, 0, inputErr("nothing to draw")
	}
	if f, ok := d.(*Figure); ok {
		if f == nil {
			return 0, 0, inputErr("nothing to draw")
		}
		if w == 0 {
			w = f.Width
		}
		if h == 0 {
			h = f.Height
		}
	}
	if !(w >= vg.Inch && h >= vg.Inch) || w > 100*vg.Inch || h > 100*vg.Inch {
		return 0, 0, inputErr("figure size %.4gpt × %.4gpt is out of range (1 to 100 inches each way)", float64(w), float64(h))
	}
	return w, h, nil
}

// GrowForLegend makes the figure tall enough for a legend of entries rows
// under its title and provenance: a figure lays its legend out at its own
// size, and one with many series would push it off the bottom.
func (f *Figure) GrowForLegend(entries int) {
	const titleH, provLineH, entryH, margins = 22, 10, 13, 70
	prov := textStyle(vg.Points(8), false, color.Black).Width(f.Provenance) / (f.Width - vg.Points(16))
	need := vg.Points(titleH+margins) + vg.Length(math.Ceil(float64(prov)))*provLineH + vg.Length(entries)*entryH
	if need > f.Height {
		f.Height = need
	}
}
