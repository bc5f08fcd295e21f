package report

import (
	"fmt"

	"gonum.org/v1/plot/vg"

	"github.com/gpupath/gpupath/pkg/plots"
)

// Figure sizes: the PDF's text width (A4 less two 50 pt margins), and the
// HTML scales them to the width of the screen.
const (
	figW vg.Length = 495
	figH vg.Length = 290
)

// figure is one numbered figure: what it draws, its data, where the data
// comes from.
type figure struct {
	Num     int
	ID      string // slug in the file names: figure-02-latency.csv
	Title   string
	Caption string
	// Kind is "modeled", "measured" or "modeled and measured"; Origin says
	// from which scenario, or where and when it was measured.
	Kind   string
	Origin string
	W, H   vg.Length
	Draw   plots.Drawer
	Data   plots.Table
	// captionHasOrigin: the caption already says where the data come from.
	captionHasOrigin bool
}

// Base is the file name of the figure's data without extension.
func (f *figure) Base() string { return fmt.Sprintf("figure-%02d-%s", f.Num, f.ID) }

// ShowOrigin tells whether the caption must add where the data come from.
func (f *figure) ShowOrigin() bool { return !f.captionHasOrigin }

// Anchor is the HTML id of the figure.
func (f *figure) Anchor() string { return fmt.Sprintf("fig-%d", f.Num) }

// drawingFigure makes a report figure of a pkg/plots Drawing.
func drawingFigure(d plots.Drawing, f *figure) *figure {
	f.Draw, f.Data, f.H = d.Drawer, d.Data, d.Height
	return f
}
