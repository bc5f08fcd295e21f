package model

import (
	"fmt"
	"slices"

	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	mustRegisterStack(Stack{Name: StackUCX, Title: "UCX (MPI over UCX)", Order: 20,
		Story: "UCX's tag protocols, as MPI runs them: below ucx.rndv_thresh the eager protocol sends the payload at once into a host bounce buffer on the receiver, which copies it out (into GPU memory by a gdr_copy put); from it on, the rendezvous: the sender's RTS, the receiver's RDMA read of the source, a FIN back — zero-copy, three crossings. Its per-message costs are UCX's own cost model's (rc_mlx5).",
		Wrap:  wrapUCX})
}

// UCX's own cost model (openucx/ucx 9466d104): the send overheads of its
// InfiniBand transports (src/uct/ib/base/ib_iface.h,
// UCT_IB_SEND_OVERHEAD_VALUE: "bcopy:5ns,cqe:20ns,db:40ns,..."), the
// per-message overhead of the accelerated RC transport
// (src/uct/ib/mlx5/rc/rc_mlx5_common.h, UCT_RC_MLX5_IFACE_OVERHEAD 40 ns:
// posting a WQE, and the receive side's overhead per message), and the
// protocol overheads of UCP (src/ucp/core/ucp_context.c, PROTO_OVERHEAD:
// single 5 ns, rndv_rts 275 ns).
const (
	ucxSource     = "openucx/ucx 9466d104"
	ucxWQEPost    = 40e-9  // wqe_post = UCT_RC_MLX5_IFACE_OVERHEAD
	ucxDoorbell   = 40e-9  // db: writing the doorbell to PCI
	ucxBcopy      = 5e-9   // bcopy: allocating a tx buffer
	ucxCQE        = 20e-9  // cqe: processing a work request completion
	ucxRecv       = 40e-9  // the iface's per-message overhead on receive (UCT_RC_MLX5_IFACE_OVERHEAD)
	ucxProto      = 5e-9   // PROTO_OVERHEAD single
	ucxProtoRTS   = 275e-9 // PROTO_OVERHEAD rndv_rts
	ucxHeaderSize = 64     // an RTS or FIN active message: UCP's header and the rkey, well under one packet
)

func ucxSecs(x float64) units.Seconds { return units.Seconds(x) }

// wrapUCX puts UCX's eager and rendezvous protocols on the RDMA paths that
// move a buffer as one message (gdr, host-rdma); the staged rdma path gets
// UCX's per-message costs on its bare post and poll.
func wrapUCX(s *Scenario, p Path, bare []Stage) ([]Stage, string, string) {
	i, j := stageIndex(bare, "B"), lastIndex(bare, "F")
	if i < 0 || bare[i].Name != "post work request" {
		return bare, fmt.Sprintf("UCX drives verbs here, not sockets: %s is shown as the bare transport", p.Name), ""
	}
	var at bufAt
	switch p.Name {
	case "gdr":
		at = atGPU
	case "host-rdma":
		at = atHost
	default:
		st := slices.Clone(bare)
		st[i] = s.ucxSend(st[i].Letter, false)
		st[j] = s.ucxReceive(st[j].Letter)
		return st, "UCX's staging pipeline through host memory is modeled as the rdma path's copies, with UCX's per-message costs on the network step", ""
	}
	eager, rndv := s.ucxEager(at), s.ucxRendezvous(at)
	thr, how := s.ucxThreshold(eager, rndv)
	for k := range eager {
		eager[k].Until = thr
	}
	for k := range rndv {
		rndv[k].From = thr
	}
	if thr == 0 { // rendezvous never wins: eager throughout
		return eager, "UCX sends eagerly at every size (" + how + ")", ""
	}
	return append(eager, rndv...), fmt.Sprintf("UCX switches from eager to rendezvous at %s (%s)", thr, how), ""
}

