//go:build cgo && nvml

package nvmlsrc

import (
	"errors"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/measure/gpu"
	"github.com/gpupath/gpupath/pkg/record"
)

// Source reads the GPU inventory from NVML.
type Source struct {
	// Lib is the NVML library; nil means nvml.New() (libnvidia-ml.so.1,
	// loaded when Init is called).
	Lib nvml.Interface
}

// New returns NVML as a doctor GPU source.
func New() doctor.GPUSource { return Source{} }

// GPUInventory initialises NVML, reads the inventory (the nvml probe's:
// gpu.ReadGPUInventory) and shuts NVML down. An Init failure (no library,
// no driver) is returned as the error, and nothing else is called; so is
// an NVML that sees no GPU.
func (s Source) GPUInventory() (*record.GPUInventory, error) {
	lib := s.Lib
	if lib == nil {
		lib = nvml.New()
	}
	inv, err := gpu.ReadGPUInventory(lib)
	if err != nil {
		if errors.Is(err, measure.ErrUnavailable) {
			// "not measured: NVML: Init: ..." reads oddly in a diagnosis.
			return nil, errors.New(strings.TrimPrefix(err.Error(), measure.ErrUnavailable.Error()+": "))
		}
		return nil, err
	}
	return inv, nil
}
