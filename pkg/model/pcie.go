package model

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Link is a PCIe link: generation and lane count.
type Link struct {
	Gen   int // 1..6
	Lanes int // 1, 2, 4, 8, 16 (x12 and x32 exist in the spec but not on GPUs and NICs)
}

// ParseLink parses "gen5x16", "Gen4 x8", "gen3x4".
func ParseLink(s string) (Link, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	if !strings.HasPrefix(t, "gen") {
		return Link{}, fmt.Errorf("%q: a PCIe link looks like gen5x16", s)
	}
	t = t[3:]
	i := strings.IndexByte(t, 'x')
	if i < 0 {
		// Say what is wrong first with the generation, then the lanes.
		if g, err := strconv.Atoi(t); err == nil {
			if err := (Link{Gen: g, Lanes: 16}).Validate(); err != nil {
				return Link{}, fmt.Errorf("%q: %v", s, err)
			}
		}
		return Link{}, fmt.Errorf("%q: a PCIe link looks like gen5x16 (lane count missing)", s)
	}
	g, err1 := strconv.Atoi(t[:i])
	w, err2 := strconv.Atoi(t[i+1:])
	if err1 != nil || err2 != nil {
		return Link{}, fmt.Errorf("%q: a PCIe link looks like gen5x16", s)
	}
	l := Link{Gen: g, Lanes: w}
	if err := l.Validate(); err != nil {
		return Link{}, fmt.Errorf("%q: %v", s, err)
	}
	return l, nil
}

// Validate checks the generation (1..6) and lane count (1, 2, 4, 8, 16).
func (l Link) Validate() error {
	if l.Gen < 1 || l.Gen > 6 {
		return fmt.Errorf("PCIe generation %d does not exist (gen1..gen6)", l.Gen)
	}
	switch l.Lanes {
	case 1, 2, 4, 8, 16:
		return nil
	}
	return fmt.Errorf("PCIe width x%d is not one of x1, x2, x4, x8, x16", l.Lanes)
}

// String formats l as "gen5x16".
func (l Link) String() string { return fmt.Sprintf("gen%dx%d", l.Gen, l.Lanes) }

// TransferRate is the per-lane signalling rate in transfers per second, from
// the PCI-SIG base specifications: 2.5, 5, 8, 16, 32 and 64 GT/s for gen1..6.
func (l Link) TransferRate() float64 {
	return [...]float64{0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9}[l.Gen]
}

// Encoding is the line-code efficiency: 8b/10b for gen1–2 (PCIe 1.0/2.0),
// 128b/130b for gen3–5 (PCIe 3.0 §4.2.2). Gen6 uses PAM4 with 1b/1b
// encoding; its FLIT overhead is applied in TLPEfficiency.
func (l Link) Encoding() float64 {
	switch {
	case l.Gen <= 2:
		return 8.0 / 10
	case l.Gen <= 5:
		return 128.0 / 130
	}
	return 1
}

// RawRate is the data rate of the link in one direction after line coding,
// before any protocol overhead: gen5 x16 = 32e9 × 16 × 128/130 / 8 = 63.0 GB/s.
func (l Link) RawRate() units.Rate {
	return units.Rate(l.TransferRate() * float64(l.Lanes) * l.Encoding() / 8)
}

// PCIe protocol overheads per TLP (bytes). Sources: PCIe base spec 3.0–5.0
// (TLP header 3 or 4 DW; DLL 2-byte sequence number + 4-byte LCRC; physical
// framing), as tallied by Neugebauer et al., "Understanding PCIe performance
// for end host networking", SIGCOMM 2018, §2 (24 B per TLP with 64-bit
// addresses on gen3).
const (
	tlpHeader64    = 16 // 4-DW header: memory write/read completion with 64-bit address
	dllOverhead    = 6  // sequence number (2) + LCRC (4)
	framingGen1to5 = 2  // STP+END (gen1–2) / STP token share (gen3–5)
	// DLLPs: an Ack and an UpdateFC of 8 bytes each (6 + 2 framing), taken
	// as one of each per 4 TLPs — i.e. 4 bytes per TLP (Neugebauer et al. 2018
	// model ACK/FC overhead of this order).
	dllpPerTLP = 4
	// Gen6 FLIT mode (PCIe 6.0 §4.2): a 256-byte flit carries 236 bytes of
	// TLP, 6 of DLP, 8 of CRC and 6 of FEC; TLPs keep their header but lose
	// the per-TLP LCRC, sequence number and framing.
	flitBytes    = 256
	flitTLPBytes = 236
)

// TLPEfficiency is the fraction of the raw rate that carries payload when
// every TLP carries mps bytes (the Max_Payload_Size, typically 256 B on
// servers): mps / (mps + per-TLP overhead), and for gen6 the flit framing.
func (l Link) TLPEfficiency(mps units.Bytes) float64 {
	p := float64(mps)
	if l.Gen >= 6 {
		return flitTLPBytes / float64(flitBytes) * p / (p + tlpHeader64)
	}
	return p / (p + tlpHeader64 + dllOverhead + framingGen1to5 + dllpPerTLP)
}

// Rate is the payload bandwidth of the link in one direction for large DMA
// transfers with Max_Payload_Size mps. For gen5 x16 and mps = 256 B:
// 63.015 GB/s × 256/(256+28) = 56.80 GB/s (an NVIDIA H200 machine measured
// 55.4 GB/s for pinned 1 GiB copies on 2026-11-29:
// bench/results/h200-1gpu-2026-11-29-final/).
func (l Link) Rate(mps units.Bytes) units.Rate {
	return units.Rate(float64(l.RawRate()) * l.TLPEfficiency(mps))
}
