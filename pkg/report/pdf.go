package report

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"codeberg.org/go-pdf/fpdf"
)

// PDF page geometry, in points: A4 with 50 pt margins (the figures are
// drawn at figW, the text width, so at their natural size).
const (
	pageW      = 595.28
	pageH      = 841.89
	marginL    = 50.0
	marginR    = 50.0
	marginT    = 48.0
	marginB    = 56.0
	textW      = pageW - marginL - marginR
	footerBase = pageH - 28
)

// Text colours (RGB).
var (
	inkRGB   = [3]int{0x1a, 0x1a, 0x1a}
	mutedRGB = [3]int{0x55, 0x55, 0x55}
	blueRGB  = [3]int{0x0b, 0x53, 0x94}
	brownRGB = [3]int{0x8a, 0x4b, 0x00}
	bandRGB  = [3]int{0xf0, 0xf2, 0xf5}
	ruleRGB  = [3]int{0xcc, 0xcc, 0xcc}
)

// pdfWriter lays a doc out on A4 pages: headings, paragraphs, tables that
// repeat their header after a page break, figures with captions, page
// numbers. It breaks pages itself (fpdf's automatic break is off), so it
// knows where everything is.
type pdfWriter struct {
	doc   *fpdf.Fpdf
	fonts *pdfFonts
	y     float64
	// measuring marks the writer that lays sections out on a scratch
	// document to learn their height (fits): it draws no figure.
	measuring bool
	scratch   *pdfWriter
}

// renderPDF writes the doc as a PDF and returns it with its page count and
// the characters its fonts had no glyph for (pdfFonts.show: none, for the
// report's own text).
func renderPDF(ctx context.Context, d *doc, in *Input) ([]byte, int, []string, error) {
	doc := newPDFDoc()
	doc.SetCompression(true)
	doc.SetCatalogSort(true)
	doc.SetCreationDate(in.Time)
	doc.SetModificationDate(in.Time)
	doc.SetTitle(d.Title, true)
	doc.SetSubject("GPU-to-GPU data paths, modeled"+map[bool]string{true: " and measured", false: ""}[len(in.Measured) > 0], true)
	doc.SetCreator("gpupath "+orNone(in.Version), true)
	doc.SetProducer("gpupath "+orNone(in.Version)+" (codeberg.org/go-pdf/fpdf)", true)
	doc.SetLang("en")
	w := &pdfWriter{doc: doc, fonts: &pdfFonts{doc: doc, done: map[string]bool{}}}

	w.newPage()
	w.titleBlock(d)
	for i, s := range d.Sections {
		heading := fmt.Sprintf("%d. %s", i+1, s.Title)
		if i > 0 && w.breakBefore(heading, s.Blocks) {
			w.newPage()
		}
		w.heading(2, heading)
		for bi, b := range s.Blocks {
			if err := ctx.Err(); err != nil {
				return nil, 0, nil, err
			}
			if n := doc.PageCount(); n > pageLimit {
				return nil, 0, nil, fmt.Errorf("report: %w of %d (section %q)", ErrTooManyPages, pageLimit, s.Title)
			}
			if b.H3 != "" && w.y > marginT && !w.keepsWith(s.Blocks[bi:]) {
				w.newPage()
			}
			w.block(b)
		}
	}
	pages := doc.PageCount()
	for n := 1; n <= pages; n++ {
		doc.SetPage(n)
		w.footer(d, n, pages)
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		return nil, 0, nil, fmt.Errorf("report: PDF: %w", err)
	}
	return buf.Bytes(), pages, w.fonts.uncovered(), nil
}

// newPDFDoc is an empty A4 document with the report's margins; fpdf's
// automatic page break is off: the writer breaks pages itself.
func newPDFDoc() *fpdf.Fpdf {
	doc := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "pt", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	doc.SetMargins(marginL, marginT, marginR)
	doc.SetAutoPageBreak(false, marginB)
	doc.SetCellMargin(0)
	return doc
}

