package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// fakeCUDA simulates the driver: a GPU that runs copies one after another
// on a virtual clock that keeps pace with the wall clock (EventSynchronize
// waits until the virtual time of the event has passed), so both the event
// and the wall timings of the probe are meaningful. It checks that every
// call comes from one OS thread and that a context is current where one is
// needed, and it tracks live allocations.
type fakeCUDA struct {
	mu          sync.Mutex
	tid         int
	wrongThread []string
	calls       map[string]int

	initErr   error
	devices   []record.CUDADevice
	canPeer   bool
	hostLimit int64 // MemAllocHost above this fails with CUDA_ERROR_OUT_OF_MEMORY
	devLimit  int64
	failOn    string // a method that fails with failRes
	failRes   cuda.Result
	failAfter int // ... after this many successful calls

	lat, bw, pageBW, d2dBW, peerBW float64 // seconds, bytes/s

	base     time.Time
	clock    float64 // virtual seconds since base when the GPU is free
	events   map[cuda.Event]float64
	next     uintptr
	current  cuda.Context
	retained map[cuda.Device]int
	pinned   map[uintptr]int64
	mapped   map[uintptr][]byte
	devMem   map[cuda.DevicePtr]int64
	streams  map[cuda.Stream]bool
	evLive   map[cuda.Event]bool
	peerOn   map[[2]cuda.Context]bool
}

func newFakeCUDA(ngpu int) *fakeCUDA {
	f := &fakeCUDA{
		calls: map[string]int{}, canPeer: true, hostLimit: 1 << 40, devLimit: 1 << 40,
		lat: 2e-6, bw: 50e9, pageBW: 10e9, d2dBW: 1.5e12, peerBW: 400e9,
		base: time.Now(), events: map[cuda.Event]float64{}, next: 0x1000, retained: map[cuda.Device]int{},
		pinned: map[uintptr]int64{}, mapped: map[uintptr][]byte{}, devMem: map[cuda.DevicePtr]int64{}, streams: map[cuda.Stream]bool{},
		evLive: map[cuda.Event]bool{}, peerOn: map[[2]cuda.Context]bool{},
	}
	for i := 0; i < ngpu; i++ {
		f.devices = append(f.devices, record.CUDADevice{Ordinal: i, Name: "NVIDIA H200", PCIBusID: fmt.Sprintf("0000:%02X:00.0", 0x18+i), MemBytes: 150 << 30})
	}
	return f
}

func (f *fakeCUDA) enter(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tid := syscall.Gettid()
	if f.tid == 0 {
		f.tid = tid
	} else if tid != f.tid {
		f.wrongThread = append(f.wrongThread, name)
	}
	f.calls[name]++
	if name == f.failOn && f.calls[name] > f.failAfter {
		return &cuda.Error{Func: name, Result: f.failRes}
	}
	return nil
}

func (f *fakeCUDA) needCtx(name string) error {
	if f.current == 0 {
		return &cuda.Error{Func: name, Result: cuda.ErrorInvalidContext}
	}
	return nil
}

func (f *fakeCUDA) handle() uintptr { f.next += 0x100; return f.next }

func (f *fakeCUDA) now() float64 { return time.Since(f.base).Seconds() }

// run puts a copy of n bytes at rate bw on the GPU's timeline.
func (f *fakeCUDA) run(n int64, bw float64) {
	f.clock = math.Max(f.clock, f.now()) + f.lat + float64(n)/bw
}

// wait blocks until the GPU has caught up with virtual time t: it sleeps,
// then spins for the last millisecond (sleeps overshoot by about that much).
func (f *fakeCUDA) wait(t float64) {
	if d := t - f.now() - 1e-3; d > 0 {
		time.Sleep(time.Duration(d * 1e9))
	}
	for f.now() < t {
	}
}

func (f *fakeCUDA) rateHost(p uintptr) float64 {
	if _, ok := f.pinned[p]; ok {
		return f.bw
	}
	return f.pageBW
}

