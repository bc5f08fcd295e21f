package calib

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/sysfstest"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

func TestGPUHostOverrides(t *testing.T) {
	root := sysfstest.Write(t, sysfstest.Opts{GPU: true, IB: true, State: "4: ACTIVE", Layer: "InfiniBand", Rate: "400 Gb/sec (4X NDR)", NetSpeed: "400000"})
	tp, err := readTopology(root)
	if err != nil {
		t.Fatal(err)
	}
	facts := GPUHostFacts{
		Topo: tp,
		CUDA: &record.CUDAInventory{Devices: []record.CUDADevice{{Ordinal: 0, Name: "NVIDIA H200", PCIBusID: "0000:03:00.0"}}},
		NVML: &record.GPUInventory{Devices: []record.GPUDevice{{Index: 0, Name: "NVIDIA H200", PCIBusID: "0000:03:00.0", PCIeGenMax: 5, PCIeWidthMax: 16}},
			Matrix: [][]string{{"X", "NV18"}, {"NV18", "X"}}},
		Results: []record.Result{
			{Probe: "cuda", Variant: "h2d-pinned", Target: "gpu0", Timer: "wall", Bytes: 4, Iterations: 100, MedianS: 9.0e-6},
			{Probe: "cuda", Variant: "h2d-pinned", Target: "gpu0", Timer: "wall", Bytes: 4096, Iterations: 100, MedianS: 10e-6},
			{Probe: "cuda", Variant: "d2h-pinned", Target: "gpu0", Timer: "wall", Bytes: 4, Iterations: 100, MedianS: 9.2e-6},
			{Probe: "cuda", Variant: "d2h-pinned", Target: "gpu0", Timer: "cuda-event", Bytes: 4, Iterations: 100, MedianS: 3e-6},
			{Probe: "cuda", Variant: "h2d-pinned-stream", Target: "gpu0", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 55.4e9},
			{Probe: "cuda", Variant: "d2h-pinned-stream", Target: "gpu0", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 55.3e9},
			{Probe: "cuda", Variant: "peer-stream", Target: "gpu0->gpu1", Timer: "cuda-event", Bytes: 1 << 20, Iterations: 5, ThroughputBps: 300e9, Extra: map[string]float64{"peer_access": 1}},
			{Probe: "cuda", Variant: "peer-stream", Target: "gpu0->gpu1", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 390e9, Extra: map[string]float64{"peer_access": 1}},
			{Probe: "cuda", Variant: "peer-stream", Target: "gpu1->gpu0", Timer: "cuda-event", Bytes: 1 << 30, Iterations: 5, ThroughputBps: 392e9, Extra: map[string]float64{"peer_access": 1}},
		},
	}
	got := map[string]Override{}
	for _, o := range GPUHostOverrides(facts) {
		got[o.Key] = o
	}
	want := map[string]string{
		"gpu.pcie":         "gen5x16",
		"gpu.copy_latency": "9.1us", // mean of 9.0 and 9.2 us at 4 B
		"gpu.nvlink_rate":  "391GB/s",
		"topology.gpu_nic": "PIX",
		"nic.pcie":         "gen5x16",
		"nic.rdma":         "true",
		"nic.kind":         "ib",
		"nic.rate":         "400Gbit/s",
	}
	for k, v := range want {
		if got[k].Value != v {
			t.Errorf("%s = %q, want %q (source %q)", k, got[k].Value, v, got[k].Source)
		}
		if got[k].Source == "" {
			t.Errorf("%s has no source", k)
		}
	}
	if len(got) != len(want) {
		t.Errorf("overrides %v", got)
	}
	if s := got["gpu.pcie"].Source; !strings.Contains(s, "NVML maximum link of gpu0 (NVIDIA H200, 0000:03:00.0)") || !strings.Contains(s, "H2D 55.4GB/s") {
		t.Errorf("gpu.pcie source %q", s)
	}
	if s := got["gpu.copy_latency"].Source; !strings.Contains(s, "H2D 9us, D2H 9.2us") {
		t.Errorf("copy_latency source %q", s)
	}

	// Under load, the sustained record's link wins; without peer access no
	// NVLink rate; an Ethernet NIC without RDMA, link speed from the interface.
	facts.Results = append(facts.Results, record.Result{Probe: "cuda", Variant: "h2d-pinned-sustained", Target: "gpu0", Timer: "cuda-event",
		Bytes: 256 << 20, Iterations: 400, Extra: map[string]float64{"pcie_gen_load": 4, "pcie_width_load": 16}})
	for i := range facts.Results {
		if facts.Results[i].Variant == "peer-stream" {
			facts.Results[i].Extra["peer_access"] = 0
		}
	}
	facts.Topo, err = readTopology(sysfstest.Write(t, sysfstest.Opts{GPU: true, NetSpeed: "100000"}))
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]Override{}
	for _, o := range GPUHostOverrides(facts) {
		got[o.Key] = o
	}
	if got["gpu.pcie"].Value != "gen4x16" || !strings.Contains(got["gpu.pcie"].Source, "under load") {
		t.Errorf("gpu.pcie %+v", got["gpu.pcie"])
	}
	if _, ok := got["gpu.nvlink_rate"]; ok {
		t.Error("nvlink rate without peer access")
	}
	if got["nic.kind"].Value != "ethernet" || got["nic.rdma"].Value != "false" || got["nic.rate"].Value != "100Gbit/s" {
		t.Errorf("ethernet NIC: %v", got)
	}

	// Nothing measured: no overrides, no panic.
	if o := GPUHostOverrides(GPUHostFacts{}); len(o) != 0 {
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
