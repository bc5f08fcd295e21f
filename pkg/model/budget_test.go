package model

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// Hand-worked values of model v3's latency budget, software stacks, SYS
// per CPU family, TCP receive and copy efficiencies. The arithmetic is
// written out from the presets' numbers; each figure is checked to 1e-9.

// hwStage is a stage as the hand-worked tests write it: fixed cost, the
// size-dependent cost and the grain (0: the whole message).
type hwStage struct {
	alpha float64
	c     func(float64) float64
	grain float64
}

// hwLatency is the latency the hardware gives (Route.Evaluate's rule):
// stages without a grain add; a run of stages with a grain adds each
// one's fixed cost and first unit, then the slowest stage's remainder.
func hwLatency(stages []hwStage, n float64) float64 {
	var t, rest float64
	for _, x := range stages {
		if x.grain == 0 {
			t += rest + x.alpha + x.c(n)
			rest = 0
			continue
		}
		c1 := x.c(math.Min(n, x.grain))
		t += x.alpha + c1
		rest = math.Max(rest, x.c(n)-c1)
	}
	return t + rest
}

func fixed(a float64) hwStage { return hwStage{a, func(float64) float64 { return 0 }, 0} }

func pkts(n, per float64) float64 { return math.Max(1, math.Ceil(n/per)) }

var (
	g5link = 32e9 * 16 * 128 / 130 / 8 * 256 / 284 // PCIe gen5 x16 payload rate: 56.80 GB/s
	g4link = 16e9 * 16 * 128 / 130 / 8 * 256 / 284 // gen4 x16: 28.40 GB/s
)

// The one-way budget of an inline 8 B RDMA write, host memory to host
// memory (host-rdma), on InfiniBand (dgx-h100-ndr: NDR 400 Gbit/s = 50
// GB/s of data) and RoCE (default: 200 GbE = 25 GB/s), back to back and
// through one and three switches, with the NIC on a root port
// (topology.nic_switches 0) and behind one PCIe switch level (1):
//
//	post 0.115 (UCX's verbs: WQE 75 ns + doorbell 40 ns)
//	C: doorbell 0.15 + L × sw + NIC + 8 B / link + one packet of the NIC's engine
//	D: hops × hop + cable × 5 ns/m + (RETH 16 + 8 B + per-packet headers) / wire
//	E: NIC + 0.15 + L × sw + 8 B / link + one packet
//	poll 0.075 (UCX's verbs per-message overhead)
//
// NIC: UCX's transport latency (600 ns EDR and later, +200 ns RoCE) less
// two posted writes of 0.15 µs, halved: IB 0.15 µs, RoCE 0.25 µs. Back to
// back, with L = 0, IB lands at 0.79 µs and RoCE at 0.99 µs: inside UCX's
// 0.6–0.9 µs envelope (its 600 ns + the host's post and poll) and 0.2 µs
// above it on RoCE.
func TestBudgetInlineIBAndRoCE(t *testing.T) {
	for _, tc := range []struct {
		preset         string
		nic, wire      float64 // NIC pipeline, data rate
		hop, hdr, rate float64 // switch port to port, header bytes per packet, NIC packets per second
		sw             float64 // the preset's PCIe switch latency
	}{
		{"dgx-h100-ndr", 0.15 * us, 400e9 / 8, 0.13 * us, 26, 330e6, 0.1 * us},
		{"default", 0.25 * us, 200e9 / 8, 0.45 * us, 82, 200e6, 0.1 * us},
	} {
		for _, hops := range []int{0, 1, 3} {
			cable := map[int]float64{0: 2, 1: 6, 3: 30}[hops] // the hops rule: 2 m, 6 m, 30 m
			for _, L := range []int{0, 1} {
				s := with(t, tc.preset, "network.hops", strconv.Itoa(hops), "topology.nic_switches", strconv.Itoa(L))
				l := float64(L) * tc.sw
				c := 0.15*us + l + tc.nic + 8/g5link + 1/tc.rate
				d := float64(hops)*tc.hop + cable*5*ns + (16+8+tc.hdr)/tc.wire
				e := tc.nic + 0.15*us + l + 8/g5link + 1/tc.rate
				want := 0.115*us + c + d + e + 0.075*us
				got := eval(t, s, "host-rdma", 8)
				if !near9(float64(got.Latency), want) {
					t.Errorf("%s, %d hop(s), %d PCIe level(s): host-rdma 8 B %.9g s, hand-worked %.9g s", tc.preset, hops, L, float64(got.Latency), want)
				}
				if hops == 0 && L == 0 {
					env := map[string][2]float64{"dgx-h100-ndr": {0.6e-6, 0.9e-6}, "default": {0.8e-6, 1.1e-6}}[tc.preset]
					if want < env[0] || want > env[1] {
						t.Errorf("%s back to back on a root port: %v outside the envelope %v", tc.preset, units.Seconds(want).Human(), env)
					}
				}
			}
		}
	}
	// The NIC pipeline rule follows the kind and the generation: FDR 700
	// ns, RoCE at 10/40 GbE 1300 + 200 ns, each less two posted writes,
	// halved.
	for _, tc := range []struct {
		kind, rate string
		want       float64
	}{
		{"ib", "56Gbit/s", (700e-9 - 0.3e-6) / 2},
		{"ib", "200Gbit/s", (600e-9 - 0.3e-6) / 2},
		{"roce", "100Gbit/s", (800e-9 - 0.3e-6) / 2},
		{"roce", "40Gbit/s", (1500e-9 - 0.3e-6) / 2},
	} {
		s := with(t, "default", "nic.kind", tc.kind, "nic.rate", tc.rate)
		if got := float64(s.NIC.Latency); !near9(got, tc.want) || resolvedBy(s, "nic.latency").Rule != RuleDerived {
			t.Errorf("%s %s: nic.latency %v (%s), want %v", tc.kind, tc.rate, got, resolvedBy(s, "nic.latency").Rule, tc.want)
		}
	}
}

