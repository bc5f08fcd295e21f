package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// Class says how two devices are connected, as `nvidia-smi topo -m` prints
// it. The legend of nvidia-smi (driver 5xx) reads:
//
//	X    = Self
//	SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
//	NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
//	PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
//	PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
//	PIX  = Connection traversing at most a single PCIe bridge
//	NV#  = Connection traversing a bonded set of # NVLinks
type Class string

// The classes of a PCIe connection, closest first.
const (
	Self Class = "X"
	PIX  Class = "PIX"
	PXB  Class = "PXB"
	PHB  Class = "PHB"
	NODE Class = "NODE"
	SYS  Class = "SYS"
)

// NVLink returns the class of a connection over n bonded NVLinks ("NV18").
func NVLink(n int) Class { return Class("NV" + strconv.Itoa(n)) }

// NVLinks returns the number of bonded NVLinks of an NV# class.
func (c Class) NVLinks() (int, bool) {
	s, ok := strings.CutPrefix(string(c), "NV")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Rank orders classes from the closest (0, Self) to the farthest (6, SYS);
// NVLink ranks 1, before any PCIe class. An unknown class ranks 7.
func (c Class) Rank() int {
	switch c {
	case Self:
		return 0
	case PIX:
		return 2
	case PXB:
		return 3
	case PHB:
		return 4
	case NODE:
		return 5
	case SYS:
		return 6
	}
	if _, ok := c.NVLinks(); ok {
		return 1
	}
	return 7
}

// PCIe reports whether c is one of the PCIe classes PIX, PXB, PHB, NODE, SYS.
func (c Class) PCIe() bool { r := c.Rank(); return r >= 2 && r <= 6 }

// ParseClass parses a class as nvidia-smi prints it ("PIX", "NV18", "X").
// Older drivers printed "SOC" for what is now SYS; it is accepted as SYS.
func ParseClass(s string) (Class, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "X", "PIX", "PXB", "PHB", "NODE", "SYS":
		return Class(s), nil
	case "SOC":
		return SYS, nil
	}
	c := Class(s)
	if n, ok := c.NVLinks(); ok {
		return NVLink(n), nil
	}
	return "", fmt.Errorf("topo: unknown connection class %q", s)
}
