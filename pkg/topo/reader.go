package topo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
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

func (r Reader) path(elem ...string) string {
	return filepath.Join(append([]string{r.root()}, elem...)...)
}

func (r Reader) read(name string) (string, error) {
	rf := r.ReadFile
	if rf == nil {
		rf = os.ReadFile
	}
	b, err := rf(name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

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
func (r Reader) Read() (*System, error) {
	s := &System{}
	pci, warn, err := r.PCIDevices()
	if err != nil {
		return nil, err
	}
	s.PCI, s.Warnings = pci, append(s.Warnings, warn...)
	rdma, warn, err := r.RDMADevices()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Warnings = append(s.Warnings, err.Error())
	}
	s.RDMA, s.Warnings = rdma, append(s.Warnings, warn...)
	nd, warn, err := r.NetDevs()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Warnings = append(s.Warnings, err.Error())
	}
	s.Net, s.Warnings = nd, append(s.Warnings, warn...)
	byAddr := map[string]int{}
	for i, d := range s.PCI {
		byAddr[d.Address] = i
	}
	for _, d := range s.RDMA {
		if i, ok := byAddr[d.PCIAddress]; ok {
			s.PCI[i].RDMADevs = append(s.PCI[i].RDMADevs, d.Name)
		}
	}
	for _, n := range s.Net {
		if i, ok := byAddr[n.PCIAddress]; ok {
			s.PCI[i].NetDevs = append(s.PCI[i].NetDevs, n.Name)
		}
	}
	for i := range s.RDMA {
		if j, ok := byAddr[s.RDMA[i].PCIAddress]; ok {
			s.RDMA[i].NetDevs = s.PCI[j].NetDevs
		}
	}
	return s, nil
}

// PCIDevices reads every function under <root>/bus/pci/devices, sorted by
// address. Attributes that cannot be read or parsed leave their field zero
// and add a warning.
func (r Reader) PCIDevices() ([]PCIDevice, []string, error) {
	dir := r.path("bus", "pci", "devices")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("topo: %w", err)
	}
	var devs []PCIDevice
	var warns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d, w, err := r.pciDevice(filepath.Join(dir, e.Name()), e.Name())
		warns = append(warns, w...)
		if err != nil {
			warns = append(warns, err.Error())
			continue
		}
		devs = append(devs, d)
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].Address < devs[j].Address })
	return devs, warns, nil
}

func (r Reader) pciDevice(p, name string) (PCIDevice, []string, error) {
	var warns []string
	warnf := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	addr, err := ParseAddress(name)
	if err != nil {
		return PCIDevice{}, nil, err
	}
	target, err := os.Readlink(p)
	if err != nil {
		return PCIDevice{}, nil, fmt.Errorf("topo: %s: %w", name, err)
	}
	hb, chain, err := ParsePCIPath(target)
	if err != nil {
		return PCIDevice{}, nil, err
	}
	if chain[len(chain)-1] != addr {
		return PCIDevice{}, nil, fmt.Errorf("topo: %s links to %s", name, target)
	}
	d := PCIDevice{Address: addr, HostBridge: hb, Bridges: chain[:len(chain)-1], NUMANode: -1}
	if len(d.Bridges) == 0 {
		d.Bridges = nil
	}
	hex := func(attr string, bits int) uint64 {
		s, err := r.read(filepath.Join(p, attr))
		if err != nil {
			warnf("topo: %s: %v", addr, err)
			return 0
		}
		v, err := ParseHex(s, bits)
		if err != nil {
			warnf("%s: %s: %v", addr, attr, err)
		}
		return v
	}
	d.Class = uint32(hex("class", 24))
	d.Vendor = uint16(hex("vendor", 16))
	d.Device = uint16(hex("device", 16))
	if s, err := r.read(filepath.Join(p, "numa_node")); err == nil {
		d.NUMANode = ParseNUMANode(s)
	}
	if t, err := os.Readlink(filepath.Join(p, "driver")); err == nil {
		d.Driver = filepath.Base(t)
	}
	// Link attributes exist only for PCIe devices; their absence is normal.
	speed := func(attr string) float64 {
		s, err := r.read(filepath.Join(p, attr))
		if err != nil {
			return 0
		}
		v, err := ParseLinkSpeed(s)
		if err != nil && !errors.Is(err, ErrUnknownSpeed) {
			warnf("%s: %s: %v", addr, attr, err)
		}
		return v
	}
	width := func(attr string) int {
		s, err := r.read(filepath.Join(p, attr))
		if err != nil {
			return 0
		}
		v, err := ParseLinkWidth(s)
		if err != nil {
			warnf("%s: %s: %v", addr, attr, err)
		}
		return v
	}
	d.Link = Link{
		CurrentGTs:   speed("current_link_speed"),
		CurrentWidth: width("current_link_width"),
		MaxGTs:       speed("max_link_speed"),
		MaxWidth:     width("max_link_width"),
	}
	return d, warns, nil
}

