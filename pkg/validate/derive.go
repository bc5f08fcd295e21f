package validate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Mode says what a row is modeled from.
type Mode string

// The modes.
const (
	// Full: the preset of the row's generation (Reading.Base), what the
	// row states and, where it names no hardware, the hardware of its era.
	Full Mode = "full"
	// Partial: the default preset and only what the row states: how far the
	// model's defaults and rules carry from the hardware a row names.
	Partial Mode = "partial"
)

// Modes lists the modes in print order.
var Modes = []Mode{Full, Partial}

// Reading is what a row's text says: the hardware facts it states (names
// where it names hardware the catalog knows, the keys its columns give),
// the assumptions of its era where it names no hardware, and its
// software's keys.
type Reading struct {
	// Stated are the facts the row's gpu, nic, pcie and topology columns
	// state, each with the column it was read from.
	Stated calib.Facts
	// Era is what the row's era implies where the row names nothing (an
	// NVIDIA Tesla of 2015: a Kepler K40 on FDR InfiniBand; a Kepler GPU's
	// host: Intel before Skylake): the full mode's assumptions.
	Era calib.Facts
	// Software are the keys the software column sets: the software stack
	// (software.stack) and the row's own settings of it (inline sizes,
	// flows, chunks, the eager→rendezvous switch) (profile).
	Software []model.Override
	// Base is the preset of the row's generation: the full mode's base.
	Base string
}

// Derived is the scenario of a row in one mode.
type Derived struct {
	Mode     Mode
	Scenario *model.Scenario
	// Base is the preset it starts from: the one of the row's generation
	// (full) or default (partial).
	Base string
	// Set lists what was given, "key=value (source)".
	Set []string
	// Assumed lists the keys of the row's path the row leaves open, with
	// the value the scenario took and the rule that gave it.
	Assumed []string
}

var (
	reGbits  = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:Gb/s|Gbit/s|Gbps|GbE|G\b)`)
	reMTU    = regexp.MustCompile(`MTU (\d+)`)
	reCable  = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*m\b`)
	reGen    = regexp.MustCompile(`(?i)(?:gen\s*([1-6])|PCIe ([1-6])\.0)`)
	reLanes  = regexp.MustCompile(`\bx(1|2|4|8|16)\b`)
	reInline = regexp.MustCompile(`inline < (\d+) ?B`)
	reProg   = regexp.MustCompile(`ib_(?:send|write|read)_(?:lat|bw)`)
	reSwitch = regexp.MustCompile(`(?:jump at|dip at) (\d+) ([KM])iB[^;]*(?:protocol switch|eager->rendezvous)`)
	reDist   = regexp.MustCompile(`distance (\d+)`)
	reThread = regexp.MustCompile(`num_threads=(\d+)`)
	reSocks  = regexp.MustCompile(`NSOCKS_PERTHREAD=(\d+), SOCKET_NTHREADS=(\d+)`)
	reIB     = regexp.MustCompile(`InfiniBand|\bIB\b|HCA|EDR|FDR|HDR|NDR|QDR|SDR|Connect-IB|IPoIB`)
	reIBGen  = regexp.MustCompile(`\b(XDR|NDR200|NDR|HDR100|HDR|EDR|FDR10|FDR|QDR|DDR|SDR)\b`)
	reBack   = regexp.MustCompile(`back-to-back|both HCAs in one server|HCA loopback|localhost`)
	reCPU    = regexp.MustCompile(`\b(?:Xeon|EPYC)(?: (?:Platinum|Gold|Silver|Bronze))? (?:[A-Z]\d-)?[A-Z]?\d{4}[A-Z+]*(?: v\d)?`)
	reCount  = regexp.MustCompile(`^\d+x?\s+`)
	reGbitsW = regexp.MustCompile(`\s*\d+(?:\.\d+)?\s*(?:Gb/s|Gbit/s|Gbps)\b`)
)

// cpuGenerations are Intel and AMD generations a row may name for its host
// instead of a model, with NCCL's class of each (src/graph/topo.cc: Intel
// before Skylake is BDW).
var cpuGenerations = []struct{ name, family string }{
	{"Sandy Bridge", model.FamilyIntelBDW}, {"Ivy Bridge", model.FamilyIntelBDW}, {"Haswell", model.FamilyIntelBDW}, {"Broadwell", model.FamilyIntelBDW},
	{"Skylake", model.FamilyIntelSKL}, {"Cascade Lake", model.FamilyIntelSKL}, {"Ice Lake", model.FamilyIntelSKL},
	{"Sapphire Rapids", model.FamilyIntelSRP}, {"Granite Rapids", model.FamilyIntelSRP}, {"Emerald Rapids", model.FamilyIntelERP},
}

