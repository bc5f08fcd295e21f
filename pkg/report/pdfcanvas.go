package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"codeberg.org/go-fonts/liberation/liberationmonobold"
	"codeberg.org/go-fonts/liberation/liberationmonobolditalic"
	"codeberg.org/go-fonts/liberation/liberationmonoitalic"
	"codeberg.org/go-fonts/liberation/liberationmonoregular"
	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansbolditalic"
	"codeberg.org/go-fonts/liberation/liberationsansitalic"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"codeberg.org/go-fonts/liberation/liberationserifbold"
	"codeberg.org/go-fonts/liberation/liberationserifbolditalic"
	"codeberg.org/go-fonts/liberation/liberationserifitalic"
	"codeberg.org/go-fonts/liberation/liberationserifregular"
	"codeberg.org/go-pdf/fpdf"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/plots"
)

// pdfFonts registers the Liberation fonts with a document as UTF-8 fonts,
// each the first time it is used: text is written as Unicode, so µ, ≥ and →
// come out as themselves (gonum's vgpdf maps text to cp1252 and cannot).
// They are the same TrueType files gonum measures text with, so text laid
// out by a plot fits in the PDF exactly.
type pdfFonts struct {
	doc  *fpdf.Fpdf
	done map[string]bool
	// cur is the font in use (liberationTTF's key); missing the characters
	// show replaced because a font had no glyph for them (pdftext.go).
	cur     string
	missing map[string]map[rune]bool
}

var liberationTTF = map[string][]byte{
	"LiberationSans":    liberationsansregular.TTF,
	"LiberationSansB":   liberationsansbold.TTF,
	"LiberationSansI":   liberationsansitalic.TTF,
	"LiberationSansBI":  liberationsansbolditalic.TTF,
	"LiberationSerif":   liberationserifregular.TTF,
	"LiberationSerifB":  liberationserifbold.TTF,
	"LiberationSerifI":  liberationserifitalic.TTF,
	"LiberationSerifBI": liberationserifbolditalic.TTF,
	"LiberationMono":    liberationmonoregular.TTF,
	"LiberationMonoB":   liberationmonobold.TTF,
	"LiberationMonoI":   liberationmonoitalic.TTF,
	"LiberationMonoBI":  liberationmonobolditalic.TTF,
}

// use registers family+style if needed and selects it at size points.
func (p *pdfFonts) use(family, style string, size float64) {
	key := family + style
	if !p.done[key] {
		ttf, ok := liberationTTF[key]
		if !ok {
			panic("report: no font " + key)
		}
		p.doc.AddUTF8FontFromBytes(family, style, ttf)
		p.done[key] = true
	}
	p.cur = key
	p.doc.SetFont(family, style, size)
}

// face maps a gonum font to a Liberation family and fpdf style.
func face(f font.Font) (family, style string) {
	switch f.Variant {
	case "Mono":
		family = "LiberationMono"
	case "Serif":
		family = "LiberationSerif"
	default:
		family = "LiberationSans"
	}
	if f.Weight >= xfont.WeightBold {
		style += "B"
	}
	if f.Style == xfont.StyleItalic || f.Style == xfont.StyleOblique {
		style += "I"
	}
	return family, style
}

// pdfCanvas is a vg.Canvas that draws into a rectangle of a page of an
// fpdf document: paths, fills, strokes, dashes, transforms, images and
// text, all as vector operators. The origin is the rectangle's bottom left
// corner; units are points.
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	fonts *pdfFonts
	w, h  vg.Length
	stack []pdfState
	imgs  int
	id    string
}

type pdfState struct {
	clr    color.Color
	width  vg.Length
	dashes []vg.Length
	offs   vg.Length
	alpha  float64
}

var _ vg.CanvasSizer = (*pdfCanvas)(nil)

// drawPDF draws d, laid out for width w and height h, scaled by k into the
// rectangle whose top left corner is at (x, y) on the current page (fpdf
// coordinates: points from the top left of the page).
func drawPDF(doc *fpdf.Fpdf, fonts *pdfFonts, d plots.Drawer, x, y float64, w, h vg.Length, k float64, id string) {
	c := &pdfCanvas{doc: doc, fonts: fonts, w: w, h: h, stack: []pdfState{{clr: color.Black, width: 1, alpha: 1}}, id: id}
	doc.TransformBegin()
	// Flip the y axis: vg's origin is the bottom left, fpdf's the top left.
	doc.TransformTranslate(x, y+h.Points()*k)
	doc.TransformScale(100*k, -100*k, 0, 0)
	vg.Initialize(c)
	d.Draw(draw.New(c))
	doc.TransformEnd()
}

func (c *pdfCanvas) Size() (vg.Length, vg.Length) { return c.w, c.h }

