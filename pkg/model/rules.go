package model

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/units"
)

// rule derives keys from other keys: when one of its inputs was given,
// named by a catalog entry or derived, derive returns values for its
// outputs, each with its source; keys a stronger rule set keep their value.
// Rules run in this order, so a rule may read what an earlier one derived.
type rule struct {
	name   string
	inputs []string
	// unless: the rule does not fire when one of these was declared (a
	// named CPU makes the CPU of the GPU's era moot).
	unless []string
	derive func(s *Scenario) []Override
}

// ibMTUs are the MTUs an InfiniBand link can run (IBTA vol. 1, 7.7.1).
var ibMTUs = []units.Bytes{256, 512, 1024, 2048, 4096}

var rules = []rule{
	{name: "nic.kind", inputs: []string{"nic.kind"}, derive: func(s *Scenario) []Override {
		switch s.NIC.Kind {
		case KindIB:
			out := []Override{
				{"nic.rdma", true, "InfiniBand is RDMA (verbs)"},
				{"nic.header_split", false, "TCP over InfiniBand (IPoIB) has no header/data split"},
				{"nic.flow_steering", false, "IPoIB: no devmem flow steering"},
			}
			ok := false
			for _, m := range ibMTUs {
				ok = ok || s.NIC.MTU == m
			}
			if !ok {
				out = append(out, Override{"nic.mtu", units.Bytes(4096), "the largest InfiniBand MTU (IBTA: 256–4096 B), what fabrics run"})
			}
			return out
		case KindRoCE:
			return []Override{{"nic.rdma", true, "RoCE is RDMA over Ethernet"}}
		case KindEthernet:
			return []Override{{"nic.rdma", false, "a plain Ethernet NIC has no RDMA"}}
		case KindLoopback:
			return []Override{
				{"nic.rdma", false, "the loopback device has no RDMA"},
				{"nic.header_split", false, "the loopback device is no NIC"},
				{"nic.flow_steering", false, "the loopback device is no NIC"},
			}
		}
		return nil
	}},
	{name: "switch class", inputs: []string{"nic.kind", "nic.rate"}, unless: []string{"network.switch"}, derive: func(s *Scenario) []Override {
		switch gbit := float64(s.NIC.Rate) * 8 / 1e9; {
		case s.NIC.Kind == KindLoopback:
			return nil
		case s.NIC.Kind != KindIB:
			return []Override{{"network.hop_latency", units.Seconds(450e-9), "a data-center Ethernet switch port to port: between the catalog's Spectrum SN2700 (300 ns) and Arista 7050X (550 ns)"}}
		case gbit <= 56.25:
			return []Override{{"network.hop_latency", units.Seconds(170e-9), "an FDR InfiniBand switch (SwitchX-2): 170 ns port to port (Mellanox SX6036 product brief)"}}
		case gbit <= 100:
			return switchFacts("Switch-IB 2 SB7800", "an EDR InfiniBand switch")
		}
		return switchFacts("Quantum QM8700", "an HDR or faster InfiniBand switch (NDR's Quantum-2 publishes no port-to-port figure)")
	}},
	{name: "NIC pipeline", inputs: []string{"nic.kind", "nic.rate", "pcie.write_latency"}, derive: func(s *Scenario) []Override {
		lat, why, ok := ucxTransportLatency(s)
		if !ok {
			return nil
		}
		// The one-way latency of an inline send without the host's CPU
		// work (post, poll) and without switches: the doorbell's posted
		// write, the sending NIC, the wire, the receiving NIC, its posted
		// write of payload and completion. Two of them are the posted
		// writes; the rest is the two NICs' pipelines, half each.
		nic := (lat - 2*s.PCIe.WriteLatency) / 2
		if nic < 10e-9 {
			nic = 10e-9
		}
		return []Override{{"nic.latency", nic, fmt.Sprintf("UCX's transport latency for %s: %s one way (%s), less two posted PCIe writes of pcie.write_latency %s (the doorbell, the payload and completion), halved between the two NICs", why, lat.Human(), ucxLatencySource, s.PCIe.WriteLatency.Human())}}
	}},
	{name: "NIC switch levels", inputs: []string{"topology.gpu_nic"}, derive: func(s *Scenario) []Override {
		// nvidia-smi topo -m's legend: PIX is at most one PCIe bridge
		// between the devices, PXB several without the host bridge; so a
		// NIC that shares its switch with the GPU reaches its root port
		// through that switch (PIX: one level) or through two (PXB, as the
		// DGX A100's two-level PCIe switch tree). Beyond (PHB, NODE, SYS)
		// the NIC sits behind a switch of its own, as the peer model's
		// charge for a host bridge supposes (classExtraLatency: up one
		// switch to the root complex and down one); a NIC on a bare root
		// port is topology.nic_switches 0.
		n := 1
		if s.Topology.GPUNIC == PXB {
			n = 2
		}
		return []Override{{"topology.nic_switches", n, fmt.Sprintf("GPU and NIC %s (nvidia-smi topo -m: PIX at most one PCIe bridge, PXB several without the host bridge; beyond, a switch of the NIC's own): %d PCIe switch level(s) between the NIC and its root port", s.Topology.GPUNIC, n)}}
	}},
	{name: "NIC PCIe", inputs: []string{"nic.rate"}, unless: []string{"nic.model"}, derive: func(s *Scenario) []Override {
		// The PCIe link NICs of each speed are built with (ConnectX product
		// briefs: ConnectX-5 100G on Gen3/Gen4 x16, ConnectX-6 200G Gen4
		// x16, ConnectX-7 400G Gen5 x16, ConnectX-8 800G Gen6 x16).
		switch gbit := float64(s.NIC.Rate) * 8 / 1e9; {
		case gbit <= 1:
			return []Override{{"nic.pcie", Link{Gen: 2, Lanes: 1}, "a 1 Gbit/s NIC: PCIe Gen2 x1 (Intel Ethernet Controller I210 datasheet)"}}
		case gbit <= 10:
			return []Override{{"nic.pcie", Link{Gen: 2, Lanes: 8}, "a 10 Gbit/s NIC: PCIe Gen2 x8 (Intel 82599 10 GbE controller datasheet)"}}
		case gbit <= 50:
			return []Override{{"nic.pcie", Link{Gen: 3, Lanes: 8}, "a 25–50 Gbit/s NIC: PCIe Gen3 x8 (ConnectX-4 Lx product brief)"}}
		case gbit <= 100:
			return []Override{{"nic.pcie", Link{Gen: 3, Lanes: 16}, "a 100 Gbit/s NIC: PCIe Gen3 x16 (ConnectX-5 product brief)"}}
		case gbit <= 200:
			return []Override{{"nic.pcie", Link{Gen: 4, Lanes: 16}, "a 200 Gbit/s NIC: PCIe Gen4 x16 (ConnectX-6 product brief)"}}
		case gbit <= 400:
			return []Override{{"nic.pcie", Link{Gen: 5, Lanes: 16}, "a 400 Gbit/s NIC: PCIe Gen5 x16 (ConnectX-7 product brief)"}}
		}
		return []Override{{"nic.pcie", Link{Gen: 6, Lanes: 16}, "an 800 Gbit/s NIC: PCIe Gen6 x16 (ConnectX-8 SuperNIC product brief)"}}
	}},
	{name: "network.hops", inputs: []string{"network.hops"}, derive: func(s *Scenario) []Override {
		h := s.Network.Hops
		switch {
		case h == 0:
			return []Override{{"network.cable", units.Meters(2), "back to back: one direct-attach cable of about 2 m (passive copper is sold 0.5–3 m)"}}
		case h == 1:
			return []Override{{"network.cable", units.Meters(6), "through one switch: two in-rack links of about 3 m (assumption)"}}
		}
		m := units.Meters(6 + 12*float64(h-1))
		return []Override{{"network.cable", m, fmt.Sprintf("%d switches: two in-rack links of about 3 m and %d links of about 12 m between switches (assumption)", h, h-1)}}
	}},
	{name: "gpu.pcie", inputs: []string{"gpu.pcie"}, derive: func(s *Scenario) []Override {
		// The copy efficiency of each direction, from a measurement of that
		// generation; where none measured device→host, as host→device.
		switch g := s.GPU.PCIe.Gen; {
		case g <= 3:
			src := "PCIe gen3: 12.4 GB/s pinned host→device on a V100-PCIE (Gen3 x16) ÷ the link model's 14.20 GB/s (bandwidthTest fixture superbench-bandwidthTest-h2d-shmoo-csv-v100)"
			return []Override{{"gpu.h2d_efficiency", 0.873, src}, {"gpu.d2h_efficiency", 0.873, src + "; no device→host figure of a Gen3 GPU of its class (the K80's 9.58 GB/s is a dual-GPU board behind its own PCIe switch): as host→device"}}
		case g == 4:
			return []Override{
				{"gpu.h2d_efficiency", 0.915, "PCIe gen4: 26.0 GB/s host→device per GPU on an 8-GPU Gen4 system ÷ the link model's 28.40 GB/s (nvbandwidth fixture readme-host_to_device_memcpy_ce)"},
				{"gpu.d2h_efficiency", 0.926, "PCIe gen4: 26.3 GB/s pinned device→host on an RTX 6000 Ada (Gen4 x16, 32 MB) ÷ the link model's 28.40 GB/s (bandwidthTest fixture stelline-quick-mode-GBs-rtx6000ada-device0)"}}
		}
		src := "PCIe gen5 and later: 55.4 GB/s pinned 1 GiB copies both ways on an H200 (Gen5 x16) ÷ the link model's 56.80 GB/s (reports/examples/h200-1gpu)"
		return []Override{{"gpu.h2d_efficiency", 0.975, src}, {"gpu.d2h_efficiency", 0.975, src}}
	}},
	{name: "CPU of the GPU's era", inputs: []string{"gpu.pcie"}, unless: []string{"cpu.model", "cpu.family"}, derive: func(s *Scenario) []Override {
		// No CPU named: the host CPU of servers built around GPUs of that
		// PCIe generation (V100/T4 on Skylake-SP, the first Gen4 GPU
		// servers on EPYC Rome (DGX A100), Gen5 on Sapphire Rapids).
		name := map[int]string{3: "Xeon Gold 6130", 4: "EPYC 7742", 5: "Xeon Platinum 8480+"}[min(max(s.GPU.PCIe.Gen, 3), 5)]
		return cpuFacts(name, fmt.Sprintf("no CPU named: a host of PCIe gen%d GPU servers", s.GPU.PCIe.Gen))
	}},
	{name: "cpu.family", inputs: []string{"cpu.family"}, unless: []string{"cpu.model"}, derive: func(s *Scenario) []Override {
		// NCCL's inter-socket bandwidth of the family (src/graph/topo.h at
		// 5067397c, ncclTopoGetInterCpuBw).
		bw := map[string]float64{FamilyIntelBDW: 6, FamilyIntelSKL: 10, FamilyIntelSRP: 22, FamilyIntelERP: 40, FamilyAMD: 16, FamilyARM: 6, FamilyPower9: 32}[s.CPU.Family]
		name := map[string]string{FamilyIntelBDW: "BDW_QPI_BW", FamilyIntelSKL: "SKL_QPI_BW", FamilyIntelSRP: "SRP_QPI_BW", FamilyIntelERP: "ERP_QPI_BW", FamilyAMD: "AMD_BW", FamilyARM: "ARM_BW", FamilyPower9: "P9_BW"}[s.CPU.Family]
		if bw == 0 {
			return nil
		}
		return []Override{{"topology.inter_socket_rate", units.Rate(bw * 1e9), fmt.Sprintf("NCCL's inter-socket bandwidth for %s: %s = %g GB/s (src/graph/topo.h at 5067397c)", s.CPU.Family, name, bw)}}
	}},
	{name: "NCCL net overhead", inputs: []string{"cpu.family"}, derive: func(s *Scenario) []Override {
		o := ncclNetOverhead(s.CPU.Family)
		return []Override{{"nccl.net_overhead", units.Seconds(o), fmt.Sprintf("getNetOverhead for %s: %g µs (src/graph/tuning.cc at %s: 1 µs on Intel x86, 2 µs on AMD x86, 1 µs otherwise)", s.CPU.Family, o*1e6, ncclSource)}}
	}},
	{name: "perftest", inputs: []string{"software.stack", "perftest.test"}, derive: func(s *Scenario) []Override {
		if s.Software.Stack != StackPerftest {
			return nil
		}
		n, why := perftestInline(s.Perftest.Test)
		return []Override{{"nic.inline_size", n, why}}
	}},
}