// reYear finds a year a column dates its hardware by.
var reYear = regexp.MustCompile(`\b(20[0-3]\d)\b`)

// teslaOf is NVIDIA's newest data-center GPU of a year (NVIDIA's launch
// announcements: K40 November 2013, K80 November 2014, P100 2016, V100
// 2017, A100 May 2020, H100 2022, H200 2024); the Kepler K40 stands for
// 2013–2015, the GPU the era's GPUDirect RDMA clusters ran.
func teslaOf(year int) string {
	switch {
	case year < 2013:
		return ""
	case year <= 2015:
		return "K40"
	case year == 2016:
		return "P100-PCIE-16GB"
	case year <= 2019:
		return "V100-SXM2-32GB"
	case year <= 2021:
		return "A100-SXM4-80GB"
	case year <= 2023:
		return "H100-SXM5-80GB"
	}
	return "H200"
}

// ibOf is the InfiniBand generation GPU clusters ran in a year (IBTA
// roadmap and the adapters' launches: QDR 2008, FDR 2011, EDR adapters
// from late 2015 (ConnectX-4), HDR 2019–2020, NDR 2022): a generation
// counts from the year after its adapters shipped.
func ibOf(year int) string {
	switch {
	case year < 2009:
		return ""
	case year <= 2011:
		return "QDR"
	case year <= 2015:
		return "FDR"
	case year <= 2019:
		return "EDR"
	case year <= 2022:
		return "HDR"
	}
	return "NDR"
}

// eraHosts are the hosts of GPUs of an architecture the catalog's summary
// names, for a row that states no CPU: Kepler Teslas sat in Xeon E5 v2/v3
// servers (Ivy Bridge, Haswell; S16 names an Ivy Bridge host for its K40).
var eraHosts = []struct{ arch, family, why string }{
	{"Kepler", model.FamilyIntelBDW, "a Kepler GPU's host: Xeon E5 v2/v3 (Ivy Bridge, Haswell), NCCL's class of Intel before Skylake"},
}

// genericWords are the words of a column that name no product.
var genericWords = map[string]bool{
	"mellanox": true, "nvidia": true, "broadcom": true, "intel": true, "amd": true, "aws": true, "gcp": true, "google": true, "azure": true,
	"ib": true, "infiniband": true, "nic": true, "nics": true, "nics/node": true, "hca": true, "hcas": true, "rdma": true, "ethernet": true,
	"vm": true, "vnic": true, "gpu": true, "gpus": true, "single": true, "dual-port": true, "roce": true, "rocev2": true, "adapter": true,
	"model": true, "of": true, "the": true, "and": true, "with": true, "per": true, "node": true, "host": true, "card": true, "cards": true,
}

func isNS(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	return t == "" || t == "n/s" || strings.HasPrefix(t, "n/s") || t == "n/a" || strings.HasPrefix(t, "none")
}

