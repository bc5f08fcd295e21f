//go:build !cgo

package nvmlsrc

import "github.com/gpupath/gpupath/pkg/doctor"

// New returns a source that has nothing: go-nvml needs cgo.
func New() doctor.GPUSource {
	return doctor.NoGPUSource{Why: "NVML needs cgo (go-nvml); this binary was built with CGO_ENABLED=0"}
}
