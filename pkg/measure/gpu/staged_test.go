package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/gpupath/gpupath/internal/cuda"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

// memCUDA is a fake driver that really moves bytes: device memory is Go
// memory behind handles, pinned host memory is mmap'ed (real addresses the
// probe writes to sockets), and asynchronous copies are queued on their
// stream and run only when an event recorded after them, or the stream, is
// synchronised — so a probe that reads a slot before its copy completed
// sends stale bytes and fails the check. Each OS thread has its own current
// context, as in CUDA.
type memCUDA struct {
	mu      sync.Mutex
	ndev    int
	current map[int]cuda.Context // by thread id
	dev     map[cuda.DevicePtr][]byte
	host    map[uintptr][]byte
	queues  map[cuda.Stream][]func()
	marks   map[cuda.Event]struct {
		s cuda.Stream
		n int
	}
	next    uintptr
	threads map[int]bool
	// corrupt makes the fake skip every H2D copy (a broken transfer).
	corrupt bool
}

func newMemCUDA(ndev int) *memCUDA {
	return &memCUDA{ndev: ndev, current: map[int]cuda.Context{}, dev: map[cuda.DevicePtr][]byte{}, host: map[uintptr][]byte{},
		queues: map[cuda.Stream][]func(){}, marks: map[cuda.Event]struct {
			s cuda.Stream
			n int
		}{}, next: 0x10000, threads: map[int]bool{}}
}

func (f *memCUDA) lock() func() {
	f.mu.Lock()
	f.threads[syscall.Gettid()] = true
	return f.mu.Unlock
}
func (f *memCUDA) ctxOK() error {
	if f.current[syscall.Gettid()] == 0 {
		return &cuda.Error{Func: "call", Result: cuda.ErrorInvalidContext}
	}
	return nil
}
func (f *memCUDA) handle() uintptr { f.next += 0x1000; return f.next }

// devSlice finds the allocation holding p.
func (f *memCUDA) devSlice(p cuda.DevicePtr, n int64) []byte {
	for base, b := range f.dev {
		if p >= base && int64(p-base)+n <= int64(len(b)) {
			return b[p-base : int64(p-base)+n]
		}
	}
	panic(fmt.Sprintf("fake: device range %#x+%d not allocated", p, n))
}
func (f *memCUDA) hostSlice(p uintptr, n int64) []byte {
	for base, b := range f.host {
		if p >= base && int64(p-base)+n <= int64(len(b)) {
			return b[p-base : int64(p-base)+n]
		}
	}
	panic(fmt.Sprintf("fake: host range %#x+%d not allocated", p, n))
}
func (f *memCUDA) drain(s cuda.Stream, upTo int) {
	q := f.queues[s]
	for _, op := range q[:upTo] {
		op()
	}
	f.queues[s] = q[upTo:]
	for e, m := range f.marks {
		if m.s == s {
			m.n -= upTo
			if m.n < 0 {
				m.n = 0
			}
			f.marks[e] = m
		}
	}
}

