package report

import (
	"fmt"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	Kind   string
	Origin string
	W, H   vg.Length
	Draw   drawer
	Data   *table
	// captionHasOrigin: the caption already says where the data come from.
	captionHasOrigin bool
}

// Base is the file name of the figure's data without extension.
func (f *figure) Base() string { return fmt.Sprintf("figure-%02d-%s", f.Num, f.ID) }

// ShowOrigin tells whether the caption must add where the data come from.
func (f *figure) ShowOrigin() bool { return !f.captionHasOrigin }

// Anchor is the HTML id of the figure.
func (f *figure) Anchor() string { return fmt.Sprintf("fig-%d", f.Num) }

// letterRoles names what each seed letter does, for legends.
var letterRoles = []struct{ letter, role string }{
	{"A", "copy GPU→host"}, {"B", "send (CPU)"}, {"C", "NIC reads"}, {"D", "wire"},
	{"E", "NIC writes"}, {"F", "receive (CPU)"}, {"G", "copy host→GPU"}, {"", "other"},
}
