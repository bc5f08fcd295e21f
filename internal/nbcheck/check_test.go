package nbcheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// kinds lists the kinds of the findings, one per finding, with their cells.
func kinds(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Kind)+"@"+itoa(f.Cell))
	}
	return out
}

func itoa(i int) string { return fmt.Sprintf("%02d", i) }

// TestFailingNotebook reads the executed copy of notebooks/testdata/
// failing.ipynb (executed by GoNB v0.11.1 through nbconvert, as
// scripts/notebooks.sh does) and expects one finding for each failure.
func TestFailingNotebook(t *testing.T) {
	nb, err := ReadFile("testdata/failing.executed.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	got := kinds(Check(nb, "failing"))
	want := []string{"hand-number@01", "panic@03", "exit-status@03", "exit-status@04", "exit-status@05",
		"error@06", "no-output@07", "long-cell@08"}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
	if n := Figures(nb); n != 1 {
		t.Errorf("Figures = %d, want the one zero-size figure", n)
	}
	for _, f := range Check(nb, "failing") {
		if f.Kind == Error && !strings.Contains(f.Detail, "undefined: undefinedName") {
			t.Errorf("error detail %q does not say what failed", f.Detail)
		}
	}
}

func parse(t *testing.T, s string) *Notebook {
	t.Helper()
	nb, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

func TestCheck(t *testing.T) {
	const head = `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "gonb"}}, "cells": [`
	for _, c := range []struct {
		name, cells string
		want        []string
	}{
		{"clean: string and list sources, every output kind",
			`{"cell_type": "markdown", "source": ["# Title\n", "The ` + "`gen5x16`" + ` link, [a link](https://x.io/v2), A–G.\n", "    indented 42\n", "` + "```\\n7\\n```" + `"]},
			 {"cell_type": "code", "execution_count": 1, "source": "%%\nfmt.Println(1)", "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]},
			 {"cell_type": "code", "execution_count": 2, "source": ["a\n", "b"], "outputs": [{"output_type": "display_data", "data": {"text/html": ["<b>", "x</b>"], "application/json": {"a": 1}}, "metadata": {}}]},
			 {"cell_type": "code", "execution_count": 3, "source": "x", "outputs": [{"output_type": "stream", "name": "stderr", "text": "go: added x v1\nexit statuses are fine in prose\n"}]},
			 {"cell_type": "raw", "source": "9"}`,
			nil},
		{"a panic on stdout is a program's own text, on stderr a crash",
			`{"cell_type": "code", "execution_count": 1, "source": "x", "outputs": [{"output_type": "stream", "name": "stdout", "text": "panic: no\n"}]},
			 {"cell_type": "code", "execution_count": 2, "source": "x", "outputs": [{"output_type": "stream", "name": "stderr", "text": ["goroutine 1\n", "panic: yes\n"]}]}`,
			[]string{"panic@02"}},
		{"exit status in any stream, and in text/plain",
			`{"cell_type": "code", "execution_count": 1, "source": "x", "outputs": [{"output_type": "stream", "name": "stdout", "text": "exit status 4\n"}]},
			 {"cell_type": "code", "execution_count": 2, "source": "x", "outputs": [{"output_type": "execute_result", "data": {"text/plain": "  exit status 1  "}}]}`,
			[]string{"exit-status@01", "exit-status@02"}},
		{"error output; its traceback's panic counts too",
			`{"cell_type": "code", "execution_count": 1, "source": "x", "outputs": [{"output_type": "error", "ename": "ERROR", "evalue": "# gonb_1\n./main.go:3: undefined: y", "traceback": ["panic: z"]}]}`,
			[]string{"error@01", "panic@01"}},
		{"not executed, and executed without output",
			`{"cell_type": "code", "execution_count": null, "source": "x", "outputs": []},
			 {"cell_type": "code", "execution_count": 5, "source": "x", "outputs": []}`,
			[]string{"no-output@01", "no-output@02"}},
		{"fifteen lines pass, sixteen do not; a final newline is no line",
			`{"cell_type": "code", "execution_count": 1, "source": "` + strings.Repeat("x\\n", 15) + `", "outputs": [{"output_type": "stream", "name": "stdout", "text": "ok"}]},
			 {"cell_type": "code", "execution_count": 2, "source": "` + strings.Repeat("x\\n", 16) + `", "outputs": [{"output_type": "stream", "name": "stdout", "text": "ok"}]}`,
			[]string{"long-cell@02"}},
		{"numbers typed in Markdown",
			`{"cell_type": "markdown", "source": "TCP takes 12 µs"},
			 {"cell_type": "markdown", "source": "fine ` + "`8 B`" + ` but not 8 B"}`,
			[]string{"hand-number@01", "hand-number@02"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := kinds(Check(parse(t, head+c.cells+`]}`), "nb"))
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	nb := parse(t, `{"nbformat": 4, "metadata": {"kernelspec": {"name": "python3"}}, "cells": []}`)
	if got := kinds(Check(nb, "nb")); !slices.Equal(got, []string{"kernel@00"}) {
		t.Errorf("kernel: %q", got)
	}
	if got := Check(nb, "x.ipynb")[0].String(); got != `x.ipynb: kernel: metadata names kernel "python3", want "gonb"` {
		t.Errorf("String: %s", got)
	}
}

func TestCheckSource(t *testing.T) {
	nb := parse(t, `{"nbformat": 4, "metadata": {}, "cells": [
		{"cell_type": "code", "execution_count": null, "source": "x", "outputs": []},
		{"cell_type": "code", "execution_count": 3, "source": "x", "outputs": []},
		{"cell_type": "code", "execution_count": null, "source": "x", "outputs": [{"output_type": "stream", "name": "stdout", "text": "1"}]},
		{"cell_type": "markdown", "source": "x"}]}`)
	if got := kinds(CheckSource(nb, "nb")); !slices.Equal(got, []string{"stored-output@02", "stored-output@03"}) {
		t.Errorf("CheckSource: %q", got)
	}
	for _, src := range append([]string{"../../notebooks/testdata/failing.ipynb"}, glob(t, "../../notebooks/*.ipynb")...) {
		nb, err := ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if f := CheckSource(nb, src); len(f) > 0 {
			t.Errorf("%v", f)
		}
	}
}

// TestNotebookSources applies the rules that need no execution (kernel,
// cell length, numbers typed in Markdown) to the committed notebooks, so
// that go test finds them without Jupyter.
func TestNotebookSources(t *testing.T) {
	for _, src := range glob(t, "../../notebooks/*.ipynb") {
		nb, err := ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Check(nb, src) {
			if f.Kind != NoOutput {
				t.Error(f)
			}
		}
	}
}

func TestHandNumberQuote(t *testing.T) {
	got := handNumber("A long sentence that goes on and on and then says it takes 12 µs, which is typed by hand and far too long.")
	if got != `…"and on and then says it takes 12 µs, which is typed by hand"…` {
		t.Errorf("quote = %s", got)
	}
}

func TestRead(t *testing.T) {
	for _, bad := range []string{"", "{", `{"nbformat": 3, "cells": []}`, `[]`} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := ReadFile("testdata/missing.ipynb"); err == nil {
		t.Error("missing file: no error")
	}
}

func TestTopSVGs(t *testing.T) {
	for _, c := range []struct {
		html string
		want int
	}{
		{"", 0},
		{"<div><svg width='1'><g/></svg></div>", 1},
		{"<svg><svg></svg><svg/></svg><svg></svg>", 2},
		{"<svg/><p>", 1},
		{"<svg", 1}, // cut off: counted once
	} {
		if got := topSVGs(c.html); got != c.want {
			t.Errorf("topSVGs(%q) = %d, want %d", c.html, got, c.want)
		}
	}
}

func TestExecuteRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.ipynb")
	if err := os.WriteFile(src, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Executor{OutDir: dir}.Execute(context.Background(), src)
	if err == nil || !strings.Contains(err.Error(), "overwrite") {
		t.Errorf("err = %v", err)
	}
	// A failing nbconvert is an error that names the log.
	_, err = Executor{OutDir: filepath.Join(dir, "out"), Python: "false"}.Execute(context.Background(), src)
	if err == nil || !strings.Contains(err.Error(), "a.log") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "a.log")); err != nil {
		t.Errorf("no log: %v", err)
	}
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on the PATH (Debian: apt-get install chromium)")
	return ""
}

func TestRender(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders notebooks")
	}
	chrome := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	html := `<html><body><p>text</p>
<div><svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><svg width="10" height="10"></svg><rect width="100" height="50" fill="red"/></svg></div>
<div><svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg></div>
<script src="https://cdn.example.com/never.js"></script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pages, err := Renderer{Chrome: chrome, Width: 400}.Render(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	p := pages[0]
	if len(p.Figures) != 2 || p.Figures[0] != (Figure{100, 50}) || p.Figures[1] != (Figure{0, 0}) {
		t.Errorf("figures %v, want 100×50 and 0×0", p.Figures)
	}
	if !strings.HasPrefix(string(p.Screenshot), "\x89PNG") {
		t.Error("the screenshot is not a PNG")
	}
	got := kinds(CheckPage(p, 2, "p"))
	if !slices.Equal(got, []string{"figure@00", "figure@00"}) {
		t.Errorf("CheckPage: %q", got)
	}
	if got := CheckPage(Page{Figures: []Figure{{100, 50}}}, 1, "p"); len(got) != 0 {
		t.Errorf("a good page: %v", got)
	}
	if _, err := (Renderer{Chrome: chrome}).Render(ctx, filepath.Join(dir, "missing.html")); err == nil {
		t.Error("missing page: no error")
	}
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no notebooks match %s: %v", pattern, err)
	}
	return m
}