// PCIe switch levels on every NIC↔host transaction: a DMA read of host
// memory crosses them twice (request up, completion down), the doorbell
// and the DMA write once each. On gen3-edr (PCIe switch 0.15 µs), one
// level more adds 0.15 to the inline send's doorbell and 0.15 to its
// write: 0.3 µs; past the inline size, 0.15 + 2 × 0.15 + 0.15 = 0.6 µs.
func TestBudgetSwitchLevels(t *testing.T) {
	for _, tc := range []struct {
		n    units.Bytes
		want float64
	}{{8, 0.3 * us}, {4096, 0.6 * us}} {
		a := eval(t, with(t, "gen3-edr", "topology.nic_switches", "1"), "host-rdma", tc.n)
		b := eval(t, with(t, "gen3-edr", "topology.nic_switches", "2"), "host-rdma", tc.n)
		if d := float64(b.Latency - a.Latency); math.Abs(d-tc.want) > 1e-15 {
			t.Errorf("host-rdma %v: one PCIe level more adds %v, want %v", tc.n, d, tc.want)
		}
	}
	// The rule: PIX and the classes past the host bridge one level, PXB two.
	for c, want := range map[string]int{"PIX": 1, "PXB": 2, "PHB": 1, "SYS": 1} {
		if s := with(t, "default", "topology.gpu_nic", c); s.Topology.NICSwitches != want {
			t.Errorf("%s: topology.nic_switches %d, want %d", c, s.Topology.NICSwitches, want)
		}
	}
}