func (f *fakeCUDA) Init() error {
	if err := f.enter("cuInit"); err != nil {
		return err
	}
	return f.initErr
}
func (f *fakeCUDA) DriverVersion() (int, error) { return 13000, f.enter("cuDriverGetVersion") }
func (f *fakeCUDA) DeviceCount() (int, error)   { return len(f.devices), f.enter("cuDeviceGetCount") }
func (f *fakeCUDA) Device(o int) (cuda.Device, error) {
	if o < 0 || o >= len(f.devices) {
		return 0, &cuda.Error{Func: "cuDeviceGet", Result: 101}
	}
	return cuda.Device(o), f.enter("cuDeviceGet")
}
func (f *fakeCUDA) DeviceName(d cuda.Device) (string, error) {
	return f.devices[d].Name, f.enter("cuDeviceGetName")
}
func (f *fakeCUDA) DevicePCIBusID(d cuda.Device) (string, error) {
	return f.devices[d].PCIBusID, f.enter("cuDeviceGetPCIBusId")
}
func (f *fakeCUDA) DeviceTotalMem(d cuda.Device) (int64, error) {
	return f.devices[d].MemBytes, f.enter("cuDeviceTotalMem_v2")
}
func (f *fakeCUDA) PrimaryCtxRetain(d cuda.Device) (cuda.Context, error) {
	if err := f.enter("cuDevicePrimaryCtxRetain"); err != nil {
		return 0, err
	}
	f.retained[d]++
	return cuda.Context(0xc0 + int(d)), nil
}
func (f *fakeCUDA) PrimaryCtxRelease(d cuda.Device) error {
	if err := f.enter("cuDevicePrimaryCtxRelease_v2"); err != nil {
		return err
	}
	f.retained[d]--
	return nil
}
func (f *fakeCUDA) CtxSetCurrent(c cuda.Context) error {
	if err := f.enter("cuCtxSetCurrent"); err != nil {
		return err
	}
	f.current = c
	return nil
}
func (f *fakeCUDA) CtxSynchronize() error {
	if err := f.enter("cuCtxSynchronize"); err != nil {
		return err
	}
	f.wait(f.clock)
	return f.needCtx("cuCtxSynchronize")
}
func (f *fakeCUDA) CanAccessPeer(d, p cuda.Device) (bool, error) {
	return f.canPeer, f.enter("cuDeviceCanAccessPeer")
}
func (f *fakeCUDA) CtxEnablePeerAccess(p cuda.Context) error {
	if err := f.enter("cuCtxEnablePeerAccess"); err != nil {
		return err
	}
	k := [2]cuda.Context{f.current, p}
	if f.peerOn[k] {
		return &cuda.Error{Func: "cuCtxEnablePeerAccess", Result: cuda.ErrorPeerAccessAlreadyEnabled}
	}
	f.peerOn[k] = true
	return nil
}
func (f *fakeCUDA) MemAlloc(n int64) (cuda.DevicePtr, error) {
	if err := f.enter("cuMemAlloc_v2"); err != nil {
		return 0, err
	}
	if err := f.needCtx("cuMemAlloc_v2"); err != nil {
		return 0, err
	}
	if n > f.devLimit {
		return 0, &cuda.Error{Func: "cuMemAlloc_v2", Result: cuda.ErrorOutOfMemory}
	}
	p := cuda.DevicePtr(f.handle()) << 20
	f.devMem[p] = n
	return p, nil
}
func (f *fakeCUDA) MemFree(p cuda.DevicePtr) error {
	if err := f.enter("cuMemFree_v2"); err != nil {
		return err
	}
	delete(f.devMem, p)
	return nil
}
func (f *fakeCUDA) MemAllocHost(n int64) (uintptr, error) {
	if err := f.enter("cuMemAllocHost_v2"); err != nil {
		return 0, err
	}
	if err := f.needCtx("cuMemAllocHost_v2"); err != nil {
		return 0, err
	}
	if n > f.hostLimit {
		return 0, &cuda.Error{Func: "cuMemAllocHost_v2", Result: cuda.ErrorOutOfMemory, Desc: "out of memory"}
	}
	// Real (lazily committed) memory: probes may touch pinned buffers.
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return 0, &cuda.Error{Func: "cuMemAllocHost_v2", Result: cuda.ErrorOutOfMemory, Desc: err.Error()}
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	f.pinned[p] = n
	f.mapped[p] = b
	return p, nil
}
func (f *fakeCUDA) MemFreeHost(p uintptr) error {
	if err := f.enter("cuMemFreeHost"); err != nil {
		return err
	}
	delete(f.pinned, p)
	if b, ok := f.mapped[p]; ok {
		delete(f.mapped, p)
		return syscall.Munmap(b)
	}
	return nil
}
func (f *fakeCUDA) MemsetD8(p cuda.DevicePtr, v byte, n int64) error {
	if err := f.enter("cuMemsetD8_v2"); err != nil {
		return err
	}
	f.run(n, f.d2dBW)
	return f.needCtx("cuMemsetD8_v2")
}
func (f *fakeCUDA) copyCheck(name string, n int64) error {
	if err := f.enter(name); err != nil {
		return err
	}
	if n <= 0 {
		return &cuda.Error{Func: name, Result: cuda.ErrorInvalidValue}
	}
	return f.needCtx(name)
}
func (f *fakeCUDA) MemcpyHtoD(dst cuda.DevicePtr, src uintptr, n int64) error {
	if err := f.copyCheck("cuMemcpyHtoD_v2", n); err != nil {
		return err
	}
	f.run(n, f.rateHost(src))
	f.wait(f.clock)
	return nil
}
func (f *fakeCUDA) MemcpyDtoH(dst uintptr, src cuda.DevicePtr, n int64) error {
	if err := f.copyCheck("cuMemcpyDtoH_v2", n); err != nil {
		return err
	}
	f.run(n, f.rateHost(dst))
	f.wait(f.clock)
	return nil
}
func (f *fakeCUDA) MemcpyDtoD(dst, src cuda.DevicePtr, n int64) error {
	if err := f.copyCheck("cuMemcpyDtoD_v2", n); err != nil {
		return err
	}
	f.run(n, f.d2dBW)
	return nil
}
func (f *fakeCUDA) MemcpyPeer(dst cuda.DevicePtr, dc cuda.Context, src cuda.DevicePtr, sc cuda.Context, n int64) error {
	if err := f.copyCheck("cuMemcpyPeer", n); err != nil {
		return err
	}
	f.run(n, f.peerBW)
	return nil
}
func (f *fakeCUDA) MemcpyHtoDAsync(dst cuda.DevicePtr, src uintptr, n int64, s cuda.Stream) error {
	if err := f.copyCheck("cuMemcpyHtoDAsync_v2", n); err != nil {
		return err
	}
	f.run(n, f.rateHost(src))
	return nil
}
func (f *fakeCUDA) MemcpyDtoHAsync(dst uintptr, src cuda.DevicePtr, n int64, s cuda.Stream) error {
	if err := f.copyCheck("cuMemcpyDtoHAsync_v2", n); err != nil {
		return err
	}
	f.run(n, f.rateHost(dst))
	return nil
}
func (f *fakeCUDA) MemcpyDtoDAsync(dst, src cuda.DevicePtr, n int64, s cuda.Stream) error {
	if err := f.copyCheck("cuMemcpyDtoDAsync_v2", n); err != nil {
		return err
	}
	f.run(n, f.d2dBW)
	return nil
}
func (f *fakeCUDA) MemcpyPeerAsync(dst cuda.DevicePtr, dc cuda.Context, src cuda.DevicePtr, sc cuda.Context, n int64, s cuda.Stream) error {
	if err := f.copyCheck("cuMemcpyPeerAsync", n); err != nil {
		return err
	}
	f.run(n, f.peerBW)
	return nil
}
func (f *fakeCUDA) StreamCreate() (cuda.Stream, error) {
	if err := f.enter("cuStreamCreate"); err != nil {
		return 0, err
	}
	s := cuda.Stream(f.handle())
	f.streams[s] = true
	return s, f.needCtx("cuStreamCreate")
}
func (f *fakeCUDA) StreamDestroy(s cuda.Stream) error {
	delete(f.streams, s)
	return f.enter("cuStreamDestroy_v2")
}
func (f *fakeCUDA) StreamSynchronize(s cuda.Stream) error {
	f.wait(f.clock)
	return f.enter("cuStreamSynchronize")
}
func (f *fakeCUDA) EventCreate() (cuda.Event, error) {
	if err := f.enter("cuEventCreate"); err != nil {
		return 0, err
	}
	e := cuda.Event(f.handle())
	f.evLive[e] = true
	return e, nil
}
func (f *fakeCUDA) EventDestroy(e cuda.Event) error {
	delete(f.evLive, e)
	return f.enter("cuEventDestroy_v2")
}
func (f *fakeCUDA) EventRecord(e cuda.Event, s cuda.Stream) error {
	if err := f.enter("cuEventRecord"); err != nil {
		return err
	}
	f.clock = math.Max(f.clock, f.now())
	f.events[e] = f.clock
	return nil
}
func (f *fakeCUDA) EventSynchronize(e cuda.Event) error {
	if err := f.enter("cuEventSynchronize"); err != nil {
		return err
	}
	f.wait(f.events[e])
	return nil
}
func (f *fakeCUDA) EventElapsed(a, b cuda.Event) (float64, error) {
	if err := f.enter("cuEventElapsedTime"); err != nil {
		return 0, err
	}
	ta, ok1 := f.events[a]
	tb, ok2 := f.events[b]
	if !ok1 || !ok2 {
		return 0, &cuda.Error{Func: "cuEventElapsedTime", Result: 400}
	}
	return tb - ta, nil
}

// leaks lists what was not released.
func (f *fakeCUDA) leaks() []string {
	var out []string
	for d, n := range f.retained {
		if n != 0 {
			out = append(out, fmt.Sprintf("context of device %d retained %d times", d, n))
		}
	}
	if len(f.pinned)+len(f.devMem)+len(f.streams)+len(f.evLive) > 0 {
		out = append(out, fmt.Sprintf("%d pinned, %d device buffers, %d streams, %d events", len(f.pinned), len(f.devMem), len(f.streams), len(f.evLive)))
	}
	return out
}

// fakeMonitor reports a constant PCIe rate every 20 ms while started.
type fakeMonitor struct {
	rate    float64
	stop    chan struct{}
	done    chan []PCIeSample
	closed  bool
	started int
}

func (m *fakeMonitor) Start() {
	m.started++
	m.stop, m.done = make(chan struct{}), make(chan []PCIeSample)
	go func() {
		var out []PCIeSample
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				out = append(out, PCIeSample{End: now, Dir: "tx", Bps: m.rate}, PCIeSample{End: now, Dir: "rx", Bps: m.rate})
			case <-m.stop:
				m.done <- out
				return
			}
		}
	}()
}
func (m *fakeMonitor) Stop() []PCIeSample      { close(m.stop); return <-m.done }
func (m *fakeMonitor) Link() (int, int, error) { return 5, 16, nil }
func (m *fakeMonitor) Close() error            { m.closed = true; return nil }

