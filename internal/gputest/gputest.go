// Package gputest builds the stand-ins for the GPU libraries that the tests
// of the GPU probes, of the CUDA binding and of the command line run
// against: testdata/cudastub/cuda_stub.c for libcuda.so.1 and
// testdata/nvmlstub/nvml_stub.c for libnvidia-ml.so.1, C libraries with the
// real ABI names and signatures (hand-written; see the comments in each).
// Tests use them so that the purego binding and go-nvml's cgo path run for
// real without a GPU. It is for tests only and needs a C compiler (gcc);
// without one the test is skipped.
package gputest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ebitengine/purego"
)

// dir is this package's directory, where testdata lives.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// build compiles testdata/<name>/<src> into a shared library lib in a
// temporary directory of t and returns its path.
func build(t testing.TB, name, src, lib string) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("no C compiler to build the %s stub: %v", name, err)
	}
	out := filepath.Join(t.TempDir(), lib)
	b, err := exec.Command(cc, "-shared", "-fPIC", "-Wall", "-o", out, filepath.Join(dir(), "testdata", name, src)).CombinedOutput()
	if err != nil {
		t.Fatalf("building the %s stub: %v\n%s", name, err, b)
	}
	return out
}

// CUDAStub compiles the stand-in for libcuda.so.1 and returns its path:
// two GPUs, peer access, a thread-bound current context, and knobs in the
// environment (CUDASTUB_NDEV, CUDASTUB_NO_DEVICE, CUDASTUB_FAIL=function,
// CUDASTUB_HOST_LIMIT=bytes).
func CUDAStub(t testing.TB) string { return build(t, "cudastub", "cuda_stub.c", "libcuda.so.1") }

// NVMLStub compiles the stand-in for libnvidia-ml.so.1 and returns its
// path: two H200s joined by NV18, PCIe counters at NVMLSTUB_KBPS.
func NVMLStub(t testing.TB) string { return build(t, "nvmlstub", "nvml_stub.c", "libnvidia-ml.so.1") }

// CUDAStubState reads the CUDA stub at path (loaded by the test already):
// how many of its objects (contexts retained, buffers, streams, events) are
// live, and how many times each device's primary context is retained.
func CUDAStubState(t testing.TB, path string) (live uintptr, retained []uintptr) {
	t.Helper()
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatal(err)
	}
	sym := func(name string) uintptr {
		a, err := purego.Dlsym(h, name)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	live, _, _ = purego.SyscallN(sym("cudastub_live"))
	r := sym("cudastub_retained")
	for d := uintptr(0); d < 2; d++ {
		n, _, _ := purego.SyscallN(r, d)
		retained = append(retained, n)
	}
	return live, retained
}
