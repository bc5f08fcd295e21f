package topo

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/gpupath/gpupath/internal/safeio"
)

// ReadFS reads the whole system from a sysfs tree given as an fs.FS, as
// Reader.Read does from a directory: the same devices, links, ports and
// warnings (a test checks both on every fixture). Names are relative to the
// sysfs root ("bus/pci/devices"), and so are the paths in warnings.
//
// Give it os.OpenRoot(dir).FS() to be sure nothing outside dir is read:
// os.Root follows a symbolic link only while it stays inside the root, so a
// link that points outside reads as an error (a warning here), never as the
// file it points to. fsys must implement fs.ReadLinkFS (os.Root's and
// os.DirFS's file systems do): the PCI hierarchy is the target of the links
// in bus/pci/devices.
func ReadFS(fsys fs.FS) (*System, error) {
	rl, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return nil, errors.New("topo: the file system cannot read symbolic links")
	}
	return fsReader{fsys: fsys, rl: rl}.system()
}

// system reads the PCI functions, RDMA devices and interfaces and links
// them (ReadFS and Reader.Read).
func (r fsReader) system() (*System, error) {
	s := &System{}
	pci, warn, err := r.pciDevices()
	if err != nil {
		return nil, err
	}
	s.PCI, s.Warnings = pci, append(s.Warnings, warn...)
	rdma, warn, err := r.rdmaDevices()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Warnings = append(s.Warnings, err.Error())
	}
	s.RDMA, s.Warnings = rdma, append(s.Warnings, warn...)
	nd, warn, err := r.netDevs()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Warnings = append(s.Warnings, err.Error())
	}
	s.Net, s.Warnings = nd, append(s.Warnings, warn...)
	s.link()
	return s, nil
}

// link attaches RDMA devices and interfaces to their PCI functions.
func (s *System) link() {
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
}

// fsReader reads sysfs through fsys. base is the root's name in fsys: ""
// for ReadFS (names relative to the root), the directory for Reader, whose
// file system takes host paths as they are (so its warnings name them).
type fsReader struct {
	fsys fs.FS
	rl   fs.ReadLinkFS
	base string
	// readFile, when set, reads attributes instead (Reader.ReadFile).
	readFile func(name string) ([]byte, error)
}

func (r fsReader) read(name string) (string, error) {
	var b []byte
	var err error
	if r.readFile != nil {
		b, err = r.readFile(name)
	} else {
		b, err = safeio.ReadFSFile(r.fsys, name, maxAttr)
	}
	if err != nil {
		// Name the file as the caller did: some file systems put the whole
		// host path in a read error (os.Root's "read /tmp/x/sys/...: is a
		// directory").
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path != name {
			err = &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
		}
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// maxAttr bounds one sysfs attribute read (they are a page or less); a
// FIFO or a device in a tree is refused, not waited on (safeio.ReadFSFile).
const maxAttr = 1 << 20

func (r fsReader) pciDevices() ([]PCIDevice, []string, error) {
	dir := path.Join(r.base, "bus/pci/devices")
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("topo: %w", err)
	}
	var devs []PCIDevice
	var warns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d, w, err := r.pciDevice(path.Join(dir, e.Name()), e.Name())
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

func (r fsReader) pciDevice(p, name string) (PCIDevice, []string, error) {
	var warns []string
	warnf := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	addr, err := ParseAddress(name)
	if err != nil {
		return PCIDevice{}, nil, err
	}
	target, err := r.rl.ReadLink(p)
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
		s, err := r.read(path.Join(p, attr))
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
	if s, err := r.read(path.Join(p, "numa_node")); err == nil {
		d.NUMANode = ParseNUMANode(s)
	}
	if t, err := r.rl.ReadLink(path.Join(p, "driver")); err == nil {
		d.Driver = path.Base(t)
	}
	speed := func(attr string) float64 {
		s, err := r.read(path.Join(p, attr))
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
		s, err := r.read(path.Join(p, attr))
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

func (r fsReader) rdmaDevices() ([]RDMADevice, []string, error) {
	dir := path.Join(r.base, "class/infiniband")
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("topo: %w", err)
	}
	var devs []RDMADevice
	var warns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d, w := r.rdmaDevice(path.Join(dir, e.Name()), e.Name())
		devs = append(devs, d)
		warns = append(warns, w...)
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].Name < devs[j].Name })
	return devs, warns, nil
}

