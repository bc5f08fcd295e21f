package model

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Collective operations, named as nccl-tests names its programs
// (all_reduce for all_reduce_perf): the vocabulary of Collective.Op, of
// imported nccl-tests records and of the bus-bandwidth table (BusFactor).
const (
	AllReduce     = "all_reduce"
	AllGather     = "all_gather"
	ReduceScatter = "reduce_scatter"
	Broadcast     = "broadcast"
	Reduce        = "reduce"
	AllToAll      = "alltoall"
	SendRecv      = "sendrecv"
	Gather        = "gather"
	Scatter       = "scatter"
	Hypercube     = "hypercube"
)

// busFactors is the one table of nccl-tests' bus bandwidth: busbw = algbw ×
// factor(n) on n ranks, as each test's GetBw computes it (nccl-tests
// src/all_reduce.cu … src/hypercube.cu at a0b82b2, version 2.19.6;
// doc/PERFORMANCE.md says why), with the formula in words.
var busFactors = []struct {
	op      string
	formula string
	factor  func(n float64) float64
}{
	{AllReduce, "2(n−1)/n", func(n float64) float64 { return 2 * (n - 1) / n }},
	{AllGather, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{ReduceScatter, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{AllToAll, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{Gather, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{Scatter, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{Broadcast, "1", func(float64) float64 { return 1 }},
	{Reduce, "1", func(float64) float64 { return 1 }},
	{SendRecv, "1", func(float64) float64 { return 1 }},
	{Hypercube, "1", func(float64) float64 { return 1 }},
}

// CollectiveOp returns the operation's name in the model's vocabulary for
// any way people write it ("all_reduce", "allreduce", "all_reduce_perf",
// "AllReduce"), or false for none of the table's.
func CollectiveOp(name string) (string, bool) {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), "_perf"))
		return opSeparators.Replace(s)
	}
	n := norm(name)
	for _, b := range busFactors {
		if norm(b.op) == n {
			return b.op, true
		}
	}
	return "", false
}

// opSeparators is built once: a Replacer built per call cost an import of
// a million nccl-tests rows gigabytes of allocations.
var opSeparators = strings.NewReplacer("_", "", "-", "", " ", "")

// BusFactor is busbw/algbw for the operation on n ranks (nccl-tests), the
// formula in words with n filled in ("2(n−1)/n = 2·7/8"), and false for an
// operation the table does not know or n < 1. The operation may be written
// any way CollectiveOp reads.
func BusFactor(op string, n int) (factor float64, formula string, ok bool) {
	name, ok := CollectiveOp(op)
	if !ok || n < 1 {
		return 0, "", false
	}
	for _, b := range busFactors {
		if b.op != name {
			continue
		}
		f := b.factor(float64(n))
		switch b.formula {
		case "2(n−1)/n":
			return f, fmt.Sprintf("2(n−1)/n = 2·%d/%d", n-1, n), true
		case "(n−1)/n":
			return f, fmt.Sprintf("(n−1)/n = %d/%d", n-1, n), true
		}
		return f, b.formula, true
	}
	return 0, "", false
}

// BusFormula is the operation's bus-bandwidth factor in words, without n:
// "2(n−1)/n", "(n−1)/n" or "1"; "" for an unknown operation.
func BusFormula(op string) string {
	name, _ := CollectiveOp(op)
	for _, b := range busFactors {
		if b.op == name {
			return b.formula
		}
	}
	return ""
}

// NCCL's protocols.
const (
	ProtoLL     = "LL"
	ProtoLL128  = "LL128"
	ProtoSimple = "Simple"
)

// Protocols lists NCCL's protocols in its order (LL, LL128, Simple).
var Protocols = []string{ProtoLL, ProtoLL128, ProtoSimple}

// Collective is a ring collective over Nodes × GPUsPerNode ranks, as NCCL
// runs it: every channel is a ring through all the GPUs of a node, over
// NVLink (or PCIe peer-to-peer) inside a node, and from node to node over
// Path, one of the model's inter-node paths; the channels of a node share
// its NICsPerNode NICs.
type Collective struct {
	Op          string
	Nodes       int
	GPUsPerNode int
	NICsPerNode int    // NICs of a node the rings cross on (≥ 1 when Nodes > 1)
	Path        string // the inter-node hop: gdr, rdma, tcp or devmem
	// Protocols NCCL may choose from (NCCL_PROTO); nil: all three. The
	// fastest for the size is taken, as NCCL's tuner takes it.
	Protocols []string
}

// CollectiveResult is a collective evaluated at one size. Size is the
// nccl-tests "size" column: the buffer of an all_reduce or broadcast, the
// whole gathered buffer of an all_gather, the input of a reduce_scatter.
type CollectiveResult struct {
	Bytes units.Bytes
	Ranks int
	// Time is Latency + Size / AlgBW for the Protocol chosen.
	Time     units.Seconds
	Latency  units.Seconds
	Protocol string
	// AlgBW is Size / Time; BusBW is nccl-tests' bus bandwidth: AlgBW ×
	// 2(n−1)/n for all_reduce, × (n−1)/n for all_gather and reduce_scatter,
	// × 1 for broadcast.
	AlgBW, BusBW units.Rate
	// LinkBusBW is the bus bandwidth the links allow (before the
	// protocol's factor); Bottleneck names the link that sets it.
	LinkBusBW  units.Rate
	Bottleneck string
	// Steps and InterSteps are the ring's steps and those that cross
	// between nodes in NCCL's latency count.
	Steps, InterSteps int
}

// NCCL's ring constants (src/graph/tuning.cc, ncclTunerConstantsDefaults
// at NVIDIA/nccl 5067397c), per protocol LL, LL128, Simple, in seconds.
var (
	// ncclBaseLat is baseLatencies[Ring]: launching the kernel and its
	// bookkeeping.
	ncclBaseLat = [3]units.Seconds{6.6e-6, 14.0e-6, 8.4e-6}
	// ncclNVLinkLat, ncclPCILat and ncclNetLat are hwLatencies[NVLINK |
	// PCI | NET][Ring]: one step's latency on that kind of hop.
	ncclNVLinkLat = [3]units.Seconds{0.6e-6, 1.9e-6, 3.4e-6}
	ncclPCILat    = [3]units.Seconds{1.0e-6, 2.5e-6, 5.7e-6}
	ncclNetLat    = [3]units.Seconds{2.7e-6, 4.0e-6, 14.0e-6}
	// ncclTreeNetLat is hwLatencies[NET][Tree], which NCCL uses for the
	// inter-node steps of a ring when every node has one rank ("with ppn=1
	// latencies are fully exposed").
	ncclTreeNetLat = [3]units.Seconds{5.0e-6, 8.5e-6, 14e-6}
	// ncclProtoBW is the fraction of the links' bus bandwidth a ring
	// reaches with each protocol: LL ×0.5 (half of every 8-byte line is
	// its flag), LL128 ×0.92 (120 of 128 bytes), Simple ×1 (tuning.cc,
	// "Various model refinements"; the per-channel caps are left out).
	ncclProtoBW = [3]float64{0.5, 0.92, 1}
)

// ncclStepOverhead is getNetOverhead (nccl.net_overhead, the nccl stack's
// proxy cost: 1 µs on Intel x86, 2 µs on AMD), three times that for
// Simple; an inter-node ring's intra-node step costs at least this
// (tuning.cc).
func (s *Scenario) ncclStepOverhead(p int) units.Seconds {
	o := s.NCCL.NetOverhead
	if p == 2 {
		o *= 3
	}
	return o
}

func protoIndex(p string) (int, error) {
	for i, q := range Protocols {
		if strings.EqualFold(p, q) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("protocol %q is not one of %s", p, strings.Join(Protocols, ", "))
}

// check says what is wrong with c, or nil.
func (c Collective) check() error {
	switch c.Op {
	case AllReduce, AllGather, ReduceScatter, Broadcast:
	default:
		return fmt.Errorf("collective %q is not one of %s, %s, %s, %s", c.Op, AllReduce, AllGather, ReduceScatter, Broadcast)
	}
	if c.Nodes < 1 || c.GPUsPerNode < 1 || c.Nodes*c.GPUsPerNode < 2 {
		return fmt.Errorf("%d nodes × %d GPUs: a collective needs at least two ranks", c.Nodes, c.GPUsPerNode)
	}
	if c.Nodes > 1 && c.NICsPerNode < 1 {
		return fmt.Errorf("%d nodes with %d NICs each: an inter-node ring needs a NIC", c.Nodes, c.NICsPerNode)
	}
	for _, p := range c.Protocols {
		if _, err := protoIndex(p); err != nil {
			return err
		}
	}
	return nil
}

// Collective evaluates the ring collective c at size n on s.
//
// Bandwidth. Every channel's ring crosses each node boundary once per
// direction, and the channels of a node spread over its NICs, so a node's
// NICs together carry the ring's rate: the bus bandwidth (the rate of
// every hop of every ring, summed over the channels) is at most
// NICsPerNode × the rate one NIC carries — Path's streaming bandwidth at
// NCCL's step (pipeline.chunk) with the node sending and receiving at
// once (Route.Bidirectional). Inside a node each GPU forwards (G−1)/G of
// the channels over its NVLink (or PCIe peer) link, so that link allows
// G/(G−1) × its copy rate. The smaller sets the links' bus bandwidth; the
// protocol keeps its fraction of it (LL 0.5, LL128 0.92, Simple 1), and
// NCCL's ratio nRanks/nsteps turns it into the algorithm bandwidth.
//
// Latency (NCCL's ring model, tuning.cc): base + (nsteps − nInter) ×
// intra + nInter × inter, with nsteps = 2(n−1) for all_reduce, n−1 for
// all_gather and reduce_scatter, n for broadcast; nInter = 2(N−1) for
// all_reduce and N−1 otherwise; intra is NCCL's NVLink (or PCI) step
// latency, at least the proxy's network overhead (×3 for Simple) when the
// ring leaves the node; inter is NCCL's network step latency, or Path's
// own one-way latency for a small message where that is longer (NCCL's
// constants are for InfiniBand; a TCP hop costs what its stack costs).
func (s *Scenario) Collective(c Collective, n units.Bytes) (CollectiveResult, error) {
	if err := c.check(); err != nil {
		return CollectiveResult{}, err
	}
	n = max(n, 1)
	ranks := c.Nodes * c.GPUsPerNode
	res := CollectiveResult{Bytes: n, Ranks: ranks}
	switch c.Op {
	case AllReduce:
		res.Steps, res.InterSteps = 2*(ranks-1), 2*(c.Nodes-1)
	case Broadcast:
		res.Steps, res.InterSteps = ranks, c.Nodes-1
	default:
		res.Steps, res.InterSteps = ranks-1, c.Nodes-1
	}
	link, why, pathLat, err := s.ringLinks(c)
	if err != nil {
		return CollectiveResult{}, err
	}
	res.LinkBusBW, res.Bottleneck = link, why
	protos := c.Protocols
	if len(protos) == 0 {
		protos = Protocols
	}
	intraLat := ncclNVLinkLat
	if s.GPU.NVLinkRate <= 0 {
		intraLat = ncclPCILat
	}
	netLat := ncclNetLat
	if c.GPUsPerNode == 1 {
		netLat = ncclTreeNetLat
	}
	first := true
	for _, name := range protos {
		p, _ := protoIndex(name)
		intra := intraLat[p]
		if c.Nodes > 1 {
			intra = max(intra, s.ncclStepOverhead(p))
		}
		inter := max(netLat[p], pathLat)
		lat := ncclBaseLat[p] + units.Seconds(res.Steps-res.InterSteps)*intra + units.Seconds(res.InterSteps)*inter
		bus := link * units.Rate(ncclProtoBW[p])
		alg := bus * units.Rate(float64(ranks)/float64(res.Steps))
		t := lat + units.Seconds(float64(n)/float64(alg))
		if first || t < res.Time {
			first = false
			res.Time, res.Latency, res.Protocol = t, lat, Protocols[p]
		}
	}
	res.AlgBW = units.Rate(float64(n) / float64(res.Time))
	f, _, _ := BusFactor(c.Op, ranks)
	res.BusBW = res.AlgBW * units.Rate(f)
	return res, nil
}

// ringLinks is the bus bandwidth the links of c's rings allow, what sets
// it, and the inter-node path's one-way latency for a small message (0
// inside one node).
func (s *Scenario) ringLinks(c Collective) (units.Rate, string, units.Seconds, error) {
	g := float64(c.GPUsPerNode)
	var bw units.Rate
	var why string
	if c.GPUsPerNode > 1 {
		peer, what := s.GPUPeerRate(), "PCIe peer-to-peer"
		if s.GPU.NVLinkRate > 0 {
			peer, what = s.NVLinkCopyRate(), "NVLink"
		}
		bw = peer * units.Rate(g/(g-1))
		why = fmt.Sprintf("intra-node %s: %s per GPU × %d/%d of the channels", what, peer.Human(), c.GPUsPerNode, c.GPUsPerNode-1)
	}
	if c.Nodes == 1 {
		return bw, why, 0, nil
	}
	p, err := LookupPath(c.Path)
	if err != nil {
		return 0, "", 0, err
	}
	if !p.Internode {
		return 0, "", 0, fmt.Errorf("path %s does not leave the node", c.Path)
	}
	rt := p.Route(s.WithStack(StackNCCL)) // a collective is NCCL's: its hops run under the nccl stack
	if !rt.Feasible {
		return 0, "", 0, fmt.Errorf("the inter-node hop is infeasible: %s", rt.Reason)
	}
	nic, _ := rt.Bidirectional(s.Pipeline.Chunk)
	net := nic * units.Rate(c.NICsPerNode)
	if bw == 0 || net < bw {
		bw = net
		why = fmt.Sprintf("inter-node %s: %d NIC(s) × %s each, sending and receiving at once (%s steps)", c.Path, c.NICsPerNode, nic.Human(), s.Pipeline.Chunk)
	}
	return bw, why, rt.Evaluate(8).Latency, nil
}