// Host paths are socket-local: on cross-socket-sys host-rdma streams at
// the wire's goodput (400 GbE, RoCEv2 MTU 4096 with 82 B per packet and
// one RETH) and pays no inter-socket latency; the staged rdma path's
// bounce buffer sits on the GPU's socket, so its NIC traffic crosses the
// 22 GB/s link (NCCL's Sapphire Rapids figure).
func TestBudgetHostPathsSocketLocal(t *testing.T) {
	s := with(t, "cross-socket-sys")
	const G = float64(1 << 30)
	r := eval(t, s, "host-rdma", 1<<30)
	if want := G / ((G + 16 + pkts(G, 4096)*82) / 50e9); !near9(float64(r.Bandwidth), want) || !strings.Contains(r.Bottleneck, "wire") {
		t.Errorf("cross-socket host-rdma 1 GiB: %v (%s), want the wire's %v", r.Bandwidth.Human(), r.Bottleneck, units.Rate(want).Human())
	}
	local := eval(t, with(t, "cross-socket-sys", "topology.gpu_nic", "PIX", "topology.nic_switches", "1"), "host-rdma", 8)
	if got := eval(t, s, "host-rdma", 8); got.Latency != local.Latency {
		t.Errorf("host-rdma 8 B at SYS %v, at PIX %v: a host path does not cross sockets", got.Latency, local.Latency)
	}
	if rd := eval(t, s, "rdma", 1<<30); !near9(float64(rd.Bandwidth), 22e9) || !strings.Contains(rd.Bottleneck, "inter-socket") {
		t.Errorf("cross-socket rdma 1 GiB: %v (%s), want the 22 GB/s inter-socket link", rd.Bandwidth.Human(), rd.Bottleneck)
	}
}

// SYS per CPU family: GPU↔NIC traffic across sockets is capped by NCCL's
// inter-socket bandwidth of the family (src/graph/topo.h: SKL 10, AMD 16,
// SRP 22, ERP 40 GB/s), and NCCL's proxy costs getNetOverhead (1 µs
// Intel, 2 µs AMD). With the wire out of the way (800 Gbit/s) gdr at 1 GiB
// streams at stage C: G/isr + one 5 ns engine slot per 4096 B packet;
// NCCL would not use GDR at SYS, and the result says so.
func TestBudgetSYSPerFamily(t *testing.T) {
	const G = float64(1 << 30)
	for _, tc := range []struct {
		family   string
		isr, net float64
	}{{"intel-skl", 10e9, 1e-6}, {"amd", 16e9, 2e-6}, {"intel-srp", 22e9, 1e-6}, {"intel-erp", 40e9, 1e-6}} {
		s := with(t, "default", "topology.gpu_nic", "SYS", "cpu.family", tc.family, "nic.rate", "800Gbit/s")
		r := eval(t, s, "gdr", 1<<30)
		if want := G / (G/tc.isr + pkts(G, 4096)*5*ns); !near9(float64(r.Bandwidth), want) {
			t.Errorf("%s: gdr across sockets %v, hand-worked %v", tc.family, r.Bandwidth.Human(), units.Rate(want).Human())
		}
		if !near9(float64(s.NCCL.NetOverhead), tc.net) || !strings.Contains(r.Note, "ncclTopoCheckGdr") {
			t.Errorf("%s: nccl.net_overhead %v, note %q", tc.family, s.NCCL.NetOverhead, r.Note)
		}
	}
	if r := eval(t, Default(), "gdr", 8); r.Note != "" {
		t.Errorf("gdr at PIX: note %q, want none (NCCL uses GDR up to PXB)", r.Note)
	}
}

