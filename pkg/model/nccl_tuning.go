package model

import (
	"math"
	"math/bits"

	"github.com/gpupath/gpupath/pkg/units"
)

// NCCL's own cost model: the tables and formulas of ncclTopoTuneModel and
// ncclTopoGetAlgoTime (src/graph/tuning.cc), the algorithm and protocol
// choice of topoGetAlgoInfo (src/enqueue.cc) and the constants they read
// (src/include/device.h, src/include/collectives.h, src/graph/topo.h,
// src/graph/search.cc, src/transport/nvls.cc), all at NVIDIA/nccl
// 5067397c2676d5aed50042fc39e5c8ee96eb0027 (ncclSource). NCCL writes its
// latencies in µs and its bandwidths in GB/s (1e9 B/s) as float; they are
// kept here as NCCL writes them, in float64, and converted where the
// collective model uses them.
//
// What gpupath takes from its own model instead of NCCL's (the
// departures, each said again where it is made):
//   - bwIntra and bwInter, the per-channel bandwidths NCCL's topology
//     search finds (ncclTopoCompute picks them from its speed arrays), are
//     the links' rates from gpupath's path model divided among the
//     channels (collLinks), so the network hop's rate is the chosen path's
//     (a TCP hop, a host-staged hop), not the NIC's nominal speed;
//   - latencyInter, which NCCL takes from the net plugin (0 for its IB
//     verbs and socket transports, src/transport/net_ib/init.cc and
//     src/transport/net_socket.cc: "props->latency = 0; // Not set"), is
//     what the chosen path's one-way latency exceeds GPUDirect RDMA's on
//     the same NIC and wire, so a socket hop costs what the TCP stack costs;
//   - the number of channels comes from a closed form of the search (ncclChannels),
//     not the search itself;
//   - the time reported never beats what the links can carry for the
//     algorithm's traffic (NCCL's estimate of NVLS on two to four GPUs
//     does): NCCL's estimate picks the algorithm, as in NCCL, and the
//     larger of the two is the time (collOption).

// Indices of NCCL's algorithms (src/include/plugin/nccl_tuner.h:
// NCCL_ALGO_TREE 0 … NCCL_ALGO_PAT 6) and protocols (NCCL_PROTO_LL 0,
// NCCL_PROTO_LL128 1, NCCL_PROTO_SIMPLE 2).
const (
	aTree = iota
	aRing
	aCollNetDirect
	aCollNetChain
	aNVLS
	aNVLSTree
	aPAT
	nAlgos
)

const (
	pLL = iota
	pLL128
	pSimple
	nProtos
)

// Indices of NCCL's hardware latency tables (NCCL_HW_NVLINK, NCCL_HW_PCI,
// NCCL_HW_NET).
const (
	hwNVLink = iota
	hwPCI
	hwNet
)

// ncclFunc is NCCL's numbering of the collectives it tunes
// (src/include/nccl_common.h: ncclFuncBroadcast 0 … ncclFuncAllReduce 4;
// NCCL_NUM_FUNCTIONS 5, "Send/Recv not included").
const (
	fBroadcast = iota
	fReduce
	fAllGather
	fReduceScatter
	fAllReduce
)

// ncclBaseLat is baseLatencies (ncclTunerConstantsDefaults, tuning.cc), µs,
// per algorithm and protocol (LL, LL128, Simple).
var ncclBaseLat = [nAlgos][nProtos]float64{
	aTree: {6.8, 14.0, 8.4}, aRing: {6.6, 14.0, 8.4},
	aCollNetDirect: {0, 0, 0}, aCollNetChain: {0, 0, 0},
	aNVLS: {0, 0, 0}, aNVLSTree: {0, 0, 0},
	aPAT: {8.0, 8.0, 8.0},
}

