package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
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
	// rows, when set (one height per panel), stacks the panels top to
	// bottom instead of side by side, their data areas aligned at the left
	// and the right: a panel of that height, or, for a 0, what the others
	// leave.
	rows []vg.Length
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
//
// An entry stands for something drawn: the lines and scatters among its
// thumbnails, or, where the thumbnail is a sample of a style (a dotted line
// standing for the dotted line of every path), the plotters in stands;
// count adds what a drawing counts itself (bars of a colour, a diagram's
// routes). Layout counts the points of them all inside a panel's axes: an
// entry that stands for nothing drawn is a bug a test finds.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
	header bool
	stands []plot.Plotter
	count  int
}

// Size returns the size the figure was laid out for.
func (f *Figure) Size() (w, h vg.Length) { return f.Width, f.Height }

const pad = vg.Length(8)

// Draw draws the figure into c. It fills c's rectangle with white first.
func (f *Figure) Draw(c draw.Canvas) { f.draw(c, nil) }

// Layout says where the figure, drawn at its own size, puts its legend and
// its data: in points on a canvas of Width × Height with the origin at the
// bottom left.
type Layout struct {
	// Legend has one box per legend entry (headers too, which stand for
	// nothing), in the order drawn.
	Legend []LegendBox
	// Data are the panels' data areas (where their gridlines, lines and
	// points lie; the body of a drawing such as the Diagram).
	Data []vg.Rectangle
}

// LegendBox is where a legend entry is drawn (thumbnail and label) and how
// many drawn values it stands for (points of its lines and scatters inside
// a panel's axes, bars, routes).
type LegendBox struct {
	Label  string
	Header bool
	Rect   vg.Rectangle
	Drawn  int
}

// Layout draws the figure at its own size onto a canvas that keeps
// nothing and returns where its parts went.
func (f *Figure) Layout() Layout {
	var lay Layout
	f.draw(draw.NewCanvas(nullCanvas{}, f.Width, f.Height), &lay)
	for i, e := range f.shownLegend() {
		if i < len(lay.Legend) {
			lay.Legend[i].Drawn = f.drawn(e)
		}
	}
	return lay
}

// MaxLegendEntries is the most entries a legend lists: past it the last
// entry says how many more series the figure draws (a run of thousands of
// variants would make a figure hundreds of inches tall). Every series is
// in the figure's data either way.
const MaxLegendEntries = 30

// shownLegend is the legend as drawn: the entries, or the first
// MaxLegendEntries−1 of them and one that counts the rest (and stands for
// what they draw).
func (f *Figure) shownLegend() []legendEntry {
	if len(f.legend) <= MaxLegendEntries {
		return f.legend
	}
	out := append([]legendEntry(nil), f.legend[:MaxLegendEntries-1]...)
	rest := f.legend[MaxLegendEntries-1:]
	more := legendEntry{label: fmt.Sprintf("… and %d more (every one in the figure's data)", len(rest))}
	for _, e := range rest {
		more.count += f.drawn(e)
	}
	return append(out, more)
}

// drawn counts what e stands for: the points of its lines and scatters
// (thumbnails and stands) inside the axes of a panel, and its count.
func (f *Figure) drawn(e legendEntry) int {
	n := e.count
	var ps []plot.Plotter
	for _, t := range e.thumbs {
		if p, ok := t.(plot.Plotter); ok {
			ps = append(ps, p)
		}
	}
	for _, p := range append(ps, e.stands...) {
		var xys plotter.XYs
		switch v := p.(type) {
		case *plotter.Line:
			xys = v.XYs
		case *plotter.Scatter:
			xys = v.XYs
		}
		for _, xy := range xys {
			for _, a := range f.panels {
				if inAxes(a.p, xy.X, xy.Y) {
					n++
					break
				}
			}
		}
	}
	return n
}

// inAxes reports whether (x, y) lies inside p's axis ranges.
func inAxes(p *plot.Plot, x, y float64) bool {
	return x >= p.X.Min && x <= p.X.Max && y >= p.Y.Min && y <= p.Y.Max
}

func (f *Figure) draw(c draw.Canvas, lay *Layout) {
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
	legend := f.shownLegend()
	if len(legend) > 0 && f.legendBelow {
		body.Min.Y = drawLegendRows(body, legend, lay) + 6
	} else if len(legend) > 0 {
		lw := legendWidth(legend)
		lc := body
		lc.Min.X = body.Max.X - lw
		drawLegend(lc, legend, lay)
		body.Max.X = lc.Min.X - 10
	}

	switch {
	case f.body != nil:
		f.body(body)
		if lay != nil {
			lay.Data = append(lay.Data, body.Rectangle)
		}
	case len(f.panels) > 0:
		f.drawPanels(body, lay)
	}
}

