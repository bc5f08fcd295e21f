package nvlink

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// fx is the format's fixtures: no shared directory exists for this tool, so
// all its outputs are local, in testdata/published.
var fx = importtest.Format{Tool: "nvidia-smi-nvlink", Only: []string{}, Local: "published", Detect: Detect, Parse: Parse}

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

func TestHandRead(t *testing.T) {
	// H100 PCIe pair: 18 links each, 6 of them inactive, 26.562 GB/s = 26.562e9 B/s.
	o := fx.Output(t, "published/hpe-dl380a-2xh100pcie-status-inactive.txt")
	if len(o.Records) != 24 || len(o.Problems) != 0 || o.Command != "nvidia-smi nvlink -s" {
		t.Fatalf("%d records, problems %v, command %q", len(o.Records), o.Problems, o.Command)
	}
	r := o.Records[0]
	if r.Line != 3 || r.Target != "GPU0 link 0" || r.Rate != 26.562e9 || r.Metric != obs.Bandwidth || r.Test != "nvlink-status" ||
		r.Variant != "line rate" || r.Extra["gpu"] != 0 || r.Extra["link"] != 0 {
		t.Errorf("%+v", r)
	}
	if r := o.Records[12]; r.Target != "GPU1 link 0" || r.Line != 22 {
		t.Errorf("%+v", r)
	}
	if len(o.Hardware.GPUs) != 2 || o.Hardware.GPUs[1] != "NVIDIA H100 PCIe" || o.Hardware.Lines["gpus"] != 2 || !o.Hardware.MemoryGPU {
		t.Errorf("%+v", o.Hardware)
	}
	if len(o.Notes) != 2 || o.Notes[0] != "GPU0 (line 2): links 4, 5, 10, 11, 16, 17 inactive" {
		t.Errorf("%q", o.Notes)
	}
	// V100 (NVLink 2): 25.781 GB/s; a header without a UUID; "...." is a cut.
	o = fx.Output(t, "published/azhpc-issue73-v100-status-inactive-trimmed.txt")
	if len(o.Records) != 4 || o.Records[3].Target != "GPU3 link 4" || o.Records[3].Rate != 25.781e9 || o.Hardware.GPUs[0] != "Tesla V100-SXM2-32GB" ||
		len(o.Problems) != 0 || len(o.Notes) != 2 || !strings.Contains(o.Notes[0], "cut") || o.Notes[1] != "GPU3 (line 3): links 3, 5 inactive" {
		t.Errorf("%+v %q %v", o.Records, o.Notes, o.Problems)
	}
	// GB200 (NVLink 5): 53.125 GB/s.
	o = fx.Output(t, "published/k8s-test-infra-issue371-gb200-status-trimmed.txt")
	if len(o.Records) != 20 || o.Records[19].Rate != 53.125e9 || o.Records[19].Target != "GPU1 link 1" || o.Records[19].Line != 23 {
		t.Errorf("%d %+v", len(o.Records), o.Records[len(o.Records)-1])
	}
	// -gt d: KiB sums times 1024, as notes; no records.
	o = fx.Output(t, "published/llm-action-h800-gpu0-gt-d-idle.txt")
	var tx, rx int64
	for _, l := range obs.Lines(fx.Read(t, "published/llm-action-h800-gpu0-gt-d-idle.txt")) {
		if m := counterRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			v := atoi(t, m[4])
			if m[3] == "Tx" {
				tx += v
			} else {
				rx += v
			}
		}
	}
	if tx != 46904218 {
		t.Errorf("tx KiB %d", tx)
	}
	if len(o.Records) != 0 || len(o.Notes) != 1 || len(o.Problems) != 0 || o.Command != "nvidia-smi nvlink -i 0 -gt d" ||
		!strings.Contains(o.Notes[0], "tx 48029919232 bytes") || !strings.Contains(o.Notes[0], "8 link(s) from line 3") ||
		!strings.Contains(o.Notes[0], "rx "+strconv.FormatInt(rx*1024, 10)+" bytes") {
		t.Errorf("%q %v", o.Notes, o.Problems)
	}
	// -gt r: protocol overhead counters, with the author's cut.
	o = fx.Output(t, "published/llm-action-8xh800-gt-r-trimmed.txt")
	if len(o.Hardware.GPUs) != 5 || len(o.Notes) != 6 || !strings.Contains(o.Notes[1], "GPU0: payload and protocol overhead (-gt r)") {
		t.Errorf("%v %q", o.Hardware.GPUs, o.Notes)
	}
	// -c: capabilities counted per GPU.
	o = fx.Output(t, "published/llm-action-8xh800-capabilities-trimmed.txt")
	if len(o.Records) != 0 || len(o.Problems) != 0 || o.Command != "nvidia-smi nvlink --capabilities" ||
		!strings.Contains(o.Notes[1], "GPU0: capabilities from line 3 (links true/listed): P2P is supported 8/8;") ||
		!strings.Contains(o.Notes[1], "Link is supported 0/8") {
		t.Errorf("%q", o.Notes)
	}
	// Tabs ("\t Link 0: ...") as older drivers print them.
	o = fx.Output(t, "published/aicloud-dgx2-v100-gt-d-start-trimmed.txt")
	if len(o.Problems) != 0 || len(o.Notes) != 3 || !strings.Contains(o.Notes[2], "tx 19702806528 bytes, rx 19717648384 bytes") {
		t.Errorf("%q %v", o.Notes, o.Problems)
	}
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDetectNegatives: `nvidia-smi topo -m` (the shared fixtures), plain
// nvidia-smi and `nvidia-smi nvlink -R` are not this format.
func TestDetectNegatives(t *testing.T) {
	dirs := []string{filepath.Join(importtest.Shared, "nvidia-smi-topo"), filepath.Join("testdata", "negative")}
	n := 0
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			n++
			if Detect(b) {
				t.Errorf("%s/%s detected", dir, e.Name())
			}
		}
	}
	if n < 6 {
		t.Errorf("only %d negatives", n)
	}
}

