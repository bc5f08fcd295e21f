//go:build cgo && nvml

package gpu

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

func init() {
	measure.Register("nvml", func(env measure.Env) measure.Probe { return &NVMLProbe{Env: env} })
	defaultPCIeMonitor = OpenNVMLMonitor
}

// NVMLProbe reads the GPUs through NVML (github.com/NVIDIA/go-nvml, which
// loads libnvidia-ml.so.1 when Init is called): names, UUIDs, PCI addresses,
// PCIe link generation and width (current and max), BAR1 size and use,
// NVLink links, the GPU×GPU topology matrix as `nvidia-smi topo -m` prints
// it, P2P status, and the PCIe throughput counters at rest.
//
// If Init fails (no library, no driver) nothing else is called: go-nvml
// would end the process. The probe then returns ErrUnavailable with the
// NVML status by name (ERROR_LIBRARY_NOT_FOUND ...).
//
// Results: one record per GPU (Variant "device", Target "gpu0") whose Extra
// holds the numbers (pcie_gen_current, pcie_width_max, bar1_total_bytes,
// nvlinks_active, idle_tx_Bps ...), and one per GPU pair (Variant "pair",
// Target "gpu0->gpu1") with the class in Note and nvlinks and p2p_* in
// Extra. These records carry no timings (Iterations is the number of
// counter samples, 0 without). The full inventory is returned by Inventory.
//
// Plan.Options: nvml_idle=200ms (how long to sample the counters at rest;
// 0 turns it off).
type NVMLProbe struct {
	// Lib is the NVML library; nil means go-nvml's libnvidia-ml.so.1 (or
	// the library $GPUPATH_LIBNVML names).
	Lib nvml.Interface
	// Env says where diagnostics go.
	Env measure.Env
	inv *record.GPUInventory
}

// Name returns "nvml".
func (p *NVMLProbe) Name() string { return "nvml" }

// Weight is the probe's share of a run's budget (measure.Weighted): an
// inventory takes almost none.
func (p *NVMLProbe) Weight() float64 { return 0.2 }

// Options are the settings the nvml probe reads from Plan.Options.
func (p *NVMLProbe) Options() []measure.Option {
	return []measure.Option{
		{Name: "nvml_idle", Kind: measure.OptDuration, Default: "200ms", Doc: "how long to sample the PCIe counters at rest (0: not at all)"},
	}
}

// Inventory returns the *GPUInventory of the last Run (nil before).
func (p *NVMLProbe) Inventory() any { return p.inv }

func (p *NVMLProbe) lib() nvml.Interface {
	if p.Lib == nil {
		p.Lib = newNVML()
	}
	return p.Lib
}

func (p *NVMLProbe) logf(format string, args ...any) {
	p.Env.Logf("nvml: "+format, args...)
}

// Available initialises NVML and shuts it down again.
func (p *NVMLProbe) Available() error {
	lib := p.lib()
	if err := nvmlInit(lib); err != nil {
		return err
	}
	lib.Shutdown()
	return nil
}

// nvmlInit calls Init and turns a failure into ErrUnavailable. After a
// failed Init the caller must not call anything else on lib.
func nvmlInit(lib nvml.Interface) error {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return measure.Unavailable("NVML: Init: %s", nvmlName(ret))
	}
	return nil
}

