package model

import (
	"fmt"
	"slices"

	"github.com/gpupath/gpupath/pkg/units"
)

// The routes NCCL's network transport takes between nodes, one per
// inter-node path a collective may name (CollectiveSpec.Path):
//
//   - gdr and devmem are the registered paths under the nccl stack: the NIC
//     reads and writes GPU memory (GPUDirect RDMA through NCCL's IB verbs
//     transport; device-memory TCP through a net plugin such as TCPX/TCPXO);
//   - rdma and tcp are NCCL's host-staged transports, which are not the
//     registered rdma and tcp paths: NCCL allocates its network buffers in
//     pinned host memory and the collective's GPU kernel stores each step
//     into them and loads each received step from them (src/transport/net.cc:
//     NCCL_NET_MAP_ADD_POINTER puts a connection's buffers in device memory
//     only when useGdr, else in host memory from ncclCudaHostCalloc; LL's send
//     buffers are host memory even with GDR, which gpupath does not model);
//     there is no cudaMemcpy per step, so no copy-engine launch, only the
//     PCIe writes and reads of the SMs.
//     Over verbs the NIC then reads and writes those host buffers; over
//     sockets (NCCL's socket transport, src/transport/net_socket.cc) the
//     proxy's threads send() and recv() them through the kernel's TCP stack.

// ncclHostStore is the sending side of NCCL's host-staged transports: the
// collective's kernel writes the step into NCCL's pinned host buffer over
// PCIe (posted writes; their rate is taken as the GPU's device→host copy
// rate).
func (s *Scenario) ncclHostStore() Stage {
	rate := s.D2HRate()
	return Stage{Name: "GPU kernel stores into NCCL's host buffer", Letter: "A", Side: Sender, Copy: true,
		What:  fmt.Sprintf("the collective's GPU kernel writes the step over PCIe into NCCL's pinned host buffer in DDR at %s (posted writes of the SMs, taken at the device→host copy rate); no cudaMemcpy, so no copy launch (src/transport/net.cc at %s: host buffers where GPUDirect RDMA is off, ncclCudaHostCalloc)", rate.Human(), ncclSource),
		Alpha: s.PCIe.WriteLatency, PerByte: units.Seconds(1 / float64(rate)), DDR: 1, Crossings: 1,
		Uses: []Use{{Resource: "ddr:sender", PerByte: 1}, {Resource: "pcie:sender-gpu:up", PerByte: 1}}}
}

// ncclHostLoad is the receiving side: the kernel reads the step the NIC
// (or the proxy's recv()) left in NCCL's host buffer, PCIe reads of the
// SMs (taken at the host→device copy rate), one read round trip of latency.
func (s *Scenario) ncclHostLoad() Stage {
	rate := s.H2DRate()
	return Stage{Name: "GPU kernel loads from NCCL's host buffer", Letter: "G", Side: Receiver, Copy: true,
		What:  fmt.Sprintf("the receiving GPU kernel reads the step from NCCL's pinned host buffer over PCIe at %s (reads of the SMs, taken at the host→device copy rate; one read round trip of latency) and reduces or stores it into the user's buffer", rate.Human()),
		Alpha: s.PCIe.ReadLatency, PerByte: units.Seconds(1 / float64(rate)), DDR: 1, Crossings: 1,
		Uses: []Use{{Resource: "ddr:receiver", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}}}
}

// ncclNetPaths are NCCL's host-staged transports as paths (not registered:
// they are what a collective's network step is, not paths of their own).
var ncclNetPaths = map[string]Path{
	"rdma": {Name: "rdma", Title: "RDMA through NCCL's host buffers (NCCL's IB transport without GPUDirect)", GPU: true, Internode: true, HostStaged: true,
		Build: func(s *Scenario) ([]Stage, string) {
			if why := s.noRDMA(); why != "" {
				return nil, why
			}
			st := []Stage{s.ncclHostStore()}
			st = append(st, s.rdmaStages(atBounce)...)
			if i := stageIndex(st, "C"); i >= 0 && st[i].SmallMax > 0 {
				// NCCL inlines only its clear-to-send FIFO entries, never data
				// (src/transport/net_ib/connect.cc: max_inline_data is
				// sizeof(struct ncclIbSendFifo) under NCCL_IB_USE_INLINE).
				st[i].SmallMax, st[i].SmallAlpha = 0, 0
				st[i].What += "; NCCL's IB transport never inlines data (only its clear-to-send FIFO entries)"
			}
			return append(st, s.ncclHostLoad()), ""
		}},
	"tcp": {Name: "tcp", Title: "TCP through NCCL's host buffers (NCCL's socket transport)", GPU: true, Internode: true, HostStaged: true,
		Build: func(s *Scenario) ([]Stage, string) {
			st := []Stage{s.ncclHostStore()}
			st = append(st, s.hostTCPStages(atBounce)...)
			return append(st, s.ncclHostLoad()), ""
		}},
}

// CollectivePaths lists the inter-node paths a collective may take, in the
// order of the account: tcp, rdma, gdr, devmem.
var CollectivePaths = []string{"tcp", "rdma", "gdr", "devmem"}