// One and four TCP streams at MTU 9000 on the default (200 GbE, 8948 B of
// payload per packet). The reader's core of one flow: the wakeup 2 µs, the
// cold copy at 6.74 GB/s and a recv() of 0.25 + 0.8 µs per 128 KiB:
// 6.39 GB/s (51 Gbit/s). Its softirq's core: per packet 0.2 µs and the
// packet's share of a 64 KiB aggregate's 3 µs (0.4096 µs): 14.7 GB/s.
// Four flows have four of each: the wire binds, 25 GB/s × 8948/9038.
// Co-located (stack.rx_colocated), one core per flow carries both: 4.45
// GB/s (35.6 Gbit/s) for one flow, 17.8 GB/s for four.
func TestTCPReceiveStreams(t *testing.T) {
	const G = float64(1 << 30)
	app := 2*us + G/6.74e9 + math.Ceil(G/131072)*1.05*us
	soft := pkts(G, 8948) * (0.2*us + 3*us*8948/65536)
	wire := G / ((G + pkts(G, 8948)*90) / 25e9)
	for _, tc := range []struct {
		flows, coloc string
		want         float64
		bottleneck   string
	}{
		{"1", "false", G / app, "receiver CPU (1 core)"},
		{"4", "false", wire, "stage D: wire"},
		{"1", "true", G / (app + soft), "receiver CPU (1 core)"},
		{"4", "true", 4 * G / (app + soft), "receiver CPU (4 cores)"},
	} {
		r := eval(t, with(t, "default", "stack.flows", tc.flows, "stack.rx_colocated", tc.coloc), "host-tcp", 1<<30)
		if !near9(float64(r.Bandwidth), tc.want) || r.Bottleneck != tc.bottleneck {
			t.Errorf("%s flow(s), co-located %s: %v (%s), hand-worked %v (%s)", tc.flows, tc.coloc, r.Bandwidth.Human(), r.Bottleneck, units.Rate(tc.want).Human(), tc.bottleneck)
		}
	}
	// An 8 B message pays its packet's share of the aggregate's IP/TCP
	// input, not the whole 3 µs: the softirq stage is 1.5 + 0.2 + 0.4096 µs.
	r := eval(t, Default(), "host-tcp", 8)
	var fs StageResult
	for _, st := range r.Stages {
		if strings.HasPrefix(st.Name, "softirq") {
			fs = st
		}
	}
	if want := 1.5*us + 0.2*us + 3*us*8948/65536; !near9(float64(fs.Latency), want) {
		t.Errorf("softirq at 8 B: %v, want %v", fs.Latency, want)
	}
}

// The copy efficiency of each PCIe generation and direction (rules.go,
// gpu.pcie): Gen3 0.873 both ways (V100 host→device; no device→host
// figure), Gen4 0.915 host→device (nvbandwidth) and 0.926 device→host
// (bandwidthTest on an RTX 6000 Ada), Gen5 0.975 both ways (this
// project's H200). rdma's stage A at 1 GiB is 7.6 µs + G/(link × d2h).
func TestCopyEfficiencyPerGeneration(t *testing.T) {
	const G = float64(1 << 30)
	g3link := 8e9 * 16 * 128 / 130 / 8 * 256 / 284
	for _, tc := range []struct {
		pcie           string
		link, h2d, d2h float64
	}{
		{"gen3x16", g3link, 0.873, 0.873},
		{"gen4x16", g4link, 0.915, 0.926},
		{"gen5x16", g5link, 0.975, 0.975},
	} {
		s := with(t, "default", "gpu.pcie", tc.pcie)
		if s.GPU.H2DEfficiency != tc.h2d || s.GPU.D2HEfficiency != tc.d2h {
			t.Errorf("%s: efficiencies %v/%v, want %v/%v", tc.pcie, s.GPU.H2DEfficiency, s.GPU.D2HEfficiency, tc.h2d, tc.d2h)
		}
		r := eval(t, s, "rdma", 1<<30)
		a, g := r.Stages[0], r.Stages[len(r.Stages)-1]
		if !near9(float64(a.Latency), 7.6*us+G/(tc.link*tc.d2h)) || !near9(float64(g.Latency), 7.6*us+G/(tc.link*tc.h2d)) {
			t.Errorf("%s: A %v, G %v", tc.pcie, a.Latency, g.Latency)
		}
	}
}

