package model

import (
	"strings"
)

func init() {
	mustRegister(Path{Name: "devmem", Title: "Device-memory TCP (header/data split)", Order: 40, Role: RoleEnding,
		Style: Style{Color: "#cc79a7", Dash: DashSolid, Glyph: GlyphDiamond, Filled: true}, // Okabe–Ito reddish purple
		Story: "Linux devmem TCP: the CPU still runs TCP, but only on headers; the NIC splits each packet, headers to host memory and payload straight to GPU memory (dma-buf), and transmits payload it reads from the GPU. The payload lands in the NIC's receive buffers in GPU memory, so a GPU kernel unpacks it into the user's buffer: one copy, inside GPU memory.",
		Build: buildDevmem})
}

func buildDevmem(s *Scenario) ([]Stage, string) {
	if s.NIC.Kind == KindLoopback {
		return nil, "infeasible: devmem TCP moves payload between a NIC and GPU memory, and the loopback device is no NIC"
	}
	if s.NIC.Kind == KindIB {
		return nil, "infeasible: devmem TCP needs an Ethernet NIC that splits headers from payload; TCP over InfiniBand (IPoIB) has no header/data split"
	}
	var missing []string
	if !s.NIC.HeaderSplit {
		missing = append(missing, "header split (nic.header_split)")
	}
	if !s.NIC.FlowSteering {
		missing = append(missing, "flow steering (nic.flow_steering)")
	}
	if !s.NIC.ChecksumOffload {
		missing = append(missing, "checksum offload (nic.checksum_offload)")
	}
	if len(missing) > 0 {
		return nil, "infeasible: devmem TCP needs header split, flow steering and checksum offload on the NIC (headers to host memory, payload to GPU memory, and the CPU never reads the payload to checksum it); this NIC lacks " + strings.Join(missing, ", ")
	}
	return append(s.hostTCPStages(atGPU), s.unpack()), ""
}