// nvmlName names an NVML status without asking the library (after a failed
// Init, asking it is not safe).
func nvmlName(r nvml.Return) string {
	names := map[nvml.Return]string{
		nvml.SUCCESS: "SUCCESS", nvml.ERROR_UNINITIALIZED: "ERROR_UNINITIALIZED",
		nvml.ERROR_INVALID_ARGUMENT: "ERROR_INVALID_ARGUMENT", nvml.ERROR_NOT_SUPPORTED: "ERROR_NOT_SUPPORTED",
		nvml.ERROR_NO_PERMISSION: "ERROR_NO_PERMISSION", nvml.ERROR_ALREADY_INITIALIZED: "ERROR_ALREADY_INITIALIZED",
		nvml.ERROR_NOT_FOUND: "ERROR_NOT_FOUND", nvml.ERROR_INSUFFICIENT_SIZE: "ERROR_INSUFFICIENT_SIZE",
		nvml.ERROR_INSUFFICIENT_POWER: "ERROR_INSUFFICIENT_POWER", nvml.ERROR_DRIVER_NOT_LOADED: "ERROR_DRIVER_NOT_LOADED",
		nvml.ERROR_TIMEOUT: "ERROR_TIMEOUT", nvml.ERROR_IRQ_ISSUE: "ERROR_IRQ_ISSUE",
		nvml.ERROR_LIBRARY_NOT_FOUND: "ERROR_LIBRARY_NOT_FOUND", nvml.ERROR_FUNCTION_NOT_FOUND: "ERROR_FUNCTION_NOT_FOUND",
		nvml.ERROR_CORRUPTED_INFOROM: "ERROR_CORRUPTED_INFOROM", nvml.ERROR_GPU_IS_LOST: "ERROR_GPU_IS_LOST",
		nvml.ERROR_RESET_REQUIRED: "ERROR_RESET_REQUIRED", nvml.ERROR_OPERATING_SYSTEM: "ERROR_OPERATING_SYSTEM",
		nvml.ERROR_LIB_RM_VERSION_MISMATCH: "ERROR_LIB_RM_VERSION_MISMATCH", nvml.ERROR_IN_USE: "ERROR_IN_USE",
		nvml.ERROR_MEMORY: "ERROR_MEMORY", nvml.ERROR_NO_DATA: "ERROR_NO_DATA",
		nvml.ERROR_VGPU_ECC_NOT_SUPPORTED: "ERROR_VGPU_ECC_NOT_SUPPORTED",
		nvml.ERROR_INSUFFICIENT_RESOURCES: "ERROR_INSUFFICIENT_RESOURCES", nvml.ERROR_FREQ_NOT_SUPPORTED: "ERROR_FREQ_NOT_SUPPORTED",
		nvml.ERROR_ARGUMENT_VERSION_MISMATCH: "ERROR_ARGUMENT_VERSION_MISMATCH", nvml.ERROR_DEPRECATED: "ERROR_DEPRECATED",
		nvml.ERROR_NOT_READY: "ERROR_NOT_READY", nvml.ERROR_GPU_NOT_FOUND: "ERROR_GPU_NOT_FOUND",
		nvml.ERROR_INVALID_STATE: "ERROR_INVALID_STATE", nvml.ERROR_UNKNOWN: "ERROR_UNKNOWN",
	}
	if n, ok := names[r]; ok {
		return n
	}
	return "NVML_RETURN_" + strconv.Itoa(int(r))
}

// ReadGPUInventory initialises NVML, reads the inventory and shuts NVML
// down. An Init failure is ErrUnavailable, and nothing else is called.
func ReadGPUInventory(lib nvml.Interface) (*record.GPUInventory, error) {
	if err := nvmlInit(lib); err != nil {
		return nil, err
	}
	defer lib.Shutdown()
	inv, _, err := collectGPUInventory(lib)
	return inv, err
}

