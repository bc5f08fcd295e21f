package validate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Derived is the scenario a row's hardware columns describe.
type Derived struct {
	Scenario *model.Scenario
	// Base is the preset it starts from: the one of the same generation.
	Base string
	// Set lists the keys taken from the row's columns, "key=value (why)".
	Set []string
	// Assumed lists the defaults used where the row says n/s or nothing.
	Assumed []string
}

func (d *Derived) set(key, value, why string) error {
	if err := d.Scenario.Set(key, value); err != nil {
		return err
	}
	d.Set = append(d.Set, fmt.Sprintf("%s=%s (%s)", key, value, why))
	return nil
}

func (d *Derived) assume(key, why string) {
	v, _ := d.Scenario.Get(key)
	d.Assumed = append(d.Assumed, fmt.Sprintf("%s=%s (%s)", key, v, why))
}

// gpuFacts are datasheet facts ([gk] in the table's sense: general product
// knowledge, never a published value) about a GPU named in a row.
type gpuFacts struct {
	match  string // substring of the gpu column, most specific first
	gen    int    // PCIe generation
	memory string // HBM/GDDR bandwidth (datasheet)
	flush  bool   // compute capability below 9.0: NCCL flushes GDR receives (src/graph/paths.cc)
	// socket is the inter-socket rate of the hosts of the GPU's generation
	// ("": the base preset's).
	socket string
}

var gpus = []gpuFacts{
	{"H200", 5, "4.8TB/s", false, ""},        // H200 datasheet: HBM3e 4.8 TB/s, PCIe Gen5
	{"H100 PCIe", 5, "2TB/s", false, ""},     // H100 PCIe datasheet: 2 TB/s
	{"H100", 5, "3.35TB/s", false, ""},       // H100 SXM5 datasheet: 3.35 TB/s HBM3
	{"A100", 4, "2.039TB/s", true, ""},       // A100 80GB datasheet
	{"V100", 3, "900GB/s", true, ""},         // V100 datasheet: 900 GB/s HBM2, PCIe Gen3
	{"P100", 3, "732GB/s", true, ""},         // P100 PCIe datasheet
	{"T4", 3, "320GB/s", true, ""},           // T4 datasheet: 320 GB/s GDDR6, PCIe Gen3
	{"RTX 6000 Ada", 4, "960GB/s", true, ""}, // RTX 6000 Ada datasheet
	{"Quadro RTX 6000", 3, "672GB/s", true, ""},
	// Kepler GPUs sat in Xeon E5 v2/v3 hosts (Ivy Bridge/Haswell; S16 names
	// an Ivy Bridge host for its K40): NCCL's inter-socket bandwidth for
	// Intel before Skylake is BDW_QPI_BW = 6 GB/s (src/graph/topo.h).
	{"K40", 3, "288GB/s", true, "6GB/s"}, // Tesla K40 datasheet
	{"K80", 3, "240GB/s", true, "6GB/s"}, // Tesla K80 datasheet: 480 GB/s for two GPUs
	{"L40S", 4, "864GB/s", true, ""},     // L40S datasheet: PCIe Gen4 x16, 864 GB/s GDDR6
	{"L4", 4, "300GB/s", true, ""},       // L4 datasheet
	{"A10", 4, "600GB/s", true, ""},      // A10 datasheet
	{"A30", 4, "933GB/s", true, ""},      // A30 datasheet
	{"A40", 4, "696GB/s", true, ""},      // A40 datasheet
	{"MI300X", 5, "5.3TB/s", false, ""},  // AMD Instinct MI300X datasheet: PCIe Gen5 x16, 5.3 TB/s HBM3
	{"MI250", 4, "3.2TB/s", false, ""},   // AMD Instinct MI250X datasheet
	{"MI100", 4, "1.2TB/s", false, ""},   // AMD Instinct MI100 datasheet
}

