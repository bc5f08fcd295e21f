//go:build cgo && nvml

package nvmlsrc

import (
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// An Init failure is the error, and nothing else is called (the mock's
// other functions are nil and would panic).
func TestInitFailure(t *testing.T) {
	lib := &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }}
	g, err := Source{Lib: lib}.GPUInventory()
	if err == nil || g != nil || !strings.Contains(err.Error(), "ERROR_LIBRARY_NOT_FOUND") {
		t.Fatalf("got %v, %v", g, err)
	}
}

// An NVML without GPUs is an error too, without the "not measured: "
// of the probe: doctor's GPU source line reads "none: NVML sees no GPU".
func TestNoGPU(t *testing.T) {
	lib := &mock.Interface{
		InitFunc:                       func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:                   func() nvml.Return { return nvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return "580.159.04", nvml.SUCCESS },
		SystemGetNVMLVersionFunc:       func() (string, nvml.Return) { return "13.580.159.04", nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return 13000, nvml.SUCCESS },
		DeviceGetCountFunc:             func() (int, nvml.Return) { return 0, nvml.SUCCESS },
	}
	g, err := Source{Lib: lib}.GPUInventory()
	if g != nil || err == nil || err.Error() != "NVML sees no GPU" {
		t.Errorf("got %+v, %v", g, err)
	}
}
