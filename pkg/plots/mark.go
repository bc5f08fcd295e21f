package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Shape is the outline of a Mark.
type Shape int

// The shapes of marks.
const (
	Circle Shape = iota
	Square
	Triangle
	Diamond
	Cross
	Plus
)

// Mark is the glyph of measured points: a shape, filled or drawn in
// outline, on a white halo that lifts it off the model lines beneath.
type Mark struct {
	Shape  Shape
	Filled bool
}

// MarkStroke is the line width of outlined marks.
var MarkStroke = vg.Points(1.1)

// DrawGlyph implements draw.GlyphDrawer.
func (m Mark) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	halo := shapePath(Circle, pt, r+vg.Points(1.4))
	c.SetColor(color.White)
	c.Fill(halo)
	p := shapePath(m.Shape, pt, r)
	if m.Filled && m.Shape != Cross && m.Shape != Plus {
		c.SetColor(sty.Color)
		c.Fill(p)
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: MarkStroke})
	c.Stroke(p)
}

func shapePath(s Shape, pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	poly := func(pts ...vg.Point) {
		p.Move(pts[0])
		for _, q := range pts[1:] {
			p.Line(q)
		}
		p.Close()
	}
	switch s {
	case Square:
		h := r * 0.85
		poly(vg.Point{X: pt.X - h, Y: pt.Y - h}, vg.Point{X: pt.X + h, Y: pt.Y - h},
			vg.Point{X: pt.X + h, Y: pt.Y + h}, vg.Point{X: pt.X - h, Y: pt.Y + h})
	case Triangle:
		rr := r * 1.15
		poly(vg.Point{X: pt.X, Y: pt.Y + rr},
			vg.Point{X: pt.X - rr*vg.Length(math.Sqrt(3)/2), Y: pt.Y - rr/2},
			vg.Point{X: pt.X + rr*vg.Length(math.Sqrt(3)/2), Y: pt.Y - rr/2})
	case Diamond:
		rr := r * 1.15
		poly(vg.Point{X: pt.X, Y: pt.Y + rr}, vg.Point{X: pt.X + rr, Y: pt.Y},
			vg.Point{X: pt.X, Y: pt.Y - rr}, vg.Point{X: pt.X - rr, Y: pt.Y})
	case Cross:
		h := r * 0.85
		p.Move(vg.Point{X: pt.X - h, Y: pt.Y - h})
		p.Line(vg.Point{X: pt.X + h, Y: pt.Y + h})
		p.Move(vg.Point{X: pt.X - h, Y: pt.Y + h})
		p.Line(vg.Point{X: pt.X + h, Y: pt.Y - h})
	case Plus:
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
		p.Line(vg.Point{X: pt.X, Y: pt.Y + r})
	default:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
		p.Close()
	}
	return p
}
