package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// NCCL's algorithms as CollectiveSpec.Algo names them (NCCL_ALGO's words,
// snake_case), and AlgoP2P: the send/receive pairs of all_to_all and
// send_recv, which NCCL does not tune.
const (
	AlgoAuto          = "auto"
	AlgoTree          = "tree"
	AlgoRing          = "ring"
	AlgoCollNetDirect = "collnet_direct"
	AlgoCollNetChain  = "collnet_chain"
	AlgoNVLS          = "nvls"
	AlgoNVLSTree      = "nvls_tree"
	AlgoPAT           = "pat"
	AlgoP2P           = "p2p"
)

// Algorithms lists NCCL's collective algorithms in its order
// (NCCL_ALGO_TREE 0 … NCCL_ALGO_PAT 6).
var Algorithms = []string{AlgoTree, AlgoRing, AlgoCollNetDirect, AlgoCollNetChain, AlgoNVLS, AlgoNVLSTree, AlgoPAT}

// CollectiveOps lists the operations the collective model evaluates, in
// nccl-tests' names.
var CollectiveOps = []string{AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv}

// MaxCollectiveNodes and MaxGPUsPerNode bound a CollectiveSpec.
const (
	MaxCollectiveNodes = 1 << 16
	MaxGPUsPerNode     = 64
)

// CollectiveSpec is a collective over Nodes × GPUsPerNode ranks, one GPU
// each, as nccl-tests runs it: the operation (any spelling CollectiveOp
// reads), the NICs of a node, the inter-node path, and what NCCL is left to
// choose.
type CollectiveSpec struct {
	Op          string `json:"op"`
	Nodes       int    `json:"nodes"`
	GPUsPerNode int    `json:"gpus_per_node"`
	// NICsPerNode is how many NICs a node's channels spread over; 0: one
	// per GPU (the rail-optimized DGX/HGX layout).
	NICsPerNode int `json:"nics_per_node"`
	// Algo is NCCL_ALGO: "" or "auto" (NCCL's choice), or one of Algorithms
	// (and "p2p" for all_to_all and send_recv).
	Algo string `json:"algo"`
	// Proto is NCCL_PROTO: "" or "auto", LL, LL128 or Simple.
	Proto string `json:"proto"`
	// Path is the inter-node path: tcp, rdma, gdr or devmem; "" or "nccl":
	// the one NCCL takes by its own rule (Scenario.NCCLPath).
	Path string `json:"path"`
	// Channels is the channels of NCCL's ring graph (the nChannels its
	// tuner multiplies by the per-channel bandwidth); 0: derived from the
	// topology (a closed form of NCCL's search).
	Channels int `json:"channels"`
	// NoPXN is NCCL_PXN_DISABLE=1: all_to_all and send_recv do not go
	// through the GPU next to the remote rail's NIC.
	NoPXN bool `json:"no_pxn"`
}

// CollectiveResult is a collective evaluated at one size: nccl-tests' time,
// algbw and busbw, what sets them, what the node's CPU and DDR do, the
// latency step by step, NCCL's choice and every alternative. Bytes is
// nccl-tests' "size" column (the buffer of all_reduce and broadcast, the
// whole gathered buffer of all_gather, the input of reduce_scatter, a
// rank's whole send buffer of all_to_all).
type CollectiveResult struct {
	Op          string      `json:"op"`
	Bytes       units.Bytes `json:"bytes"`
	Nodes       int         `json:"nodes"`
	GPUsPerNode int         `json:"gpus_per_node"`
	Ranks       int         `json:"ranks"`
	NICsPerNode int         `json:"nics_per_node"`
	// GPUsPerNIC is the GPU:NIC ratio (0 on one node).
	GPUsPerNIC float64 `json:"gpus_per_nic"`
	// Path is the inter-node path evaluated ("" on one node).
	Path  string `json:"path"`
	Algo  string `json:"algo"`
	Proto string `json:"proto"`
	// Channels is the ring graph's channels the tuner used.
	Channels int `json:"channels"`
	// Chosen says how Algo and Proto were picked: "nccl" (NCCL's rule:
	// least estimated time, or for all_to_all and send_recv its LL
	// threshold), "algo" (the algorithm given, NCCL's best protocol for it),
	// "proto" (the protocol given, NCCL's best algorithm), "given" (both).
	Chosen string `json:"chosen"`
	// Time is gpupath's time of the operation: NCCL's latency plus the
	// larger of NCCL's bandwidth term and what the links can carry for
	// the algorithm's traffic. NCCLTime is NCCL's own estimate
	// (ncclTopoGetAlgoTime), by which it chooses.
	Time     units.Seconds `json:"time_s"`
	NCCLTime units.Seconds `json:"nccl_time_s"`
	Latency  units.Seconds `json:"latency_s"`
	// AlgBW = Bytes / Time; BusBW = AlgBW × BusFactor(Op, Ranks), both as
	// nccl-tests defines them.
	AlgBW units.Rate `json:"algbw_Bps"`
	BusBW units.Rate `json:"busbw_Bps"`
	// LinkBusBW is the bus bandwidth the links allow for this algorithm's
	// traffic (no latency, no protocol): BusBW never exceeds it.
	LinkBusBW units.Rate `json:"link_busbw_Bps"`
	// Bottleneck names what sets the bandwidth term: a link (NVLink, PCIe,
	// the inter-node path's own bottleneck: a wire, a PCIe link, CPU cores,
	// DDR) or one of NCCL's protocol ceilings. LatencyBound: the latency is
	// more than half the time.
	Bottleneck   string `json:"bottleneck"`
	LatencyBound bool   `json:"latency_bound"`
	// PXN: the traffic goes through the GPU next to the remote rail's NIC
	// (all_to_all and send_recv across nodes on NVLink).
	PXN bool `json:"pxn"`
	// NetBytesPerNode is what a node sends (and receives) over its NICs;
	// CPUPerNode the CPU time that costs a node (the inter-node path's CPU
	// per byte: proxy posts and polls, the TCP stack), CoresPerNode that
	// over Time; DDRBytesPerNode the node's DDR traffic for it.
	NetBytesPerNode float64       `json:"net_bytes_per_node"`
	CPUPerNode      units.Seconds `json:"cpu_s_per_node"`
	CoresPerNode    float64       `json:"cores_per_node"`
	DDRBytesPerNode float64       `json:"ddr_bytes_per_node"`
	// latSteps are the latency's terms (one slice shared by the results of
	// a call: never changed); plateau, bwTerm and linkExtra the rest of
	// Time. Steps lists them all; the JSON object has them as "steps".
	latSteps                   []CollectiveStep
	plateau, bwTerm, linkExtra units.Seconds
	// NCCL is NCCL's choice on Path; NCCLPath its choice on the path NCCL
	// itself would take (the same when Path is NCCL's).
	NCCL     CollectiveChoice `json:"nccl"`
	NCCLPath CollectiveChoice `json:"nccl_path"`
	// Alternatives lists every algorithm and protocol NCCL weighs for the
	// operation and allows here, with its times; Unavailable those it does
	// not allow, with the reason (one slice shared by every size's result:
	// read, do not change).
	Alternatives []CollectiveOption      `json:"alternatives"`
	Unavailable  []CollectiveUnavailable `json:"unavailable,omitempty"`
	Notes        []string                `json:"notes,omitempty"`
}

