// Package cuda is the part of the CUDA driver API that gpupath's GPU probes
// use, called through purego: libcuda.so.1 is opened at run time (Open), so
// neither the CUDA toolkit nor cgo is needed to build, and a machine without
// a driver simply reports that it has none.
//
// The driver's current context belongs to an OS thread: every call of a
// Driver must come from one goroutine locked to its thread. Thread runs
// functions on such a goroutine. The handle types (Device, DevicePtr,
// Context, Stream, Event) and statuses (Result, with their names from
// cuda.h) are those of cuda.h; a failed call is an *Error that names the
// function and the status.
//
// It is internal: pkg/measure/gpu is its only user, and its tests run the
// binding against a stub library (internal/gputest). It measures nothing
// and decides nothing about what is measured.
package cuda

import (
	"fmt"
	"strconv"
)

// The CUDA driver API's handle types, as cuda.h declares them: a device is
// an int, a device pointer an unsigned 64-bit address on 64-bit hosts,
// contexts, streams and events are opaque pointers.
type (
	Device    int32
	DevicePtr uint64
	Context   uintptr
	Stream    uintptr
	Event     uintptr
)

// Driver is the part of the CUDA driver API the GPU probes use. The
// implementation that loads libcuda.so.1 at run time is returned by Open;
// tests use a fake or the stub library.
//
// Every method must be called from one goroutine locked to its OS thread
// (runtime.LockOSThread): the current context is a property of the thread,
// and a call from another thread fails with CUDA_ERROR_INVALID_CONTEXT.
// Host pointers are plain addresses of memory that Go's garbage collector
// does not manage (pinned memory from MemAllocHost, or mmap'ed memory).
type Driver interface {
	// Init calls cuInit(0).
	Init() error
	// DriverVersion returns the CUDA version the driver supports (13000 for 13.0).
	DriverVersion() (int, error)
	DeviceCount() (int, error)
	Device(ordinal int) (Device, error)
	DeviceName(d Device) (string, error)
	// DevicePCIBusID returns the device's PCI address ("0000:8F:00.0").
	DevicePCIBusID(d Device) (string, error)
	DeviceTotalMem(d Device) (int64, error)

	// PrimaryCtxRetain retains the device's primary context (the one the
	// runtime API and PyTorch use); PrimaryCtxRelease releases it.
	PrimaryCtxRetain(d Device) (Context, error)
	PrimaryCtxRelease(d Device) error
	CtxSetCurrent(c Context) error
	CtxSynchronize() error
	CanAccessPeer(d, peer Device) (bool, error)
	// CtxEnablePeerAccess lets the current context access peer's memory.
	CtxEnablePeerAccess(peer Context) error

	MemAlloc(n int64) (DevicePtr, error)
	MemFree(p DevicePtr) error
	// MemAllocHost allocates page-locked (pinned) host memory.
	MemAllocHost(n int64) (uintptr, error)
	MemFreeHost(p uintptr) error
	MemsetD8(p DevicePtr, v byte, n int64) error

	// The synchronous copies (cuMemcpyHtoD_v2 ...). HtoD and DtoH return
	// when the copy is done; DtoD and Peer may return before (see the CUDA
	// documentation, "API synchronization behavior").
	MemcpyHtoD(dst DevicePtr, src uintptr, n int64) error
	MemcpyDtoH(dst uintptr, src DevicePtr, n int64) error
	MemcpyDtoD(dst, src DevicePtr, n int64) error
	MemcpyPeer(dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n int64) error
	// The asynchronous copies on a stream.
	MemcpyHtoDAsync(dst DevicePtr, src uintptr, n int64, s Stream) error
	MemcpyDtoHAsync(dst uintptr, src DevicePtr, n int64, s Stream) error
	MemcpyDtoDAsync(dst, src DevicePtr, n int64, s Stream) error
	MemcpyPeerAsync(dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n int64, s Stream) error

	// StreamCreate creates a non-blocking stream (CU_STREAM_NON_BLOCKING).
	StreamCreate() (Stream, error)
	StreamDestroy(s Stream) error
	StreamSynchronize(s Stream) error
	// EventCreate creates an event with timing (CU_EVENT_DEFAULT).
	EventCreate() (Event, error)
	EventDestroy(e Event) error
	EventRecord(e Event, s Stream) error
	EventSynchronize(e Event) error
	// EventElapsed returns the time between two completed events, in seconds
	// (cuEventElapsedTime, whose resolution is about half a microsecond).
	EventElapsed(start, end Event) (float64, error)
}

// Result is a CUDA driver API status (cuda.h: enum cudaError_enum).
// As an error it reads as its name, e.g. "CUDA_ERROR_INVALID_CONTEXT (201)".
type Result int32

// The statuses the probes react to.
const (
	Success                       Result = 0
	ErrorInvalidValue             Result = 1
	ErrorOutOfMemory              Result = 2
	ErrorNotInitialized           Result = 3
	ErrorNoDevice                 Result = 100
	ErrorInvalidContext           Result = 201
	ErrorPeerAccessUnsupported    Result = 217
	ErrorPeerAccessAlreadyEnabled Result = 704
	ErrorNotSupported             Result = 801
)

