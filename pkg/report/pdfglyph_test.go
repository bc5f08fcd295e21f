package report

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/image/font/sfnt"
)

// A minimal reader of the PDFs the report writes (fpdf's output: numbered
// objects, Flate streams, Type0 fonts with Identity-H encoding whose codes
// are Unicode and whose program is embedded as FontFile2): enough to say
// which characters each page shows in which embedded font.

type pdfObject struct {
	dict   string
	stream []byte // decompressed
}

var (
	objRE    = regexp.MustCompile(`(?s)(\d+) 0 obj\s*(.*?)endobj`)
	refRE    = func(key string) *regexp.Regexp { return regexp.MustCompile(`/` + key + `\s+(\d+) 0 R`) }
	fontsRE  = regexp.MustCompile(`(?s)/Font\s*<<(.*?)>>`)
	fontRef  = regexp.MustCompile(`/(\w+)\s+(\d+) 0 R`)
	baseRE   = regexp.MustCompile(`/BaseFont\s*/([\w+-]+)`)
	contents = refRE("Contents")
)

// readPDF splits a PDF into its objects, by number.
func readPDF(t *testing.T, b []byte) map[int]pdfObject {
	t.Helper()
	objs := map[int]pdfObject{}
	for _, m := range objRE.FindAllSubmatchIndex(b, -1) {
		n, _ := strconv.Atoi(string(b[m[2]:m[3]]))
		body := b[m[4]:m[5]]
		o := pdfObject{dict: string(body)}
		if i := bytes.Index(body, []byte("stream")); i >= 0 {
			o.dict = string(body[:i])
			data := body[i+len("stream"):]
			data = bytes.TrimPrefix(bytes.TrimPrefix(data, []byte("\r")), []byte("\n"))
			if j := bytes.LastIndex(data, []byte("endstream")); j >= 0 {
				data = data[:j]
			}
			if strings.Contains(o.dict, "/FlateDecode") {
				r, err := zlib.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("object %d: %v", n, err)
				}
				if data, err = io.ReadAll(r); err != nil {
					t.Fatalf("object %d: %v", n, err)
				}
			}
			o.stream = data
		}
		objs[n] = o
	}
	if len(objs) == 0 {
		t.Fatal("no PDF object")
	}
	return objs
}

// pdfFont is an embedded font: its name and its program.
type pdfFont struct {
	name string
	f    *sfnt.Font
}

// pdfFontsOf maps each font resource name (F1, …) to its embedded font.
func pdfFontsOf(t *testing.T, objs map[int]pdfObject) map[string]pdfFont {
	t.Helper()
	out := map[string]pdfFont{}
	ref := func(o pdfObject, key string) (pdfObject, bool) {
		m := refRE(key).FindStringSubmatch(o.dict)
		if m == nil {
			return pdfObject{}, false
		}
		n, _ := strconv.Atoi(m[1])
		x, ok := objs[n]
		return x, ok
	}
	for _, o := range objs {
		fm := fontsRE.FindStringSubmatch(o.dict)
		if fm == nil {
			continue
		}
		for _, r := range fontRef.FindAllStringSubmatch(fm[1], -1) {
			n, _ := strconv.Atoi(r[2])
			font := objs[n]
			name := r[1]
			if b := baseRE.FindStringSubmatch(font.dict); b != nil {
				name = b[1]
			}
			// Type0 → DescendantFonts [N 0 R] → FontDescriptor → FontFile2.
			dm := regexp.MustCompile(`/DescendantFonts\s*\[\s*(\d+) 0 R`).FindStringSubmatch(font.dict)
			if dm == nil {
				t.Fatalf("font %s (%s) is not a Type0 font with a descendant: %q", r[1], name, font.dict)
			}
			dn, _ := strconv.Atoi(dm[1])
			desc, ok := ref(objs[dn], "FontDescriptor")
			if !ok {
				t.Fatalf("font %s (%s): no font descriptor", r[1], name)
			}
			file, ok := ref(desc, "FontFile2")
			if !ok || len(file.stream) == 0 {
				t.Fatalf("font %s (%s): no embedded TrueType program", r[1], name)
			}
			f, err := sfnt.Parse(file.stream)
			if err != nil {
				t.Fatalf("font %s (%s): %v", r[1], name, err)
			}
			out[r[1]] = pdfFont{name: name, f: f}
		}
	}
	if len(out) == 0 {
		t.Fatal("no font resources")
	}
	return out
}

