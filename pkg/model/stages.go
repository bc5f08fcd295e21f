package model

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Stage builders the paths share.

func (s *Scenario) noRDMA() string {
	switch {
	case s.NIC.Kind == KindLoopback:
		return "infeasible: RDMA needs an RDMA NIC, and the loopback device is none"
	case !s.NIC.RDMA:
		return fmt.Sprintf("infeasible: the NIC has no RDMA (nic.rdma: false, nic.kind: %s), so nothing offloads the transport", s.NIC.Kind)
	}
	return ""
}

// hostRegistration is ibv_reg_mr of n bytes of host memory on one node:
// a fixed cost and one per 4 KiB page.
func (s *Scenario) hostRegistration(n units.Bytes) units.Seconds {
	return s.NIC.RegLatency + units.Seconds(packets(n, 4096))*s.NIC.RegPerPage
}

// gpuRegistration is registering n bytes of GPU memory for GPUDirect RDMA
// on one node: a fixed cost and one per 64 KiB GPU page.
func (s *Scenario) gpuRegistration(n units.Bytes) units.Seconds {
	return s.GPU.PinLatency + units.Seconds(packets(n, 64<<10))*s.GPU.PinPerPage
}

// copyD2H is stage A: one synchronous pinned copy of the whole message (a
// host-driven step: the send starts when it returns). Its fixed cost is
// gpu.copy_latency; back to back or pipelined, a copy issued on a stream
// costs gpu.async_latency.
func (s *Scenario) copyD2H() Stage {
	a := s.GPU.AsyncLatency
	return Stage{Name: "cudaMemcpy D2H", Letter: "A", Side: Sender, Copy: true,
		What:  fmt.Sprintf("the GPU's copy engine moves the payload over PCIe into a pinned host buffer in DDR at %s (synchronous cudaMemcpy device→host)", s.D2HRate().Human()),
		Alpha: s.GPU.CopyLatency, Occupancy: a, PerByte: units.Seconds(1 / float64(s.D2HRate())),
		CPUPerMessage: a, DDR: 1, Crossings: 1,
		Uses: []Use{{Resource: "cpu:sender", PerMessage: float64(a)},
			{Resource: "ddr:sender", PerByte: 1}, {Resource: "pcie:sender-gpu:up", PerByte: 1}}}
}

// copyH2D is stage G.
func (s *Scenario) copyH2D() Stage {
	a := s.GPU.AsyncLatency
	return Stage{Name: "cudaMemcpy H2D", Letter: "G", Side: Receiver, Copy: true,
		What:  fmt.Sprintf("the GPU's copy engine moves the payload from the pinned host buffer over PCIe into GPU memory at %s (synchronous cudaMemcpy host→device)", s.H2DRate().Human()),
		Alpha: s.GPU.CopyLatency, Occupancy: a, PerByte: units.Seconds(1 / float64(s.H2DRate())),
		CPUPerMessage: a, DDR: 1, Crossings: 1,
		Uses: []Use{{Resource: "cpu:receiver", PerMessage: float64(a)},
			{Resource: "ddr:receiver", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}}}
}

// unpack is devmem's last step: the payload sits in the NIC's receive
// buffers in GPU memory (page-sized fragments in arrival order); a GPU
// kernel copies it into the user's buffer, reading and writing each byte
// in GPU memory.
func (s *Scenario) unpack() Stage {
	a := s.GPU.AsyncLatency
	rate := s.GPU.MemoryRate / 2
	return Stage{Name: "unpack in GPU memory", Side: Receiver, Copy: true,
		What:  fmt.Sprintf("a GPU kernel gathers the payload fragments from the NIC's receive buffers (dma-buf) into the user's buffer: one copy inside GPU memory at %s (half of gpu.memory_rate: every byte is read and written); its launch costs gpu.async_latency", rate.Human()),
		Alpha: a, Occupancy: a, PerByte: units.Seconds(1 / float64(rate)), CPUPerMessage: a,
		Uses: []Use{{Resource: "cpu:receiver", PerMessage: float64(a)}, {Resource: "hbm:receiver", PerByte: 2}}}
}

// bufAt is where a NIC's DMA finds or leaves the payload.
type bufAt int

const (
	// atHost: host memory on the NIC's own socket (host-tcp, host-rdma:
	// the application's buffers are socket-local).
	atHost bufAt = iota
	// atBounce: a bounce buffer in host memory next to the GPU (tcp, rdma):
	// with GPU and NIC on different sockets (SYS) the NIC's DMA crosses the
	// inter-socket link to reach it.
	atBounce
	// atGPU: GPU memory, by PCIe peer-to-peer through BAR1 (gdr, devmem).
	atGPU
)