// NCCLRoute is the route of one network step of an NCCL collective over
// path (tcp, rdma, gdr or devmem) on s, under the nccl stack: gdr and
// devmem as the registered paths; rdma and tcp as NCCL's host-staged
// transports (the kernel stores into and loads from NCCL's pinned host
// buffers: no cudaMemcpy per step).
func (s *Scenario) NCCLRoute(path string) (*Route, error) {
	ns := s.WithStack(StackNCCL)
	if p, ok := ncclNetPaths[path]; ok {
		return p.Route(ns), nil
	}
	if !slices.Contains(CollectivePaths, path) {
		return nil, fmt.Errorf("path %q is not an inter-node path of a collective (%s)", path, joinList(CollectivePaths))
	}
	return ns.Route(path)
}

// NCCLPath is the path NCCL itself takes between nodes on s for a node of
// gpusPerNode GPUs, and why: its IB verbs transport where the NIC does
// RDMA — with GPUDirect RDMA while the GPU↔NIC class is at most
// nccl.gdr_level (ncclTopoCheckGdr, src/graph/paths.cc; PXB unless set; on
// C2C platforms P2C, which no class of this model is), and before Ampere
// only where the GPU has an NVLink peer or is alone (NCCL_NET_GDR_READ:
// sends are then staged, and gpupath stages both directions) — else
// through host memory (rdma); without RDMA its socket transport (tcp).
// devmem is a net plugin's (TCPX, TCPXO), never NCCL's own.
func (s *Scenario) NCCLPath(gpusPerNode int) (path, why string) {
	cc, _ := s.ComputeCapability()
	return s.ncclPath(gpusPerNode, cc)
}

func (s *Scenario) ncclPath(gpusPerNode, cc int) (path, why string) {
	if s.NIC.Kind == KindLoopback {
		return "tcp", "no NIC: NCCL's socket transport over the loopback device"
	}
	if !s.NIC.RDMA {
		return "tcp", fmt.Sprintf("the NIC has no RDMA (nic.rdma false): NCCL's socket transport (src/transport/net_socket.cc at %s); devmem needs a net plugin (TCPX/TCPXO)", ncclSource)
	}
	if classOrder(s.Topology.GPUNIC) > classOrder(s.NCCL.GDRLevel) {
		return "rdma", fmt.Sprintf("GPU and NIC are %s apart, farther than nccl.gdr_level %s: ncclTopoCheckGdr (src/graph/paths.cc at %s) turns GPUDirect RDMA off and NCCL stages through its host buffers", s.Topology.GPUNIC, s.NCCL.GDRLevel, ncclSource)
	}
	if cc < 80 && gpusPerNode > 1 && s.GPU.NVLinkRate <= 0 {
		return "rdma", fmt.Sprintf("before Ampere (compute capability %s) NCCL lets the NIC read GPU memory only when the GPU has an NVLink peer or is alone (NCCL_NET_GDR_READ unset, ncclTopoCheckGdr, src/graph/paths.cc at %s): its sends are staged through host memory", formatCC(cc), ncclSource)
	}
	return "gdr", fmt.Sprintf("GPU and NIC are %s apart, within nccl.gdr_level %s: NCCL's IB transport with GPUDirect RDMA (ncclTopoCheckGdr, src/graph/paths.cc at %s)", s.Topology.GPUNIC, s.NCCL.GDRLevel, ncclSource)
}

// ComputeCapability is the GPU's CUDA compute capability ×10 (90 for 9.0)
// and where it came from: gpu.compute_capability when set; else the
// catalog entry gpu.model names ("compute capability X.Y" in its notes or
// summary, from the CUDA C++ Programming Guide's table); else 9.0 when
// gpu.gdr_flush is false (NCCL flushes GPUDirect receives below 9.0,
// ncclTopoNeedFlush) and 8.0 when it is true.
func (s *Scenario) ComputeCapability() (int, string) {
	if cc := s.GPU.ComputeCapability; cc > 0 {
		return cc, "gpu.compute_capability"
	}
	if e, ok := LookupCatalog(CatalogGPU, s.GPU.Model); ok {
		texts := []string{e.Summary}
		for _, n := range e.Notes {
			texts = append(texts, n.Fact)
		}
		for _, t := range texts {
			if cc, ok := parseCCText(t); ok {
				return cc, fmt.Sprintf("the catalog's %s: compute capability %s", e.Name, formatCC(cc))
			}
		}
	}
	if !s.GPU.GDRFlush {
		return 90, fmt.Sprintf("assumed 9.0: gpu.model %q names no catalog GPU, and gpu.gdr_flush false means 9.0 or later (ncclTopoNeedFlush)", s.GPU.Model)
	}
	return 80, fmt.Sprintf("assumed 8.0: gpu.model %q names no catalog GPU, and gpu.gdr_flush true means below 9.0 (ncclTopoNeedFlush)", s.GPU.Model)
}

// parseCCText finds "compute capability X.Y" in t.
func parseCCText(t string) (int, bool) {
	const key = "compute capability "
	for i := 0; i+len(key) < len(t); i++ {
		if t[i:i+len(key)] != key {
			continue
		}
		j := i + len(key)
		major, k := 0, j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			major = 10*major + int(t[k]-'0')
			k++
		}
		if k == j || k+1 >= len(t) || t[k] != '.' || t[k+1] < '0' || t[k+1] > '9' {
			continue
		}
		return 10*major + int(t[k+1]-'0'), true
	}
	return 0, false
}

func joinList(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