var (
	tfRE   = regexp.MustCompile(`/(\w+)\s+[\d.]+\s+Tf`)
	tjOpRE = regexp.MustCompile(`\)\s*Tj`)
)

// shownText walks a content stream: for every string shown (Tj), the
// resource name of the font it is shown in and its text (UTF-16BE codes,
// as fpdf writes Identity-H text).
func shownText(content []byte, each func(font, text string)) {
	font := ""
	for i := 0; i < len(content); {
		// The next font selection or string, whichever comes first.
		tf := tfRE.FindIndex(content[i:])
		op := bytes.IndexByte(content[i:], '(')
		if tf != nil && (op < 0 || tf[0] < op) {
			font = string(tfRE.FindSubmatch(content[i+tf[0] : i+tf[1]])[1])
			i += tf[1]
			continue
		}
		if op < 0 {
			return
		}
		s, end := pdfString(content, i+op)
		i = end
		if m := tjOpRE.FindIndex(content[i-1:]); m != nil && m[0] == 0 {
			each(font, s)
		}
	}
}

// pdfString reads the literal string that starts at content[at] ('('),
// with its escapes, as UTF-16BE; it returns the text and the index just
// after the closing parenthesis.
func pdfString(content []byte, at int) (string, int) {
	var raw []byte
	depth := 0
	i := at
	for ; i < len(content); i++ {
		c := content[i]
		switch {
		case c == '\\' && i+1 < len(content):
			i++
			switch e := content[i]; e {
			case 'n':
				raw = append(raw, '\n')
			case 'r':
				raw = append(raw, '\r')
			case 't':
				raw = append(raw, '\t')
			case 'b':
				raw = append(raw, '\b')
			case 'f':
				raw = append(raw, '\f')
			default:
				if e >= '0' && e <= '7' {
					j := i
					for j < len(content) && j < i+3 && content[j] >= '0' && content[j] <= '7' {
						j++
					}
					v, _ := strconv.ParseUint(string(content[i:j]), 8, 8)
					raw = append(raw, byte(v))
					i = j - 1
				} else {
					raw = append(raw, e)
				}
			}
			continue
		case c == '(':
			depth++
			if depth == 1 {
				continue
			}
		case c == ')':
			depth--
			if depth == 0 {
				u := make([]uint16, len(raw)/2)
				for k := range u {
					u[k] = uint16(raw[2*k])<<8 | uint16(raw[2*k+1])
				}
				return string(utf16.Decode(u)), i + 1
			}
		}
		raw = append(raw, c)
	}
	return "", len(content)
}

// uncoveredGlyphs lists the characters a PDF shows in an embedded font
// that has no glyph for them ("page 3: U+2079 ⁹ in utf8liberationsans,
// in "… 10⁹ B/s …""), at most one line per character and font.
func uncoveredGlyphs(t *testing.T, pdf []byte) []string {
	t.Helper()
	objs := readPDF(t, pdf)
	fonts := pdfFontsOf(t, objs)
	seen := map[string]bool{}
	var out []string
	var buf sfnt.Buffer
	var pages []int
	for n, o := range objs {
		if strings.Contains(o.dict, "/Type /Page") && !strings.Contains(o.dict, "/Type /Pages") {
			pages = append(pages, n)
		}
	}
	sort.Ints(pages)
	shown := 0
	for pi, n := range pages {
		m := contents.FindStringSubmatch(objs[n].dict)
		if m == nil {
			continue
		}
		cn, _ := strconv.Atoi(m[1])
		shownText(objs[cn].stream, func(font, text string) {
			shown++
			f, ok := fonts[font]
			if !ok {
				out = append(out, fmt.Sprintf("page %d: text %q in font %q, which is not embedded", pi+1, text, font))
				return
			}
			for _, r := range text {
				if r < ' ' {
					continue
				}
				if gi, err := f.f.GlyphIndex(&buf, r); err == nil && gi != 0 {
					continue
				}
				key := f.name + string(r)
				if !seen[key] {
					seen[key] = true
					out = append(out, fmt.Sprintf("page %d: %s in %s, in %q", pi+1, runeName(r), f.name, text))
				}
			}
		})
	}
	if shown == 0 {
		t.Fatal("no text found in the PDF: the reader does not read it")
	}
	return out
}

