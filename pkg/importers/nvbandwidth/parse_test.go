package nvbandwidth

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared nvbandwidth outputs and a -j
// document written by hand (testdata/handwritten).
var fx = importtest.Format{Tool: "nvbandwidth", Local: "handwritten", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

func TestHandRead(t *testing.T) {
	// One A100, v0.8: 25.13 GB/s host to device, 512 MiB default buffer.
	o := fx.Output(t, "issue42-v0.8-a100-1gpu-host_to_device_memcpy_sm-b512.txt")
	r := o.Records[0]
	if len(o.Records) != 1 || r.Test != "host_to_device_memcpy_sm" || r.Target != "CPU0 -> GPU0" || !near(r.Rate, 25.13e9) ||
		r.Bytes != 512<<20 || r.Line != 13 || r.Variant != "memcpy SM" || o.Hardware.GPUs[0] != "NVIDIA A100-SXM4-40GB" {
		t.Errorf("%+v %+v", r, o.Hardware)
	}
	// README excerpt: no version, so no size; the 0.00 diagonal is not a record; "<-": column to row.
	o = fx.Output(t, "readme-d2d_memcpy_write_ce-8gpu-matrix-excerpt.txt")
	if len(o.Records) != 56 || o.Records[0].Bytes != 0 || o.Records[0].Target != "GPU1 -> GPU0" || o.Records[0].Path != "gpu-peer" {
		t.Errorf("%d records, first %+v", len(o.Records), o.Records[0])
	}
	// Damaged: the "..." line is a problem with its line; the matrix is kept and named by the SUM line.
	o = fx.Output(t, "issue50-v0.8-a6000x6-pcie-d2d_read_ce-ELIDED.txt")
	if len(o.Problems) != 1 || o.Problems[0].Line != 8 || len(o.Records) != 30 || o.Records[0].Test != "device_to_device_memcpy_read_ce" {
		t.Errorf("problems %v, %d records, %+v", o.Problems, len(o.Records), o.Records[0])
	}
	// The run failed: nvbandwidth's error lines, no records.
	o = fx.Output(t, "issue34-v0.7-a100x8-d2d_read_ce-ASSERT-failure.txt")
	if len(o.Records) != 0 || len(o.Failures) != 2 || o.Failures[1].Line != 20 || len(o.Hardware.GPUs) != 8 {
		t.Errorf("failures %v, %d records", o.Failures, len(o.Records))
	}
	// Hand-written -j document.
	o = fx.Output(t, "handwritten/j-v0.8-2xH200-h2d-d2h-d2d.json")
	if len(o.Records) != 6 || o.Records[4].Target != "GPU0 -> GPU1" || o.Records[2].Target != "GPU0 -> CPU0" || len(o.Hardware.Hosts) != 1 {
		t.Errorf("%+v", o.Records)
	}
	if r := o.Records[1]; r.Test != "host_to_device_memcpy_ce" || r.Target != "CPU0 -> GPU1" || !near(r.Rate, 55.31e9) || r.Bytes != 512<<20 {
		t.Errorf("%+v", r)
	}
}

func TestDefaultBufferSize(t *testing.T) {
	for v, want := range map[string]int64{"v0.8": 512 << 20, "v0.7": 512 << 20, "v0.6": 64 << 20, "v0.4": 64 << 20, "1.0": 512 << 20} {
		if got, ok := DefaultBufferSize(v); !ok || got != want {
			t.Errorf("%s: %d", v, got)
		}
	}
	if _, ok := DefaultBufferSize(""); ok {
		t.Error("empty version")
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }
