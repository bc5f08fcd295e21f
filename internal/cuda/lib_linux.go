//go:build linux

package cuda

import (
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	"github.com/ebitengine/purego"
)

// LibName is the driver library; the unversioned libcuda.so exists only
// where the development package is installed.
const LibName = "libcuda.so.1"

// cudaLib calls the CUDA driver API through purego: libcuda.so.1 is opened
// at run time, so neither the CUDA toolkit nor cgo is needed to build.
type cudaLib struct {
	handle uintptr
	sym    cudaSyms
}

// cudaSyms holds the address of every function used. Versioned names are
// the ABI the CUDA headers bind to since CUDA 3.2/4.0/11 (cuda.h maps
// cuMemAlloc to cuMemAlloc_v2 etc.); the unversioned ones are the old ABI.
type cudaSyms struct {
	cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString                    uintptr
	cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, cuDeviceGetPCIBusId             uintptr
	cuDeviceTotalMem, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease           uintptr
	cuCtxSetCurrent, cuCtxSynchronize, cuDeviceCanAccessPeer, cuCtxEnablePeerAccess uintptr
	cuMemAlloc, cuMemFree, cuMemAllocHost, cuMemFreeHost, cuMemsetD8                uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD, cuMemcpyPeer                          uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync, cuMemcpyPeerAsync      uintptr
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize                            uintptr
	cuEventCreate, cuEventDestroy, cuEventRecord, cuEventSynchronize                uintptr
	cuEventElapsedTime                                                              uintptr
}

type cudaSymbol struct {
	addr     *uintptr
	names    []string // tried in order
	optional bool
}

func (s *cudaSyms) table() []cudaSymbol {
	return []cudaSymbol{
		{&s.cuInit, []string{"cuInit"}, false},
		{&s.cuDriverGetVersion, []string{"cuDriverGetVersion"}, false},
		{&s.cuGetErrorName, []string{"cuGetErrorName"}, true},
		{&s.cuGetErrorString, []string{"cuGetErrorString"}, true},
		{&s.cuDeviceGetCount, []string{"cuDeviceGetCount"}, false},
		{&s.cuDeviceGet, []string{"cuDeviceGet"}, false},
		{&s.cuDeviceGetName, []string{"cuDeviceGetName"}, false},
		{&s.cuDeviceGetPCIBusId, []string{"cuDeviceGetPCIBusId"}, false},
		{&s.cuDeviceTotalMem, []string{"cuDeviceTotalMem_v2"}, false},
		{&s.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}, false},
		{&s.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, false},
		{&s.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}, false},
		{&s.cuCtxSynchronize, []string{"cuCtxSynchronize"}, false},
		{&s.cuDeviceCanAccessPeer, []string{"cuDeviceCanAccessPeer"}, false},
		{&s.cuCtxEnablePeerAccess, []string{"cuCtxEnablePeerAccess"}, false},
		{&s.cuMemAlloc, []string{"cuMemAlloc_v2"}, false},
		{&s.cuMemFree, []string{"cuMemFree_v2"}, false},
		{&s.cuMemAllocHost, []string{"cuMemAllocHost_v2"}, false},
		{&s.cuMemFreeHost, []string{"cuMemFreeHost"}, false},
		{&s.cuMemsetD8, []string{"cuMemsetD8_v2"}, false},
		{&s.cuMemcpyHtoD, []string{"cuMemcpyHtoD_v2"}, false},
		{&s.cuMemcpyDtoH, []string{"cuMemcpyDtoH_v2"}, false},
		{&s.cuMemcpyDtoD, []string{"cuMemcpyDtoD_v2"}, false},
		{&s.cuMemcpyPeer, []string{"cuMemcpyPeer"}, false},
		{&s.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}, false},
		{&s.cuMemcpyDtoHAsync, []string{"cuMemcpyDtoHAsync_v2"}, false},
		{&s.cuMemcpyDtoDAsync, []string{"cuMemcpyDtoDAsync_v2"}, false},
		{&s.cuMemcpyPeerAsync, []string{"cuMemcpyPeerAsync"}, false},
		{&s.cuStreamCreate, []string{"cuStreamCreate"}, false},
		{&s.cuStreamDestroy, []string{"cuStreamDestroy_v2", "cuStreamDestroy"}, false},
		{&s.cuStreamSynchronize, []string{"cuStreamSynchronize"}, false},
		{&s.cuEventCreate, []string{"cuEventCreate"}, false},
		{&s.cuEventDestroy, []string{"cuEventDestroy_v2", "cuEventDestroy"}, false},
		{&s.cuEventRecord, []string{"cuEventRecord"}, false},
		{&s.cuEventSynchronize, []string{"cuEventSynchronize"}, false},
		// CUDA 12.8 added cuEventElapsedTime_v2; the old symbol stays for
		// binaries built against older headers.
		{&s.cuEventElapsedTime, []string{"cuEventElapsedTime", "cuEventElapsedTime_v2"}, false},
	}
}

