//go:build cgo && nvml

package gpu

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

type mockLink struct {
	active     bool
	remoteBus  string // "" makes GetNvLinkRemotePciInfo fail
	remoteType nvml.IntNvLinkDeviceType
}

type mockGPU struct {
	name, uuid, bus string
	links           []mockLink // nil: NVLink not supported
	ancestor        nvml.GpuTopologyLevel
	p2p             nvml.GpuP2PStatus
	noBAR1          bool
	kbps            uint32 // PCIe throughput counter, KB/s
	throughputCalls atomic.Int64
}

func pciInfo(bus string) nvml.PciInfo {
	var p nvml.PciInfo
	for i := 0; i < len(bus) && i < len(p.BusId)-1; i++ {
		p.BusId[i] = int8(bus[i])
	}
	return p
}

// mockNVML builds an NVML mock with the given GPUs. Every function the
// probe calls is set; any other call panics (the mock's nil functions do).
func mockNVML(gpus []*mockGPU) *mock.Interface {
	devs := make([]nvml.Device, len(gpus))
	for i, g := range gpus {
		g := g
		d := &mock.Device{
			GetNameFunc:                   func() (string, nvml.Return) { return g.name, nvml.SUCCESS },
			GetUUIDFunc:                   func() (string, nvml.Return) { return g.uuid, nvml.SUCCESS },
			GetPciInfoFunc:                func() (nvml.PciInfo, nvml.Return) { return pciInfo(g.bus), nvml.SUCCESS },
			GetCurrPcieLinkGenerationFunc: func() (int, nvml.Return) { return 1, nvml.SUCCESS }, // idle: trained down
			GetCurrPcieLinkWidthFunc:      func() (int, nvml.Return) { return 16, nvml.SUCCESS },
			GetMaxPcieLinkGenerationFunc:  func() (int, nvml.Return) { return 5, nvml.SUCCESS },
			GetMaxPcieLinkWidthFunc:       func() (int, nvml.Return) { return 16, nvml.SUCCESS },
			GetBAR1MemoryInfoFunc: func() (nvml.BAR1Memory, nvml.Return) {
				if g.noBAR1 {
					return nvml.BAR1Memory{}, nvml.ERROR_NOT_SUPPORTED
				}
				return nvml.BAR1Memory{Bar1Total: 256 << 30, Bar1Used: 3 << 20, Bar1Free: 256<<30 - 3<<20}, nvml.SUCCESS
			},
			GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) { return nvml.Memory{Total: 143771 << 20}, nvml.SUCCESS },
			GetNvLinkStateFunc: func(l int) (nvml.EnableState, nvml.Return) {
				if g.links == nil {
					return 0, nvml.ERROR_NOT_SUPPORTED
				}
				if l >= len(g.links) {
					return 0, nvml.ERROR_INVALID_ARGUMENT
				}
				if g.links[l].active {
					return nvml.FEATURE_ENABLED, nvml.SUCCESS
				}
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			},
			GetNvLinkVersionFunc: func(l int) (uint32, nvml.Return) { return 4, nvml.SUCCESS },
			GetNvLinkRemotePciInfoFunc: func(l int) (nvml.PciInfo, nvml.Return) {
				if g.links[l].remoteBus == "" {
					return nvml.PciInfo{}, nvml.ERROR_NOT_SUPPORTED
				}
				return pciInfo(g.links[l].remoteBus), nvml.SUCCESS
			},
			GetNvLinkRemoteDeviceTypeFunc: func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
				if g.links[l].remoteBus == "" {
					return 0, nvml.ERROR_NOT_SUPPORTED
				}
				return g.links[l].remoteType, nvml.SUCCESS
			},
			GetTopologyCommonAncestorFunc: func(nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) { return g.ancestor, nvml.SUCCESS },
			GetP2PStatusFunc:              func(nvml.Device, nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) { return g.p2p, nvml.SUCCESS },
			GetPcieThroughputFunc: func(c nvml.PcieUtilCounter) (uint32, nvml.Return) {
				g.throughputCalls.Add(1)
				if c == nvml.PCIE_UTIL_RX_BYTES {
					return 2 * g.kbps, nvml.SUCCESS
				}
				return g.kbps, nvml.SUCCESS
			},
		}
		devs[i] = d
	}
	return &mock.Interface{
		InitFunc:                       func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:                   func() nvml.Return { return nvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return "580.159.04", nvml.SUCCESS },
		SystemGetNVMLVersionFunc:       func() (string, nvml.Return) { return "13.580.159.04", nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return 13000, nvml.SUCCESS },
		DeviceGetCountFunc:             func() (int, nvml.Return) { return len(devs), nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (nvml.Device, nvml.Return) {
			if i < 0 || i >= len(devs) {
				return nil, nvml.ERROR_INVALID_ARGUMENT
			}
			return devs[i], nvml.SUCCESS
		},
		DeviceGetHandleByPciBusIdFunc: func(bus string) (nvml.Device, nvml.Return) {
			for i, g := range gpus {
				if strings.EqualFold(g.bus, bus) || strings.EqualFold(g.bus, "0000"+bus) {
					return devs[i], nvml.SUCCESS
				}
			}
			return nil, nvml.ERROR_NOT_FOUND
		},
	}
}