// block writes one block of a section.
func (w *pdfWriter) block(b block) {
	switch {
	case b.H3 != "":
		w.heading(3, b.H3)
	case b.P != "":
		w.para(b.P, 9.5, "", inkRGB, 0)
	case b.Note != "":
		w.note(b.Note)
	case b.List != nil:
		w.bullets(b.List)
	case b.Fig != nil:
		w.figure(b.Fig)
	case b.Table != nil:
		w.table(b.Table)
	case b.Pre != "":
		w.pre(b.Pre)
	}
}

// The page breaks between sections: a section starts on a new page only
// when it does not fit in what is left of the page but would fit on a page
// of its own, or when not even its heading and first block fit there. A
// section longer than a page starts where the last one ended, so that no
// page is left half empty before it; inside a section, a figure or a
// table row that does not fit goes to the next page (room).

// breakBefore tells whether the section with this heading and these blocks
// starts on a new page.
func (w *pdfWriter) breakBefore(heading string, blocks []block) bool {
	// The space the heading leaves above itself below other text, which the
	// measure at the top of a page does not take.
	const above = 6
	left := pageH - marginB - w.y - above
	h, onePage := w.measure(heading, blocks)
	switch {
	case onePage && h <= left:
		return false // it fits here
	case onePage:
		return true // it fits on a page of its own
	}
	if len(blocks) == 0 {
		return false
	}
	start, _ := w.measure(heading, blocks[:1])
	return start > left
}

// keepsWith tells whether a sub-heading (blocks[0]) and what it
// introduces fit in what is left of the page: the short text right after it
// (up to keepText points; longer text breaks across pages anyway) and the
// figure or table that follows that text (the figure as small as figure
// draws it there). A heading thus never ends a page whose next one holds
// its figure.
func (w *pdfWriter) keepsWith(blocks []block) bool {
	const keepText = 60
	n, slack, text := 1, 0.0, 0.0
	for n < len(blocks) && n < 4 {
		b := blocks[n]
		if b.Fig != nil {
			slack = (1 - minFigureScale) * b.Fig.H.Points() * min(1, textW/b.Fig.W.Points())
			n++
			break
		}
		if b.Table != nil {
			n++
			break
		}
		if b.H3 != "" || b.Pre != "" {
			break
		}
		h, _ := w.measure("", blocks[n:n+1])
		if text += h; text > keepText {
			break
		}
		n++
	}
	h, onePage := w.measure("", blocks[:n])
	return !onePage || h-slack <= pageH-marginB-w.y
}

// measure lays the heading (none: "") and blocks out from the top of an
// empty page of a scratch document and returns the height they take and
// whether they fit on that one page.
func (w *pdfWriter) measure(heading string, blocks []block) (float64, bool) {
	if w.scratch == nil {
		sd := newPDFDoc()
		w.scratch = &pdfWriter{doc: sd, fonts: &pdfFonts{doc: sd, done: map[string]bool{}}, measuring: true}
	}
	m := w.scratch
	m.newPage()
	first := m.doc.PageCount()
	if heading != "" {
		m.heading(2, heading)
	}
	for _, b := range blocks {
		m.block(b)
		if m.doc.PageCount() > first {
			return pageH, false
		}
	}
	return m.y - marginT, m.y <= pageH-marginB
}

func (w *pdfWriter) newPage() {
	w.doc.AddPage()
	w.y = marginT
}

// room makes sure h points fit below y, starting a new page if not; it
// returns whether a page was started.
func (w *pdfWriter) room(h float64) bool {
	if w.y+h > pageH-marginB && w.y > marginT {
		w.newPage()
		return true
	}
	return false
}

func (w *pdfWriter) color(c [3]int) {
	w.doc.SetTextColor(c[0], c[1], c[2])
	w.doc.SetFillColor(c[0], c[1], c[2])
	w.doc.SetDrawColor(c[0], c[1], c[2])
}

func (w *pdfWriter) sans(style string, size float64) { w.fonts.use("LiberationSans", style, size) }

