package report

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"golang.org/x/image/font/sfnt"
)

// Every text the PDF shows passes through pdfFonts.show, which knows the
// font it will be drawn in: a character that font has no glyph for would
// come out as an empty box (Liberation Sans has ¹²³ but no ⁹, no ⁶). It is
// written as its spelling in the fallback table instead ("10⁹" reads
// "10^9"; anything else "?"), and recorded, so that a test fails on the
// text that needed it: the report's own text says what it means in the
// characters its fonts have.

// pdfFallback spells characters in ASCII where a font lacks them: the
// superscripts (a run of them after one "^": "10⁻¹⁸" reads "10^-18") and
// the subscripts, and spaces the fonts may not have.
var pdfFallback = map[rune]string{
	'⁰': "0", '¹': "1", '²': "2", '³': "3", '⁴': "4", '⁵': "5", '⁶': "6", '⁷': "7", '⁸': "8", '⁹': "9", '⁻': "-", '⁺': "+",
	'₀': "0", '₁': "1", '₂': "2", '₃': "3", '₄': "4", '₅': "5", '₆': "6", '₇': "7", '₈': "8", '₉': "9",
	'\u2009': " ", '\u202f': "\u00a0", '\u200a': " ",
}

// superscript reports whether r is one of the superscripts pdfFallback
// spells after a "^".
func superscript(r rune) bool {
	return strings.ContainsRune("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", r)
}

// subscript reports whether r is a subscript digit (spelled after "_").
func subscript(r rune) bool { return r >= '₀' && r <= '₉' }

// fontCmap is a parsed font, for its cmap: which characters have a glyph.
type fontCmap struct {
	f   *sfnt.Font
	buf sfnt.Buffer
}

var (
	cmapsMu sync.Mutex
	cmaps   = map[string]*fontCmap{}
)

// covers reports whether the Liberation font key (family and style, as
// liberationTTF names it) has a glyph for r.
func covers(key string, r rune) bool {
	cmapsMu.Lock()
	defer cmapsMu.Unlock()
	c, ok := cmaps[key]
	if !ok {
		f, err := sfnt.Parse(liberationTTF[key])
		if err != nil {
			panic("report: font " + key + ": " + err.Error()) // the embedded fonts parse
		}
		c = &fontCmap{f: f}
		cmaps[key] = c
	}
	gi, err := c.f.GlyphIndex(&c.buf, r)
	return err == nil && gi != 0
}

// show is s as the current font can draw it: every character it has a
// glyph for as it is, every other one spelled by pdfFallback (or "?") and
// recorded in p.missing. Line breaks and other control characters are
// the layout's, not glyphs: they pass.
func (p *pdfFonts) show(s string) string {
	ok := true
	for _, r := range s {
		if r >= ' ' && !covers(p.cur, r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r < ' ' || covers(p.cur, r) && !superscript(r) && !subscript(r) {
			b.WriteRune(r)
			continue
		}
		// A run of superscripts (or subscripts) is drawn as it is when the
		// font has every one of them, else spelled whole after one "^"
		// (or "_"): "10⁻¹⁸" reads "10^-18", not "10^-¹⁸".
		if in := map[bool]func(rune) bool{true: superscript, false: subscript}[superscript(r)]; superscript(r) || subscript(r) {
			j := i
			all := true
			for j < len(rs) && in(rs[j]) {
				if !covers(p.cur, rs[j]) {
					all = false
					p.miss(rs[j])
				}
				j++
			}
			if all {
				b.WriteString(string(rs[i:j]))
			} else {
				b.WriteString(map[bool]string{true: "^", false: "_"}[superscript(r)])
				for _, x := range rs[i:j] {
					b.WriteString(pdfFallback[x])
				}
			}
			i = j - 1
			continue
		}
		p.miss(r)
		if sp, ok := pdfFallback[r]; ok {
			b.WriteString(sp)
		} else {
			b.WriteString("?")
		}
	}
	return b.String()
}

// miss records that the current font has no glyph for r.
func (p *pdfFonts) miss(r rune) {
	if p.missing == nil {
		p.missing = map[string]map[rune]bool{}
	}
	if p.missing[p.cur] == nil {
		p.missing[p.cur] = map[rune]bool{}
	}
	p.missing[p.cur][r] = true
}

// uncovered lists what show replaced: "LiberationSans: U+2079 ⁹", sorted.
func (p *pdfFonts) uncovered() []string {
	var out []string
	for key, rs := range p.missing {
		for r := range rs {
			out = append(out, key+": "+runeName(r))
		}
	}
	sort.Strings(out)
	return out
}

func runeName(r rune) string { return fmt.Sprintf("U+%04X %c", r, r) }