// Open opens libcuda.so.1 (see OpenAt).
func Open() (Driver, error) { return OpenAt(LibName) }

// OpenAt opens the driver library at path (LibName, or a stub in tests) and
// looks up every function the probes need. Each symbol is looked up with
// Dlsym first (purego's RegisterLibFunc would panic on a missing one). An
// error means the library or a symbol is missing, and says which; OpenAt
// does not call cuInit.
func OpenAt(path string) (Driver, error) {
	l, err := openLib(path)
	if err != nil {
		return nil, err // not a nil *cudaLib in a non-nil interface
	}
	return l, nil
}

func openLib(path string) (*cudaLib, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("no CUDA driver: cannot load %s: %v", path, err)
	}
	l := &cudaLib{handle: h}
	var missing []string
	for _, s := range l.sym.table() {
		for _, name := range s.names {
			if a, err := purego.Dlsym(h, name); err == nil && a != 0 {
				*s.addr = a
				break
			}
		}
		if *s.addr == 0 && !s.optional {
			missing = append(missing, strings.Join(s.names, "|"))
		}
	}
	if len(missing) > 0 {
		purego.Dlclose(h)
		return nil, fmt.Errorf("%s lacks %s (driver too old?)", path, strings.Join(missing, ", "))
	}
	return l, nil
}

// check turns a Result into an error naming the function and the status.
func (l *cudaLib) check(fn string, r uintptr) error {
	res := Result(int32(r))
	if res == Success {
		return nil
	}
	e := &Error{Func: fn, Result: res}
	if l.sym.cuGetErrorString != 0 {
		var p *byte
		if rr, _, _ := purego.SyscallN(l.sym.cuGetErrorString, uintptr(res), uintptr(unsafe.Pointer(&p))); rr == 0 {
			e.Desc = cString(p)
		}
	}
	return e
}

// cString copies a NUL-terminated C string (at most 1 KiB).
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < 1024; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

func (l *cudaLib) Init() error {
	r, _, _ := purego.SyscallN(l.sym.cuInit, 0)
	return l.check("cuInit", r)
}

func (l *cudaLib) DriverVersion() (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(l.sym.cuDriverGetVersion, uintptr(unsafe.Pointer(&v)))
	return int(v), l.check("cuDriverGetVersion", r)
}

func (l *cudaLib) DeviceCount() (int, error) {
	var n int32
	r, _, _ := purego.SyscallN(l.sym.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))
	return int(n), l.check("cuDeviceGetCount", r)
}

func (l *cudaLib) Device(ordinal int) (Device, error) {
	var d int32
	r, _, _ := purego.SyscallN(l.sym.cuDeviceGet, uintptr(unsafe.Pointer(&d)), uintptr(ordinal))
	return Device(d), l.check("cuDeviceGet", r)
}

func (l *cudaLib) DeviceName(d Device) (string, error) {
	buf := make([]byte, 256)
	r, _, _ := purego.SyscallN(l.sym.cuDeviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(d))
	if err := l.check("cuDeviceGetName", r); err != nil {
		return "", err
	}
	return cString(&buf[0]), nil
}

