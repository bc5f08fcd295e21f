//go:build cgo && nvml

package nvmlsrc

import (
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/gpupath/gpupath/pkg/record"
)

// An Init failure is the error, and nothing else is called (the mock's
// other functions are nil and would panic).
func TestInitFailure(t *testing.T) {
	lib := &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }}
	g, err := Source{Lib: lib}.GPUFacts()
	if err == nil || g != nil || !strings.Contains(err.Error(), "ERROR_LIBRARY_NOT_FOUND") {
		t.Fatalf("got %v, %v", g, err)
	}
}

// Convert keeps the GPUs, links and pair classes (the two-GPU H200 machine
// of ENVIRONMENT.md: NV18 both ways).
func TestConvert(t *testing.T) {
	inv := &record.GPUInventory{DriverVersion: "580.159.04", NVMLVersion: "13.580.159.04",
		Devices: []record.GPUDevice{
			{Index: 0, Name: "NVIDIA H200", PCIBusID: "0000:00:05.0", PCIeGenCurrent: 1, PCIeWidthCurrent: 16, PCIeGenMax: 5, PCIeWidthMax: 16,
				NVLinks: []record.GPUNVLink{{Link: 0, Active: true, Version: 4, RemoteBusID: "0000:00:06.0", RemoteType: "gpu"}, {Link: 1, Active: false}}},
			{Index: 1, Name: "NVIDIA H200", PCIBusID: "0000:00:06.0"}},
		Matrix: [][]string{{"X", "NV18"}, {"NV18", "X"}},
		P2P:    []record.GPUP2P{{From: 0, To: 1, Read: "OK", Write: "OK", NVLink: "OK"}, {From: 1, To: 0, Read: "OK"}}}
	g := Convert(inv)
	if g.Via != "NVML 13.580.159.04" || g.DriverVersion != "580.159.04" || len(g.GPUs) != 2 {
		t.Fatalf("%+v", g)
	}
	if d := g.GPUs[0]; d.BusID != "0000:00:05.0" || d.PCIeGenMax != 5 || len(d.NVLinks) != 2 || d.ActiveLinks() != 1 || d.NVLinks[0].Version != 4 {
		t.Errorf("gpu0 %+v", d)
	}
	if len(g.Pairs) != 2 || g.Pairs[0].Class != "NV18" || g.Pairs[0].P2PNVLink != "OK" || g.Pairs[1].Class != "NV18" {
		t.Errorf("pairs %+v", g.Pairs)
	}
}
