package model

func init() {
	mustRegister(Path{Name: "gdr", Title: "GPUDirect RDMA", Order: 30, Role: RoleCompared,
		Style: Style{Color: "#009e73", Dash: DashSolid, Glyph: GlyphTriangle, Filled: true}, // Okabe–Ito bluish green
		Story: "The NIC reads and writes GPU memory directly by PCIe peer-to-peer through the GPU's BAR1: no host copy, no DDR traffic for the payload. A CPU proxy thread posts and polls for the GPU; GPUs before Hopper need a flush before they read what the NIC wrote.",
		Build: buildGDR, Registration: (*Scenario).gpuRegistration})
}

func buildGDR(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	return s.rdmaStages(true), ""
}