// TestPDFGlyphs: every character of every PDF the project shows — each
// committed example report, and fresh renders of the same inputs — has a
// glyph in the font embedded for it, read from the PDF itself (the text
// each page shows, the font it selects, that font's cmap); and the fresh
// renders needed no character spelled otherwise (pdfFonts.show, the one
// place PDF text passes).
func TestPDFGlyphs(t *testing.T) {
	for _, dir := range committedReports(t) {
		b, err := os.ReadFile(filepath.Join(dir, PDFFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range uncoveredGlyphs(t, b) {
			t.Errorf("%s: %s", filepath.Join(dir, PDFFile), u)
		}
	}
	reps, _ := freshExamples(t)
	for name, r := range reps {
		for _, u := range uncoveredGlyphs(t, r.File(PDFFile)) {
			t.Errorf("fresh %s report: %s", name, u)
		}
		for _, u := range r.uncovered {
			t.Errorf("fresh %s report: the text needed a character its font has no glyph for: %s", name, u)
		}
	}
}

// TestPDFShowsGlyphsItHas: text with a character the font lacks (⁹) comes
// out spelled ("10^9"), a run of superscripts whole ("10^-18"), and
// recorded; the reader above finds no box. Characters the font has stay.
func TestPDFShowsGlyphsItHas(t *testing.T) {
	in := goldenInput()
	in.Scenario = in.Scenario.Clone()
	in.Scenario.Name = "ten to the 10⁹ and 10⁻¹⁸"
	r := render(t, in)
	if len(r.uncovered) == 0 || !strings.Contains(strings.Join(r.uncovered, " "), "U+2079") {
		t.Errorf("uncovered %q: want ⁹ (U+2079) recorded", r.uncovered)
	}
	if u := uncoveredGlyphs(t, r.File(PDFFile)); len(u) > 0 {
		t.Errorf("the PDF shows characters its fonts lack: %q", u)
	}
	f := &pdfFonts{cur: "LiberationSans"}
	if got := f.show("1 GB/s = 10⁹ B/s, 10⁻¹⁸, x₁₂ µs ≥ → ²"); got != "1 GB/s = 10^9 B/s, 10^-18, x₁₂ µs ≥ → ²" {
		t.Errorf("show: %q", got)
	}
}

// TestPDFTextPassesShow: every call that puts text on a PDF page (fpdf's
// Text, Write, CellFormat, Cell, MultiCell) in this package takes its text
// from pdfFonts.show, so that no text reaches a page unchecked.
func TestPDFTextPassesShow(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	textArg := map[string]int{"Text": 2, "Write": 1, "CellFormat": 2, "Cell": 2, "MultiCell": 2, "WriteAligned": 3}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			arg, ok := textArg[sel.Sel.Name]
			recv, isSel := sel.X.(*ast.SelectorExpr)
			if !ok || !isSel || recv.Sel.Name != "doc" || len(call.Args) <= arg {
				return true
			}
			calls++
			if in, ok := call.Args[arg].(*ast.CallExpr); ok {
				if s, ok := in.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "show" {
					return true
				}
			}
			t.Errorf("%s: %s puts text on the page without pdfFonts.show", fset.Position(call.Pos()), sel.Sel.Name)
			return true
		})
	}
	if calls < 5 {
		t.Errorf("found %d calls that put text on a page: the check does not see them", calls)
	}
}
