package topo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// genRates maps each PCIe generation to its transfer rate per lane in GT/s
// (PCI-SIG base specifications 1.0–6.0). These are the values the kernel
// prints in current_link_speed / max_link_speed (pci_speed_string in
// drivers/pci/probe.c: "2.5 GT/s PCIe" ... "64.0 GT/s PCIe").
var genRates = []float64{0, 2.5, 5, 8, 16, 32, 64}

// Gen returns the PCIe generation (1–6) of a per-lane rate in GT/s, or 0
// when the rate is not one of them.
func Gen(gts float64) int {
	for g, r := range genRates {
		if g > 0 && math.Abs(gts-r) < 0.01 {
			return g
		}
	}
	return 0
}

// GenRate returns the per-lane rate in GT/s of PCIe generation g (1–6), or 0.
func GenRate(g int) float64 {
	if g < 1 || g >= len(genRates) {
		return 0
	}
	return genRates[g]
}

// ErrUnknownSpeed is returned by ParseLinkSpeed for the kernel's "Unknown"
// (or "Unknown speed"): the device does not report a link speed, as virtual
// devices and some bridges do.
var ErrUnknownSpeed = errors.New("topo: link speed unknown")

// ParseLinkSpeed parses a sysfs current_link_speed / max_link_speed value
// ("32.0 GT/s PCIe", "8 GT/s", "2.5 GT/s") into GT/s per lane.
func ParseLinkSpeed(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(strings.ToLower(s), "unknown") {
		return 0, ErrUnknownSpeed
	}
	num, rest, ok := strings.Cut(s, " ")
	if !ok {
		// "8GT/s" without a space.
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, fmt.Errorf("topo: bad link speed %q", s)
		}
		num, rest = s[:i], s[i:]
	}
	if !strings.HasPrefix(strings.TrimSpace(rest), "GT/s") {
		return 0, fmt.Errorf("topo: bad link speed %q (want GT/s)", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("topo: bad link speed %q", s)
	}
	return v, nil
}

// ParseLinkWidth parses a sysfs current_link_width / max_link_width value
// ("16", "x16"). The kernel prints 0 for devices without a link, and some
// print 255 for "unknown"; both read as 0.
func ParseLinkWidth(s string) (int, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "x")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("topo: bad link width %q", s)
	}
	if n > 32 {
		return 0, nil
	}
	return n, nil
}

// Link is a PCIe link as the device reports it: the speed per lane in GT/s
// and the number of lanes, negotiated now (current) and at most (max).
// A zero field is unknown.
type Link struct {
	CurrentGTs   float64 `json:"current_gts,omitempty"`
	CurrentWidth int     `json:"current_width,omitempty"`
	MaxGTs       float64 `json:"max_gts,omitempty"`
	MaxWidth     int     `json:"max_width,omitempty"`
}

// CurrentGen returns the generation of the current link speed (0: unknown).
func (l Link) CurrentGen() int { return Gen(l.CurrentGTs) }

// MaxGen returns the generation of the maximum link speed (0: unknown).
func (l Link) MaxGen() int { return Gen(l.MaxGTs) }

// Max returns the maximum link in the scenario notation ("gen5x16"), or ""
// when generation or width is unknown.
func (l Link) Max() string { return LinkName(l.MaxGen(), l.MaxWidth) }

// Current returns the current link in the scenario notation ("gen1x16").
// GPUs drop to a low generation when idle, so the current link says little
// unless it was read under load.
func (l Link) Current() string { return LinkName(l.CurrentGen(), l.CurrentWidth) }

// LinkName formats a link in the scenario notation: LinkName(5, 16) is
// "gen5x16". It returns "" when gen or width is not positive.
func LinkName(gen, width int) string {
	if gen <= 0 || width <= 0 {
		return ""
	}
	return fmt.Sprintf("gen%dx%d", gen, width)
}

// ParseLinkName parses the scenario notation "gen5x16" into generation and width.
func ParseLinkName(s string) (gen, width int, err error) {
	rest, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(s)), "gen")
	if !ok {
		return 0, 0, fmt.Errorf("topo: bad PCIe link %q (want e.g. gen5x16)", s)
	}
	g, w, ok := strings.Cut(rest, "x")
	if !ok {
		return 0, 0, fmt.Errorf("topo: bad PCIe link %q (want e.g. gen5x16)", s)
	}
	gen, err1 := strconv.Atoi(g)
	width, err2 := strconv.Atoi(w)
	if err1 != nil || err2 != nil || GenRate(gen) == 0 || !validWidth(width) {
		return 0, 0, fmt.Errorf("topo: bad PCIe link %q (gen1..gen6, x1..x32)", s)
	}
	return gen, width, nil
}

func validWidth(w int) bool {
	switch w {
	case 1, 2, 4, 8, 12, 16, 32:
		return true
	}
	return false
}
