package model

func init() {
	mustRegister(Path{Name: "p2p-plain-nic", Title: "Plain NIC with P2P DMA (the \"impossible\" idea)", Order: 50, Role: RoleEnding,
		Style: Style{Color: "#888888", Dash: DashDotted, Glyph: GlyphPlus}, // grey: it never draws a line
		Story: "GPU and NIC under one PCIe switch; the NIC DMA-reads raw GPU data by peer-to-peer. An ordinary NIC only sends finished packets, so nobody builds the headers.",
		Build: buildPlainNIC})
}

// PlainNICReason is why the first idea of the account this project starts
// from (a plain NIC reading raw GPU data by P2P DMA) cannot work, said
// precisely:
// sending is not the problem, receiving is.
const PlainNICReason = "infeasible: an ordinary NIC cannot split received headers from payload, so every packet it receives lands whole in host memory and the payload never reaches the GPU directly — sending is not the problem: it can transmit a payload it DMA-reads from GPU memory behind headers the host CPU built (that is devmem TCP's transmit side; an ordinary NIC transmits only finished packets, with no transport engine of its own). GPU memory as the destination needs header/data split and flow steering (devmem TCP) or protocol offload on the NIC (RDMA: gdr)."

func buildPlainNIC(s *Scenario) ([]Stage, string) {
	return nil, PlainNICReason
}
