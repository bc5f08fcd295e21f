package plots

import (
	"fmt"
	"image/color"

	"github.com/gpupath/gpupath/pkg/model"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Style is how one data path looks in every figure: one colour, one dash
// pattern for its model line and one glyph for its measured points.
type Style struct {
	Color  color.Color
	Dashes []vg.Length // nil: solid
	Glyph  draw.GlyphDrawer
}

// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008):
// eight colours that stay distinct under the common forms of colour
// blindness. Yellow is left out: it vanishes on white.
var (
	Black         = color.RGBA{0x00, 0x00, 0x00, 0xff}
	Orange        = color.RGBA{0xe6, 0x9f, 0x00, 0xff}
	SkyBlue       = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	BluishGreen   = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	Blue          = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	Vermillion    = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	ReddishPurple = color.RGBA{0xcc, 0x79, 0xa7, 0xff}
	Grey          = color.RGBA{0x88, 0x88, 0x88, 0xff}
)

// Dash patterns.
var (
	Solid   []vg.Length
	Dashed  = []vg.Length{vg.Points(5), vg.Points(2.5)}
	DashDot = []vg.Length{vg.Points(5), vg.Points(2), vg.Points(1), vg.Points(2)}
	Dotted  = []vg.Length{vg.Points(1.2), vg.Points(1.8)}
)

// otherGlyphs are used, in turn, for measured series that name no known path.
var otherGlyphs = []draw.GlyphDrawer{Mark{Shape: Triangle}, Mark{Shape: Diamond}, Mark{Shape: Plus}, Mark{Shape: Cross}}

// PathStyle returns the style of the named path, as its entry in the
// model's path registry names it (model.Path.Style: colour, dashes, glyph):
// one style per path in every figure, and a path registered later is drawn
// in its own. An unknown name gets grey, solid, with a ring glyph.
func PathStyle(name string) Style {
	p, err := model.LookupPath(name)
	if err != nil {
		return Style{Color: Grey, Glyph: draw.RingGlyph{}}
	}
	return styleOf(p.Style)
}

// knownPath reports whether name is a path of the registry.
func knownPath(name string) bool {
	_, err := model.LookupPath(name)
	return err == nil
}

// styleOf turns the model's named style into drawing values.
func styleOf(ms model.Style) Style {
	st := Style{Color: hexColor(ms.Color)}
	switch ms.Dash {
	case model.DashDashed:
		st.Dashes = Dashed
	case model.DashDotted:
		st.Dashes = Dotted
	case model.DashDashDot:
		st.Dashes = DashDot
	}
	shape, ok := map[model.Glyph]Shape{model.GlyphCircle: Circle, model.GlyphSquare: Square, model.GlyphTriangle: Triangle,
		model.GlyphDiamond: Diamond, model.GlyphPlus: Plus, model.GlyphCross: Cross}[ms.Glyph]
	if ok {
		st.Glyph = Mark{Shape: shape, Filled: ms.Filled}
	} else {
		st.Glyph = draw.RingGlyph{}
	}
	return st
}

// hexColor reads "#rrggbb"; anything else is Grey.
func hexColor(h string) color.Color {
	var r, g, b uint8
	if len(h) != 7 || h[0] != '#' {
		return Grey
	}
	if _, err := fmt.Sscanf(h[1:], "%02x%02x%02x", &r, &g, &b); err != nil {
		return Grey
	}
	return color.RGBA{r, g, b, 0xff}
}

// LetterColors colour the stage letters A–G in the breakdown, from
// Paul Tol's colour-blind-safe "muted" scheme (Tol, "Colour Schemes", SRON
// technical note, 2021). Stages without a letter use OtherStageColor.
var LetterColors = map[string]color.Color{
	"A": color.RGBA{0x33, 0x22, 0x88, 0xff}, // indigo: cudaMemcpy D2H
	"B": color.RGBA{0xcc, 0x66, 0x77, 0xff}, // rose: send stack / post
	"C": color.RGBA{0x44, 0xaa, 0x99, 0xff}, // teal: NIC DMA read
	"D": color.RGBA{0xdd, 0xcc, 0x77, 0xff}, // sand: wire
	"E": color.RGBA{0x11, 0x77, 0x33, 0xff}, // green: NIC DMA write
	"F": color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine: receive stack / poll
	"G": color.RGBA{0x88, 0xcc, 0xee, 0xff}, // cyan: cudaMemcpy H2D
}

// OtherStageColor colours stages that carry no letter A–G.
var OtherStageColor color.Color = color.RGBA{0xbb, 0xbb, 0xbb, 0xff}

// MetricColors colour the three bars of Costs: copies, DDR bytes per
// payload byte, PCIe crossings (Tol's "bright" blue, yellow-free trio).
var MetricColors = [3]color.Color{
	color.RGBA{0x44, 0x77, 0xaa, 0xff},
	color.RGBA{0xee, 0x66, 0x77, 0xff},
	color.RGBA{0x22, 0x88, 0x33, 0xff},
}

// Ink colours of text and frames.
var (
	TextColor  color.Color = color.RGBA{0x1a, 0x1a, 0x1a, 0xff}
	MutedColor color.Color = color.RGBA{0x55, 0x55, 0x55, 0xff}
	GridColor  color.Color = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
)

// Font is the typeface of every figure: Liberation Sans, regular and bold.
// The report's PDF canvas needs only these two faces.
var Font = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Font sizes.
var (
	TitleSize  = vg.Points(11)
	LabelSize  = vg.Points(9)
	TickSize   = vg.Points(8)
	LegendSize = vg.Points(8)
	NoteSize   = vg.Points(7.5)
)

// LineWidth is the width of model lines; RefLineWidth of the dashed
// host-to-host reference paths, drawn thinner and on top so that a GPU
// path with the same values still shows through.
var (
	LineWidth    = vg.Points(1.5)
	RefLineWidth = vg.Points(1.1)
)

// Default figure sizes (points): a full text width of a paper or report page.
var (
	DefaultWidth   = vg.Inch * 7
	DefaultHeight  = vg.Inch * 4.3
	DiagramWidth   = vg.Inch * 8
	DiagramHeight  = vg.Inch * 5.2
	GlyphRadius    = vg.Points(2.8)
	handler        = text.Plain{Fonts: font.DefaultCache}
	thumbWidth     = vg.Points(20)
	legendRowSpace = vg.Points(3)
)

// boldFont is Font, bold.
func boldFont() font.Font {
	f := Font
	f.Weight = xfont.WeightBold
	return f
}

func textStyle(size vg.Length, bold bool, clr color.Color) text.Style {
	f := Font
	if bold {
		f = boldFont()
	}
	return text.Style{Color: clr, Font: font.From(f, size), XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: handler}
}

// styleAxes applies the package's fonts and a light look to a plot.
func styleAxes(p *plot.Plot) {
	p.BackgroundColor = nil // the figure paints the background once
	p.Title.Text = ""
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(Font, LabelSize)
		a.Label.TextStyle.Color = TextColor
		a.Label.TextStyle.Handler = handler
		a.Tick.Label.Font = font.From(Font, TickSize)
		a.Tick.Label.Color = TextColor
		a.Tick.Label.Handler = handler
		a.Color = MutedColor
		a.Tick.Color = MutedColor
		a.Width = vg.Points(0.6)
		a.Tick.Width = vg.Points(0.5)
		a.Tick.Length = vg.Points(4)
		a.Padding = vg.Points(2)
		a.Label.Padding = vg.Points(3)
	}
	p.Legend.TextStyle.Font = font.From(Font, LegendSize)
	p.Legend.TextStyle.Handler = handler
}