// lines splits text to width in the current font at ASCII spaces (a
// no-break space holds a number to its unit); a word wider than the line is
// cut. An empty text is one empty line.
func (w *pdfWriter) lines(text string, width float64) []string {
	text = w.fonts.show(text) // measured as it will be drawn
	var out []string
	for _, para := range strings.Split(text, "\n") {
		cur := ""
		for _, word := range strings.Split(para, " ") {
			try := word
			if cur != "" {
				try = cur + " " + word
			}
			if w.doc.GetStringWidth(try) <= width || cur == "" && w.doc.GetStringWidth(word) <= width {
				cur = try
				continue
			}
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			for w.doc.GetStringWidth(word) > width {
				cut := w.cut(word, width)
				out = append(out, word[:cut])
				word = word[cut:]
			}
			cur = word
		}
		out = append(out, cur)
	}
	return out
}

// cut returns the longest prefix of word (in bytes, on a rune boundary,
// at least one rune) that fits width.
func (w *pdfWriter) cut(word string, width float64) int {
	last := 0
	for i := range word {
		if i > 0 && w.doc.GetStringWidth(word[:i]) > width {
			break
		}
		last = i
	}
	if last == 0 {
		_, n := utf8.DecodeRuneInString(word)
		return n
	}
	return last
}

// textLine writes one line with its top at y.
func (w *pdfWriter) textLine(x, y, width, lh float64, s, align string) {
	w.doc.SetXY(x, y)
	w.doc.CellFormat(width, lh, w.fonts.show(s), "", 0, align, false, 0, "")
}

func (w *pdfWriter) titleBlock(d *doc) {
	w.color(inkRGB)
	w.sans("B", 18)
	for _, l := range w.lines(d.Title, textW) {
		w.textLine(marginL, w.y, textW, 22, l, "L")
		w.y += 22
	}
	w.y += 2
	w.para(d.Subtitle, 10, "", mutedRGB, 0)
	for _, m := range d.Meta {
		w.sans("B", 8.5)
		w.color(inkRGB)
		w.textLine(marginL, w.y, 70, 11.5, m.K, "L")
		w.sans("", 8.5)
		ls := w.lines(m.V, textW-72)
		for _, l := range ls {
			w.textLine(marginL+72, w.y, textW-72, 11.5, l, "L")
			w.y += 11.5
		}
	}
	w.y += 6
	w.rule()
}

func (w *pdfWriter) rule() {
	w.doc.SetLineWidth(0.6)
	w.doc.SetDashPattern(nil, 0)
	w.color(ruleRGB)
	w.doc.Line(marginL, w.y, pageW-marginR, w.y)
	w.y += 8
}

func (w *pdfWriter) heading(level int, text string) {
	size, lh, before := 15.0, 19.0, 4.0
	if level == 3 {
		size, lh, before = 11, 14, 10
	}
	w.sans("B", size)
	ls := w.lines(text, textW)
	// Keep a heading with at least a few lines of what follows.
	w.room(before + float64(len(ls))*lh + 60)
	if w.y > marginT {
		w.y += before
	}
	w.doc.Bookmark(text, level-2, w.y)
	w.color(inkRGB)
	for _, l := range ls {
		w.textLine(marginL, w.y, textW, lh, l, "L")
		w.y += lh
	}
	if level == 2 {
		w.doc.SetLineWidth(1.2)
		w.doc.SetDashPattern(nil, 0)
		w.doc.Line(marginL, w.y+1, pageW-marginR, w.y+1)
		w.y += 8
	} else {
		w.y += 2
	}
}

// para writes a paragraph in the given size, style and colour, indented by indent.
func (w *pdfWriter) para(text string, size float64, style string, clr [3]int, indent float64) {
	w.sans(style, size)
	lh := size * 1.38
	for _, l := range w.lines(text, textW-indent) {
		w.room(lh)
		w.color(clr)
		w.sans(style, size)
		w.textLine(marginL+indent, w.y, textW-indent, lh, l, "L")
		w.y += lh
	}
	w.y += size * 0.6
}