// ncclHwLat is hwLatencies (ncclTunerConstantsDefaults, tuning.cc), µs:
// one step's latency over NVLink, PCI and the network, per algorithm and
// protocol.
var ncclHwLat = [3][nAlgos][nProtos]float64{
	hwNVLink: {aTree: {0.6, 1.25, 4.0}, aRing: {0.6, 1.9, 3.4}, aCollNetDirect: {0, 0, 3.7}, aCollNetChain: {0, 0, 2.8},
		aNVLS: {0, 0, 25}, aNVLSTree: {0, 0, 25}, aPAT: {0, 0, 4.0}},
	hwPCI: {aTree: {1.0, 1.9, 4.0}, aRing: {1.0, 2.5, 5.7}, aCollNetDirect: {0, 0, 3.7}, aCollNetChain: {0, 0, 2.8},
		aNVLS: {0, 0, 0}, aNVLSTree: {0, 0, 0}, aPAT: {0, 0, 4.0}},
	hwNet: {aTree: {5.0, 8.5, 14}, aRing: {2.7, 4.0, 14.0}, aCollNetDirect: {0, 0, 31}, aCollNetChain: {0, 0, 30},
		aNVLS: {0, 0, 18}, aNVLSTree: {0, 0, 20.9}, aPAT: {0, 0, 14}},
}

// GPU generations of NCCL's tables (NCCL_VOLTA_COMPCAP_IDX …
// NCCL_BLACKWELL_COMPCAP_IDX: compCapIndex in ncclTopoTuneModel).
const (
	ccVolta = iota
	ccAmpere
	ccHopper
	ccBlackwell
)

// ncclCompCapIndex is compCapIndex (tuning.cc): Blackwell from 10.0,
// Hopper from 9.0, Ampere from 8.0, else Volta; cc is ×10.
func ncclCompCapIndex(cc int) int {
	switch {
	case cc >= 100:
		return ccBlackwell
	case cc >= 90:
		return ccHopper
	case cc >= 80:
		return ccAmpere
	}
	return ccVolta
}

// ncclLLMaxBw is llMaxBws (tuning.cc), GB/s: the LL protocol's ceiling, by
// row (one node: the GPU generation; several: 0 Intel, 1 AMD CPU) and by
// column (1 node, 2 nodes, more).
var ncclLLMaxBw = [4][3]float64{
	{39.0, 39.0, 20.4},          // Volta-N1 / Intel-N2 / Intel-N4
	{87.7, 22.5, 19.0},          // Ampere-N1 / AMD-N2 / AMD-N4
	{141.0, 45.0, 35.0},         // Hopper-N1 / AMD-N2 / AMD-N4
	{2 * 141.0, 2 * 45.0, 70.0}, // Blackwell-N1 / AMD-N2 / AMD-N4
}

// Per-channel ceilings (tuning.cc), GB/s, by GPU generation and by 1, 2 and
// more nodes: perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws,
// perChMaxNVLSTreeBws.
var (
	ncclPerChMaxRingLL128Bw = [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}}
	ncclPerChMaxTreeLL128Bw = [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}
	ncclPerChMaxTreeBw      = [4][3]float64{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}
	ncclPerChMaxNVLSTreeBw  = [4][3]float64{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}
)

// ncclNVLSEfficiency is nvlsEfficiency (tuning.cc) by GPU generation.
var ncclNVLSEfficiency = [4]float64{0, 0, 0.85, 0.74}

// ncclTreeCorrection is treeCorrectionFactor (tuning.cc): "Trees are not
// perfectly sticking to the model for medium sizes", by protocol and
// log2(bytes/64), 64 B to 256 MiB.
var ncclTreeCorrection = [nProtos][24]float64{
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}

