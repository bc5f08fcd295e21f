package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpupath/gpupath/internal/cuda"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	measure.Register("cuda", func(env measure.Env) measure.Probe { return &CUDACopy{Env: env} })
}

// CUDACopy measures GPU memory copies through the CUDA driver API:
// host→device and device→host from pinned and from pageable memory,
// device→device, and GPU→GPU peer copies when two GPUs exist.
//
// Every variant is measured two ways, and each measurement yields two
// records of the same iterations, one per clock:
//
//   - "h2d-pinned", "d2h-pinned", "h2d-pageable", "d2h-pageable", "d2d",
//     "peer": one synchronous copy per iteration (cuMemcpyHtoD_v2 ...; d2d
//     and peer followed by cuCtxSynchronize, since they return early). The
//     "wall" record is what the copy costs the calling thread end to end —
//     what cudaMemcpy costs, the model's gpu.copy_latency. The "cuda-event"
//     record is the GPU's view between events recorded before and after.
//   - the same names with "-stream": a batch of back-to-back asynchronous
//     copies on one stream between two events, the time divided by the
//     batch size. The "cuda-event" record is streaming bandwidth, what
//     CUDA's bandwidthTest, nvbandwidth and PyTorch's copy_(non_blocking=True)
//     with events report. Pageable memory has no stream variant (the driver
//     stages it synchronously).
//   - "h2d-pinned-sustained", "d2h-pinned-sustained": one long stream of
//     copies (about nvml_check seconds) while NVML samples the GPU's PCIe
//     throughput counters; the record carries both rates.
//
// D2H copies are stage A of the host-staged paths (tcp, rdma), H2D copies
// stage G; peer copies are path gpu-peer. Targets are "gpu0" or
// "gpu0->gpu1". Sizes run from 4 B to 1 GiB by default; a size whose buffer
// cannot be allocated (1 GiB of pinned memory may fail) is skipped and
// listed in the inventory's notes.
//
// Plan.Options: gpus=0,1 (CUDA ordinals: the first is measured, the second
// is the peer), variants=h2d-pinned,... (a filter), peer=off, pageable=off,
// nvml_check=2s (0 turns the sustained check off).
type CUDACopy struct {
	// Open loads the driver; nil means libcuda.so.1 (or $GPUPATH_LIBCUDA)
	// through purego.
	Open func() (cuda.Driver, error)
	// PCIe opens a PCIe throughput monitor for a GPU; nil means NVML when
	// the package is built with cgo, and no monitor otherwise.
	PCIe PCIeMonitorOpener
	// Env says where diagnostics go (what was loaded, allocated, skipped).
	Env measure.Env

	// allocPageable allocates pageable host memory; nil means mmap.
	allocPageable func(n int64) (uintptr, func() error, error)
	inv           record.CUDAInventory
}

// Name returns "cuda".
func (p *CUDACopy) Name() string { return "cuda" }

// Weight is the probe's share of a run's budget (measure.Weighted): the copy
// sweep takes the largest.
func (p *CUDACopy) Weight() float64 { return 4 }

// Options are the settings the cuda probe reads from Plan.Options.
func (p *CUDACopy) Options() []measure.Option {
	return []measure.Option{
		{Name: "gpus", Kind: measure.OptWords, Doc: "CUDA ordinals: the GPU measured, then the peer (default 0,1 with two GPUs)"},
		{Name: "variants", Kind: measure.OptWords, Doc: "only these copies, e.g. h2d-pinned,d2h-pinned-stream"},
		{Name: "peer", Kind: measure.OptText, Off: true, Doc: "off: no peer copies"},
		{Name: "pageable", Kind: measure.OptText, Off: true, Doc: "off: no pageable copies"},
		{Name: "nvml_check", Kind: measure.OptDuration, Default: "2s", Off: true, Doc: "length of the sustained copy read against NVML's PCIe counters (0 or off: none)"},
	}
}

// Available loads the driver library (without initialising it).
func (p *CUDACopy) Available() error {
	_, err := p.open()
	return err
}

// Inventory returns the devices, peer access and notes of the last Run.
func (p *CUDACopy) Inventory() any { return p.inv }

func (p *CUDACopy) open() (cuda.Driver, error) { return openDriver(p.Open) }

