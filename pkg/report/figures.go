package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
)

// drawer is anything that draws itself on a canvas: a *plot.Plot, a
// diagram, tiles of plots.
type drawer interface {
	Draw(c draw.Canvas)
}

// drawFunc adapts a function to drawer.
type drawFunc func(c draw.Canvas)

func (f drawFunc) Draw(c draw.Canvas) { f(c) }

// figure is one numbered figure: what it draws, its data, where the data
// comes from.
type figure struct {
	Num     int
	ID      string // slug in the file names: figure-02-latency.csv
	Title   string
	Caption string
	// Kind is "modeled", "measured" or "modeled and measured"; Origin says
	// from which scenario, or where and when it was measured.
	Kind     string
	Origin   string
	W, H     vg.Length
	Draw     drawer
	Data     *table
	NotDrawn []notDrawnJSON
	// captionHasOrigin: the caption already says where the data come from.
	captionHasOrigin bool
}

// Base is the file name of the figure's data without extension.
func (f *figure) Base() string { return fmt.Sprintf("figure-%02d-%s", f.Num, f.ID) }

// ShowOrigin tells whether the caption must add where the data come from.
func (f *figure) ShowOrigin() bool { return !f.captionHasOrigin }

// Anchor is the HTML id of the figure.
func (f *figure) Anchor() string { return fmt.Sprintf("fig-%d", f.Num) }

func (a *analysis) notDrawnJSON() []notDrawnJSON {
	var out []notDrawnJSON
	for _, p := range a.notDrawn() {
		out = append(out, notDrawnJSON{Path: p, Reason: a.routes[p].Reason})
	}
	return out
}

// notDrawnText says which paths a figure leaves out, for its caption.
func (a *analysis) notDrawnText() string {
	nd := a.notDrawn()
	if len(nd) == 0 {
		return ""
	}
	var parts []string
	for _, p := range nd {
		parts = append(parts, p+" ("+shortReason(a.routes[p].Reason)+")")
	}
	return " Not drawn, infeasible on this scenario: " + strings.Join(parts, "; ")
}

// addLine adds a path's curve to p, skipping points a log axis cannot show.
func addLine(p *legendPlot, label string, xs []model.Bytes, y func(model.Bytes) float64, sty draw.LineStyle) {
	var pts plotter.XYs
	for _, n := range xs {
		if v := y(n); finitePos(v) {
			pts = append(pts, plotter.XY{X: float64(n), Y: v})
		}
	}
	if len(pts) < 2 {
		return
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		panic(err) // the points are checked above
	}
	l.LineStyle = sty
	p.Add(l)
	if label != "" {
		p.Leg.Add(label, l)
	}
}

// letterRoles names what each seed letter does, for legends.
var letterRoles = []struct{ letter, role string }{
	{"A", "copy GPU→host"}, {"B", "send (CPU)"}, {"C", "NIC reads"}, {"D", "wire"},
	{"E", "NIC writes"}, {"F", "receive (CPU)"}, {"G", "copy host→GPU"}, {"", "other"},
}

var letterColors = map[string]color.Color{
	"A": rgb(0xE69F00), "B": rgb(0xD55E00), "C": rgb(0x56B4E9), "D": rgb(0x999999),
	"E": rgb(0x0072B2), "F": rgb(0xCC79A7), "G": rgb(0xF0E442), "": rgb(0x333333),
}