func (r fsReader) rdmaDevice(p, name string) (RDMADevice, []string) {
	var warns []string
	d := RDMADevice{Name: name}
	if t, err := r.rl.ReadLink(path.Join(p, "device")); err == nil {
		if a, err := ParseAddress(path.Base(t)); err == nil {
			d.PCIAddress = a
		}
	}
	d.HCAType, _ = r.read(path.Join(p, "hca_type"))
	d.FWVersion, _ = r.read(path.Join(p, "fw_ver"))
	d.NodeGUID, _ = r.read(path.Join(p, "node_guid"))
	d.NodeType, _ = r.read(path.Join(p, "node_type"))
	ports, err := fs.ReadDir(r.fsys, path.Join(p, "ports"))
	if err != nil {
		warns = append(warns, fmt.Sprintf("topo: %s: %v", name, err))
		return d, warns
	}
	for _, pe := range ports {
		n, err := strconv.Atoi(pe.Name())
		if err != nil {
			continue
		}
		port, w := r.rdmaPort(path.Join(p, "ports", pe.Name()), name, n)
		d.Ports = append(d.Ports, port)
		warns = append(warns, w...)
	}
	sort.Slice(d.Ports, func(i, j int) bool { return d.Ports[i].Port < d.Ports[j].Port })
	return d, warns
}

func (r fsReader) rdmaPort(p, dev string, n int) (RDMAPort, []string) {
	var warns []string
	warnf := func(format string, args ...any) {
		warns = append(warns, fmt.Sprintf("topo: %s port %d: ", dev, n)+fmt.Sprintf(format, args...))
	}
	port := RDMAPort{Port: n}
	if s, err := r.read(path.Join(p, "state")); err == nil {
		if _, name, err := ParsePortState(s); err == nil {
			port.State = name
		} else {
			warnf("%v", err)
		}
	}
	if s, err := r.read(path.Join(p, "phys_state")); err == nil {
		if _, name, err := ParsePortState(s); err == nil {
			port.PhysState = name
		} else {
			warnf("%v", err)
		}
	}
	if s, err := r.read(path.Join(p, "rate")); err == nil {
		port.Rate = s
		if bps, w, sp, err := ParsePortRate(s); err == nil {
			port.RateBps, port.Width, port.Speed = bps, w, sp
		} else {
			warnf("%v", err)
		}
	}
	port.LinkLayer, _ = r.read(path.Join(p, "link_layer"))
	ents, err := fs.ReadDir(r.fsys, path.Join(p, "gids"))
	if err != nil {
		return port, warns
	}
	for _, e := range ents {
		i, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		s, err := r.read(path.Join(p, "gids", e.Name()))
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
		g.Type, _ = r.read(path.Join(p, "gid_attrs", "types", e.Name()))
		g.NetDev, _ = r.read(path.Join(p, "gid_attrs", "ndevs", e.Name()))
		port.GIDs = append(port.GIDs, g)
	}
	sort.Slice(port.GIDs, func(i, j int) bool { return port.GIDs[i].Index < port.GIDs[j].Index })
	return port, warns
}

func (r fsReader) netDevs() ([]NetDev, []string, error) {
	dir := path.Join(r.base, "class/net")
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("topo: %w", err)
	}
	var out []NetDev
	var warns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := path.Join(dir, e.Name())
		t, err := r.rl.ReadLink(path.Join(p, "device"))
		if err != nil {
			continue
		}
		addr, err := ParseAddress(path.Base(t))
		if err != nil {
			continue // not a PCI function (e.g. a virtio device on a platform bus)
		}
		n := NetDev{Name: e.Name(), PCIAddress: addr}
		if s, err := r.read(path.Join(p, "speed")); err == nil {
			if v, err := ParseNetSpeed(s); err == nil {
				n.SpeedMbps = v
			} else {
				warns = append(warns, fmt.Sprintf("topo: %s: %v", e.Name(), err))
			}
		}
		n.OperState, _ = r.read(path.Join(p, "operstate"))
		if s, err := r.read(path.Join(p, "mtu")); err == nil {
			n.MTU, _ = strconv.Atoi(s)
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, warns, nil
}