func (p *CUDACopy) logf(format string, args ...any) {
	p.Env.Logf("cuda: "+format, args...)
}

func (p *CUDACopy) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	p.inv.Notes = append(p.inv.Notes, s)
	p.logf("%s", s)
}

// DefaultCUDASizes is the default sweep: 4 B to 1 GiB by factors of 4.
func DefaultCUDASizes() []int64 {
	var s []int64
	for n := int64(4); n <= 1<<30; n *= 4 {
		s = append(s, n)
	}
	return s
}

// QuickCUDASizes is the sweep of a quick run.
func QuickCUDASizes() []int64 { return []int64{4, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20} }

// streamBatch is the number of back-to-back copies timed together in the
// stream variants: enough for about 256 MiB per batch, between 2 and 100.
// bench/torch_copy.py uses the same rule.
func streamBatch(n int64) int {
	k := int(math.Ceil(float64(256<<20) / float64(n)))
	return min(100, max(2, k))
}

// Run measures; see the type's documentation. All CUDA calls happen on one
// goroutine locked to its OS thread.
func (p *CUDACopy) Run(ctx context.Context, plan measure.Plan, emit func(record.Result) error) error {
	p.inv = record.CUDAInventory{Capacity: map[string]int64{}}
	t, err := cuda.StartThread(func() error { return nil })
	if err != nil {
		return err
	}
	// The thread ends with the probe, and the CUDA state bound to it with it.
	defer t.Stop()
	return t.Do(func() error { return p.run(ctx, plan, emit) })
}

// cudaSession holds what one Run set up.
type cudaSession struct {
	p       *CUDACopy
	drv     cuda.Driver
	ctx     [2]cuda.Context
	dev     [2]cuda.Device
	ndev    int
	ord     [2]int // the CUDA ordinals measured (the second is the peer)
	stream  cuda.Stream
	start   cuda.Event
	stop    cuda.Event
	chunk   [2]cuda.Event  // the sustained loop's chunk markers
	dA, dB  cuda.DevicePtr // device buffers on the first GPU
	d1      cuda.DevicePtr // device buffer on the peer GPU
	pinned  uintptr
	page    uintptr
	cap     map[string]int64
	cleanup []func() error
	mon     PCIeMonitor
	// bestStream remembers the stream bandwidth per direction at the
	// largest size measured, to size the sustained loop.
	bestStream map[string]float64
}

func (p *CUDACopy) run(ctx context.Context, plan measure.Plan, emit func(record.Result) error) (err error) {
	drv, err := p.open()
	if err != nil {
		return err
	}
	p.logf("driver library loaded")
	n, err := initDriver(drv)
	if err != nil {
		return err
	}
	if v, err := drv.DriverVersion(); err == nil {
		p.inv.DriverVersion = v
		p.logf("driver supports CUDA %d.%d", v/1000, v%1000/10)
	}
	for i := 0; i < n; i++ {
		d, err := drv.Device(i)
		if err != nil {
			return err
		}
		cd := record.CUDADevice{Ordinal: i}
		if cd.Name, err = drv.DeviceName(d); err != nil {
			return err
		}
		if cd.PCIBusID, err = drv.DevicePCIBusID(d); err != nil {
			return err
		}
		if cd.MemBytes, err = drv.DeviceTotalMem(d); err != nil {
			return err
		}
		p.inv.Devices = append(p.inv.Devices, cd)
		p.logf("device %d: %s, PCI %s, %d MiB", i, cd.Name, cd.PCIBusID, cd.MemBytes>>20)
	}

	s := &cudaSession{p: p, drv: drv, cap: p.inv.Capacity, bestStream: map[string]float64{}}
	defer func() {
		for i := len(s.cleanup) - 1; i >= 0; i-- {
			if cerr := s.cleanup[i](); cerr != nil {
				p.note("cleanup: %v", cerr)
			}
		}
	}()
	ords, err := chooseGPUs(plan.Options["gpus"], n)
	if err != nil {
		return err
	}
	if err := s.setup(plan, ords); err != nil {
		return err
	}
	return s.measure(ctx, plan, emit)
}