type fakePageable struct {
	limit int64
	live  map[uintptr]int64
	next  uintptr
}

func (fp *fakePageable) alloc(n int64) (uintptr, func() error, error) {
	if n > fp.limit {
		return 0, nil, fmt.Errorf("mmap %d bytes: %w", n, syscall.ENOMEM)
	}
	if fp.live == nil {
		fp.live = map[uintptr]int64{}
	}
	fp.next += 1 << 30
	p := fp.next
	fp.live[p] = n
	return p, func() error { delete(fp.live, p); return nil }, nil
}

func newFakeProbe(f *fakeCUDA, mon *fakeMonitor, pg *fakePageable) *CUDACopy {
	p := &CUDACopy{Open: func() (cuda.Driver, error) { return f, nil }, allocPageable: pg.alloc}
	if mon != nil {
		p.PCIe = func(bus string) (PCIeMonitor, error) { return mon, nil }
	} else {
		p.PCIe = func(bus string) (PCIeMonitor, error) { return nil, errors.New("no NVML in this test") }
	}
	return p
}

func runCollect(t *testing.T, p measure.Probe, plan measure.Plan) ([]record.Result, error) {
	t.Helper()
	var out []record.Result
	err := p.Run(context.Background(), plan, func(r record.Result) error { out = append(out, r); return nil })
	return out, err
}

