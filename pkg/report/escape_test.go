package report

import (
	"testing"

	"github.com/gpupath/gpupath/internal/termtext"
)

// FuzzHTMLText: text from outside in a section (its title, a paragraph, a
// table cell, the page's title and metadata) reaches index.html with no
// control character but the page's own newlines and tabs.
func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{"", "default", "\x1b]0;pwn\x07", "nul\x00", "cr\r", "lf\n", "ls\u2028", "rlo\u202e", "c1\u009b", "del\x7f", "bad\xff", "<b>&</b>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := &doc{Title: s, Subtitle: s, Meta: []kv{{s, s}}, YAML: s,
			Sections: []*section{{ID: "s", Title: s, Blocks: []block{{H3: s}, {P: s}, {Note: s}, {List: []string{s}}, {Pre: s}}}}}
		page, err := renderHTML(d, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !termtext.Safe(string(page), true) {
			t.Fatalf("control characters in the page of %q", s)
		}
	})
}
