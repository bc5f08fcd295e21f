package measure

import (
	"encoding/json"
	"fmt"
)

// GPUFacts gathers, from a run read back from disk, what the GPU-side
// probes found (their inventories in the manifest) and the run's records,
// for GPUHostOverrides.
func (d *RunData) GPUFacts() (GPUHostFacts, error) {
	f := GPUHostFacts{Results: d.Results}
	for _, p := range d.Manifest.Probes {
		if len(p.Inventory) == 0 {
			continue
		}
		var err error
		switch p.Name {
		case "nvml":
			var inv GPUInventory
			if err = json.Unmarshal(p.Inventory, &inv); err == nil {
				f.NVML = &inv
			}
		case "cuda":
			var inv CUDAInventory
			if err = json.Unmarshal(p.Inventory, &inv); err == nil && len(inv.Devices) > 0 {
				f.CUDA = &inv
			}
		case "topo":
			var inv TopoInventory
			if err = json.Unmarshal(p.Inventory, &inv); err == nil {
				f.Topo = &inv
			}
		}
		if err != nil {
			return f, fmt.Errorf("manifest: inventory of probe %s: %w", p.Name, err)
		}
	}
	return f, nil
}

// ThisHost returns every "this host" scenario value a run supports: the
// host-side ones (memcpy, syscall, TCP stack costs: HostOverrides) and the
// GPU-side ones (PCIe links, copy latency and rate, NVLink, topology, NIC:
// GPUHostOverrides), with the notes of what could not be derived.
func (d *RunData) ThisHost() ([]Override, []string, error) {
	ovs, notes := HostOverrides(d.Results)
	facts, err := d.GPUFacts()
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
