package nb

import (
	"fmt"
	"html"
	"strings"
)

// Table is an HTML table for a notebook cell: a caption, a header row and
// rows of text cells; the columns marked Right (numbers with their unit)
// are right-aligned and kept on one line.
type Table struct {
	Caption string
	Head    []string
	Right   []bool // per column
	Rows    [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// HTML renders the table; every cell is escaped.
func (t *Table) HTML() string {
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, `<p style="font-weight:bold;margin:0.8em 0 0.2em 0">%s</p>`, html.EscapeString(t.Caption))
	}
	b.WriteString(`<table class="gpupath" style="border-collapse:collapse;margin:0.2em 0 0.6em 0">`)
	cell := func(tag string, i int, s string) {
		style := "text-align:left"
		if i < len(t.Right) && t.Right[i] {
			style = "text-align:right;white-space:nowrap" // numbers with their unit on one line
		}
		fmt.Fprintf(&b, `<%s style="%s;padding:0.2em 0.6em;border-bottom:1px solid #ddd;vertical-align:top">%s</%s>`,
			tag, style, html.EscapeString(s), tag)
	}
	b.WriteString("<thead><tr>")
	for i, h := range t.Head {
		cell("th", i, h)
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for i, c := range r {
			cell("td", i, c)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// Must returns v, and panics when err is not nil: a cell that calls it
// fails visibly, and the notebook check rejects the executed notebook.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// percent formats a relative change: "+12%", "−3.4%", "0%".
func percent(x float64) string {
	switch {
	case x != x: // NaN
		return "—"
	case x == 0:
		return "0%"
	}
	p := x * 100
	s := trim(p)
	if p > 0 {
		return "+" + s + "%"
	}
	return "−" + strings.TrimPrefix(s, "-") + "%"
}

// trim formats x with two significant digits below 10 and none above.
func trim(x float64) string {
	a := x
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 10:
		return fmt.Sprintf("%.0f", x)
	case a >= 1:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", x), "0"), ".")
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}

// cores formats a number of CPU cores.
func cores(c float64) string {
	if c < 0.01 {
		return "< 0.01"
	}
	return trim(c)
}