// Run reads the inventory, samples the PCIe counters at rest and emits the
// records described on the type.
func (p *NVMLProbe) Run(ctx context.Context, plan measure.Plan, emit func(record.Result) error) error {
	lib := p.lib()
	if err := nvmlInit(lib); err != nil {
		return err
	}
	defer lib.Shutdown()
	inv, devs, err := collectGPUInventory(lib)
	if inv != nil {
		p.inv = inv
	}
	if err != nil {
		return err
	}
	p.logf("driver %s, NVML %s, %d GPUs", inv.DriverVersion, inv.NVMLVersion, len(inv.Devices))
	idle, err := measure.DurationOption(plan, "nvml_idle", 200*time.Millisecond)
	if err != nil {
		return fmt.Errorf("nvml: %w", err)
	}
	counts := make([]int, len(devs))
	if idle > 0 {
		for i, d := range devs {
			if err := ctx.Err(); err != nil {
				return err
			}
			m := newNVMLMonitor(d)
			m.Start()
			t0 := time.Now()
			select {
			case <-ctx.Done():
			case <-time.After(idle):
			}
			samples := m.Stop()
			tx, rx, ntx, nrx := PCIeMean(samples, 0, t0, time.Now())
			inv.Devices[i].IdleTxBps, inv.Devices[i].IdleRxBps = tx, rx
			counts[i] = ntx + nrx
			if ntx+nrx == 0 && len(m.errs) > 0 {
				inv.Warnings = append(inv.Warnings, fmt.Sprintf("gpu%d: PCIe throughput: %s", i, m.errs[0]))
			}
		}
	}
	now := time.Now()
	for i, d := range inv.Devices {
		p.logf("gpu%d %s %s PCIe gen%d x%d now, gen%d x%d max, BAR1 %d MiB, %d NVLinks active",
			i, d.Name, d.PCIBusID, d.PCIeGenCurrent, d.PCIeWidthCurrent, d.PCIeGenMax, d.PCIeWidthMax, d.BAR1TotalBytes>>20, d.ActiveNVLinks())
		r := record.Result{Probe: "nvml", Variant: "device", Target: fmt.Sprintf("gpu%d", i), Iterations: counts[i], Time: now,
			Note: fmt.Sprintf("%s %s %s", d.Name, d.UUID, d.PCIBusID),
			Extra: map[string]float64{
				"pcie_gen_current": float64(d.PCIeGenCurrent), "pcie_width_current": float64(d.PCIeWidthCurrent),
				"pcie_gen_max": float64(d.PCIeGenMax), "pcie_width_max": float64(d.PCIeWidthMax),
				"bar1_total_bytes": float64(d.BAR1TotalBytes), "bar1_used_bytes": float64(d.BAR1UsedBytes),
				"mem_total_bytes": float64(d.MemTotalBytes), "nvlinks_active": float64(d.ActiveNVLinks()),
				"idle_tx_Bps": d.IdleTxBps, "idle_rx_Bps": d.IdleRxBps,
			}}
		if err := emit(r); err != nil {
			return err
		}
	}
	for _, pp := range inv.P2P {
		cls := inv.Matrix[pp.From][pp.To]
		nv, _ := topo.Class(cls).NVLinks()
		r := record.Result{Probe: "nvml", Variant: "pair", Target: fmt.Sprintf("gpu%d->gpu%d", pp.From, pp.To), Time: now,
			Note: cls,
			Extra: map[string]float64{"nvlinks": float64(nv),
				"p2p_read_ok": record.Bool(pp.Read == "OK"), "p2p_write_ok": record.Bool(pp.Write == "OK"),
				"p2p_nvlink_ok": record.Bool(pp.NVLink == "OK"), "p2p_atomics_ok": record.Bool(pp.Atomics == "OK"), "p2p_pci_ok": record.Bool(pp.PCI == "OK")}}
		if err := emit(r); err != nil {
			return err
		}
	}
	for _, w := range inv.Warnings {
		p.logf("warning: %s", w)
	}
	return nil
}

// collectGPUInventory reads everything NVML says about the GPUs; NVML must
// be initialised. Queries a GPU does not support become warnings.
func collectGPUInventory(lib nvml.Interface) (*record.GPUInventory, []nvml.Device, error) {
	inv := &record.GPUInventory{MatrixBasis: map[string]string{}}
	warn := func(format string, args ...any) { inv.Warnings = append(inv.Warnings, fmt.Sprintf(format, args...)) }
	if v, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		inv.DriverVersion = v
	}
	if v, ret := lib.SystemGetNVMLVersion(); ret == nvml.SUCCESS {
		inv.NVMLVersion = v
	}
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		inv.CUDADriverVersion = v
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return inv, nil, fmt.Errorf("nvml: DeviceGetCount: %s", nvmlName(ret))
	}
	if n == 0 {
		return inv, nil, measure.Unavailable("NVML sees no GPU")
	}
	devs := make([]nvml.Device, n)
	for i := 0; i < n; i++ {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return inv, nil, fmt.Errorf("nvml: DeviceGetHandleByIndex(%d): %s", i, nvmlName(ret))
		}
		devs[i] = d
		inv.Devices = append(inv.Devices, readGPUDevice(i, d, warn))
	}
	// The topology matrix and P2P status.
	inv.Matrix = make([][]string, n)
	for i := range devs {
		inv.Matrix[i] = make([]string, n)
		for j := range devs {
			if i == j {
				inv.Matrix[i][j] = string(topo.Self)
				continue
			}
			cls, basis := classifyGPUPair(inv, devs, i, j, warn)
			inv.Matrix[i][j] = string(cls)
			if basis != "" {
				inv.MatrixBasis[fmt.Sprintf("%d-%d", i, j)] = basis
			}
			inv.P2P = append(inv.P2P, record.GPUP2P{From: i, To: j,
				Read: p2pStatus(devs[i], devs[j], nvml.P2P_CAPS_INDEX_READ), Write: p2pStatus(devs[i], devs[j], nvml.P2P_CAPS_INDEX_WRITE),
				NVLink: p2pStatus(devs[i], devs[j], nvml.P2P_CAPS_INDEX_NVLINK), Atomics: p2pStatus(devs[i], devs[j], nvml.P2P_CAPS_INDEX_ATOMICS),
				PCI: p2pStatus(devs[i], devs[j], nvml.P2P_CAPS_INDEX_PCI)})
		}
	}
	if len(inv.MatrixBasis) == 0 {
		inv.MatrixBasis = nil
	}
	return inv, devs, nil
}

// busID returns the canonical PCI address of an NVML PciInfo.
func busID(p nvml.PciInfo) string {
	b := make([]byte, 0, len(p.BusId))
	for _, c := range p.BusId {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	if a, err := topo.ParseAddress(string(b)); err == nil {
		return a
	}
	return string(b)
}

func readGPUDevice(i int, d nvml.Device, warn func(string, ...any)) record.GPUDevice {
	g := record.GPUDevice{Index: i}
	str := func(what string, f func() (string, nvml.Return)) string {
		v, ret := f()
		if ret != nvml.SUCCESS {
			warn("gpu%d: %s: %s", i, what, nvmlName(ret))
		}
		return v
	}
	num := func(what string, f func() (int, nvml.Return)) int {
		v, ret := f()
		if ret != nvml.SUCCESS {
			warn("gpu%d: %s: %s", i, what, nvmlName(ret))
			return 0
		}
		return v
	}
	g.Name = str("GetName", d.GetName)
	g.UUID = str("GetUUID", d.GetUUID)
	if pi, ret := d.GetPciInfo(); ret == nvml.SUCCESS {
		g.PCIBusID = busID(pi)
	} else {
		warn("gpu%d: GetPciInfo: %s", i, nvmlName(ret))
	}
	g.PCIeGenCurrent = num("GetCurrPcieLinkGeneration", d.GetCurrPcieLinkGeneration)
	g.PCIeWidthCurrent = num("GetCurrPcieLinkWidth", d.GetCurrPcieLinkWidth)
	g.PCIeGenMax = num("GetMaxPcieLinkGeneration", d.GetMaxPcieLinkGeneration)
	g.PCIeWidthMax = num("GetMaxPcieLinkWidth", d.GetMaxPcieLinkWidth)
	if b, ret := d.GetBAR1MemoryInfo(); ret == nvml.SUCCESS {
		g.BAR1TotalBytes, g.BAR1UsedBytes = int64(b.Bar1Total), int64(b.Bar1Used)
	} else {
		warn("gpu%d: GetBAR1MemoryInfo: %s", i, nvmlName(ret))
	}
	if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
		g.MemTotalBytes = int64(m.Total)
	} else {
		warn("gpu%d: GetMemoryInfo: %s", i, nvmlName(ret))
	}
	for l := 0; l < nvml.NVLINK_MAX_LINKS; l++ {
		st, ret := d.GetNvLinkState(l)
		switch ret {
		case nvml.SUCCESS:
		case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_INVALID_ARGUMENT:
			// No NVLink on this GPU, or no link with this number.
			continue
		default:
			warn("gpu%d: GetNvLinkState(%d): %s", i, l, nvmlName(ret))
			continue
		}
		link := record.GPUNVLink{Link: l, Active: st == nvml.FEATURE_ENABLED}
		if link.Active {
			if v, ret := d.GetNvLinkVersion(l); ret == nvml.SUCCESS {
				link.Version = v
			}
			if pi, ret := d.GetNvLinkRemotePciInfo(l); ret == nvml.SUCCESS {
				link.RemoteBusID = busID(pi)
			}
			link.RemoteType = "unknown"
			if t, ret := d.GetNvLinkRemoteDeviceType(l); ret == nvml.SUCCESS {
				switch t {
				case nvml.NVLINK_DEVICE_TYPE_GPU:
					link.RemoteType = "gpu"
				case nvml.NVLINK_DEVICE_TYPE_SWITCH:
					link.RemoteType = "switch"
				case nvml.NVLINK_DEVICE_TYPE_IBMNPU:
					link.RemoteType = "ibmnpu"
				}
			}
		}
		g.NVLinks = append(g.NVLinks, link)
	}
	return g
}

// classifyGPUPair returns the class nvidia-smi prints for GPUs i and j:
// NV# when NVLink joins them, else the PCIe level of their common ancestor.
// The NVLink count is found, in order, from links of i whose far end is j
// ("direct"), from both GPUs' links into NVSwitches (every pair of GPUs on
// the same NVSwitch fabric shows the smaller link count, as NV18 on HGX
// H100/H200: "nvswitch"), or, when the far ends are unknown, from the
// active link counts if NVML reports NVLink P2P as OK ("p2p").
func classifyGPUPair(inv *record.GPUInventory, devs []nvml.Device, i, j int, warn func(string, ...any)) (topo.Class, string) {
	a, b := inv.Devices[i], inv.Devices[j]
	direct, swA, swB, unknownA := 0, 0, 0, 0
	for _, l := range a.NVLinks {
		if !l.Active {
			continue
		}
		switch {
		case l.RemoteBusID != "" && l.RemoteBusID == b.PCIBusID:
			direct++
		case l.RemoteType == "switch":
			swA++
		case l.RemoteBusID == "":
			unknownA++
		}
	}
	for _, l := range b.NVLinks {
		if l.Active && l.RemoteType == "switch" {
			swB++
		}
	}
	switch {
	case direct > 0:
		return topo.NVLink(direct), "direct"
	case swA > 0 && swB > 0:
		return topo.NVLink(min(swA, swB)), "nvswitch"
	case unknownA > 0 && b.ActiveNVLinks() > 0 && p2pStatus(devs[i], devs[j], nvml.P2P_CAPS_INDEX_NVLINK) == "OK":
		return topo.NVLink(min(unknownA, b.ActiveNVLinks())), "p2p"
	}
	lvl, ret := devs[i].GetTopologyCommonAncestor(devs[j])
	if ret != nvml.SUCCESS {
		warn("gpu%d-gpu%d: GetTopologyCommonAncestor: %s", i, j, nvmlName(ret))
		return "", ""
	}
	return topologyClass(lvl), ""
}

// topologyClass maps NVML's common-ancestor level to nvidia-smi's class.
// TOPOLOGY_INTERNAL (two GPUs on one board) is shown as PIX.
func topologyClass(l nvml.GpuTopologyLevel) topo.Class {
	switch l {
	case nvml.TOPOLOGY_INTERNAL, nvml.TOPOLOGY_SINGLE:
		return topo.PIX
	case nvml.TOPOLOGY_MULTIPLE:
		return topo.PXB
	case nvml.TOPOLOGY_HOSTBRIDGE:
		return topo.PHB
	case nvml.TOPOLOGY_NODE:
		return topo.NODE
	case nvml.TOPOLOGY_SYSTEM:
		return topo.SYS
	}
	return topo.Class("level" + strconv.Itoa(int(l)))
}

func p2pStatus(a, b nvml.Device, idx nvml.GpuP2PCapsIndex) string {
	st, ret := a.GetP2PStatus(b, idx)
	if ret != nvml.SUCCESS {
		return "U"
	}
	switch st {
	case nvml.P2P_STATUS_OK:
		return "OK"
	case nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED:
		return "CNS"
	case nvml.P2P_STATUS_GPU_NOT_SUPPORTED:
		return "GNS"
	case nvml.P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
		return "TNS"
	case nvml.P2P_STATUS_DISABLED_BY_REGKEY:
		return "DR"
	case nvml.P2P_STATUS_NOT_SUPPORTED:
		return "NS"
	}
	return "U"
}

// nvmlMonitor samples one GPU's PCIe TX and RX counters, each in its own
// goroutine (nvmlDeviceGetPcieThroughput measures a byte counter over 20 ms
// and may take that long to return; NVML is thread-safe).
type nvmlMonitor struct {
	dev   nvml.Device
	lib   nvml.Interface // set when the monitor initialised NVML itself
	mu    sync.Mutex
	out   []PCIeSample
	errs  []string
	stop  chan struct{}
	wg    sync.WaitGroup
	every time.Duration
}

