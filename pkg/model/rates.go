package model

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/units"
)

func (s *Scenario) gpuLinkRate() units.Rate { return s.GPU.PCIe.Rate(s.PCIe.MPS) }

// GPULinkRate is the payload rate of the GPU's PCIe link (encoding and TLP
// overhead taken off), the rate gpu.h2d_efficiency and gpu.d2h_efficiency
// are fractions of.
func (s *Scenario) GPULinkRate() units.Rate { return s.gpuLinkRate() }

// CopyRate is the pinned host↔GPU copy bandwidth, the slower direction:
// the measured gpu.copy_rate when given, else the GPU's PCIe link rate
// times the direction's copy efficiency.
func (s *Scenario) CopyRate() units.Rate { return min(s.H2DRate(), s.D2HRate()) }

// H2DRate is the pinned host→device copy bandwidth.
func (s *Scenario) H2DRate() units.Rate {
	if s.GPU.CopyRate > 0 {
		return s.GPU.CopyRate
	}
	return s.gpuLinkRate() * units.Rate(s.GPU.H2DEfficiency)
}

// D2HRate is the pinned device→host copy bandwidth.
func (s *Scenario) D2HRate() units.Rate {
	if s.GPU.CopyRate > 0 {
		return s.GPU.CopyRate
	}
	return s.gpuLinkRate() * units.Rate(s.GPU.D2HEfficiency)
}

// NVLinkCopyRate is the bandwidth of a large peer copy over NVLink.
func (s *Scenario) NVLinkCopyRate() units.Rate {
	return s.GPU.NVLinkRate * units.Rate(s.GPU.NVLinkEfficiency)
}

// GPUPeerRate is the bandwidth of a peer copy between two GPUs over PCIe:
// the copy engine's device-to-device writes at the link's copy rate,
// reduced by the class between the GPUs (posted writes through a host
// bridge; the inter-socket link's rate across sockets).
func (s *Scenario) GPUPeerRate() units.Rate {
	return s.classRate(s.Topology.GPUGPU, s.gpuLinkRate()*units.Rate(s.GPU.D2HEfficiency), false)
}

func (s *Scenario) nicLinkRate() units.Rate { return s.NIC.PCIe.Rate(s.PCIe.MPS) }

// classRate is a peer-to-peer rate over class c, base being the rate under
// one switch: reads or posted writes through a host bridge (PHB, NODE)
// keep their factor; across sockets (SYS) the inter-socket link caps it
// too.
func (s *Scenario) classRate(c Class, base units.Rate, read bool) units.Rate {
	f := s.Topology.PHBWriteFactor
	if read {
		f = s.Topology.PHBReadFactor
	}
	switch c {
	case PHB, NODE:
		return base * units.Rate(f)
	case SYS:
		return min(base*units.Rate(f), s.Topology.InterSocketRate)
	}
	return base
}

// PeerReadRate is the bandwidth at which the NIC reads GPU memory by
// peer-to-peer (the sending side of gdr and devmem).
func (s *Scenario) PeerReadRate() units.Rate {
	return s.classRate(s.Topology.GPUNIC, min(s.gpuLinkRate(), s.nicLinkRate()), true)
}

// PeerWriteRate is the bandwidth at which the NIC writes GPU memory by
// peer-to-peer (the receiving side).
func (s *Scenario) PeerWriteRate() units.Rate {
	return s.classRate(s.Topology.GPUNIC, min(s.gpuLinkRate(), s.nicLinkRate()), false)
}

// PeerRate is the slower of PeerReadRate and PeerWriteRate.
func (s *Scenario) PeerRate() units.Rate { return min(s.PeerReadRate(), s.PeerWriteRate()) }

// TopologyFactor is the fraction of the link rate that GPU↔NIC peer
// traffic reaches in its slower direction: 1 under one switch tree (PIX,
// PXB), less beyond.
func (s *Scenario) TopologyFactor() float64 {
	return float64(s.PeerRate()) / float64(min(s.gpuLinkRate(), s.nicLinkRate()))
}

