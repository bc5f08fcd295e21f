package nb

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/plots"
	"gonum.org/v1/plot/vg"
)

// SVG draws a figure (or any plots.Drawer) at its own size and returns
// the <svg> element ready for gonbui.DisplayHTML: no XML prolog, and
// scaled down to the width of the cell when the cell is narrower. It takes
// the figure function's two results, so a cell reads
//
//	gonbui.DisplayHTML(nb.Must(nb.SVG(plots.Latency(in))))
func SVG(d plots.Drawer, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if d == nil {
		return "", fmt.Errorf("nb: no figure to draw")
	}
	var w, h vg.Length
	if c, ok := d.(interface{ Size() (vg.Length, vg.Length) }); ok {
		w, h = c.Size()
	}
	doc, err := plots.SVG(d, w, h)
	if err != nil {
		return "", err
	}
	return inline(doc)
}

// inline strips what precedes the <svg> element and lets it shrink to fit.
func inline(doc string) (string, error) {
	i := strings.Index(doc, "<svg")
	if i < 0 {
		return "", fmt.Errorf("nb: the figure's SVG has no <svg> element")
	}
	return strings.Replace(doc[i:], "<svg", `<svg style="max-width:100%;height:auto"`, 1), nil
}
