package report

import (
	"strings"
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

// A run directory, an imported file and a host named with a line break and
// an escape sequence stay on their line in every file of the report: the
// HTML (headings, captions, tables), the inline SVG, the figures' CSV and
// JSON (their origin) show the visible escape, never the raw characters.
// report.json, for programs, keeps the directory's true name.
func TestNamesStayOnTheirLine(t *testing.T) {
	in := importedInput(t)
	const bad = "r\nd\x1b[31m"
	in.Imported[0].Source = "runs/" + bad
	in.Imported[0].Files[0].File = "sockets" + bad + ".txt"
	in.Imported[0].Files[0].Hardware.Hosts = []string{"a" + bad, "b"}
	in.Host = "h" + bad
	rep, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range rep.Files {
		if strings.HasSuffix(f.Name, ".pdf") || strings.HasSuffix(f.Name, ".png") || f.Name == ManifestFile {
			continue
		}
		s := string(f.Data)
		if strings.Contains(s, "r\nd") || strings.Contains(s, `r\nd`) || strings.Contains(s, "\x1b") || strings.Contains(s, `\u001b`) {
			t.Errorf("%s holds the raw name", f.Name)
		}
		if strings.Contains(s, `r\x0ad\x1b[31m`) {
			seen++
		}
	}
	if seen < 1 {
		t.Errorf("the escaped name is in %d file(s), want the page at least", seen)
	}
}