// The other numbers the formulas use, with their places.
const (
	// ncclLLFactor: a ring's LL busBw × .5 (tuning.cc, "Various model
	// refinements": every 8-byte line carries a 4-byte flag).
	ncclLLFactor = 0.5
	// ncclLL128Factor: a ring's LL128 busBw × 0.92 ("120.0/128.0").
	ncclLL128Factor = 0.92
	// ncclTreeARFactor: a tree all-reduce's busBw × .92.
	ncclTreeARFactor = 0.92
	// ncclTreeLLFactor: a tree's LL busBw × 1.0/3.8.
	ncclTreeLLFactor = 1.0 / 3.8
	// ncclTreeLL128Factor1 and ncclTreeLL128FactorN: a tree's LL128 busBw
	// × 7.0/9.0 on one node, × 120.0/128.0 on more.
	ncclTreeLL128Factor1 = 7.0 / 9.0
	ncclTreeLL128FactorN = 120.0 / 128.0
	// ncclTreePatternFactor: busBw × .85 when a rank's tree is the simple
	// pattern (maxTreePattern == NCCL_TOPO_PATTERN_TREE: every NIC on one
	// GPU; the pattern of a node of one GPU, search.cc).
	ncclTreePatternFactor = 0.85
	// ncclPATFactor: PAT's busBw × .75.
	ncclPATFactor = 0.75
	// ncclCollNetDirectHopper: CollNet Direct's busBw × .85 from compute
	// capability 9.0.
	ncclCollNetDirectHopper = 0.85
	// ncclCollNetDirectAGInter: CollNet Direct all-gather and
	// reduce-scatter take bwInter × 0.9.
	ncclCollNetDirectAGInter = 0.9
	// ncclCollNetArityLat: "Add 0.4 us arity serialization latency" of
	// CollNet Direct, per local rank beyond the first, µs.
	ncclCollNetArityLat = 0.4
	// ncclPATLogDivisor and ncclPATPerRank: PAT's latency log2(nodes) ×
	// interLat/3.5 + nRanks × 2.8 µs ("Still a linear part").
	ncclPATLogDivisor = 3.5
	ncclPATPerRank    = 2.8
	// ncclRingPlateau and ncclRingPlateauPreAmpere: the "Plateau effect of
	// ring" (ncclTopoGetAlgoTime): a multi-node ring all-reduce with Simple
	// of at least 64 bytes per channel and rank has its latency × 1.4
	// (× 1.9 below compute capability 8.0).
	ncclRingPlateau          = 1.4
	ncclRingPlateauPreAmpere = 1.9
	ncclRingPlateauBytes     = 64
	// ncclSimpleOverheadFactor: an inter-node ring's intra-node step costs
	// at least getNetOverhead, × 3 for Simple ("Inter-node rings still
	// have to launch nsteps * net overhead").
	ncclSimpleOverheadFactor = 3
	// ncclMaxChannels is MAXCHANNELS (src/include/device.h: 64); the ring
	// graph searches up to MAXCHANNELS/2 (src/init.cc: ringGraph->maxChannels).
	ncclMaxChannels = 64
	// ncclMaxNVLSArity is NCCL_MAX_NVLS_ARITY (device.h: 32), the most
	// heads of an NVLS graph; ncclMaxDirectArity is NCCL_MAX_DIRECT_ARITY
	// (device.h: 7): CollNet needs at most 8 local ranks (enqueue.cc,
	// updateCollCostTable).
	ncclMaxNVLSArity   = 32
	ncclMaxDirectArity = 7
	// ncclP2PLLThreshold is NCCL_P2P_LL_THRESHOLD (src/enqueue.cc: 16384):
	// a send or receive uses LL up to that many bytes per channel, else
	// Simple.
	ncclP2PLLThreshold = 16384
)