// classExtraLatency is the one-way latency a peer transfer over class c
// adds to a transfer under one switch: a second switch level for PXB; up
// to the root complex and down again for PHB; plus half (NODE) or one (SYS)
// inter-socket crossing.
func (s *Scenario) classExtraLatency(c Class) units.Seconds {
	sw := s.PCIe.SwitchLatency
	switch c {
	case PXB:
		return sw
	case PHB:
		return 2 * sw
	case NODE:
		return 2*sw + s.Topology.InterSocketLatency/2
	case SYS:
		return 2*sw + s.Topology.InterSocketLatency
	}
	return 0
}

// peerExtraLatency is what a GPU↔NIC peer transfer adds, one way, to the
// same transfer between the NIC and host memory: the class's extra
// latency, less the switch levels beyond one that the NIC's own levels
// (topology.nic_switches, which every NIC transaction pays) already count
// — a second level of a PXB tree is on the NIC's way to the host too.
func (s *Scenario) peerExtraLatency() units.Seconds {
	extra := s.classExtraLatency(s.Topology.GPUNIC) - units.Seconds(max(s.Topology.NICSwitches-1, 0))*s.PCIe.SwitchLatency
	return max(extra, 0)
}

func (s *Scenario) flows() int { return min(s.Stack.Flows, s.CPU.Cores) }

func (s *Scenario) resources() []Resource {
	f := s.flows()
	cores := "1 core"
	if f > 1 {
		cores = fmt.Sprintf("%d cores", f)
	}
	return []Resource{
		{Name: "cpu:sender", Label: "sender CPU (" + cores + ")", Capacity: float64(f), CPU: true},
		{Name: "cpu:receiver", Label: "receiver CPU (" + cores + ")", Capacity: float64(f), CPU: true},
		{Name: "cpu:receiver-softirq", Label: "receiver softirq CPU (" + cores + ")", Capacity: float64(f), CPU: true},
		{Name: "ddr:sender", Label: "sender DDR", Capacity: float64(s.Memory.Rate)},
		{Name: "ddr:receiver", Label: "receiver DDR", Capacity: float64(s.Memory.Rate)},
		{Name: "pcie:sender-gpu:up", Label: "sender GPU PCIe link (from GPU)", Capacity: float64(s.gpuLinkRate())},
		{Name: "pcie:sender-nic:down", Label: "sender NIC PCIe link (to NIC)", Capacity: float64(s.nicLinkRate())},
		{Name: "pcie:receiver-nic:up", Label: "receiver NIC PCIe link (from NIC)", Capacity: float64(s.nicLinkRate())},
		{Name: "pcie:receiver-gpu:down", Label: "receiver GPU PCIe link (to GPU)", Capacity: float64(s.gpuLinkRate())},
		{Name: "pcie:peer-gpu:down", Label: "peer GPU PCIe link (to GPU)", Capacity: float64(s.gpuLinkRate())},
		{Name: "p2p:sender", Label: "sender GPU↔NIC peer path, NIC reading (" + string(s.Topology.GPUNIC) + ")", Capacity: float64(s.PeerReadRate())},
		{Name: "p2p:receiver", Label: "receiver GPU↔NIC peer path, NIC writing (" + string(s.Topology.GPUNIC) + ")", Capacity: float64(s.PeerWriteRate())},
		{Name: "hbm:receiver", Label: "receiver GPU memory", Capacity: float64(s.GPU.MemoryRate)},
		{Name: "socket:sender", Label: "sender inter-socket link (SYS)", Capacity: float64(s.Topology.InterSocketRate)},
		{Name: "socket:receiver", Label: "receiver inter-socket link (SYS)", Capacity: float64(s.Topology.InterSocketRate)},
	}
}
