package report

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/plots"
)

// Report is a rendered report, held in memory until written.
type Report struct {
	// Files are the report's files, by name, in a stable order: index.html,
	// report.pdf, report.json, latency.png, then each figure's CSV and JSON.
	Files []File
	// Pages is the number of pages of report.pdf.
	Pages int
	// Figures describes each figure.
	Figures []FigureInfo
	// uncovered are the characters of the PDF's text that its fonts have
	// no glyph for, spelled otherwise (pdfFonts.show): a test wants none.
	uncovered []string
}

// File is one file of a report.
type File struct {
	Name string
	Data []byte
}

// FigureInfo says what a figure shows and where its data comes from.
type FigureInfo struct {
	Num    int      `json:"figure"`
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Kind   string   `json:"kind"`
	Origin string   `json:"origin"`
	Files  []string `json:"files"`
}

// The names of a report's main files.
const (
	HTMLFile     = "index.html"
	PDFFile      = "report.pdf"
	ManifestFile = "report.json"
	PNGFile      = "latency.png"
)

// File returns the named file's content, or nil.
func (r *Report) File(name string) []byte {
	for _, f := range r.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// Render renders the report of in: HTML, PDF, the main figure as PNG, and
// the data of every figure. It reads nothing but in (no clock, no files),
// so the same input gives the same bytes.
func Render(in Input) (*Report, error) {
	return RenderContext(context.Background(), in)
}

// MaxPages bounds the PDF: a report of every path, variant and a few runs
// is about 20 pages; past 500 the input is not a report's (a results file
// of a million records), and rendering stops with ErrTooManyPages.
const MaxPages = 500

// pageLimit is MaxPages; tests lower it.
var pageLimit = MaxPages

// ErrTooManyPages is returned when the PDF would pass MaxPages pages.
var ErrTooManyPages = errors.New("the PDF would pass the page limit")

// RenderContext is Render that stops when ctx is done: between the
// figures of the page and between the blocks of the PDF, so that an
// interrupt ends a long render promptly (the error is ctx's).
func RenderContext(ctx context.Context, in Input) (*Report, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	if err := in.resolveVariants(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := build(&in)
	rep := &Report{}
	page, err := pageOf(ctx, d, in.Version)
	if err != nil {
		return nil, err
	}
	pdf, pages, uncovered, err := renderPDF(ctx, d, &in)
	if err != nil {
		return nil, err
	}
	rep.Pages, rep.uncovered = pages, uncovered
	png, err := mainPNG(d)
	if err != nil {
		return nil, err
	}
	data := rep.dataFiles(d)
	rep.Files = append(rep.Files, File{HTMLFile, page}, File{PDFFile, pdf})
	names := []string{HTMLFile, PDFFile, ManifestFile, PNGFile}
	for _, f := range data {
		names = append(names, f.Name)
	}
	rep.Files = append(rep.Files, File{ManifestFile, indentJSON(manifest(&in, d, rep, names))}, File{PNGFile, png})
	rep.Files = append(rep.Files, data...)
	return rep, nil
}

// resolveVariants chooses the what-if scenarios (Variants) when none are
// given, and fills in the scenarios of those given, on a copy.
func (in *Input) resolveVariants() error {
	if in.Variants == nil {
		vs, err := Variants(in.Scenario)
		in.Variants = vs
		return err
	}
	in.Variants = append([]Variant(nil), in.Variants...)
	for i := range in.Variants {
		if err := in.Variants[i].resolve(in.Scenario); err != nil {
			return err
		}
	}
	return nil
}

// pageOf is the HTML page of d with every figure inline as SVG.
func pageOf(ctx context.Context, d *doc, version string) ([]byte, error) {
	svgs := map[int]string{}
	for _, f := range d.Figures {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := inlineSVG(f.Draw, f.W, f.H, fmt.Sprintf("Figure %d. %s", f.Num, f.Title), f.Anchor())
		if err != nil {
			return nil, err
		}
		svgs[f.Num] = s
	}
	return renderHTML(d, version, svgs)
}

// mainPNG is the latency figure as PNG (nil when the report has none).
func mainPNG(d *doc) ([]byte, error) {
	var png []byte
	for _, f := range d.Figures {
		if f.ID == "latency" {
			var err error
			if png, err = plots.PNG(f.Draw, f.W, f.H, 144); err != nil {
				return nil, err
			}
		}
	}
	return png, nil
}

// dataFiles are every figure's CSV and JSON; it lists the figures in
// rep.Figures.
func (rep *Report) dataFiles(d *doc) []File {
	var data []File
	for _, f := range d.Figures {
		fj := figureJSON{Figure: f.Num, ID: f.ID, Title: f.Title, Kind: f.Kind, Origin: f.Origin, Caption: f.Caption, Columns: f.Data.Names(), Units: f.Data.Units()}
		data = append(data, File{f.Base() + ".csv", csvOf(f.Data)}, File{f.Base() + ".json", figureFile(fj, f.Data)})
		rep.Figures = append(rep.Figures, FigureInfo{Num: f.Num, ID: f.ID, Title: f.Title, Kind: f.Kind, Origin: f.Origin,
			Files: []string{f.Base() + ".csv", f.Base() + ".json"}})
	}
	return data
}

// manifestJSON is report.json: what the report is made of, for programs.
type manifestJSON struct {
	Tool      string         `json:"tool"`
	Version   string         `json:"version"`
	RunID     string         `json:"run_id"`
	Rendered  time.Time      `json:"rendered"`
	Host      string         `json:"host"`
	Scenario  scenarioJSON   `json:"scenario"`
	WhatIf    []variantJSON  `json:"what_if"`
	Measured  []measuredJSON `json:"measured"`
	PDFPages  int            `json:"pdf_pages"`
	Sections  []string       `json:"sections"`
	Figures   []FigureInfo   `json:"figures"`
	Files     []string       `json:"files"`
	ProbeNote string         `json:"probe_note,omitempty"`
	// Calibration summarises the section "Model against measurement".
	Calibration     *calibrationJSON `json:"calibration,omitempty"`
	CalibrationNote string           `json:"calibration_note,omitempty"`
}

type calibrationJSON struct {
	Base        string           `json:"base"`
	Scenario    string           `json:"scenario"`
	Runs        []string         `json:"runs"`
	Keys        []string         `json:"keys"`
	Comparisons []comparisonJSON `json:"comparisons"`
	Stages      []stageJSON      `json:"stages"`
}

type comparisonJSON struct {
	Label            string  `json:"label"`
	Path             string  `json:"path"`
	Variant          string  `json:"variant"`
	PresetMedian     float64 `json:"preset_median_ape_pct"`
	PresetWorst      float64 `json:"preset_worst_ape_pct"`
	CalibratedMedian float64 `json:"calibrated_median_ape_pct"`
	CalibratedWorst  float64 `json:"calibrated_worst_ape_pct"`
}

type stageJSON struct {
	Stage    string `json:"stage"`
	Measured bool   `json:"measured"`
	Source   string `json:"source"`
}

func calibrationOf(in *Input) *calibrationJSON {
	c := in.Calibration
	if c == nil {
		return nil
	}
	out := &calibrationJSON{Base: c.Base.Name, Scenario: c.Scenario.Name, Runs: []string{}, Keys: []string{}, Comparisons: []comparisonJSON{}, Stages: []stageJSON{}}
	for _, r := range c.Runs {
		out.Runs = append(out.Runs, r.Dir)
	}
	for _, k := range c.Keys {
		out.Keys = append(out.Keys, k.Key+"="+k.After)
	}
	for _, cmp := range c.Comparison {
		out.Comparisons = append(out.Comparisons, comparisonJSON{Label: cmp.Label, Path: cmp.Path, Variant: cmp.Variant,
			PresetMedian: cmp.PresetErr.MedianAPE, PresetWorst: cmp.PresetErr.WorstAPE, CalibratedMedian: cmp.CalibratedErr.MedianAPE, CalibratedWorst: cmp.CalibratedErr.WorstAPE})
	}
	for _, s := range c.Stages {
		out.Stages = append(out.Stages, stageJSON{Stage: strings.TrimSpace(s.Letter + " " + s.Name), Measured: s.Measured, Source: s.Source})
	}
	return out
}

type scenarioJSON struct {
	Name      string         `json:"name"`
	Source    string         `json:"source"`
	Overrides []string       `json:"overrides"`
	Values    map[string]any `json:"values"`
}

type variantJSON struct {
	Name string            `json:"name"`
	Why  string            `json:"why"`
	Sets map[string]string `json:"sets"`
}

type measuredJSON struct {
	Source      string    `json:"source"`
	Host        string    `json:"host"`
	Start       time.Time `json:"start"`
	Tool        string    `json:"tool"`
	Status      string    `json:"status"`
	Series      int       `json:"series"`
	NotMeasured []string  `json:"not_measured"`
	Skipped     int       `json:"skipped_lines"`
}

func manifest(in *Input, d *doc, rep *Report, files []string) manifestJSON {
	m := manifestJSON{Tool: "gpupath", Version: in.Version, RunID: in.RunID, Rendered: in.Time.UTC(), Host: in.Host,
		Scenario: scenarioJSON{Name: in.Scenario.Name, Source: in.Source, Overrides: append([]string{}, in.Overrides...), Values: in.Scenario.Map()},
		WhatIf:   []variantJSON{}, Measured: []measuredJSON{}, PDFPages: rep.Pages, Figures: rep.Figures, Files: files, ProbeNote: in.ProbeNote,
		Calibration: calibrationOf(in), CalibrationNote: in.CalibrationNote}
	for _, s := range d.Sections {
		m.Sections = append(m.Sections, s.Title)
	}
	for _, v := range in.Variants {
		sets := map[string]string{}
		for _, o := range v.Sets {
			sets[o.Key] = overrideText(o)
		}
		m.WhatIf = append(m.WhatIf, variantJSON{Name: v.Name, Why: v.Why, Sets: sets})
	}
	for _, ms := range in.Measured {
		mj := measuredJSON{Source: ms.Source, Host: ms.Host, Start: ms.Start, Tool: ms.Tool, Status: ms.Status, Series: len(ms.Series), NotMeasured: []string{}, Skipped: len(ms.Skipped)}
		for _, n := range ms.NotMeasured {
			mj.NotMeasured = append(mj.NotMeasured, n.Probe+": "+n.Reason)
		}
		m.Measured = append(m.Measured, mj)
	}
	sort.Strings(m.Files[4:])
	return m
}
