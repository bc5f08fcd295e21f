package model

func init() {
	mustRegister(Path{Name: "rdma", Title: "RDMA, host-staged", Order: 20, Role: RoleCompared, HostStaged: true,
		Style: Style{Color: "#0072b2", Dash: DashSolid, Glyph: GlyphSquare, Filled: true}, // Okabe–Ito blue
		Story: "The NIC does the protocol and reads/writes registered host memory (no CPU copies), but the payload still goes GPU → DDR → … → DDR → GPU through two cudaMemcpys.",
		Build: buildRDMA, Registration: (*Scenario).hostRegistration})
}

func buildRDMA(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	st := []Stage{s.copyD2H()}
	st = append(st, s.rdmaStages(atBounce)...)
	return append(st, s.copyH2D()), ""
}
