package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// artifacts is where tests leave screenshots and PDF pages for people to
// look at: $GPUPATH_ARTIFACTS/<test>, or nowhere when unset.
func artifacts(t *testing.T) string {
	root := os.Getenv("GPUPATH_ARTIFACTS")
	if root == "" {
		return ""
	}
	dir := filepath.Join(root, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fixedTime() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

// goldenInput is a model-only report of the default scenario with fixed
// time, host, version and run id.
func goldenInput() Input {
	return Input{Scenario: model.Default(), Source: "preset default", Version: "0.0.0-golden", Host: "golden-host",
		Time: fixedTime(), RunID: "default-golden", ProbeNote: "--model-only"}
}

// measuredInput adds a made-up measurement run: host TCP latency and
// bandwidth on loopback, memcpy costs, two probes not measured and a line
// skipped.
func measuredInput() Input {
	in := goldenInput()
	in.RunID = "measured-golden"
	in.ProbeNote = ""
	pts := func(q record.Quantity, f func(n units.Bytes) float64) []record.Point {
		var out []record.Point
		for _, n := range []units.Bytes{64, 4 << 10, 64 << 10, 1 << 20} {
			v := f(n)
			p := record.Point{Bytes: n, Iterations: 1000, Stable: true, CPU: 5e-6}
			if q == record.Bandwidth {
				p.Rate = units.Rate(v)
				p.Median = units.Seconds(float64(n) / v)
			} else {
				p.Median, p.Min, p.P99 = units.Seconds(v), units.Seconds(0.9*v), units.Seconds(1.6*v)
				p.Rate = units.Rate(float64(n) / v)
			}
			out = append(out, p)
		}
		return out
	}
	in.Measured = []Measured{{
		Source: "runs/golden-host-20261129T110000Z", Host: "golden-host (2 cores, Linux 6.1)", Start: fixedTime().Add(-time.Hour),
		Tool: "0.0.0-golden", Status: "complete",
		Series: []record.Series{
			{Label: "tcp ping-pong (loopback)", SeriesKey: record.SeriesKey{Probe: "tcp", Variant: "pingpong", Path: "host-tcp", Target: "loopback"}, Quantity: record.Latency,
				Points: pts(record.Latency, func(n units.Bytes) float64 { return 6.7e-6 + float64(n)/4e9 })},
			{Label: "tcp stream (loopback)", SeriesKey: record.SeriesKey{Probe: "tcp", Variant: "stream", Path: "host-tcp", Target: "loopback"}, Quantity: record.Bandwidth,
				Points: pts(record.Bandwidth, func(n units.Bytes) float64 { return 3.2e9 * float64(n) / (float64(n) + 2e4) })},
			{Label: "memcpy (one core)", SeriesKey: record.SeriesKey{Probe: "memcpy", Variant: "memcpy", Stage: "B,F", Path: "host-tcp", Target: "host"}, Quantity: record.Cost,
				Points: pts(record.Cost, func(n units.Bytes) float64 { return 5e-8 + float64(n)/1.1e10 })},
		},
		NotMeasured: []NotMeasured{{Probe: "cuda", Reason: "no CUDA driver (libcuda.so.1 not found)"}, {Probe: "rdma", Reason: "no RDMA device in /sys/class/infiniband"}},
		Skipped:     []string{"results.jsonl:9: cut off (no newline at the end of the file): not a JSON record: unexpected EOF"},
	}}
	return in
}

func render(t testing.TB, in Input) *Report {
	t.Helper()
	r, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The HTML is byte-exact for a fixed input: a model-only report and one
// with a measurement run.
func TestHTMLGolden(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "default.golden.html"), render(t, goldenInput()).File(HTMLFile))
	golden.Check(t, filepath.Join("testdata", "measured.golden.html"), render(t, measuredInput()).File(HTMLFile))
	golden.Check(t, filepath.Join("testdata", "calibrated.golden.html"), render(t, calibratedInput(t)).File(HTMLFile))
}

// The same input gives the same bytes in every file, the PDF included.
func TestRenderIsDeterministic(t *testing.T) {
	a, b := render(t, measuredInput()), render(t, measuredInput())
	if len(a.Files) != len(b.Files) {
		t.Fatalf("%d files, then %d", len(a.Files), len(b.Files))
	}
	for i := range a.Files {
		if a.Files[i].Name != b.Files[i].Name || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
			t.Errorf("%s differs between two renderings of the same input", a.Files[i].Name)
		}
	}
}

// Every figure has its CSV and JSON, the report lists them, and the HTML
// has one inline SVG per figure and fetches nothing.
func TestFilesAndFigures(t *testing.T) {
	r := render(t, measuredInput())
	page := string(r.File(HTMLFile))
	if n := strings.Count(page, "<svg "); n != len(r.Figures) {
		t.Errorf("%d inline SVGs for %d figures", n, len(r.Figures))
	}
	for _, f := range r.Figures {
		for _, name := range f.Files {
			if len(r.File(name)) == 0 {
				t.Errorf("figure %d: %s is missing or empty", f.Num, name)
			}
		}
		if f.Kind == "" || f.Origin == "" {
			t.Errorf("figure %d (%s) does not say whether it is modeled or measured", f.Num, f.Title)
		}
	}
	kinds := map[string]bool{}
	for _, f := range r.Figures {
		kinds[f.Kind] = true
	}
	if !kinds["modeled"] || !kinds["modeled and measured"] || !kinds["measured"] {
		t.Errorf("kinds of figures: %v", kinds)
	}
	for _, bad := range []string{"<script", "<link", "<img", "src=", "url(", "@import", "http://", "https://"} {
		if i := strings.Index(strings.ToLower(page), bad); i >= 0 && !(strings.HasPrefix(bad, "http") && strings.Contains(page[max(0, i-40):i], "xmlns")) {
			t.Errorf("index.html contains %q: %.80q", bad, page[max(0, i-30):])
		}
	}
	for _, name := range []string{HTMLFile, PDFFile, ManifestFile, PNGFile} {
		if len(r.File(name)) == 0 {
			t.Errorf("no %s", name)
		}
	}
	if !bytes.HasPrefix(r.File(PNGFile), []byte("\x89PNG")) {
		t.Error("latency.png is not a PNG")
	}
	if !strings.Contains(page, "cuda: not measured: no CUDA driver") || !strings.Contains(page, "results.jsonl:9: cut off") {
		t.Error("the measurements section does not list what was not measured and what was skipped")
	}
}