func (l *cudaLib) DevicePCIBusID(d Device) (string, error) {
	buf := make([]byte, 64)
	r, _, _ := purego.SyscallN(l.sym.cuDeviceGetPCIBusId, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(d))
	if err := l.check("cuDeviceGetPCIBusId", r); err != nil {
		return "", err
	}
	return cString(&buf[0]), nil
}

func (l *cudaLib) DeviceTotalMem(d Device) (int64, error) {
	var n uint64
	r, _, _ := purego.SyscallN(l.sym.cuDeviceTotalMem, uintptr(unsafe.Pointer(&n)), uintptr(d))
	return int64(n), l.check("cuDeviceTotalMem_v2", r)
}

func (l *cudaLib) PrimaryCtxRetain(d Device) (Context, error) {
	var c uintptr
	r, _, _ := purego.SyscallN(l.sym.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&c)), uintptr(d))
	return Context(c), l.check("cuDevicePrimaryCtxRetain", r)
}

func (l *cudaLib) PrimaryCtxRelease(d Device) error {
	r, _, _ := purego.SyscallN(l.sym.cuDevicePrimaryCtxRelease, uintptr(d))
	return l.check("cuDevicePrimaryCtxRelease_v2", r)
}

func (l *cudaLib) CtxSetCurrent(c Context) error {
	r, _, _ := purego.SyscallN(l.sym.cuCtxSetCurrent, uintptr(c))
	return l.check("cuCtxSetCurrent", r)
}

func (l *cudaLib) CtxSynchronize() error {
	r, _, _ := purego.SyscallN(l.sym.cuCtxSynchronize)
	return l.check("cuCtxSynchronize", r)
}

func (l *cudaLib) CanAccessPeer(d, peer Device) (bool, error) {
	var ok int32
	r, _, _ := purego.SyscallN(l.sym.cuDeviceCanAccessPeer, uintptr(unsafe.Pointer(&ok)), uintptr(d), uintptr(peer))
	return ok != 0, l.check("cuDeviceCanAccessPeer", r)
}

func (l *cudaLib) CtxEnablePeerAccess(peer Context) error {
	r, _, _ := purego.SyscallN(l.sym.cuCtxEnablePeerAccess, uintptr(peer), 0)
	return l.check("cuCtxEnablePeerAccess", r)
}

func (l *cudaLib) MemAlloc(n int64) (DevicePtr, error) {
	var p uint64
	r, _, _ := purego.SyscallN(l.sym.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(n))
	return DevicePtr(p), l.check("cuMemAlloc_v2", r)
}

func (l *cudaLib) MemFree(p DevicePtr) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemFree, uintptr(p))
	return l.check("cuMemFree_v2", r)
}

func (l *cudaLib) MemAllocHost(n int64) (uintptr, error) {
	var p uintptr
	r, _, _ := purego.SyscallN(l.sym.cuMemAllocHost, uintptr(unsafe.Pointer(&p)), uintptr(n))
	return p, l.check("cuMemAllocHost_v2", r)
}

func (l *cudaLib) MemFreeHost(p uintptr) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemFreeHost, p)
	return l.check("cuMemFreeHost", r)
}

func (l *cudaLib) MemsetD8(p DevicePtr, v byte, n int64) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemsetD8, uintptr(p), uintptr(v), uintptr(n))
	return l.check("cuMemsetD8_v2", r)
}

func (l *cudaLib) MemcpyHtoD(dst DevicePtr, src uintptr, n int64) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyHtoD, uintptr(dst), src, uintptr(n))
	return l.check("cuMemcpyHtoD_v2", r)
}

func (l *cudaLib) MemcpyDtoH(dst uintptr, src DevicePtr, n int64) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyDtoH, dst, uintptr(src), uintptr(n))
	return l.check("cuMemcpyDtoH_v2", r)
}

func (l *cudaLib) MemcpyDtoD(dst, src DevicePtr, n int64) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(n))
	return l.check("cuMemcpyDtoD_v2", r)
}