// h200Pair is the project's GPU machine with two GPUs as ENVIRONMENT.md
// describes it: two H200 joined by 18 NVLinks, PCIe gen5 x16, BAR1 256 GiB,
// common ancestor HOSTBRIDGE (a flat virtual PCI bus), P2P OK.
func h200Pair(viaSwitch bool) []*mockGPU {
	a := &mockGPU{name: "NVIDIA H200", uuid: "GPU-11111111-2222-3333-4444-555555555555", bus: "00000000:00:05.0",
		ancestor: nvml.TOPOLOGY_HOSTBRIDGE, p2p: nvml.P2P_STATUS_OK, kbps: 1500}
	b := &mockGPU{name: "NVIDIA H200", uuid: "GPU-66666666-7777-8888-9999-000000000000", bus: "00000000:00:06.0",
		ancestor: nvml.TOPOLOGY_HOSTBRIDGE, p2p: nvml.P2P_STATUS_OK, kbps: 1500}
	for l := 0; l < 18; l++ {
		if viaSwitch {
			sw := []string{"00000000:05:00.0", "00000000:06:00.0", "00000000:07:00.0", "00000000:08:00.0"}[l%4]
			a.links = append(a.links, mockLink{true, sw, nvml.NVLINK_DEVICE_TYPE_SWITCH})
			b.links = append(b.links, mockLink{true, sw, nvml.NVLINK_DEVICE_TYPE_SWITCH})
		} else {
			a.links = append(a.links, mockLink{true, b.bus, nvml.NVLINK_DEVICE_TYPE_GPU})
			b.links = append(b.links, mockLink{true, a.bus, nvml.NVLINK_DEVICE_TYPE_GPU})
		}
	}
	return []*mockGPU{a, b}
}