func (w *pdfWriter) note(text string) {
	w.sans("", 9)
	ls := w.lines(text, textW-12)
	lh := 9 * 1.38
	for i, l := range ls {
		if w.room(lh) || i == 0 {
			// the bar beside the note, drawn per line so that it follows page breaks
		}
		w.color(brownRGB)
		w.doc.Rect(marginL, w.y, 2.5, lh, "F")
		w.color(inkRGB)
		w.sans("", 9)
		w.textLine(marginL+10, w.y, textW-12, lh, l, "L")
		w.y += lh
	}
	w.y += 6
}

func (w *pdfWriter) bullets(items []string) {
	for _, it := range items {
		w.sans("", 9.5)
		lh := 9.5 * 1.38
		for i, l := range w.lines(it, textW-12) {
			w.room(lh)
			w.color(inkRGB)
			w.sans("", 9.5)
			if i == 0 {
				w.textLine(marginL+2, w.y, 8, lh, "•", "L")
			}
			w.textLine(marginL+12, w.y, textW-12, lh, l, "L")
			w.y += lh
		}
		w.y += 1.5
	}
	w.y += 4
}

// minFigureScale is the smallest a figure is drawn, of its size, to fit in
// what is left of a page.
const minFigureScale = 0.75

// figure draws a figure at its natural size with its caption below,
// together on one page.
func (w *pdfWriter) figure(f *figure) {
	caption := fmt.Sprintf("Figure %d. %s. %s", f.Num, f.Title, f.Caption)
	if f.ShowOrigin() {
		caption += fmt.Sprintf(" %s: %s.", f.Kind, f.Origin)
	}
	w.sans("", 8)
	capLines := w.lines(caption, textW)
	lh := 8 * 1.35
	// A figure wider than the text is drawn smaller, to the text width; one
	// that does not fit in what is left of the page is drawn smaller still
	// (down to minFigureScale of its size) rather than leave that space
	// empty, and goes to the next page only below that.
	k := min(1, textW/f.W.Points())
	capH := 6 + float64(len(capLines)+1)*lh
	if left := pageH - marginB - w.y; w.y > marginT && f.H.Points()*k+capH > left {
		if kk := (left - capH) / f.H.Points(); kk >= minFigureScale*k {
			k = kk
		}
	}
	fh := f.H.Points() * k
	h := fh + capH
	w.room(h)
	if !w.measuring {
		drawPDF(w.doc, w.fonts, f.Draw, marginL+(textW-f.W.Points()*k)/2, w.y, f.W, f.H, k, f.Base())
	}
	w.resetGraphics()
	w.y += fh + 6
	// Caption: "Figure N. Title." in bold, then the caption and origin.
	w.doc.SetLeftMargin(marginL)
	w.doc.SetRightMargin(marginR)
	w.doc.SetXY(marginL, w.y)
	w.color(inkRGB)
	w.sans("B", 8)
	w.doc.Write(lh, w.fonts.show(fmt.Sprintf("Figure %d. %s. ", f.Num, f.Title)))
	w.color(mutedRGB)
	w.sans("", 8)
	w.doc.Write(lh, w.fonts.show(f.Caption))
	if f.ShowOrigin() {
		if strings.Contains(f.Kind, "measured") {
			w.color(brownRGB)
		} else {
			w.color(blueRGB)
		}
		w.doc.Write(lh, w.fonts.show(" "+f.Kind+": "+f.Origin+"."))
	}
	w.y = w.doc.GetY() + lh + 8
}

// resetGraphics puts line, dash, colour and opacity back to their
// defaults after a figure.
func (w *pdfWriter) resetGraphics() {
	w.doc.SetAlpha(1, "Normal")
	w.doc.SetDashPattern(nil, 0)
	w.doc.SetLineWidth(0.5)
	w.color(inkRGB)
}

const (
	cellPadX = 3.0
	cellPadY = 2.2
	tableFS  = 7.6
	subFS    = 6.8
)