// ucxLatencySource is where ucxTransportLatency's figures come from.
const ucxLatencySource = "src/uct/ib/base/ib_iface.c at " + ucxSource + ", uct_ib_iface_query: 5000 ns SDR, 2500 DDR, 1300 QDR (and 10/40 GbE), 700 FDR, 600 EDR and later, +200 ns on RoCE"

// ucxTransportLatency is UCX's one-way latency of its InfiniBand and RoCE
// transports (iface_attr->latency.c) for the NIC's kind and port rate,
// with the generation it took, or false for a NIC without RDMA. UCX keys
// it on the lane speed; the rate as sold of a 4X port names it (SDR 10,
// DDR 20, QDR 40, FDR 56 Gbit/s; RoCE at 10 and 40 GbE runs QDR-speed
// lanes, 25 GbE and faster EDR-speed or faster ones).
func ucxTransportLatency(s *Scenario) (units.Seconds, string, bool) {
	gbit := float64(s.NIC.Rate) * 8 / 1e9
	var lat float64
	var gen string
	switch s.NIC.Kind {
	case KindIB:
		switch {
		case gbit <= 10:
			lat, gen = 5000e-9, "SDR"
		case gbit <= 20:
			lat, gen = 2500e-9, "DDR"
		case gbit <= 40:
			lat, gen = 1300e-9, "QDR"
		case gbit <= 56.25:
			lat, gen = 700e-9, "FDR"
		default:
			lat, gen = 600e-9, "EDR and later"
		}
		return units.Seconds(lat), "InfiniBand " + gen, true
	case KindRoCE:
		lat, gen = 600e-9, "25 GbE and faster"
		if gbit <= 40 && gbit != 25 {
			lat, gen = 1300e-9, "10/40 GbE"
		}
		return units.Seconds(lat + 200e-9), "RoCE at " + gen, true
	}
	return 0, "", false
}

// switchFacts are the facts of a catalog switch, as derived values.
func switchFacts(name, why string) []Override {
	e, ok := LookupCatalog(CatalogSwitch, name)
	if !ok {
		return nil
	}
	var out []Override
	for _, f := range e.Facts {
		if f.Key == "network.hop_latency" {
			out = append(out, Override{f.Key, f.Value, why + ", as the catalog's " + e.Name + ": " + f.Source})
		}
	}
	return out
}

// cpuFacts are the facts of a catalog CPU, as derived values.
func cpuFacts(name, why string) []Override {
	e, ok := LookupCatalog(CatalogCPU, name)
	if !ok {
		return nil
	}
	out := []Override{{"cpu.model", e.Name + " (assumed)", why + ": the catalog's " + e.Name}}
	for _, f := range e.Facts {
		out = append(out, Override{f.Key, f.Value, why + ", as the catalog's " + e.Name + ": " + f.Source})
	}
	return out
}