func TestNVMLTwoH200NV18(t *testing.T) {
	for _, viaSwitch := range []bool{false, true} {
		lib := mockNVML(h200Pair(viaSwitch))
		p := &NVMLProbe{Lib: lib}
		res, err := runCollect(t, p, measure.Plan{Options: map[string]string{"nvml_idle": "60ms"}})
		if err != nil {
			t.Fatal(err)
		}
		inv := p.Inventory().(*record.GPUInventory)
		if inv.Matrix[0][1] != "NV18" || inv.Matrix[1][0] != "NV18" || inv.Matrix[0][0] != "X" {
			t.Errorf("switch %v: matrix %v", viaSwitch, inv.Matrix)
		}
		wantBasis := map[bool]string{false: "direct", true: "nvswitch"}[viaSwitch]
		if inv.MatrixBasis["0-1"] != wantBasis {
			t.Errorf("basis %v, want %s", inv.MatrixBasis, wantBasis)
		}
		d := inv.Devices[0]
		if d.PCIBusID != "0000:00:05.0" || d.PCIeGenMax != 5 || d.PCIeWidthMax != 16 || d.PCIeGenCurrent != 1 ||
			d.BAR1TotalBytes != 256<<30 || d.ActiveNVLinks() != 18 || d.NVLinks[0].Version != 4 || d.UUID == "" {
			t.Errorf("device %+v", d)
		}
		if inv.DriverVersion != "580.159.04" || inv.CUDADriverVersion != 13000 || len(inv.Warnings) != 0 {
			t.Errorf("inventory %+v", inv)
		}
		if len(inv.P2P) != 2 || inv.P2P[0].NVLink != "OK" || inv.P2P[0].Read != "OK" {
			t.Errorf("p2p %+v", inv.P2P)
		}
		// 2 device records and 2 pair records.
		if len(res) != 4 || res[0].Variant != "device" || res[2].Variant != "pair" {
			t.Fatalf("records %+v", res)
		}
		if r := res[0]; r.Extra["pcie_gen_max"] != 5 || r.Extra["bar1_total_bytes"] != float64(256<<30) || r.Extra["nvlinks_active"] != 18 ||
			r.Extra["idle_tx_Bps"] != 1.5e6 || r.Extra["idle_rx_Bps"] != 3e6 || r.Iterations < 2 || r.Target != "gpu0" {
			t.Errorf("device record %+v", r)
		}
		if r := res[2]; r.Note != "NV18" || r.Extra["nvlinks"] != 18 || r.Extra["p2p_nvlink_ok"] != 1 || r.Target != "gpu0->gpu1" {
			t.Errorf("pair record %+v", r)
		}
		if len(lib.ShutdownCalls()) != 1 {
			t.Errorf("Shutdown called %d times", len(lib.ShutdownCalls()))
		}
	}
}

func TestNVMLWithoutNVLink(t *testing.T) {
	gpus := h200Pair(false)
	for _, g := range gpus {
		g.links = nil
		g.ancestor = nvml.TOPOLOGY_SYSTEM
		g.p2p = nvml.P2P_STATUS_NOT_SUPPORTED
		g.noBAR1 = true
	}
	inv, err := ReadGPUInventory(mockNVML(gpus))
	if err != nil {
		t.Fatal(err)
	}
	if inv.Matrix[0][1] != "SYS" || inv.P2P[0].Read != "NS" || inv.MatrixBasis != nil {
		t.Errorf("matrix %v p2p %+v basis %v", inv.Matrix, inv.P2P, inv.MatrixBasis)
	}
	if len(inv.Devices[0].NVLinks) != 0 || inv.Devices[0].BAR1TotalBytes != 0 {
		t.Errorf("device %+v", inv.Devices[0])
	}
	if len(inv.Warnings) != 2 || !strings.Contains(inv.Warnings[0], "GetBAR1MemoryInfo: ERROR_NOT_SUPPORTED") {
		t.Errorf("warnings %v", inv.Warnings)
	}
	for lvl, want := range map[nvml.GpuTopologyLevel]string{
		nvml.TOPOLOGY_INTERNAL: "PIX", nvml.TOPOLOGY_SINGLE: "PIX", nvml.TOPOLOGY_MULTIPLE: "PXB",
		nvml.TOPOLOGY_HOSTBRIDGE: "PHB", nvml.TOPOLOGY_NODE: "NODE", nvml.TOPOLOGY_SYSTEM: "SYS",
	} {
		if got := topologyClass(lvl); string(got) != want {
			t.Errorf("level %d: %s, want %s", lvl, got, want)
		}
	}
	// Links whose far end NVML cannot name: NV# only if NVLink P2P is OK.
	gpus = h200Pair(false)
	for _, g := range gpus {
		for l := range g.links {
			g.links[l].remoteBus = ""
		}
	}
	inv, err = ReadGPUInventory(mockNVML(gpus))
	if err != nil || inv.Matrix[0][1] != "NV18" || inv.MatrixBasis["0-1"] != "p2p" {
		t.Errorf("unknown remote: %v %v %v", err, inv.Matrix, inv.MatrixBasis)
	}
}

