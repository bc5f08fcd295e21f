//go:build !linux

package cuda

import "errors"

// Open reports that the binding runs on Linux only.
func Open() (Driver, error) { return OpenAt(LibName) }

// OpenAt reports that the binding runs on Linux only.
func OpenAt(path string) (Driver, error) {
	return nil, errors.New("the CUDA probes run on Linux only")
}

// LibName is the driver library.
const LibName = "libcuda.so.1"

// AllocPageable reports that pageable buffers are implemented on Linux only.
func AllocPageable(n int64) (uintptr, func() error, error) {
	return 0, nil, errors.New("pageable buffers are implemented on Linux only")
}
