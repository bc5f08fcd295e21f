package model

func init() {
	mustRegister(Path{Name: "gdr", Title: "GPUDirect RDMA", Order: 30, Role: RoleCompared,
		Style: Style{Color: "#009e73", Dash: DashSolid, Glyph: GlyphTriangle, Filled: true}, // Okabe–Ito bluish green
		Story: "The NIC reads and writes GPU memory directly by PCIe peer-to-peer through the GPU's BAR1: no host copy, no DDR traffic for the payload. The bare transport posts and polls from the application's thread; software.stack adds a library's own work (NCCL's proxy thread and, before Hopper, its flush; UCX's protocols; NVSHMEM's GPU-initiated posts).",
		Build: buildGDR, Registration: (*Scenario).gpuRegistration, Note: ncclGDRNote})
}

func buildGDR(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	st := s.rdmaStages(atGPU)
	if n := ncclGDRNote(s); n != "" {
		i := stageIndex(st, "C")
		st[i].What += "; " + n
	}
	return st, ""
}