// newNVML is go-nvml's library: libnvidia-ml.so.1, or the one
// $GPUPATH_LIBNVML names.
func newNVML() nvml.Interface {
	if lib := os.Getenv(LibNVMLEnv); lib != "" {
		return nvml.New(nvml.WithLibraryPath(lib))
	}
	return nvml.New()
}

func newNVMLMonitor(d nvml.Device) *nvmlMonitor {
	return &nvmlMonitor{dev: d, every: 20 * time.Millisecond}
}

// OpenNVMLMonitor initialises NVML and opens a PCIe throughput monitor for
// the GPU at pciBusID ("0000:8F:00.0" as CUDA prints it). The counters are
// read once to check that the GPU supports them.
func OpenNVMLMonitor(pciBusID string) (PCIeMonitor, error) {
	return openNVMLMonitor(newNVML(), pciBusID)
}

func openNVMLMonitor(lib nvml.Interface, pciBusID string) (*nvmlMonitor, error) {
	if err := nvmlInit(lib); err != nil {
		return nil, err
	}
	d, ret := lib.DeviceGetHandleByPciBusId(pciBusID)
	if ret != nvml.SUCCESS {
		lib.Shutdown()
		return nil, fmt.Errorf("nvml: DeviceGetHandleByPciBusId(%s): %s", pciBusID, nvmlName(ret))
	}
	if _, ret := d.GetPcieThroughput(nvml.PCIE_UTIL_TX_BYTES); ret != nvml.SUCCESS {
		lib.Shutdown()
		return nil, fmt.Errorf("nvml: GetPcieThroughput: %s", nvmlName(ret))
	}
	m := newNVMLMonitor(d)
	m.lib = lib
	return m, nil
}

// Start begins sampling both directions.
func (m *nvmlMonitor) Start() {
	m.mu.Lock()
	m.out, m.errs = nil, nil
	m.mu.Unlock()
	m.stop = make(chan struct{})
	for _, c := range []struct {
		counter nvml.PcieUtilCounter
		dir     string
	}{{nvml.PCIE_UTIL_TX_BYTES, "tx"}, {nvml.PCIE_UTIL_RX_BYTES, "rx"}} {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			next := time.Now()
			for {
				select {
				case <-m.stop:
					return
				default:
				}
				// At most one reading per window, whether or not the call blocks.
				if d := time.Until(next); d > 0 {
					select {
					case <-m.stop:
						return
					case <-time.After(d):
					}
				}
				next = time.Now().Add(m.every)
				v, ret := m.dev.GetPcieThroughput(c.counter)
				end := time.Now()
				m.mu.Lock()
				if ret == nvml.SUCCESS {
					// NVML reports KB/s; taken as 1000 bytes (decimal, as
					// rates are in this project; 1024 would read 2.4% higher).
					m.out = append(m.out, PCIeSample{End: end, Dir: c.dir, Bps: float64(v) * 1000})
				} else if len(m.errs) < 10 {
					m.errs = append(m.errs, nvmlName(ret))
				}
				m.mu.Unlock()
			}
		}()
	}
}

// Stop ends sampling and returns the samples.
func (m *nvmlMonitor) Stop() []PCIeSample {
	if m.stop != nil {
		close(m.stop)
		m.wg.Wait()
		m.stop = nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]PCIeSample(nil), m.out...)
}

// Link reads the current PCIe generation and width.
func (m *nvmlMonitor) Link() (int, int, error) {
	g, ret := m.dev.GetCurrPcieLinkGeneration()
	if ret != nvml.SUCCESS {
		return 0, 0, fmt.Errorf("nvml: GetCurrPcieLinkGeneration: %s", nvmlName(ret))
	}
	w, ret := m.dev.GetCurrPcieLinkWidth()
	if ret != nvml.SUCCESS {
		return 0, 0, fmt.Errorf("nvml: GetCurrPcieLinkWidth: %s", nvmlName(ret))
	}
	return g, w, nil
}

// Close stops sampling and shuts NVML down if the monitor initialised it.
func (m *nvmlMonitor) Close() error {
	m.Stop()
	if m.lib != nil {
		if ret := m.lib.Shutdown(); ret != nvml.SUCCESS {
			return fmt.Errorf("nvml: Shutdown: %s", nvmlName(ret))
		}
		m.lib = nil
	}
	return nil
}
