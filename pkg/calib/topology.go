package calib

import (
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

// inventoryTopology returns the "this host" topology values (topology.gpu_nic,
// nic.pcie, nic.rdma, nic.kind, nic.rate) of a run read back from disk,
// that have no value in ovs yet. A live run classifies the GPU↔NIC
// connection on the full sysfs reading, which is not written to the
// manifest; the manifest keeps the GPUs, NICs, RDMA and network devices
// of the topo probe's inventory, which is all the classification reads, so
// the same overrides are derived from them.
func inventoryTopology(r *record.RunData, ovs []Override) []Override {
	facts, err := HostFacts(r)
	if err != nil || facts.Topo == nil || facts.Topo.System != nil || len(facts.Topo.GPUs) == 0 || len(facts.Topo.NICs) == 0 {
		return nil
	}
	t := *facts.Topo
	t.System = &topo.System{PCI: append(append([]topo.PCIDevice(nil), t.GPUs...), t.NICs...), RDMA: t.RDMA, Net: t.Net}
	facts.Topo = &t
	have := map[string]bool{}
	for _, o := range ovs {
		have[o.Key] = true
	}
	var out []Override
	for _, o := range GPUHostOverrides(facts) {
		switch o.Key {
		case "topology.gpu_nic", "nic.pcie", "nic.rdma", "nic.kind", "nic.rate":
			if !have[o.Key] {
				o.Source += " (read back from the topo probe's inventory in the run's manifest)"
				out = append(out, o)
			}
		}
	}
	return out
}