// table draws a docTable across the text width; a row that does not fit
// goes to the next page, under a repeated header.
func (w *pdfWriter) table(t *docTable) {
	widths := columnWidths(t)
	if t.Caption != "" {
		w.sans("I", 8)
		lh := tableLH
		w.room(12 + 3*(lh+2*cellPadY))
		w.color(mutedRGB)
		w.para(t.Caption, 8, "I", mutedRGB, 0)
		w.y -= 3
	}
	hasHead := false
	for _, h := range t.Head {
		if h != "" {
			hasHead = true
		}
	}
	var head laidRow
	if hasHead {
		hc := make([]cell, len(t.Head))
		for i, h := range t.Head {
			hc[i] = cell{Text: h}
		}
		head = w.layoutRow(hc, true, widths)
	}
	first := true
	for ri, r := range t.Rows {
		l := w.layoutRow(r, false, widths)
		need := l.h
		if first && hasHead {
			need += head.h
		}
		if w.room(need) || first {
			if hasHead {
				w.drawRow(t, widths, head, true, "", nil)
			}
		}
		first = false
		w.drawRow(t, widths, l, false, t.rowClass(ri), r)
	}
	w.y += 10
}

// columnWidths are the widths of t's columns in points: the text width
// shared in proportion to t.Widths.
func columnWidths(t *docTable) []float64 {
	var total float64
	for _, x := range t.Widths {
		total += x
	}
	widths := make([]float64, len(t.Widths))
	for i, x := range t.Widths {
		widths[i] = textW * x / total
	}
	return widths
}

// Line heights of a table's text and of its cells' second lines.
const (
	tableLH = tableFS * 1.3
	subLH   = subFS * 1.3
)

// laidRow is a table row broken into lines: each cell's text and second
// line, and the row's height.
type laidRow struct {
	text, sub [][]string
	h         float64
}

// layoutRow breaks the cells of a row (in bold: the head) into lines of
// their columns' widths.
func (w *pdfWriter) layoutRow(cells []cell, bold bool, widths []float64) laidRow {
	var l laidRow
	for i, c := range cells {
		if i >= len(widths) {
			break
		}
		cw := widths[i] - 2*cellPadX
		style := ""
		if bold {
			style = "B"
		}
		w.sans(style, tableFS)
		tl := w.lines(c.Text, cw)
		var sl []string
		if c.Sub != "" {
			w.sans("", subFS)
			sl = w.lines(c.Sub, cw)
		}
		l.text = append(l.text, tl)
		l.sub = append(l.sub, sl)
		h := float64(len(tl))*tableLH + float64(len(sl))*subLH + 2*cellPadY
		if c.Text == "" && len(sl) > 0 {
			h -= tableLH
		}
		l.h = max(l.h, h)
	}
	return l
}

// drawRow draws a laid-out row of t (the head, or a row of class) and the
// rule under it, and moves down.
func (w *pdfWriter) drawRow(t *docTable, widths []float64, l laidRow, isHead bool, class string, cells []cell) {
	x := marginL
	switch {
	case isHead:
		w.color(bandRGB)
		w.doc.Rect(marginL, w.y, textW, l.h, "F")
	case class != "":
		// Below the rule that ends the row above.
		tint, bar := rowTint(class)
		w.color(tint)
		w.doc.Rect(marginL, w.y+0.3, textW, l.h-0.3, "F")
		w.color(bar)
		w.doc.Rect(marginL, w.y+0.3, 2.5, l.h-0.3, "F")
	}
	for i := range l.text {
		if i < len(cells) && cells[i].Badge != "" {
			w.badge(x+cellPadX, w.y+cellPadY, cells[i].Badge, cells[i].Text)
			x += widths[i]
			continue
		}
		align := "L"
		if i < len(t.Right) && t.Right[i] {
			align = "R"
		}
		yy := w.y + cellPadY
		style := ""
		if isHead {
			style = "B"
		}
		w.color(inkRGB)
		if class == "preset" {
			w.color(mutedRGB)
		}
		w.sans(style, tableFS)
		for _, s := range l.text[i] {
			if s == "" && len(l.sub[i]) > 0 {
				continue
			}
			w.textLine(x+cellPadX, yy, widths[i]-2*cellPadX, tableLH, s, align)
			yy += tableLH
		}
		w.color(mutedRGB)
		w.sans("", subFS)
		for _, s := range l.sub[i] {
			w.textLine(x+cellPadX, yy, widths[i]-2*cellPadX, subLH, s, align)
			yy += subLH
		}
		x += widths[i]
	}
	w.y += l.h
	w.doc.SetLineWidth(0.4)
	w.doc.SetDashPattern(nil, 0)
	w.color(ruleRGB)
	w.doc.Line(marginL, w.y, pageW-marginR, w.y)
}