// chooseGPUs parses the gpus option: the GPU to measure and the peer.
func chooseGPUs(opt string, n int) ([]int, error) {
	if opt == "" {
		if n >= 2 {
			return []int{0, 1}, nil
		}
		return []int{0}, nil
	}
	var out []int
	for _, f := range strings.Split(opt, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("cuda: option gpus=%s: %q is not a GPU ordinal (0..%d)", opt, f, n-1)
		}
		out = append(out, i)
	}
	if len(out) > 2 || (len(out) == 2 && out[0] == out[1]) {
		return nil, fmt.Errorf("cuda: option gpus=%s: give one GPU, or two different ones", opt)
	}
	return out, nil
}

func (s *cudaSession) setup(plan measure.Plan, ords []int) error {
	p, drv := s.p, s.drv
	sizes := copySizes(plan)
	for i, o := range ords {
		d, err := drv.Device(o)
		if err != nil {
			return err
		}
		s.dev[i], s.ord[i] = d, o
		c, err := drv.PrimaryCtxRetain(d)
		if err != nil {
			return err
		}
		dd := d
		s.cleanup = append(s.cleanup, func() error { return drv.PrimaryCtxRelease(dd) })
		s.ctx[i] = c
	}
	s.ndev = len(ords)
	if err := drv.CtxSetCurrent(s.ctx[0]); err != nil {
		return err
	}
	p.logf("primary context of GPU %d is current on this thread", s.ord[0])

	var err error
	if s.stream, err = drv.StreamCreate(); err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() error { return drv.StreamDestroy(s.stream) })
	if s.start, err = drv.EventCreate(); err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() error { return drv.EventDestroy(s.start) })
	if s.stop, err = drv.EventCreate(); err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() error { return drv.EventDestroy(s.stop) })
	for i := range s.chunk {
		if s.chunk[i], err = drv.EventCreate(); err != nil {
			return err
		}
		e := s.chunk[i]
		s.cleanup = append(s.cleanup, func() error { return drv.EventDestroy(e) })
	}

	devAlloc := func(kind string) (cuda.DevicePtr, error) {
		ptr, c, err := allocDown(sizes, drv.MemAlloc)
		if err != nil {
			p.note("%s buffer: no size of the sweep could be allocated: %v", kind, err)
			return 0, nil
		}
		s.cleanup = append(s.cleanup, func() error { return drv.MemFree(ptr) })
		if err := drv.MemsetD8(ptr, 0x5a, c); err != nil {
			return 0, err
		}
		s.cap[kind] = c
		p.logf("%s buffer: %d bytes", kind, c)
		return ptr, nil
	}
	if s.dA, err = devAlloc("device"); err != nil {
		return err
	}
	if s.dB, err = devAlloc("device2"); err != nil {
		return err
	}
	if ptr, c, err := allocDown(sizes, drv.MemAllocHost); err == nil {
		s.pinned, s.cap["pinned"] = ptr, c
		s.cleanup = append(s.cleanup, func() error { return drv.MemFreeHost(ptr) })
		p.logf("pinned host buffer: %d bytes", c)
	} else {
		p.note("pinned host buffer: no size of the sweep could be allocated: %v", err)
	}
	if plan.Options["pageable"] != "off" {
		alloc := s.p.allocPageable
		if alloc == nil {
			alloc = cuda.AllocPageable
		}
		var free func() error
		ptr, c, err := allocDown(sizes, func(n int64) (uintptr, error) {
			ptr, f, err := alloc(n)
			free = f
			return ptr, err
		})
		if err == nil {
			s.page, s.cap["pageable"] = ptr, c
			s.cleanup = append(s.cleanup, free)
			p.logf("pageable host buffer: %d bytes", c)
		} else {
			p.note("pageable host buffer: no size of the sweep could be allocated: %v", err)
		}
	}
	if s.ndev == 2 && plan.Options["peer"] != "off" {
		// The peer GPU's buffer is allocated (and freed) in its own context.
		if err := drv.CtxSetCurrent(s.ctx[1]); err != nil {
			return err
		}
		s.d1, err = devAlloc("peer")
		if err != nil {
			return err
		}
		if s.d1 != 0 {
			d1 := s.cleanup[len(s.cleanup)-1]
			s.cleanup[len(s.cleanup)-1] = func() error {
				if err := drv.CtxSetCurrent(s.ctx[1]); err != nil {
					return err
				}
				defer drv.CtxSetCurrent(s.ctx[0])
				return d1()
			}
		}
		if err := s.enablePeer(0, 1); err != nil {
			return err
		}
		if err := s.enablePeer(1, 0); err != nil {
			return err
		}
	}
	// The PCIe monitor of the measured GPU (NVML), if any.
	open := s.p.PCIe
	if open == nil {
		open = defaultPCIeMonitor
	}
	if open != nil && len(p.inv.Devices) > s.ord[0] {
		bus := p.inv.Devices[s.ord[0]].PCIBusID
		if m, err := open(bus); err == nil {
			s.mon = m
			s.cleanup = append(s.cleanup, m.Close)
			p.logf("PCIe throughput monitor open for %s", bus)
		} else {
			p.note("no PCIe throughput counters: %v", err)
		}
	}
	return nil
}