func (l *cudaLib) MemcpyPeer(dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n int64) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyPeer, uintptr(dst), uintptr(dstCtx), uintptr(src), uintptr(srcCtx), uintptr(n))
	return l.check("cuMemcpyPeer", r)
}

func (l *cudaLib) MemcpyHtoDAsync(dst DevicePtr, src uintptr, n int64, s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyHtoDAsync, uintptr(dst), src, uintptr(n), uintptr(s))
	return l.check("cuMemcpyHtoDAsync_v2", r)
}

func (l *cudaLib) MemcpyDtoHAsync(dst uintptr, src DevicePtr, n int64, s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyDtoHAsync, dst, uintptr(src), uintptr(n), uintptr(s))
	return l.check("cuMemcpyDtoHAsync_v2", r)
}

func (l *cudaLib) MemcpyDtoDAsync(dst, src DevicePtr, n int64, s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(n), uintptr(s))
	return l.check("cuMemcpyDtoDAsync_v2", r)
}

func (l *cudaLib) MemcpyPeerAsync(dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n int64, s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuMemcpyPeerAsync, uintptr(dst), uintptr(dstCtx), uintptr(src), uintptr(srcCtx), uintptr(n), uintptr(s))
	return l.check("cuMemcpyPeerAsync", r)
}

// cuStreamNonBlocking is CU_STREAM_NON_BLOCKING (cuda.h).
const cuStreamNonBlocking = 0x1

func (l *cudaLib) StreamCreate() (Stream, error) {
	var s uintptr
	r, _, _ := purego.SyscallN(l.sym.cuStreamCreate, uintptr(unsafe.Pointer(&s)), cuStreamNonBlocking)
	return Stream(s), l.check("cuStreamCreate", r)
}

func (l *cudaLib) StreamDestroy(s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuStreamDestroy, uintptr(s))
	return l.check("cuStreamDestroy_v2", r)
}

func (l *cudaLib) StreamSynchronize(s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuStreamSynchronize, uintptr(s))
	return l.check("cuStreamSynchronize", r)
}

func (l *cudaLib) EventCreate() (Event, error) {
	var e uintptr
	r, _, _ := purego.SyscallN(l.sym.cuEventCreate, uintptr(unsafe.Pointer(&e)), 0) // CU_EVENT_DEFAULT
	return Event(e), l.check("cuEventCreate", r)
}

func (l *cudaLib) EventDestroy(e Event) error {
	r, _, _ := purego.SyscallN(l.sym.cuEventDestroy, uintptr(e))
	return l.check("cuEventDestroy_v2", r)
}

func (l *cudaLib) EventRecord(e Event, s Stream) error {
	r, _, _ := purego.SyscallN(l.sym.cuEventRecord, uintptr(e), uintptr(s))
	return l.check("cuEventRecord", r)
}

func (l *cudaLib) EventSynchronize(e Event) error {
	r, _, _ := purego.SyscallN(l.sym.cuEventSynchronize, uintptr(e))
	return l.check("cuEventSynchronize", r)
}

func (l *cudaLib) EventElapsed(start, end Event) (float64, error) {
	var ms float32
	r, _, _ := purego.SyscallN(l.sym.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), uintptr(start), uintptr(end))
	if err := l.check("cuEventElapsedTime", r); err != nil {
		return 0, err
	}
	return float64(ms) * 1e-3, nil
}

// pageableBuffer is host memory from an anonymous private mapping: ordinary
// pageable memory that Go's garbage collector does not manage, so its
// address can be handed to the driver. Every page is touched once so that
// the first copy does not pay for page faults.
type pageableBuffer struct{ b []byte }

// AllocPageable maps n bytes of pageable host memory (see pageableBuffer)
// and returns its address and the function that unmaps it.
func AllocPageable(n int64) (uintptr, func() error, error) {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return 0, nil, fmt.Errorf("mmap %d bytes of pageable memory: %w", n, err)
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	pb := &pageableBuffer{b: b}
	return uintptr(unsafe.Pointer(&b[0])), func() error { return syscall.Munmap(pb.b) }, nil
}
