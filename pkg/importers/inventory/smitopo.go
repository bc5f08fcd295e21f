package inventory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/topo"
)

// DetectSMITopo tells whether b is `nvidia-smi topo -m` output.
func DetectSMITopo(b []byte) bool {
	s := string(b)
	return strings.Contains(s, "Legend:") && strings.Contains(s, "GPU0") && (strings.Contains(s, "PIX") || strings.Contains(s, "NV"))
}

// ParseSMITopo reads `nvidia-smi topo -m` through topo.ParseSMIMatrixBytes:
// the GPUs, the NICs of the legend, and for each GPU its nearest NIC; the
// class most GPUs share with their nearest NIC becomes Hardware.GPUNIC.
func ParseSMITopo(b []byte) (*obs.Output, error) {
	m, err := topo.ParseSMIMatrixBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SMITopo, err)
	}
	out := &obs.Output{Tool: SMITopo}
	var gpus, nics []string
	for _, d := range m.Devices {
		switch {
		case strings.HasPrefix(d, "GPU"):
			gpus = append(gpus, d)
		case strings.HasPrefix(d, "NIC"):
			nics = append(nics, d)
		}
	}
	for _, nic := range nics {
		name := m.NICNames[nic]
		if name == "" {
			name = nic
		}
		out.Hardware.NICs = append(out.Hardware.NICs, obs.NIC{Name: name})
	}
	out.Hardware.GPUsPerNode = len(gpus)
	count := map[string]int{}
	for _, g := range gpus {
		best := topo.Class("")
		for _, nic := range nics {
			c, ok := m.Link(g, nic)
			if !ok || !c.PCIe() {
				continue
			}
			if best == "" || c.Rank() < best.Rank() {
				best = c
			}
		}
		if best != "" {
			count[string(best)]++
			out.Notes = append(out.Notes, fmt.Sprintf("%s: nearest NIC at %s", g, best))
		}
	}
	if len(count) > 0 {
		classes := make([]string, 0, len(count))
		for c := range count {
			classes = append(classes, c)
		}
		sort.Slice(classes, func(i, j int) bool {
			if count[classes[i]] != count[classes[j]] {
				return count[classes[i]] > count[classes[j]]
			}
			return topo.Class(classes[i]).Rank() < topo.Class(classes[j]).Rank()
		})
		out.Hardware.GPUNIC = classes[0]
		out.Hardware.Mark("gpu_nic", 1)
	}
	return out, nil
}