var (
	reGbits  = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:Gb/s|Gbit/s|Gbps|GbE|G\b)`)
	reMTU    = regexp.MustCompile(`MTU (\d+)`)
	reCable  = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*m\b`)
	reGen    = regexp.MustCompile(`(?i)(?:gen\s*([1-6])|PCIe ([1-6])\.0)`)
	reInline = regexp.MustCompile(`inline < (\d+) ?B`)
	reProg   = regexp.MustCompile(`ib_(?:send|write|read)_(?:lat|bw)`)
	reSwitch = regexp.MustCompile(`(?:jump at|dip at) (\d+) ([KM])iB[^;]*(?:protocol switch|eager->rendezvous)`)
	reDist   = regexp.MustCompile(`distance (\d+)`)
	reThread = regexp.MustCompile(`num_threads=(\d+)`)
	reSocks  = regexp.MustCompile(`NSOCKS_PERTHREAD=(\d+), SOCKET_NTHREADS=(\d+)`)
)

// ibRates are InfiniBand generations as sold for a 4X port (IBTA).
var ibRates = []struct{ name, rate string }{
	{"XDR", "800Gbit/s"}, {"NDR200", "200Gbit/s"}, {"NDR", "400Gbit/s"}, {"HDR100", "100Gbit/s"}, {"HDR", "200Gbit/s"},
	{"EDR", "100Gbit/s"}, {"FDR", "56Gbit/s"}, {"QDR", "40Gbit/s"}, {"DDR", "20Gbit/s"}, {"SDR", "10Gbit/s"},
}

func isNS(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	return t == "" || t == "n/s" || strings.HasPrefix(t, "n/s") || t == "n/a"
}

