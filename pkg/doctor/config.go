package doctor

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// PCI configuration space layout (PCI Local Bus 3.0 §6.1, PCI Express Base
// 5.0 §7.5.3 and §7.7.8): the header, the capability list from 0x34, the
// extended capabilities from 0x100.
const (
	cfgStatus       = 0x06
	cfgStatusCapBit = 1 << 4
	cfgCapPtr       = 0x34
	capIDPCIe       = 0x10
	extCapStart     = 0x100
	extCapIDACS     = 0x000d
	// Offsets within the PCI Express capability.
	pcieCaps    = 0x02 // PCI Express Capabilities: bits 7:4 device/port type
	pcieDevCap  = 0x04 // bits 2:0 Max_Payload_Size supported
	pcieDevCtl  = 0x08 // bits 7:5 Max_Payload_Size, 14:12 Max_Read_Request_Size
	pcieLinkCap = 0x0c // bits 3:0 max link speed, 9:4 max link width
	pcieLinkSta = 0x12 // bits 3:0 current link speed, 9:4 negotiated width
	// unprivilegedConfig is how much of config space sysfs gives a reader
	// without CAP_SYS_ADMIN (drivers/pci/pci-sysfs.c, pci_read_config: the
	// rest reads as nothing for non-root).
	unprivilegedConfig = 64
)

// PCIe device/port types (bits 7:4 of the PCI Express Capabilities register).
const (
	portEndpoint   = 0x0
	portLegacyEP   = 0x1
	portRoot       = 0x4
	portUpstream   = 0x5
	portDownstream = 0x6
)

// ACS control bits (PCIe Base 5.0 §7.7.8.3).
const (
	acsSV = 1 << 0 // Source Validation
	acsTB = 1 << 1 // Translation Blocking
	acsRR = 1 << 2 // P2P Request Redirect
	acsCR = 1 << 3 // P2P Completion Redirect
	acsUF = 1 << 4 // Upstream Forwarding
	acsEC = 1 << 5 // P2P Egress Control
	acsDT = 1 << 6 // Direct Translated P2P
)

// ConfigSpace is what doctor reads from a function's configuration space.
type ConfigSpace struct {
	// Len is how many bytes could be read: 64 for a reader without root,
	// 256 for conventional PCI (or a VM without extended config access),
	// 4096 for PCI Express with root.
	Len int
	// Short is set when the capability list points past Len: the rest of
	// config space needs root.
	Short bool
	// PCIe is set when a PCI Express capability was found.
	PCIe     bool
	PortType int
	// MPSSupported, MPS and MRRS are in bytes (0: unknown).
	MPSSupported, MPS, MRRS int
	// Link capability and status from the PCIe capability (generation and
	// width; 0: unknown).
	LinkCapGen, LinkCapWidth, LinkGen, LinkWidth int
	// Extended is set when extended config space (0x100 and up) was read.
	Extended bool
	// ACS is the ACS capability, nil when there is none (or Extended is false).
	ACS *ACS
}

// ACS is an Access Control Services capability.
type ACS struct {
	Cap, Ctrl uint16
}

// Redirects reports whether peer-to-peer requests or completions are
// redirected upstream (RR or CR set): P2P through this port goes up to the
// root complex instead of across the switch.
func (a ACS) Redirects() bool { return a.Ctrl&(acsRR|acsCR) != 0 }