// enablePeer lets GPU `from` access GPU `to`'s memory: with from's context
// current, cuDeviceCanAccessPeer then cuCtxEnablePeerAccess(to's context).
// The result goes to the inventory; a failure only means peer copies are
// staged through the host. The first GPU's context is current afterwards.
func (s *cudaSession) enablePeer(from, to int) error {
	drv := s.drv
	pr := record.CUDAPeer{From: s.ord[from], To: s.ord[to]}
	if err := drv.CtxSetCurrent(s.ctx[from]); err != nil {
		return err
	}
	can, err := drv.CanAccessPeer(s.dev[from], s.dev[to])
	if err != nil {
		pr.Err = err.Error()
	}
	pr.CanAccess = can
	if can {
		err := drv.CtxEnablePeerAccess(s.ctx[to])
		switch {
		case err == nil, errors.Is(err, cuda.ErrorPeerAccessAlreadyEnabled):
			pr.Enabled = true
		default:
			pr.Err = err.Error()
		}
	}
	s.p.inv.Peers = append(s.p.inv.Peers, pr)
	s.p.logf("peer access GPU %d -> GPU %d: can %v, enabled %v %s", pr.From, pr.To, pr.CanAccess, pr.Enabled, pr.Err)
	return drv.CtxSetCurrent(s.ctx[0])
}

// allocDown allocates the largest of sizes that succeeds, trying from the
// largest down. It returns the pointer and the size allocated, or the last
// error when none fits.
func allocDown[T any](sizes []int64, alloc func(int64) (T, error)) (T, int64, error) {
	desc := append([]int64(nil), sizes...)
	sort.Slice(desc, func(i, j int) bool { return desc[i] > desc[j] })
	var zero T
	var last error
	tried := map[int64]bool{}
	for _, n := range desc {
		if tried[n] || n <= 0 {
			continue
		}
		tried[n] = true
		ptr, err := alloc(n)
		if err == nil {
			return ptr, n, nil
		}
		last = fmt.Errorf("%d bytes: %w", n, err)
	}
	if last == nil {
		last = errors.New("no sizes")
	}
	return zero, 0, last
}

func copySizes(plan measure.Plan) []int64 {
	if len(plan.Sizes) > 0 {
		return plan.Sizes
	}
	if plan.Quick {
		return QuickCUDASizes()
	}
	return DefaultCUDASizes()
}

// copyVariant is one kind of copy.
type copyVariant struct {
	name, stage, path, target, dir string
	buf                            []string // the buffers (capacity kinds) it needs
	stream                         bool
	sync                           func(n int64) error
	async                          func(n int64, st cuda.Stream) error
	// prepare runs before each timed iteration, untimed (the CPU touching
	// the host buffer, as a socket copy would).
	prepare func(n int64)
	// maxBytes skips larger sizes (0: none).
	maxBytes int64
}

