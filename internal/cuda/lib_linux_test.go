//go:build linux

package cuda

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
	"github.com/gpupath/gpupath/internal/gputest"
)

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
	path := gputest.CUDAStub(t)
	l, err := openLib(path)
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
		if _, err := l.Device(7); !errors.Is(err, Result(101)) {
			t.Errorf("Device(7) = %v", err)
		}
		// Without a current context the stub, like the driver, refuses.
		_, err = l.MemAlloc(64)
		var ce *Error
		if !errors.As(err, &ce) || ce.Result != ErrorInvalidContext || ce.Func != "cuMemAlloc_v2" || ce.Desc != "invalid device context" {
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

// TestOpenFailures: a missing library, and one that lacks symbols, are
// refused with the reason before anything is called.
func TestOpenFailures(t *testing.T) {
	if _, err := OpenAt(filepath.Join(t.TempDir(), "libcuda.so.1")); err == nil || !strings.Contains(err.Error(), "no CUDA driver: cannot load") {
		t.Errorf("missing library: %v", err)
	}
	// A library that lacks a symbol is refused before anything is called.
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	src := filepath.Join(t.TempDir(), "partial.c")
	os.WriteFile(src, []byte("int cuInit(unsigned f) { return 0; }\n"), 0o644)
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	_, err = OpenAt(lib)
	if err == nil || !strings.Contains(err.Error(), "lacks cuDriverGetVersion") || !strings.Contains(err.Error(), "cuMemAlloc_v2") {
		t.Errorf("partial library: %v", err)
	}
}