// hostTCPStages are B–F of the TCP path, the payload in host memory at at
// (atHost or atBounce) or, with devmem (atGPU), never touching DDR or the
// CPU (the NIC reads and writes GPU memory).
func (s *Scenario) hostTCPStages(at bufAt) []Stage {
	devmem := at == atGPU
	w := s.tcpWire()
	f := s.flows()

	// B: send. The kernel pushes each TSO super-segment (or packet) to the
	// NIC as soon as it is built: B hands data on segment by segment.
	b := Stage{Name: "socket send + TCP/IP transmit", Letter: "B", Side: Sender, OnCPU: true, Parallel: f,
		What: "send(): the CPU copies the payload from user memory into kernel socket buffers, then TCP segments it, computes checksums (unless offloaded) and handles ACKs and the window; each segment goes to the NIC as soon as it is built",
		Copy: true, DDR: 2}
	b.Alpha = s.Stack.Syscall + s.Stack.TxPerMessage
	b.PerByte = units.Seconds(1 / float64(s.CPU.MemcpyRate))
	if devmem {
		b.Name = "devmem send + TCP/IP transmit"
		b.What = "sendmsg() of dma-buf pages: the CPU builds TCP/IP headers and hands the NIC descriptors that point into GPU memory; the payload is neither copied nor read"
		b.Copy, b.DDR, b.PerByte = false, 0, 0
	}
	if !s.NIC.ChecksumOffload && !devmem {
		b.PerByte += units.Seconds(1 / float64(s.Stack.ChecksumRate))
	}
	if s.NIC.TSO {
		b.PerPacket, b.Packet = s.Stack.TxPerSegment, s.Stack.TSOSize
	} else {
		b.PerPacket, b.Packet = s.Stack.TxPerSegment, w.payload
	}
	if s.NIC.Kind == KindLoopback {
		b.PerPacket, b.Packet = s.Stack.TxPerSegment, w.payload
	}
	b.Grain = b.Packet
	b.Occupancy = b.Alpha
	b.CPUPerMessage, b.CPUPerByte, b.CPUPerPacket = b.Alpha, b.PerByte, b.PerPacket
	b.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(b.Alpha), PerByte: float64(b.PerByte), PerPacket: float64(b.PerPacket), Packet: b.Packet}}
	if b.DDR > 0 {
		b.Uses = append(b.Uses, Use{Resource: "ddr:sender", PerByte: b.DDR})
	}

	// F: receive, on two resources. The softirq (the core the NIC's
	// interrupt lands on) runs the driver per packet and IP/TCP input per
	// GRO aggregate; the reader's core runs recv(): one system call per
	// read of up to stack.read_size bytes and the copy to user memory. With
	// stack.rx_colocated the reader runs on the softirq's core and both
	// loads share it — as they must when the node has fewer than two cores
	// per flow.
	soft := "cpu:receiver-softirq"
	if s.Stack.RxColocated || s.NIC.Kind == KindLoopback || 2*f > s.CPU.Cores {
		soft = "cpu:receiver"
	}
	fs := s.softirq(w, f, soft, devmem)
	fr := s.recvCall(w, f, fs.Grain, devmem)
	if s.NIC.Kind == KindLoopback {
		fs.Alpha = 0 // no interrupt: loopback delivers in softirq context on the sending core
		fs.What = "IP/TCP input on the loopback device (softirq on the sending core), per packet and per aggregate"
	}

	if s.NIC.Kind == KindLoopback && s.Loopback.Rate > 0 && !devmem {
		// Calibrated: the measured one-way loopback transfer t = α + n/β
		// replaces the modeled B and F. Its fixed cost is split between
		// send and receive; its per-byte time sits on the send stage, since
		// the receive copy overlaps it (TCP streams segment by segment).
		// The measurement is of the whole transfer: the two stages take the
		// whole message (no grain), so their times add up to it.
		half := s.Loopback.Latency / 2
		mb, mf := b, fr
		// Their times are measured, not modeled CPU work: each is a stage of
		// its own in the pipeline (the CPU costs stay in the CPU resources).
		mb.OnCPU, mf.OnCPU = false, false
		mb.Grain, mf.Grain = 0, 0
		// The measured streaming rate already includes what the cores that
		// run the stack allow: the modeled CPU loads would count them twice
		// (their CPU seconds are still reported).
		mb.Uses, mf.Uses = nonCPU(b.Uses), nonCPU(fr.Uses)
		mb.Name, mb.What = "send over loopback (measured)", "send(): socket copy and TCP transmit, from the measured one-way loopback transfer (α/2 and all of n/β)"
		mb.Alpha, mb.Occupancy, mb.PerByte, mb.PerPacket, mb.Packet = half, half, units.Seconds(1/float64(s.Loopback.Rate)), 0, 0
		if s.Loopback.Knee > 0 && s.Loopback.RateBeyond > 0 {
			mb.Knee, mb.PerByteBeyond = s.Loopback.Knee, units.Seconds(1/float64(s.Loopback.RateBeyond))
		}
		if s.Loopback.StreamRate > 0 {
			mb.StreamPerByte = units.Seconds(1 / float64(s.Loopback.StreamRate))
		}
		mf.Name, mf.What = "receive over loopback (measured)", "recv(): TCP receive and socket copy, overlapping the send; from the measured one-way loopback transfer (α/2)"
		mf.Alpha, mf.Occupancy, mf.PerByte, mf.PerPacket, mf.Packet, mf.PerSegment, mf.Segment = half, half, 0, 0, 0, 0, 0
		return []Stage{mb, mf}
	}
	if s.NIC.Kind == KindLoopback {
		lo := Stage{Name: "loopback device", Side: Network, Grain: w.payload,
			What: "no NIC and no wire: the kernel hands the segments to the receiving socket (replaces C, D and E)"}
		return []Stage{b, lo, fs, fr}
	}
	c := s.nicRead(at, false, w)
	d := s.wireStage(w)
	e := s.nicWrite(at, w)
	return []Stage{b, c, d, e, fs, fr}
}

