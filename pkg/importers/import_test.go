package importers

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/units"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// fixtureDir is a copy of /work/shared/fixtures (its SOURCES.md says where
// each file comes from and which are damaged).
const fixtureDir = "testdata/fixtures"

// toolOf is the tool each fixture directory's files must be detected as.
var toolOf = map[string]string{
	"bandwidthTest": "bandwidthTest", "ibstat": "ibstat", "ibv_devinfo": "ibv_devinfo", "iperf3": "iperf3",
	"nccl-tests": "nccl-tests", "netperf": "netperf", "nvbandwidth": "nvbandwidth", "nvidia-smi-topo": "nvidia-smi-topo",
	"osu": "osu", "perftest": "perftest", "qperf": "qperf", "sockperf": "sockperf",
}

// damaged are the fixtures SOURCES.md marks as damaged (TRUNCATED,
// MANGLED) or whose text is not all tool output (ELIDED): the lines each
// must report, and the records it must keep.
var damaged = map[string]struct {
	lines   []int
	records int
}{
	// Cut off at 8192 bytes inside an interval: the line where it ends; the 15 intervals before it.
	"iperf3/json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json": {[]int{351}, 15},
	// "..." replaced the device lines: that line; the 30 cells of the matrix.
	"nvbandwidth/issue50-v0.8-a6000x6-pcie-d2d_read_ce-ELIDED.txt": {[]int{8}, 30},
	// Whitespace mangled (tabs expanded, leading spaces stripped): every line is still readable.
	"perftest/superbench-ib_write_bw-loopback-a-MBsec-interleaved-WHITESPACE-MANGLED.txt": {nil, 23},
}

func fixtureFiles(t testing.TB) []string {
	var out []string
	err := filepath.WalkDir(fixtureDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() != "SOURCES.md" {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// publishedFiles are the real outputs that are not in the shared
// collection, each kept by the one package that reads them
// (<package>/testdata/published, with a README.md saying where each comes
// from).
func publishedFiles(t testing.TB) []string {
	ps, err := filepath.Glob("*/testdata/published/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		if filepath.Base(p) != "README.md" {
			out = append(out, p)
		}
	}
	return out
}

// Each published output is imported as its package's format, found from
// its content, with records or hardware and no error.
func TestPublishedOutputs(t *testing.T) {
	tools := map[string]string{"p2plat": "p2pBandwidthLatencyTest", "nvlink": "nvidia-smi-nvlink", "ucxperf": "ucx_perftest"}
	files := publishedFiles(t)
	seen := map[string]int{}
	for _, p := range files {
		pkg := strings.Split(filepath.ToSlash(p), "/")[0]
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseFile(p, b, "")
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := f.Outputs[0].Tool; got != tools[pkg] {
			t.Errorf("%s: read as %s, want %s", p, got, tools[pkg])
		}
		seen[pkg]++
	}
	for pkg := range tools {
		if seen[pkg] < 2 {
			t.Errorf("%s: %d published outputs, want at least 2", pkg, seen[pkg])
		}
	}
}

// TestFixtures imports every fixture, detecting its tool from the content:
// the ones not damaged without any error, the damaged ones with an error
// per line they cannot read and the records of the others.
func TestFixtures(t *testing.T) {
	files := fixtureFiles(t)
	if len(files) < 100 {
		t.Fatalf("only %d fixtures under %s", len(files), fixtureDir)
	}
	for _, p := range files {
		rel, _ := filepath.Rel(fixtureDir, p)
		t.Run(rel, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseFile(p, b, "")
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			dir := strings.Split(rel, string(filepath.Separator))[0]
			if got := f.Outputs[0].Tool; got != toolOf[dir] {
				t.Errorf("detected as %s, want %s", got, toolOf[dir])
			}
			probs := Problems([]*File{f})
			d, isDamaged := damaged[filepath.ToSlash(rel)]
			if !isDamaged {
				if len(probs) > 0 {
					t.Errorf("lines not read: %v", probs)
				}
				return
			}
			var lines []int
			for _, p := range probs {
				if !strings.HasPrefix(p.Error(), p.File+":") {
					t.Errorf("%q does not start with file:line", p.Error())
				}
				lines = append(lines, p.Line)
			}
			if len(lines) != len(d.lines) || len(lines) > 0 && lines[0] != d.lines[0] {
				t.Errorf("lines not read %v, want %v: %v", lines, d.lines, probs)
			}
			if f.Records() != d.records {
				t.Errorf("%d records kept, want %d", f.Records(), d.records)
			}
		})
	}
}

func TestReadFilesError(t *testing.T) {
	files, err := ReadFiles([]string{
		filepath.Join(fixtureDir, "osu/pkb-osu_bw-v5.7.1-intelmpi-debug-trimmed.txt"),
		filepath.Join(fixtureDir, "iperf3/json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json"),
	}, "")
	var ie *Error
	if !errors.As(err, &ie) || len(files) != 2 || len(ie.Lines) != 1 ||
		!strings.HasPrefix(ie.Error(), "1 line could not be read: testdata/fixtures/iperf3/json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json:351: ") {
		t.Fatalf("%v", err)
	}
	// A file no format knows is an error of the whole import.
	tmp := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(tmp, []byte("hello\nworld\n"), 0o644)
	if _, err := ReadFiles([]string{tmp}, ""); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("unknown file: %v", err)
	}
	// --tool overrides detection; an unknown tool lists the known ones.
	if _, err := ReadFiles([]string{tmp}, "nvbandwidth"); err == nil {
		t.Error("nvbandwidth read plain text")
	}
	if _, err := Lookup("iperf"); err == nil || !strings.Contains(err.Error(), "iperf3") {
		t.Errorf("%v", err)
	}
}

