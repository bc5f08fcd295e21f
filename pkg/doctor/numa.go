package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/topo"
)

// numaCheck reads the NUMA node of every GPU and NIC and the CPUs near
// them: a host-staged transfer's bounce buffer, the proxy thread of NCCL
// and the NIC's DMA should all be on the GPU's and NIC's socket.
type numaCheck struct{}

func (numaCheck) Name() string { return "numa" }

// ParseCPUList parses a kernel CPU list ("0-27,56-83", "3", "") into the
// number of CPUs it names. It refuses malformed lists.
func ParseCPUList(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return 0, fmt.Errorf("bad CPU list %q", oneLine(s))
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<20 {
				return 0, fmt.Errorf("bad CPU list %q", oneLine(s))
			}
		}
		n += b - a + 1
	}
	return n, nil
}

func (numaCheck) Run(e *Env) []Finding {
	s, err := e.system()
	if err != nil {
		return []Finding{{ID: "numa.placement", Severity: Unknown, Title: "could not read the PCI tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Error: whyNot(err)}}}}
	}
	var devs []topo.PCIDevice
	devs = append(devs, s.GPUs()...)
	for _, n := range s.NICs() {
		if physicalNIC(n) {
			devs = append(devs, n)
		}
	}
	if len(devs) == 0 {
		return []Finding{{ID: "numa.placement", Severity: Info, Title: "no GPU or physical NIC: nothing to place",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Value: fmt.Sprintf("%d PCI functions", len(s.PCI))}}}}
	}
	var facts []Fact
	known, unreadable := 0, 0
	for _, d := range devs {
		kind := "NIC"
		if d.IsGPU() {
			kind = "GPU"
		}
		base := "bus/pci/devices/" + d.Address + "/"
		nv, nf := e.text(sysTree, base+"numa_node")
		nf.Source += " (" + kind + ")"
		if _, err := strconv.Atoi(nv); nf.OK() && err != nil {
			nf.Value, nf.Error = "", "could not read: not a number: "+oneLine(nv)
		}
		if !nf.OK() {
			unreadable++
		}
		facts = append(facts, nf)
		if d.NUMANode >= 0 {
			known++
		}
		cpus, cf := e.text(sysTree, base+"local_cpulist")
		if cf.OK() {
			if n, err := ParseCPUList(cpus); err == nil {
				cf.Value += fmt.Sprintf(" (%d CPUs)", n)
			} else {
				cf.Value, cf.Error = "", "could not read: "+err.Error()
			}
		}
		facts = append(facts, cf)
	}
	nodes := 0
	if ents, err := e.readDir(sysTree, "devices/system/node"); err == nil {
		for _, en := range ents {
			if rest, ok := strings.CutPrefix(en.Name(), "node"); ok {
				if _, err := strconv.Atoi(rest); err == nil {
					nodes++
					cl, cf := e.text(sysTree, "devices/system/node/"+en.Name()+"/cpulist")
					if cf.OK() {
						if n, err := ParseCPUList(cl); err == nil {
							cf.Value += fmt.Sprintf(" (%d CPUs)", n)
						} else {
							cf.Value, cf.Error = "", "could not read: "+err.Error()
						}
					}
					facts = append(facts, cf)
				}
			}
		}
	} else {
		facts = append(facts, Fact{Source: "/sys/devices/system/node", Error: whyNot(err)})
	}

	var out []Finding
	split := 0
	for _, g := range s.GPUs() {
		r, ok := closest(e)[g.Address]
		if !ok || !physicalNIC(r.nic) || g.NUMANode < 0 || r.nic.NUMANode < 0 || g.NUMANode == r.nic.NUMANode {
			continue
		}
		split++
		out = append(out, Finding{ID: "numa.placement", Severity: Warn, Subject: "GPU " + g.Address + " ↔ " + r.nicName(),
			Title: fmt.Sprintf("the GPU is on NUMA node %d, its closest NIC on node %d: GPU and NIC across sockets", g.NUMANode, r.nic.NUMANode),
			Facts: []Fact{{Source: src(sysTree, "bus/pci/devices/"+g.Address+"/numa_node"), Value: strconv.Itoa(g.NUMANode)},
				{Source: src(sysTree, "bus/pci/devices/"+r.nic.Address+"/numa_node"), Value: strconv.Itoa(r.nic.NUMANode)}},
			Why: "Peer traffic between them crosses the inter-socket link (SYS: NCCL will not use GPUDirect), and a host-staged transfer's bounce buffer is remote to one of them.",
			Fix: "Pair each GPU with a NIC on its own socket (NCCL does when one exists; check NCCL_IB_HCA), and bind the process to that node: numactl --cpunodebind=N --membind=N.",
			Cost: &Cost{Lead: "the bounce buffer is across the socket from the NIC",
				Before: Case{Path: "rdma", Set: caseKeys(calib.Facts{GPUNIC: is(model.NODE)})},
				After:  Case{Path: "rdma", Set: caseKeys(calib.Facts{GPUNIC: is(model.SYS)})}}})
	}
	if split > 0 {
		return out
	}
	f := Finding{ID: "numa.placement", Facts: facts}
	switch {
	case unreadable > 0:
		f.Severity = Unknown
		f.Title = fmt.Sprintf("the NUMA node of %s could not be read", count(unreadable, "GPU or NIC"))
	case known == 0:
		f.Severity = Info
		f.Title = "no NUMA node given for any GPU or NIC (one node, or a VM that does not say)"
		if nodes > 1 {
			f.Severity = Unknown
			f.Title = fmt.Sprintf("%d NUMA nodes, but no GPU or NIC says which it is on", nodes)
		}
	case len(s.GPUs()) == 0 || !anyPhysicalNIC(s):
		f.Severity = OK
		f.Title = "NUMA nodes read; no GPU–NIC pair to place"
	default:
		f.Severity = OK
		f.Title = "every GPU is on the NUMA node of its closest NIC"
	}
	return []Finding{f}
}

func anyPhysicalNIC(s *topo.System) bool {
	for _, n := range s.NICs() {
		if physicalNIC(n) {
			return true
		}
	}
	return false
}
