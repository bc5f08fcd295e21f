package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
	"github.com/gpupath/gpupath/pkg/units"
)

// ncclGDRLevel is NCCL's default limit for GPUDirect RDMA: it is used
// when GPU and NIC are at most this far apart (NCCL_NET_GDR_LEVEL, default
// PATH_PXB; NCCL docs, "Environment Variables": "NCCL_NET_GDR_LEVEL ...
// default PXB"), and the transfer is staged through host memory beyond.
const ncclGDRLevel = topo.PXB

// topologyCheck classifies every GPU against every NIC from the sysfs PCI
// tree (NVML cannot classify GPU↔NIC pairs; it is used to match GPUs and to
// classify GPU pairs).
type topologyCheck struct{}

func (topologyCheck) Name() string { return "topology" }

// route is a GPU and a NIC with the PCIe path between them.
type route struct {
	gpu, nic topo.PCIDevice
	topo.Connection
	// names are the NIC's RDMA devices, else its interfaces.
	names []string
	rdma  bool
}

func (r route) nicName() string {
	if len(r.names) > 0 {
		return r.nic.Address + " (" + strings.Join(r.names, ", ") + ")"
	}
	return r.nic.Address
}

// bridges lists the bridges the traffic between GPU and NIC passes: the
// common ancestor and everything below it on both sides, or, without a
// common bridge (PHB, NODE, SYS), both chains up to their root ports.
func (r route) bridges() []string {
	a, b := r.gpu.Bridges, r.nic.Bridges
	common := 0
	for common < len(a) && common < len(b) && a[common] == b[common] {
		common++
	}
	var out []string
	from := max(common-1, 0)
	out = append(out, a[from:]...)
	out = append(out, b[common:]...)
	return out
}

// physicalNIC leaves out virtio network functions (a VM's emulated NIC),
// which are no place for GPU traffic.
func physicalNIC(d topo.PCIDevice) bool { return d.IsNIC() && d.Vendor != 0x1af4 }

// routes pairs every GPU with every NIC.
func routes(e *Env) []route {
	return once(e, "routes", func() []route {
		s, err := e.system()
		if err != nil {
			return nil
		}
		var out []route
		for _, g := range s.GPUs() {
			for _, n := range s.NICs() {
				names := n.RDMADevs
				if len(names) == 0 {
					names = n.NetDevs
				}
				out = append(out, route{gpu: g, nic: n, Connection: topo.Classify(g, n), names: names, rdma: len(n.RDMADevs) > 0})
			}
		}
		return out
	})
}

// closest returns, per GPU address, the route to its closest NIC: RDMA NICs
// first, then physical NICs, then any; lowest class rank, then address.
func closest(e *Env) map[string]route {
	return once(e, "closest", func() map[string]route {
		out := map[string]route{}
		better := func(p, q route) bool {
			if p.rdma != q.rdma {
				return p.rdma
			}
			if pp, qp := physicalNIC(p.nic), physicalNIC(q.nic); pp != qp {
				return pp
			}
			if p.Class.Rank() != q.Class.Rank() {
				return p.Class.Rank() < q.Class.Rank()
			}
			return p.nic.Address < q.nic.Address
		}
		for _, r := range routes(e) {
			if c, ok := out[r.gpu.Address]; !ok || better(r, c) {
				out[r.gpu.Address] = r
			}
		}
		return out
	})
}

// hasRDMA reports whether the host has an RDMA device with a PCI function.
func hasRDMA(e *Env) bool {
	s, err := e.system()
	if err != nil {
		return false
	}
	for _, d := range s.RDMA {
		if d.PCIAddress != "" {
			return true
		}
	}
	return false
}

// gpuPath is the model path that GPU traffic between nodes would take at
// best on this host: gdr with an RDMA NIC, else the host-staged rdma path
// (the copies are what a GPU-side finding changes).
func gpuPath(e *Env) string {
	if hasRDMA(e) {
		return "gdr"
	}
	return "rdma"
}