func (f *memCUDA) Init() error                 { return nil }
func (f *memCUDA) DriverVersion() (int, error) { return 13000, nil }
func (f *memCUDA) DeviceCount() (int, error)   { return f.ndev, nil }
func (f *memCUDA) Device(o int) (cuda.Device, error) {
	if o >= f.ndev {
		return 0, &cuda.Error{Func: "cuDeviceGet", Result: 101}
	}
	return cuda.Device(o), nil
}
func (f *memCUDA) DeviceName(cuda.Device) (string, error)     { return "fake", nil }
func (f *memCUDA) DevicePCIBusID(cuda.Device) (string, error) { return "0000:00:00.0", nil }
func (f *memCUDA) DeviceTotalMem(cuda.Device) (int64, error)  { return 1 << 30, nil }
func (f *memCUDA) PrimaryCtxRetain(d cuda.Device) (cuda.Context, error) {
	return cuda.Context(100 + d), nil
}
func (f *memCUDA) PrimaryCtxRelease(cuda.Device) error { return nil }
func (f *memCUDA) CtxSetCurrent(c cuda.Context) error {
	defer f.lock()()
	f.current[syscall.Gettid()] = c
	return nil
}
func (f *memCUDA) CtxSynchronize() error                           { return nil }
func (f *memCUDA) CanAccessPeer(d, peer cuda.Device) (bool, error) { return true, nil }
func (f *memCUDA) CtxEnablePeerAccess(cuda.Context) error          { return nil }
func (f *memCUDA) MemAlloc(n int64) (cuda.DevicePtr, error) {
	defer f.lock()()
	if err := f.ctxOK(); err != nil {
		return 0, err
	}
	p := cuda.DevicePtr(f.handle())
	f.next += uintptr(n)
	f.dev[p] = make([]byte, n)
	return p, nil
}
func (f *memCUDA) MemFree(p cuda.DevicePtr) error { defer f.lock()(); delete(f.dev, p); return nil }
func (f *memCUDA) MemAllocHost(n int64) (uintptr, error) {
	defer f.lock()()
	if err := f.ctxOK(); err != nil {
		return 0, err
	}
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	f.host[p] = b
	return p, nil
}
func (f *memCUDA) MemFreeHost(p uintptr) error {
	defer f.lock()()
	b := f.host[p]
	delete(f.host, p)
	return syscall.Munmap(b)
}
func (f *memCUDA) MemsetD8(p cuda.DevicePtr, v byte, n int64) error {
	defer f.lock()()
	b := f.devSlice(p, n)
	for i := range b {
		b[i] = v
	}
	return nil
}
func (f *memCUDA) MemcpyHtoD(dst cuda.DevicePtr, src uintptr, n int64) error {
	defer f.lock()()
	if err := f.ctxOK(); err != nil {
		return err
	}
	if !f.corrupt {
		copy(f.devSlice(dst, n), f.hostSlice(src, n))
	}
	return nil
}
func (f *memCUDA) MemcpyDtoH(dst uintptr, src cuda.DevicePtr, n int64) error {
	defer f.lock()()
	if err := f.ctxOK(); err != nil {
		return err
	}
	copy(f.hostSlice(dst, n), f.devSlice(src, n))
	return nil
}
func (f *memCUDA) MemcpyDtoD(dst, src cuda.DevicePtr, n int64) error { return nil }
func (f *memCUDA) MemcpyPeer(cuda.DevicePtr, cuda.Context, cuda.DevicePtr, cuda.Context, int64) error {
	return nil
}
func (f *memCUDA) MemcpyHtoDAsync(dst cuda.DevicePtr, src uintptr, n int64, s cuda.Stream) error {
	defer f.lock()()
	if err := f.ctxOK(); err != nil {
		return err
	}
	d, h := f.devSlice(dst, n), f.hostSlice(src, n)
	f.queues[s] = append(f.queues[s], func() {
		if !f.corrupt {
			copy(d, h)
		}
	})
	return nil
}
func (f *memCUDA) MemcpyDtoHAsync(dst uintptr, src cuda.DevicePtr, n int64, s cuda.Stream) error {
	defer f.lock()()
	if err := f.ctxOK(); err != nil {
		return err
	}
	h, d := f.hostSlice(dst, n), f.devSlice(src, n)
	f.queues[s] = append(f.queues[s], func() { copy(h, d) })
	return nil
}
func (f *memCUDA) MemcpyDtoDAsync(dst, src cuda.DevicePtr, n int64, s cuda.Stream) error { return nil }
func (f *memCUDA) MemcpyPeerAsync(cuda.DevicePtr, cuda.Context, cuda.DevicePtr, cuda.Context, int64, cuda.Stream) error {
	return nil
}
func (f *memCUDA) StreamCreate() (cuda.Stream, error) {
	defer f.lock()()
	return cuda.Stream(f.handle()), nil
}
func (f *memCUDA) StreamDestroy(cuda.Stream) error { return nil }
func (f *memCUDA) StreamSynchronize(s cuda.Stream) error {
	defer f.lock()()
	f.drain(s, len(f.queues[s]))
	return nil
}
func (f *memCUDA) EventCreate() (cuda.Event, error) {
	defer f.lock()()
	return cuda.Event(f.handle()), nil
}
func (f *memCUDA) EventDestroy(cuda.Event) error { return nil }
func (f *memCUDA) EventRecord(e cuda.Event, s cuda.Stream) error {
	defer f.lock()()
	f.marks[e] = struct {
		s cuda.Stream
		n int
	}{s, len(f.queues[s])}
	return nil
}
func (f *memCUDA) EventSynchronize(e cuda.Event) error {
	defer f.lock()()
	m := f.marks[e]
	f.drain(m.s, m.n)
	return nil
}
func (f *memCUDA) EventElapsed(start, end cuda.Event) (float64, error) { return 0, nil }

