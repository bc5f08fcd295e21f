package calib

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/sysfstest"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

// overrideTexts are the overrides by key, as their values' text.
func overrideTexts(t *testing.T, ovs []model.Override) (map[string]string, map[string]string) {
	t.Helper()
	got, src := map[string]string{}, map[string]string{}
	for _, o := range ovs {
		v, err := o.Text()
		if err != nil {
			t.Errorf("%s: %v", o.Key, err)
		}
		got[o.Key], src[o.Key] = v, o.Source
	}
	return got, src
}

func TestGPUFacts(t *testing.T) {
	root := sysfstest.Write(t, sysfstest.Opts{GPU: true, IB: true, State: "4: ACTIVE", Layer: "InfiniBand", Rate: "400 Gb/sec (4X NDR)", NetSpeed: "400000"})
	tp, err := readTopology(root)
	if err != nil {
		t.Fatal(err)
	}
	inv := record.Inventories{
		Topo: tp,
		CUDA: &record.CUDAInventory{Devices: []record.CUDADevice{{Ordinal: 0, Name: "NVIDIA H200", PCIBusID: "0000:03:00.0"}}},
		NVML: &record.GPUInventory{Devices: []record.GPUDevice{{Index: 0, Name: "NVIDIA H200", PCIBusID: "0000:03:00.0", PCIeGenMax: 5, PCIeWidthMax: 16}},
			Matrix: [][]string{{"X", "NV18"}, {"NV18", "X"}}},
	}
	results := []record.Result{
		{Probe: "cuda", Variant: "h2d-pinned", Target: "gpu0", Timer: "wall", Bytes: 4, Iterations: 100, MedianS: 9.0e-6},
		{Probe: "cuda", Variant: "h2d-pinned", Target: "gpu0", Timer: "wall", Bytes: 4096, Iterations: 100, MedianS: 10e-6},
		{Probe: "cuda", Variant: "d2h-pinned", Target: "gpu0", Timer: "wall", Bytes: 4, Iterations: 100, MedianS: 9.2e-6},
		{Probe: "cuda", Variant: "d2h-pinned", Target: "gpu0", Timer: "cuda-event", Bytes: 4, Iterations: 100, MedianS: 3e-6},
		{Probe: "cuda", Variant: "h2d-pinned-stream", Target: "gpu0", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 55.4e9},
		{Probe: "cuda", Variant: "d2h-pinned-stream", Target: "gpu0", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 55.3e9},
		{Probe: "cuda", Variant: "peer-stream", Target: "gpu0->gpu1", Timer: "cuda-event", Bytes: 1 << 20, Iterations: 5, ThroughputBps: 300e9, Extra: map[string]float64{"peer_access": 1}},
		{Probe: "cuda", Variant: "peer-stream", Target: "gpu0->gpu1", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 390e9, Extra: map[string]float64{"peer_access": 1}},
		{Probe: "cuda", Variant: "peer-stream", Target: "gpu1->gpu0", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 392e9, Extra: map[string]float64{"peer_access": 1}},
	}
	got, src := overrideTexts(t, Overrides(gpuFacts(inv, results)))
	want := map[string]string{
		"gpu.model":        "H200-SXM-141GB", // NVML's name, as the catalog names it
		"gpu.pcie":         "gen5x16",
		"gpu.nvlink_rate":  "391GB/s",
		"topology.gpu_nic": "PIX",
		"nic.pcie":         "gen5x16",
		"nic.rdma":         "true",
		"nic.kind":         "ib",
		"nic.rate":         "400Gbit/s",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (source %q)", k, got[k], v, src[k])
		}
		if src[k] == "" {
			t.Errorf("%s has no source", k)
		}
	}
	if len(got) != len(want)+1 {
		t.Errorf("overrides %v", got)
	}
	if s := src["gpu.pcie"]; !strings.Contains(s, "NVML maximum link of gpu0 (NVIDIA H200, 0000:03:00.0)") || !strings.Contains(s, "H2D 55.4GB/s") {
		t.Errorf("gpu.pcie source %q", s)
	}
	if f := gpuFacts(inv, results).CopyLatency; math.Abs(float64(f.Value)-9.1e-6) > 1e-15 { // mean of 9.0 and 9.2 us at 4 B
		t.Errorf("copy latency %v", f.Value)
	}
	if s := src["gpu.copy_latency"]; !strings.Contains(s, "H2D 9us, D2H 9.2us") {
		t.Errorf("copy_latency source %q", s)
	}

	// Under load, the sustained record's link wins; without peer access no
	// NVLink rate; an Ethernet NIC without RDMA, link speed from the interface.
	results = append(results, record.Result{Probe: "cuda", Variant: "h2d-pinned-sustained", Target: "gpu0", Timer: "cuda-event",
		Bytes: 256 << 20, Iterations: 400, Extra: map[string]float64{"pcie_gen_load": 4, "pcie_width_load": 16}})
	for i := range results {
		if results[i].Variant == "peer-stream" {
			results[i].Extra["peer_access"] = 0
		}
	}
	inv.Topo, err = readTopology(sysfstest.Write(t, sysfstest.Opts{GPU: true, NetSpeed: "100000"}))
	if err != nil {
		t.Fatal(err)
	}
	got, src = overrideTexts(t, Overrides(gpuFacts(inv, results)))
	if got["gpu.pcie"] != "gen4x16" || !strings.Contains(src["gpu.pcie"], "under load") {
		t.Errorf("gpu.pcie %s (%s)", got["gpu.pcie"], src["gpu.pcie"])
	}
	if _, ok := got["gpu.nvlink_rate"]; ok {
		t.Error("nvlink rate without peer access")
	}
	if got["nic.kind"] != "ethernet" || got["nic.rdma"] != "false" || got["nic.rate"] != "100Gbit/s" {
		t.Errorf("ethernet NIC: %v", got)
	}

	// Read back from a manifest (no full reading): the PCI tree is rebuilt
	// from the inventory's GPUs and NICs, and the sources say so.
	inv.Topo.System = nil
	got, src = overrideTexts(t, Overrides(gpuFacts(inv, results)))
	if got["topology.gpu_nic"] == "" || !strings.Contains(src["topology.gpu_nic"], "read back") {
		t.Errorf("read back: %v", got)
	}

	// Nothing measured: no overrides, no panic.
	if o := Overrides(gpuFacts(record.Inventories{}, nil)); len(o) != 0 {
		t.Errorf("empty facts: %v", o)
	}
}

// readTopology reads a sysfs tree into the topo probe's inventory, with the
// full reading (System) a live run has.
func readTopology(root string) (*record.TopoInventory, error) {
	sys, err := topo.Reader{Root: root}.Read()
	if err != nil {
		return nil, err
	}
	return &record.TopoInventory{GPUs: sys.GPUs(), NICs: sys.NICs(), Pairs: sys.GPUNICPairs(), RDMA: sys.RDMA, Net: sys.Net, System: sys}, nil
}

func TestSig4(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{7.5062499999999995e-6, 7.506e-6}, {9.100000000000001e-6, 9.1e-6}, {141.12500000000001e-9, 141.1e-9},
		{6.742747229207451e9, 6.743e9}, {55.40845133273836e9, 55.41e9}, {12e9, 12e9}, {0, 0}, {123456, 123500},
	} {
		if got := sig4(c.in); got != c.want {
			t.Errorf("sig4(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