// UCX on gdr, gen3-edr (EDR 12.5 GB/s, PCIe gen3 x16 14.20 GB/s for the
// NIC and the GPU, one 0.15 µs PCIe switch level, NIC 0.15 µs, posted
// write 0.15 µs, read 0.6 µs, BAR1 +0.5 µs, one 0.09 µs switch, 5 m),
// with the rendezvous from 64 KiB (ucx.rndv_thresh).
//
// Eager, 8 B: UCX posts (5 + 40 + 40 ns); the NIC reads GPU memory (the
// doorbell 0.15 + 0.15, the read 0.6 + 2 × 0.15, BAR1 0.5, NIC 0.15); the
// wire; the remote NIC writes a host bounce buffer (NIC 0.15, write 0.15,
// level 0.15); UCX receives (40 + 5 ns); a gdr_copy put into GPU memory,
// 0.4 µs + n / 6.911 GB/s.
//
// Rendezvous, 64 KiB: the RTS (275 + 40 + 40 + 5 ns), its inline crossing
// (doorbell, NIC, wire, NIC write of 64 B); the receiver matches and posts
// the read (40 + 5 + 40 + 40 ns); the request's crossing (as the RTS's);
// the sender's NIC reads GPU memory (the read without a doorbell: 0.9 +
// 0.5 + 0.15), the wire, the receiver's NIC writes GPU memory (0.45); the
// receiver polls the read (40 + 20 ns).
func TestUCXEagerRendezvous(t *testing.T) {
	s := with(t, "gen3-edr", "software.stack", "ucx", "ucx.rndv_thresh", "64KiB")
	g3link := 8e9 * 16 * 128 / 130 / 8 * 256 / 284
	w := 100e9 / 8
	eng := 1 / 200e6
	ib := func(n float64) float64 { return pkts(n, 4096) }
	link := func(n float64) float64 { return n/g3link + ib(n)*eng }
	wire := hwStage{0.09*us + 5*5*ns + 16/w, func(n float64) float64 { return (n + ib(n)*26) / w }, 4096}
	eager := []hwStage{
		fixed(85 * ns),
		{0.3*us + 0.9*us + 0.5*us + 0.15*us, link, 4096},
		wire,
		{0.45 * us, link, 4096},
		fixed(45 * ns),
		{0.4 * us, func(n float64) float64 { return n / 6.911e9 }, 0},
	}
	hdr := 64.0
	leg := 0.3*us + 0.15*us + link(hdr) + (0.09*us + 25*ns + (16+hdr+26)/w) + 0.45*us + link(hdr)
	rndv := []hwStage{
		fixed(360 * ns), fixed(leg), fixed(125 * ns), fixed(leg),
		{0.9*us + 0.5*us + 0.15*us, link, 4096},
		wire,
		{0.45 * us, link, 4096},
		fixed(60 * ns),
	}
	for _, tc := range []struct {
		n      float64
		stages []hwStage
	}{{8, eager}, {65535, eager}, {65536, rndv}, {1 << 20, rndv}} {
		got := eval(t, s, "gdr", units.Bytes(tc.n))
		if want := hwLatency(tc.stages, tc.n); !near9(float64(got.Latency), want) {
			t.Errorf("ucx gdr %v B: %.9g s, hand-worked %.9g s", tc.n, float64(got.Latency), want)
		}
		inactive := 0
		for _, st := range got.Stages {
			if st.Inactive {
				inactive++
			}
		}
		if want := map[bool]int{true: 9, false: 6}[tc.n < 65536]; inactive != want {
			t.Errorf("ucx gdr %v B: %d stages inactive, want %d (the other protocol's)", tc.n, inactive, want)
		}
	}
	// Eager streaming is the receiver's core: 45 ns and the gdr_copy put's
	// n / 6.911 GB/s (UCX counts no CPU overhead for the put's latency).
	if r := eval(t, s, "gdr", 64<<10-1); !near9(float64(r.Bandwidth), float64(64<<10-1)/(45*ns+float64(64<<10-1)/6.911e9)) {
		t.Errorf("ucx eager streaming %v (%s)", r.Bandwidth.Human(), r.Bottleneck)
	}
	// Auto (ucx.rndv_thresh 0B): the rendezvous from the first size where
	// it is no slower than the eager protocol — so latency never falls at
	// the switch.
	a := with(t, "gen3-edr", "software.stack", "ucx")
	rt := mustRoute(t, a, "gdr")
	var thr units.Bytes
	for _, st := range rt.Stages {
		if st.From > 0 {
			thr = st.From
		}
	}
	if thr < 1024 || thr > 1<<20 || !strings.Contains(rt.Note, "auto") {
		t.Fatalf("auto threshold %v (%s)", thr, rt.Note)
	}
	if before, at := rt.Evaluate(thr-1).Latency, rt.Evaluate(thr).Latency; at < before {
		t.Errorf("latency falls at the auto switch %v: %v → %v", thr, before, at)
	}
}

