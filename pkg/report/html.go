package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"

	"github.com/gpupath/gpupath/internal/termtext"
	"strings"
)

//go:embed templates/report.html.tmpl templates/style.css
var templateFS embed.FS

var (
	pageTmpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		"inc":       func(i int) int { return i + 1 },
		"svg":       func(f *figure) template.HTML { panic("bound at render") },
		"kindClass": kindClass,
		"hasHead": func(h []string) bool {
			for _, s := range h {
				if s != "" {
					return true
				}
			}
			return false
		},
		"right":    func(t *docTable, j int) bool { return j < len(t.Right) && t.Right[j] },
		"rowClass": func(t *docTable, i int) string { return t.rowClass(i) },
	}).ParseFS(templateFS, "templates/report.html.tmpl"))
	pageCSS = mustRead("templates/style.css")
)

func mustRead(name string) string {
	b, err := templateFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func kindClass(kind string) string {
	if strings.Contains(kind, "measured") {
		return "measured"
	}
	return "modeled"
}

// renderHTML writes the page; svgs holds each figure's inline SVG by number.
func renderHTML(d *doc, version string, svgs map[int]string) ([]byte, error) {
	t, err := pageTmpl.Clone()
	if err != nil {
		return nil, err
	}
	t.Funcs(template.FuncMap{"svg": func(f *figure) (template.HTML, error) {
		s, ok := svgs[f.Num]
		if !ok {
			return "", fmt.Errorf("report: no SVG for figure %d", f.Num)
		}
		// The SVG is built by vgsvg, which escapes every text it draws.
		return template.HTML(s), nil
	}})
	var buf bytes.Buffer
	err = t.Execute(&buf, struct {
		Doc     *doc
		CSS     template.CSS
		Version string
	}{d, template.CSS(pageCSS), orNone(version)})
	if err != nil {
		return nil, err
	}
	// html/template escapes markup, not control characters: the page's
	// one escaper for them covers every text, attribute and SVG label.
	return []byte(termtext.HTML(buf.String())), nil
}
