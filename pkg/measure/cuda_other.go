//go:build !linux

package measure

// OpenCUDA reports that the CUDA copy probe runs on Linux only.
func OpenCUDA() (CUDADriver, error) {
	return nil, Unavailable("the CUDA copy probe runs on Linux only")
}

func allocPageable(n int64) (uintptr, func() error, error) {
	return 0, nil, Unavailable("pageable buffers are implemented on Linux only")
}