// A label that is HTML appears escaped in the page (the PDF test checks
// that it is verbatim there).
func TestLabelsAreEscaped(t *testing.T) {
	in := goldenInput()
	in.Scenario.Name = "<script>alert(1)</script>"
	in.Scenario.Description = `A "quoted" & <b>bold</b> description`
	in.Host = "<img src=x onerror=alert(2)>"
	page := string(render(t, in).File(HTMLFile))
	if strings.Contains(strings.ToLower(page), "<script") || strings.Contains(page, "<img") || strings.Contains(page, "<b>") {
		t.Fatal("a label reached the HTML unescaped")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;bold&lt;/b&gt;", "&lt;img src=x onerror=alert(2)&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks the escaped label %s", want)
		}
	}
}

// The summary says who wins, the crossovers, the cores, and what cannot
// work, from the numbers.
func TestSummary(t *testing.T) {
	text := strings.Join(analyse(model.Default()).summary(), " ")
	for _, want := range []string{"GPUDirect RDMA (gdr) moves a message from GPU to GPU fastest at every size from 1 B to 1 GiB",
		"rdma overtakes devmem at", "CPU cores", "tcp 6.23", "p2p-plain-nic cannot work here"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	s, err := model.Preset("gcp-a3-tcpx")
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(analyse(s).summary(), " ")
	for _, want := range []string{"rdma and gdr cannot work here: the NIC has no RDMA", "Device-memory TCP, header/data split (devmem) moves a message"} {
		if !strings.Contains(text, want) {
			t.Errorf("gcp-a3-tcpx summary lacks %q:\n%s", want, text)
		}
	}
}

// The what-if scenarios are chosen by code from the scenario.
func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		preset string
		sets   []string
	}{
		{"default", []string{"topology.gpu_nic=SYS", "nic.rate=400Gbit/s"}},
		{"cross-socket-sys", []string{"topology.gpu_nic=PIX"}},
		{"workstation-roce-phb", []string{"topology.gpu_nic=PIX"}},
		{"dgx-h100-ndr", []string{"topology.gpu_nic=SYS", "nic.rate=800Gbit/s"}},
	} {
		s, err := model.Preset(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := Variants(s)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vs {
			for _, o := range v.Sets {
				if _, isText := o.Value.(string); isText {
					t.Errorf("%s: what-if %s given as text %q", tc.preset, o.Key, o.Value)
				}
				got = append(got, o.Key+"="+overrideText(o))
			}
			if v.Scenario == nil || v.Why == "" {
				t.Errorf("%s: variant %q is not resolved or not explained", tc.preset, v.Name)
			}
		}
		for _, want := range tc.sets {
			if !strings.Contains(strings.Join(got, " "), want) {
				t.Errorf("%s: variants %v lack %s", tc.preset, got, want)
			}
		}
	}
	s := model.Default()
	if err := s.Set("nic.rate", "800Gbit/s"); err != nil {
		t.Fatal(err)
	}
	vs, _ := Variants(s)
	if overrideText(vs[1].Sets[0]) != "400Gbit/s" {
		t.Errorf("at 800 Gbit/s the NIC rate is halved, got %v", vs[1].Sets)
	}
}

func TestInputIsChecked(t *testing.T) {
	bad := measuredInput()
	bad.Measured[0].Series[0].Points[1].Median = units.Seconds(math.NaN())
	bad2 := measuredInput()
	bad2.Measured[0].Series[1].Quantity = "speed"
	for name, in := range map[string]Input{"no scenario": {}, "NaN": bad, "quantity": bad2} {
		if _, err := Render(in); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
}

func TestWriteDir(t *testing.T) {
	r := render(t, goldenInput())
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "report")
	if err := r.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(b, f.Data) {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	// Writing over a report is refused, and leaves it as it was.
	err := r.WriteDir(dir)
	var oe *OutputError
	if !errors.As(err, &oe) || !errors.Is(err, ErrExists) {
		t.Errorf("writing over a report: %v", err)
	}
	assertEntries(t, filepath.Join(root, "a", "b"), "report")

	// A parent that is a file: an OutputError and nothing left.
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteDir(filepath.Join(file, "x", "report")); !errors.As(err, &oe) {
		t.Errorf("parent is a file: %v", err)
	}
	// A failure after the parents were made removes them and the temporary directory.
	broken := &Report{Files: append(append([]File(nil), r.Files...), File{Name: "../escape", Data: []byte("x")})}
	if err := broken.WriteDir(filepath.Join(root, "new", "deeper", "report")); err == nil {
		t.Error("a bad file name was written")
	}
	assertEntries(t, root, "a", "file")
}

func assertEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, want)
	}
}

// BenchmarkRender renders a model-only report of the default scenario:
// HTML, PDF, PNG and the data of every figure (bench/README.md, "report").
func BenchmarkRender(b *testing.B) {
	in := goldenInput()
	for b.Loop() {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
}
