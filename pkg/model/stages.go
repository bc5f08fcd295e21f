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

// hostTCPStages are B–F of the TCP path; with devmem the payload never
// touches DDR or the CPU (the NIC reads and writes GPU memory).
func (s *Scenario) hostTCPStages(devmem bool) []Stage {
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

	// F: receive. With GRO the driver merges the packets of a flow into
	// aggregates of up to stack.gro_size and IP/TCP runs once per
	// aggregate; without GRO every packet climbs the stack on its own.
	fr := Stage{Name: "TCP/IP receive + kernel→user copy", Letter: "F", Side: Receiver, OnCPU: true, Parallel: f,
		What: "interrupt and NAPI poll, GRO, IP/TCP input per aggregate, checksum check (unless offloaded), ACKs, waking the reader; recv() copies the payload from socket buffers to user memory as it arrives",
		Copy: true, DDR: 2, PerPacket: s.Stack.RxPerPacket, Packet: w.payload}
	if s.NIC.GRO && s.NIC.Kind != KindLoopback {
		fr.PerSegment, fr.Segment = s.Stack.RxPerAggregate, s.Stack.GROSize
		fr.Grain = s.Stack.GROSize
	} else {
		fr.PerPacket += s.Stack.RxPerAggregate
		fr.Grain = w.payload
	}
	cpuF := s.Stack.RxPerMessage + s.Stack.Wakeup + s.Stack.Syscall
	fr.Alpha = s.NIC.IRQLatency + cpuF
	fr.PerByte = units.Seconds(1 / float64(s.CPU.MemcpyRate))
	if devmem {
		fr.Name = "devmem receive (headers only)"
		fr.What = "the CPU runs TCP on the headers the NIC split off; the payload is already in GPU memory, and recvmsg() returns tokens that point at it (given back with SO_DEVMEM_DONTNEED)"
		fr.Copy, fr.DDR, fr.PerByte = false, 0, 0
	}
	if !s.NIC.ChecksumOffload && !devmem {
		fr.PerByte += units.Seconds(1 / float64(s.Stack.ChecksumRate))
	}
	if s.NIC.Kind == KindLoopback {
		fr.Alpha = cpuF // no interrupt: loopback delivers in softirq context on the sending core
		fr.What = "IP/TCP input on the loopback device (softirq), waking the reader; recv() copies the payload from socket buffers to user memory"
	}
	fr.Occupancy = cpuF
	fr.CPUPerMessage, fr.CPUPerByte, fr.CPUPerPacket, fr.CPUPerSegment = cpuF, fr.PerByte, fr.PerPacket, fr.PerSegment
	fr.Uses = []Use{{Resource: "cpu:receiver", PerMessage: float64(cpuF), PerByte: float64(fr.PerByte), PerPacket: float64(fr.PerPacket), Packet: fr.Packet}}
	if fr.Segment > 0 {
		fr.Uses = append(fr.Uses, Use{Resource: "cpu:receiver", PerPacket: float64(fr.PerSegment), Packet: fr.Segment})
	}
	if fr.DDR > 0 {
		fr.Uses = append(fr.Uses, Use{Resource: "ddr:receiver", PerByte: fr.DDR})
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
		return []Stage{b, lo, fr}
	}
	c := s.nicRead(devmem, false, w)
	d := s.wireStage(w)
	e := s.nicWrite(devmem, w)
	return []Stage{b, c, d, e, fr}
}

// rdmaStages are B–F of the RDMA paths: post, NIC read, wire, NIC write,
// poll; from and to GPU memory (gdr) a CPU proxy thread posts and polls
// for the GPU, and a GPU before Hopper needs a flush.
func (s *Scenario) rdmaStages(gpu bool) []Stage {
	w := s.rdmaWire()
	postCPU := s.NIC.PostCost
	post := Stage{Name: "post work request", Letter: "B", Side: Sender, OnCPU: true,
		What: "ibv_post_send: the CPU writes a work request and rings the NIC's doorbell — no copy, no protocol work"}
	pollCPU := s.NIC.PollCost
	poll := Stage{Name: "poll completion", Letter: "F", Side: Receiver, OnCPU: true,
		What: "ibv_poll_cq: the receiver's CPU sees the completion the NIC wrote; the payload is already in place"}
	if gpu && s.GPU.ProxyOverhead > 0 {
		postCPU += s.GPU.ProxyOverhead
		pollCPU += s.GPU.ProxyOverhead
		post.Name = "proxy posts work request"
		post.What = fmt.Sprintf("the GPU kernel hands the send to a CPU proxy thread, which sees it and posts the work request (gpu.proxy_overhead %s + nic.post_cost)", s.GPU.ProxyOverhead.Human())
		poll.Name = "proxy polls completion"
		poll.What = fmt.Sprintf("the receiver's proxy thread polls the completion and tells the GPU kernel that the data is in place (nic.poll_cost + gpu.proxy_overhead %s)", s.GPU.ProxyOverhead.Human())
	}
	post.Alpha, post.Occupancy, post.CPUPerMessage = postCPU, postCPU, postCPU
	post.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(postCPU)}}
	poll.Alpha, poll.Occupancy, poll.CPUPerMessage = pollCPU, pollCPU, pollCPU
	poll.Uses = []Use{{Resource: "cpu:receiver", PerMessage: float64(pollCPU)}}
	st := []Stage{post, s.nicRead(gpu, !gpu, w), s.wireStage(w), s.nicWrite(gpu, w), poll}
	if gpu && s.GPU.GDRFlush {
		st = append(st, s.gdrFlush())
	}
	return st
}

