package doctor

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/topo"
	"github.com/gpupath/gpupath/pkg/units"
)

// netCheck reads the MTU and state of every network interface that belongs
// to a PCI NIC (/sys/class/net/*/mtu, operstate, speed): the TCP paths cut
// every message into MTU-sized packets.
type netCheck struct{}

func (netCheck) Name() string { return "net" }

// jumboMTU is the MTU AI back-end fabrics run (and the default preset's);
// ipoibMTU the largest IPoIB datagram-mode MTU (IB MTU 4096 less the 4-byte
// IPoIB header, RFC 4391).
const (
	jumboMTU           = 9000
	ipoibMTU           = 4092
	classInfiniBandNIC = 0x0207
	classEthernetNIC   = 0x0200
)

func (netCheck) Run(e *Env) []Finding {
	s, err := e.system()
	if err != nil {
		return []Finding{{ID: "net.mtu", Severity: Unknown, Title: "could not read the sysfs tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Error: whyNot(err)}}}}
	}
	var nets []topo.NetDev
	for _, n := range s.Net {
		if d, ok := s.Device(n.PCIAddress); ok && physicalNIC(d) {
			nets = append(nets, n)
		}
	}
	if len(nets) == 0 {
		_, lf := e.exists(sysTree, "class/net")
		if lf.OK() {
			lf.Value = "no interface of a physical PCI NIC (virtual and virtio interfaces left out)"
		}
		return []Finding{{ID: "net.mtu", Severity: Info, Title: "no network interface of a physical NIC", Facts: []Fact{lf}}}
	}
	var out []Finding
	for _, n := range nets {
		f := Finding{ID: "net.mtu", Subject: n.Name + " (" + n.PCIAddress + ")", Facts: []Fact{
			{Source: src(sysTree, "class/net/"+n.Name+"/mtu"), Value: fmt.Sprint(n.MTU)},
			{Source: src(sysTree, "class/net/"+n.Name+"/operstate"), Value: n.OperState},
			{Source: src(sysTree, "class/net/"+n.Name+"/speed"), Value: speedText(n.SpeedMbps)}}}
		d, _ := s.Device(n.PCIAddress)
		ipoib := d.BaseClass() == classInfiniBandNIC
		switch {
		case n.MTU == 0:
			f.Severity, f.Title = Unknown, "interface MTU unreadable"
		case ipoib && n.MTU >= ipoibMTU:
			f.Severity, f.Title = OK, fmt.Sprintf("IPoIB MTU %d (the datagram-mode maximum for a 4096-byte IB MTU), %s", n.MTU, n.OperState)
		case ipoib:
			ib := 256
			for _, v := range []int{4096, 2048, 1024, 512} {
				if n.MTU+4 >= v {
					ib = v
					break
				}
			}
			f.Severity = Info
			f.Title = fmt.Sprintf("IPoIB MTU %d: TCP over InfiniBand in %d-byte packets, %s", n.MTU, n.MTU, n.OperState)
			f.Why = "IPoIB in datagram mode carries at most the IB MTU less its 4-byte header: 4092 with a 4096-byte IB MTU."
			f.Fix = fmt.Sprintf("ip link set %s mtu %d (with the subnet manager's partition MTU at 4096).", n.Name, ipoibMTU)
			f.Cost = &Cost{Lead: fmt.Sprintf("IPoIB MTU %d instead of %d", n.MTU, ipoibMTU),
				Before: Case{Path: "tcp", Set: caseKeys(calib.Facts{NICKind: is(model.KindIB), MTU: is(units.Bytes(4096))})},
				After:  Case{Path: "tcp", Set: caseKeys(calib.Facts{NICKind: is(model.KindIB), MTU: is(units.Bytes(ib))})}}
		case n.MTU >= jumboMTU:
			f.Severity, f.Title = OK, fmt.Sprintf("MTU %d (jumbo frames), %s", n.MTU, n.OperState)
		default:
			f.Severity = Info
			f.Title = fmt.Sprintf("MTU %d: TCP moves a message in %d-byte packets, %s", n.MTU, n.MTU, n.OperState)
			f.Why = "Each packet costs the receiving CPU its per-packet work (GRO merges some of it); jumbo frames cut the packet count six-fold. Every hop of the fabric must carry the larger MTU."
			f.Fix = fmt.Sprintf("ip link set %s mtu %d (and the switch ports; persist it in the network configuration).", n.Name, jumboMTU)
			f.Cost = &Cost{Lead: fmt.Sprintf("MTU %d instead of %d", n.MTU, jumboMTU),
				Before: Case{Path: "tcp", Set: caseKeys(calib.Facts{NICKind: is(model.KindEthernet), RDMA: is(false), MTU: is(units.Bytes(jumboMTU))})},
				After:  Case{Path: "tcp", Set: caseKeys(calib.Facts{NICKind: is(model.KindEthernet), RDMA: is(false), MTU: is(units.Bytes(max(n.MTU, 576)))})}}
		}
		out = append(out, f)
	}
	return out
}

func speedText(mbps int) string {
	if mbps <= 0 {
		return "unknown (link down or not reported)"
	}
	return fmt.Sprintf("%d Mb/s", mbps)
}