// resultNames lists the statuses of cuda.h (CUDA 12/13), so that a status
// is named even where cuGetErrorName is unavailable (a fake driver, a
// failed load).
var resultNames = map[Result]string{
	0: "CUDA_SUCCESS", 1: "CUDA_ERROR_INVALID_VALUE", 2: "CUDA_ERROR_OUT_OF_MEMORY",
	3: "CUDA_ERROR_NOT_INITIALIZED", 4: "CUDA_ERROR_DEINITIALIZED", 5: "CUDA_ERROR_PROFILER_DISABLED",
	6: "CUDA_ERROR_PROFILER_NOT_INITIALIZED", 7: "CUDA_ERROR_PROFILER_ALREADY_STARTED",
	8: "CUDA_ERROR_PROFILER_ALREADY_STOPPED", 34: "CUDA_ERROR_STUB_LIBRARY", 46: "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE", 101: "CUDA_ERROR_INVALID_DEVICE", 102: "CUDA_ERROR_DEVICE_NOT_LICENSED",
	200: "CUDA_ERROR_INVALID_IMAGE", 201: "CUDA_ERROR_INVALID_CONTEXT", 202: "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
	205: "CUDA_ERROR_MAP_FAILED", 206: "CUDA_ERROR_UNMAP_FAILED", 207: "CUDA_ERROR_ARRAY_IS_MAPPED",
	208: "CUDA_ERROR_ALREADY_MAPPED", 209: "CUDA_ERROR_NO_BINARY_FOR_GPU", 210: "CUDA_ERROR_ALREADY_ACQUIRED",
	211: "CUDA_ERROR_NOT_MAPPED", 212: "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", 213: "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
	214: "CUDA_ERROR_ECC_UNCORRECTABLE", 215: "CUDA_ERROR_UNSUPPORTED_LIMIT", 216: "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
	217: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", 218: "CUDA_ERROR_INVALID_PTX", 219: "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
	220: "CUDA_ERROR_NVLINK_UNCORRECTABLE", 221: "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", 222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	223: "CUDA_ERROR_JIT_COMPILATION_DISABLED", 224: "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
	225: "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", 226: "CUDA_ERROR_CONTAINED",
	300: "CUDA_ERROR_INVALID_SOURCE", 301: "CUDA_ERROR_FILE_NOT_FOUND", 302: "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
	303: "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", 304: "CUDA_ERROR_OPERATING_SYSTEM", 400: "CUDA_ERROR_INVALID_HANDLE",
	401: "CUDA_ERROR_ILLEGAL_STATE", 402: "CUDA_ERROR_LOSSY_QUERY", 500: "CUDA_ERROR_NOT_FOUND", 600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS", 701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", 702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	703: "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", 704: "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	705: "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", 708: "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", 709: "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	710: "CUDA_ERROR_ASSERT", 711: "CUDA_ERROR_TOO_MANY_PEERS", 712: "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
	713: "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", 714: "CUDA_ERROR_HARDWARE_STACK_ERROR", 715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS", 717: "CUDA_ERROR_INVALID_ADDRESS_SPACE", 718: "CUDA_ERROR_INVALID_PC",
	719: "CUDA_ERROR_LAUNCH_FAILED", 720: "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", 721: "CUDA_ERROR_TENSOR_MEMORY_LEAK",
	800: "CUDA_ERROR_NOT_PERMITTED", 801: "CUDA_ERROR_NOT_SUPPORTED", 802: "CUDA_ERROR_SYSTEM_NOT_READY",
	803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", 804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	805: "CUDA_ERROR_MPS_CONNECTION_FAILED", 806: "CUDA_ERROR_MPS_RPC_FAILURE", 807: "CUDA_ERROR_MPS_SERVER_NOT_READY",
	808: "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", 809: "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
	810: "CUDA_ERROR_MPS_CLIENT_TERMINATED", 811: "CUDA_ERROR_CDP_NOT_SUPPORTED", 812: "CUDA_ERROR_CDP_VERSION_MISMATCH",
	900: "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 901: "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
	902: "CUDA_ERROR_STREAM_CAPTURE_MERGE", 903: "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
	904: "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", 905: "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
	906: "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", 907: "CUDA_ERROR_CAPTURED_EVENT",
	908: "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", 909: "CUDA_ERROR_TIMEOUT", 910: "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
	911: "CUDA_ERROR_EXTERNAL_DEVICE", 912: "CUDA_ERROR_INVALID_CLUSTER_SIZE", 913: "CUDA_ERROR_FUNCTION_NOT_LOADED",
	914: "CUDA_ERROR_INVALID_RESOURCE_TYPE", 915: "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
	916: "CUDA_ERROR_KEY_ROTATION", 999: "CUDA_ERROR_UNKNOWN",
}

// Name returns the status's name from cuda.h ("CUDA_ERROR_OUT_OF_MEMORY"),
// or "CUresult(N)" for a status this package does not know.
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return "CUresult(" + strconv.Itoa(int(r)) + ")"
}

// Error returns the name and number ("CUDA_ERROR_INVALID_CONTEXT (201)").
func (r Result) Error() string { return fmt.Sprintf("%s (%d)", r.Name(), int32(r)) }

// Error is a failed driver call: the function, its status and, when the
// driver could say, the status's description (cuGetErrorString).
// errors.Is(err, ErrorOutOfMemory) matches on the status.
type Error struct {
	Func   string
	Result Result
	Desc   string
}

func (e *Error) Error() string {
	if e.Desc != "" {
		return fmt.Sprintf("%s: %v: %s", e.Func, e.Result, e.Desc)
	}
	return fmt.Sprintf("%s: %v", e.Func, e.Result)
}

// Unwrap returns the status.
func (e *Error) Unwrap() error { return e.Result }