// Bits names the control bits that are set ("RR CR UF").
func (a ACS) Bits() string {
	names := []string{"SV", "TB", "RR", "CR", "UF", "EC", "DT"}
	s := ""
	for i, n := range names {
		if a.Ctrl&(1<<i) != 0 {
			if s != "" {
				s += " "
			}
			s += n
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// errConfigShort is returned when config space is too short for a header.
var errConfigShort = errors.New("config space shorter than its 64-byte header")

// ParseConfig parses the bytes of a sysfs config file. It follows the
// capability lists with a bound on their length, so a looping or garbled
// list ends the walk instead of the program.
func ParseConfig(b []byte) (ConfigSpace, error) {
	c := ConfigSpace{Len: len(b)}
	if len(b) < unprivilegedConfig {
		return c, errConfigShort
	}
	le := binary.LittleEndian
	if v := le.Uint16(b[0:]); v == 0xffff || v == 0 {
		return c, fmt.Errorf("config space reads vendor 0x%04x (no device)", v)
	}
	if le.Uint16(b[cfgStatus:])&cfgStatusCapBit != 0 {
		ptr := int(b[cfgCapPtr]) &^ 3
		for hops := 0; ptr >= 0x40 && hops < 48; hops++ {
			if ptr+2 > len(b) {
				c.Short = true
				break
			}
			id, next := b[ptr], int(b[ptr+1])&^3
			if id == capIDPCIe {
				if ptr+pcieLinkSta+2 > len(b) {
					c.Short = true
					break
				}
				c.PCIe = true
				c.PortType = int(le.Uint16(b[ptr+pcieCaps:])>>4) & 0xf
				devCap := le.Uint32(b[ptr+pcieDevCap:])
				devCtl := le.Uint16(b[ptr+pcieDevCtl:])
				c.MPSSupported = 128 << (devCap & 7)
				c.MPS = 128 << ((devCtl >> 5) & 7)
				c.MRRS = 128 << ((devCtl >> 12) & 7)
				linkCap := le.Uint32(b[ptr+pcieLinkCap:])
				linkSta := le.Uint16(b[ptr+pcieLinkSta:])
				c.LinkCapGen, c.LinkCapWidth = int(linkCap&0xf), int(linkCap>>4)&0x3f
				c.LinkGen, c.LinkWidth = int(linkSta&0xf), int(linkSta>>4)&0x3f
				if c.MPSSupported > 4096 {
					c.MPSSupported = 0 // reserved encodings
				}
				if c.MPS > 4096 {
					c.MPS = 0
				}
				if c.MRRS > 4096 {
					c.MRRS = 0
				}
			}
			ptr = next
		}
	}
	if len(b) < extCapStart+8 {
		return c, nil
	}
	c.Extended = true
	off := extCapStart
	for hops := 0; off >= extCapStart && off+4 <= len(b) && hops < 512; hops++ {
		h := le.Uint32(b[off:])
		if h == 0 || h == 0xffffffff {
			break
		}
		if h&0xffff == extCapIDACS && off+8 <= len(b) {
			c.ACS = &ACS{Cap: le.Uint16(b[off+4:]), Ctrl: le.Uint16(b[off+6:])}
		}
		off = int(h>>20) &^ 3
	}
	return c, nil
}

// portTypeName names a PCIe device/port type.
func portTypeName(t int) string {
	switch t {
	case portEndpoint, portLegacyEP:
		return "endpoint"
	case portRoot:
		return "root port"
	case portUpstream:
		return "switch upstream port"
	case portDownstream:
		return "switch downstream port"
	case 0x7:
		return "PCIe-to-PCI bridge"
	case 0x9:
		return "root complex integrated endpoint"
	}
	return fmt.Sprintf("type %d", t)
}

// readConfig reads and parses a PCI function's config space, once. The
// fact says how much could be read.
func readConfig(e *Env, addr string) (ConfigSpace, Fact, error) {
	type res struct {
		c   ConfigSpace
		f   Fact
		err error
	}
	r := once(e, "config "+addr, func() res {
		name := "bus/pci/devices/" + addr + "/config"
		f := Fact{Source: src(sysTree, name)}
		b, err := e.read(sysTree, name)
		if err != nil {
			f.Error = whyNot(err)
			return res{f: f, err: err}
		}
		c, err := ParseConfig(b)
		switch {
		case err != nil:
			f.Error = "could not read: " + err.Error()
		case c.Short || (!c.PCIe && c.Len <= unprivilegedConfig):
			f.Error = fmt.Sprintf("could not read: only the first %d bytes are readable (needs root)", c.Len)
			err = errNeedsRoot
		default:
			f.Value = fmt.Sprintf("%d bytes", c.Len)
		}
		return res{c, f, err}
	})
	return r.c, r.f, r.err
}

var errNeedsRoot = errors.New("needs root")
