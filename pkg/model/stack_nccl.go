package model

import (
	"fmt"
	"slices"
)

func init() {
	mustRegisterStack(Stack{Name: StackNCCL, Title: "NCCL (proxy thread)", Order: 30,
		Story: "A GPU kernel hands every network step to NCCL's CPU proxy thread, which posts it and, on the receiving node, polls its completion and hands it back to the GPU: getNetOverhead each way (nccl.net_overhead, 1 µs on Intel, 2 µs on AMD). Before Hopper the receiver flushes the NIC's writes before the GPU may read them (gpu.gdr_flush). NCCL uses GPUDirect RDMA only up to nccl.gdr_level (PXB): farther, it stages through host memory.",
		Wrap:  wrapNCCL})
}

// NCCL at NVIDIA/nccl 5067397c: getNetOverhead (src/graph/tuning.cc) is
// the proxy's cost per network step — 1 µs on Intel x86, 2 µs on AMD x86,
// 1 µs on every other CPU; ncclTopoCheckGdr (src/graph/paths.cc) enables
// GPUDirect RDMA only while the GPU↔NIC path is at most PATH_PXB
// (NCCL_NET_GDR_LEVEL); ncclTopoNeedFlush (src/graph/paths.cc) flushes GDR
// receives below compute capability 9.0.
const ncclSource = "NVIDIA/nccl 5067397c"

// ncclNetOverhead is getNetOverhead for a CPU family, as tuning.cc returns
// it (the arch and vendor NCCL reads are what cpu.family names).
func ncclNetOverhead(family string) float64 {
	if family == FamilyAMD {
		return 2e-6
	}
	return 1e-6
}

// wrapNCCL adds NCCL's proxy hand-off on both sides of the network part of
// every inter-node GPU path (before stage B, after the last stage F), and
// on gdr the flush of a GPU before Hopper.
func wrapNCCL(s *Scenario, p Path, bare []Stage) ([]Stage, string, string) {
	if !p.GPU || !p.Internode {
		return bare, fmt.Sprintf("NCCL moves GPU buffers between nodes: %s is shown as the bare transport", p.Name), ""
	}
	o := s.NCCL.NetOverhead
	give := cpuStage("NCCL proxy takes the step", "", Sender, o,
		fmt.Sprintf("the GPU kernel marks the step ready and NCCL's proxy thread sees it and takes it to the network (nccl.net_overhead %s: getNetOverhead, src/graph/tuning.cc at %s)", o.Human(), ncclSource))
	back := cpuStage("NCCL proxy hands the step to the GPU", "", Receiver, o,
		fmt.Sprintf("the receiving proxy thread sees the data arrived and tells the GPU kernel (nccl.net_overhead %s)", o.Human()))
	st := slices.Clone(bare)
	if i := stageIndex(st, "B"); i >= 0 {
		if p.Name == "gdr" {
			st[i].Name, st[i].What = "proxy posts work request", "NCCL's proxy thread writes the work request and rings the NIC's doorbell (nic.post_cost)"
		}
		st = insertStages(st, i, give)
	}
	if j := lastIndex(st, "F"); j >= 0 {
		if p.Name == "gdr" {
			st[j].Name, st[j].What = "proxy polls completion", "the receiving proxy thread polls the completion the NIC wrote (nic.poll_cost)"
		}
		st = insertStages(st, j+1, back)
	}
	if p.Name == "gdr" && s.GPU.GDRFlush {
		st = append(st, s.gdrFlush())
	}
	return st, "", ""
}

// gdrFlush is the receiver's flush before the GPU may read what the NIC
// wrote (GPUs before Hopper, ncclTopoNeedFlush): the proxy posts an RDMA
// read of one word of the GPU buffer through the NIC (its completion
// orders the earlier writes) and polls for it — a host-driven round trip
// inside one node: the doorbell, the NIC, its read of GPU memory, the NIC
// again and the completion written to host memory.
func (s *Scenario) gdrFlush() Stage {
	cpu := s.NIC.PostCost + s.NIC.PollCost
	a := cpu + 2*(s.PCIe.WriteLatency+s.nicHostLatency()+s.NIC.Latency) + s.PCIe.ReadLatency + 2*s.nicHostLatency() + s.GPU.BARReadLatency + 2*s.peerExtraLatency()
	return Stage{Name: "GDR flush (read through the NIC)", Side: Receiver, Alpha: a, Occupancy: a, CPUPerMessage: cpu,
		What: fmt.Sprintf("the receiver's proxy posts an RDMA read of one word of the GPU buffer to the local NIC and waits for it: the read's completion makes the NIC's earlier writes visible to the GPU (NCCL flushes below compute capability 9.0: ncclTopoNeedFlush, src/graph/paths.cc at %s; gpu.gdr_flush)", ncclSource),
		Uses: []Use{{Resource: "cpu:receiver", PerMessage: float64(cpu)}}}
}

// classOrder ranks a topology class, nearest first (PIX 0 … SYS 4).
func classOrder(c Class) int { return slices.Index(Classes, c) }

// ncclGDRNote is what NCCL would do on s's GPU↔NIC placement when it is
// farther than NCCL_NET_GDR_LEVEL: the gdr figures are then GPUDirect RDMA
// forced, which NCCL does not do by default.
func ncclGDRNote(s *Scenario) string {
	c, lvl := s.Topology.GPUNIC, s.NCCL.GDRLevel
	if classOrder(c) <= classOrder(lvl) {
		return ""
	}
	return fmt.Sprintf("NCCL would not use GPUDirect RDMA here: ncclTopoCheckGdr (src/graph/paths.cc at %s) enables it only while the GPU↔NIC path is at most NCCL_NET_GDR_LEVEL (nccl.gdr_level %s), and this GPU and NIC are %s apart, so NCCL stages through host memory (the rdma path); these gdr figures are GPUDirect RDMA forced (NCCL_NET_GDR_LEVEL=%s)", ncclSource, lvl, c, c)
}