// TestNVMLInitFailure checks that nothing but Init is called when Init
// fails: the mock panics on any function that is not set.
func TestNVMLInitFailure(t *testing.T) {
	for _, ret := range []nvml.Return{nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED} {
		lib := &mock.Interface{InitFunc: func() nvml.Return { return ret }}
		p := &NVMLProbe{Lib: lib}
		if err := p.Available(); !errors.Is(err, measure.ErrUnavailable) || !strings.Contains(err.Error(), nvmlName(ret)) {
			t.Errorf("Available = %v", err)
		}
		_, err := runCollect(t, p, measure.Plan{})
		if !errors.Is(err, measure.ErrUnavailable) || !strings.Contains(err.Error(), "NVML: Init: "+nvmlName(ret)) {
			t.Errorf("Run = %v", err)
		}
		if _, err := ReadGPUInventory(lib); !errors.Is(err, measure.ErrUnavailable) {
			t.Errorf("ReadGPUInventory = %v", err)
		}
		if _, err := openNVMLMonitor(lib, "0000:00:05.0"); !errors.Is(err, measure.ErrUnavailable) {
			t.Errorf("openNVMLMonitor = %v", err)
		}
		if n := len(lib.InitCalls()); n != 4 {
			t.Errorf("Init called %d times", n)
		}
		if p.Inventory() != (*record.GPUInventory)(nil) {
			t.Errorf("inventory after failed Init: %v", p.Inventory())
		}
	}
	if nvmlName(nvml.Return(4242)) != "NVML_RETURN_4242" {
		t.Error(nvmlName(nvml.Return(4242)))
	}
}

func TestNVMLMonitor(t *testing.T) {
	gpus := h200Pair(false)
	gpus[0].kbps = 27_000_000 // 27 GB/s
	lib := mockNVML(gpus)
	m, err := openNVMLMonitor(lib, "0000:00:05.0")
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	t0 := time.Now()
	time.Sleep(150 * time.Millisecond)
	samples := m.Stop()
	t1 := time.Now()
	tx, rx, ntx, nrx := PCIeMean(samples, 0, t0, t1)
	// One reading per 20 ms window and direction: about 7 each in 150 ms.
	if ntx < 4 || ntx > 9 || nrx < 4 || nrx > 9 {
		t.Errorf("%d tx and %d rx samples in 150 ms", ntx, nrx)
	}
	if tx != 27e9 || rx != 54e9 {
		t.Errorf("tx %v rx %v", tx, rx)
	}
	if g, w, err := m.Link(); err != nil || g != 1 || w != 16 {
		t.Errorf("Link = %d %d %v", g, w, err)
	}
	calls := gpus[0].throughputCalls.Load()
	time.Sleep(50 * time.Millisecond)
	if gpus[0].throughputCalls.Load() != calls {
		t.Error("sampling goes on after Stop")
	}
	if err := m.Close(); err != nil || len(lib.ShutdownCalls()) != 1 {
		t.Errorf("Close: %v, %d Shutdown calls", err, len(lib.ShutdownCalls()))
	}
	if _, err := openNVMLMonitor(lib, "0000:99:00.0"); err == nil || !strings.Contains(err.Error(), "ERROR_NOT_FOUND") {
		t.Errorf("unknown GPU: %v", err)
	}
	if len(lib.ShutdownCalls()) != 2 {
		t.Errorf("a failed open must shut NVML down again (%d calls)", len(lib.ShutdownCalls()))
	}
}

// TestNVMLHardware reads the real NVML when there is one.
func TestNVMLHardware(t *testing.T) {
	lib := nvml.New()
	p := &NVMLProbe{Lib: lib, Env: measure.Env{Log: t.Logf}}
	if err := p.Available(); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	var res []record.Result
	err := p.Run(context.Background(), measure.Plan{}, func(r record.Result) error { res = append(res, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inventory %+v", p.Inventory())
}