// CollectiveChoice is NCCL's pick on one path: the algorithm and protocol
// and gpupath's time for them.
type CollectiveChoice struct {
	Path     string        `json:"path"`
	Why      string        `json:"why,omitempty"`
	Algo     string        `json:"algo"`
	Proto    string        `json:"proto"`
	Time     units.Seconds `json:"time_s"`
	NCCLTime units.Seconds `json:"nccl_time_s"`
	BusBW    units.Rate    `json:"busbw_Bps"`
}

// CollectiveOption is one algorithm and protocol NCCL allows, at one
// size: gpupath's time, NCCL's estimate and the bus bandwidth (algbw is
// the size over Time).
type CollectiveOption struct {
	Algo     string        `json:"algo"`
	Proto    string        `json:"proto"`
	Time     units.Seconds `json:"time_s"`
	NCCLTime units.Seconds `json:"nccl_time_s"`
	BusBW    units.Rate    `json:"busbw_Bps"`
}

// CollectiveUnavailable is an algorithm and protocol NCCL weighs for the
// operation but does not allow here, and why.
type CollectiveUnavailable struct {
	Algo   string `json:"algo"`
	Proto  string `json:"proto"`
	Reason string `json:"reason"`
}

// CollectiveStep is one term of a collective's time: a latency (Count
// steps of Each) or the bandwidth term.
type CollectiveStep struct {
	Name  string        `json:"name"`
	Count float64       `json:"count"`
	Each  units.Seconds `json:"each_s"`
	Time  units.Seconds `json:"time_s"`
	What  string        `json:"what"`
}

// CollectiveModel evaluates the collective c at every size on s, as
// NCCL's cost model (src/graph/tuning.cc at NVIDIA/nccl 5067397c) prices
// it, with the links' bandwidths and the inter-node step's latency taken
// from gpupath's model of the path (see nccl_tuning.go for the departures).
// One result per size, in order. It is s.Collectives().Model(c, sizes);
// for many collectives on one scenario, prepare it once with Collectives.
func (s *Scenario) CollectiveModel(c CollectiveSpec, sizes []units.Bytes) ([]CollectiveResult, error) {
	return s.Collectives().Model(c, sizes)
}

// Collectives is a scenario prepared for the collective model: its GPU's
// compute capability and each inter-node path's network step (rate per
// NIC, latency, CPU and DDR per byte) evaluated once, so that a sweep of
// many operations, node counts and sizes does only NCCL's arithmetic. It
// holds a copy of the scenario: later changes to s do not reach it. It is
// safe for concurrent use.
type Collectives struct {
	s      *Scenario
	cc     int
	ccWhy  string
	paths  map[string]pathLinks
	errs   map[string]error
	refLat units.Seconds
	refWhy string
	ccNote string
}

// pathLinks is one inter-node path's network step under NCCL: what a NIC
// carries each way with the node sending and receiving at once, the
// step's latency and its excess over GPUDirect RDMA, and the CPU time and
// DDR bytes per byte a node sends (and receives as much).
type pathLinks struct {
	nic          units.Rate
	nicWhy       string
	pathLat      units.Seconds
	latencyInter units.Seconds
	cpuPerByte   float64
	ddrPerByte   float64
	unpack       bool
	note         string
}

// Collectives prepares s for the collective model (see Collectives).
func (s *Scenario) Collectives() *Collectives {
	s = s.Clone()
	cs := &Collectives{s: s, paths: map[string]pathLinks{}, errs: map[string]error{}}
	cs.cc, cs.ccWhy = s.ComputeCapability()
	cs.ccNote = "NCCL's tables for compute capability " + formatCC(cs.cc) + " (" + cs.ccWhy + ")"
	cs.refLat, cs.refWhy = s.gdrReferenceLatency()
	for _, p := range CollectivePaths {
		rt, err := s.NCCLRoute(p)
		if err == nil && !rt.Feasible {
			err = fmt.Errorf("the inter-node path %s is infeasible here: %s", p, rt.Reason)
		}
		if err != nil {
			cs.errs[p] = err
			continue
		}
		chunk := s.Pipeline.Chunk
		nic, why := rt.Bidirectional(chunk)
		e := rt.Evaluate(chunk)
		pl := pathLinks{nic: nic, nicWhy: why, pathLat: rt.Evaluate(8).Latency, unpack: p == "devmem", note: rt.Note,
			cpuPerByte: float64(e.CPUSender+e.CPUReceiver) / float64(chunk), ddrPerByte: e.DDRBytes / float64(chunk)}
		pl.latencyInter = max(0, pl.pathLat-cs.refLat)
		cs.paths[p] = pl
	}
	return cs
}

// Scenario is the scenario cs models (a copy: do not change it).
func (cs *Collectives) Scenario() *Scenario { return cs.s }

// ComputeCapability is the compute capability the model uses and its source.
func (cs *Collectives) ComputeCapability() (int, string) { return cs.cc, cs.ccWhy }

