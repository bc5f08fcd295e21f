package model

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	mustRegister(Path{Name: "gpu-peer", Title: "GPU to GPU inside a node", Order: 80, Role: RoleIntraNode,
		Style: Style{Color: "#000000", Dash: DashDashDot, Glyph: GlyphCross}, // black
		Story: "A peer copy between two GPUs of one node, over NVLink where there is one, else PCIe peer-to-peer.",
		Build: buildGPUPeer})
}

func buildGPUPeer(s *Scenario) ([]Stage, string) {
	a := s.GPU.AsyncLatency
	st := Stage{Side: Sender, Copy: true, Alpha: s.GPU.PeerCopyLatency, Occupancy: a, CPUPerMessage: a}
	if s.GPU.NVLinkRate > 0 {
		st.Name = "peer copy over NVLink"
		st.What = fmt.Sprintf("the copy engine moves the payload from one GPU's memory to the other's over NVLink at %s (gpu.nvlink_rate × gpu.nvlink_efficiency); no PCIe, no DDR", s.NVLinkCopyRate().Human())
		st.PerByte = units.Seconds(1 / float64(s.NVLinkCopyRate()))
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(a)}}
	} else {
		st.Name = "peer copy over PCIe"
		st.What = fmt.Sprintf("the copy engine writes the payload into the other GPU's memory by PCIe peer-to-peer (%s between the GPUs, no NVLink) at %s", s.Topology.GPUGPU, s.GPUPeerRate().Human())
		st.Alpha += s.classExtraLatency(s.Topology.GPUGPU)
		st.PerByte = units.Seconds(1 / float64(s.GPUPeerRate()))
		st.Crossings = 2
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(a)},
			{Resource: "pcie:sender-gpu:up", PerByte: 1}, {Resource: "pcie:peer-gpu:down", PerByte: 1}}
	}
	return []Stage{st}, ""
}