// softirq is the first half of stage F: the interrupt (after the NIC's
// moderation delay), the NAPI poll and the driver per packet, GRO, and
// IP/TCP input. With GRO the driver merges a flow's packets into
// aggregates of up to stack.gro_size and IP/TCP input runs once per
// aggregate: it is charged by the packets an aggregate merged, so a full
// aggregate costs stack.rx_per_aggregate and the one packet of a small
// message its share (payload/gro_size of it); without GRO every packet
// climbs the stack on its own and pays it whole.
func (s *Scenario) softirq(w wireFormat, f int, res string, devmem bool) Stage {
	st := Stage{Name: "softirq: NAPI, GRO, IP/TCP input", Letter: "F", Side: Receiver, OnCPU: true, Parallel: f,
		What:   "the NIC's interrupt (after its moderation delay, nic.irq_latency), the NAPI poll and the driver per packet, GRO merging them into aggregates, IP/TCP input, ACKs and the socket queue, on the core the interrupt lands on",
		Alpha:  s.NIC.IRQLatency,
		Packet: w.payload, Grain: w.payload}
	per := s.Stack.RxPerPacket
	if s.NIC.GRO && s.NIC.Kind != KindLoopback {
		per += units.Seconds(float64(s.Stack.RxPerAggregate) * float64(w.payload) / float64(s.Stack.GROSize))
		st.Grain = s.Stack.GROSize
	} else {
		per += s.Stack.RxPerAggregate
	}
	st.PerPacket = per
	if !s.NIC.ChecksumOffload && !devmem {
		st.PerByte = units.Seconds(1 / float64(s.Stack.ChecksumRate))
		st.What += "; it checks the checksums in software (no offload)"
	}
	if devmem {
		st.What += "; only the headers, which the NIC split off into host memory"
	}
	st.CPUPerPacket, st.CPUPerByte = st.PerPacket, st.PerByte
	st.Uses = []Use{{Resource: res, PerByte: float64(st.PerByte), PerPacket: float64(st.PerPacket), Packet: st.Packet}}
	return st
}

