package measure

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/record"
)

// GPUFacts gathers, from a run read back from disk, what the GPU-side
// probes found (their inventories in the manifest) and the run's records,
// for GPUHostOverrides.
func GPUFacts(d *record.RunData) (GPUHostFacts, error) {
	inv, err := d.Inventories()
	return GPUHostFacts{NVML: inv.NVML, CUDA: inv.CUDA, Topo: inv.Topo, Results: d.Results}, err
}

// ThisHost returns every "this host" scenario value a run supports: the
// host-side ones (memcpy, syscall, TCP stack costs: HostOverrides) and the
// GPU-side ones (PCIe links, copy latency and rate, NVLink, topology, NIC:
// GPUHostOverrides), with the notes of what could not be derived.
func ThisHost(d *record.RunData) ([]Override, []string, error) {
	ovs, notes := HostOverrides(d.Results)
	facts, err := GPUFacts(d)
	if err != nil {
		return ovs, notes, err
	}
	seen := map[string]bool{}
	for _, o := range ovs {
		seen[o.Key] = true
	}
	for _, o := range GPUHostOverrides(facts) {
		if !seen[o.Key] {
			ovs = append(ovs, o)
			seen[o.Key] = true
		}
	}
	if h := d.Manifest.Host; h.CPUs > 0 && !seen["cpu.cores"] {
		ovs = append(ovs, Override{Key: "cpu.cores", Value: fmt.Sprint(h.CPUs),
			Source: fmt.Sprintf("manifest: %d logical CPUs in /proc/cpuinfo (%s)", h.CPUs, h.CPUModel)})
	}
	return ovs, notes, nil
}
