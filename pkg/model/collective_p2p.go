package model

import (
	"github.com/gpupath/gpupath/pkg/units"
)

// all_to_all and send_recv are NCCL's send/receive operations, which its
// tuner does not price (NCCL_NUM_FUNCTIONS 5: "Send/Recv not included for
// now", src/include/nccl_common.h). NCCL picks their protocol by a rule —
// LL while a peer's bytes are at most NCCL_P2P_LL_THRESHOLD per channel,
// which comes to 16 KiB a peer, else Simple (src/enqueue.cc) — and this is
// gpupath's own model of their time, built from NCCL's constants:
//
//	time = baseLatencies[Ring][p] + one step's latency (the network's as
//	       the ring's inter-node step, NVLink's or PCI's inside a node)
//	       [+ an NVLink step through the rail's GPU with PXN]
//	       + getNetOverhead per remote peer (the proxy posts every peer's
//	       transfer in turn)
//	       + the links' time for the traffic, LL at half the rate (a flag
//	       in every 8-byte line).
//
// all_to_all: each rank sends Bytes·(R−G)/R to other nodes and
// Bytes·(G−1)/R to the GPUs of its own; with PXN (NCCL_PXN_DISABLE unset,
// across nodes on NVLink) the data for another rail first crosses NVLink
// to the local GPU on that rail (src/graph/paths.cc, ncclTopoGetPxnRanks),
// which adds (G−1)/G of the remote traffic to the NVLink. send_recv (as
// nccl-tests' sendrecv_perf: every rank sends Bytes to the next and
// receives from the previous): one GPU per node sends across nodes, over
// its own NIC(s) (NICs per GPU, at least one), the others over NVLink.

// buildP2P lists the p2p pairs: LL and Simple allowed, LL128 not (NCCL's
// send/receive uses LL or Simple).
func (m *collModel) buildP2P() {
	c := m.spec
	r, g, n := float64(c.Nodes*c.GPUsPerNode), float64(c.GPUsPerNode), c.Nodes
	var fi, fn float64
	netCap := m.links.net
	if c.Op == AllToAll {
		fi = (g - 1) / r
		if n > 1 {
			fn = g * (r - g) / r
			if m.pxn() {
				fi += (g - 1) / g * (r - g) / r
			}
		}
	} else {
		if g > 1 {
			fi = 1
		}
		if n > 1 {
			fn = 1
			perGPU := max(1, c.NICsPerNode/c.GPUsPerNode)
			netCap = min(m.links.net, m.links.nic*units.Rate(perGPU))
		}
	}
	if g == 1 {
		fi = 0
	}
	m.options = make([]collPair, 0, nProtos)
	for p := 0; p < nProtos; p++ {
		why := ""
		if p == pLL128 {
			why = "NCCL's send/receive uses LL or Simple, never LL128 (src/enqueue.cc)"
		}
		m.options = append(m.options, collPair{a: -1, p: p, algo: AlgoP2P, reason: why, fIntra: fi, fNet: fn, netCap: netCap})
	}
}

// pxn says whether NCCL routes this p2p operation through the GPU next to
// the remote rail's NIC: across nodes, with NVLink between the node's GPUs,
// unless NCCL_PXN_DISABLE=1 (src/graph/paths.cc: PXN_DISABLE default 0).
func (m *collModel) pxn() bool {
	c := m.spec
	return c.Nodes > 1 && c.GPUsPerNode > 1 && m.s.GPU.NVLinkRate > 0 && !c.NoPXN
}

// p2pPeerBytes is what one rank sends one peer.
func (m *collModel) p2pPeerBytes(n units.Bytes) float64 {
	if m.spec.Op == AllToAll {
		return float64(n) / float64(m.spec.Nodes*m.spec.GPUsPerNode)
	}
	return float64(n)
}

// p2pProto is NCCL's protocol for n: LL while a peer's bytes are at most
// NCCL_P2P_LL_THRESHOLD per channel (addP2pToPlan, src/enqueue.cc). Its
// channels are ⌈bytes / minPartSize⌉ (64 KiB: half a 128 KiB network
// chunk, an eighth of a 512 KiB NVLink one), so the rule is LL up to
// 16 KiB a peer, whatever the channels.
func (m *collModel) p2pProto(n units.Bytes) int {
	if m.p2pPeerBytes(n) <= ncclP2PLLThreshold {
		return pLL
	}
	return pSimple
}

// p2pLatency is the latency terms of protocol p.
func (m *collModel) p2pLatency(p int) (base, step, pxn, posts units.Seconds, remote int) {
	c := m.spec
	us := func(x float64) units.Seconds { return units.Seconds(x * 1e-6) }
	base = us(ncclBaseLat[aRing][p])
	intraHw := hwPCI
	if m.s.GPU.NVLinkRate > 0 {
		intraHw = hwNVLink
	}
	if c.Nodes > 1 {
		lat := ncclHwLat[hwNet][aRing][p]
		if c.GPUsPerNode == 1 {
			lat = ncclHwLat[hwNet][aTree][p]
		}
		li := float64(m.links.latencyInter) * 1e6
		lat += li
		if p == pSimple {
			lat += li
		}
		step = us(lat)
		if m.pxn() {
			pxn = us(ncclHwLat[hwNVLink][aRing][p])
		}
		remote = c.Nodes*c.GPUsPerNode - c.GPUsPerNode
		if c.Op == SendRecv {
			remote = 1
		}
		posts = units.Seconds(remote) * m.s.NCCL.NetOverhead
	} else {
		step = us(ncclHwLat[intraHw][aRing][p])
	}
	return base, step, pxn, posts, remote
}

func (m *collModel) evalP2P(o collPair, n units.Bytes) evalPair {
	base, step, pxn, posts, _ := m.p2pLatency(o.p)
	lat := base + step + pxn + posts
	t := m.linkTime(o, float64(n))
	if o.p == pLL {
		t /= ncclLLFactor
	}
	return evalPair{time: lat + t, ncclTime: lat + t, lat: lat, bwTerm: t, linkTime: t}
}

func (m *collModel) p2pLatSteps(o collPair) []CollectiveStep {
	base, step, pxn, posts, remote := m.p2pLatency(o.p)
	var st []CollectiveStep
	add := func(name string, count float64, each units.Seconds, what string) {
		if count == 0 || each == 0 {
			return
		}
		st = append(st, CollectiveStep{Name: name, Count: count, Each: each, Time: units.Seconds(count) * each, What: what})
	}
	add("base latency", 1, base, "NCCL's baseLatencies[Ring] of the protocol (tuning.cc): the kernel's launch")
	where := "intra-node step"
	if m.spec.Nodes > 1 {
		where = "inter-node step"
	}
	add(where, 1, step, "one step's hwLatencies (the network's, with the path's latencyInter, across nodes)")
	add("PXN hop", 1, pxn, "the NVLink step to the GPU on the remote peer's rail (PXN)")
	if remote > 0 {
		add("proxy posts", float64(remote), posts/units.Seconds(remote), "getNetOverhead for each remote peer: the proxy posts their transfers in turn (gpupath's model)")
	}
	return st
}