// RDMADevices reads every device under <root>/class/infiniband, sorted by
// name. GID entries that fail to read (sysfs answers EINVAL for empty
// entries) or read as all zero are skipped. A missing class directory
// yields an error wrapping fs.ErrNotExist.
func (r Reader) RDMADevices() ([]RDMADevice, []string, error) {
	dir := r.path("class", "infiniband")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("topo: %w", err)
	}
	var devs []RDMADevice
	var warns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d, w := r.rdmaDevice(filepath.Join(dir, e.Name()), e.Name())
		devs = append(devs, d)
		warns = append(warns, w...)
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].Name < devs[j].Name })
	return devs, warns, nil
}

func (r Reader) rdmaDevice(p, name string) (RDMADevice, []string) {
	var warns []string
	d := RDMADevice{Name: name}
	if t, err := os.Readlink(filepath.Join(p, "device")); err == nil {
		if a, err := ParseAddress(filepath.Base(t)); err == nil {
			d.PCIAddress = a
		}
	}
	d.HCAType, _ = r.read(filepath.Join(p, "hca_type"))
	d.FWVersion, _ = r.read(filepath.Join(p, "fw_ver"))
	d.NodeGUID, _ = r.read(filepath.Join(p, "node_guid"))
	d.NodeType, _ = r.read(filepath.Join(p, "node_type"))
	ports, err := os.ReadDir(filepath.Join(p, "ports"))
	if err != nil {
		warns = append(warns, fmt.Sprintf("topo: %s: %v", name, err))
		return d, warns
	}
	for _, pe := range ports {
		n, err := strconv.Atoi(pe.Name())
		if err != nil {
			continue
		}
		port, w := r.rdmaPort(filepath.Join(p, "ports", pe.Name()), name, n)
		d.Ports = append(d.Ports, port)
		warns = append(warns, w...)
	}
	sort.Slice(d.Ports, func(i, j int) bool { return d.Ports[i].Port < d.Ports[j].Port })
	return d, warns
}

func (r Reader) rdmaPort(p, dev string, n int) (RDMAPort, []string) {
	var warns []string
	warnf := func(format string, args ...any) {
		warns = append(warns, fmt.Sprintf("topo: %s port %d: ", dev, n)+fmt.Sprintf(format, args...))
	}
	port := RDMAPort{Port: n}
	if s, err := r.read(filepath.Join(p, "state")); err == nil {
		if _, name, err := ParsePortState(s); err == nil {
			port.State = name
		} else {
			warnf("%v", err)
		}
	}
	if s, err := r.read(filepath.Join(p, "phys_state")); err == nil {
		if _, name, err := ParsePortState(s); err == nil {
			port.PhysState = name
		} else {
			warnf("%v", err)
		}
	}
	if s, err := r.read(filepath.Join(p, "rate")); err == nil {
		port.Rate = s
		if bps, w, sp, err := ParsePortRate(s); err == nil {
			port.RateBps, port.Width, port.Speed = bps, w, sp
		} else {
			warnf("%v", err)
		}
	}
	port.LinkLayer, _ = r.read(filepath.Join(p, "link_layer"))
	ents, err := os.ReadDir(filepath.Join(p, "gids"))
	if err != nil {
		return port, warns
	}
	for _, e := range ents {
		i, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		s, err := r.read(filepath.Join(p, "gids", e.Name()))
		if err != nil {
			if !errors.Is(err, syscall.EINVAL) {
				warnf("gid %d: %v", i, err)
			}
			continue // EINVAL: an empty entry of the GID table
		}
		gid, populated, err := ParseGID(s)
		if err != nil {
			warnf("gid %d: %v", i, err)
			continue
		}
		if !populated {
			continue
		}
		g := GID{Index: i, GID: gid}
		g.Type, _ = r.read(filepath.Join(p, "gid_attrs", "types", e.Name()))
		g.NetDev, _ = r.read(filepath.Join(p, "gid_attrs", "ndevs", e.Name()))
		port.GIDs = append(port.GIDs, g)
	}
	sort.Slice(port.GIDs, func(i, j int) bool { return port.GIDs[i].Index < port.GIDs[j].Index })
	return port, warns
}

// NetDevs reads the network interfaces under <root>/class/net that belong
// to a PCI function (virtual interfaces such as lo, bridges and veths are
// left out), sorted by name.
func (r Reader) NetDevs() ([]NetDev, []string, error) {
	dir := r.path("class", "net")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("topo: %w", err)
	}
	var out []NetDev
	var warns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		t, err := os.Readlink(filepath.Join(p, "device"))
		if err != nil {
			continue
		}
		addr, err := ParseAddress(filepath.Base(t))
		if err != nil {
			continue // not a PCI function (e.g. a virtio device on a platform bus)
		}
		n := NetDev{Name: e.Name(), PCIAddress: addr}
		if s, err := r.read(filepath.Join(p, "speed")); err == nil {
			if v, err := ParseNetSpeed(s); err == nil {
				n.SpeedMbps = v
			} else {
				warns = append(warns, fmt.Sprintf("topo: %s: %v", e.Name(), err))
			}
		}
		n.OperState, _ = r.read(filepath.Join(p, "operstate"))
		if s, err := r.read(filepath.Join(p, "mtu")); err == nil {
			n.MTU, _ = strconv.Atoi(s)
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, warns, nil
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
