package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/gpupath/gpupath/pkg/plots"
)

// svgHead matches what vgsvg writes before the drawing: the XML prolog, a
// comment and the opening svg element with its size in points.
var svgHead = regexp.MustCompile(`(?s)\A<\?xml[^>]*\?>\s*<!--.*?-->\s*<svg width="[^"]*" height="[^"]*" viewBox="([^"]*)"\s+xmlns="http://www.w3.org/2000/svg"\s+xmlns:xlink="http://www.w3.org/1999/xlink">`)

// fontFallback: the SVG names Liberation fonts (gonum's); readers without
// them get the metric-compatible Arial or Helvetica, else any sans-serif.
var fontFallback = strings.NewReplacer(
	"font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;",
	"font-family:Liberation Serif;", "font-family:'Liberation Serif','Times New Roman',Times,serif;",
	"font-family:Liberation Mono;", "font-family:'Liberation Mono','Courier New',Courier,monospace;",
)

// inlineSVG draws d into an SVG element for inlining in HTML: no prolog, no
// fixed size (the page's CSS scales it to the column, the viewBox keeps its
// proportions), a title for screen readers, and fonts with fallbacks. Text
// in the drawing is escaped by vgsvg (html.EscapeString).
func inlineSVG(d plots.Drawer, w, h vg.Length, title, id string) (string, error) {
	var buf bytes.Buffer
	if err := plots.WriteSVG(&buf, d, w, h); err != nil {
		return "", err
	}
	m := svgHead.FindSubmatchIndex(buf.Bytes())
	if m == nil {
		return "", fmt.Errorf("report: unexpected SVG from vgsvg: %.80q", buf.String())
	}
	viewBox := buf.Bytes()[m[2]:m[3]]
	var out strings.Builder
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s" role="img" aria-labelledby="%s-t" style="aspect-ratio:%.5g/%.5g"><title id="%s-t">%s</title>`,
		viewBox, id, w.Points(), h.Points(), id, html.EscapeString(title))
	out.WriteString(fontFallback.Replace(string(buf.Bytes()[m[1]:])))
	return strings.TrimRight(out.String(), "\n"), nil
}