func (c *pdfCanvas) state() *pdfState { return &c.stack[len(c.stack)-1] }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.state().width = w
	c.doc.SetLineWidth(w.Points())
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	st := c.state()
	st.dashes, st.offs = append([]vg.Length(nil), dashes...), offs
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offs.Points())
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	st := c.state()
	st.clr = clr
	r, g, b, a := rgba(clr)
	c.doc.SetDrawColor(r, g, b)
	c.doc.SetFillColor(r, g, b)
	c.doc.SetTextColor(r, g, b)
	if a != st.alpha {
		c.doc.SetAlpha(a, "Normal")
		st.alpha = a
	}
}

// rgba converts a colour to 8-bit components and an opacity; the
// components of a translucent colour are un-premultiplied.
func rgba(clr color.Color) (r, g, b int, a float64) {
	nc := color.NRGBAModel.Convert(clr).(color.NRGBA)
	return int(nc.R), int(nc.G), int(nc.B), float64(nc.A) / 255
}

func (c *pdfCanvas) Rotate(rad float64) {
	c.doc.TransformRotate(-rad*180/math.Pi, 0, 0)
}

func (c *pdfCanvas) Translate(pt vg.Point) {
	c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points())
}

func (c *pdfCanvas) Scale(x, y float64) {
	c.doc.TransformScale(x*100, y*100, 0, 0)
}

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.state())
	c.doc.TransformBegin()
}

// Pop restores the saved state. The PDF restores its graphics state with
// Q, but fpdf keeps its own idea of the current colour and line: set them
// again so that both agree.
func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
	st := c.state()
	r, g, b, _ := rgba(st.clr)
	c.doc.SetDrawColor(r, g, b)
	c.doc.SetFillColor(r, g, b)
	c.doc.SetTextColor(r, g, b)
	c.doc.SetLineWidth(st.width.Points())
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.state().width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// FillString writes text with its baseline starting at pt. The text is
// drawn in an unflipped space at pt so that glyphs stand upright.
func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, text string) {
	if f.Font.Size == 0 || text == "" {
		return
	}
	family, style := face(f.Font)
	c.fonts.use(family, style, f.Font.Size.Points())
	c.Push()
	c.Translate(pt)
	c.Scale(1, -1)
	c.doc.Text(0, 0, c.fonts.show(text))
	c.Pop()
}

func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.doc.SetError(err)
		return
	}
	c.imgs++
	name := fmt.Sprintf("%s-img-%d", c.id, c.imgs)
	opt := fpdf.ImageOptions{ImageType: "png"}
	c.doc.RegisterImageOptionsReader(name, opt, &buf)
	size := rect.Size()
	// The image must stand upright in the flipped space.
	c.Push()
	c.Translate(vg.Point{X: rect.Min.X, Y: rect.Max.Y})
	c.Scale(1, -1)
	c.doc.ImageOptions(name, 0, 0, size.X.Points(), size.Y.Points(), false, opt, 0, "")
	c.Pop()
}

func (c *pdfCanvas) path(p vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = comp.Pos.X.Points(), comp.Pos.Y.Points()
			c.doc.MoveTo(x0, y0)
		case vg.LineComp:
			c.doc.LineTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.ArcComp:
			c.arc(comp)
		case vg.CurveComp:
			px, py := comp.Pos.X.Points(), comp.Pos.Y.Points()
			switch len(comp.Control) {
			case 1:
				c.doc.CurveTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(), px, py)
			case 2:
				c.doc.CurveBezierCubicTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(),
					comp.Control[1].X.Points(), comp.Control[1].Y.Points(), px, py)
			}
		case vg.CloseComp:
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

// arc appends an arc to the current path as cubic Bézier segments of at
// most 90° each.
func (c *pdfCanvas) arc(comp vg.PathComp) {
	cx, cy, r := comp.Pos.X.Points(), comp.Pos.Y.Points(), comp.Radius.Points()
	start, sweep := comp.Start, comp.Angle
	x, y := cx+r*math.Cos(start), cy+r*math.Sin(start)
	c.doc.LineTo(x, y)
	n := int(math.Ceil(math.Abs(sweep) / (math.Pi / 2)))
	if n == 0 {
		return
	}
	step := sweep / float64(n)
	k := 4.0 / 3.0 * math.Tan(step/4)
	for i := 0; i < n; i++ {
		a0 := start + float64(i)*step
		a1 := a0 + step
		x0, y0 := cx+r*math.Cos(a0), cy+r*math.Sin(a0)
		x1, y1 := cx+r*math.Cos(a1), cy+r*math.Sin(a1)
		c.doc.CurveBezierCubicTo(x0-k*r*math.Sin(a0), y0+k*r*math.Cos(a0),
			x1+k*r*math.Sin(a1), y1-k*r*math.Cos(a1), x1, y1)
	}
}
