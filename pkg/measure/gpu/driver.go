package gpu

import (
	"errors"
	"os"

	"github.com/gpupath/gpupath/internal/cuda"
	"github.com/gpupath/gpupath/pkg/measure"
)

// LibCUDAEnv names the environment variable that points the CUDA probes at
// another driver library than libcuda.so.1 (a path): for a driver installed
// out of the loader's path, or the stub library of the tests.
const LibCUDAEnv = "GPUPATH_LIBCUDA"

// LibNVMLEnv names the environment variable that points the NVML probe and
// the PCIe monitor at another NVML library than libnvidia-ml.so.1 (a path).
const LibNVMLEnv = "GPUPATH_LIBNVML"

// openDriver loads the CUDA driver through open, or when open is nil the
// library $GPUPATH_LIBCUDA names, else libcuda.so.1. A driver that cannot
// be loaded is an ordinary outcome: ErrUnavailable with the reason.
func openDriver(open func() (cuda.Driver, error)) (cuda.Driver, error) {
	if open == nil {
		open = func() (cuda.Driver, error) {
			if lib := os.Getenv(LibCUDAEnv); lib != "" {
				return cuda.OpenAt(lib)
			}
			return cuda.Open()
		}
	}
	d, err := open()
	if err != nil && !errors.Is(err, measure.ErrUnavailable) {
		err = measure.Unavailable("%v", err)
	}
	return d, err
}

// initDriver calls cuInit and counts the devices; no driver or no device
// is ErrUnavailable. It runs on the thread that will make the calls.
func initDriver(drv cuda.Driver) (int, error) {
	if err := drv.Init(); err != nil {
		if errors.Is(err, cuda.ErrorNoDevice) {
			return 0, measure.Unavailable("no CUDA device: %v", err)
		}
		return 0, measure.Unavailable("CUDA driver does not initialise: %v", err)
	}
	n, err := drv.DeviceCount()
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, measure.Unavailable("no CUDA device (cuDeviceGetCount = 0)")
	}
	return n, nil
}