func runStaged(t *testing.T, f *memCUDA, plan measure.Plan) ([]record.Result, error) {
	t.Helper()
	p := &Staged{Open: func() (cuda.Driver, error) { return f, nil }}
	var out []record.Result
	err := p.Run(context.Background(), plan, func(r record.Result) error { out = append(out, r); return nil })
	return out, err
}

func TestStagedMovesTheBytes(t *testing.T) {
	f := newMemCUDA(2)
	// Sizes that end mid-chunk, below one chunk, and span many slots.
	plan := measure.Plan{Sizes: []int64{4, 5000, 3*8192 + 17, 10 * 8192}, PerSize: 20 * time.Millisecond,
		Options: map[string]string{"chunk": "8KiB", "slots": "2"}}
	res, err := runStaged(t, f, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 8 {
		t.Fatalf("%d results, want 4 sizes × 2 variants", len(res))
	}
	for _, r := range res {
		if r.Probe != "staged" || r.Path != "tcp" || r.MedianS <= 0 || r.Iterations < 1 || !strings.Contains(r.Target, "gpu0->gpu1") {
			t.Errorf("result %+v", r)
		}
		if r.Variant == "pipelined" && r.Bytes == 10*8192 && r.Extra["chunks"] != 10 {
			t.Errorf("chunks %v", r.Extra["chunks"])
		}
	}
	if len(f.threads) < 2 {
		t.Errorf("CUDA calls came from %d threads; want a sender and a receiver thread", len(f.threads))
	}
}

func TestStagedDetectsCorruption(t *testing.T) {
	f := newMemCUDA(1)
	f.corrupt = true
	_, err := runStaged(t, f, measure.Plan{Sizes: []int64{4096}, PerSize: 10 * time.Millisecond, Options: map[string]string{"chunk": "4KiB"}})
	if err == nil || !strings.Contains(err.Error(), "arrived as 0") {
		t.Fatalf("err = %v, want a verification failure", err)
	}
}

func TestStagedBadOptions(t *testing.T) {
	for _, opt := range []map[string]string{{"chunk": "1KiB"}, {"slots": "1"}, {"variants": "teleport"}, {"chunk": "lots"}} {
		if _, err := runStaged(t, newMemCUDA(1), measure.Plan{Sizes: []int64{8}, Options: opt}); err == nil {
			t.Errorf("options %v accepted", opt)
		}
	}
}

// signalConn is a stagedConn that closes first on its first write.
type signalConn struct {
	stagedConn
	once  sync.Once
	first chan struct{}
}

func (c *signalConn) WriteAll(b []byte) error {
	c.once.Do(func() { close(c.first) })
	return c.stagedConn.WriteAll(b)
}

func TestStagedCancel(t *testing.T) {
	f := newMemCUDA(1)
	first := make(chan struct{})
	p := &Staged{Open: func() (cuda.Driver, error) { return f, nil }, pair: func() (stagedConn, stagedConn, error) {
		sc, rc, err := loopbackPair()
		return &signalConn{stagedConn: sc, first: first}, rc, err
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The run is cancelled 200 ms after its first transfer started (the
	// setup, however slow the machine, is done by then).
	var cancelled time.Time
	go func() {
		select {
		case <-first:
			time.Sleep(200 * time.Millisecond)
		case <-time.After(time.Minute):
		}
		cancelled = time.Now()
		cancel()
	}()
	n := 0
	// A budget of an hour per size and a tolerance only two exactly equal
	// medians meet: the first size repeats until the cancellation (or, on
	// a rare exact repeat of its median, hands over to the next), which
	// ends the run promptly, and what was measured is kept.
	sizes := []int64{8}
	for i := 0; i < 20; i++ {
		sizes = append(sizes, 16<<20+int64(i))
	}
	err := p.Run(ctx, measure.Plan{Sizes: sizes, PerSize: time.Hour, Tolerance: 1e-300}, func(r record.Result) error {
		n++
		return nil
	})
	select {
	case <-first:
	default:
		t.Fatal("no transfer started")
	}
	if !errors.Is(err, context.Canceled) || n < 1 || n >= len(sizes) {
		t.Fatalf("err %v after %d of %d results", err, n, len(sizes))
	}
	if late := time.Since(cancelled); late > 5*time.Second {
		t.Errorf("Run returned %v after the cancellation", late)
	}
}