func (s *cudaSession) variants(plan measure.Plan) []copyVariant {
	drv := s.drv
	g0 := fmt.Sprintf("gpu%d", s.ord[0])
	var vs []copyVariant
	add := func(v copyVariant) { vs = append(vs, v) }
	syncCtx := func(f func(n int64) error) func(n int64) error {
		return func(n int64) error {
			if err := f(n); err != nil {
				return err
			}
			return drv.CtxSynchronize()
		}
	}
	add(copyVariant{name: "h2d-pinned", stage: "G", target: g0, dir: "h2d", buf: []string{"device", "pinned"},
		sync:  func(n int64) error { return drv.MemcpyHtoD(s.dA, s.pinned, n) },
		async: func(n int64, st cuda.Stream) error { return drv.MemcpyHtoDAsync(s.dA, s.pinned, n, st) }})
	add(copyVariant{name: "d2h-pinned", stage: "A", target: g0, dir: "d2h", buf: []string{"device", "pinned"},
		sync:  func(n int64) error { return drv.MemcpyDtoH(s.pinned, s.dA, n) },
		async: func(n int64, st cuda.Stream) error { return drv.MemcpyDtoHAsync(s.pinned, s.dA, n, st) }})
	// The bounce buffer of the TCP path is also read (send) or written
	// (recv) by the CPU, so its cache lines sit in the CPU's caches when the
	// GPU's DMA reaches them: these variants touch every cache line first
	// (untimed), and time the copy that then has to snoop them.
	add(copyVariant{name: "d2h-pinned-cpuread", stage: "A", path: "tcp", target: g0, dir: "d2h", buf: []string{"device", "pinned"}, maxBytes: 256 << 20,
		prepare: func(n int64) { touchLines(cuda.HostBytes(s.pinned, n), false) },
		sync:    func(n int64) error { return drv.MemcpyDtoH(s.pinned, s.dA, n) }})
	add(copyVariant{name: "h2d-pinned-cpuwrite", stage: "G", path: "tcp", target: g0, dir: "h2d", buf: []string{"device", "pinned"}, maxBytes: 256 << 20,
		prepare: func(n int64) { touchLines(cuda.HostBytes(s.pinned, n), true) },
		sync:    func(n int64) error { return drv.MemcpyHtoD(s.dA, s.pinned, n) }})
	add(copyVariant{name: "h2d-pageable", stage: "G", target: g0, dir: "h2d", buf: []string{"device", "pageable"},
		sync: func(n int64) error { return drv.MemcpyHtoD(s.dA, s.page, n) }})
	add(copyVariant{name: "d2h-pageable", stage: "A", target: g0, dir: "d2h", buf: []string{"device", "pageable"},
		sync: func(n int64) error { return drv.MemcpyDtoH(s.page, s.dA, n) }})
	add(copyVariant{name: "d2d", target: g0, dir: "d2d", buf: []string{"device", "device2"},
		sync:  syncCtx(func(n int64) error { return drv.MemcpyDtoD(s.dB, s.dA, n) }),
		async: func(n int64, st cuda.Stream) error { return drv.MemcpyDtoDAsync(s.dB, s.dA, n, st) }})
	if s.ndev == 2 && plan.Options["peer"] != "off" {
		g1 := fmt.Sprintf("gpu%d", s.ord[1])
		add(copyVariant{name: "peer", path: "gpu-peer", target: g0 + "->" + g1, dir: "peer", buf: []string{"device", "peer"},
			sync:  syncCtx(func(n int64) error { return drv.MemcpyPeer(s.d1, s.ctx[1], s.dA, s.ctx[0], n) }),
			async: func(n int64, st cuda.Stream) error { return drv.MemcpyPeerAsync(s.d1, s.ctx[1], s.dA, s.ctx[0], n, st) }})
		add(copyVariant{name: "peer", path: "gpu-peer", target: g1 + "->" + g0, dir: "peer", buf: []string{"device", "peer"},
			sync:  syncCtx(func(n int64) error { return drv.MemcpyPeer(s.dA, s.ctx[0], s.d1, s.ctx[1], n) }),
			async: func(n int64, st cuda.Stream) error { return drv.MemcpyPeerAsync(s.dA, s.ctx[0], s.d1, s.ctx[1], n, st) }})
	}
	// Each copy both ways: synchronous, then streaming.
	var out []copyVariant
	for _, v := range vs {
		sv := v
		sv.stream = false
		out = append(out, sv)
		if v.async != nil {
			av := v
			av.name += "-stream"
			av.stream = true
			out = append(out, av)
		}
	}
	if f := plan.Options["variants"]; f != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(f, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var filtered []copyVariant
		for _, v := range out {
			if keep[v.name] {
				filtered = append(filtered, v)
			}
		}
		out = filtered
	}
	return out
}