func TestCUDACopyTwoGPUs(t *testing.T) {
	f := newFakeCUDA(2)
	mon := &fakeMonitor{rate: 0.95 * 50e9}
	pg := &fakePageable{limit: 1 << 40}
	p := newFakeProbe(f, mon, pg)
	sizes := []int64{4, 64 << 10, 16 << 20}
	res, err := runCollect(t, p, measure.Plan{Sizes: sizes, Budget: 2 * time.Second, Options: map[string]string{"nvml_check": "150ms"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.wrongThread) > 0 {
		t.Errorf("CUDA calls from a second OS thread: %v", f.wrongThread)
	}
	if l := f.leaks(); len(l) > 0 || len(pg.live) > 0 || !mon.closed {
		t.Errorf("leaks: %v, pageable %v, monitor closed %v", l, pg.live, mon.closed)
	}
	// h2d/d2h pinned and d2d, each synchronous and streaming (6), h2d/d2h
	// pinned with the CPU touching the buffer first (2), h2d/d2h pageable
	// (2), peer both ways, synchronous and streaming (4): 14 variants; 3
	// sizes; 2 timers; plus 2 sustained records.
	if want := 14*len(sizes)*2 + 2; len(res) != want {
		t.Fatalf("%d records, want %d", len(res), want)
	}
	by := map[string]record.Result{}
	for _, r := range res {
		by[fmt.Sprintf("%s %s %s %d", r.Variant, r.Target, r.Timer, r.Bytes)] = r
		if r.Probe != "cuda" || r.Iterations < 1 || r.MedianS <= 0 || r.ThroughputBps <= 0 {
			t.Errorf("bad record %+v", r)
		}
		if strings.HasPrefix(r.Variant, "d2h") && r.Stage != "A" || strings.HasPrefix(r.Variant, "h2d") && r.Stage != "G" {
			t.Errorf("%s has stage %q", r.Variant, r.Stage)
		}
	}
	// Both timers for every measurement, from the same iterations.
	for k, r := range by {
		if r.Timer == "cuda-event" {
			w, ok := by[strings.Replace(k, " cuda-event ", " wall ", 1)]
			if !strings.HasSuffix(r.Variant, "-sustained") && (!ok || w.Iterations != r.Iterations) {
				t.Errorf("%s: no matching wall record (%v)", k, ok)
			}
		}
	}
	// Streaming bandwidth at 16 MiB: the fake GPU takes 2 us + n/50 GB/s per
	// copy, so the event time per copy is 2e-6 + 16777216/50e9 = 337.5 us.
	n := float64(16 << 20)
	r := by["h2d-pinned-stream gpu0 cuda-event 16777216"]
	if want := 2e-6 + n/50e9; math.Abs(r.MedianS-want)/want > 0.02 {
		t.Errorf("h2d stream median %v, want %v within 2%%", r.MedianS, want)
	}
	if r.Extra["batch"] != 16 || r.Extra["nvml_rx_Bps"] != 0.95*50e9 {
		t.Errorf("extra %v", r.Extra)
	}
	// Pageable copies run at the fake's 10 GB/s: the wall clock can only
	// be later than the fake's time (a loaded machine oversleeps), and
	// within 10× of it; 5× the pinned copy's 337.5 µs is out of reach of a
	// copy at the pinned rate.
	pgr := by["d2h-pageable gpu0 wall 16777216"]
	if want := 2e-6 + n/10e9; pgr.MedianS < 0.95*want || pgr.MedianS > 10*want {
		t.Errorf("pageable wall %v, want %v or a little more (at most 10×)", pgr.MedianS, want)
	}
	peer := by["peer-stream gpu1->gpu0 cuda-event 16777216"]
	if peer.Path != "gpu-peer" || peer.Extra["peer_access"] != 1 || math.Abs(peer.ThroughputBps-n/(2e-6+n/400e9))/400e9 > 0.02 {
		t.Errorf("peer record %+v", peer)
	}
	if d := by["d2d gpu0 cuda-event 16777216"]; d.Extra["rw_Bps"] != 2*d.ThroughputBps {
		t.Errorf("d2d rw_Bps %v vs %v", d.Extra["rw_Bps"], d.ThroughputBps)
	}
	// The sustained check: copy rate about 50 GB/s, NVML 0.95 of it.
	sus := by["h2d-pinned-sustained gpu0 cuda-event 16777216"]
	if sus.Extra["nvml_rx_samples"] < 2 || math.Abs(sus.Extra["nvml_ratio"]-0.95*50e9/sus.ThroughputBps) > 1e-9 || sus.Extra["pcie_gen_load"] != 5 {
		t.Errorf("sustained record %+v", sus)
	}
	if sus.Extra["duration_s"] < 0.1 {
		t.Errorf("sustained loop lasted %v s, want about 0.15", sus.Extra["duration_s"])
	}
	inv := p.Inventory().(record.CUDAInventory)
	if len(inv.Devices) != 2 || inv.DriverVersion != 13000 || len(inv.Peers) != 2 || !inv.Peers[0].Enabled || !inv.Peers[1].Enabled {
		t.Errorf("inventory %+v", inv)
	}
	if f.calls["cuCtxEnablePeerAccess"] != 2 {
		t.Errorf("peer access enabled %d times", f.calls["cuCtxEnablePeerAccess"])
	}
}

func TestCUDACopyAllocationFailureDegrades(t *testing.T) {
	f := newFakeCUDA(1)
	f.hostLimit = 2 << 20 // pinned memory for 2 MiB only
	pg := &fakePageable{limit: 1 << 20}
	p := newFakeProbe(f, nil, pg)
	res, err := runCollect(t, p, measure.Plan{Sizes: []int64{4, 1 << 20, 4 << 20}, Budget: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	inv := p.Inventory().(record.CUDAInventory)
	if inv.Capacity["pinned"] != 1<<20 || inv.Capacity["pageable"] != 1<<20 || inv.Capacity["device"] != 4<<20 {
		t.Errorf("capacities %v", inv.Capacity)
	}
	var big int
	for _, r := range res {
		if r.Bytes == 4<<20 {
			big++
			if r.Variant != "d2d" && r.Variant != "d2d-stream" {
				t.Errorf("%s at 4 MiB measured despite its buffer", r.Variant)
			}
		}
	}
	if big != 4 {
		t.Errorf("%d records at 4 MiB, want d2d and d2d-stream x 2 timers", big)
	}
	skips := strings.Join(inv.Notes, "\n")
	if !strings.Contains(skips, "h2d-pinned gpu0 4194304 B skipped: the pinned buffer holds 1048576 B") {
		t.Errorf("notes:\n%s", skips)
	}
	if l := f.leaks(); len(l) > 0 {
		t.Errorf("leaks %v", l)
	}

	// Nothing allocatable: variants skipped, still no failure.
	f2 := newFakeCUDA(1)
	f2.hostLimit = 0
	p2 := newFakeProbe(f2, nil, &fakePageable{})
	res, err = runCollect(t, p2, measure.Plan{Sizes: []int64{4096}, Budget: time.Second, Options: map[string]string{"variants": "h2d-pinned,d2d"}})
	if err != nil || len(res) != 2 || res[0].Variant != "d2d" {
		t.Errorf("no pinned memory: err %v, %d records", err, len(res))
	}
	if notes := strings.Join(p2.Inventory().(record.CUDAInventory).Notes, "\n"); !strings.Contains(notes, "h2d-pinned gpu0 skipped: no pinned buffer") {
		t.Errorf("notes:\n%s", notes)
	}
}

func TestCUDACopyUnavailable(t *testing.T) {
	p := &CUDACopy{Open: func() (cuda.Driver, error) {
		return nil, measure.Unavailable("no CUDA driver: cannot load libcuda.so.1")
	}}
	if err := p.Available(); !errors.Is(err, measure.ErrUnavailable) {
		t.Errorf("Available = %v", err)
	}
	_, err := runCollect(t, p, measure.Plan{})
	if !errors.Is(err, measure.ErrUnavailable) || !strings.Contains(err.Error(), "libcuda.so.1") {
		t.Errorf("Run = %v", err)
	}

	f := newFakeCUDA(0)
	f.initErr = &cuda.Error{Func: "cuInit", Result: cuda.ErrorNoDevice}
	_, err = runCollect(t, newFakeProbe(f, nil, &fakePageable{}), measure.Plan{})
	if !errors.Is(err, measure.ErrUnavailable) || !strings.Contains(err.Error(), "cuInit: CUDA_ERROR_NO_DEVICE (100)") {
		t.Errorf("no device: %v", err)
	}
	f = newFakeCUDA(0)
	_, err = runCollect(t, newFakeProbe(f, nil, &fakePageable{}), measure.Plan{})
	if !errors.Is(err, measure.ErrUnavailable) {
		t.Errorf("zero devices: %v", err)
	}
}

func TestCUDACopyErrorsNamed(t *testing.T) {
	f := newFakeCUDA(1)
	f.failOn, f.failRes, f.failAfter = "cuMemcpyHtoD_v2", cuda.ErrorInvalidContext, 5
	_, err := runCollect(t, newFakeProbe(f, nil, &fakePageable{limit: 1 << 30}), measure.Plan{Sizes: []int64{4}, Budget: time.Second})
	if !errors.Is(err, cuda.ErrorInvalidContext) || errors.Is(err, measure.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "cuMemcpyHtoD_v2: CUDA_ERROR_INVALID_CONTEXT (201)") || !strings.Contains(err.Error(), "h2d-pinned") {
		t.Errorf("error text %q", err)
	}
	if l := f.leaks(); len(l) > 0 {
		t.Errorf("a failed run leaks %v", l)
	}
	for r, want := range map[cuda.Result]string{
		0: "CUDA_SUCCESS (0)", 2: "CUDA_ERROR_OUT_OF_MEMORY (2)", 201: "CUDA_ERROR_INVALID_CONTEXT (201)",
		704: "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (704)", 999: "CUDA_ERROR_UNKNOWN (999)", 12345: "CUresult(12345) (12345)",
	} {
		if got := r.Error(); got != want {
			t.Errorf("CUresult(%d) = %q, want %q", int(r), got, want)
		}
	}
	e := &cuda.Error{Func: "cuMemAllocHost_v2", Result: 2, Desc: "out of memory"}
	if e.Error() != "cuMemAllocHost_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" || !errors.Is(e, cuda.ErrorOutOfMemory) {
		t.Errorf("%v", e)
	}
}

func TestCUDACopyCancellation(t *testing.T) {
	f := newFakeCUDA(2)
	p := newFakeProbe(f, nil, &fakePageable{limit: 1 << 30})
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	err := p.Run(ctx, measure.Plan{Sizes: []int64{4, 4096}, Budget: time.Minute}, func(r record.Result) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n < 3 || n > 4 {
		t.Errorf("%d records emitted after cancelling at the third", n)
	}
	if l := f.leaks(); len(l) > 0 {
		t.Errorf("a cancelled run leaks %v", l)
	}
	// An emit error stops the probe too.
	boom := errors.New("disk full")
	f2 := newFakeCUDA(1)
	err = newFakeProbe(f2, nil, &fakePageable{limit: 1 << 30}).Run(context.Background(), measure.Plan{Sizes: []int64{4}}, func(record.Result) error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("emit error: %v", err)
	}
}

func TestCUDAOptions(t *testing.T) {
	if g, err := chooseGPUs("", 1); err != nil || len(g) != 1 {
		t.Errorf("default on one GPU: %v %v", g, err)
	}
	if g, err := chooseGPUs("1,0", 2); err != nil || g[0] != 1 || g[1] != 0 {
		t.Errorf("1,0: %v %v", g, err)
	}
	for _, bad := range []string{"2", "0,0", "x", "0,1,1"} {
		if _, err := chooseGPUs(bad, 2); err == nil {
			t.Errorf("gpus=%s accepted", bad)
		}
	}
	for n, want := range map[int64]int{4: 100, 1 << 20: 100, 16 << 20: 16, 64 << 20: 4, 256 << 20: 2, 1 << 30: 2} {
		if got := streamBatch(n); got != want {
			t.Errorf("streamBatch(%d) = %d, want %d", n, got, want)
		}
	}
	if s := DefaultCUDASizes(); len(s) != 15 || s[0] != 4 || s[14] != 1<<30 {
		t.Errorf("default sizes %v", s)
	}
	f := newFakeCUDA(1)
	_, err := runCollect(t, newFakeProbe(f, &fakeMonitor{}, &fakePageable{limit: 1 << 30}), measure.Plan{Sizes: []int64{4}, Options: map[string]string{"nvml_check": "soon"}})
	if err == nil || !strings.Contains(err.Error(), "nvml_check") {
		t.Errorf("bad nvml_check: %v", err)
	}
}

// TestCUDAHardware runs the real driver when there is one.
func TestCUDAHardware(t *testing.T) {
	drv, err := cuda.Open()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	if err := drv.Init(); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	p := &CUDACopy{Env: measure.Env{Log: t.Logf}}
	res, err := runCollect(t, p, measure.Plan{Sizes: []int64{4, 1 << 20}, Budget: 5 * time.Second, Options: map[string]string{"nvml_check": "500ms"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		t.Logf("%s %s %s %d B: median %.3g s, %.3g GB/s", r.Variant, r.Target, r.Timer, r.Bytes, r.MedianS, r.ThroughputBps/1e9)
	}
	t.Logf("inventory %+v", p.Inventory())
}