// NCCL on gdr adds its proxy's hand-off on both sides (getNetOverhead 2
// µs on the AMD host of a100-hdr) and, on an A100, the flush; NVSHMEM
// posts from the GPU: no CPU at all, the doorbell a peer write (0.15 µs +
// PXB's extra less what the NIC's second level counts: 0) and the work
// request fetched from GPU memory by a read like the payload's (0.7 + 2 ×
// 0.12 + 0.5 µs on a100-hdr) before the payload read.
func TestStacksOnGDR(t *testing.T) {
	bare := eval(t, with(t, "a100-hdr"), "gdr", 8)
	nc := eval(t, with(t, "a100-hdr", "software.stack", "nccl"), "gdr", 8)
	// flush: post + poll + 2 × (write + two levels + NIC) + the read across
	// the two levels + BAR1.
	fl := 0.115*us + 0.075*us + 2*(0.15*us+0.24*us+0.15*us) + 0.7*us + 0.48*us + 0.5*us
	if d := float64(nc.Latency - bare.Latency); !near9(d, 2*2*us+fl) {
		t.Errorf("nccl on a100-hdr adds %v, want 2 × 2 µs + the flush %v", d, fl)
	}
	nv := eval(t, with(t, "a100-hdr", "software.stack", "nvshmem"), "gdr", 8)
	if nv.CPU != 0 || nv.MessagesPerCore != 0 {
		t.Errorf("nvshmem: CPU %v per message, want none", nv.CPU)
	}
	// bare − nvshmem = post + poll + the CPU doorbell (write + 2 levels) +
	// the completion's two levels to host − the GPU's doorbell (write) −
	// the WQE fetch (read across two levels + BAR1).
	want := 0.115*us + 0.075*us + (0.15*us + 0.24*us) + 0.24*us - 0.15*us - (0.7*us + 0.48*us + 0.5*us)
	if d := float64(bare.Latency - nv.Latency); !near9(d, want) {
		t.Errorf("bare − nvshmem %v, want %v", d, want)
	}
	// Stacks leave the paths they do not drive bare, and say so.
	for _, st := range []string{"perftest", "ucx", "nvshmem"} {
		r := eval(t, with(t, "default", "software.stack", st), "host-tcp", 8)
		if r.Latency != eval(t, Default(), "host-tcp", 8).Latency || !strings.Contains(r.Note, "bare") {
			t.Errorf("%s on host-tcp: %v, note %q", st, r.Latency, r.Note)
		}
	}
	// perftest's inline default follows the test.
	for test, want := range map[string]units.Bytes{"write_lat": 220, "send_lat": 236, "write_bw": 0, "send_bw": 0} {
		if s := with(t, "default", "software.stack", "perftest", "perftest.test", test); s.NIC.InlineSize != want {
			t.Errorf("perftest %s: nic.inline_size %v, want %v", test, s.NIC.InlineSize, want)
		}
	}
}