// Derive builds the scenario of a row from its gpu, nic, pcie, topology
// and software columns. The rules, in order:
//
//   - base preset by generation: NDR or a Hopper GPU on InfiniBand →
//     dgx-h100-ndr; HDR or an A100 → a100-hdr; older InfiniBand (EDR, FDR,
//     QDR, SDR, Connect-IB, ConnectX-4/5) or a GPU before Ampere →
//     gen3-edr; GCP's TCPXO NICs → gcp-a3-tcpx; otherwise default;
//   - the GPU's PCIe generation, memory bandwidth and whether GPUDirect
//     receives need a flush, from its datasheet (gpus); a stated PCIe
//     generation wins;
//   - the NIC's kind, rate as sold (an InfiniBand generation name or
//     "N Gb/s"; a dual-port adapter carries both ports), MTU;
//   - back to back ("back-to-back", both HCAs in one server, HCA loopback):
//     no switch and the stated cable; otherwise the base's switch hops;
//   - the GPU↔NIC class: "PIX"/"same PCIe switch"/"shared switch"/"PCIe
//     distance ≤ 2" → PIX, "DGX PCIe switch" → PXB, a larger distance →
//     PHB, "different NUMA node" → SYS;
//   - a GPU or InfiniBand the row names only by its year (2015): that
//     year's generation (Kepler K40, FDR), listed as assumed;
//   - gdrcopy run from the socket that does not host the GPU: its BAR1
//     loads and stores cross the inter-socket link (topology.cpu_gpu SYS);
//   - the software (Profile): who posts for the GPU, inline sizes, flows,
//     NCCL's sockets per connection and Google's TCPXO environment.
func Derive(r Row) (*Derived, error) {
	gpu, nic := r.GPU, r.NIC
	ib := regexp.MustCompile(`InfiniBand|\bIB\b|HCA|EDR|FDR|HDR|NDR|QDR|SDR|Connect-IB|IPoIB`).MatchString(nic)
	base := "default"
	switch {
	case strings.Contains(nic, "TCPXO") || strings.Contains(gpu, "A3-Mega") || strings.Contains(gpu, "a3-mega"):
		base = "gcp-a3-tcpx"
	case ib && (strings.Contains(nic, "NDR") && !strings.Contains(nic, "NDR200") || strings.Contains(nic, "400 Gb/s")):
		base = "dgx-h100-ndr"
	case ib && (strings.Contains(nic, "HDR") || strings.Contains(nic, "NDR200") || strings.Contains(gpu+r.Topology+nic, "A100")):
		base = "a100-hdr"
	case ib || regexp.MustCompile(`ConnectX-[45]|V100|P100|K40|K80|T4|Quadro`).MatchString(nic+" "+gpu):
		base = "gen3-edr"
	case strings.Contains(gpu, "A100"):
		base = "a100-hdr"
	}
	s, err := model.Preset(base)
	if err != nil {
		return nil, err
	}
	d := &Derived{Scenario: s, Base: base}

	// GPU.
	found := false
	// A GPU the row names only by its year: the Tesla generation NVIDIA
	// sold then (2015: Kepler, the K40 the era's GPUDirect RDMA clusters
	// ran; its facts below are the K40's).
	match := gpu
	if era := "2015"; strings.Contains(gpu, era) && strings.Contains(gpu, "n/s") {
		match = "K40"
		d.Assumed = append(d.Assumed, "GPU a Tesla of 2015: Kepler, the K40's datasheet facts")
	}
	for _, g := range gpus {
		if strings.Contains(match, g.match) {
			found = true
			if err := d.set("gpu.pcie", fmt.Sprintf("gen%dx16", g.gen), g.match+" datasheet"); err != nil {
				return nil, err
			}
			_ = d.set("gpu.memory_rate", g.memory, g.match+" datasheet")
			_ = d.set("gpu.gdr_flush", strconv.FormatBool(g.flush), g.match+": compute capability "+map[bool]string{true: "below", false: "from"}[g.flush]+" 9.0 (NCCL ncclTopoNeedFlush)")
			if g.socket != "" {
				_ = d.set("topology.inter_socket_rate", g.socket, g.match+"-era host (Xeon E5 v2/v3): NCCL BDW_QPI_BW")
			}
			break
		}
	}
	if !found && !strings.HasPrefix(strings.ToLower(gpu), "none") && gpu != "n/a" {
		d.assume("gpu.pcie", "GPU model not stated: the "+base+" preset's")
	}
	if m := reGen.FindStringSubmatch(r.PCIe); m != nil {
		g := m[1] + m[2]
		_ = d.set("gpu.pcie", "gen"+g+"x16", "the row's PCIe column")
		if strings.Contains(r.PCIe, "HCA") || strings.Contains(nic, "HCA") || ib || !found {
			_ = d.set("nic.pcie", "gen"+g+"x16", "the row's PCIe column")
		}
	} else if isNS(r.PCIe) {
		d.assume("nic.pcie", "PCIe not stated")
	}

	// NIC.
	switch {
	case strings.Contains(nic, "loopback") && !strings.Contains(nic, "HCA"):
		_ = d.set("nic.kind", model.KindLoopback, "loopback")
		_ = d.set("nic.rdma", "false", "loopback")
	case strings.Contains(nic, "RoCE"):
		_ = d.set("nic.kind", model.KindRoCE, "RoCE")
		_ = d.set("nic.rdma", "true", "RoCE")
	case strings.Contains(nic, "EFA"):
		// EFA's SRD is reliable datagram RDMA over Ethernet: RoCE-like framing.
		_ = d.set("nic.kind", model.KindRoCE, "EFA: RDMA over Ethernet (SRD), framed like RoCEv2")
		_ = d.set("nic.rdma", "true", "EFA")
	case ib:
		_ = d.set("nic.kind", model.KindIB, "InfiniBand")
		_ = d.set("nic.rdma", "true", "InfiniBand")
		if d.Scenario.NIC.MTU > 4096 {
			_ = d.set("nic.mtu", "4096", "IB MTU")
		}
	case strings.Contains(nic, "Ethernet") || strings.Contains(nic, "vNIC") || strings.Contains(nic, "eth0") || strings.Contains(nic, "GbE"):
		_ = d.set("nic.kind", model.KindEthernet, "Ethernet without RDMA")
		_ = d.set("nic.rdma", "false", "Ethernet without RDMA")
	}
	rate := ""
	if ib {
		for _, g := range ibRates {
			if strings.Contains(nic, g.name) {
				rate = g.rate
				break
			}
		}
	}
	if rate == "" {
		if m := reGbits.FindStringSubmatch(nic); m != nil {
			rate = m[1] + "Gbit/s"
		}
	}
	if rate == "" && ib && strings.Contains(gpu, "2015") {
		// InfiniBand of a 2015 GPU cluster: FDR (ConnectX-3 / Connect-IB,
		// 56 Gb/s as sold); EDR adapters (ConnectX-4) shipped from 2015 on.
		rate = "56Gbit/s"
		d.Assumed = append(d.Assumed, "InfiniBand of 2015, generation not stated: FDR 56 Gb/s (ConnectX-3 era)")
	}
	if rate != "" {
		if strings.Contains(nic, "dual-port") {
			if x, err := units.ParseRate(rate); err == nil {
				rate = (x * 2).BitString()
				_ = d.set("nic.rate", rate, "dual-port adapter: both ports")
			}
		} else {
			_ = d.set("nic.rate", rate, "the row's NIC column")
		}
	} else if d.Scenario.NIC.Kind != model.KindLoopback {
		d.assume("nic.rate", "NIC rate not stated: the "+base+" preset's")
	}
	if m := reMTU.FindStringSubmatch(nic); m != nil {
		mtu, _ := strconv.Atoi(m[1])
		if d.Scenario.NIC.Kind == model.KindIB && strings.Contains(nic, "IPoIB") {
			mtu += 4 // IPoIB: IP MTU = IB MTU − 4 (RFC 4391)
		}
		_ = d.set("nic.mtu", strconv.Itoa(mtu), "the row's NIC column")
	}
	back := regexp.MustCompile(`back-to-back|both HCAs in one server|HCA loopback|localhost`).MatchString(nic + " " + r.Topology)
	if back {
		_ = d.set("network.hops", "0", "back to back")
		if m := reCable.FindStringSubmatch(nic); m != nil {
			_ = d.set("network.cable", m[1]+"m", "the row's NIC column")
		} else {
			_ = d.set("network.cable", "1m", "back to back, cable not stated: 1 m")
		}
	} else if d.Scenario.NIC.Kind != model.KindLoopback {
		d.assume("network.hops", "switches not stated: the "+base+" preset's")
	}

	// GPU↔NIC class.
	top := r.Topology
	switch {
	case strings.Contains(top, "PIX") || strings.Contains(top, "same PCIe switch") || strings.Contains(top, "shared switch"):
		_ = d.set("topology.gpu_nic", "PIX", "the row's topology column")
	case strings.Contains(top, "DGX PCIe switch"):
		_ = d.set("topology.gpu_nic", "PXB", "DGX-A100: GPU and NIC behind its PCIe switch tree (PXB)")
	case strings.Contains(top, "remote socket"):
		// gdrcopy run from the socket that does not host the GPU (gdrcopy's
		// README, "NUMA effects"): its loads and stores cross the
		// inter-socket link.
		_ = d.set("topology.cpu_gpu", "SYS", "the copying process runs on the socket that does not host the GPU")
	case strings.Contains(top, "different NUMA node"):
		_ = d.set("topology.gpu_nic", "SYS", "GPU and NIC on different NUMA nodes")
	case reDist.MatchString(top):
		n, _ := strconv.Atoi(reDist.FindStringSubmatch(top)[1])
		c := "PIX"
		if n > 2 {
			c = "PHB"
		}
		_ = d.set("topology.gpu_nic", c, fmt.Sprintf("PCIe distance %d: %s", n, map[string]string{"PIX": "one switch", "PHB": "through the host bridge"}[c]))
	default:
		if strings.Contains(r.Path, "gdr") || strings.Contains(r.Path, "staged") || strings.Contains(r.Path, "tcpx") {
			d.assume("topology.gpu_nic", "GPU↔NIC placement not stated: the "+base+" preset's")
		}
	}
	if err := profile(d, r); err != nil {
		return nil, err
	}
	if err := d.Scenario.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// profile sets what the software column says about who drives the
// transfer: the software stack (software.stack) and its parameters.
//
//   - perftest posts from its own thread (no proxy) and never flushes:
//     software.stack perftest, with the program (perftest.test: the last
//     ib_* name the column gives), whose inline default the model derives
//     (src/perftest_parameters.h: DEF_INLINE_SEND_RC_UC 236 B,
//     DEF_INLINE_WRITE 220 B; bandwidth tests none), or the inline size
//     the column states; ib_read_lat stays on the bare transport with
//     DEF_INLINE_WRITE (the read branch of modelRow builds its request and
//     data legs from it);
//   - MPI over UCX (OMB, osu_*, UCX named): software.stack ucx, with the
//     eager→rendezvous switch the row's notes name (ucx.rndv_thresh);
//   - other MPI, rdmaPingPong, Mooncake, rCUDA and NIXL post from the
//     application's own threads: the bare transport (software.stack none);
//   - NCCL (nccl-tests, PyTorch, NCCL's socket transport): software.stack
//     nccl, its proxy thread and, before Hopper, its flush;
//   - NIXLBench with num_threads=N: N flows.
func profile(d *Derived, r Row) error {
	sw := r.Software
	switch {
	case strings.Contains(sw, "perftest") || strings.Contains(sw, "ib_"):
		progs := reProg.FindAllString(sw, -1)
		prog := ""
		if len(progs) > 0 {
			prog = progs[len(progs)-1]
		}
		if strings.Contains(prog, "read") {
			_ = d.set("software.stack", "none", "perftest's read test: the bare transport, its legs built by the read branch")
			_ = d.set("nic.inline_size", "220B", "perftest DEF_INLINE_WRITE: the read branch's request leg")
			break
		}
		_ = d.set("software.stack", "perftest", "perftest posts from its own thread and never flushes")
		test := "write_lat"
		switch {
		case strings.Contains(prog, "send") && strings.HasSuffix(prog, "_bw"):
			test = "send_bw"
		case strings.HasSuffix(prog, "_bw"):
			test = "write_bw"
		case strings.Contains(prog, "send"):
			test = "send_lat"
		}
		_ = d.set("perftest.test", test, "the row's software column ("+prog+")")
		if m := reInline.FindStringSubmatch(sw); m != nil {
			_ = d.set("nic.inline_size", m[1]+"B", "the row's software column")
		}
	case regexp.MustCompile(`OMB|osu_|UCX`).MatchString(sw):
		_ = d.set("software.stack", "ucx", "MPI over UCX: UCX's eager and rendezvous protocols")
		if m := reSwitch.FindStringSubmatch(r.Notes); m != nil {
			_ = d.set("ucx.rndv_thresh", m[1]+m[2]+"iB", "the eager→rendezvous switch the row's notes name")
		}
	case regexp.MustCompile(`MPI|rdmaPingPong|Mooncake|rCUDA|NIXL`).MatchString(sw):
		_ = d.set("software.stack", "none", "the application's own threads post (no proxy thread, no flush)")
	case strings.Contains(sw, "FasTrak"):
		// Google's TCPXO NCCL environment (demo-run-nccl-test-tcpxo-via-mpi.sh,
		// run by GoogleCloudPlatform/container-engine-accelerators
		// gpudirect-tcpxo/nccl-test-latest.yaml): NCCL_FASTRAK_NUM_FLOWS=2,
		// NCCL_BUFFSIZE=8388608 (8 MiB in NCCL_STEPS = 8 steps).
		_ = d.set("software.stack", "nccl", "NCCL (nccl-tests)")
		_ = d.set("stack.flows", "2", "NCCL_FASTRAK_NUM_FLOWS=2 in Google's TCPXO NCCL environment")
		_ = d.set("pipeline.chunk", "1MiB", "NCCL_BUFFSIZE=8 MiB in Google's TCPXO NCCL environment, 8 steps")
	case strings.Contains(sw, "socket transport") && strings.Contains(r.NIC, "eth0") && strings.Contains(r.GPU, "a3-mega"):
		// NCCL's socket transport on a Google gVNIC (PCI vendor 0x1ae0)
		// opens 4 threads × 1 socket per connection (src/transport/net_socket.cc).
		_ = d.set("software.stack", "nccl", "NCCL's socket transport")
		_ = d.set("stack.flows", "4", "NCCL sockets on a Google gVNIC: 4 threads × 1 socket (net_socket.cc)")
	case strings.Contains(sw, "NCCL") || strings.Contains(sw, "nccl"):
		_ = d.set("software.stack", "nccl", "NCCL: its proxy thread drives the network")
	}
	if m := reSocks.FindStringSubmatch(sw); m != nil {
		t, _ := strconv.Atoi(m[2])
		k, _ := strconv.Atoi(m[1])
		_ = d.set("stack.flows", strconv.Itoa(t*k), "the row's software column: NCCL_NSOCKS_PERTHREAD × NCCL_SOCKET_NTHREADS sockets")
	}
	if m := reThread.FindStringSubmatch(sw); m != nil {
		_ = d.set("stack.flows", m[1], "the row's software column (num_threads)")
	}
	return nil
}
