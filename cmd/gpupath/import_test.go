package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

const fixtures = "../../pkg/importers/testdata/fixtures/"

// TestImportGolden pins what gpupath import prints and its exit status: a
// clean import (0), one with a damaged file (1: the line is listed, the
// other records kept), and bad input (2: one line, nothing written).
func TestImportGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		extra []string
		code  int
	}{
		{"import_clean", []string{
			"nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt",
			"perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt",
			"iperf3/json-v3.0.11-tcp-1stream-13s.json",
			"nvbandwidth/issue42-v0.8-a100-1gpu-host_to_device_memcpy_sm-b512.txt",
			"ibstat/nersc-8hca-mlx5-mixed-ib-eth.txt",
			"perftest/dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt",
		}, nil, 0},
		{"import_damaged", []string{"osu/pkb-osu_bw-v5.7.1-intelmpi-debug-trimmed.txt", "iperf3/json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json"}, nil, 1},
		{"import_unknown", []string{"SOURCES.md"}, nil, 2},
		{"import_tool", []string{"osu/pkb-osu_bw-v5.7.1-intelmpi-debug-trimmed.txt"}, []string{"--tool", "iperf"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"import"}
			for _, f := range tc.files {
				args = append(args, fixtures+f)
			}
			args = append(append(args, "--out", dir), tc.extra...)
			out, errOut, code := invoke(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			clean := func(s string) string { return strings.ReplaceAll(s, dir, "RUN") }
			golden.Check(t, filepath.Join("testdata", tc.name+"_stdout.golden"), []byte(clean(out)))
			golden.Check(t, filepath.Join("testdata", tc.name+"_stderr.golden"), []byte(clean(errOut)))
			if tc.code == 2 {
				if _, err := importers.ReadRun(dir); err == nil {
					t.Error("bad input wrote a run")
				}
				return
			}
			run, err := importers.ReadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Files) != len(tc.files) {
				t.Errorf("%d files in the run", len(run.Files))
			}
		})
	}
	// No file, no --out: bad input.
	if _, _, code := invoke(t, "import", "--out", t.TempDir()); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	if _, _, code := invoke(t, "import", fixtures+"osu/pkb-osu_bw-v5.7.1-intelmpi-debug-trimmed.txt"); code != 2 {
		t.Errorf("no --out: exit %d", code)
	}
}

// TestReportImported renders a report of two imported runs: the section on
// imported measurements, and their comparison (the 8-rank sendrecv against
// the 2-rank one: slower per rank, at every size they share).
func TestReportImported(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for run, f := range map[string]string{
		a: "nccl-tests/moc-sendrecv_perf-2node-1gpu-h100-roce-with-NCCL_DEBUG-INFO.txt",
		b: "nccl-tests/moc-sendrecv_perf-2node-4gpu-each-h100-roce-with-NCCL_DEBUG-INFO.txt",
	} {
		if _, errOut, code := invoke(t, "import", fixtures+f, "--out", run); code != 0 {
			t.Fatalf("import: %d %s", code, errOut)
		}
	}
	out := filepath.Join(dir, "report")
	if _, errOut, code := invoke(t, "report", "--model-only", "--data", a, "--data", b, "--out", out); code != 0 {
		t.Fatalf("report: %d %s", code, errOut)
	}
	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(html), "\u00a0", " ")
	for _, want := range []string{
		"Imported measurements", "Two runs compared",
		"log line 111 says", // the GDRDMA channel of the 4-GPU run
		"nccl-tests sendrecv_perf out-of-place: B is slower",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// TestImportEveryKindReportData imports the fixtures of each tool, one run
// per tool, and a large nccl-tests output, and builds the report's data of
// each run as report --data does (the CLI's reader, report.FromRuns): every
// run gpupath import writes reads back into a report.
func TestImportEveryKindReportData(t *testing.T) {
	ents, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string][]string{}
	if !testing.Short() {
		// 1.6 KB of manifest a row before: 20,000 rows made 32 MB.
		big := filepath.Join(t.TempDir(), "all_reduce_perf.txt")
		if err := os.WriteFile(big, ncclTable(t, 20_000), 0o644); err != nil {
			t.Fatal(err)
		}
		kinds["large nccl-tests"] = []string{big}
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(fixtures, e.Name(), "*"))
		kinds[e.Name()] = files
	}
	// The real outputs a format keeps in its own package.
	published, _ := filepath.Glob(filepath.Join("..", "..", "pkg", "importers", "*", "testdata", "published", "*"))
	for _, p := range published {
		if filepath.Base(p) != "README.md" {
			k := "published " + strings.Split(filepath.ToSlash(p), "/")[4]
			kinds[k] = append(kinds[k], p)
		}
	}
	if len(published) < 6 {
		t.Errorf("%d published outputs", len(published))
	}
	for kind, files := range kinds {
		t.Run(kind, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			_, errOut, code := invoke(t, append(append([]string{"import"}, files...), "--out", dir)...)
			if code != 0 && code != 1 { // 1: a damaged fixture's lines are listed, the rest kept
				t.Fatalf("import: exit %d: %s", code, errOut)
			}
			st, err := os.Stat(filepath.Join(dir, record.ManifestFile))
			if err != nil || st.Size() >= record.MaxManifestBytes {
				t.Fatalf("manifest: %v, %d bytes", err, st.Size())
			}
			rd, err := readRun(context.Background(), dir)
			if err != nil {
				t.Fatalf("report --data cannot read the run: %v", err)
			}
			d, err := report.FromRuns([]*record.RunData{rd}, model.Default())
			if err != nil {
				t.Fatalf("report --data: %v", err)
			}
			if len(d.Imported) != 1 || len(d.Imported[0].Files) != len(files) {
				t.Errorf("%d imported runs", len(d.Imported))
			}
		})
	}
}

// ncclTable is a real nccl-tests preamble and header with rows result rows.
func ncclTable(t *testing.T, rows int) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures + "nccl-tests/dranet-all_gather_perf-2node-16xB200-nccl2.26.6.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, l := range strings.SplitAfter(string(b), "\n")[:24] {
		out.WriteString(l)
	}
	for i := 0; i < rows; i++ {
		sz := 1024 << (i % 20)
		fmt.Fprintf(&out, "%12d %12d     float    none      -1    280.4    1.00    1.88      0    233.9    1.10    2.00      0\n", sz, sz/4)
	}
	return out.Bytes()
}

// TestImportBadInputOneLine: a binary file, and one with more records than
// a run holds, exit 2 with one line naming the file and leave nothing.
func TestImportBadInputOneLine(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "core")
	if err := os.WriteFile(bin, append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 1<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{bin: "binary content"}
	if !testing.Short() {
		many := filepath.Join(dir, "all_reduce_perf.txt")
		if err := os.WriteFile(many, ncclTable(t, record.MaxRecords/2+1), 0o644); err != nil {
			t.Fatal(err)
		}
		cases[many] = "1000000 per run"
	}
	for file, want := range cases {
		out := filepath.Join(dir, "run")
		_, errOut, code := invoke(t, "import", file, "--out", out)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, file+":") || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q", file, code, errOut)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s was written", file, out)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != len(cases) {
			t.Errorf("%s: left behind in %s: %d entries", file, dir, len(ents))
		}
	}
}

// import --format json lists, per file, the tool, version, hosts, records,
// notes, the lines it could not read and the tool's own failures, beside
// the run's summary; the exit codes are those of the table form.
func TestImportJSONPerFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	out, errOut, code := invoke(t, "import", fixtures+"nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt",
		fixtures+"iperf3/json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json", "--out", dir, "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a damaged file): %s", code, errOut)
	}
	var got struct {
		Run     string `json:"run"`
		Results int    `json:"results"`
		Read    []importers.FileRead
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(got.Read) != 2 || got.Run != dir {
		t.Fatalf("%+v", got)
	}
	n, ip := got.Read[0], got.Read[1]
	if n.Tool != "nccl-tests" || n.Version == "" || len(n.Hosts) != 2 || n.Records != 26 || n.Path != "rdma" || len(n.Errors) != 0 {
		t.Errorf("nccl-tests: %+v", n)
	}
	if ip.Tool != "iperf3" || len(ip.Errors) == 0 || got.Results != n.Records+ip.Records {
		t.Errorf("iperf3: %+v (results %d)", ip, got.Results)
	}
}

// fit --data on an imported run calibrates from the outputs: the keys with
// their sources, the check on the sizes left out, a scenario that model
// takes; an imported run with a measured one is bad input.
func TestFitImportedRun(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob(fixtures + "*/moc-*")
	run := filepath.Join(dir, "run")
	if _, errOut, code := invoke(t, append(append([]string{"import"}, files...), "--out", run)...); code != 0 {
		t.Fatalf("import: %d %s", code, errOut)
	}
	scen := filepath.Join(dir, "cal.yaml")
	out, errOut, code := invoke(t, "fit", "--data", run, "--out", scen)
	if code != 0 || !strings.Contains(out, "Fitted from imported outputs") || !strings.Contains(out, "nccl.net_efficiency") || !strings.Contains(out, "perftest") {
		t.Fatalf("fit: exit %d, %s %s", code, out, errOut)
	}
	if out, errOut, code := invoke(t, "model", "--scenario", scen, "--paths", "gdr", "--sizes", "1MiB"); code != 0 {
		t.Errorf("model --scenario of the calibrated file: %d %s %s", code, out, errOut)
	}
	jsonOut, _, code := invoke(t, "fit", "--data", run, "--format", "json")
	var j struct {
		Fits   []struct{ Key string } `json:"fits"`
		Checks []struct {
			Tool       string
			Calibrated float64 `json:"calibrated_median_error"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &j); code != 0 || err != nil || len(j.Fits) < 3 || len(j.Checks) < 2 {
		t.Errorf("fit --format json: %d %v %s", code, err, jsonOut)
	}
	measured := filepath.Join("..", "..", "reports", "examples", "h200-1gpu", "run")
	if _, errOut, code := invoke(t, "fit", "--data", run, "--data", measured); code != 2 || !strings.Contains(errOut, "fit them apart") {
		t.Errorf("imported with measured: exit %d, %s", code, errOut)
	}
}
