//go:build linux

package measure

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ebitengine/purego"

	"github.com/gpupath/gpupath/pkg/record"
)

// buildCUDAStub compiles testdata/cudastub/cuda_stub.c, a stand-in for
// libcuda.so.1 with the real ABI names and signatures, so that the purego
// binding (argument passing, out-parameters, versioned symbols, status
// handling, the thread-bound current context) is tested without a GPU.
func buildCUDAStub(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("no C compiler to build the CUDA stub: %v", err)
	}
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	out, err := exec.Command(cc, "-shared", "-fPIC", "-Wall", "-o", lib, filepath.Join("testdata", "cudastub", "cuda_stub.c")).CombinedOutput()
	if err != nil {
		t.Fatalf("building the stub: %v\n%s", err, out)
	}
	return lib
}

type stubHelpers struct {
	live, retained, sum, fill uintptr
}

func stubSyms(t *testing.T, l *cudaLib) stubHelpers {
	var h stubHelpers
	for name, p := range map[string]*uintptr{"cudastub_live": &h.live, "cudastub_retained": &h.retained, "cudastub_sum": &h.sum, "cudastub_fill": &h.fill} {
		a, err := purego.Dlsym(l.handle, name)
		if err != nil {
			t.Fatal(err)
		}
		*p = a
	}
	return h
}

func onLockedThread(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		f()
	}()
	<-done
}

