package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/importers"
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