func TestNotRecognized(t *testing.T) {
	for _, in := range []string{"", "\n\n", "hello\nworld\n", "\x00\xff\xfe garbage", "GPU0     X      NV12\n"} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), obs.ErrNotRecognized.Error()) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestTruncated: an output cut anywhere parses without panicking, keeps
// the records of its whole lines, and invents nothing.
func TestTruncated(t *testing.T) {
	b := fx.Read(t, "published/hpe-dl380a-2xh100pcie-status-inactive.txt")
	for cut := 0; cut <= len(b); cut++ {
		o, err := Parse(b[:cut])
		if err != nil {
			continue
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		for _, r := range o.Records {
			if r.Rate != 26.562e9 && r.Rate != 26.56e9 && r.Rate != 26.5e9 && r.Rate != 26e9 && r.Rate != 2e9 {
				t.Fatalf("cut %d: rate %v", cut, r.Rate)
			}
		}
	}
	// Cut in the middle of a number: "26.5" is read as printed, "26." is a problem.
	o, err := Parse([]byte("GPU 0: X\n Link 0: 26. GB/s\n Link 1: Data Tx: 12x KiB\n Link 2: fast\n"))
	if err != nil || len(o.Records) != 0 || len(o.Problems) != 3 || o.Problems[0].Line != 2 || o.Problems[2].Line != 4 {
		t.Errorf("%v %+v", err, o)
	}
}

func TestGarbage(t *testing.T) {
	in := "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n\t Link 0: 26.562 GB/s\n\x00\x01junk\n\t Link 1: 0 GB/s\n\t Link 2: Not Supported\n" +
		"\t Link 3: Replay Errors: 0\nGPU 99999999999999999999: Y\n\t Link 99999999999999999999: 1 GB/s\n"
	o, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 1 || o.Records[0].Line != 2 {
		t.Errorf("%+v", o.Records)
	}
	lines := []int{}
	for _, p := range o.Problems {
		lines = append(lines, p.Line)
	}
	if len(lines) != 4 || lines[0] != 3 || lines[1] != 6 || lines[2] != 7 || lines[3] != 8 {
		t.Errorf("%+v", o.Problems)
	}
	if len(o.Notes) != 2 || !strings.Contains(o.Notes[0], "link 1 at 0 GB/s") || !strings.Contains(o.Notes[1], "not supported (2)") {
		t.Errorf("%q", o.Notes)
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }
