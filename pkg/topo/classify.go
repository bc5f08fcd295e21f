package topo

// Connection describes the PCIe path between two devices.
type Connection struct {
	Class Class `json:"class"`
	// Ancestor is the closest common upstream element: the address of a
	// bridge, a host bridge ("pci0000:80") for PHB, or "" for NODE and SYS.
	Ancestor string `json:"ancestor,omitempty"`
	// Bridges counts the PCIe bridges the path traverses, a switch counting
	// as one bridge (its upstream and downstream ports together) and a root
	// port as one; 0 for PHB, NODE and SYS.
	Bridges int `json:"bridges"`
}

// Classify returns how a and b are connected over PCIe, with the rules that
// `nvidia-smi topo -m` states in its legend:
//
//   - X: the same function;
//   - SYS: the devices sit on different NUMA nodes (both known), so the path
//     crosses the SMP interconnect between sockets;
//   - NODE: different host bridges (PCI roots) on one NUMA node;
//   - PHB: one host bridge, but no common bridge below it (different root
//     ports, or a flat bus without root ports as in virtual machines);
//   - PIX: a common bridge, and the path traverses at most one bridge (one
//     PCIe switch, or one root port as for two functions of a dual-port NIC);
//   - PXB: a common bridge, and the path traverses several bridges (nested
//     switches) without reaching the host bridge.
//
// A switch is recognised from the chain of bridges below the root port: a
// PCIe switch shows in sysfs as an upstream port followed by a downstream
// port, so bridges below the root port alternate upstream, downstream. That
// is the PCIe port hierarchy; a platform that inserts other bridges (e.g. a
// PCIe-to-PCI bridge) can make PIX read as PXB.
func Classify(a, b PCIDevice) Connection {
	if a.Address == b.Address {
		return Connection{Class: Self, Ancestor: a.Address}
	}
	if a.NUMANode >= 0 && b.NUMANode >= 0 && a.NUMANode != b.NUMANode {
		return Connection{Class: SYS}
	}
	if a.HostBridge != b.HostBridge {
		return Connection{Class: NODE}
	}
	common := 0
	for common < len(a.Bridges) && common < len(b.Bridges) && a.Bridges[common] == b.Bridges[common] {
		common++
	}
	if common == 0 {
		return Connection{Class: PHB, Ancestor: a.HostBridge}
	}
	c := common - 1
	units := map[string]bool{bridgeUnit(a.Bridges, c): true}
	for i := c + 1; i < len(a.Bridges); i++ {
		units[bridgeUnit(a.Bridges, i)] = true
	}
	for i := c + 1; i < len(b.Bridges); i++ {
		units[bridgeUnit(b.Bridges, i)] = true
	}
	cls := PIX
	if len(units) > 1 {
		cls = PXB
	}
	return Connection{Class: cls, Ancestor: a.Bridges[c], Bridges: len(units)}
}

// bridgeUnit names the bridge that chain[i] belongs to: the root port
// itself (i == 0), or the switch identified by its upstream port (odd
// indices are upstream ports, even ones their downstream ports).
func bridgeUnit(chain []string, i int) string {
	if i == 0 {
		return "rp " + chain[0]
	}
	if i%2 == 0 {
		i--
	}
	return "sw " + chain[i]
}
