//go:build cgo && nvml && linux

package gpu

import (
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/ebitengine/purego"

	"github.com/gpupath/gpupath/internal/gputest"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

// stubCounters reads the stub's count of calls made while NVML was not
// initialised, and its init refcount.
func stubCounters(t *testing.T, path string) (bad, refs uintptr) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := purego.Dlsym(h, "nvmlstub_bad_calls")
	r, _ := purego.Dlsym(h, "nvmlstub_refcount")
	bad, _, _ = purego.SyscallN(b)
	refs, _, _ = purego.SyscallN(r)
	return bad, refs
}

func TestNVMLAgainstStub(t *testing.T) {
	path := gputest.NVMLStub(t)
	t.Setenv("NVMLSTUB_KBPS", "27000000")
	p := &NVMLProbe{Lib: nvml.New(nvml.WithLibraryPath(path))}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	res, err := runCollect(t, p, measure.Plan{Options: map[string]string{"nvml_idle": "100ms"}})
	if err != nil {
		t.Fatal(err)
	}
	inv := p.Inventory().(*record.GPUInventory)
	if len(inv.Devices) != 2 || inv.Matrix[0][1] != "NV18" || inv.MatrixBasis["0-1"] != "direct" || inv.DriverVersion != "580.159.04" {
		t.Fatalf("inventory %+v", inv)
	}
	d := inv.Devices[1]
	if d.PCIBusID != "0000:19:00.0" || d.PCIeGenMax != 5 || d.PCIeWidthMax != 16 || d.BAR1TotalBytes != 256<<30 ||
		d.ActiveNVLinks() != 18 || d.NVLinks[0].RemoteBusID != "0000:18:00.0" || d.NVLinks[0].RemoteType != "gpu" || d.IdleTxBps != 27e9 {
		t.Errorf("device %+v", d)
	}
	if len(inv.Warnings) != 0 || len(res) != 4 {
		t.Errorf("warnings %v, %d records", inv.Warnings, len(res))
	}

	// The monitor on its own library instance, as the cuda probe opens it.
	m, err := openNVMLMonitor(nvml.New(nvml.WithLibraryPath(path)), "0000:18:00.0")
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	time.Sleep(150 * time.Millisecond)
	gen, width, err := m.Link()
	samples := m.Stop()
	if err != nil || gen != 5 || width != 16 || len(samples) < 6 {
		t.Errorf("link gen%d x%d %v, %d samples", gen, width, err, len(samples))
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
	if bad, refs := stubCounters(t, path); bad != 0 || refs != 0 {
		t.Errorf("%d calls without Init, init refcount %d after all Shutdowns", bad, refs)
	}
}

// TestCUDAProbeWithNVMLStub runs the cuda probe through both stubs: the
// purego binding on the CUDA stub and the NVML monitor through go-nvml on
// the NVML stub, including the sustained check.
func TestCUDAProbeWithNVMLStub(t *testing.T) {
	cu, nv := gputest.CUDAStub(t), gputest.NVMLStub(t)
	t.Setenv("NVMLSTUB_KBPS", "50000000")
	p := &CUDACopy{
		Open: stubOpen(cu),
		PCIe: func(bus string) (PCIeMonitor, error) { return openNVMLMonitor(nvml.New(nvml.WithLibraryPath(nv)), bus) },
	}
	res, err := runCollect(t, p, measure.Plan{Sizes: []int64{4, 16 << 20}, Budget: 2 * time.Second,
		Options: map[string]string{"nvml_check": "300ms", "gpus": "0", "variants": "h2d-pinned-stream,d2h-pinned-stream"}})
	if err != nil {
		t.Fatal(err)
	}
	var sus []record.Result
	for _, r := range res {
		if strings.HasSuffix(r.Variant, "-sustained") {
			sus = append(sus, r)
		}
		if r.Variant == "h2d-pinned-stream" && r.Bytes == 16<<20 && r.Extra["nvml_rx_Bps"] != 50e9 {
			t.Errorf("stream record without NVML reading: %+v", r.Extra)
		}
	}
	if len(sus) != 2 || sus[0].Extra["nvml_rx_Bps"] != 50e9 || sus[1].Extra["nvml_tx_Bps"] != 50e9 ||
		sus[0].Extra["pcie_gen_load"] != 5 || sus[0].Extra["nvml_ratio"] <= 0 || sus[0].Extra["duration_s"] < 0.2 {
		t.Errorf("sustained records %+v", sus)
	}
	if bad, refs := stubCounters(t, nv); bad != 0 || refs != 0 {
		t.Errorf("NVML stub: %d calls without Init, refcount %d", bad, refs)
	}
}