// missingBuffer names a buffer v needs that could not be allocated at all.
func (s *cudaSession) missingBuffer(v copyVariant) string {
	for _, b := range v.buf {
		if s.cap[b] == 0 {
			return b
		}
	}
	return ""
}

// fits reports whether v's buffers hold n bytes, and if not which one does not.
func (s *cudaSession) fits(v copyVariant, n int64) (bool, string) {
	for _, b := range v.buf {
		if s.cap[b] < n {
			return false, b
		}
	}
	return true, ""
}

func (s *cudaSession) measure(ctx context.Context, plan measure.Plan, emit func(record.Result) error) error {
	sizes := copySizes(plan)
	vs := s.variants(plan)
	combos := len(vs) * len(sizes)
	budget := plan.Budget
	if budget <= 0 {
		budget = 60 * time.Second
		if plan.Quick {
			budget = 15 * time.Second
		}
	}
	per := plan.PerSize
	if per <= 0 && combos > 0 {
		per = budget / time.Duration(combos)
	}
	per = min(max(per, 20*time.Millisecond), 3*time.Second)
	s.p.logf("%d variants x %d sizes, %s per size", len(vs), len(sizes), units.Seconds(per.Seconds()).Human())
	for _, v := range vs {
		if missing := s.missingBuffer(v); missing != "" {
			s.p.note("%s %s skipped: no %s buffer", v.name, v.target, missing)
			continue
		}
		for _, n := range sizes {
			if err := ctx.Err(); err != nil {
				return err
			}
			if v.maxBytes > 0 && n > v.maxBytes {
				continue
			}
			if ok, b := s.fits(v, n); !ok {
				s.p.note("%s %s %d B skipped: the %s buffer holds %d B", v.name, v.target, n, b, s.cap[b])
				continue
			}
			if err := s.measureOne(ctx, plan, v, n, per, emit); err != nil {
				return err
			}
		}
	}
	return s.sustained(ctx, plan, emit)
}

func (s *cudaSession) measureOne(ctx context.Context, plan measure.Plan, v copyVariant, n int64, per time.Duration, emit func(record.Result) error) error {
	drv := s.drv
	var wall, event []float64
	k := 1
	if v.stream {
		k = streamBatch(n)
	}
	calls := 0
	op := func() (float64, error) {
		calls++
		if v.prepare != nil {
			v.prepare(n)
		}
		var t0 time.Time
		var w float64
		if v.stream {
			t0 = time.Now()
			if err := drv.EventRecord(s.start, s.stream); err != nil {
				return 0, err
			}
			for i := 0; i < k; i++ {
				if err := v.async(n, s.stream); err != nil {
					return 0, err
				}
			}
			if err := drv.EventRecord(s.stop, s.stream); err != nil {
				return 0, err
			}
			if err := drv.EventSynchronize(s.stop); err != nil {
				return 0, err
			}
			w = time.Since(t0).Seconds() / float64(k)
		} else {
			if err := drv.EventRecord(s.start, 0); err != nil {
				return 0, err
			}
			t0 = time.Now()
			if err := v.sync(n); err != nil {
				return 0, err
			}
			w = time.Since(t0).Seconds()
			if err := drv.EventRecord(s.stop, 0); err != nil {
				return 0, err
			}
			if err := drv.EventSynchronize(s.stop); err != nil {
				return 0, err
			}
		}
		e, err := drv.EventElapsed(s.start, s.stop)
		if err != nil {
			return 0, err
		}
		e /= float64(k)
		wall = append(wall, w)
		event = append(event, e)
		if v.stream {
			return e, nil
		}
		return w, nil
	}
	var mon PCIeMonitor
	if v.stream && n >= 16<<20 && s.mon != nil && (v.dir == "h2d" || v.dir == "d2h") {
		mon = s.mon
		mon.Start()
	}
	u0, s0 := measure.ThreadCPU()
	t0 := time.Now()
	st, samples, err := measure.Repeat(ctx, measure.RepeatConfig{Budget: per, Tolerance: plan.Tolerance}, op)
	t1 := time.Now()
	u1, s1 := measure.ThreadCPU()
	var pcie []PCIeSample
	if mon != nil {
		pcie = mon.Stop()
	}
	if len(samples) == 0 {
		if err == nil {
			err = errors.New("no iterations")
		}
		return fmt.Errorf("cuda: %s %s %d B: %w", v.name, v.target, n, err)
	}
	// The recorded iterations are the last ones (warm-up comes first).
	wall, event = wall[len(wall)-len(samples):], event[len(event)-len(samples):]
	cpuU := (u1 - u0) / float64(calls*k)
	cpuS := (s1 - s0) / float64(calls*k)
	for _, timer := range []string{"cuda-event", "wall"} {
		xs := event
		if timer == "wall" {
			xs = wall
		}
		ts := measure.Summarize(xs)
		ts.Stable = st.Stable
		r := s.result(v, n, timer, ts)
		r.CPUUserS, r.CPUSysS = cpuU, cpuS
		r.Samples = measure.KeepSamples(xs, 1)
		if v.stream {
			r.Extra["batch"] = float64(k)
		}
		if v.dir == "d2d" && ts.Median > 0 {
			r.Extra["rw_Bps"] = 2 * float64(n) / ts.Median // bandwidthTest counts read+write
		}
		if len(pcie) > 0 {
			tx, rx := PCIeMedian(pcie, 20*time.Millisecond, t0, t1)
			_, _, ntx, nrx := PCIeMean(pcie, 20*time.Millisecond, t0, t1)
			r.Extra["nvml_tx_Bps"], r.Extra["nvml_rx_Bps"] = tx, rx
			r.Extra["nvml_samples"] = float64(ntx + nrx)
		}
		if err := emit(r); err != nil {
			return err
		}
	}
	ev := measure.Summarize(event)
	if v.stream && ev.Median > 0 {
		s.bestStream[v.dir] = float64(n) / ev.Median
	}
	s.p.logf("%-18s %-11s %10d B  %4d it  event %9.3g s  wall %9.3g s  %8.3g GB/s", v.name, v.target, n, len(samples),
		ev.Median, measure.Summarize(wall).Median, float64(n)/ev.Median/1e9)
	if err != nil {
		return fmt.Errorf("cuda: %s %s %d B: %w", v.name, v.target, n, err)
	}
	return nil
}