// Model evaluates the collective c at every size (see
// Scenario.CollectiveModel).
func (cs *Collectives) Model(c CollectiveSpec, sizes []units.Bytes) ([]CollectiveResult, error) {
	c, err := c.normalize()
	if err != nil {
		return nil, err
	}
	s := cs.s
	asked, why := c.Path, ""
	ncclPath, ncclWhy := s.ncclPath(c.GPUsPerNode, cs.cc)
	if c.Nodes == 1 {
		asked, why, ncclPath, ncclWhy = "", "one node: no network", "", "one node: no network"
	} else if asked == "" {
		asked, why = ncclPath, ncclWhy
	}
	m, err := cs.prepare(c, asked)
	if err != nil {
		return nil, err
	}
	m.pathWhy = why
	if err := m.checkChoice(); err != nil {
		return nil, err
	}
	var mn *collModel
	var ncclErr error
	if ncclPath != asked {
		if mn, ncclErr = cs.prepare(c, ncclPath); ncclErr == nil {
			mn.pathWhy = ncclWhy
		}
	}
	out := make([]CollectiveResult, len(sizes))
	tmpl, unavailable := m.optionTemplates()
	nopt := len(tmpl)
	backing := make([]CollectiveOption, len(sizes)*nopt)
	for i, n := range sizes {
		alts := backing[i*nopt : (i+1)*nopt : (i+1)*nopt]
		copy(alts, tmpl)
		m.result(&out[i], n, alts)
		out[i].Unavailable = unavailable
		switch {
		case ncclErr != nil:
			out[i].NCCLPath = CollectiveChoice{Path: ncclPath, Why: ncclWhy + "; but here: " + ncclErr.Error()}
		case mn != nil:
			out[i].NCCLPath = mn.choice(n)
		default:
			out[i].NCCLPath = out[i].NCCL
			if c.Nodes > 1 {
				out[i].NCCLPath.Why = ncclWhy
			}
		}
	}
	return out, nil
}

