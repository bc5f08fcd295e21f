package model

import (
	"fmt"
	"slices"
)

func init() {
	mustRegisterStack(Stack{Name: StackNVSHMEM, Title: "NVSHMEM (IBGDA, GPU-initiated)", Order: 40,
		Story: "NVSHMEM's InfiniBand GPUDirect Async transport: a GPU thread writes the work request into a queue in GPU memory and rings the NIC's doorbell itself; the NIC fetches the request from GPU memory, reads the payload, and the remote NIC writes payload and completion into GPU memory, where a GPU thread polls it. No CPU, no proxy thread.",
		Wrap:  wrapNVSHMEM})
}

// wrapNVSHMEM puts IBGDA on the gdr path (NVSHMEM moves GPU memory only):
// the CPU's post and poll go, the doorbell comes from the GPU, the NIC
// fetches the work request from GPU memory by a peer read before it reads
// the payload, and the completion lands in GPU memory. The GPU threads'
// own time to build the request and to see the completion is left out: no
// published figure separates it (the NVSHMEM documentation describes the
// transport, not its costs).
func wrapNVSHMEM(s *Scenario, p Path, bare []Stage) ([]Stage, string, string) {
	if p.Name != "gdr" {
		return bare, fmt.Sprintf("NVSHMEM moves GPU memory by GPUDirect RDMA (IBGDA): %s is shown as the bare transport", p.Name), ""
	}
	st := slices.Clone(bare)
	i, c, e, j := stageIndex(st, "B"), stageIndex(st, "C"), stageIndex(st, "E"), lastIndex(st, "F")
	db := s.PCIe.WriteLatency + s.peerExtraLatency()
	st[i] = Stage{Name: "GPU thread posts (IBGDA)", Letter: "B", Side: Sender, Alpha: db,
		What: fmt.Sprintf("a GPU thread writes the work request into the send queue in GPU memory and rings the NIC's doorbell with a store through the NIC's BAR, a posted peer-to-peer write (%s): pcie.write_latency + the class's extra; no CPU", s.Topology.GPUNIC)}
	host := s.PCIe.WriteLatency + s.nicHostLatency() // the CPU's doorbell the bare stage C charges
	fetch := s.PCIe.ReadLatency + 2*s.nicHostLatency() + s.GPU.BARReadLatency + 2*s.peerExtraLatency()
	st[c].Alpha += fetch - host
	st[c].Name = "NIC fetches the request, reads GPU memory"
	st[c].What = "the NIC fetches the work request from GPU memory (a peer read round trip: pcie.read_latency + gpu.bar_read_latency + the class's extra both ways), then DMA-reads the payload from GPU memory and sends it packet by packet"
	st[e].Alpha -= s.nicHostLatency() // the completion goes to the GPU's queue, not through the NIC's switch levels to host memory
	st[e].What = "the receiving NIC DMA-writes the payload and then the completion straight into GPU memory by PCIe peer-to-peer"
	st[j] = Stage{Name: "GPU thread sees the completion", Letter: "F", Side: Receiver,
		What: "a GPU thread polling the completion queue in GPU memory sees it land: no CPU, no flush"}
	return st, "", ""
}