// catalogName is the phrase of text that names catalog entries of the
// kinds most narrowly: of every run of words of every part of the text
// (parts split at commas, semicolons and parentheses; counts like "2x",
// rates and generic words like "Mellanox" or "NIC" left out), the one that
// matches the fewest entries, the longer of equals; "" when none matches.
func catalogName(text string, kinds ...string) string {
	var parts []string
	for _, p := range regexp.MustCompile(`[,;()\[\]]`).Split(text, -1) {
		p = reGbitsW.ReplaceAllString(reCount.ReplaceAllString(strings.TrimSpace(p), ""), "")
		var ws []string
		for _, w := range strings.Fields(p) {
			if !genericWords[strings.ToLower(w)] {
				ws = append(ws, w)
			}
		}
		if len(ws) > 0 {
			parts = append(parts, strings.Join(ws, " "))
		}
	}
	best, bestN := "", 0
	for _, p := range parts {
		ws := strings.Fields(p)
		for i := range ws {
			for j := i + 1; j <= len(ws); j++ {
				phrase := strings.Join(ws[i:j], " ")
				if len(phrase) < 3 || isNumber(phrase) {
					continue
				}
				n := 0
				for _, k := range kinds {
					n += len(model.CatalogMatches(k, phrase))
				}
				if n > 0 && (bestN == 0 || n < bestN || (n == bestN && len(phrase) > len(best))) {
					best, bestN = phrase, n
				}
			}
		}
	}
	return best
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// ibRate is the rate of an InfiniBand generation as the catalog has it.
func ibRate(gen string) (units.Rate, string, bool) {
	e, ok := model.LookupCatalog(model.CatalogInfiniBand, gen)
	if !ok {
		return 0, "", false
	}
	f, ok := e.Fact("nic.rate")
	if !ok {
		return 0, "", false
	}
	r, err := units.ParseRate(f.Value) // the catalog's data, checked when it loads
	return r, "the catalog's " + e.Name + ": " + f.Source, err == nil
}

// base is the preset of a row's generation: NDR or a Hopper GPU on
// InfiniBand → dgx-h100-ndr; HDR or an A100 → a100-hdr; older InfiniBand
// (EDR, FDR, QDR, SDR, Connect-IB, ConnectX-4/5) or a GPU before Ampere →
// gen3-edr; GCP's TCPXO NICs → gcp-a3-tcpx; otherwise default.
func base(r Row) string {
	gpu, nic := r.GPU, r.NIC
	ib := reIB.MatchString(nic)
	switch {
	case strings.Contains(nic, "TCPXO") || strings.Contains(gpu, "A3-Mega") || strings.Contains(gpu, "a3-mega"):
		return "gcp-a3-tcpx"
	case ib && (strings.Contains(nic, "NDR") && !strings.Contains(nic, "NDR200") || strings.Contains(nic, "400 Gb/s")):
		return "dgx-h100-ndr"
	case ib && (strings.Contains(nic, "HDR") || strings.Contains(nic, "NDR200") || strings.Contains(gpu+r.Topology+nic, "A100")):
		return "a100-hdr"
	case ib || regexp.MustCompile(`ConnectX-[45]|V100|P100|K40|K80|T4|Quadro`).MatchString(nic+" "+gpu):
		return "gen3-edr"
	case strings.Contains(gpu, "A100"):
		return "a100-hdr"
	}
	return "default"
}

// Read reads a row's columns:
//
//   - the GPU: the phrase of the gpu column that names catalog entries
//     ("Tesla V100-SXM2-32GB", "H200" of "GPU0 of AWS p5en (H200)", "A100"
//     of "A100 (DGX-A100)": the four A100s' shared facts); a stated PCIe
//     generation ("PCIe Gen4", lanes x16 unless stated) is the GPU's link,
//     and the NIC's too where the column says HCA, the NIC is InfiniBand
//     or the row names no GPU;
//   - the NIC: the phrase of the nic column that names catalog entries
//     ("ConnectX-5 EDR", "NDR200", "Connect-IB", "EFA", "MT27700");
//     InfiniBand words (InfiniBand, IB, HCA, a generation) → ib, RoCE →
//     roce, Ethernet, vNIC, eth0, GbE → ethernet, loopback → loopback;
//     "RDMA" → RDMA; the rate of a named InfiniBand generation, else
//     "N Gb/s"; both ports of a dual-port adapter; a stated MTU (IPoIB: the
//     IB MTU is the IP MTU + 4, RFC 4391);
//   - back to back ("back-to-back", both HCAs in one server, HCA loopback,
//     localhost): no switch, and the stated cable;
//   - the GPU↔NIC class: "PIX"/"same PCIe switch"/"shared switch"/"PCIe
//     distance ≤ 2" → PIX, "DGX PCIe switch" → PXB, a larger distance →
//     PHB, "different NUMA node" → SYS; gdrcopy run from the socket that
//     does not host the GPU: its BAR1 loads and stores cross the
//     inter-socket link (topology.cpu_gpu SYS);
//   - the CPU: a Xeon or EPYC model named in any column, else a
//     generation (Ivy Bridge, Skylake, ...) as NCCL's family;
//   - a year the row dates its hardware by (both modes: it is stated): a
//     Tesla named only by its year is NVIDIA's data-center GPU of that year
//     (teslaOf), InfiniBand named only by its year the generation GPU
//     clusters ran then (ibOf);
//   - the era (full mode only): a Kepler GPU with no CPU stated sat in an
//     Intel host before Skylake;
//   - the software (profile).
func Read(r Row) Reading {
	rd := Reading{Base: base(r)}
	st := &rd.Stated
	col := func(name string) string { return fmt.Sprintf("%s %s column", r.ID, name) }
	quote := func(name, text string) string { return fmt.Sprintf("%s %q", col(name), strings.TrimSpace(text)) }

	// The GPU.
	gpuNamed := false
	if !isNS(r.GPU) && !strings.Contains(strings.ToLower(r.GPU), "n/s") {
		if n := catalogName(r.GPU, model.CatalogGPU); n != "" {
			st.GPU, gpuNamed = calib.Found(n, quote("gpu", r.GPU)), true
		}
	}
	year := 0
	if m := reYear.FindStringSubmatch(r.GPU + " " + r.NIC); m != nil {
		year, _ = strconv.Atoi(m[1])
	}
	if !gpuNamed && year > 0 && strings.Contains(r.GPU, "Tesla") {
		// An NVIDIA Tesla the row names only by its year: the data-center
		// GPU NVIDIA sold that year. The year is stated, so both modes read
		// it.
		if g := teslaOf(year); g != "" {
			st.GPU = calib.Found(g, fmt.Sprintf("%s names a Tesla of %d only: the %s, NVIDIA's data-center GPU of that year", col("gpu"), year, g))
		}
	}
	nic := r.NIC
	ib := reIB.MatchString(nic)
	if m := reGen.FindStringSubmatch(r.PCIe); m != nil {
		gen, _ := strconv.Atoi(m[1] + m[2])
		lanes, src := 16, quote("pcie", r.PCIe)
		if l := reLanes.FindStringSubmatch(r.PCIe); l != nil {
			lanes, _ = strconv.Atoi(l[1])
		} else {
			src += ", x16 as GPUs and NICs of that generation are built"
		}
		link := calib.Found(model.Link{Gen: gen, Lanes: lanes}, src)
		st.GPUPCIe = link
		if strings.Contains(r.PCIe, "HCA") || strings.Contains(nic, "HCA") || ib || !gpuNamed {
			st.NICPCIe = link
		}
	}

	// The NIC.
	if !isNS(nic) {
		if n := catalogName(nic, model.CatalogNIC, model.CatalogInfiniBand); n != "" {
			st.NIC = calib.Found(n, quote("nic", nic))
		}
	}
	switch {
	case strings.Contains(nic, "loopback") && !strings.Contains(nic, "HCA"):
		st.NICKind = calib.Found(model.KindLoopback, quote("nic", nic))
	case strings.Contains(nic, "RoCE"):
		st.NICKind = calib.Found(model.KindRoCE, quote("nic", nic))
	case ib:
		st.NICKind = calib.Found(model.KindIB, quote("nic", nic)+": InfiniBand")
	case regexp.MustCompile(`Ethernet|vNIC|eth0|GbE`).MatchString(nic) && !strings.Contains(nic, "RDMA"):
		st.NICKind = calib.Found(model.KindEthernet, quote("nic", nic)+": Ethernet without RDMA")
	}
	if regexp.MustCompile(`\bRDMA\b`).MatchString(nic) {
		st.RDMA = calib.Found(true, quote("nic", nic))
	}
	if ib {
		if g := reIBGen.FindString(nic); g != "" {
			if rate, src, ok := ibRate(g); ok {
				st.NICRate = calib.Found(rate, quote("nic", nic)+": "+src)
			}
		}
	}
	if !st.NICRate.Known() {
		if m := reGbits.FindStringSubmatch(nic); m != nil {
			if g, err := strconv.ParseFloat(m[1], 64); err == nil {
				st.NICRate = calib.Found(units.Rate(g*1e9/8), quote("nic", nic))
			}
		}
	}
	if !st.NICRate.Known() && ib && year > 0 {
		// InfiniBand a row dates but does not name: the generation GPU
		// clusters ran that year (stated through the year, both modes).
		if g := ibOf(year); g != "" {
			st.NIC = calib.Found(g, fmt.Sprintf("%s names InfiniBand of %d without its generation: %s, what GPU clusters ran that year", col("nic"), year, g))
			if rate, src, ok := ibRate(g); ok {
				st.NICRate = calib.Found(rate, g+", "+src)
			}
		}
	}
	if strings.Contains(nic, "dual-port") {
		st.PortsUsed = calib.Found(2, quote("nic", nic)+": a dual-port adapter, both ports")
	}
	if m := reMTU.FindStringSubmatch(nic); m != nil {
		mtu, _ := strconv.Atoi(m[1])
		src := quote("nic", nic)
		if ib && strings.Contains(nic, "IPoIB") {
			mtu += 4
			src += ": the IB MTU of IPoIB's IP MTU + 4 (RFC 4391)"
		}
		st.MTU = calib.Found(units.Bytes(mtu), src)
	}
	if reBack.MatchString(nic + " " + r.Topology) {
		st.Hops = calib.Found(0, col("nic")+" or topology column: back to back")
		if m := reCable.FindStringSubmatch(nic); m != nil {
			if c, err := strconv.ParseFloat(m[1], 64); err == nil {
				st.Cable = calib.Found(units.Meters(c), quote("nic", nic))
			}
		}
	}

	// The GPU↔NIC class, and where the copying core sits.
	top := r.Topology
	switch {
	case strings.Contains(top, "PIX") || strings.Contains(top, "same PCIe switch") || strings.Contains(top, "shared switch"):
		st.GPUNIC = calib.Found(model.PIX, quote("topology", top))
	case strings.Contains(top, "DGX PCIe switch"):
		st.GPUNIC = calib.Found(model.PXB, quote("topology", top)+": GPU and NIC behind the DGX's PCIe switch tree")
	case strings.Contains(top, "remote socket"):
		// gdrcopy run from the socket that does not host the GPU (gdrcopy's
		// README, "NUMA effects").
		st.CPUGPU = calib.Found(model.SYS, quote("topology", top)+": the copying process runs on the socket that does not host the GPU")
	case strings.Contains(top, "different NUMA node"):
		st.GPUNIC = calib.Found(model.SYS, quote("topology", top))
	case reDist.MatchString(top):
		n, _ := strconv.Atoi(reDist.FindStringSubmatch(top)[1])
		c, what := model.PIX, "one switch"
		if n > 2 {
			c, what = model.PHB, "through the host bridge"
		}
		st.GPUNIC = calib.Found(c, fmt.Sprintf("%s: PCIe distance %d, %s", quote("topology", top), n, what))
	}

	// The CPU.
	all := r.GPU + "; " + r.NIC + "; " + r.PCIe + "; " + r.Topology
	if m := reCPU.FindString(all); m != "" {
		st.CPU = calib.Found(m, fmt.Sprintf("%s: %q", r.ID, m))
	} else {
		for _, g := range cpuGenerations {
			if strings.Contains(all, g.name) {
				st.CPUFamily = calib.Found(g.family, fmt.Sprintf("%s: a %s host, NCCL's class %s", r.ID, g.name, g.family))
				break
			}
		}
	}
	if !st.CPU.Known() && !st.CPUFamily.Known() {
		name := st.GPU.Or(rd.Era.GPU).Value
		if ms := model.CatalogMatches(model.CatalogGPU, name); name != "" && len(ms) > 0 {
			for _, h := range eraHosts {
				if strings.Contains(ms[0].Summary, h.arch) {
					rd.Era.CPUFamily = calib.Found(h.family, "assumed: "+h.why)
				}
			}
		}
	}
	rd.Software = profile(r)
	return rd
}

// Derive builds the scenario of a row in a mode: the row's facts through
// calib.Overrides (the one path from facts to a scenario) and its
// software's keys, resolved on the mode's base.
func Derive(r Row, mode Mode) (*Derived, error) {
	rd := Read(r)
	facts, base := rd.Stated, "default"
	if mode == Full {
		facts, base = rd.Stated.Merge(rd.Era), rd.Base
	}
	ovs := append(calib.Overrides(facts), rd.Software...)
	s, err := model.Resolve(base, ovs...)
	if err != nil {
		return nil, err
	}
	d := &Derived{Mode: mode, Scenario: s, Base: base}
	for _, o := range ovs {
		v, _ := o.Text() // Resolve took it
		d.Set = append(d.Set, fmt.Sprintf("%s=%s (%s)", o.Key, v, o.Source))
	}
	d.Assumed = assumed(r, s)
	return d, nil
}

// assumed lists the keys a row's path depends on that the row leaves
// open: their value in s and the rule that gave it.
func assumed(r Row, s *model.Scenario) []string {
	network := r.NIC != "n/a" && s.NIC.Kind != model.KindLoopback
	var want []string
	if r.GPU != "n/a" && !strings.HasPrefix(strings.ToLower(r.GPU), "none") {
		want = append(want, "gpu.pcie")
	}
	if network {
		want = append(want, "nic.kind", "nic.rate", "nic.pcie", "network.hops")
		if strings.Contains(r.Path, "gdr") || strings.Contains(r.Path, "staged") || strings.Contains(r.Path, "tcpx") {
			want = append(want, "topology.gpu_nic")
		}
	}
	var out []string
	for _, res := range s.Resolution() {
		for _, k := range want {
			if res.Key == k && res.Rule != model.RuleGiven {
				out = append(out, fmt.Sprintf("%s=%s (%s: %s)", k, res.Value, res.Rule, res.Source))
			}
		}
	}
	return out
}

// profile gives, typed, what the software column says about who drives
// the transfer: the software stack (software.stack) and its parameters.
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
func profile(r Row) []model.Override {
	sw := r.Software
	var out []model.Override
	set := func(key string, v any, why string) {
		out = append(out, model.Override{Key: key, Value: v, Source: r.ID + " software column: " + why})
	}
	switch {
	case strings.Contains(sw, "perftest") || strings.Contains(sw, "ib_"):
		progs := reProg.FindAllString(sw, -1)
		prog := ""
		if len(progs) > 0 {
			prog = progs[len(progs)-1]
		}
		if strings.Contains(prog, "read") {
			set("software.stack", "none", "perftest's read test: the bare transport, its legs built by the read branch")
			set("nic.inline_size", units.Bytes(220), "perftest DEF_INLINE_WRITE: the read branch's request leg")
			break
		}
		set("software.stack", "perftest", "perftest posts from its own thread and never flushes")
		test := "write_lat"
		switch {
		case strings.Contains(prog, "send") && strings.HasSuffix(prog, "_bw"):
			test = "send_bw"
		case strings.HasSuffix(prog, "_bw"):
			test = "write_bw"
		case strings.Contains(prog, "send"):
			test = "send_lat"
		}
		set("perftest.test", test, prog)
		if m := reInline.FindStringSubmatch(sw); m != nil {
			n, _ := strconv.Atoi(m[1])
			set("nic.inline_size", units.Bytes(n), "inline < "+m[1]+" B")
		}
	case regexp.MustCompile(`OMB|osu_|UCX`).MatchString(sw):
		set("software.stack", "ucx", "MPI over UCX: UCX's eager and rendezvous protocols")
		if m := reSwitch.FindStringSubmatch(r.Notes); m != nil {
			n, _ := strconv.Atoi(m[1])
			mult := units.Bytes(1 << 10)
			if m[2] == "M" {
				mult = 1 << 20
			}
			set("ucx.rndv_thresh", units.Bytes(n)*mult, "the eager→rendezvous switch the row's notes name: "+m[1]+" "+m[2]+"iB")
		}
	case regexp.MustCompile(`MPI|rdmaPingPong|Mooncake|rCUDA|NIXL`).MatchString(sw):
		set("software.stack", "none", "the application's own threads post (no proxy thread, no flush)")
	case strings.Contains(sw, "FasTrak"):
		// Google's TCPXO NCCL environment (demo-run-nccl-test-tcpxo-via-mpi.sh,
		// run by GoogleCloudPlatform/container-engine-accelerators
		// gpudirect-tcpxo/nccl-test-latest.yaml): NCCL_FASTRAK_NUM_FLOWS=2,
		// NCCL_BUFFSIZE=8388608 (8 MiB in NCCL_STEPS = 8 steps).
		set("software.stack", "nccl", "NCCL (nccl-tests)")
		set("stack.flows", 2, "NCCL_FASTRAK_NUM_FLOWS=2 in Google's TCPXO NCCL environment")
		set("pipeline.chunk", units.Bytes(1<<20), "NCCL_BUFFSIZE=8 MiB in Google's TCPXO NCCL environment, 8 steps")
	case strings.Contains(sw, "socket transport") && strings.Contains(r.NIC, "eth0") && strings.Contains(r.GPU, "a3-mega"):
		// NCCL's socket transport on a Google gVNIC (PCI vendor 0x1ae0)
		// opens 4 threads × 1 socket per connection (src/transport/net_socket.cc).
		set("software.stack", "nccl", "NCCL's socket transport")
		set("stack.flows", 4, "NCCL sockets on a Google gVNIC: 4 threads × 1 socket (net_socket.cc)")
	case strings.Contains(sw, "NCCL") || strings.Contains(sw, "nccl"):
		set("software.stack", "nccl", "NCCL: its proxy thread drives the network")
	}
	if m := reSocks.FindStringSubmatch(sw); m != nil {
		t, _ := strconv.Atoi(m[2])
		k, _ := strconv.Atoi(m[1])
		set("stack.flows", t*k, "NCCL_NSOCKS_PERTHREAD × NCCL_SOCKET_NTHREADS sockets")
	}
	if m := reThread.FindStringSubmatch(sw); m != nil {
		n, _ := strconv.Atoi(m[1])
		set("stack.flows", n, "num_threads")
	}
	return out
}
