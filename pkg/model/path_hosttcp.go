package model

func init() {
	mustRegister(Path{Name: "host-tcp", Title: "TCP/IP, host to host", Order: 60, Role: RoleReference, HostStaged: true,
		Style: Style{Color: "#e69f00", Dash: DashDashed, Glyph: GlyphCircle}, // Okabe–Ito orange
		Story: "The familiar socket path between host buffers: the reference for the 10–20 µs TCP figure.",
		Build: buildHostTCP})
}

func buildHostTCP(s *Scenario) ([]Stage, string) { return s.hostTCPStages(atHost), "" }