// recvCall is the second half of stage F: the reader is woken and recv()
// copies the payload from the socket buffers into user memory as it
// arrives, one system call (stack.syscall + stack.rx_per_message) per read
// of up to stack.read_size bytes. The socket buffers are what the NIC
// wrote: the copy reads them cold, at stack.rx_copy_rate.
func (s *Scenario) recvCall(w wireFormat, f int, grain units.Bytes, devmem bool) Stage {
	perRead := s.Stack.Syscall + s.Stack.RxPerMessage
	st := Stage{Name: "recv(): wake the reader, copy to user", Letter: "F", Side: Receiver, OnCPU: true, Parallel: f, Copy: true, DDR: 2,
		What:  fmt.Sprintf("the blocked reader is woken (stack.wakeup) and recv() copies the payload from socket buffers to user memory as it arrives, at %s (stack.rx_copy_rate: the buffers the NIC wrote have left the caches), one system call per read of up to %s (stack.read_size)", s.Stack.RxCopyRate.Human(), s.Stack.ReadSize.Human()),
		Alpha: s.Stack.Wakeup, Occupancy: s.Stack.Wakeup, PerByte: units.Seconds(1 / float64(s.Stack.RxCopyRate)),
		PerPacket: perRead, Packet: s.Stack.ReadSize, Grain: min(grain, s.Stack.ReadSize)}
	if devmem {
		st.Name = "devmem recvmsg() (tokens, no copy)"
		st.What = "the reader is woken and recvmsg() returns tokens that point at the payload already in GPU memory (given back with SO_DEVMEM_DONTNEED): no copy"
		st.Copy, st.DDR, st.PerByte = false, 0, 0
	}
	st.CPUPerMessage, st.CPUPerByte, st.CPUPerPacket = st.Alpha, st.PerByte, st.PerPacket
	st.Uses = []Use{{Resource: "cpu:receiver", PerMessage: float64(st.Alpha), PerByte: float64(st.PerByte), PerPacket: float64(st.PerPacket), Packet: st.Packet}}
	if st.DDR > 0 {
		st.Uses = append(st.Uses, Use{Resource: "ddr:receiver", PerByte: st.DDR})
	}
	return st
}

// rdmaStages are B–F of the RDMA paths as the bare transport runs them:
// the application posts the work request from its own thread, the NIC
// reads the payload at at (host memory, a bounce buffer, GPU memory), the
// wire, the remote NIC writes it, and the application polls the
// completion. Software stacks (Stack) add their own stages on top.
func (s *Scenario) rdmaStages(at bufAt) []Stage {
	w := s.rdmaWire()
	post := cpuStage("post work request", "B", Sender, s.NIC.PostCost,
		"ibv_post_send: the application's thread writes a work request and rings the NIC's doorbell (nic.post_cost) — no copy, no protocol work")
	poll := cpuStage("poll completion", "F", Receiver, s.NIC.PollCost,
		"ibv_poll_cq: the receiving application's thread sees the completion the NIC wrote (nic.poll_cost); the payload is already in place")
	return []Stage{post, s.nicRead(at, at != atGPU, w), s.wireStage(w), s.nicWrite(at, w), poll}
}

// nicHostLatency is one crossing of the PCIe switch levels between the
// NIC and its root port (topology.nic_switches × pcie.switch_latency):
// what every NIC↔host transaction adds each way.
func (s *Scenario) nicHostLatency() units.Seconds {
	return units.Seconds(s.Topology.NICSwitches) * s.PCIe.SwitchLatency
}

// stagedSocket is what a bounce buffer next to the GPU costs the NIC's DMA
// when GPU and NIC sit on different sockets: one inter-socket crossing
// each way of a transaction (host buffers of the host paths are
// socket-local and pay none).
func (s *Scenario) stagedSocket(at bufAt) bool { return at == atBounce && s.Topology.GPUNIC == SYS }

// nicRead is stage C: the NIC takes the doorbell (the work request comes
// with it, written by the CPU through the NIC's BAR: a posted write across
// the NIC's switch levels), DMA-reads the payload from host memory or
// (atGPU) from GPU memory and streams it out packet by packet. A small
// send from host memory may be inline: the CPU wrote the payload into the
// work request, so no DMA read round trip.
func (s *Scenario) nicRead(at bufAt, inline bool, w wireFormat) Stage {
	c := Stage{Name: "NIC DMA read (host memory)", Letter: "C", Side: Sender, Crossings: 1, Grain: w.payload,
		What: "the NIC takes the doorbell and work request, DMA-reads the payload from host DDR over its PCIe link and sends it packet by packet"}
	doorbell := s.PCIe.WriteLatency + s.nicHostLatency()
	c.PerPacket, c.Packet = units.Seconds(1/s.NIC.MessageRate), w.payload // the NIC engine's per-packet work
	read := s.PCIe.ReadLatency + 2*s.nicHostLatency()
	if at == atGPU {
		// gpu.bar_read_latency is measured as what a read of GPU memory
		// takes beyond a read of host memory on the same host (the
		// perftest fixtures): the peer read is charged the host read's
		// path, that, and the class's extra both ways.
		c.Name = "NIC DMA read (GPU memory, P2P)"
		c.What = fmt.Sprintf("the NIC takes the doorbell, then DMA-reads the payload straight from GPU memory through the GPU's BAR1 by PCIe peer-to-peer (%s) at %s; GPU memory cannot be inlined", s.Topology.GPUNIC, s.PeerReadRate().Human())
		c.Alpha = doorbell + read + s.GPU.BARReadLatency + 2*s.peerExtraLatency() + s.NIC.Latency // a read is a round trip
		c.PerByte = units.Seconds(1 / float64(s.PeerReadRate()))
		c.Uses = []Use{{Resource: "pcie:sender-gpu:up", PerByte: 1}, {Resource: "pcie:sender-nic:down", PerByte: 1}, {Resource: "p2p:sender", PerByte: 1}}
		return c
	}
	c.PerByte = units.Seconds(1 / float64(s.nicLinkRate()))
	c.DDR = 1
	c.Uses = []Use{{Resource: "pcie:sender-nic:down", PerByte: 1}, {Resource: "ddr:sender", PerByte: 1}}
	if s.stagedSocket(at) { // the bounce buffer sits on the GPU's socket: the NIC reads it across sockets
		read += 2 * s.Topology.InterSocketLatency
		c.Uses = append(c.Uses, Use{Resource: "socket:sender", PerByte: 1})
		c.What += "; the bounce buffer sits on the GPU's socket, so the read crosses the inter-socket link"
	}
	c.Alpha = doorbell + read + s.NIC.Latency
	if inline && s.NIC.InlineSize > 0 {
		c.SmallMax = s.NIC.InlineSize
		c.SmallAlpha = doorbell + s.NIC.Latency
		c.What += fmt.Sprintf("; up to %s the payload rides inline in the work request (nic.inline_size): no DMA read", s.NIC.InlineSize)
	}
	return c
}

