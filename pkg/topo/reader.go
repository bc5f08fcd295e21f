package topo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Reader reads topology from a sysfs tree. The zero value reads /sys.
type Reader struct {
	// Root is the sysfs mount point; "" means "/sys". Tests point it at a
	// fixture tree that mirrors a real system.
	Root string
	// ReadFile reads one attribute; nil means the bounded reader over the
	// rooted tree (safeio.ReadFSFile). Tests use it to
	// make attributes fail as sysfs does (EINVAL from empty GID entries).
	ReadFile func(name string) ([]byte, error)
}

func (r Reader) root() string {
	if r.Root == "" {
		return "/sys"
	}
	return r.Root
}

// fs is the reader over the tree at the root that Reader's methods use:
// the same code as ReadFS, on names that are host paths (so warnings name
// them). The tree is opened with os.OpenRoot, as doctor opens its trees: a
// symbolic link is followed only while it stays inside the root (sysfs's
// links are all relative and stay in /sys), so an attribute linked out of
// the tree (to /etc/shadow, say) reads as an error, never as the file it
// points to. close closes the root.
func (r Reader) fs() (fsr fsReader, close func(), err error) {
	base := path.Clean(r.root())
	root, err := os.OpenRoot(base)
	if err != nil {
		return fsReader{}, nil, fmt.Errorf("topo: %w", err)
	}
	h := rootedFS{fsys: root.FS(), base: base}
	return fsReader{fsys: h, rl: h, base: base, readFile: r.ReadFile}, func() { root.Close() }, nil
}

// rootedFS is a tree opened with os.Root under the names fsReader gives
// it, host paths under base: each is made relative to base, and errors
// name the host path again. A name outside base is refused.
type rootedFS struct {
	fsys fs.FS
	base string
}

func (h rootedFS) rel(op, name string) (string, error) {
	name = path.Clean(name)
	if name == h.base {
		return ".", nil
	}
	prefix := h.base + "/"
	if h.base == "/" {
		prefix = "/"
	}
	rel, ok := strings.CutPrefix(name, prefix)
	if !ok || !fs.ValidPath(rel) {
		return "", &fs.PathError{Op: op, Path: name, Err: errors.New("outside the tree")}
	}
	return rel, nil
}

// named puts the host path back into a path error.
func named(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

func (h rootedFS) Open(name string) (fs.File, error) {
	rel, err := h.rel("open", name)
	if err != nil {
		return nil, err
	}
	f, err := h.fsys.Open(rel)
	return f, named(err, name)
}

func (h rootedFS) Stat(name string) (fs.FileInfo, error) {
	rel, err := h.rel("stat", name)
	if err != nil {
		return nil, err
	}
	st, err := fs.Stat(h.fsys, rel)
	return st, named(err, name)
}

func (h rootedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	rel, err := h.rel("open", name)
	if err != nil {
		return nil, err
	}
	ents, err := fs.ReadDir(h.fsys, rel)
	return ents, named(err, name)
}

func (h rootedFS) ReadLink(name string) (string, error) {
	rel, err := h.rel("readlink", name)
	if err != nil {
		return "", err
	}
	t, err := fs.ReadLink(h.fsys, rel)
	return t, named(err, name)
}

func (h rootedFS) Lstat(name string) (fs.FileInfo, error) {
	rel, err := h.rel("lstat", name)
	if err != nil {
		return nil, err
	}
	st, err := fs.Lstat(h.fsys, rel)
	return st, named(err, name)
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
	fsr, done, err := r.fs()
	if err != nil {
		return nil, err
	}
	defer done()
	return fsr.system()
}

// PCIDevices reads every function under <root>/bus/pci/devices, sorted by
// address. Attributes that cannot be read or parsed leave their field zero
// and add a warning.
func (r Reader) PCIDevices() ([]PCIDevice, []string, error) {
	fsr, done, err := r.fs()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	return fsr.pciDevices()
}

// RDMADevices reads every device under <root>/class/infiniband, sorted by
// name. GID entries that fail to read (sysfs answers EINVAL for empty
// entries) or read as all zero are skipped. A missing class directory
// yields an error wrapping fs.ErrNotExist.
func (r Reader) RDMADevices() ([]RDMADevice, []string, error) {
	fsr, done, err := r.fs()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	return fsr.rdmaDevices()
}

// NetDevs reads the network interfaces under <root>/class/net that belong
// to a PCI function (virtual interfaces such as lo, bridges and veths are
// left out), sorted by name.
func (r Reader) NetDevs() ([]NetDev, []string, error) {
	fsr, done, err := r.fs()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	return fsr.netDevs()
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
