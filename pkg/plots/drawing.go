package plots

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Drawing is a figure that the document around it frames: it has no
// title, provenance, legend column or caption of a Figure's (the report
// prints its number, title and caption), it fills the width it is drawn
// at, and Height is the height it reads best at (0: any; the report's
// default). Data is the data behind it.
//
// StageMap makes a Drawing: the stages of each path by node, where Diagram
// cannot draw the scenario; it has no legend of its own. Every figure with
// axes is a Figure.
type Drawing struct {
	Drawer
	Height vg.Length
	Data   Table
}

// plainGrey is the grey of a Drawing's secondary text.
var plainGrey = rgb(0x444444)

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

// plainText is the text style of Drawings: Font at size points, black.
func plainText(size float64, bold bool) draw.TextStyle {
	return textStyle(vg.Points(size), bold, color.Black)
}
