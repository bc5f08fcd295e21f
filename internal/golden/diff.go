package golden

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of what diff shows: lines of context around the change, lines of
// each side, and bytes of one line (a long line is cut around its first
// difference: SVG and HTML files hold lines of many kilobytes).
const (
	context  = 3
	maxLines = 20
	maxWidth = 160
)

// diff shows how got differs from want: the line of the first difference,
// then the lines that differ between the longest common start and end
// ("-" want, "+" got) with a few lines around them.
func diff(want, got []byte) string {
	w, g := lines(want), lines(got)
	pre := 0
	for pre < len(w) && pre < len(g) && w[pre] == g[pre] {
		pre++
	}
	suf := 0
	for suf < len(w)-pre && suf < len(g)-pre && w[len(w)-1-suf] == g[len(g)-1-suf] {
		suf++
	}
	if pre == len(w) && pre == len(g) {
		return "the same lines: the files differ in their line endings or the final newline"
	}
	dw, dg := w[pre:len(w)-suf], g[pre:len(g)-suf]
	col := -1 // where a one-line change starts, to cut both lines alike
	if len(dw) == 1 && len(dg) == 1 {
		col = firstDiff(dw[0], dg[0])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@@ line %d: %d lines of the golden file (-) are %d lines (+) @@\n", pre+1, len(dw), len(dg))
	for _, l := range w[max(0, pre-context):pre] {
		b.WriteString("  " + show(l, -1) + "\n")
	}
	side(&b, "- ", dw, col)
	side(&b, "+ ", dg, col)
	for _, l := range w[len(w)-suf : min(len(w), len(w)-suf+context)] {
		b.WriteString("  " + show(l, -1) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func side(b *strings.Builder, mark string, ls []string, col int) {
	for i, l := range ls {
		if i == maxLines {
			fmt.Fprintf(b, "%s… %d more lines\n", mark, len(ls)-i)
			return
		}
		b.WriteString(mark + show(l, col) + "\n")
	}
}

// lines splits text at "\n"; a final newline makes no empty last line, and
// its absence is marked, so that it shows as a difference.
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		return strings.Split(s+"\\ no newline at end of file", "\n")
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// firstDiff is the byte offset of the first difference of a and b.
func firstDiff(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// show prints a line as it is, or quoted where it holds characters that do
// not show (a carriage return, trailing spaces, control characters); a line
// longer than maxWidth is cut around col (its start when col < 0).
func show(l string, col int) string {
	var note string
	if len(l) > maxWidth {
		from := max(0, col-maxWidth/2)
		for from > 0 && !utf8.RuneStart(l[from]) {
			from--
		}
		to := min(len(l), from+maxWidth)
		for to < len(l) && !utf8.RuneStart(l[to]) {
			to++
		}
		note = fmt.Sprintf(" (bytes %d to %d of %d)", from, to, len(l))
		l = l[from:to]
	}
	if hidden(l) {
		l = strconv.Quote(l)
	}
	return l + note
}

func hidden(l string) bool {
	if l != strings.TrimRightFunc(l, unicode.IsSpace) {
		return true
	}
	return bytes.ContainsFunc([]byte(l), func(r rune) bool { return r != '\t' && unicode.IsControl(r) })
}