func (s *cudaSession) result(v copyVariant, n int64, timer string, st measure.Stats) record.Result {
	r := record.Result{
		Probe: "cuda", Variant: v.name, Stage: v.stage, Path: v.path, Target: v.target, Timer: timer, Bytes: n,
		Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99, MeanS: st.Mean,
		Spread: st.Spread, Stable: st.Stable, Time: time.Now(), Extra: map[string]float64{},
	}
	if st.Median > 0 {
		r.ThroughputBps = float64(n) / st.Median
	}
	switch {
	case v.stream:
		r.Note = "back-to-back async copies on one stream, time per copy"
	case v.dir == "d2d" || v.dir == "peer":
		r.Note = "one copy + cuCtxSynchronize per iteration"
	default:
		r.Note = "one synchronous copy per iteration"
	}
	if v.dir == "peer" {
		for _, pr := range s.p.inv.Peers {
			if fmt.Sprintf("gpu%d->gpu%d", pr.From, pr.To) == v.target {
				r.Extra["peer_access"] = record.Bool(pr.Enabled)
			}
		}
	}
	return r
}

// sustained runs the NVML cross-check: a stream of pinned copies lasting
// about nvml_check seconds in each direction while the PCIe counters are
// sampled, the copy rate and NVML's reading in one record.
func (s *cudaSession) sustained(ctx context.Context, plan measure.Plan, emit func(record.Result) error) error {
	if s.mon == nil {
		return nil
	}
	dur := 2 * time.Second
	if plan.Quick {
		dur = time.Second
	}
	dur, err := measure.DurationOption(plan, "nvml_check", dur)
	if err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if dur == 0 {
		return nil
	}
	n := min(int64(256<<20), s.cap["pinned"], s.cap["device"])
	if n < 1<<20 {
		s.p.note("sustained NVML check skipped: pinned or device buffer below 1 MiB")
		return nil
	}
	g0 := fmt.Sprintf("gpu%d", s.ord[0])
	for _, v := range s.variants(measure.Plan{Options: map[string]string{"variants": "h2d-pinned-stream,d2h-pinned-stream", "peer": "off"}}) {
		if err := ctx.Err(); err != nil {
			return err
		}
		rate := s.bestStream[v.dir]
		if rate <= 0 {
			rate = 25e9
		}
		// Copies go in chunks of about 50 ms of work, two chunks in flight:
		// the host waits for the older chunk while the newer one runs, so
		// the GPU never idles and the loop lasts dur whatever the estimate.
		chunk := int(math.Ceil(0.05 * rate / float64(n)))
		chunk = min(max(chunk, 1), 10000)
		count := 0
		var gen, width int
		fail := func(err error) error { s.mon.Stop(); return err }
		s.mon.Start()
		t0 := time.Now()
		if err := s.drv.EventRecord(s.start, s.stream); err != nil {
			return fail(err)
		}
		for i := 0; ; i++ {
			for j := 0; j < chunk; j++ {
				if err := v.async(n, s.stream); err != nil {
					return fail(err)
				}
			}
			count += chunk
			if err := s.drv.EventRecord(s.chunk[i%2], s.stream); err != nil {
				return fail(err)
			}
			if i == 1 {
				gen, width, _ = s.mon.Link() // read under load
			}
			if i > 0 {
				if err := s.drv.EventSynchronize(s.chunk[(i-1)%2]); err != nil {
					return fail(err)
				}
			}
			if time.Since(t0) >= dur || ctx.Err() != nil || count >= 1_000_000 {
				if gen == 0 { // one chunk was enough: read the link now, its copies still run
					gen, width, _ = s.mon.Link()
				}
				break
			}
		}
		if err := s.drv.EventRecord(s.stop, s.stream); err != nil {
			return fail(err)
		}
		if err := s.drv.EventSynchronize(s.stop); err != nil {
			return fail(err)
		}
		t1 := time.Now()
		samples := s.mon.Stop()
		el, err := s.drv.EventElapsed(s.start, s.stop)
		if err != nil {
			return err
		}
		per := el / float64(count)
		copyRate := float64(n) / per
		// Leave out windows that straddle the start (the first copies are
		// still being queued) or the end.
		tx, rx := PCIeMedian(samples, 20*time.Millisecond, t0.Add(50*time.Millisecond), t1)
		txm, rxm, ntx, nrx := PCIeMean(samples, 20*time.Millisecond, t0.Add(50*time.Millisecond), t1)
		name := strings.TrimSuffix(v.name, "-stream") + "-sustained"
		r := record.Result{
			Probe: "cuda", Variant: name, Stage: v.stage, Target: g0, Timer: "cuda-event", Bytes: n,
			Iterations: count, MinS: per, MedianS: per, P99S: per, MeanS: per, ThroughputBps: copyRate,
			Time: time.Now(), Extra: map[string]float64{
				"duration_s": el, "wall_s": t1.Sub(t0).Seconds(),
				"nvml_tx_Bps": tx, "nvml_rx_Bps": rx, "nvml_tx_mean_Bps": txm, "nvml_rx_mean_Bps": rxm,
				"nvml_tx_samples": float64(ntx), "nvml_rx_samples": float64(nrx),
			},
			Note: "NVML PCIe throughput (median of 20 ms windows) during back-to-back pinned copies; rx = host to device",
		}
		nv := rx
		if v.dir == "d2h" {
			nv = tx
		}
		if copyRate > 0 && nv > 0 {
			r.Extra["nvml_ratio"] = nv / copyRate
		}
		if gen > 0 {
			r.Extra["pcie_gen_load"], r.Extra["pcie_width_load"] = float64(gen), float64(width)
		}
		s.p.logf("%s: copy %.2f GB/s over %.2f s, NVML tx %.2f rx %.2f GB/s (%d+%d samples), link gen%d x%d",
			name, copyRate/1e9, el, tx/1e9, rx/1e9, ntx, nrx, gen, width)
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// touchSink keeps the reads of touchLines from being optimised away.
var touchSink atomic.Uint32

// touchLines brings every 64-byte line of b into the CPU's cache: reading
// one byte of each, or writing one (which leaves the line dirty).
func touchLines(b []byte, write bool) {
	var acc byte
	for i := 0; i < len(b); i += 64 {
		if write {
			b[i] = byte(i)
		} else {
			acc += b[i]
		}
	}
	touchSink.Add(uint32(acc))
}