// rowTint is the background and the bar colour of a row of a class.
func rowTint(class string) (tint, bar [3]int) {
	if class == "measured" {
		return [3]int{0xfb, 0xf5, 0xee}, brownRGB
	}
	return [3]int{0xee, 0xee, 0xee}, [3]int{0x9a, 0x9a, 0x9a}
}

// badge draws text as a label of its kind (a rounded, filled box with
// white bold text) with its top left at x, y.
func (w *pdfWriter) badge(x, y float64, kind, text string) {
	w.sans("B", subFS)
	tw := w.doc.GetStringWidth(text)
	h := tableFS * 1.3
	fill := [3]int{0x7a, 0x7a, 0x7a}
	if kind == "measured" {
		fill = brownRGB
	}
	w.color(fill)
	w.doc.RoundedRect(x, y, tw+8, h, h/2, "1234", "F")
	w.doc.SetTextColor(0xff, 0xff, 0xff)
	w.textLine(x+4, y, tw, h, text, "L")
	w.color(inkRGB)
}

// pre writes preformatted text in a monospaced font on a light band. A
// block that breaks across pages leaves at least preWidow lines for its
// last page (it breaks earlier otherwise), so no page holds only its tail.
func (w *pdfWriter) pre(text string) {
	const fs = 7.2
	const preWidow = 8
	lh := fs * 1.32
	w.fonts.use("LiberationMono", "", fs)
	type line struct {
		text   string
		indent float64
	}
	var all []line
	for _, raw := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		w.fonts.use("LiberationMono", "", fs)
		body := strings.TrimLeft(raw, " ")
		lead := raw[:len(raw)-len(body)] // YAML indentation, kept as it is
		ls := w.lines(body, textW-20-w.doc.GetStringWidth(lead))
		ls[0] = lead + ls[0]
		for i, l := range ls {
			indent := 5.0
			if i > 0 {
				indent = 15
			}
			all = append(all, line{l, indent})
		}
	}
	stopAt := -1 // the line that starts the next page early, once per page
	for i, l := range all {
		if i == stopAt {
			w.newPage()
			stopAt = -1
		}
		if left, fit := len(all)-i, int((pageH-marginB-w.y)/lh); stopAt < 0 && fit < left && left-fit < preWidow {
			// The rest would leave a tail of a few lines on the next page:
			// write only left-preWidow lines here (none: break now).
			if here := left - preWidow; here <= 0 && w.y > marginT {
				w.newPage()
			} else if here > 0 {
				stopAt = i + here
			}
		}
		w.room(lh)
		w.color(bandRGB)
		w.doc.Rect(marginL, w.y, textW, lh, "F")
		w.color(inkRGB)
		w.fonts.use("LiberationMono", "", fs)
		w.textLine(marginL+l.indent, w.y, textW-l.indent-5, lh, l.text, "L")
		w.y += lh
	}
	w.y += 8
}

func (w *pdfWriter) footer(d *doc, n, total int) {
	w.resetGraphics()
	w.color(mutedRGB)
	w.sans("", 7.5)
	left := "gpupath report · " + strings.TrimPrefix(d.Title, "GPU-to-GPU data paths: ")
	right := fmt.Sprintf("page %d of %d", n, total)
	rw := w.doc.GetStringWidth(right)
	avail := textW - rw - 20
	if ls := w.lines(left, avail); len(ls) > 1 {
		left = ls[0] + " …"
	}
	w.doc.Text(marginL, footerBase, w.fonts.show(left))
	w.doc.Text(pageW-marginR-rw, footerBase, w.fonts.show(right))
	w.doc.SetLineWidth(0.4)
	w.color(ruleRGB)
	w.doc.Line(marginL, footerBase-10, pageW-marginR, footerBase-10)
}
