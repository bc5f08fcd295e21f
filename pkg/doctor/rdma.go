package doctor

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/topo"
	"github.com/gpupath/gpupath/pkg/units"
)

// rdmaCheck reads the RDMA devices (/sys/class/infiniband): each port's
// state, rate and link layer, the RoCE GID types, and the RDMA MTU.
type rdmaCheck struct{}

func (rdmaCheck) Name() string { return "rdma" }

// RoCE header bytes the kernel takes from the interface MTU to find the
// RDMA MTU (include/rdma/ib_addr.h, iboe_get_mtu: GRH 40 + UDP 8 + BTH 12 +
// XRC 4 + AtomicETH 28 + ICRC 4).
const roceOverhead = 40 + 8 + 12 + 4 + 28 + 4

// RoCEMTU is the RDMA path MTU a RoCE port gets from its interface's MTU:
// the largest IB MTU (256 … 4096) that fits in mtu minus the RoCE headers,
// as the kernel's iboe_get_mtu computes it; 0 when none fits.
func RoCEMTU(netdevMTU int) int {
	m := netdevMTU - roceOverhead
	for _, v := range []int{4096, 2048, 1024, 512, 256} {
		if m >= v {
			return v
		}
	}
	return 0
}

func portSrc(dev string, port int, attr string) string {
	return src(sysTree, fmt.Sprintf("class/infiniband/%s/ports/%d/%s", dev, port, attr))
}