// normalize checks c and fills its defaults.
func (c CollectiveSpec) normalize() (CollectiveSpec, error) {
	op, ok := CollectiveOp(c.Op)
	if !ok || !containsString(CollectiveOps, op) {
		return c, fmt.Errorf("collective %q is not one of %s", c.Op, strings.Join(CollectiveOps, ", "))
	}
	c.Op = op
	switch {
	case c.Nodes < 1 || c.Nodes > MaxCollectiveNodes:
		return c, fmt.Errorf("%d nodes: out of range [1, %d]", c.Nodes, MaxCollectiveNodes)
	case c.GPUsPerNode < 1 || c.GPUsPerNode > MaxGPUsPerNode:
		return c, fmt.Errorf("%d GPUs per node: out of range [1, %d]", c.GPUsPerNode, MaxGPUsPerNode)
	case c.Nodes*c.GPUsPerNode < 2:
		return c, fmt.Errorf("%d node × %d GPU: a collective needs at least two ranks", c.Nodes, c.GPUsPerNode)
	case c.NICsPerNode < 0 || c.NICsPerNode > 4*MaxGPUsPerNode:
		return c, fmt.Errorf("%d NICs per node: out of range [0, %d] (0: one per GPU)", c.NICsPerNode, 4*MaxGPUsPerNode)
	case c.Channels < 0 || c.Channels > ncclMaxChannels:
		return c, fmt.Errorf("%d channels: out of range [0, %d] (0: from the topology)", c.Channels, ncclMaxChannels)
	}
	if c.NICsPerNode == 0 {
		c.NICsPerNode = c.GPUsPerNode
	}
	c.Algo = strings.ToLower(strings.TrimSpace(c.Algo))
	if c.Algo == "" {
		c.Algo = AlgoAuto
	}
	p2p := c.Op == AllToAll || c.Op == SendRecv
	switch {
	case c.Algo == AlgoAuto:
	case p2p && c.Algo != AlgoP2P:
		return c, fmt.Errorf("algorithm %q: %s is send/receive pairs (algorithm %s), not one of NCCL's collective algorithms", c.Algo, c.Op, AlgoP2P)
	case !p2p && !containsString(Algorithms, c.Algo):
		return c, fmt.Errorf("algorithm %q is not one of auto, %s", c.Algo, strings.Join(Algorithms, ", "))
	}
	c.Proto = strings.TrimSpace(c.Proto)
	if c.Proto == "" || strings.EqualFold(c.Proto, AlgoAuto) {
		c.Proto = AlgoAuto
	} else {
		i, err := protoIndex(c.Proto)
		if err != nil {
			return c, err
		}
		c.Proto = Protocols[i]
	}
	c.Path = strings.TrimSpace(c.Path)
	if strings.EqualFold(c.Path, "nccl") || strings.EqualFold(c.Path, AlgoAuto) {
		c.Path = ""
	}
	if c.Path != "" && !containsString(CollectivePaths, c.Path) {
		return c, fmt.Errorf("path %q is not an inter-node path of a collective (%s, or nccl for NCCL's own)", c.Path, strings.Join(CollectivePaths, ", "))
	}
	return c, nil
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// collLinks are the links of a collective on one path: one GPU's link to
// its peers inside the node, the node's NICs across the network (the
// path's bandwidth per NIC with the node sending and receiving at once,
// times the NICs, within what the node's DDR, cores and GPU links carry),
// and the network step's excess latency and CPU and DDR costs.
type collLinks struct {
	path              string
	intra             units.Rate // one GPU's NVLink (or PCIe peer) rate, per direction; 0 for one GPU per node
	intraWhat         string
	nic               units.Rate // one NIC's rate per direction, the node sending and receiving (the path model)
	nicWhat           string
	net               units.Rate // the node's NICs together
	netWhat           string
	pathLat, refLat   units.Seconds
	latencyInter      units.Seconds // max(0, pathLat − refLat)
	cpuPerByte        float64       // CPU seconds per byte a node sends (and receives as much)
	ddrPerByte        float64       // DDR bytes per byte a node sends (and receives)
	unpack            bool          // devmem: a net device that unpacks (NCCL_NET_DEVICE_UNPACK)
	routeNote, refWhy string
}

// links are c's links on path: the GPU's link to its peers and, across
// nodes, the path's network step times the NICs, within what the node's
// DDR, cores and GPU links carry.
func (cs *Collectives) links(c CollectiveSpec, path string) (collLinks, error) {
	s := cs.s
	l := collLinks{path: path}
	g := c.GPUsPerNode
	if g > 1 {
		if s.GPU.NVLinkRate > 0 {
			l.intra = s.NVLinkCopyRate()
			l.intraWhat = "NVLink (gpu.nvlink_rate × gpu.nvlink_efficiency)"
		} else {
			l.intra = s.GPUPeerRate()
			l.intraWhat = "PCIe peer-to-peer between GPUs (topology.gpu_gpu " + string(s.Topology.GPUGPU) + ")"
		}
	}
	if c.Nodes == 1 {
		return l, nil
	}
	if err := cs.errs[path]; err != nil {
		return l, err
	}
	pl := cs.paths[path]
	l.routeNote, l.unpack = pl.note, pl.unpack
	l.nic, l.nicWhat = pl.nic, pl.nicWhy
	l.cpuPerByte, l.ddrPerByte = pl.cpuPerByte, pl.ddrPerByte
	l.pathLat, l.refLat, l.refWhy, l.latencyInter = pl.pathLat, cs.refLat, cs.refWhy, pl.latencyInter
	k := c.NICsPerNode
	l.net = pl.nic * units.Rate(k)
	l.netWhat = "the node's NICs on " + path + " (NICs × the path's rate per NIC, sending and receiving at once: " + pl.nicWhy + ")"
	if l.ddrPerByte > 0 {
		if capDDR := units.Rate(float64(s.Memory.Rate) / l.ddrPerByte); capDDR < l.net {
			l.net, l.netWhat = capDDR, "the node's DDR (memory.rate over the DDR bytes "+path+" moves per byte)"
		}
	}
	if l.cpuPerByte > 0 {
		if capCPU := units.Rate(float64(s.CPU.Cores) / l.cpuPerByte); capCPU < l.net {
			l.net, l.netWhat = capCPU, "the node's cores (cpu.cores over the CPU time "+path+" costs per byte)"
		}
	}
	if capGPU := s.gpuLinkRate() * units.Rate(s.PCIe.BidirFactor*float64(g)); capGPU < l.net {
		l.net, l.netWhat = capGPU, "the GPUs' PCIe links (more NICs than the GPUs feed)"
	}
	if e := s.NCCL.NetEfficiency; e > 0 && e < 1 {
		l.net = units.Rate(float64(l.net) * e)
		l.netWhat += fmt.Sprintf(", × nccl.net_efficiency %.3g (the share NCCL's traffic reaches)", e)
	}
	return l, nil
}

// gdrReferenceLatency is the one-way latency at 8 B of GPUDirect RDMA under
// NCCL on the same NIC, wire and switches: what NCCL's network latencies
// (hwLatencies NET, measured over its IB transport, whose latencyInter is
// 0) already hold. Without RDMA on the NIC it is the gdr path of the same
// scenario with RDMA (RoCE on Ethernet); where even that cannot be, NCCL's
// ring LL network step (2.7 µs).
func (s *Scenario) gdrReferenceLatency() (units.Seconds, string) {
	ref := s
	what := "gdr under NCCL on this NIC"
	if s.noRDMA() != "" && s.NIC.Kind != KindLoopback {
		ref = s.Clone()
		ref.NIC.RDMA = true
		if ref.NIC.Kind == KindEthernet {
			ref.NIC.Kind = KindRoCE
		}
		what = "gdr under NCCL on this NIC were it to do RDMA"
	}
	if rt, err := ref.NCCLRoute("gdr"); err == nil && rt.Feasible {
		return rt.Evaluate(8).Latency, what
	}
	return units.Seconds(ncclHwLat[hwNet][aRing][pLL] * 1e-6), "NCCL's ring LL network step (hwLatencies NET, 2.7 µs)"
}

// ncclChannels is a closed form of NCCL's topology search for the ring
// graph (ncclTopoCompute, src/graph/search.cc) and what it makes of the
// communicator's channels (src/graph/connect.cc): the per-channel speed is
// the fastest of NCCL's speed array that one GPU's path allows (to its NIC
// across nodes, over its NVLink inside one); as many channels as the NICs
// (or the NVLink) carry at that speed, at most MAXCHANNELS/2; doubled by
// ncclTopoDupChannels from 25 GB/s per channel (not from compute
// capability 8.0 on below 50 GB/s with more than 4 channels). The
// communicator runs twice the graph's channels (connectRings), twice again
// across nodes from Hopper above 45 GB/s per channel below 16, and twice
// again over an unpacking network device (devmem) below 16 (connect.cc).
// It returns the graph's channels (the tuner's nChannels) and the
// communicator's.
func ncclChannels(cc int, c CollectiveSpec, l collLinks) (graph, comm int, speed float64) {
	gbps := func(r units.Rate) float64 { return float64(r) / 1e9 }
	inter := c.Nodes > 1
	sp := ncclSpeeds(cc, inter)
	var maxBw, total float64
	if inter {
		maxBw = gbps(l.nic)
		if c.GPUsPerNode > 1 {
			maxBw = math.Min(maxBw, gbps(l.intra))
		}
	} else {
		maxBw, total = gbps(l.intra), gbps(l.intra)
	}
	speed = sp[len(sp)-1]
	for _, v := range sp {
		if v <= maxBw {
			speed = v
			break
		}
	}
	if inter {
		perNIC := max(1, int(math.Floor(gbps(l.nic)/speed)))
		graph = c.NICsPerNode * perNIC
		if c.GPUsPerNode > 1 {
			graph = min(graph, max(1, int(math.Floor(gbps(l.intra)*float64(c.GPUsPerNode)/float64(c.GPUsPerNode-1)/speed))))
		}
	} else {
		graph = max(1, int(math.Floor(total/speed)))
	}
	graph = min(graph, ncclMaxChannels/2)
	if speed >= 25 && !(cc > 80 && speed < 50 && graph > 4) {
		graph = min(2*graph, ncclMaxChannels/2)
		speed /= 2
	}
	if c.Channels > 0 {
		graph = c.Channels
	}
	comm = min(ncclMaxChannels, 2*graph)
	if cc >= 90 && inter && speed > 45 && comm < 16 {
		comm *= 2
	}
	if l.unpack && inter && comm < 16 {
		comm *= 2
	}
	return graph, comm, speed
}

// collModel is one collective prepared on one path: NCCL's tables, the
// links and the traffic of every algorithm, ready to be evaluated at any
// size.
type collModel struct {
	s       *Scenario
	spec    CollectiveSpec
	path    string
	pathWhy string
	links   collLinks
	comm    ncclComm
	tuned   ncclTuned
	p2p     bool
	// options are the (algorithm, protocol) pairs NCCL weighs for the
	// operation, in NCCL's order.
	options []collPair
	notes   []string
	// busFactor is BusFactor(Op, ranks); cache holds each option's texts
	// and latency terms, made the first time a result selects it.
	busFactor float64
	cache     []optCache
	scratch   []evalPair // one size's evaluations, reused (a collModel serves one goroutine)
}

// optCache is what an option's result says at every size: its bottleneck,
// the links' bus bandwidth and its latency terms (without the plateau).
type optCache struct {
	done       bool
	linkBusBW  units.Rate
	bottleneck string
	capWhy     string
	latSteps   []CollectiveStep
}

type collPair struct {
	a, p   int    // indices; a = -1 for p2p
	algo   string // name
	reason string // not allowed (on this scenario, for this spec)
	// the traffic of the algorithm per byte of Bytes: per GPU and
	// direction inside the node, per node and direction over the NICs.
	fIntra, fNet float64
	netCap       units.Rate // the NICs' rate this traffic may use (send_recv: one GPU's NICs)
	// linkPerByte is the links' time per byte of the operation:
	// max(fIntra/intra, fNet/netCap).
	linkPerByte float64
	// nt is NCCL's time for the pair, prepared.
	nt ncclTime
}

// setLinks computes every option's linkPerByte.
func (m *collModel) setLinks() {
	for i := range m.options {
		o := &m.options[i]
		var t float64
		if o.fIntra > 0 && m.links.intra > 0 {
			t = o.fIntra / float64(m.links.intra)
		}
		if o.fNet > 0 && o.netCap > 0 {
			t = math.Max(t, o.fNet/float64(o.netCap))
		}
		o.linkPerByte = t
	}
}

// prepare builds c's model on path ("" for one node).
func (cs *Collectives) prepare(c CollectiveSpec, path string) (*collModel, error) {
	s := cs.s
	m := &collModel{s: s, spec: c, path: path, p2p: c.Op == AllToAll || c.Op == SendRecv}
	cc := cs.cc
	l, err := cs.links(c, path)
	if err != nil {
		return nil, err
	}
	m.links = l
	m.notes = append(m.notes, cs.ccNote)
	if m.p2p {
		m.notes = append(m.notes, "NCCL does not price send/receive (its tuner covers five collectives): the time is gpupath's model from NCCL's constants, the protocol NCCL's rule (LL up to 16 KiB a peer)")
	}
	if l.routeNote != "" {
		m.notes = append(m.notes, l.routeNote)
	}
	g, n := c.GPUsPerNode, c.Nodes
	graphCh, commCh, _ := ncclChannels(cc, c, l)
	fam := s.CPU.Family
	cm := ncclComm{nRanks: n * g, nNodes: n, ppn: g, cc: cc, ccIdx: ncclCompCapIndex(cc),
		amd: fam == FamilyAMD, power: fam == FamilyPower9, x86: fam != FamilyARM && fam != FamilyPower9,
		nvlink: s.GPU.NVLinkRate > 0 && g > 1, netOverhead: float64(s.NCCL.NetOverhead) * 1e6,
		latencyInter: float64(l.latencyInter) * 1e6, commChannels: commCh, treePattern: g == 1,
		nvs: s.Topology.NVSwitch && g > 1, collnet: s.Network.SHARP && n > 1, collnetHeads: min(c.NICsPerNode, g),
		pat: cc >= 60 && n*g == n && !l.unpack}
	cm.nvls = cm.nvs && cc >= 90 && ncclNVLSEfficiency[cm.ccIdx] > 0
	cm.typeIntra, cm.typeInter = pathLOC, pathPIX
	if g > 1 {
		cm.typeIntra = pathNVL
		if s.GPU.NVLinkRate <= 0 {
			cm.typeIntra = ncclPathType(s.Topology.GPUGPU)
		}
	}
	if n > 1 {
		cm.typeInter = ncclPathType(s.Topology.GPUNIC)
	}
	// Per-channel bandwidths, GB/s: the links' rates over the channels.
	gb := func(r units.Rate) float64 { return float64(r) / 1e9 }
	inf := math.Inf(1)
	intra, intraRing, intraNVLS := inf, inf, inf
	if g > 1 {
		intra = gb(l.intra)
		intraRing = intra
		if n > 1 && s.GPU.NVLinkRate > 0 {
			// Each GPU forwards (G−1)/G of the channels over NVLink: the
			// others leave the node over the NICs, which PCIe carries. Over
			// PCIe peer-to-peer the GPU's one link carries both.
			intraRing = intra * float64(g) / float64(g-1)
		}
		intraNVLS = intra * float64(g) / float64(g-1)
	}
	net := inf
	if n > 1 {
		net = gb(l.net)
	}
	ring := math.Min(intraRing, net) / float64(graphCh)
	cm.graphs[aRing] = ncclGraph{graphCh, ring, ring}
	tree := ncclGraph{graphCh, math.Min(intra, 2*net) / float64(graphCh), math.Min(intra, net) / float64(graphCh)}
	if n == 1 {
		tree.bwIntra, tree.bwInter = intra/float64(graphCh), intra/float64(graphCh)
	}
	cm.graphs[aTree], cm.graphs[aPAT], cm.graphs[aCollNetChain] = tree, tree, tree
	heads := min(c.NICsPerNode, g, ncclMaxDirectArity+1)
	cm.graphs[aCollNetDirect] = ncclGraph{heads, math.Min(intra, 2*net) / float64(heads), math.Min(intra, net) / float64(heads)}
	nvHeads := min(g, ncclMaxNVLSArity)
	if n > 1 {
		nvHeads = min(c.NICsPerNode, g)
	}
	nv := ncclGraph{nvHeads, intraNVLS / float64(nvHeads), intraNVLS / float64(nvHeads)}
	if n > 1 {
		nv.bwInter = net / float64(nvHeads)
	}
	cm.graphs[aNVLS], cm.graphs[aNVLSTree] = nv, nv
	m.comm = cm
	m.busFactor = busFactorOf(c.Op, n*g)
	if m.p2p {
		m.buildP2P()
		m.setLinks()
		m.cache = make([]optCache, len(m.options))
		m.scratch = make([]evalPair, len(m.options))
		return m, nil
	}
	cm.fn = ncclFuncOf(c.Op)
	m.comm.fn = cm.fn
	m.tuned = m.comm.tune()
	m.options = make([]collPair, 0, nAlgos*nProtos)
	for a := 0; a < nAlgos; a++ {
		if ncclConsidered(cm.fn, a) != "" {
			continue
		}
		fi, fn := m.traffic(a)
		for p := 0; p < nProtos; p++ {
			m.options = append(m.options, collPair{a: a, p: p, algo: Algorithms[a], reason: m.tuned.why[a][p], fIntra: fi, fNet: fn, netCap: l.net,
				nt: m.comm.timeOf(&m.tuned, a, p)})
		}
	}
	m.setLinks()
	m.cache = make([]optCache, len(m.options))
	m.scratch = make([]evalPair, len(m.options))
	return m, nil
}

// busFactorOf is BusFactor's factor without its formula's text.
func busFactorOf(op string, n int) float64 {
	for _, b := range busFactors {
		if b.op == op {
			return b.factor(float64(n))
		}
	}
	return 1
}

func ncclFuncOf(op string) int {
	switch op {
	case Broadcast:
		return fBroadcast
	case Reduce:
		return fReduce
	case AllGather:
		return fAllGather
	case ReduceScatter:
		return fReduceScatter
	}
	return fAllReduce
}

// traffic is algorithm a's bytes per byte of the operation's size: per GPU
// and direction on its intra-node link, per node and direction over its
// NICs. A ring moves 2(R−1)/R of the buffer over every hop of an
// all-reduce ((R−1)/R of an all-gather or reduce-scatter, all of it for a
// broadcast or reduce), each GPU forwarding (G−1)/G of the channels over
// NVLink when the ring leaves the node (over PCIe peer-to-peer all of them:
// the NIC's hop crosses the same PCIe link); a double binary tree moves the
// buffer once each way over a node's NICs on two nodes and twice on more
// (an inner node of one tree takes two children's halves and feeds two:
// S/2·2 + S/2 + S/2 each way), and once each way over each GPU's link; NVLS
// passes S(1 + 1/G) each way through a GPU's NVLink to the switch for an
// all-reduce (its shard's reductions and its broadcast), S for an
// all-gather or reduce-scatter; CollNet sends the node's buffer into the
// network once and gets the result once.
func (m *collModel) traffic(a int) (fIntra, fNet float64) {
	c := m.spec
	r, n, g := float64(c.Nodes*c.GPUsPerNode), c.Nodes, float64(c.GPUsPerNode)
	fn := m.comm.fn
	ring := 2 * (r - 1) / r
	switch fn {
	case fAllGather, fReduceScatter:
		ring = (r - 1) / r
	case fBroadcast, fReduce:
		ring = 1
	}
	treeNet := 2.0
	if n <= 2 {
		treeNet = 1
	}
	switch a {
	case aRing:
		fIntra, fNet = ring, ring
		if n > 1 && m.s.GPU.NVLinkRate > 0 {
			fIntra = ring * (g - 1) / g // the boundary GPU's hop leaves by PCIe and the NIC
		}
	case aTree:
		fIntra, fNet = 1, treeNet
	case aPAT:
		fNet = ring
	case aNVLS, aNVLSTree:
		fIntra = 1 + 1/g
		if fn != fAllReduce {
			fIntra = 1
		}
		fNet = treeNet
		if a == aNVLS {
			fNet = 1
			if fn != fAllReduce {
				fNet = float64(n-1) / float64(n)
			}
		}
	case aCollNetDirect, aCollNetChain:
		fIntra, fNet = 1, 1
		if fn != fAllReduce {
			fIntra, fNet = (g-1)/g, float64(n-1)/float64(n)
		}
	}
	if g == 1 {
		fIntra = 0
	}
	if n == 1 {
		fNet = 0
	}
	return fIntra, fNet
}

// checkChoice refuses a spec whose algorithm or protocol is never allowed
// here, with the reasons.
func (m *collModel) checkChoice() error {
	c := m.spec
	var why []string
	for _, o := range m.options {
		if (c.Algo != AlgoAuto && o.algo != c.Algo) || (c.Proto != AlgoAuto && Protocols[o.p] != c.Proto) {
			continue
		}
		if o.reason == "" {
			return nil
		}
		why = append(why, fmt.Sprintf("%s/%s: %s", o.algo, Protocols[o.p], o.reason))
	}
	if len(why) == 0 {
		return fmt.Errorf("%s has no algorithm %s with protocol %s", c.Op, c.Algo, c.Proto)
	}
	return errors.New("no allowed algorithm and protocol: " + strings.Join(why, "; "))
}

// evalPair is one pair at n bytes: gpupath's time, NCCL's estimate, the
// latency, NCCL's bandwidth term and the links' time.
type evalPair struct {
	time, ncclTime, lat, bwTerm, linkTime units.Seconds
}

func (m *collModel) eval(o *collPair, n units.Bytes) evalPair {
	if m.p2p {
		return m.evalP2P(*o, n)
	}
	lat, bwTerm := o.nt.at(n)
	e := evalPair{lat: units.Seconds(lat), bwTerm: units.Seconds(bwTerm), linkTime: units.Seconds(float64(n) * o.linkPerByte)}
	e.ncclTime = e.lat + e.bwTerm
	e.time = e.lat + max(e.bwTerm, e.linkTime)
	return e
}

// linkTime is the time the links need for o's traffic of x bytes.
func (m *collModel) linkTime(o collPair, x float64) units.Seconds {
	return units.Seconds(x * o.linkPerByte)
}

// linkBusBW is the bus bandwidth the links allow o (nccl-tests' busbw at
// the links' time).
func (m *collModel) linkBusBW(o collPair) (units.Rate, string) {
	const x = 1 << 30
	t := m.linkTime(o, x)
	if t <= 0 {
		return units.Rate(math.Inf(1)), "nothing"
	}
	f := m.busFactor
	var what string
	intraT := 0.0
	if o.fIntra > 0 && m.links.intra > 0 {
		intraT = o.fIntra * x / float64(m.links.intra)
	}
	if intraT >= float64(t)*(1-1e-12) {
		what = "intra-node " + m.links.intraWhat
	} else if o.netCap == m.links.net {
		what = "inter-node " + m.links.netWhat
	} else {
		what = fmt.Sprintf("inter-node: one GPU's NIC(s), %s", o.netCap.Human())
	}
	return units.Rate(f * x / float64(t)), what
}

// choose is NCCL's pick among the allowed pairs that match algo and proto
// ("auto" for any): the least NCCL estimate (topoGetAlgoInfo; for p2p its
// LL threshold). It returns -1 when none matches.
func (m *collModel) choose(n units.Bytes, algo, proto string, evals []evalPair) int {
	best := -1
	anyAlgo, anyProto := algo == AlgoAuto, proto == AlgoAuto
	if m.p2p {
		want := m.p2pProto(n)
		for i := range m.options {
			o := &m.options[i]
			if o.reason != "" || (!anyProto && Protocols[o.p] != proto) {
				continue
			}
			if best < 0 || (anyProto && o.p == want) {
				best = i
			}
		}
		return best
	}
	for i := range m.options {
		o := &m.options[i]
		if o.reason != "" || (!anyAlgo && o.algo != algo) || (!anyProto && Protocols[o.p] != proto) {
			continue
		}
		if best < 0 || evals[i].ncclTime < evals[best].ncclTime {
			best = i
		}
	}
	return best
}

// evals evaluates every pair at n.
func (m *collModel) evals(n units.Bytes, buf []evalPair) []evalPair {
	for i := range m.options {
		if o := &m.options[i]; o.reason == "" {
			buf[i] = m.eval(o, n)
		} else {
			buf[i] = evalPair{}
		}
	}
	return buf
}

// choice is NCCL's own choice at n on this model's path.
func (m *collModel) choice(n units.Bytes) CollectiveChoice {
	n = max(n, 1)
	ev := m.evals(n, m.scratch)
	i := m.choose(n, AlgoAuto, AlgoAuto, ev)
	ch := CollectiveChoice{Path: m.path, Why: m.pathWhy}
	if i < 0 {
		return ch
	}
	o := m.options[i]
	ch.Algo, ch.Proto, ch.Time, ch.NCCLTime = o.algo, Protocols[o.p], ev[i].time, ev[i].ncclTime
	f := m.busFactor
	ch.BusBW = units.Rate(f * float64(n) / float64(ev[i].time))
	return ch
}

// optionTemplates are the allowed alternatives' names (in the order of
// m.options) and the options not allowed, with their reasons: no size
// changes them.
func (m *collModel) optionTemplates() (allowed []CollectiveOption, not []CollectiveUnavailable) {
	for _, o := range m.options {
		if o.reason == "" {
			allowed = append(allowed, CollectiveOption{Algo: o.algo, Proto: Protocols[o.p]})
		} else {
			not = append(not, CollectiveUnavailable{Algo: o.algo, Proto: Protocols[o.p], Reason: o.reason})
		}
	}
	return allowed, not
}

// result evaluates at n into r: alts holds the option templates.
func (m *collModel) result(r *CollectiveResult, n units.Bytes, alts []CollectiveOption) {
	n = max(n, 1)
	c := m.spec
	ev := m.evals(n, m.scratch)
	ranks := c.Nodes * c.GPUsPerNode
	f := m.busFactor
	k := 0
	for i, o := range m.options {
		if o.reason == "" {
			t := ev[i].time
			alts[k].Time, alts[k].NCCLTime = t, ev[i].ncclTime
			alts[k].BusBW = units.Rate(f * float64(n) / float64(t))
			k++
		}
	}
	*r = CollectiveResult{Op: c.Op, Bytes: n, Nodes: c.Nodes, GPUsPerNode: c.GPUsPerNode, Ranks: ranks, NICsPerNode: c.NICsPerNode,
		Path: m.path, Channels: m.comm.graphs[aRing].nChannels, Alternatives: alts}
	if c.Nodes == 1 {
		r.NICsPerNode = 0
	} else {
		r.GPUsPerNIC = float64(c.GPUsPerNode) / float64(c.NICsPerNode)
	}
	nc := m.choose(n, AlgoAuto, AlgoAuto, ev)
	sel := m.choose(n, c.Algo, c.Proto, ev)
	switch {
	case c.Algo == AlgoAuto && c.Proto == AlgoAuto:
		r.Chosen = "nccl"
	case c.Proto == AlgoAuto:
		r.Chosen = "algo"
	case c.Algo == AlgoAuto:
		r.Chosen = "proto"
	default:
		r.Chosen = "given"
	}
	if nc >= 0 {
		o := m.options[nc]
		r.NCCL = CollectiveChoice{Path: m.path, Why: m.pathWhy, Algo: o.algo, Proto: Protocols[o.p], Time: ev[nc].time, NCCLTime: ev[nc].ncclTime,
			BusBW: units.Rate(f * float64(n) / float64(ev[nc].time))}
	}
	if sel < 0 { // checkChoice refused such specs
		return
	}
	o, e := m.options[sel], ev[sel]
	r.Algo, r.Proto = o.algo, Protocols[o.p]
	r.Time, r.NCCLTime, r.Latency = e.time, e.ncclTime, e.lat
	r.AlgBW = units.Rate(float64(n) / float64(e.time))
	r.BusBW = r.AlgBW * units.Rate(f)
	oc := m.optCached(sel)
	r.LinkBusBW, r.Bottleneck = oc.linkBusBW, oc.bottleneck
	if !m.p2p && e.linkTime <= e.bwTerm && oc.capWhy != "" {
		r.Bottleneck = oc.capWhy
	}
	r.LatencyBound = e.lat > e.time/2
	r.PXN = m.p2p && m.pxn()
	r.NetBytesPerNode = o.fNet * float64(n)
	r.CPUPerNode = units.Seconds(r.NetBytesPerNode * m.links.cpuPerByte)
	r.CoresPerNode = float64(r.CPUPerNode) / float64(e.time)
	r.DDRBytesPerNode = r.NetBytesPerNode * m.links.ddrPerByte
	r.latSteps = oc.latSteps
	var lat units.Seconds
	for _, x := range oc.latSteps {
		lat += x.Time
	}
	if d := e.lat - lat; d > e.lat*1e-9 {
		r.plateau = d
	}
	r.bwTerm = e.bwTerm
	if e.linkTime > e.bwTerm {
		r.linkExtra = e.linkTime - e.bwTerm
	}
	r.Notes = m.notes
}

// optCached fills option i's cache the first time it is asked.
func (m *collModel) optCached(i int) *optCache {
	oc := &m.cache[i]
	if !oc.done {
		o := m.options[i]
		oc.linkBusBW, oc.bottleneck = m.linkBusBW(o)
		oc.capWhy = m.capWhy(o)
		oc.latSteps = m.latSteps(o)
		oc.done = true
	}
	return oc
}

// capWhy names NCCL's protocol ceiling that bounds o, or "" when the links'
// rate (with the protocol's fraction) does.
func (m *collModel) capWhy(o collPair) string {
	if m.p2p || !m.tuned.cappedBusBw[o.a][o.p] {
		return ""
	}
	t := &m.tuned
	ch := float64(m.comm.graphs[o.a].nChannels)
	gbs := func(x float64) string { return units.Rate(x * 1e9).Human() }
	switch {
	case o.p == pLL:
		return fmt.Sprintf("NCCL's LL ceiling (llMaxBws, tuning.cc): %s of bus bandwidth", gbs(t.busBw[o.a][o.p]))
	case o.a == aRing && o.p == pLL128:
		return fmt.Sprintf("NCCL's LL128 ring ceiling (perChMaxRingLL128Bws, tuning.cc): %d channels × %s", int(ch), gbs(t.busBw[o.a][o.p]/ch))
	case o.a == aTree && o.p == pLL128:
		return fmt.Sprintf("NCCL's LL128 tree ceiling (perChMaxTreeLL128Bws, tuning.cc): %d channels × %s", int(ch), gbs(t.busBw[o.a][o.p]/ch))
	case o.a == aTree:
		return fmt.Sprintf("NCCL's tree ceiling (perChMaxTreeBws, tuning.cc): %d channels × %s", int(ch), gbs(t.busBw[o.a][o.p]/ch))
	case o.a == aNVLSTree:
		return fmt.Sprintf("NCCL's NVLS Tree ceiling (perChMaxNVLSTreeBws, tuning.cc): %s of bus bandwidth", gbs(t.busBw[o.a][o.p]))
	}
	return ""
}

// latSteps are o's latency terms but the ring plateau.
func (m *collModel) latSteps(o collPair) []CollectiveStep {
	us := func(x float64) units.Seconds { return units.Seconds(x * 1e-6) }
	var st []CollectiveStep
	add := func(name string, count float64, each units.Seconds, what string) {
		if count == 0 || each == 0 {
			return
		}
		st = append(st, CollectiveStep{Name: name, Count: count, Each: each, Time: units.Seconds(count) * each, What: what})
	}
	if m.p2p {
		return m.p2pLatSteps(o)
	}
	a, p := o.a, o.p
	t := &m.tuned
	li := m.links.latencyInter
	add("base latency", 1, us(ncclBaseLat[a][p]), "NCCL's baseLatencies of the algorithm and protocol (tuning.cc): the kernel's launch and bookkeeping")
	intraName := "intra-node step"
	switch {
	case a == aRing && (m.comm.fn == fBroadcast || m.comm.fn == fReduce):
		intraName = "pipeline step"
	case a == aNVLS || a == aNVLSTree:
		intraName = "NVLS multicast step"
	}
	add(intraName, float64(t.intraSteps[a]), us(t.intraLat[a][p]), "hwLatencies of the node's link (NVLink or PCI; the network's for a broadcast or reduce across nodes), at least getNetOverhead (×3 for Simple) in an inter-node ring")
	if a == aCollNetDirect {
		ppn := float64(m.spec.GPUsPerNode)
		add("arity serialization", 2*(ppn-1), us(ncclCollNetArityLat), "CollNet Direct's 0.4 µs per local rank beyond the first, twice (tuning.cc)")
	}
	if a == aPAT {
		add("PAT linear term", float64(m.spec.Nodes*m.spec.GPUsPerNode), us(ncclPATPerRank), "PAT's nRanks × 2.8 µs (tuning.cc: 'Still a linear part')")
	}
	if t.interSteps[a] > 0 {
		what := "hwLatencies NET of the algorithm (of Tree with one GPU per node)"
		if li > 0 {
			k := 1
			if p == pSimple {
				k = 2
			}
			what += fmt.Sprintf(" + %d × latencyInter %s: what %s's one-way latency (%s at 8 B) exceeds %s (%s) — gpupath's departure: NCCL's IB and socket transports report 0", k, li.Human(), m.path, m.links.pathLat.Human(), m.links.refWhy, m.links.refLat.Human())
		}
		add("inter-node step", t.interSteps[a], us(t.interLat[a][p]), what)
	}
	return st
}

// Steps is Time term by term: the latency's (NCCL's base latency, its
// intra- and inter-node steps, the ring plateau), NCCL's bandwidth term and
// what the links add beyond NCCL's estimate. They add up to Time.
func (r *CollectiveResult) Steps() []CollectiveStep {
	st := make([]CollectiveStep, len(r.latSteps), len(r.latSteps)+3)
	copy(st, r.latSteps)
	if r.plateau > 0 {
		st = append(st, CollectiveStep{Name: "ring plateau", Count: 1, Each: r.plateau, Time: r.plateau,
			What: "the 'Plateau effect of ring' (ncclTopoGetAlgoTime): a multi-node Simple ring all-reduce of ≥ 64 B per channel and rank has its latency × 1.4 (× 1.9 below compute capability 8.0)"})
	}
	what := "the size over NCCL's algorithm bandwidth (comm->bandwidths, × treeCorrectionFactor for a tree all-reduce)"
	if r.Algo == AlgoP2P {
		what = "the links' time for the traffic (LL at half the rate)"
	}
	st = append(st, CollectiveStep{Name: "bandwidth", Count: 1, Each: r.bwTerm, Time: r.bwTerm, What: what})
	if r.linkExtra > 0 {
		st = append(st, CollectiveStep{Name: "links beyond NCCL's estimate", Count: 1, Each: r.linkExtra, Time: r.linkExtra,
			What: "the links cannot carry the algorithm's traffic as fast as NCCL's model assumes: gpupath's time is the links' (its departure)"})
	}
	return st
}

// MarshalJSON writes the result as its documented JSON object, the terms of
// Time (Steps) as "steps".
func (r CollectiveResult) MarshalJSON() ([]byte, error) {
	type plain CollectiveResult
	return json.Marshal(struct {
		plain
		Steps []CollectiveStep `json:"steps"`
	}{plain(r), r.Steps()})
}
