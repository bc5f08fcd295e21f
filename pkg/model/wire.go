package model

import "github.com/gpupath/gpupath/pkg/units"

// Per-packet framing on the wire, in bytes. Sources: IEEE 802.3 (preamble
// and start delimiter 8, MAC header 14, FCS 4, minimum inter-frame gap 12);
// RFC 791 (IPv4 header 20); RFC 9293 + RFC 7323 (TCP header 20 + 12 of
// timestamps option, on by default in Linux); RFC 768 (UDP 8); InfiniBand
// Architecture Specification vol. 1 (LRH 8, BTH 12, RETH 16, DETH 8,
// ICRC 4, VCRC 2) and its Annex A17 (RoCEv2: BTH over UDP/IP); RFC 4391
// (IPoIB: 4-byte encapsulation header, IPoIB MTU = IB MTU − 4).
const (
	ethFraming    = 8 + 14 + 4 + 12 // preamble+SFD, MAC header, FCS, inter-frame gap
	ipv4Header    = 20
	tcpHeader     = 20 + 12 // with timestamps
	udpHeader     = 8
	ibLRH         = 8
	ibBTH         = 12
	ibRETH        = 16
	ibDETH        = 8
	ibICRC        = 4
	ibVCRC        = 2
	ipoibEncap    = 4
	loopbackMTU   = 65536 // Linux lo default MTU
	propagationNS = 5     // light in fibre or copper: ≈ 5 ns per metre (velocity factor ≈ 0.67)
)

// wireFormat is how a protocol puts payload into packets on a link.
type wireFormat struct {
	payload    units.Bytes   // payload bytes per full packet
	overhead   units.Bytes   // bytes on the wire per packet besides payload
	perMessage units.Bytes   // extra bytes once per message (RDMA write's RETH)
	label      string        // for stage descriptions
	rate       units.Rate    // bytes per second on the wire
	latency    units.Seconds // hops + propagation
}

// tcpWire is TCP/IP over the scenario's link (IPoIB on InfiniBand).
func (s *Scenario) tcpWire() wireFormat {
	w := wireFormat{rate: s.DataRate(), latency: s.networkLatency()}
	switch s.NIC.Kind {
	case KindIB:
		ipMTU := s.NIC.MTU - ipoibEncap
		w.payload = ipMTU - ipv4Header - tcpHeader
		w.overhead = ibLRH + ibBTH + ibDETH + ibICRC + ibVCRC + ipoibEncap + ipv4Header + tcpHeader
		w.label = "TCP/IPv4 over IPoIB"
	case KindLoopback:
		w.payload = loopbackMTU - ipv4Header - tcpHeader
		w.overhead = 0
		w.label = "TCP/IPv4 over the loopback device"
	default:
		w.payload = s.NIC.MTU - ipv4Header - tcpHeader
		w.overhead = ethFraming + ipv4Header + tcpHeader
		w.label = "TCP/IPv4 over Ethernet"
	}
	return w
}

// rdmaWire is an RDMA write (RC) over InfiniBand or RoCEv2.
func (s *Scenario) rdmaWire() wireFormat {
	w := wireFormat{rate: s.DataRate(), latency: s.networkLatency(), perMessage: ibRETH}
	if s.NIC.Kind == KindIB {
		w.payload = s.NIC.MTU
		w.overhead = ibLRH + ibBTH + ibICRC + ibVCRC
		w.label = "InfiniBand RC"
		return w
	}
	// RoCEv2: the IB path MTU is the largest of 256..4096 that fits in the IP MTU.
	room := s.NIC.MTU - ipv4Header - udpHeader - ibBTH - ibRETH - ibICRC
	w.payload = 256
	for _, m := range []units.Bytes{4096, 2048, 1024, 512, 256} {
		if m <= room {
			w.payload = m
			break
		}
	}
	w.overhead = ethFraming + ipv4Header + udpHeader + ibBTH + ibICRC
	w.label = "RoCEv2"
	return w
}

func (s *Scenario) networkLatency() units.Seconds {
	return units.Seconds(s.Network.Hops)*s.Network.HopLatency + units.Seconds(float64(s.Network.Cable)*propagationNS*1e-9)
}

// Goodput is the payload rate of a long stream of full packets.
func (w wireFormat) Goodput() units.Rate {
	return w.rate * units.Rate(float64(w.payload)/float64(w.payload+w.overhead))
}

// InfiniBand signalling, from the IBTA specification (vol. 2, physical
// layer) as the adapters' manuals state it: SDR, DDR and QDR lanes run
// 2.5, 5 and 10 Gbit/s with 8b/10b encoding (a 4X QDR port sold as
// "40 Gb/s" carries 32 Gbit/s of data); FDR lanes run 14.0625 Gbit/s with
// 64b/66b (a 4X port sold as "56 Gb/s" carries 54.55 Gbit/s); from EDR on
// ("each lane of a 4X port runs a bit rate of 25.78125Gb/s with a 64b/66b
// encoding, resulting in an effective bandwidth of 100Gb/s", ConnectX-5
// user manual) the rate as sold is the data rate. Ethernet rates as sold
// (100GbE) are MAC data rates (IEEE 802.3).
const (
	fdrLaneSignalling = 14.0625e9 // bit/s
)

// DataRate is the NIC port's data rate in bytes per second: nic.rate as
// sold, less its line encoding (nic.encoding).
func (s *Scenario) DataRate() units.Rate {
	n := &s.NIC
	r := float64(n.Rate)
	switch n.Encoding {
	case Encoding8b10b:
		return units.Rate(r * 8 / 10)
	case Encoding64b66b:
		return units.Rate(r * 64 / 66)
	case EncodingNone:
		return n.Rate
	}
	if n.Kind != KindIB {
		return n.Rate
	}
	gbit := r * 8 / 1e9
	for _, lanes := range []float64{1, 2, 4, 8, 12} {
		for _, lane := range []float64{2.5, 5, 10} { // SDR, DDR, QDR
			if near(gbit, lanes*lane) {
				return units.Rate(r * 8 / 10)
			}
		}
		if near(gbit, lanes*14) || near(gbit, lanes*fdrLaneSignalling/1e9) { // FDR sold as 14 or 56 Gb/s
			return units.Rate(lanes * fdrLaneSignalling * 64 / 66 / 8)
		}
	}
	return n.Rate
}

func near(a, b float64) bool { return a > b*0.999 && a < b*1.001 }