// ucxThreshold is the size from which UCX sends by rendezvous: ucx.rndv_thresh
// when given, else (auto) the smallest size at which the rendezvous's
// modeled latency is no more than the eager protocol's, as UCX's protocol
// selection picks the protocol its cost model finds faster
// (src/ucp/proto/proto_select.c; RNDV_THRESH "auto" in
// src/ucp/core/ucp_context.c). 0: eager at every size.
func (s *Scenario) ucxThreshold(eager, rndv []Stage) (units.Bytes, string) {
	if t := s.UCX.RndvThresh; t > 0 {
		return t, "ucx.rndv_thresh"
	}
	faster := func(n units.Bytes) bool { return hardware(rndv, n) <= hardware(eager, n) }
	hi := units.Bytes(1 << 40)
	if !faster(hi) {
		return 0, "auto: the rendezvous is never the faster"
	}
	lo := units.Bytes(1) // faster(lo) is false unless the rendezvous wins from 1 B
	if faster(lo) {
		return lo, "auto: the rendezvous is the faster at every size"
	}
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if faster(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return hi, "auto: where UCX's cost model makes the rendezvous the faster, ucx.rndv_thresh 0B"
}

// ucxSend is the sender's UCP and UCT work for one message: the protocol
// (5 ns), a WQE (40 ns) and the doorbell (40 ns), and the send
// completion's processing later (20 ns of CPU, off the latency path).
func (s *Scenario) ucxSend(letter string, bcopy bool) Stage {
	a := ucxSecs(ucxProto + ucxWQEPost + ucxDoorbell)
	what := fmt.Sprintf("ucp_tag_send: UCP picks the protocol (5 ns) and the rc_mlx5 transport writes the WQE (40 ns) and rings the doorbell (40 ns), UCX's own send overheads (%s)", ucxSource)
	if bcopy {
		a += ucxBcopy
	}
	cpu := a + ucxCQE
	st := cpuStage("UCX posts (ucp_tag_send)", letter, Sender, a, what)
	st.CPUPerMessage, st.Occupancy, st.Uses[0].PerMessage = cpu, cpu, float64(cpu)
	return st
}

// ucxReceive is the receiver's UCT and UCP work for one arrival: the
// transport's per-message overhead (40 ns) and tag matching (5 ns).
func (s *Scenario) ucxReceive(letter string) Stage {
	return cpuStage("UCX receives (progress, tag match)", letter, Receiver, ucxSecs(ucxRecv+ucxProto),
		fmt.Sprintf("ucp_worker_progress polls the completion and matches the tag: the transport's per-message overhead 40 ns and UCP's 5 ns (%s)", ucxSource))
}

// ucxEager is the eager protocol: the payload goes at once, into a bounce
// buffer in host memory on the receiver (UCT's receive descriptors), and
// UCP copies it out to the user's buffer — into GPU memory by a gdr_copy
// put (ucx.gdr_copy_latency + n/ucx.gdr_copy_rate), into host memory by a
// memcpy. From GPU memory the sender's NIC reads the payload by
// GPUDirect RDMA (eager zero-copy); from host memory it may be inline.
func (s *Scenario) ucxEager(at bufAt) []Stage {
	w := s.rdmaWire()
	st := []Stage{s.ucxSend("B", at != atGPU), s.nicRead(at, at != atGPU, w), s.wireStage(w), s.nicWrite(atHost, w), s.ucxReceive("F")}
	st[3].Name = "NIC DMA write (host bounce buffer)"
	st[3].What = "the receiving NIC DMA-writes the eager payload into one of UCX's receive buffers in host memory, then the completion"
	for k := range st {
		st[k].Name = "eager: " + st[k].Name
	}
	unpack := Stage{Name: "eager: UCX copies out of the bounce buffer", Side: Receiver, OnCPU: true, Copy: true, DDR: 1}
	if at == atGPU {
		lat, rate := s.UCX.GDRCopyLatency, s.UCX.GDRCopyRate
		unpack.Name = "eager: gdr_copy put into GPU memory"
		unpack.What = fmt.Sprintf("UCP unpacks the bounce buffer into the GPU buffer with a gdr_copy put, CPU stores through a BAR1 mapping: %s + n / %s (UCX's own estimate: ucx.gdr_copy_latency and ucx.gdr_copy_rate, UCX_GDR_COPY_LAT put and UCX_GDR_COPY_BW put_shared, src/uct/cuda/gdr_copy/gdr_copy_iface.c at %s); its CPU time is the n / rate part (UCX's overhead for it is 0)", lat.Human(), rate.Human(), ucxSource)
		unpack.Alpha, unpack.PerByte, unpack.Crossings = lat, units.Seconds(1/float64(rate)), 1
		unpack.CPUPerByte = unpack.PerByte
		unpack.Uses = []Use{{Resource: "cpu:receiver", PerByte: float64(unpack.PerByte)}, {Resource: "ddr:receiver", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}}
	} else {
		unpack.What = fmt.Sprintf("UCP copies the payload from the bounce buffer into the user's buffer at %s (cpu.memcpy_rate)", s.CPU.MemcpyRate.Human())
		unpack.PerByte = units.Seconds(1 / float64(s.CPU.MemcpyRate))
		unpack.CPUPerByte, unpack.DDR = unpack.PerByte, 2
		unpack.Uses = []Use{{Resource: "cpu:receiver", PerByte: float64(unpack.PerByte)}, {Resource: "ddr:receiver", PerByte: 2}}
	}
	return append(st, unpack)
}

// ucxSmallLeg is one crossing of a small active message (an RTS, a FIN)
// from host memory to host memory: posted inline, the NIC, the wire, the
// remote NIC's write — as one fixed cost, with the CPU work on each end
// kept in the stages around it.
func (s *Scenario) ucxSmallLeg(name string, side Side, what string) Stage {
	w := s.rdmaWire()
	h := units.Bytes(ucxHeaderSize)
	c := s.nicRead(atHost, true, w)
	c.SmallMax, c.SmallAlpha = h, s.PCIe.WriteLatency+s.nicHostLatency()+s.NIC.Latency // a header always fits inline
	a := c.Time(h) + s.wireStage(w).Time(h) + s.nicWrite(atHost, w).Time(h)
	return Stage{Name: name, Side: side, Alpha: a, What: what,
		Uses: []Use{{Resource: "pcie:sender-nic:down", PerMessage: float64(h)}}}
}

// ucxRendezvous is the rendezvous protocol (get zero-copy): the sender
// posts an RTS carrying the buffer's address and key; the receiver matches
// it and posts an RDMA read of the source; the read request crosses to the
// sender's NIC, which reads the buffer (from GPU memory by GPUDirect RDMA)
// and streams it back into the destination; the receiver polls the read's
// completion — the data is in place — and sends a FIN (ATS) back, which
// frees the sender's buffer off the latency path.
func (s *Scenario) ucxRendezvous(at bufAt) []Stage {
	w := s.rdmaWire()
	rts := cpuStage("rndv: UCX posts the RTS", "B", Sender, ucxSecs(ucxProtoRTS+ucxWQEPost+ucxDoorbell+ucxBcopy),
		fmt.Sprintf("ucp_tag_send of a large buffer: UCP's rendezvous protocol (rndv_rts 275 ns) sends a ready-to-send message with the buffer's address and key: a WQE, the doorbell and a tx buffer (85 ns) (%s)", ucxSource))
	leg := s.ucxSmallLeg("rndv: RTS crosses to the receiver", Network, "the RTS goes out inline, crosses the wire and lands in a receive buffer in host memory")
	match := cpuStage("rndv: UCX matches the RTS, posts an RDMA read", "", Receiver, ucxSecs(ucxRecv+ucxProto+ucxWQEPost+ucxDoorbell),
		fmt.Sprintf("the receiver polls the RTS, matches the tag (45 ns) and posts an RDMA read of the source buffer (85 ns) (%s)", ucxSource))
	req := s.ucxSmallLeg("rndv: read request crosses to the sender's NIC", Network, "the RDMA read request goes out from the receiver's NIC and reaches the sender's NIC, which answers it with no CPU of its own")
	c := s.nicRead(at, false, w)
	c.Alpha -= s.PCIe.WriteLatency + s.nicHostLatency() // no doorbell: the request came by the wire
	c.Name = "rndv: sender's NIC reads the source"
	c.What = "the sender's NIC answers the read request: it DMA-reads the source buffer and streams it back packet by packet" + map[bool]string{true: " (GPU memory, by GPUDirect RDMA)", false: ""}[at == atGPU]
	d := s.wireStage(w)
	e := s.nicWrite(at, w)
	done := cpuStage("rndv: UCX polls the read, sends the FIN", "F", Receiver, ucxSecs(ucxRecv+ucxCQE),
		fmt.Sprintf("the receiver polls the read's completion (60 ns): the data is in place; it then sends the FIN that frees the sender's buffer, off the latency path (%s)", ucxSource))
	fin := ucxSecs(ucxWQEPost + ucxDoorbell + ucxBcopy)
	done.CPUPerMessage += fin
	done.Occupancy += fin
	done.Uses[0].PerMessage += float64(fin)
	ack := Stage{Name: "rndv: the sender receives the FIN", Side: Sender, OnCPU: true, CPUPerMessage: ucxSecs(ucxRecv + ucxProto),
		What: "the FIN reaches the sender, which completes the send (45 ns of CPU, off the receiver's latency)",
		Uses: []Use{{Resource: "cpu:sender", PerMessage: ucxRecv + ucxProto}}}
	st := []Stage{rts, leg, match, req, c, d, e, done, ack}
	return st
}