// NCCL's speed arrays (src/graph/search.cc): the per-channel bandwidths its
// topology search tries, fastest first, inside a node (Intra) and with a
// network (Inter), before Hopper, on Hopper (sm90) and from Blackwell
// (sm100), GB/s.
var (
	ncclSpeedIntra      = []float64{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}
	ncclSpeedInter      = []float64{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	ncclSpeedIntraSM90  = []float64{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0}
	ncclSpeedInterSM90  = []float64{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	ncclSpeedIntraSM100 = []float64{90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0}
	ncclSpeedInterSM100 = []float64{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
)

// ncclSpeeds is the speed array ncclTopoCompute searches for cc, inside a
// node or with a network.
func ncclSpeeds(cc int, inter bool) []float64 {
	switch {
	case cc >= 100 && inter:
		return ncclSpeedInterSM100
	case cc >= 100:
		return ncclSpeedIntraSM100
	case cc >= 90 && inter:
		return ncclSpeedInterSM90
	case cc >= 90:
		return ncclSpeedIntraSM90
	case inter:
		return ncclSpeedInter
	}
	return ncclSpeedIntra
}

// NCCL's PCIe path types (src/include/graph.h: PATH_LOC 0, PATH_NVL 1,
// PATH_NVB 2, PATH_C2C 3, PATH_PIX 4, PATH_PXB 5, PATH_P2C 6, PATH_PXN 7,
// PATH_PHB 8, PATH_SYS 9).
const (
	pathLOC = 0
	pathNVL = 1
	pathNVB = 2
	pathPIX = 4
	pathPXB = 5
	pathPXN = 7
	pathPHB = 8
	pathSYS = 9
)

// ncclPathType is NCCL's path type for a topology class: nvidia-smi's NODE
// (across host bridges of one CPU) is NCCL's PHB.
func ncclPathType(c Class) int {
	switch c {
	case PIX:
		return pathPIX
	case PXB:
		return pathPXB
	case PHB, NODE:
		return pathPHB
	}
	return pathSYS
}

// log2i is NCCL's log2i (src/include/utils.h, log2Down of
// src/include/bitops.h): ⌊log2 n⌋, and −1 for 0.
func log2i(n int) int {
	if n <= 0 {
		return -1
	}
	return bits.Len64(uint64(n)) - 1
}

// ncclGraph is what NCCL's topology search gives the tuner for one
// algorithm: its channels and their per-channel bandwidths inside the node
// and across the network, GB/s (graphs[a] in ncclTopoTuneModel).
type ncclGraph struct {
	nChannels        int
	bwIntra, bwInter float64
}

// ncclComm is what ncclTopoTuneModel reads of a communicator, for one
// collective.
type ncclComm struct {
	fn                   int // ncclFunc
	nRanks, nNodes, ppn  int
	cc, ccIdx            int
	amd, power, x86      bool    // the CPU: AMD (llMaxBws' row), POWER, x86 (NVLS Tree's correction)
	nvlink               bool    // typeIntra == LINK_NVL: intra-node hops use the NVLink table
	netOverhead          float64 // getNetOverhead, µs
	latencyInter         float64 // graphs[a]->latencyInter, µs (gpupath: the path's excess latency)
	graphs               [nAlgos]ncclGraph
	commChannels         int  // comm->nChannels, for the ring plateau
	treePattern          bool // maxTreePattern == NCCL_TOPO_PATTERN_TREE
	collnet, nvls, nvs   bool // collnetEnable, nvlsSupport, an NVSwitch in the node
	collnetHeads         int  // collNetHeadsNum
	pat                  bool // ncclPatEnable
	typeInter, typeIntra int  // the ring graph's path types, for LL128
}

// ncclTuned is ncclTopoTuneModel's output for one collective: per
// algorithm and protocol, the bandwidth (GB/s, as comm->bandwidths: what
// ncclTopoGetAlgoTime divides the bytes by) and latency (µs), or 0 and why
// the pair is not used.
type ncclTuned struct {
	bw, lat [nAlgos][nProtos]float64
	why     [nAlgos][nProtos]string
	// busBw is the bus bandwidth before the conversion to algorithm
	// bandwidth (GB/s), lat terms for the breakdown.
	busBw       [nAlgos][nProtos]float64
	intraLat    [nAlgos][nProtos]float64
	interLat    [nAlgos][nProtos]float64
	intraSteps  [nAlgos]int
	interSteps  [nAlgos]float64 // the count of inter-node latencies (a fraction for PAT)
	nsteps      int
	cappedBusBw [nAlgos][nProtos]bool
}

// ncclConsidered says whether ncclTopoTuneModel computes algorithm a for
// function fn at all, and why not: broadcast and reduce are rings;
// all-gather and reduce-scatter are PAT, ring, NVLS or CollNet Direct;
// all-reduce is not PAT.
func ncclConsidered(fn, a int) string {
	switch {
	case (fn == fBroadcast || fn == fReduce) && a != aRing:
		return "NCCL runs broadcast and reduce only as rings"
	case (fn == fAllGather || fn == fReduceScatter) && a != aPAT && a != aRing && a != aNVLS && a != aCollNetDirect:
		return "NCCL runs all_gather and reduce_scatter as ring, PAT, NVLS or CollNet Direct"
	case fn == fAllReduce && a == aPAT:
		return "PAT is for all_gather and reduce_scatter"
	}
	return ""
}

// tune is ncclTopoTuneModel for c: the bandwidth and latency of every
// algorithm and protocol (tuning.cc, line by line), then the enable rules
// (LL128's, NVLS Tree on one node, CollNet without SHARP, CollNet Direct
// without NVSwitch) and updateCollCostTable's filters (src/enqueue.cc).
func (c *ncclComm) tune() ncclTuned {
	var t ncclTuned
	nNodes, nRanks := c.nNodes, c.nRanks
	index2 := 2
	if nNodes <= 2 {
		index2 = nNodes - 1
	}
	index1 := c.ccIdx
	if nNodes > 1 {
		index1 = 0
		if c.amd {
			index1 = 1
		}
	}
	llMaxBw := ncclLLMaxBw[index1][index2]
	perChMaxTreeBw := ncclPerChMaxTreeBw[c.ccIdx][index2]
	perChMaxRingLL128Bw := ncclPerChMaxRingLL128Bw[c.ccIdx][index2]
	perChMaxTreeLL128Bw := ncclPerChMaxTreeLL128Bw[c.ccIdx][index2]
	perChMaxNVLSTreeBw := ncclPerChMaxNVLSTreeBw[c.ccIdx][index2]
	hwLat := ncclHwLat
	// "De-penalize Tree/Simple latency on Power systems to favor Tree than Ring"
	if c.power {
		hwLat[hwPCI][aTree][pSimple] = hwLat[hwPCI][aRing][pSimple]
	}
	ppn := float64(nRanks) / float64(nNodes)
	intraHw := hwPCI
	if c.nvlink {
		intraHw = hwNVLink
	}
	hw := intraHw
	if nNodes > 1 {
		hw = hwNet
	}
	fn := c.fn
	nsteps := nRanks
	switch fn {
	case fAllReduce:
		nsteps = 2 * (nRanks - 1)
	case fReduceScatter, fAllGather:
		nsteps = nRanks - 1
	}
	t.nsteps = nsteps
	for a := 0; a < nAlgos; a++ {
		if why := ncclConsidered(fn, a); why != "" {
			for p := range nProtos {
				t.why[a][p] = why
			}
			continue
		}
		g := c.graphs[a]
		for p := 0; p < nProtos; p++ {
			if (a == aNVLS || a == aNVLSTree) && p != pSimple {
				t.why[a][p] = "NVLS runs only the Simple protocol"
				continue
			}
			if a == aPAT && (p != pSimple || !c.pat) {
				if p != pSimple {
					t.why[a][p] = "PAT runs only the Simple protocol"
				} else {
					t.why[a][p] = c.patWhy()
				}
				continue
			}
			collnet := a == aCollNetDirect || a == aCollNetChain
			bw := g.bwInter
			if nNodes <= 2 || collnet {
				bw = g.bwIntra
			}
			if a == aNVLS || a == aNVLSTree {
				// "NVLS/NVLStree needs at least 2 channels"
				if g.nChannels < 2 {
					t.why[a][p] = "NVLS needs at least two heads (GPUs with a NIC, or GPUs on one node)"
					continue
				}
				intraBw := g.bwIntra * ncclNVLSEfficiency[c.ccIdx] * float64(g.nChannels-1) / float64(g.nChannels)
				// "AllReduce pipelines two operations."
				if fn == fAllReduce {
					intraBw *= 2
				} else {
					intraBw *= (ppn - 1) / ppn
				}
				// "Handle 2 node case of NVLSTree"
				interBw := g.bwInter
				if nNodes <= 2 && a == aNVLSTree {
					interBw *= 2
				}
				bw = math.Min(intraBw, interBw)
				if a == aNVLSTree {
					bw = math.Min(bw, perChMaxNVLSTreeBw)
				}
			}
			busBw := float64(g.nChannels) * bw
			uncapped := busBw
			// "Various model refinements"
			if a == aRing && p == pLL {
				busBw = math.Min(llMaxBw, busBw*ncclLLFactor)
				uncapped *= ncclLLFactor
			}
			if a == aRing && p == pLL128 {
				busBw = math.Min(busBw*ncclLL128Factor, float64(g.nChannels)*perChMaxRingLL128Bw)
				uncapped *= ncclLL128Factor
			}
			if a == aTree && fn == fAllReduce {
				busBw = math.Min(busBw*ncclTreeARFactor, float64(g.nChannels)*perChMaxTreeBw)
				uncapped *= ncclTreeARFactor
			}
			if a == aTree && p == pLL {
				busBw = math.Min(busBw*ncclTreeLLFactor, llMaxBw)
				uncapped *= ncclTreeLLFactor
			}
			if a == aTree && p == pLL128 {
				f := ncclTreeLL128FactorN
				if nNodes == 1 {
					f = ncclTreeLL128Factor1
				}
				busBw = math.Min(busBw*f, float64(g.nChannels)*perChMaxTreeLL128Bw)
				uncapped *= f
			}
			if a == aTree && c.treePattern {
				busBw *= ncclTreePatternFactor
				uncapped *= ncclTreePatternFactor
			}
			if a == aPAT {
				busBw *= ncclPATFactor
				uncapped *= ncclPATFactor
			}
			if collnet && p != pSimple {
				t.why[a][p] = "CollNet runs only the Simple protocol"
				continue
			}
			if a == aCollNetDirect && p == pSimple {
				if fn == fAllGather || fn == fReduceScatter {
					busBw = ppn * math.Min(g.bwIntra, g.bwInter*ncclCollNetDirectAGInter)
				} else {
					// "Collnet+Direct requires all GPUs to have a local NIC to work at full speed"
					factor := ppn / float64(g.nChannels) // GPU/NIC ratio
					factor -= (factor - 1) / 2
					busBw /= factor
					if c.cc >= 90 {
						busBw *= ncclCollNetDirectHopper
					}
				}
				uncapped = busBw
			}
			// "disable collnet for allgather/reducescatter if #localranks > #heads"
			if (a == aNVLS || a == aCollNetDirect) && p == pSimple && (fn == fAllGather || fn == fReduceScatter) && nNodes > 1 {
				if !c.collnet {
					t.why[a][p] = "NVLS and CollNet Direct all_gather and reduce_scatter across nodes need CollNet (network.sharp)"
					continue
				}
				if c.ppn > c.collnetHeads {
					t.why[a][p] = "CollNet all_gather and reduce_scatter need a NIC per GPU (1:1 GPU:NIC): more local ranks than CollNet heads"
					continue
				}
			}
			t.busBw[a][p] = busBw
			t.cappedBusBw[a][p] = busBw < uncapped*(1-1e-12)
			// "Convert bus BW to algorithm BW"
			if !(a != aRing && (fn == fAllGather || fn == fReduceScatter)) {
				ratio := 0.5
				if a == aRing || a == aNVLS || a == aNVLSTree {
					ratio = float64(nRanks) / float64(nsteps)
				}
				busBw *= ratio
			}
			t.bw[a][p] = busBw
			lat := ncclBaseLat[a][p]
			intraLat := hwLat[intraHw][a][p]
			// "With ppn=1 latencies are fully exposed, use the Tree network latency"
			interLat := hwLat[hwNet][a][p]
			if ppn == 1 {
				interLat = hwLat[hwNet][aTree][p]
			}
			interLat += c.latencyInter
			// "Also add the flush extra latency"
			if p == pSimple {
				interLat += c.latencyInter
			}
			switch a {
			case aRing:
				hl := hwLat[hw][a][p]
				if fn == fReduce || fn == fBroadcast {
					// gpupath assumes the ring graph keeps sameChannels (the
					// search's first try, ncclTopoCompute): one step's latency.
					// Departure: across nodes the step is the network's, with
					// the path's excess (latencyInter) as every other step.
					if nNodes > 1 {
						hl += c.latencyInter
						if p == pSimple {
							hl += c.latencyInter
						}
					}
					lat += hl
					t.intraLat[a][p], t.intraSteps[a] = hl, 1
				} else {
					// "Inter-node rings still have to launch nsteps * net overhead."
					netOverhead := 0.0
					if nNodes > 1 {
						netOverhead = c.netOverhead
						if p == pSimple {
							netOverhead *= ncclSimpleOverheadFactor
						}
					}
					intraLat = math.Max(intraLat, netOverhead)
					nInter := 0
					if nNodes > 1 {
						nInter = nNodes - 1
						if fn == fAllReduce {
							nInter = 2 * (nNodes - 1)
						}
					}
					lat += float64(nsteps-nInter)*intraLat + float64(nInter)*interLat
					t.intraLat[a][p], t.interLat[a][p] = intraLat, interLat
					t.intraSteps[a], t.interSteps[a] = nsteps-nInter, float64(nInter)
				}
			case aTree:
				if fn == fAllReduce {
					lat += 2 * (float64(nRanks/nNodes-1)*intraLat + float64(log2i(nNodes))*interLat)
					t.intraLat[a][p], t.interLat[a][p] = intraLat, interLat
					t.intraSteps[a], t.interSteps[a] = 2*(nRanks/nNodes-1), float64(2*log2i(nNodes))
				}
			case aCollNetDirect:
				// "Add 0.4 us arity serialization latency"
				lat += 2*(float64(min(1, nRanks/nNodes-1))*intraLat+float64(nRanks/nNodes-1)*ncclCollNetArityLat) + interLat
				t.intraLat[a][p], t.interLat[a][p] = intraLat, interLat
				t.intraSteps[a], t.interSteps[a] = 2*min(1, nRanks/nNodes-1), 1
			case aCollNetChain:
				lat += 2*float64(nRanks/nNodes-1)*intraLat + interLat
				t.intraLat[a][p], t.interLat[a][p] = intraLat, interLat
				t.intraSteps[a], t.interSteps[a] = 2*(nRanks/nNodes-1), 1
			case aNVLS:
				lat = intraLat
				t.intraLat[a][p], t.intraSteps[a] = intraLat, 1
				if nNodes > 1 {
					lat += interLat
					t.interLat[a][p], t.interSteps[a] = interLat, 1
				}
			case aNVLSTree:
				lat += intraLat + 2*float64(log2i(nNodes))*interLat
				t.intraLat[a][p], t.interLat[a][p] = intraLat, interLat
				t.intraSteps[a], t.interSteps[a] = 1, float64(2*log2i(nNodes))
			case aPAT:
				if fn == fAllGather || fn == fReduceScatter {
					lat += float64(log2i(nNodes))*(interLat/ncclPATLogDivisor) + float64(nRanks)*ncclPATPerRank
					t.interLat[a][p], t.interSteps[a] = interLat, float64(log2i(nNodes))/ncclPATLogDivisor
				}
			}
			t.lat[a][p] = lat
		}
	}
	c.enable(&t)
	return t
}

// patWhy says why ncclPatEnable is 0.
func (c *ncclComm) patWhy() string {
	switch {
	case c.cc < 60:
		return "PAT needs compute capability 6.0 (CUDA atomics)"
	case c.nNodes != c.nRanks:
		return "PAT runs only with one GPU per node (ncclPatEnable: nNodes == nRanks)"
	}
	return "PAT does not run over a network device that offloads (ncclPatEnable: netDeviceType must be host; devmem's unpack is not)"
}

// enable applies NCCL's enable rules (tuning.cc, after the loop) and
// updateCollCostTable's filters (enqueue.cc): what is disabled gets no
// bandwidth and a reason.
func (c *ncclComm) enable(t *ncclTuned) {
	for a := 0; a < nAlgos; a++ {
		why := ""
		switch {
		case c.nNodes == 1 && a == aNVLSTree:
			why = "NCCL disables NVLS Tree on a single node"
		case !c.collnet && (a == aCollNetDirect || a == aCollNetChain):
			why = "CollNet needs in-network reduction (network.sharp: SHARP with NCCL_COLLNET_ENABLE=1; NCCL's default is off)"
		case !c.collnet && a == aNVLS && c.nNodes > 1:
			why = "NVLS across nodes needs CollNet (NVLS+SHARP, network.sharp); NVLS Tree does not"
		case !c.nvs && a == aCollNetDirect:
			why = "NCCL disables CollNet Direct where the node has no NVSwitch (topology.nvswitch)"
		case (a == aCollNetDirect || a == aCollNetChain) && c.ppn > ncclMaxDirectArity+1:
			why = "CollNet supports at most 8 GPUs per node (NCCL_MAX_DIRECT_ARITY + 1)"
		case (a == aNVLS || a == aNVLSTree) && !c.nvls:
			why = "NVLS needs NVSwitch with NVLink SHARP (topology.nvswitch and compute capability 9.0 or later, two or more GPUs per node)"
		case (a == aNVLS || a == aNVLSTree) && c.fn != fAllReduce && c.ppn > ncclMaxNVLSArity:
			why = "NVLS other than all_reduce supports at most 32 GPUs per node (NCCL_MAX_NVLS_ARITY)"
		}
		for p := 0; p < nProtos; p++ {
			if why != "" && t.why[a][p] == "" {
				t.why[a][p] = why
			}
			if p == pLL128 && t.why[a][p] == "" {
				if w := c.ll128Why(); w != "" {
					t.why[a][p] = w
				}
			}
			if t.why[a][p] != "" {
				t.bw[a][p], t.lat[a][p] = 0, 0
			}
		}
	}
}

// ll128Why is why LL128 is off by default (tuning.cc): from Hopper it runs
// over network paths up to PXN, before only up to PXB; never over PCIe
// between the node's GPUs (typeIntra beyond NVB); never below compute
// capability 7.0.
func (c *ncclComm) ll128Why() string {
	switch {
	case c.cc < 70:
		return "NCCL enables LL128 from compute capability 7.0"
	case c.cc >= 90 && c.typeInter > pathPXN:
		return "NCCL enables LL128 on Hopper and later only where the GPU↔NIC path is at most PXN (this one crosses the CPU)"
	case c.cc < 90 && c.typeInter > pathPXB:
		return "NCCL enables LL128 before Hopper only where the GPU↔NIC path is at most PXB"
	case c.typeIntra > pathNVB:
		return "NCCL enables LL128 only where the node's GPUs talk over NVLink (not PCIe)"
	}
	return ""
}

// ncclTime is ncclTopoGetAlgoTime (tuning.cc) for one algorithm and
// protocol, prepared once: time(n) = lat·plateau(n) + n/(bw·corr(n)), with
// numPipeOps 1. corr is treeCorrectionFactor[p][log2(n/64)] for a tree
// all-reduce (log2 below 23) and, from Blackwell on x86, an NVLS Tree
// all-reduce (below 24); plateau is the "Plateau effect of ring" of a
// multi-node Simple ring all-reduce of at least 64 bytes per channel and
// rank (comm->nChannels): × 1.4, × 1.9 below compute capability 8.0.
type ncclTime struct {
	lat     float64 // seconds
	invBw   float64 // seconds per byte; 0: the pair is not used
	p       int     // protocol (the correction's row)
	corrMax int     // the correction applies while 0 ≤ log2(n/64) < corrMax; 0: never
	plateau float64 // the ring plateau's factor (1: none)
	minN    float64 // the bytes from which the plateau applies
}

// timeOf prepares ncclTopoGetAlgoTime for a and p.
func (c *ncclComm) timeOf(t *ncclTuned, a, p int) ncclTime {
	bw, lat := t.bw[a][p], t.lat[a][p]
	x := ncclTime{p: p, plateau: 1}
	if bw == 0 {
		return x
	}
	x.lat, x.invBw = lat*1e-6, 1/(bw*1e9)
	switch {
	case a == aTree && c.fn == fAllReduce:
		x.corrMax = 23
	case a == aNVLSTree && c.fn == fAllReduce && c.cc >= 100 && c.x86:
		x.corrMax = 24
	}
	if a == aRing && p == pSimple && c.nNodes > 1 && c.fn == fAllReduce {
		x.plateau, x.minN = ncclRingPlateau, float64(ncclRingPlateauBytes*c.commChannels*c.nRanks)
		if c.cc < 80 {
			x.plateau = ncclRingPlateauPreAmpere
		}
	}
	return x
}

// at is the latency and the bandwidth term at n bytes.
func (x *ncclTime) at(n units.Bytes) (lat, bwTerm float64) {
	f := float64(n)
	lat, inv := x.lat, x.invBw
	if x.corrMax > 0 {
		if ls := log2i(int(n >> 6)); ls >= 0 && ls < x.corrMax {
			inv /= ncclTreeCorrection[x.p][ls]
		}
	}
	if x.plateau != 1 && f >= x.minN {
		lat *= x.plateau
	}
	return lat, f * inv
}