// gdrFlush is the receiver's flush before the GPU may read what the NIC
// wrote (GPUs before Hopper): the proxy posts an RDMA read of one word of
// the GPU buffer through the NIC (its completion orders the earlier
// writes) and polls for it — a host-driven round trip inside one node.
func (s *Scenario) gdrFlush() Stage {
	cpu := s.NIC.PostCost + s.NIC.PollCost
	a := cpu + 2*(s.PCIe.WriteLatency+s.NIC.Latency) + s.PCIe.ReadLatency + s.GPU.BARReadLatency + 2*s.peerExtraLatency()
	return Stage{Name: "GDR flush (read through the NIC)", Side: Receiver, Alpha: a, Occupancy: a, CPUPerMessage: cpu,
		What: "the receiver's proxy posts an RDMA read of one word of the GPU buffer to the local NIC and waits for it: the read's completion makes the NIC's earlier writes visible to the GPU (needed on Ampere and earlier, gpu.gdr_flush)",
		Uses: []Use{{Resource: "cpu:receiver", PerMessage: float64(cpu)}}}
}

// nicRead is stage C: the NIC takes the doorbell (the work request comes
// with it, written by the CPU through the NIC's BAR), DMA-reads the payload
// from host memory or (peer) from GPU memory and streams it out packet by
// packet. A small send from host memory may be inline: the CPU wrote the
// payload into the work request, so no DMA read round trip.
func (s *Scenario) nicRead(fromGPU, inline bool, w wireFormat) Stage {
	c := Stage{Name: "NIC DMA read (host memory)", Letter: "C", Side: Sender, Crossings: 1, Grain: w.payload,
		What: "the NIC takes the doorbell and work request, DMA-reads the payload from host DDR over its PCIe link and sends it packet by packet"}
	c.Alpha = s.PCIe.WriteLatency + s.PCIe.ReadLatency + s.NIC.Latency
	c.PerPacket, c.Packet = units.Seconds(1/s.NIC.MessageRate), w.payload // the NIC engine's per-packet work
	if fromGPU {
		c.Name = "NIC DMA read (GPU memory, P2P)"
		c.What = fmt.Sprintf("the NIC DMA-reads the payload straight from GPU memory through the GPU's BAR1 by PCIe peer-to-peer (%s) at %s; GPU memory cannot be inlined", s.Topology.GPUNIC, s.PeerReadRate().Human())
		c.Alpha += s.GPU.BARReadLatency + 2*s.peerExtraLatency() // a read is a round trip
		c.PerByte = units.Seconds(1 / float64(s.PeerReadRate()))
		c.Uses = []Use{{Resource: "pcie:sender-gpu:up", PerByte: 1}, {Resource: "pcie:sender-nic:down", PerByte: 1}, {Resource: "p2p:sender", PerByte: 1}}
	} else {
		c.Alpha += 2 * s.stagedExtraLatency()
		c.PerByte = units.Seconds(1 / float64(s.nicLinkRate()))
		c.DDR = 1
		c.Uses = []Use{{Resource: "pcie:sender-nic:down", PerByte: 1}, {Resource: "ddr:sender", PerByte: 1}}
		if s.Topology.GPUNIC == SYS { // the bounce buffer sits on the GPU's socket: the NIC reads it across sockets
			c.Uses = append(c.Uses, Use{Resource: "socket:sender", PerByte: 1})
		}
		if inline && s.NIC.InlineSize > 0 {
			c.SmallMax = s.NIC.InlineSize
			c.SmallAlpha = s.PCIe.WriteLatency + s.NIC.Latency
			c.What += fmt.Sprintf("; up to %s the payload rides inline in the work request (nic.inline_size): no DMA read", s.NIC.InlineSize)
		}
	}
	return c
}

// nicWrite is stage E.
func (s *Scenario) nicWrite(toGPU bool, w wireFormat) Stage {
	e := Stage{Name: "NIC DMA write (host memory)", Letter: "E", Side: Receiver, Crossings: 1, Grain: w.payload,
		What: "the receiving NIC DMA-writes the payload into host DDR over its PCIe link, packet by packet as it arrives"}
	e.Alpha = s.NIC.Latency + s.PCIe.WriteLatency
	e.PerPacket, e.Packet = units.Seconds(1/s.NIC.MessageRate), w.payload
	if toGPU {
		e.Name = "NIC DMA write (GPU memory, P2P)"
		e.What = fmt.Sprintf("the receiving NIC DMA-writes the payload straight into GPU memory by PCIe peer-to-peer (%s) at %s", s.Topology.GPUNIC, s.PeerWriteRate().Human())
		e.Alpha += s.peerExtraLatency()
		e.PerByte = units.Seconds(1 / float64(s.PeerWriteRate()))
		e.Uses = []Use{{Resource: "pcie:receiver-nic:up", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}, {Resource: "p2p:receiver", PerByte: 1}}
	} else {
		e.Alpha += s.stagedExtraLatency()
		e.PerByte = units.Seconds(1 / float64(s.nicLinkRate()))
		e.DDR = 1
		e.Uses = []Use{{Resource: "pcie:receiver-nic:up", PerByte: 1}, {Resource: "ddr:receiver", PerByte: 1}}
		if s.Topology.GPUNIC == SYS {
			e.Uses = append(e.Uses, Use{Resource: "socket:receiver", PerByte: 1})
		}
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