func (f *Figure) drawPanels(body draw.Canvas, lay *Layout) {
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
	var cs []draw.Canvas
	if len(f.rows) == len(f.panels) {
		cs = stackRows(ps, f.rows, body)
	} else {
		tiles := draw.Tiles{Rows: 1, Cols: len(ps), PadX: gap + lh}
		cs = plot.Align([][]*plot.Plot{ps}, tiles, body)[0]
	}
	for i, a := range f.panels {
		tile := cs[i]
		a.p.Draw(tile)
		dc := a.p.DataCanvas(tile)
		if lay != nil {
			lay.Data = append(lay.Data, dc.Rectangle)
		}
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

// rowGap is the space between panels stacked in rows.
const rowGap = vg.Length(8)

// stackRows lays the plots out top to bottom in c, each of its height in
// heights (a 0 shares what the others leave), rowGap apart, and crops
// each so that their data areas start and end at the same x: the widest
// margins of them all on either side.
func stackRows(ps []*plot.Plot, heights []vg.Length, c draw.Canvas) []draw.Canvas {
	fixed, rest := vg.Length(0), 0
	for _, h := range heights {
		fixed += h
		if h == 0 {
			rest++
		}
	}
	free := max(0, c.Max.Y-c.Min.Y-fixed-rowGap*vg.Length(len(ps)-1))
	out := make([]draw.Canvas, len(ps))
	top := c.Max.Y
	for i, h := range heights {
		if h == 0 {
			h = free / vg.Length(rest)
		}
		out[i] = c
		out[i].Max.Y, out[i].Min.Y = top, top-h
		top -= h + rowGap
	}
	var left, right vg.Length
	for i, p := range ps {
		dc := p.DataCanvas(out[i])
		left, right = max(left, dc.Min.X-out[i].Min.X), max(right, out[i].Max.X-dc.Max.X)
	}
	for i, p := range ps {
		dc := p.DataCanvas(out[i])
		out[i] = draw.Crop(out[i], left-(dc.Min.X-out[i].Min.X), -(right - (out[i].Max.X - dc.Max.X)), 0, 0)
	}
	return out
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

// legendBox records where an entry went: its thumbnail (when it has one)
// and its label, with the label at x and the row's middle at mid.
func legendBox(lay *Layout, e legendEntry, ts text.Style, x0, x, mid, h vg.Length) {
	if lay == nil {
		return
	}
	r := vg.Rectangle{Min: vg.Point{X: x0, Y: mid - h/2}, Max: vg.Point{X: x + ts.Width(e.label), Y: mid + h/2}}
	lay.Legend = append(lay.Legend, LegendBox{Label: e.label, Header: e.header, Rect: r})
}

func drawLegend(c draw.Canvas, entries []legendEntry, lay *Layout) {
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
		legendBox(lay, e, ts, c.Min.X, x, mid, h)
		y -= h + legendRowSpace
	}
}

// drawLegendRows draws the legend in rows under the body: each group of
// entries (groups are separated by header entries, which are not drawn)
// in as many columns as fit across c. It draws from the bottom of c up
// and returns the top of what it drew.
func drawLegendRows(c draw.Canvas, entries []legendEntry, lay *Layout) vg.Length {
	var groups [][]legendEntry
	var groupStart []int // the place in entries of each group's first entry
	cur := []legendEntry{}
	start := 0
	for i, e := range entries {
		if e.header {
			if len(cur) > 0 {
				groups, groupStart = append(groups, cur), append(groupStart, start)
			}
			cur, start = []legendEntry{}, i+1
			continue
		}
		cur = append(cur, e)
	}
	if len(cur) > 0 {
		groups, groupStart = append(groups, cur), append(groupStart, start)
	}
	// The boxes go in the entries' order, though the groups are drawn from
	// the bottom up; a header, not drawn here, has an empty box.
	var boxes []LegendBox
	if lay != nil {
		boxes = make([]LegendBox, len(entries))
		for i, e := range entries {
			boxes[i] = LegendBox{Label: e.label, Header: e.header}
		}
		defer func() {
			lay.Legend = append(lay.Legend, boxes...)
		}()
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
			if boxes != nil {
				var sub Layout
				legendBox(&sub, e, ts, x, x+thumbWidth+5, mid, h)
				boxes[groupStart[g]+i].Rect = sub.Legend[0].Rect
			}
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
	entries = min(entries, MaxLegendEntries) // a legend lists at most MaxLegendEntries
	const titleH, provLineH, entryH, margins = 22, 10, 13, 70
	prov := textStyle(vg.Points(8), false, color.Black).Width(f.Provenance) / (f.Width - vg.Points(16))
	need := vg.Points(titleH+margins) + vg.Length(math.Ceil(float64(prov)))*provLineH + vg.Length(entries)*entryH
	if need > f.Height {
		f.Height = need
	}
}

// nullCanvas is a vg.Canvas that draws nothing: Layout lays a figure out
// on it.
type nullCanvas struct{}

func (nullCanvas) SetLineWidth(vg.Length)                 {}
func (nullCanvas) SetLineDash([]vg.Length, vg.Length)     {}
func (nullCanvas) SetColor(color.Color)                   {}
func (nullCanvas) Rotate(float64)                         {}
func (nullCanvas) Translate(vg.Point)                     {}
func (nullCanvas) Scale(float64, float64)                 {}
func (nullCanvas) Push()                                  {}
func (nullCanvas) Pop()                                   {}
func (nullCanvas) Stroke(vg.Path)                         {}
func (nullCanvas) Fill(vg.Path)                           {}
func (nullCanvas) FillString(font.Face, vg.Point, string) {}
func (nullCanvas) DrawImage(vg.Rectangle, image.Image)    {}
