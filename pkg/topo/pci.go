package topo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PCI vendor ids and class codes used to recognise devices (PCI Code and ID
// Assignment Specification; vendor ids from the PCI-SIG list).
const (
	VendorNVIDIA   = 0x10de
	VendorMellanox = 0x15b3

	classDisplayVGA = 0x0300 // VGA compatible controller
	class3D         = 0x0302 // 3D controller (datacenter GPUs)
	classEthernet   = 0x0200 // Ethernet controller
	classInfiniBand = 0x0207 // InfiniBand controller
	classPCIBridge  = 0x0604 // PCI-to-PCI bridge (root ports and switch ports)
)

// PCIDevice is one PCI function as sysfs shows it.
type PCIDevice struct {
	// Address is the canonical domain:bus:device.function ("0000:8f:00.0").
	Address string `json:"address"`
	// Class is the 24-bit class code (0x030200 for a 3D controller).
	Class  uint32 `json:"class"`
	Vendor uint16 `json:"vendor"`
	Device uint16 `json:"device"`
	// Driver is the bound kernel driver ("nvidia", "mlx5_core"), if any.
	Driver string `json:"driver,omitempty"`
	// NUMANode is the device's NUMA node; -1 when the platform does not say.
	NUMANode int  `json:"numa_node"`
	Link     Link `json:"link"`
	// HostBridge names the PCI root ("pci0000:80") the device hangs under.
	HostBridge string `json:"host_bridge"`
	// Bridges lists the addresses of the bridges between the host bridge and
	// the device, from the root port down (the device itself excluded).
	Bridges []string `json:"bridges,omitempty"`
	// NetDevs and RDMADevs name the network interfaces and RDMA devices
	// ("eth0", "mlx5_0") that belong to this function.
	NetDevs  []string `json:"netdevs,omitempty"`
	RDMADevs []string `json:"rdma_devs,omitempty"`
}

// BaseClass returns the upper 16 bits of the class code (0x0302).
func (d PCIDevice) BaseClass() uint16 { return uint16(d.Class >> 8) }

// IsGPU reports whether d is an NVIDIA display or 3D controller.
func (d PCIDevice) IsGPU() bool {
	bc := d.BaseClass()
	return d.Vendor == VendorNVIDIA && (bc == class3D || bc == classDisplayVGA)
}

// IsNIC reports whether d is a network controller (Ethernet or InfiniBand),
// whatever the vendor.
func (d PCIDevice) IsNIC() bool {
	bc := d.BaseClass()
	return bc == classEthernet || bc == classInfiniBand
}

// IsBridge reports whether d is a PCI-to-PCI bridge (a root port or a
// switch port).
func (d PCIDevice) IsBridge() bool { return d.BaseClass() == classPCIBridge }

var (
	addrRe       = regexp.MustCompile(`^([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$`)
	hostBridgeRe = regexp.MustCompile(`^pci[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}$`)
)

// ParseAddress checks a PCI address and returns it in canonical form:
// lower case with a four-digit domain ("0000:8F:00.0" → "0000:8f:00.0").
// NVML's eight-digit domains ("00000000:8F:00.0") are shortened when the
// upper digits are zero.
func ParseAddress(s string) (string, error) {
	m := addrRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", fmt.Errorf("topo: bad PCI address %q", s)
	}
	dom := strings.ToLower(m[1])
	if len(dom) > 4 {
		if strings.TrimLeft(dom[:len(dom)-4], "0") != "" {
			return strings.ToLower(s), nil
		}
		dom = dom[len(dom)-4:]
	}
	return fmt.Sprintf("%s:%s:%s.%s", dom, strings.ToLower(m[2]), strings.ToLower(m[3]), m[4]), nil
}

// ParsePCIPath takes the target of a /sys/bus/pci/devices/<address> link
// ("../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0") and
// returns the host bridge ("pci0000:80") and the chain of PCI addresses below
// it, the device itself last. Elements before the host bridge (ACPI or VMBus
// nodes on some platforms) are skipped.
func ParsePCIPath(target string) (hostBridge string, chain []string, err error) {
	parts := strings.Split(strings.Trim(target, "/"), "/")
	hb := -1
	for i, p := range parts {
		if hostBridgeRe.MatchString(p) {
			hb = i
		}
	}
	if hb < 0 {
		return "", nil, fmt.Errorf("topo: no PCI host bridge in path %q", target)
	}
	for _, p := range parts[hb+1:] {
		a, err := ParseAddress(p)
		if err != nil {
			return "", nil, fmt.Errorf("topo: unexpected element %q in PCI path %q", p, target)
		}
		chain = append(chain, a)
	}
	if len(chain) == 0 {
		return "", nil, fmt.Errorf("topo: PCI path %q ends at the host bridge", target)
	}
	return strings.ToLower(parts[hb]), chain, nil
}

// ParseHex parses a sysfs hex attribute ("0x10de\n", "0x030200") of at
// most bits bits.
func ParseHex(s string, bits int) (uint64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
	v, err := strconv.ParseUint(t, 16, bits)
	if err != nil || t == "" {
		return 0, fmt.Errorf("topo: bad hex value %q", strings.TrimSpace(s))
	}
	return v, nil
}

// ParseNUMANode parses a sysfs numa_node value; "-1" (no affinity) and
// anything unreadable yield -1.
func ParseNUMANode(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return -1
	}
	return n
}
