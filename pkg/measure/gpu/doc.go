// Package gpu holds the GPU probes of the runner in pkg/measure, and
// registers them with it when imported (cmd/gpupath imports it for that):
//
//   - "cuda" (CUDACopy, cudacopy.go): host↔device copies from pinned and
//     pageable memory, device-to-device and GPU-to-GPU peer copies, timed
//     by the wall clock and by CUDA events, synchronous and streamed, and a
//     sustained copy while NVML samples the PCIe counters;
//   - "staged" (Staged, staged.go): the seed's staged transfer on one host,
//     GPU → pinned host memory → TCP over loopback → host → GPU, store and
//     forward and pipelined in chunks, checked byte for byte;
//   - "nvml" (NVMLProbe, nvml.go): the GPUs as NVML sees them (PCIe links,
//     BAR1, NVLink, the topology matrix, P2P status, idle PCIe counters),
//     and the PCIe throughput monitor the cuda probe samples (pciemon.go).
//
// The CUDA driver API is called through purego (internal/cuda, one locked
// OS thread per side), NVML through go-nvml, and the staged transfer's
// sockets are internal/rawsock's.
//
// NVML is built in only with the build tag nvml (go build -tags nvml
// ./cmd/gpupath; cgo needed): go-nvml's cgo wrappers of NVML functions that
// nvml.h marks deprecated make the C compiler print about a hundred lines
// of warnings the first time the package is compiled, which no flag of this
// module can silence (cgo flags apply to their own package only), and a
// newcomer's first `go run ./cmd/gpupath report` must show gpupath's own
// output first. Without the tag the nvml probe is registered and reports
// "not measured" with the build command, and the cuda probe has no PCIe
// monitor; TestNVMLTagged runs the tagged build's vet and tests, so the
// default test run still covers them. A missing driver, library or GPU is
// reported as "not measured: reason" (measure.ErrUnavailable); GPUPATH_LIBCUDA
// and GPUPATH_LIBNVML point the probes at other libraries (the tests' stubs).
// The probes' inventories are pkg/record types, read back from manifests by
// everything downstream.
//
// It does not model, fit or draw anything, and does not write the run
// directory (the runner does). Only this package links go-nvml and purego:
// a program that reads runs or renders reports does not import it.
package gpu
