package report

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// needTool skips the test, saying why, when a program it runs is missing.
// scripts/test.sh installs them (poppler-utils, chromium).
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("skipped: %s not found (%v); install the Debian package %s (scripts/test.sh does)", name, err, pkg)
	}
	return p
}

func writePDF(t *testing.T, r *Report) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), PDFFile)
	if err := os.WriteFile(p, r.File(PDFFile), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func pdfText(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command(needTool(t, "pdftotext", "poppler-utils"), "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// The PDF has every section heading, every figure caption and real text
// (µs, ≥, →: searchable), as many pages as the renderer says, and every
// page renders to an image that is not blank.
func TestPDF(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: PDF pages rendered by poppler")
	}
	in := measuredInput()
	r := render(t, in)
	path := writePDF(t, r)
	text := pdfText(t, path)
	// In the report's order: the measurements right after the summary.
	for i, h := range sectionOrder(&in) {
		if want := fmt.Sprintf("%d. %s", i+1, h.title); !strings.Contains(text, want) {
			t.Errorf("pdftotext finds no heading %q", want)
		}
	}
	for _, want := range []string{"µs", "≥", "→", "GPU↔NIC", "GPU-to-GPU data paths: default", "Figure 1.", fmt.Sprintf("Figure %d.", len(r.Figures)),
		"tcp ping-pong (loopback)", "cuda: not measured: no CUDA driver", "page 1 of " + strconv.Itoa(r.Pages)} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext finds no %q", want)
		}
	}

	info, err := exec.Command(needTool(t, "pdfinfo", "poppler-utils"), path).Output()
	if err != nil {
		t.Fatalf("pdfinfo: %v", err)
	}
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`).FindSubmatch(info)
	if m == nil {
		t.Fatalf("pdfinfo gives no page count:\n%s", info)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != r.Pages || n < len(SectionTitles()) {
		t.Errorf("the PDF has %d pages; the renderer says %d", n, r.Pages)
	}

	dir := artifacts(t)
	if dir == "" {
		dir = t.TempDir()
	}
	noBlankPages(t, path, dir, r.Pages)
}

// The PDF of a calibrated report has every heading, the section "Model
// against measurement" with its figures and tables, the stage badges, and
// the diagram of the measured topology; no page is blank.
func TestPDFCalibrated(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: PDF pages rendered by poppler")
	}
	in := calibratedInput(t)
	r := render(t, in)
	path := writePDF(t, r)
	text := pdfText(t, path)
	for i, h := range sectionOrder(&in) {
		if want := fmt.Sprintf("%d. %s", i+1, h.title); !strings.Contains(text, want) {
			t.Errorf("pdftotext finds no heading %q", want)
		}
	}
	wants := []string{"Fitted parameters, next to the preset's", "Error per path", "The staged transfer, stage by stage", "Pipelined against store-and-forward",
		"Data paths between two nodes like vm (measured topology)", "measured topology of vm: GPU–NIC PHB", "measured", fmt.Sprintf("Figure %d.", len(r.Figures))}
	for _, cmp := range in.Calibration.Comparison {
		wants = append(wants, fmt.Sprintf("%.1f%%", cmp.CalibratedErr.MedianAPE))
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext finds no %q", want)
		}
	}
	dir := artifacts(t)
	if dir == "" {
		dir = t.TempDir()
	}
	noBlankPages(t, path, dir, r.Pages)
}

// A label that is HTML is written verbatim in the PDF.
func TestPDFLabelsVerbatim(t *testing.T) {
	in := goldenInput()
	in.Scenario.Name = "<script>alert(1)</script>"
	text := pdfText(t, writePDF(t, render(t, in)))
	if !strings.Contains(text, "GPU-to-GPU data paths: <script>alert(1)</script>") {
		t.Error("pdftotext does not find the label <script>alert(1)</script> verbatim")
	}
	if strings.Contains(text, "&lt;") {
		t.Error("the PDF has HTML escapes in it")
	}
}

// noBlankPages renders the PDF at path into dir, page by page, and fails
// on a page count other than pages or on a blank page.
func noBlankPages(t *testing.T, path, dir string, pages int) {
	t.Helper()
	out, err := exec.Command(needTool(t, "pdftoppm", "poppler-utils"), "-r", "50", "-png", path, filepath.Join(dir, "page")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	sort.Strings(pngs)
	if len(pngs) != pages {
		t.Fatalf("pdftoppm rendered %d pages of %d", len(pngs), pages)
	}
	for _, p := range pngs {
		if ink := inkFraction(t, p, image.Rectangle{}); ink < 0.005 {
			t.Errorf("%s is blank (%.4f of its pixels have ink)", filepath.Base(p), ink)
		}
	}
}

// inkFraction is the share of pixels in r (all of the image when r is
// empty) that are not near white.
func inkFraction(t *testing.T, path string, r image.Rectangle) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r.Empty() {
		r = img.Bounds()
	}
	return inkOf(img, r)
}
