package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthRun writes a run of n records made of the example run's
// (reports/examples/h200-1gpu/run), repeated with sizes that differ by a
// few bytes from one repetition to the next, its manifest's counts made
// to match.
func synthRun(t *testing.T, n int) string {
	t.Helper()
	src := filepath.Join("..", "..", "reports", "examples", "h200-1gpu", "run")
	b, err := os.ReadFile(filepath.Join(src, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	counts := map[string]float64{}
	for i := 0; i < n; i++ {
		r := recs[i%len(recs)]
		sz, _ := r["bytes"].(float64)
		if sz > 0 {
			r["bytes"] = sz + float64(i/len(recs)%20)
		}
		line, _ := json.Marshal(r)
		w.Write(append(line, '\n'))
		r["bytes"] = sz
		counts[r["probe"].(string)]++
	}
	if err := w.Flush(); err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if b, err = os.ReadFile(filepath.Join(src, "manifest.json")); err != nil || json.Unmarshal(b, &man) != nil {
		t.Fatal(err)
	}
	for _, p := range man["probes"].([]any) {
		p := p.(map[string]any)
		p["results"] = counts[p["name"].(string)]
	}
	b, _ = json.Marshal(man)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A run of 100,000 records is reported within the page limit: the
// measurements tables summarize each size and show at most their cap of
// rows, saying so.
func TestReportBigRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100,000-record run (-short skips it)")
	}
	run := synthRun(t, 100_000)
	out := filepath.Join(t.TempDir(), "report")
	if _, stderr, code := invoke(t, "report", "--data", run, "--model-only", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var man struct {
		PDFPages int `json:"pdf_pages"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if err := json.Unmarshal(b, &man); err != nil || man.PDFPages < 1 || man.PDFPages > 500 {
		t.Errorf("report.json: %v, %d pages", err, man.PDFPages)
	}
	html, _ := os.ReadFile(filepath.Join(out, "index.html"))
	m := string(html)
	if i := strings.Index(m, ">Measurements<"); i < 0 || !strings.Contains(m[i:], "a table lists at most 200") {
		t.Errorf("the Measurements section does not name the table's cap")
	}
}
