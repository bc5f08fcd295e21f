package report

import (
	"fmt"
	"sort"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/gpupath/gpupath/pkg/plots"
)

// legendGap is the least space between two legend entries, and between an
// entry and a data area, in points: rows that touch read as one.
const legendGap = 1

// overlaps reports whether a and b, each grown by gap/2 on every side,
// intersect.
func overlaps(a, b vg.Rectangle, gap vg.Length) bool {
	return a.Min.X < b.Max.X+gap && b.Min.X < a.Max.X+gap && a.Min.Y < b.Max.Y+gap && b.Min.Y < a.Max.Y+gap
}

// layoutProblems checks one figure's layout: every legend entry stands for
// something drawn, lies inside the figure, off every data area (where the
// gridlines, lines and points are) and apart from every other entry.
func layoutProblems(f *plots.Figure) []string {
	lay := f.Layout()
	var out []string
	bounds := vg.Rectangle{Max: vg.Point{X: f.Width, Y: f.Height}}
	var boxes []plots.LegendBox
	for _, lb := range lay.Legend {
		if !lb.Header {
			boxes = append(boxes, lb)
		}
	}
	for _, lb := range boxes {
		if lb.Drawn == 0 {
			out = append(out, fmt.Sprintf("legend entry %q stands for nothing drawn", lb.Label))
		}
		r := lb.Rect
		if r.Min.X < bounds.Min.X || r.Min.Y < bounds.Min.Y || r.Max.X > bounds.Max.X || r.Max.Y > bounds.Max.Y {
			out = append(out, fmt.Sprintf("legend entry %q at %v is outside the figure (%v × %v)", lb.Label, r, f.Width, f.Height))
		}
		for i, d := range lay.Data {
			if overlaps(r, d, legendGap) {
				out = append(out, fmt.Sprintf("legend entry %q at %v is over the data area of panel %d (%v)", lb.Label, r, i+1, d))
			}
		}
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if overlaps(boxes[i].Rect, boxes[j].Rect, legendGap) {
				out = append(out, fmt.Sprintf("legend entries %q (%v) and %q (%v) touch", boxes[i].Label, boxes[i].Rect, boxes[j].Label, boxes[j].Rect))
			}
		}
	}
	if len(lay.Data) == 0 {
		out = append(out, "no data area")
	}
	return out
}

// TestFigureLayout: in every figure of every example report (fresh renders
// of the committed examples' inputs), no legend entry covers data, a
// gridline or another entry, and every entry stands for something drawn.
// Every figure of those reports is a plots.Figure (one style), but the
// stage map of a loopback scenario, which has no legend.
func TestFigureLayout(t *testing.T) {
	_, docs := freshExamples(t)
	var names []string
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	checked := 0
	for _, name := range names {
		for _, f := range docs[name].Figures {
			pf, ok := f.Draw.(*plots.Figure)
			if !ok {
				if f.ID != "paths" {
					t.Errorf("%s report, figure %d (%s): not a plots.Figure (%T): every figure has one style", name, f.Num, f.ID, f.Draw)
				}
				continue
			}
			checked++
			for _, p := range layoutProblems(pf) {
				t.Errorf("%s report, figure %d (%s): %s", name, f.Num, f.ID, p)
			}
		}
	}
	if checked < 40 {
		t.Errorf("%d figures checked: want every figure of the examples", checked)
	}
}
