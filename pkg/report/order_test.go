package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// pdfPageOf is the page (from 1) of a PDF whose shown text holds s, or 0.
func pdfPageOf(t *testing.T, pdf []byte, s string) int {
	t.Helper()
	objs := readPDF(t, pdf)
	var pages []int
	for n, o := range objs {
		if strings.Contains(o.dict, "/Type /Page") && !strings.Contains(o.dict, "/Type /Pages") {
			pages = append(pages, n)
		}
	}
	sort.Ints(pages)
	for i, n := range pages {
		m := contents.FindStringSubmatch(objs[n].dict)
		if m == nil {
			continue
		}
		cn, _ := strconv.Atoi(m[1])
		found := false
		shownText(objs[cn].stream, func(_, text string) { found = found || strings.Contains(text, s) })
		if found {
			return i + 1
		}
	}
	return 0
}

// TestVerdictsFirst: in a report of imported or measured data, what a user
// came for — the model against the measurements — comes right after the
// summary, on the first pages of the PDF: the imported runs' verdicts start
// on page 1 (the summary leaves room), the calibration of the H200 run and
// the two-host run's measured curves by page 2.
func TestVerdictsFirst(t *testing.T) {
	reps, docs := freshExamples(t)
	for name, want := range map[string]struct {
		second string
		page   int
	}{
		"imported":       {"Imported measurements", 1},
		"h200-1gpu":      {"Model against measurement", 2},
		"two-hosts-veth": {"Measurements", 2}, // not calibrated: a pair of hosts, no loopback
		"model-only":     {"How this scenario was resolved", 2},
	} {
		d := docs[name]
		if len(d.Sections) < 2 || d.Sections[1].Title != want.second {
			t.Errorf("%s report: the second section is %q, want %q", name, d.Sections[1].Title, want.second)
			continue
		}
		if p := pdfPageOf(t, reps[name].File(PDFFile), "2. "+want.second); p == 0 || p > want.page {
			t.Errorf("%s report: section 2, %s, starts on page %d of the PDF, want by page %d", name, want.second, p, want.page)
		}
	}
}

// TestCollectivesAfterCost: in every example report the section
// "Collectives" comes right after "CPU and memory cost" and right before
// "What if", in the doc and on the PDF's pages.
func TestCollectivesAfterCost(t *testing.T) {
	reps, docs := freshExamples(t)
	for name, d := range docs {
		var titles []string
		for _, s := range d.Sections {
			titles = append(titles, s.Title)
		}
		i := slices.Index(titles, "Collectives")
		if i < 1 || i+1 >= len(titles) || titles[i-1] != "CPU and memory cost" || titles[i+1] != "What if" {
			t.Errorf("%s report: sections %q: want Collectives between CPU and memory cost and What if", name, titles)
			continue
		}
		pdf := reps[name].File(PDFFile)
		cost := pdfPageOf(t, pdf, strconv.Itoa(i)+". CPU and memory cost")
		coll := pdfPageOf(t, pdf, strconv.Itoa(i+1)+". Collectives")
		what := pdfPageOf(t, pdf, strconv.Itoa(i+2)+". What if")
		if cost == 0 || !(cost <= coll && coll <= what) {
			t.Errorf("%s report: the PDF has CPU and memory cost on page %d, Collectives on %d, What if on %d", name, cost, coll, what)
		}
	}
}
