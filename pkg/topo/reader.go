package topo

import (
	"io/fs"
	"os"
)

// Reader reads topology from a sysfs tree. The zero value reads /sys.
type Reader struct {
	// Root is the sysfs mount point; "" means "/sys". Tests point it at a
	// fixture tree that mirrors a real system.
	Root string
	// ReadFile reads one attribute; nil means os.ReadFile. Tests use it to
	// make attributes fail as sysfs does (EINVAL from empty GID entries).
	ReadFile func(name string) ([]byte, error)
}

func (r Reader) root() string {
	if r.Root == "" {
		return "/sys"
	}
	return r.Root
}

// fs is the reader over the host's files that Reader's methods use: the
// same code as ReadFS, on names that are host paths.
func (r Reader) fs() fsReader {
	return fsReader{fsys: hostFS{}, rl: hostFS{}, base: r.root(), readFile: r.ReadFile}
}

// hostFS is the host's file system under the names it is given, which are
// host paths: not an fs.FS for fs.ValidPath names, but what fsReader needs
// (Stat, Open, ReadDir and ReadLink). It follows links wherever they point,
// as Reader always has; ReadFS over os.Root does not.
type hostFS struct{}

func (hostFS) Open(name string) (fs.File, error)          { return os.Open(name) }
func (hostFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (hostFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (hostFS) ReadLink(name string) (string, error)       { return os.Readlink(name) }
func (hostFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }

// System is what a Reader found: every PCI function, the GPUs and NICs
// among them, the RDMA devices and the network interfaces.
type System struct {
	PCI  []PCIDevice  `json:"pci"`
	RDMA []RDMADevice `json:"rdma,omitempty"`
	Net  []NetDev     `json:"net,omitempty"`
	// Warnings lists what could not be read, one line each (a missing
	// attribute, an unparsable value); reading goes on after them.
	Warnings []string `json:"warnings,omitempty"`
}

// Read reads the whole system. A missing /sys/bus/pci is an error (this is
// not a Linux sysfs); missing RDMA or network classes are not.
func (r Reader) Read() (*System, error) { return r.fs().system() }

// PCIDevices reads every function under <root>/bus/pci/devices, sorted by
// address. Attributes that cannot be read or parsed leave their field zero
// and add a warning.
func (r Reader) PCIDevices() ([]PCIDevice, []string, error) {
	return r.fs().pciDevices()
}

// RDMADevices reads every device under <root>/class/infiniband, sorted by
// name. GID entries that fail to read (sysfs answers EINVAL for empty
// entries) or read as all zero are skipped. A missing class directory
// yields an error wrapping fs.ErrNotExist.
func (r Reader) RDMADevices() ([]RDMADevice, []string, error) {
	return r.fs().rdmaDevices()
}

// NetDevs reads the network interfaces under <root>/class/net that belong
// to a PCI function (virtual interfaces such as lo, bridges and veths are
// left out), sorted by name.
func (r Reader) NetDevs() ([]NetDev, []string, error) {
	return r.fs().netDevs()
}

// Device returns the PCI function at addr.
func (s *System) Device(addr string) (PCIDevice, bool) {
	for _, d := range s.PCI {
		if d.Address == addr {
			return d, true
		}
	}
	return PCIDevice{}, false
}

// GPUs returns the NVIDIA GPUs, in address order.
func (s *System) GPUs() []PCIDevice { return s.filter(PCIDevice.IsGPU) }

// NICs returns the network controllers, in address order.
func (s *System) NICs() []PCIDevice { return s.filter(PCIDevice.IsNIC) }

func (s *System) filter(keep func(PCIDevice) bool) []PCIDevice {
	var out []PCIDevice
	for _, d := range s.PCI {
		if keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// Pair is the connection between a GPU and a NIC.
type Pair struct {
	GPU string `json:"gpu"` // PCI address
	NIC string `json:"nic"` // PCI address
	// NICNames are the RDMA devices, else the interfaces, of the NIC.
	NICNames   []string `json:"nic_names,omitempty"`
	Connection `json:"connection"`
}

// GPUNICPairs classifies every GPU against every NIC.
func (s *System) GPUNICPairs() []Pair {
	var out []Pair
	for _, g := range s.GPUs() {
		for _, n := range s.NICs() {
			names := n.RDMADevs
			if len(names) == 0 {
				names = n.NetDevs
			}
			out = append(out, Pair{GPU: g.Address, NIC: n.Address, NICNames: names, Connection: Classify(g, n)})
		}
	}
	return out
}

// ClosestNIC returns the NIC closest to the GPU at gpu (the lowest Class
// rank; among equals an RDMA-capable NIC, then the lowest address), and
// false when there is no NIC.
func (s *System) ClosestNIC(gpu string) (Pair, bool) {
	var best Pair
	found := false
	for _, p := range s.GPUNICPairs() {
		if p.GPU != gpu {
			continue
		}
		if !found || better(s, p, best) {
			best, found = p, true
		}
	}
	return best, found
}

func better(s *System, p, q Pair) bool {
	if p.Class.Rank() != q.Class.Rank() {
		return p.Class.Rank() < q.Class.Rank()
	}
	pr, qr := s.hasRDMA(p.NIC), s.hasRDMA(q.NIC)
	if pr != qr {
		return pr
	}
	return p.NIC < q.NIC
}

func (s *System) hasRDMA(addr string) bool {
	d, ok := s.Device(addr)
	return ok && len(d.RDMADevs) > 0
}