// The NCCL log inside an nccl-tests output is read with it.
func TestNCCLLogAlongside(t *testing.T) {
	p := filepath.Join(fixtureDir, "nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt")
	b, _ := os.ReadFile(p)
	f, err := ParseFile(p, b, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Outputs) != 2 || f.Outputs[1].Path == nil || f.Outputs[1].Path.Path != "rdma" || f.Outputs[1].Path.Line != 50 {
		t.Fatalf("%+v", f.Outputs)
	}
}

func TestWriteReadRun(t *testing.T) {
	names := []string{
		"nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt",
		"perftest/dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt",
		"ibstat/nersc-8hca-mlx5-mixed-ib-eth.txt",
	}
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(fixtureDir, n))
	}
	files, err := ReadFiles(paths, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m, err := WriteRun(dir, files, Meta{Version: "test", Time: at, Command: "gpupath import ..."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteRun(dir, files, Meta{Time: at}); !errors.Is(err, ErrRunExists) {
		t.Errorf("second write: %v", err)
	}
	if len(m.Probes) != 3 || m.Probes[0].Name != "nccl-tests" || m.Probes[0].Results != 26 || m.Probes[1].Status != record.StatusFailed ||
		!strings.Contains(m.Probes[1].Reason, "dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt:") || m.Probes[2].Results != 0 {
		t.Errorf("%+v", m.Probes)
	}
	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Data.Results) != 26+16 || len(run.Data.Skipped) != 0 || len(run.Files) != 3 || run.Files[0].NCCL == nil ||
		run.Files[0].NCCL.Path.Path != "rdma" || run.Data.Manifest.Host.Hostname != "MOC-R4PCC04U37" {
		t.Fatalf("%d results, %d files, host %+v", len(run.Data.Results), len(run.Files), run.Data.Manifest.Host)
	}
	r := run.Data.Results[0]
	// nccl-tests line 56: 1073741824 B in 71024 µs at 15.12 GB/s (algbw), busbw 15.12.
	if r.Probe != "nccl-tests" || r.Variant != "all_reduce_perf out-of-place" || r.Bytes != 1073741824 || math.Abs(r.MedianS-71024e-6) > 1e-15 ||
		r.ThroughputBps != 15.12e9 || r.Extra["bus_rate_Bps"] != 15.12e9 || !strings.HasPrefix(r.Note, "moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt:56;") {
		t.Errorf("%+v", r)
	}
	// nccl-tests prints no minimum and no tail: left out, not written as 0.
	if r.MinS != 0 || r.P99S != 0 {
		t.Errorf("min %g, p99 %g: nccl-tests prints neither", r.MinS, r.P99S)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, record.ResultsFile))
	if bytes.Contains(raw, []byte(`"min_s":0,`)) || bytes.Contains(raw, []byte(`"p99_s":0,`)) {
		t.Errorf("an unknown minimum or p99 written as 0:\n%.400s", raw)
	}
	if _, err := FromRunData(&record.RunData{Dir: "x", Manifest: record.Manifest{Tool: "gpupath"}}); !errors.Is(err, ErrNotImported) {
		t.Errorf("%v", err)
	}
}

// BenchmarkImportFixtures imports the whole fixture directory (reading,
// detecting, parsing; the target is under 2 s).
func BenchmarkImportFixtures(b *testing.B) {
	paths := fixtureFiles(b)
	contents := make([][]byte, len(paths))
	for i, p := range paths {
		contents[i], _ = os.ReadFile(p)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := ReadFiles(paths, ""); err != nil {
			var ie *Error
			if !errors.As(err, &ie) {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(paths)), "files")
}

// FuzzParseFile checks that detection and parsing never panic on any
// input and that what comes back passes validation.
func FuzzParseFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := ParseFile("fuzz.txt", b, "")
		if err != nil {
			return
		}
		for _, o := range file.Outputs {
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// No import records a number no transfer takes: every fixture with each
// decimal number made 9e99 (or 9e-99) gives records only of physical
// times and rates, and each line it refused is a problem with its line.
func TestUnphysicalNumbersAreProblems(t *testing.T) {
	dec := regexp.MustCompile(`(?:^|[^\w.])(\d+\.\d+)(?:[^\w.]|$)`)
	for _, p := range append(fixtureFiles(t), publishedFiles(t)...) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, huge := range []string{"9e99", "9e-99"} {
			mut := dec.ReplaceAllStringFunc(string(raw), func(m string) string {
				sub := dec.FindStringSubmatchIndex(m)
				return m[:sub[2]] + huge + m[sub[3]:]
			})
			f, err := ParseFile(p, []byte(mut), "")
			if err != nil {
				continue
			}
			err = f.EachRecord(func(o *obs.Output, r *obs.Record) error {
				for _, v := range []float64{r.Time, r.Min, r.Max, r.P50, r.P99} {
					if v != 0 && !units.PhysicalTime(v) {
						return fmt.Errorf("line %d: time %g recorded", r.Line, v)
					}
				}
				for _, v := range []float64{r.Rate, r.BusRate} {
					if v != 0 && !units.PhysicalRate(v) {
						return fmt.Errorf("line %d: rate %g recorded", r.Line, v)
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("%s with %s: %v", filepath.Base(p), huge, err)
			}
		}
	}
}
