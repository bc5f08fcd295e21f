package model

func init() {
	mustRegister(Path{Name: "host-rdma", Title: "RDMA, host to host", Order: 70, Role: RoleReference, HostStaged: true,
		Style: Style{Color: "#56b4e9", Dash: DashDashed, Glyph: GlyphSquare}, // Okabe–Ito sky blue
		Story: "Verbs between registered host buffers: the reference for the 2–5 µs RDMA figure.",
		Build: buildHostRDMA, Registration: (*Scenario).hostRegistration})
}

func buildHostRDMA(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	return s.rdmaStages(atHost), ""
}