func (rdmaCheck) Run(e *Env) []Finding {
	s, err := e.system()
	if err != nil {
		return []Finding{{ID: "rdma.devices", Severity: Unknown, Title: "could not read the sysfs tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Error: whyNot(err)}}}}
	}
	_, lf := e.exists(sysTree, "class/infiniband")
	var devs []topo.RDMADevice
	for _, d := range s.RDMA {
		if d.PCIAddress != "" {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		f := Finding{ID: "rdma.devices", Facts: []Fact{lf}}
		if lf.OK() {
			f.Facts[0].Value = fmt.Sprintf("%d devices with a PCI function", 0)
			if len(s.RDMA) > 0 {
				f.Facts[0].Value += fmt.Sprintf(" (%d software devices: %s)", len(s.RDMA), rdmaNames(s.RDMA))
			}
		}
		f.Title = "no RDMA device"
		if len(s.GPUs()) > 0 {
			f.Severity = Warn
			f.Title = "no RDMA device: GPU traffic between nodes can only take TCP"
			f.Why = "Without an RDMA NIC (or with its driver not loaded: mlx5_ib, bnxt_re, irdma …) there is neither GPUDirect RDMA nor host-staged RDMA; NCCL uses its socket transport."
			f.Fix = "On a host with an RDMA NIC: load its RDMA driver (modprobe mlx5_ib) and check ibv_devinfo. On this host there is none to use."
			f.Cost = &Cost{Lead: "no RDMA", Before: Case{Path: "gdr", Set: caseKeys(calib.Facts{NICKind: is(model.KindRoCE), RDMA: is(true)})},
				After: Case{Path: "tcp"}}
		} else {
			f.Severity = Info
		}
		return []Finding{f}
	}
	out := []Finding{{ID: "rdma.devices", Severity: OK, Facts: []Fact{lf},
		Title: fmt.Sprintf("%s: %s", count(len(devs), "RDMA device"), rdmaNames(devs))}}
	for _, d := range devs {
		if len(d.Ports) == 0 {
			out = append(out, Finding{ID: "rdma.port", Severity: Unknown, Subject: d.Name,
				Title: "the RDMA device's ports could not be read",
				Facts: []Fact{{Source: src(sysTree, "class/infiniband/"+d.Name+"/ports"), Error: "could not read: no port"}}})
			continue
		}
		for _, p := range d.Ports {
			out = append(out, portFinding(e, s, d, p))
			if topo.LinkKind(p.LinkLayer) == "roce" {
				out = append(out, gidFinding(d, p))
			}
			out = append(out, mtuFinding(e, s, d, p))
		}
	}
	return out
}

func rdmaNames(ds []topo.RDMADevice) string {
	var n []string
	for _, d := range ds {
		n = append(n, d.Name)
	}
	return strings.Join(n, ", ")
}

func portFinding(e *Env, s *topo.System, d topo.RDMADevice, p topo.RDMAPort) Finding {
	subject := fmt.Sprintf("%s port %d", d.Name, p.Port)
	val := func(v string) string {
		if v == "" {
			return "(unreadable)"
		}
		return v
	}
	f := Finding{ID: "rdma.port", Subject: subject, Facts: []Fact{
		{Source: portSrc(d.Name, p.Port, "state"), Value: val(p.State)},
		{Source: portSrc(d.Name, p.Port, "phys_state"), Value: val(p.PhysState)},
		{Source: portSrc(d.Name, p.Port, "rate"), Value: val(p.Rate)},
		{Source: portSrc(d.Name, p.Port, "link_layer"), Value: val(p.LinkLayer)}}}
	switch {
	case p.State == "":
		f.Severity, f.Title = Unknown, "port state unreadable"
	case p.Active():
		f.Severity = OK
		f.Title = fmt.Sprintf("port ACTIVE, %s, %s", val(p.Rate), val(p.LinkLayer))
	default:
		f.Severity = Error
		f.Title = fmt.Sprintf("port %s (%s): RDMA over it is impossible", p.State, val(p.PhysState))
		f.Why = "A port that is not ACTIVE carries no traffic; NCCL skips the device and, without another, falls back to its socket transport."
		if topo.LinkKind(p.LinkLayer) == "ib" {
			f.Fix = "Check the cable and the switch; an InfiniBand port stays INIT until a subnet manager runs (opensm, or the switch's)."
		} else {
			f.Fix = "Bring the interface up (ip link set " + strings.Join(d.NetDevs, "/") + " up), check the cable and the switch port; ibv_devinfo shows the port state."
		}
		f.Cost = &Cost{Lead: "the RDMA port is down: traffic falls back to TCP",
			Before: Case{Path: "gdr"}, After: Case{Path: "tcp"}}
	}
	return f
}

func gidFinding(d topo.RDMADevice, p topo.RDMAPort) Finding {
	subject := fmt.Sprintf("%s port %d", d.Name, p.Port)
	f := Finding{ID: "rdma.gid", Subject: subject}
	v2, v1 := 0, 0
	for _, g := range p.GIDs {
		typ := g.Type
		if typ == "" {
			typ = "(type unreadable)"
		}
		f.Facts = append(f.Facts, Fact{Source: portSrc(d.Name, p.Port, fmt.Sprintf("gid_attrs/types/%d", g.Index)),
			Value: fmt.Sprintf("%s  gid %s  %s", typ, g.GID, g.NetDev)})
		switch strings.ToLower(g.Type) {
		case "roce v2":
			v2++
		case "ib/roce v1", "roce v1":
			v1++
		}
	}
	switch {
	case len(p.GIDs) == 0:
		f.Severity = Warn
		f.Title = "no populated GID: the RoCE port has no address to be reached at"
		f.Why = "RoCE GIDs come from the IP addresses of the port's interface; without one there is no RoCE v2 GID for NCCL to pick."
		f.Fix = "Give the interface an IP address (ip addr add … dev " + strings.Join(d.NetDevs, "/") + ")."
		f.Facts = append(f.Facts, Fact{Source: portSrc(d.Name, p.Port, "gids"), Value: "no populated entry"})
	case v2 > 0:
		f.Severity = OK
		f.Title = fmt.Sprintf("%d RoCE v2 GIDs (routable over IP/UDP)", v2)
	case v1 > 0:
		f.Severity = Warn
		f.Title = "only RoCE v1 GIDs: RoCE v1 does not cross IP subnets"
		f.Why = "RoCE v1 is an Ethernet frame without IP/UDP: it stays in one L2 domain and gets no ECN-based congestion control; NCCL prefers v2 (NCCL_IB_ROCE_VERSION_NUM=2)."
		f.Fix = "Enable RoCE v2 on the port (cma_roce_mode -d " + d.Name + " -p 1 -m 2, or the NIC's firmware default) and give the interface an IP address."
	default:
		f.Severity = Unknown
		f.Title = "GID types unreadable"
	}
	if f.Severity == Warn {
		f.Cost = &Cost{Lead: "no RoCE v2 GID", Unpriced: "the model prices rate and latency, not reachability"}
	}
	return f
}

func mtuFinding(e *Env, s *topo.System, d topo.RDMADevice, p topo.RDMAPort) Finding {
	subject := fmt.Sprintf("%s port %d", d.Name, p.Port)
	f := Finding{ID: "rdma.mtu", Subject: subject}
	switch topo.LinkKind(p.LinkLayer) {
	case "ib":
		f.Severity = Unknown
		f.Title = "the InfiniBand port's MTU is not in sysfs: only verbs report it (ibv_devinfo: active_mtu)"
		f.Facts = []Fact{{Source: portSrc(d.Name, p.Port, "active_mtu"), Error: "could not read: not in sysfs (ibv_query_port only)"}}
		f.Fix = "ibv_devinfo -d " + d.Name + " | grep -E 'max_mtu|active_mtu' (the subnet manager sets it; 4096 is what NCCL wants)."
		return f
	case "roce":
	default:
		f.Severity, f.Title = Unknown, "link layer unreadable: MTU unknown"
		return f
	}
	m := 0
	for _, n := range s.Net {
		for _, nd := range d.NetDevs {
			if n.Name == nd {
				f.Facts = append(f.Facts, Fact{Source: src(sysTree, "class/net/"+nd+"/mtu"), Value: fmt.Sprint(n.MTU)})
				if n.MTU > 0 {
					m = n.MTU
				}
			}
		}
	}
	if m == 0 {
		f.Severity, f.Title = Unknown, "no interface MTU for the RoCE port: RDMA MTU unknown"
		f.Facts = append(f.Facts, Fact{Source: src(sysTree, "class/infiniband/"+d.Name+"/device/net"), Error: "could not read: no interface with an MTU"})
		return f
	}
	active := RoCEMTU(m)
	f.Facts = append(f.Facts, Fact{Source: "RDMA MTU from the interface MTU (kernel iboe_get_mtu)", Value: fmt.Sprint(active)})
	if active >= 4096 {
		f.Severity = OK
		f.Title = fmt.Sprintf("RoCE MTU %d (interface MTU %d)", active, m)
		return f
	}
	f.Severity = Warn
	f.Title = fmt.Sprintf("RoCE MTU only %d: the interface MTU %d leaves no room for 4096-byte RDMA packets", active, m)
	f.Why = "RoCE carries at most the IB MTU that fits in the interface MTU; every RDMA message is cut into packets of that size, each with its own headers and NIC work."
	f.Fix = "Raise the interface MTU to ≥ 4200 (9000 on an AI fabric, end to end): ip link set " + strings.Join(d.NetDevs, "/") + " mtu 9000."
	f.Cost = &Cost{Lead: fmt.Sprintf("RoCE MTU %d instead of 4096", active),
		Before: Case{Path: "gdr", Set: caseKeys(calib.Facts{NICKind: is(model.KindRoCE), MTU: is(units.Bytes(9000))})},
		After:  Case{Path: "gdr", Set: caseKeys(calib.Facts{NICKind: is(model.KindRoCE), MTU: is(units.Bytes(m))})}}
	return f
}
