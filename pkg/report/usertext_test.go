package report

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
)

// workshopWords are words of the project's workshop, not of the product: the
// account it starts from called "the seed", its issues by number, its notes
// outside this repository. What a user reads speaks of the product only: the
// account this project starts from, the stages lettered A–G, the machine that
// measured and the file of this repository that holds it.
var workshopWords = regexp.MustCompile(`(?i)\bseed\b|\bissues?\s+#?\d+|\b(?:ENVIRONMENT|DESIGN|STYLE|SOURCES)\.md\b|\.\./shared\b`)

// wordProblems lists each workshop word in text, with some of its context.
func wordProblems(text string) []string {
	var out []string
	for _, m := range workshopWords.FindAllStringIndex(text, -1) {
		lo, hi := max(0, m[0]-50), min(len(text), m[1]+50)
		for lo > 0 && !utf8Start(text[lo]) {
			lo--
		}
		for hi < len(text) && !utf8Start(text[hi]) {
			hi++
		}
		out = append(out, strconv.Quote(text[lo:hi]))
	}
	return out
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// pdfWords is the text a PDF shows, as its pages show it (the reader of
// pdfglyph_test.go), one shown string after another.
func pdfWords(t *testing.T, pdf []byte) string {
	t.Helper()
	objs := readPDF(t, pdf)
	var b strings.Builder
	for _, o := range objs {
		if !strings.Contains(o.dict, "/Type /Page") || strings.Contains(o.dict, "/Type /Pages") {
			continue
		}
		m := contents.FindStringSubmatch(o.dict)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		shownText(objs[n].stream, func(_, text string) {
			b.WriteString(text)
			b.WriteString(" ")
		})
	}
	return b.String()
}

// TestUserText fails on a workshop word (workshopWords) anywhere a user
// reads: every file of the committed examples (each report's HTML, its
// PDF's text as its pages show it and as pdftotext reads it, the figures'
// CSV and JSON; the fit and doctor outputs beside them), every file of fresh
// reports of the same inputs (the model alone, the H200, imported and
// two-host runs), the notebooks' Markdown, the data files the model embeds
// (presets, catalog) and the string literals of the Go source of pkg/ (the
// test helpers' packages aside: what they say reaches no user).
func TestUserText(t *testing.T) {
	check := func(where, text string) {
		for _, p := range wordProblems(text) {
			t.Errorf("%s: %s", where, p)
		}
	}
	// The committed examples.
	pdftotext, _ := exec.LookPath("pdftotext")
	files := 0
	err := filepath.WalkDir(examplesDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if filepath.Ext(p) != ".pdf" {
			check(p, string(b))
			return nil
		}
		check(p, pdfWords(t, b))
		if pdftotext != "" && !testing.Short() {
			out, err := exec.Command(pdftotext, p, "-").Output()
			if err != nil {
				t.Errorf("pdftotext %s: %v", p, err)
			}
			check(p+" (pdftotext)", strings.Join(strings.Fields(string(out)), " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("%d files under %s: the walk missed the examples", files, examplesDir)
	}
	// Fresh reports of the same inputs.
	reps, _ := freshExamples(t)
	for name, r := range reps {
		for _, f := range r.Files {
			switch filepath.Ext(f.Name) {
			case ".pdf":
				check("fresh "+name+" report: "+f.Name, pdfWords(t, f.Data))
			case ".png":
			default:
				check("fresh "+name+" report: "+f.Name, string(f.Data))
			}
		}
	}
	// The notebooks' Markdown.
	nbs, _ := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if len(nbs) == 0 {
		t.Error("no notebook found")
	}
	for _, p := range nbs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string   `json:"cell_type"`
				Source []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i, c := range nb.Cells {
			if c.Type == "markdown" {
				check(p+" cell "+strconv.Itoa(i+1), strings.Join(c.Source, ""))
			}
		}
	}
	// The model's data files, which become sources in every report.
	for _, pat := range []string{"presets/*.yaml", "catalog/*.yaml"} {
		ps, _ := filepath.Glob(filepath.Join("..", "model", pat))
		if len(ps) == 0 {
			t.Errorf("no file %s in pkg/model", pat)
		}
		for _, p := range ps {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			check(p, string(b))
		}
	}
	// The Go source's string literals.
	lits := 0
	root := filepath.Join("..")
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasSuffix(d.Name(), "test")) {
			return filepath.SkipDir // fixtures and the test helpers' packages
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				lits++
				if s, err := strconv.Unquote(lit.Value); err == nil {
					check(fset.Position(lit.Pos()).String(), s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lits < 1000 {
		t.Errorf("%d string literals in pkg/: the walk missed the source", lits)
	}
}

// TestWorkshopWords: what the check finds, and what it lets pass (a file
// name with a number after "issue", the word inside another word).
func TestWorkshopWords(t *testing.T) {
	for _, bad := range []string{"as the seed tells it", "the seed's idea", "Seed letter", "issue 11's H200", "see issue #4",
		"(ENVIRONMENT.md)", "DESIGN.md example", "STYLE.md", "testdata/SOURCES.md", "../shared/notes"} {
		if len(wordProblems(bad)) == 0 {
			t.Errorf("%q passes", bad)
		}
	}
	for _, ok := range []string{"seeded", "issue42-v0.8-a100.txt", "the issue is the NIC", "shared memory", "lettered A–G"} {
		if p := wordProblems(ok); len(p) > 0 {
			t.Errorf("%q: %v", ok, p)
		}
	}
}

// TestCaptionsSayItOnce: the reason a path cannot run is said where the
// report explains the paths (the section "The data paths"; the summary
// says it in one sentence), and the figures refer there: no figure caption
// of a fresh example report repeats it, and a report's text holds it whole
// once.
func TestCaptionsSayItOnce(t *testing.T) {
	reps, docs := freshExamples(t)
	reason := strings.TrimPrefix(model.PlainNICReason, "infeasible: ")
	for name, d := range docs {
		for _, f := range d.Figures {
			if strings.Contains(f.Caption, reason[:60]) {
				t.Errorf("%s report, figure %d (%s): the caption repeats the reason p2p-plain-nic cannot run", name, f.Num, f.ID)
			}
		}
		page := html.UnescapeString(string(reps[name].File(HTMLFile)))
		if n := strings.Count(strings.ReplaceAll(page, "\u00a0", " "), reason); n != 1 {
			t.Errorf("%s report: the reason p2p-plain-nic cannot run is in the HTML %d times, want once", name, n)
		}
	}
}
