package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// listDir names what dir holds, hidden entries (temporary directories) included.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// With no flags but --model-only, the report lands in reports/ under the
// scenario's name and the UTC time, and the command prints the paths of
// index.html and report.pdf.
func TestReportDefaultDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	out, errOut, code := invoke(t, "report", "--model-only")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// One line: "gpupath report: …: DIR/index.html DIR/report.pdf".
	lines := strings.Fields(strings.TrimSpace(out))
	if strings.Count(out, "\n") != 1 || len(lines) < 2 || !strings.HasSuffix(lines[len(lines)-2], "/index.html") || !strings.HasSuffix(lines[len(lines)-1], "/report.pdf") {
		t.Fatalf("stdout: %q", out)
	}
	dir := filepath.Dir(lines[len(lines)-2])
	if !strings.HasPrefix(dir, "reports/default-") || !strings.HasSuffix(dir, "Z") {
		t.Errorf("report directory %q is not reports/default-<UTC time>", dir)
	}
	for _, f := range []string{"index.html", "report.pdf", "report.json", "latency.png", "figure-02-latency.csv", "figure-02-latency.json"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if got := listDir(t, "reports"); len(got) != 1 {
		t.Errorf("reports/ holds %v: a temporary directory was left", got)
	}
	var man struct {
		Scenario  struct{ Name, Source string }
		ProbeNote string `json:"probe_note"`
		PDFPages  int    `json:"pdf_pages"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.Scenario.Name != "default" || man.Scenario.Source != "preset default" || !strings.Contains(man.ProbeNote, "--model-only") || man.PDFPages < 8 {
		t.Errorf("report.json: %+v", man)
	}
	// A second report in the same second gets its own directory.
	if _, _, code := invoke(t, "report", "--model-only", "--preset", "gen3-edr", "--set", "nic.rate=56Gbit/s"); code != 0 {
		t.Fatalf("second report: exit %d", code)
	}
	if got := listDir(t, "reports"); len(got) != 2 {
		t.Errorf("reports/ holds %v", got)
	}
}

// Bad input exits 2 with one line on stderr and leaves nothing behind.
func TestReportBadInput(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if err := os.WriteFile("afile", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join("runs", "corrupt")
	if err := os.MkdirAll(corrupt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corrupt, "manifest.json"), []byte("\x00\x01garbage{{"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join("runs", "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join("runs", "garbage")
	if err := os.MkdirAll(garbage, 0o755); err != nil {
		t.Fatal(err)
	}
	okManifest := `{"format": 1, "version": "0.1.0", "status": "complete", "start": "2026-11-29T10:00:00Z", "host": {"hostname": "h"}}`
	if err := os.WriteFile(filepath.Join(garbage, "manifest.json"), []byte(okManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(garbage, "results.jsonl"), []byte("\x89PNG\r\n\x1a\n\x00\x00garbage\nmore garbage {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, ".")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "runs/none"}, "--data runs/none: no such directory"},
		{[]string{"--data", "afile"}, "not a directory"},
		{[]string{"--data", corrupt, "--out", "out1"}, "manifest.json: malformed manifest"},
		{[]string{"--data", empty, "--out", "out1"}, "no manifest.json"},
		{[]string{"--data", garbage, "--out", "out1"}, "results.jsonl is corrupt: no line is a record"},
		{[]string{"--model-only", "--out", "afile/report"}, "--out afile/report: cannot be made: a directory above it is a file"},
		{[]string{"--model-only", "--out", "runs"}, "it is a directory that is not empty: it holds"},
		{[]string{"--model-only", "--out", "afile"}, "it is a file, not a directory"},
		{[]string{"--preset", "nope"}, "unknown preset"},
		{[]string{"--preset", "default", "--scenario", "x.yaml"}, "not both"},
		{[]string{"--set", "nic.rate=fast"}, "nic.rate"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		out, errOut, code := invoke(t, append([]string{"report"}, tc.args...)...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
		if got := listDir(t, "."); strings.Join(got, " ") != strings.Join(before, " ") {
			t.Errorf("%v left %v behind (before: %v)", tc.args, got, before)
		}
	}
	if got := listDir(t, "runs"); len(got) != 3 {
		t.Errorf("runs/ holds %v", got)
	}
}

// A run directory is read (manifest, records, a line cut off by a killed
// run) and drawn over the model.
func TestReportWithData(t *testing.T) {
	t.Chdir(t.TempDir())
	run := filepath.Join("runs", "host1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"format": 1, "tool": "gpupath", "version": "0.1.0", "status": "interrupted", "start": "2026-11-29T10:00:00Z",
 "host": {"hostname": "host1", "kernel": "6.1.0", "cpu_model": "Xeon", "cpus": 2},
 "probes": [{"name": "tcp", "status": "ok", "results": 3}, {"name": "cuda", "status": "unavailable", "reason": "no CUDA driver"}],
 "results": "results.jsonl"}`
	results := `{"probe":"tcp","variant":"pingpong","path":"host-tcp","target":"loopback","bytes":64,"iterations":100,"min_s":6e-6,"median_s":7e-6,"p99_s":9e-6,"throughput_Bps":9e6,"cpu_user_s":2e-6,"cpu_sys_s":5e-6}
{"probe":"tcp","variant":"pingpong","path":"host-tcp","target":"loopback","bytes":65536,"iterations":100,"min_s":2e-5,"median_s":2.2e-5,"p99_s":3e-5,"throughput_Bps":3e9,"cpu_user_s":2e-6,"cpu_sys_s":9e-6}
{"probe":"tcp","variant":"stream","path":"host-tcp","target":"loopback","bytes":65536,"iterations":1000,"min_s":1.9e-5,"median_s":2e-5,"p99_s":2.5e-5,"throughput_Bps":3.2e9,"cpu_user_s":1e-6,"cpu_sys_s":8e-6}
{"probe":"memcpy","variant":"memcpy","stage":"B,F","path":"host-tcp","target":"host","bytes":4096,"iterations":1000,"min_s":3e-7,"median_s":3.5e-7,"p99_s":5e-7,"throughput_Bps":1.1e10}
{"probe":"tcp","variant":"pingpong","path":"host-tcp","target":"loopback","bytes":10485`
	for name, body := range map[string]string{"manifest.json": manifest, "results.jsonl": results} {
		if err := os.WriteFile(filepath.Join(run, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := invoke(t, "report", "--model-only", "--data", run, "--out", "r")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "gpupath report: ") || !strings.HasSuffix(out, ", with run runs/host1: r/index.html r/report.pdf\n") {
		t.Errorf("stdout %q", out)
	}
	page, err := os.ReadFile("r/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Run 1: runs/host1", "host1, Xeon × 2, Linux 6.1.0", "tcp pingpong (loopback)", "tcp stream (loopback)", "memcpy memcpy (host)",
		"cuda: not measured: no CUDA driver", "results.jsonl:5: cut off", "run interrupted"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}

// A run with GPU copies, loopback TCP and the staged transfer (the H200
// example) is calibrated: the report gains the section "Model against
// measurement", its summary says how close the calibrated model is, and the
// data paths are drawn on the topology the run read too.
func TestReportCalibrates(t *testing.T) {
	run, err := filepath.Abs(filepath.Join("..", "..", "reports", "examples", "h200-1gpu", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(run, "results.jsonl")); err != nil {
		t.Skipf("skipped: the example run is not there: %v", err)
	}
	t.Chdir(t.TempDir())
	if _, errOut, code := invoke(t, "report", "--model-only", "--data", run, "--out", "r"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page, err := os.ReadFile("r/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2. Model against measurement", "Fitted parameters, next to the preset", "Error per path", "The staged transfer, stage by stage",
		`<span class="badge measured">measured</span>`, "Pipelined against store-and-forward", "(measured topology)", "the calibrated model is off by a median of"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	var man struct {
		Calibration struct {
			Comparisons []struct {
				Label            string
				CalibratedMedian float64 `json:"calibrated_median_ape_pct"`
			}
			Stages []struct{ Measured bool }
		}
	}
	b, _ := os.ReadFile("r/report.json")
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Calibration.Comparisons) < 3 || len(man.Calibration.Stages) == 0 {
		t.Errorf("report.json calibration: %+v", man.Calibration)
	}
}

// Runs with nothing to calibrate give a report that says so.
func TestReportNothingToCalibrate(t *testing.T) {
	t.Chdir(t.TempDir())
	run := filepath.Join("runs", "host1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"format": 1, "tool": "gpupath", "version": "0.1.0", "status": "complete", "start": "2026-11-29T10:00:00Z", "host": {"hostname": "host1"}, "results": "results.jsonl"}`
	results := `{"probe":"memcpy","variant":"memcpy","stage":"B,F","path":"host-tcp","target":"host","bytes":4096,"iterations":1000,"min_s":3e-7,"median_s":3.5e-7,"p99_s":5e-7,"throughput_Bps":1.1e10}
`
	for name, body := range map[string]string{"manifest.json": manifest, "results.jsonl": results} {
		if err := os.WriteFile(filepath.Join(run, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := invoke(t, "report", "--model-only", "--data", run, "--out", "r"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page, _ := os.ReadFile("r/index.html")
	if !strings.Contains(string(page), "No calibration: no run holds what the calibration fits") {
		t.Error("the report does not say why there is no calibration")
	}
}