func (topologyCheck) Run(e *Env) []Finding {
	s, err := e.system()
	if err != nil {
		return []Finding{{ID: "topology.gpu-nic", Severity: Unknown, Title: "could not read the PCI tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Error: whyNot(err)}}}}
	}
	var out []Finding
	if f := sysfsWarnings(s); f != nil {
		out = append(out, *f)
	}
	gpus := s.GPUs()
	if len(gpus) == 0 {
		return append(out, Finding{ID: "topology.gpu-nic", Severity: Info, Title: "no NVIDIA GPU in the PCI tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Value: fmt.Sprintf("%d PCI functions, none an NVIDIA display or 3D controller", len(s.PCI))}}})
	}
	out = append(out, gpuNICFindings(e, s, gpus)...)
	if f := gpuGPUFinding(e, gpus); f != nil {
		out = append(out, *f)
	}
	return out
}

// sysfsWarnings turns what the PCI reader could not read into one finding.
func sysfsWarnings(s *topo.System) *Finding {
	if len(s.Warnings) == 0 {
		return nil
	}
	f := &Finding{ID: "topology.read", Severity: Unknown,
		Title: fmt.Sprintf("%d attributes of the PCI, RDMA or network tree could not be read", len(s.Warnings)),
		Why:   "The devices concerned are judged on what could be read; a garbled or missing attribute leaves its field unknown."}
	for _, w := range s.Warnings {
		f.Facts = append(f.Facts, Fact{Source: "/sys", Error: "could not read: " + strings.TrimPrefix(w, "topo: ")})
	}
	return f
}

func gpuNICFindings(e *Env, s *topo.System, gpus []topo.PCIDevice) []Finding {
	var out []Finding
	best := closest(e)
	for _, g := range gpus {
		r, ok := best[g.Address]
		subject := "GPU " + g.Address
		if !ok {
			out = append(out, Finding{ID: "topology.gpu-nic", Severity: Info, Subject: subject,
				Title: "no network controller in the PCI tree: nothing to classify the GPU against",
				Facts: []Fact{{Source: "/sys/bus/pci/devices", Value: fmt.Sprintf("%d PCI functions, no Ethernet or InfiniBand controller", len(s.PCI))}}})
			continue
		}
		var facts []Fact
		for _, q := range routes(e) {
			if q.gpu.Address != g.Address {
				continue
			}
			v := string(q.Class)
			if q.Ancestor != "" {
				v += " (common upstream " + q.Ancestor + ")"
			}
			if !q.rdma {
				v += ", no RDMA"
			}
			facts = append(facts, Fact{Source: "PCI tree: " + g.Address + " ↔ " + q.nicName(), Value: v})
		}
		f := Finding{ID: "topology.gpu-nic", Subject: subject, Facts: facts}
		switch {
		case !r.rdma:
			f.Severity = Info
			f.Title = fmt.Sprintf("no RDMA NIC; the closest network controller %s is %s", r.nicName(), r.Class)
			f.Why = "GPUDirect RDMA needs an RDMA NIC; without one, GPU traffic between nodes is host-staged TCP (see the rdma check)."
		case r.Class.Rank() <= ncclGDRLevel.Rank():
			f.Severity = OK
			f.Title = fmt.Sprintf("closest RDMA NIC %s is %s: within NCCL's GPUDirect limit (%s)", r.nicName(), r.Class, ncclGDRLevel)
		default:
			f.Severity = Warn
			f.Title = fmt.Sprintf("closest RDMA NIC %s is %s: beyond NCCL's GPUDirect limit (%s), so NCCL stages through host memory", r.nicName(), r.Class, ncclGDRLevel)
			f.Why = "NCCL uses GPUDirect RDMA only when GPU and NIC are at most " + string(ncclGDRLevel) + " apart (NCCL_NET_GDR_LEVEL); farther, the NIC reads a bounce buffer in host memory, and peer traffic across the host bridge or the sockets is slow on many platforms anyway."
			f.Fix = "Run on a GPU that shares a PCIe switch with an RDMA NIC (NCCL picks the closest NIC by itself), or move the NIC to the GPU's switch. To force GPUDirect here: NCCL_NET_GDR_LEVEL=" + string(r.Class) + " (measure first: the model's peer factor for " + string(r.Class) + " is an assumption)."
			f.Cost = &Cost{Lead: "NCCL turns GPUDirect RDMA off for this GPU",
				Before: Case{Path: "gdr", Set: caseKeys(calib.Facts{GPUNIC: class(ncclGDRLevel)})},
				After:  Case{Path: "rdma", Set: caseKeys(calib.Facts{GPUNIC: class(r.Class)})}}
		}
		out = append(out, f)
	}
	return out
}

// gpuGPUFinding lists how the GPUs are connected to each other: from the
// PCI tree, and from NVML (which sees NVLink) when available.
func gpuGPUFinding(e *Env, gpus []topo.PCIDevice) *Finding {
	if len(gpus) < 2 {
		return nil
	}
	g, gerr := e.gpuInventory()
	nvByBus := map[string]int{}
	if gerr == nil {
		for _, d := range g.Devices {
			nvByBus[d.PCIBusID] = d.Index
		}
	}
	pairClass := func(i, j int) (string, bool) {
		if g == nil {
			return "", false
		}
		return matrixClass(g, i, j)
	}
	f := &Finding{ID: "topology.gpu-gpu", Severity: OK}
	mismatch := 0
	nvlinked := 0
	for i := 0; i < len(gpus); i++ {
		for j := i + 1; j < len(gpus); j++ {
			a, b := gpus[i], gpus[j]
			c := topo.Classify(a, b)
			f.Facts = append(f.Facts, Fact{Source: "PCI tree: " + a.Address + " ↔ " + b.Address, Value: string(c.Class)})
			ia, oka := nvByBus[a.Address]
			ib, okb := nvByBus[b.Address]
			if !oka || !okb {
				continue
			}
			nc, ok := pairClass(ia, ib)
			if !ok {
				continue
			}
			f.Facts = append(f.Facts, Fact{Source: fmt.Sprintf("NVML gpu%d ↔ gpu%d (nvidia-smi topo -m)", ia, ib), Value: nc})
			cls := topo.Class(nc)
			if _, nv := cls.NVLinks(); nv {
				nvlinked++
			} else if cls.PCIe() && cls != c.Class {
				mismatch++
			}
		}
	}
	n := len(gpus) * (len(gpus) - 1) / 2
	switch {
	case mismatch > 0:
		f.Severity = Info
		f.Title = fmt.Sprintf("%s: the PCI tree and NVML disagree on %d of them", count(n, "GPU pair"), mismatch)
		f.Why = "NVML knows the platform's topology (e.g. PCIe switches hidden by a hypervisor) better than the PCI tree a VM shows; NCCL reads the PCI tree."
	case nvlinked > 0:
		f.Title = fmt.Sprintf("%s, %d joined by NVLink (NVML)", count(n, "GPU pair"), nvlinked)
	case gerr != nil:
		f.Severity = Info
		f.Title = fmt.Sprintf("%s classified from the PCI tree only (no NVML: NVLink unseen)", count(n, "GPU pair"))
	default:
		f.Title = fmt.Sprintf("%s, no NVLink: peer copies use PCIe", count(n, "GPU pair"))
	}
	return f
}

// hostFacts are this machine's facts that prices apply to the scenario
// before every case (calib.Overrides): the first GPU's name (NVML) and
// PCIe link (sysfs, else NVML), and with an RDMA NIC or a physical network
// controller closest to it their class, the NIC's link, and with RDMA its
// kind, rate and (RoCE) MTU. Facts that cannot be read are left to the
// scenario.
func hostFacts(e *Env) calib.Facts {
	return once(e, "hostfacts", func() calib.Facts {
		var f calib.Facts
		s, err := e.system()
		if err != nil {
			return f
		}
		gpus := s.GPUs()
		var g topo.PCIDevice
		if len(gpus) > 0 {
			g = gpus[0]
			at := src(sysTree, "bus/pci/devices/"+g.Address)
			if gen, w := g.Link.MaxGen(), g.Link.MaxWidth; gen > 0 && w > 0 {
				f.GPUPCIe = calib.Found(model.Link{Gen: gen, Lanes: w}, at+"/max_link_speed, max_link_width")
			} else if d, ok := nvmlDevice(e, g.Address); ok && d.PCIeGenMax > 0 && d.PCIeWidthMax > 0 {
				f.GPUPCIe = calib.Found(model.Link{Gen: d.PCIeGenMax, Lanes: d.PCIeWidthMax}, fmt.Sprintf("NVML nvmlDeviceGetMaxPcieLink*(gpu%d)", d.Index))
			}
			if d, ok := nvmlDevice(e, g.Address); ok && d.Name != "" {
				f.GPU = calib.Found(d.Name, fmt.Sprintf("NVML nvmlDeviceGetName(gpu%d)", d.Index))
			}
		}
		r, ok := closest(e)[g.Address]
		if !ok || !(r.rdma || physicalNIC(r.nic)) {
			return f
		}
		nicAt := src(sysTree, "bus/pci/devices/"+r.nic.Address)
		if r.Class.PCIe() {
			f.GPUNIC = calib.Found(model.Class(r.Class), "the PCI tree: GPU "+g.Address+" to its closest NIC "+r.nicName())
		}
		if gen, w := r.nic.Link.MaxGen(), r.nic.Link.MaxWidth; gen > 0 && w > 0 {
			f.NICPCIe = calib.Found(model.Link{Gen: gen, Lanes: w}, nicAt+"/max_link_speed, max_link_width")
		}
		if !r.rdma {
			return f
		}
		for _, d := range s.RDMA {
			if d.PCIAddress != r.nic.Address || len(d.Ports) == 0 {
				continue
			}
			p := d.Ports[0]
			at := src(sysTree, fmt.Sprintf("class/infiniband/%s/ports/%d", d.Name, p.Port))
			switch k := topo.LinkKind(p.LinkLayer); k {
			case model.KindIB, model.KindRoCE:
				f.NICKind, f.RDMA = calib.Found(k, at+"/link_layer"), calib.Found(true, src(sysTree, "class/infiniband/"+d.Name))
				if m := netdevMTU(s, d.NetDevs); m > 0 && k == model.KindRoCE {
					f.MTU = calib.Found(units.Bytes(m), "the MTU of "+strings.Join(d.NetDevs, "/"))
				}
			}
			if p.Active() && p.RateBps > 0 {
				f.NICRate = calib.Found(units.Rate(p.RateBps/8), at+"/rate")
			}
			break
		}
		return f
	})
}

func netdevMTU(s *topo.System, names []string) int {
	for _, n := range s.Net {
		for _, name := range names {
			if n.Name == name && n.MTU > 0 {
				return n.MTU
			}
		}
	}
	return 0
}

// nvmlDevice is the GPU at addr as NVML reports it.
func nvmlDevice(e *Env, addr string) (record.GPUDevice, bool) {
	g, err := e.gpuInventory()
	if err != nil {
		return record.GPUDevice{}, false
	}
	for _, d := range g.Devices {
		if d.PCIBusID == addr {
			return d, true
		}
	}
	return record.GPUDevice{}, false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
