//go:build !cgo || !nvml

package nvmlsrc

import "github.com/gpupath/gpupath/pkg/doctor"

// New returns a source that has nothing: NVML (go-nvml) is built in only
// with cgo and -tags nvml.
func New() doctor.GPUSource {
	return doctor.NoGPUSource{Why: "NVML is not built in: rebuild with go build -tags nvml ./cmd/gpupath"}
}
