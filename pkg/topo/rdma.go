package topo

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// RDMADevice is one verbs device from /sys/class/infiniband.
type RDMADevice struct {
	Name string `json:"name"` // "mlx5_0"
	// PCIAddress is the PCI function the device belongs to ("" when it has none,
	// as for software devices like rxe and siw).
	PCIAddress string `json:"pci_address,omitempty"`
	HCAType    string `json:"hca_type,omitempty"` // "MT4129"
	FWVersion  string `json:"fw_ver,omitempty"`
	NodeGUID   string `json:"node_guid,omitempty"`
	NodeType   string `json:"node_type,omitempty"` // "1: CA"
	// NetDevs are the network interfaces of the same PCI function.
	NetDevs []string   `json:"netdevs,omitempty"`
	Ports   []RDMAPort `json:"ports"`
}

// RDMAPort is one port of an RDMA device.
type RDMAPort struct {
	Port int `json:"port"`
	// State is the logical port state ("ACTIVE", "DOWN", "INIT", "ARMED").
	State     string `json:"state,omitempty"`
	PhysState string `json:"phys_state,omitempty"` // "LinkUp", "Disabled", "Polling"
	// Rate is the text sysfs shows ("400 Gb/sec (4X NDR)"), RateBps the same
	// in bits per second (decimal), Width the lanes and Speed the signalling
	// name ("NDR").
	Rate    string  `json:"rate,omitempty"`
	RateBps float64 `json:"rate_bps,omitempty"`
	Width   int     `json:"width,omitempty"`
	Speed   string  `json:"speed,omitempty"`
	// LinkLayer is "InfiniBand" or "Ethernet" (RoCE).
	LinkLayer string `json:"link_layer,omitempty"`
	GIDs      []GID  `json:"gids,omitempty"`
}

// Active reports whether the port is up (logical state ACTIVE).
func (p RDMAPort) Active() bool { return p.State == "ACTIVE" }

// GID is one populated entry of a port's GID table.
type GID struct {
	Index int    `json:"index"`
	GID   string `json:"gid"`
	// Type is "IB/RoCE v1" or "RoCE v2" (gid_attrs/types), NetDev the
	// interface the RoCE GID belongs to (gid_attrs/ndevs).
	Type   string `json:"type,omitempty"`
	NetDev string `json:"netdev,omitempty"`
}

// ParsePortRate parses /sys/class/infiniband/<dev>/ports/<n>/rate. The
// kernel writes it as "%d%s Gb/sec (%dX%s)" (rate_show in
// drivers/infiniband/core/sysfs.c), e.g. "400 Gb/sec (4X NDR)",
// "2.5 Gb/sec (1X SDR)", "56 Gb/sec (4X FDR)". It returns the rate in
// bits/s (decimal), the lane count and the speed name (without the leading
// space; "" when absent).
func ParsePortRate(s string) (bps float64, width int, speed string, err error) {
	s = strings.TrimSpace(s)
	num, rest, ok := strings.Cut(s, " ")
	if !ok {
		return 0, 0, "", fmt.Errorf("topo: bad port rate %q", s)
	}
	v, perr := strconv.ParseFloat(num, 64)
	if perr != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, 0, "", fmt.Errorf("topo: bad port rate %q", s)
	}
	rest = strings.TrimSpace(rest)
	unit, paren, _ := strings.Cut(rest, "(")
	if strings.TrimSpace(unit) != "Gb/sec" {
		return 0, 0, "", fmt.Errorf("topo: bad port rate %q (want Gb/sec)", s)
	}
	bps = v * 1e9
	if paren == "" {
		return bps, 0, "", nil
	}
	inner, _, _ := strings.Cut(paren, ")")
	w, sp, _ := strings.Cut(strings.TrimSpace(inner), "X")
	if n, err := strconv.Atoi(strings.TrimSpace(w)); err == nil && n > 0 && n <= 32 {
		width = n
	}
	return bps, width, strings.TrimSpace(sp), nil
}

// ParsePortState parses a port's state or phys_state ("4: ACTIVE",
// "5: LinkUp") into its code and name.
func ParsePortState(s string) (code int, name string, err error) {
	s = strings.TrimSpace(s)
	c, n, ok := strings.Cut(s, ":")
	if !ok {
		return 0, "", fmt.Errorf("topo: bad port state %q", s)
	}
	code, err = strconv.Atoi(strings.TrimSpace(c))
	if err != nil {
		return 0, "", fmt.Errorf("topo: bad port state %q", s)
	}
	name = strings.TrimSpace(n)
	if name == "" || strings.ContainsAny(name, "\r\n") {
		return 0, "", fmt.Errorf("topo: bad port state %q", s)
	}
	return code, name, nil
}

// ParseGID parses a GID table entry as sysfs prints it (eight groups of four
// hex digits, "fe80:0000:0000:0000:0c42:a103:0065:d6b6"). It returns the
// canonical IPv6 text of the GID and whether it is populated (not all zero).
func ParseGID(s string) (gid string, populated bool, err error) {
	a, perr := netip.ParseAddr(strings.TrimSpace(s))
	if perr != nil || !a.Is6() || a.Zone() != "" {
		return "", false, fmt.Errorf("topo: bad GID %q", strings.TrimSpace(s))
	}
	return a.String(), !a.IsUnspecified(), nil
}

// LinkKind returns the model's nic.kind for an RDMA port's link layer:
// "ib" for InfiniBand, "roce" for Ethernet, "" otherwise.
func LinkKind(linkLayer string) string {
	switch strings.ToLower(strings.TrimSpace(linkLayer)) {
	case "infiniband":
		return "ib"
	case "ethernet":
		return "roce"
	}
	return ""
}

// NetDev is a network interface from /sys/class/net.
type NetDev struct {
	Name       string `json:"name"`
	PCIAddress string `json:"pci_address,omitempty"`
	// SpeedMbps is the link speed in Mbit/s (sysfs speed); 0 when unknown
	// (the link is down, or the driver does not say, as virtio does).
	SpeedMbps int    `json:"speed_mbps,omitempty"`
	OperState string `json:"operstate,omitempty"`
	MTU       int    `json:"mtu,omitempty"`
}

// ParseNetSpeed parses /sys/class/net/<if>/speed (Mbit/s); "-1" and other
// negative values (link down, unknown) yield 0.
func ParseNetSpeed(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("topo: bad interface speed %q", strings.TrimSpace(s))
	}
	if n < 0 || n == math.MaxUint32 {
		return 0, nil
	}
	return n, nil
}
