package report

import (
	"fmt"
	"github.com/gpupath/gpupath/internal/termtext"
	"path/filepath"
	"strings"
)

// Summary is what `gpupath report` says of the report it wrote: the one
// JSON object of the command with --format json, one line otherwise.
type Summary struct {
	// Dir is the report's directory; HTML and PDF its two documents.
	Dir  string `json:"dir"`
	HTML string `json:"html"`
	PDF  string `json:"pdf"`
	// Pages counts report.pdf's pages, Figures the figures, Files every
	// file written (documents, figures, their CSV and JSON).
	Pages   int `json:"pages"`
	Figures int `json:"figures"`
	Files   int `json:"files"`
	// Scenario names the modeled scenario; Runs the run directories read
	// (--data) and the quick run made, if any.
	Scenario string   `json:"scenario"`
	Runs     []string `json:"runs"`
	// Sweeps are the cluster sweeps among the runs, judged (the same as
	// each run's sweep.json).
	Sweeps []*Sweep `json:"sweeps,omitempty"`
}

// Summary makes the summary of r written into dir.
func (r *Report) Summary(dir, scenario string, runs []string) Summary {
	if runs == nil {
		runs = []string{}
	}
	return Summary{Dir: dir, HTML: filepath.Join(dir, HTMLFile), PDF: filepath.Join(dir, PDFFile),
		Pages: r.Pages, Figures: len(r.Figures), Files: len(r.Files), Scenario: scenario, Runs: runs}
}

// Line is the summary in one line: "gpupath report: 31 pages, 24
// figures; preset default, with runs a, b: DIR/index.html DIR/report.pdf".
func (s Summary) Line() string {
	runs := "model only"
	switch len(s.Runs) {
	case 0:
	case 1:
		runs = "with run " + s.Runs[0]
	default:
		runs = "with runs " + strings.Join(s.Runs, ", ")
	}
	// Paths and names are the user's and may hold anything: the line stays one.
	return termtext.Name(fmt.Sprintf("gpupath report: %d pages, %d figures; %s, %s: %s %s", s.Pages, s.Figures, s.Scenario, runs, s.HTML, s.PDF))
}