// nicWrite is stage E: the receiving NIC writes the payload and then the
// completion (a posted write each, across the NIC's switch levels to host
// memory; the payload by peer-to-peer when it goes to GPU memory).
func (s *Scenario) nicWrite(at bufAt, w wireFormat) Stage {
	e := Stage{Name: "NIC DMA write (host memory)", Letter: "E", Side: Receiver, Crossings: 1, Grain: w.payload,
		What: "the receiving NIC DMA-writes the payload into host DDR over its PCIe link, packet by packet as it arrives, then the completion"}
	e.Alpha = s.NIC.Latency + s.PCIe.WriteLatency + s.nicHostLatency()
	e.PerPacket, e.Packet = units.Seconds(1/s.NIC.MessageRate), w.payload
	if at == atGPU {
		e.Name = "NIC DMA write (GPU memory, P2P)"
		e.What = fmt.Sprintf("the receiving NIC DMA-writes the payload straight into GPU memory by PCIe peer-to-peer (%s) at %s, then the completion into host memory", s.Topology.GPUNIC, s.PeerWriteRate().Human())
		e.Alpha += s.peerExtraLatency()
		e.PerByte = units.Seconds(1 / float64(s.PeerWriteRate()))
		e.Uses = []Use{{Resource: "pcie:receiver-nic:up", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}, {Resource: "p2p:receiver", PerByte: 1}}
		return e
	}
	e.PerByte = units.Seconds(1 / float64(s.nicLinkRate()))
	e.DDR = 1
	e.Uses = []Use{{Resource: "pcie:receiver-nic:up", PerByte: 1}, {Resource: "ddr:receiver", PerByte: 1}}
	if s.stagedSocket(at) {
		e.Alpha += s.Topology.InterSocketLatency
		e.Uses = append(e.Uses, Use{Resource: "socket:receiver", PerByte: 1})
		e.What += "; the bounce buffer sits on the GPU's socket, so the writes cross the inter-socket link"
	}
	return e
}

// wireStage is stage D: serialisation with per-packet headers, switch hops
// (cut-through) and propagation, packet by packet.
func (s *Scenario) wireStage(w wireFormat) Stage {
	rate := float64(w.rate)
	return Stage{Name: "wire", Letter: "D", Side: Network, Grain: w.payload,
		What: fmt.Sprintf("%s at %s of data (nic.rate %s as sold): %s payload and %d header bytes per packet, %d switch hop(s), %s of cable",
			w.label, w.rate.Gbits(), s.NIC.Rate.Gbits(), w.payload, w.overhead, s.Network.Hops, s.Network.Cable),
		Alpha:     w.latency + units.Seconds(float64(w.perMessage)/rate),
		Occupancy: units.Seconds(float64(w.perMessage) / rate), // per-message headers occupy the wire; hops and propagation do not
		PerByte:   units.Seconds(1 / rate),
		PerPacket: units.Seconds(float64(w.overhead) / rate),
		Packet:    w.payload,
	}
}

// nonCPU keeps the uses of resources other than CPUs.
func nonCPU(uses []Use) []Use {
	var out []Use
	for _, u := range uses {
		if !strings.HasPrefix(u.Resource, "cpu:") {
			out = append(out, u)
		}
	}
	return out
}