func TestCUDABindingAgainstStub(t *testing.T) {
	path := buildCUDAStub(t)
	l, err := openCUDAAt(path)
	if err != nil {
		t.Fatal(err)
	}
	h := stubSyms(t, l)
	onLockedThread(t, func() {
		if err := l.Init(); err != nil {
			t.Fatal(err)
		}
		v, err := l.DriverVersion()
		if err != nil || v != 13000 {
			t.Errorf("DriverVersion = %d, %v", v, err)
		}
		n, _ := l.DeviceCount()
		d, _ := l.Device(1)
		name, _ := l.DeviceName(d)
		bus, _ := l.DevicePCIBusID(d)
		mem, _ := l.DeviceTotalMem(d)
		if n != 2 || d != 1 || name != "Stub GPU 1" || bus != "0000:19:00.0" || mem != 80<<30 {
			t.Errorf("devices: %d %d %q %q %d", n, d, name, bus, mem)
		}
		if _, err := l.Device(7); !errors.Is(err, CUresult(101)) {
			t.Errorf("Device(7) = %v", err)
		}
		// Without a current context the stub, like the driver, refuses.
		_, err = l.MemAlloc(64)
		var ce *CUDAError
		if !errors.As(err, &ce) || ce.Result != CUDAErrorInvalidContext || ce.Func != "cuMemAlloc_v2" || ce.Desc != "invalid device context" {
			t.Errorf("no context: %v", err)
		}
		c, err := l.PrimaryCtxRetain(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.CtxSetCurrent(c); err != nil {
			t.Fatal(err)
		}
		const n4 = 1 << 20
		dp, err := l.MemAlloc(n4)
		if err != nil {
			t.Fatal(err)
		}
		hp, err := l.MemAllocHost(n4)
		if err != nil {
			t.Fatal(err)
		}
		// Data moves: device filled with 3, copied to the host buffer.
		if err := l.MemsetD8(dp, 3, n4); err != nil {
			t.Fatal(err)
		}
		if err := l.MemcpyDtoH(hp, dp, n4); err != nil {
			t.Fatal(err)
		}
		if s, _, _ := purego.SyscallN(h.sum, hp, n4); s != 3*n4 {
			t.Errorf("D2H moved %d, want %d", s, 3*n4)
		}
		purego.SyscallN(h.fill, hp, 5, n4)
		st, err := l.StreamCreate()
		if err != nil {
			t.Fatal(err)
		}
		e0, _ := l.EventCreate()
		e1, _ := l.EventCreate()
		if err := l.EventRecord(e0, st); err != nil {
			t.Fatal(err)
		}
		if err := l.MemcpyHtoDAsync(dp, hp, n4, st); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		l.EventRecord(e1, st)
		l.EventSynchronize(e1)
		el, err := l.EventElapsed(e0, e1)
		if err != nil || el < 1e-3 || el > 1 {
			t.Errorf("EventElapsed = %v s, %v (float out-parameter)", el, err)
		}
		if err := l.MemcpyDtoH(hp, dp, 16); err != nil {
			t.Fatal(err)
		}
		if s, _, _ := purego.SyscallN(h.sum, hp, 16); s != 5*16 {
			t.Errorf("H2D async moved %d", s)
		}
		for _, f := range []func() error{
			func() error { return l.EventDestroy(e0) }, func() error { return l.EventDestroy(e1) },
			func() error { return l.StreamDestroy(st) }, func() error { return l.MemFreeHost(hp) },
			func() error { return l.MemFree(dp) }, func() error { return l.PrimaryCtxRelease(0) },
		} {
			if err := f(); err != nil {
				t.Error(err)
			}
		}
		if live, _, _ := purego.SyscallN(h.live); live != 0 {
			t.Errorf("%d stub objects still live", live)
		}
	})
}

// TestCUDAProbeAgainstStub runs the whole probe through the real purego
// binding on the stub: two GPUs, peer access, every variant.
func TestCUDAProbeAgainstStub(t *testing.T) {
	path := buildCUDAStub(t)
	t.Setenv("CUDASTUB_HOST_LIMIT", "65536") // pinned memory for 64 KiB at most
	p := &CUDACopy{Open: func() (CUDADriver, error) { return openCUDAAt(path) },
		PCIe: func(string) (PCIeMonitor, error) { return nil, errors.New("no NVML with the stub") }}
	res, err := runCollect(t, p, Plan{Sizes: []int64{4, 64 << 10, 1 << 20}, Budget: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	inv := p.Inventory().(record.CUDAInventory)
	if len(inv.Devices) != 2 || inv.Devices[1].PCIBusID != "0000:19:00.0" || len(inv.Peers) != 2 || !inv.Peers[0].Enabled || !inv.Peers[1].Enabled {
		t.Errorf("inventory %+v", inv)
	}
	if inv.Capacity["pinned"] != 64<<10 || inv.Capacity["device"] != 1<<20 {
		t.Errorf("capacity %v", inv.Capacity)
	}
	if !strings.Contains(strings.Join(inv.Notes, "\n"), "h2d-pinned gpu0 1048576 B skipped") {
		t.Errorf("notes %v", inv.Notes)
	}
	variants := map[string]bool{}
	for _, r := range res {
		variants[r.Variant+" "+r.Target] = true
		if r.MedianS <= 0 || r.Iterations < 5 {
			t.Errorf("record %+v", r)
		}
	}
	for _, v := range []string{"h2d-pinned gpu0", "d2h-pinned-stream gpu0", "h2d-pageable gpu0", "d2d-stream gpu0", "peer gpu0->gpu1", "peer-stream gpu1->gpu0"} {
		if !variants[v] {
			t.Errorf("no records of %s (have %v)", v, variants)
		}
	}
	l, err := openCUDAAt(path)
	if err != nil {
		t.Fatal(err)
	}
	h := stubSyms(t, l)
	if live, _, _ := purego.SyscallN(h.live); live != 0 {
		t.Errorf("%d stub objects leaked", live)
	}
	for d := uintptr(0); d < 2; d++ {
		if n, _, _ := purego.SyscallN(h.retained, d); n != 0 {
			t.Errorf("context of device %d still retained %d times", d, n)
		}
	}
}

func TestCUDAStubErrors(t *testing.T) {
	path := buildCUDAStub(t)
	open := func() (CUDADriver, error) { return openCUDAAt(path) }
	t.Setenv("CUDASTUB_NO_DEVICE", "1")
	_, err := runCollect(t, &CUDACopy{Open: open}, Plan{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "cuInit: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected") {
		t.Errorf("no device: %v", err)
	}
	os.Unsetenv("CUDASTUB_NO_DEVICE")
	t.Setenv("CUDASTUB_FAIL", "cuMemcpyDtoH_v2")
	_, err = runCollect(t, &CUDACopy{Open: open, PCIe: func(string) (PCIeMonitor, error) { return nil, errors.New("none") }},
		Plan{Sizes: []int64{4}, Options: map[string]string{"variants": "d2h-pinned"}})
	if !errors.Is(err, CUDAErrorInvalidValue) || !strings.Contains(err.Error(), "cuMemcpyDtoH_v2: CUDA_ERROR_INVALID_VALUE (1): invalid argument") {
		t.Errorf("failing copy: %v", err)
	}
	if _, err := openCUDAAt(filepath.Join(t.TempDir(), "libcuda.so.1")); !errors.Is(err, ErrUnavailable) {
		t.Errorf("missing library: %v", err)
	}
	// A library that lacks a symbol is refused before anything is called.
	cc, _ := exec.LookPath("gcc")
	src := filepath.Join(t.TempDir(), "partial.c")
	os.WriteFile(src, []byte("int cuInit(unsigned f) { return 0; }\n"), 0o644)
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	_, err = openCUDAAt(lib)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "lacks cuDriverGetVersion") || !strings.Contains(err.Error(), "cuMemAlloc_v2") {
		t.Errorf("partial library: %v", err)
	}
}
