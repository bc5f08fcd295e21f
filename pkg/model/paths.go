package model

import (
	"fmt"
	"strings"
)

// Path is a named data path: how a message gets from a buffer on one node
// to a buffer on the other. Paths are data: Stages builds the ordered stage
// table for a scenario, or says why the path is infeasible there.
type Path struct {
	Name  string
	Title string
	// Story says in a sentence or two what happens, as the seed tells it.
	Story string
	// GPU is true when the path starts and ends in GPU memory.
	GPU bool
	// Internode is false for paths that stay inside one node (gpu-peer).
	Internode bool
	build     func(s *Scenario) ([]Stage, string)
}

// Route is a path resolved for one scenario: its stages and the resources
// they share, ready to be evaluated at any message size.
type Route struct {
	Path      Path
	Feasible  bool
	Reason    string // why not, when infeasible
	Stages    []Stage
	Resources []Resource
	Chunk     Bytes

	loads []resourceUses // Resources with the uses that load them, built once
	// chunkPeriod is the pipeline's period for a full chunk, built once.
	chunkPeriod Seconds
	periodKnown bool
}

var paths = []Path{
	{Name: "tcp", Title: "TCP/IP, host-staged", GPU: true, Internode: true,
		Story: "GPU → cudaMemcpy → DDR → user-to-kernel copy → TCP/IP stack on the CPU → NIC → wire → NIC → DDR → receive stack → kernel-to-user copy → cudaMemcpy → GPU. Four explicit copies; the CPU works at every step.",
		build: buildTCP},
	{Name: "rdma", Title: "RDMA, host-staged", GPU: true, Internode: true,
		Story: "The NIC does the protocol and reads/writes registered host memory (no CPU copies), but the payload still goes GPU → DDR → … → DDR → GPU through two cudaMemcpys.",
		build: buildRDMA},
	{Name: "gdr", Title: "GPUDirect RDMA", GPU: true, Internode: true,
		Story: "The NIC reads and writes GPU memory directly by PCIe peer-to-peer through the GPU's BAR1: no host copy, no DDR traffic for the payload.",
		build: buildGDR},
	{Name: "devmem", Title: "Device-memory TCP (header/data split)", GPU: true, Internode: true,
		Story: "Linux devmem TCP: the CPU still runs TCP, but only on headers; the NIC splits each packet, headers to host memory and payload straight to GPU memory (dma-buf), and transmits payload it reads from the GPU.",
		build: buildDevmem},
	{Name: "p2p-plain-nic", Title: "Plain NIC with P2P DMA (the seed's idea)", GPU: true, Internode: true,
		Story: "GPU and NIC under one PCIe switch; the NIC DMA-reads raw GPU data by peer-to-peer. An ordinary NIC only sends finished packets, so nobody builds the headers.",
		build: buildPlainNIC},
	{Name: "host-tcp", Title: "TCP/IP, host to host", Internode: true,
		Story: "The familiar socket path between host buffers: the reference for the 10–20 µs TCP figure.",
		build: buildHostTCP},
	{Name: "host-rdma", Title: "RDMA, host to host", Internode: true,
		Story: "Verbs between registered host buffers: the reference for the 2–5 µs RDMA figure.",
		build: buildHostRDMA},
	{Name: "gpu-peer", Title: "GPU to GPU inside a node", GPU: true,
		Story: "A peer copy between two GPUs of one node, over NVLink where there is one, else PCIe peer-to-peer.",
		build: buildGPUPeer},
}

// Paths lists every path in presentation order.
func Paths() []Path { return append([]Path(nil), paths...) }

// PathNames lists the path names in presentation order.
func PathNames() []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p.Name
	}
	return out
}

// LookupPath finds a path by name.
func LookupPath(name string) (Path, error) {
	for _, p := range paths {
		if p.Name == name {
			return p, nil
		}
	}
	return Path{}, fmt.Errorf("unknown path %q (paths: %s)", name, strings.Join(PathNames(), ", "))
}

// ParsePaths parses a comma-separated list of path names; "" or "all" means every path.
func ParsePaths(list string) ([]Path, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		return Paths(), nil
	}
	var out []Path
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		p, err := LookupPath(name)
		if err != nil {
			return nil, &InputError{Key: "--paths", Err: err}
		}
		seen[name] = true
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, &InputError{Key: "--paths", Err: fmt.Errorf("no path in %q", list)}
	}
	return out, nil
}

// Route resolves the path for scenario s.
func (p Path) Route(s *Scenario) *Route {
	stages, reason := p.build(s)
	r := &Route{Path: p, Feasible: reason == "", Reason: reason, Stages: stages,
		Resources: s.resources(), Chunk: s.Pipeline.Chunk}
	r.loads = indexUses(r.Stages, r.Resources)
	if r.Feasible && r.Chunk > 0 {
		r.chunkPeriod, r.periodKnown = period(r.Stages, r.loads, r.Chunk), true
	}
	return r
}

// --- the paths -------------------------------------------------------------

func buildTCP(s *Scenario) ([]Stage, string) {
	// The CPU's socket copies read and write the bounce buffer: its copies
	// are cached-buffer copies.
	st := []Stage{s.handoff(s.cached(s.copyD2H()))}
	st = append(st, s.hostTCPStages(false)...)
	return append(st, s.handoff(s.cached(s.copyH2D()))), ""
}

// handoff adds stack.handoff to a copy stage of the tcp path: the thread
// that runs the copy also runs the socket system calls before or after it.
func (s *Scenario) handoff(c Stage) Stage {
	h := s.Stack.Handoff
	if h <= 0 {
		return c
	}
	c.Alpha += h
	c.Occupancy += h
	c.CPUPerMessage += h
	for i := range c.Uses {
		if c.Uses[i].PerMessage > 0 {
			c.Uses[i].PerMessage += float64(h)
		}
	}
	c.What += fmt.Sprintf("; plus %s of hand-off between the copy and the socket calls on one thread (stack.handoff)", h.Human())
	return c
}

// cached turns a copy stage into a copy of a buffer the CPU has in its
// caches, when the scenario says what that costs (gpu.cached_copy_*).
func (s *Scenario) cached(c Stage) Stage {
	if s.GPU.CachedLatency == 0 && s.GPU.CachedRate == 0 {
		return c
	}
	if s.GPU.CachedLatency > 0 {
		c.Alpha, c.Occupancy, c.CPUPerMessage = s.GPU.CachedLatency, s.GPU.CachedLatency, s.GPU.CachedLatency
		for i := range c.Uses {
			if c.Uses[i].PerMessage > 0 {
				c.Uses[i].PerMessage = float64(s.GPU.CachedLatency)
			}
		}
	}
	if s.GPU.CachedRate > 0 {
		plain := c.PerByte
		c.PerByte = Seconds(1 / float64(s.GPU.CachedRate))
		if s.GPU.CachedKnee > 0 {
			c.Knee, c.PerByteBeyond = s.GPU.CachedKnee, plain
		}
	}
	c.What += "; the CPU has the host buffer in its caches (its socket copy touched it), so the DMA snoops them"
	return c
}

func buildHostTCP(s *Scenario) ([]Stage, string) { return s.hostTCPStages(false), "" }

func buildRDMA(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	st := []Stage{s.copyD2H()}
	st = append(st, s.rdmaStages(false)...)
	return append(st, s.copyH2D()), ""
}

func buildHostRDMA(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	return s.rdmaStages(false), ""
}

func buildGDR(s *Scenario) ([]Stage, string) {
	if why := s.noRDMA(); why != "" {
		return nil, why
	}
	return s.rdmaStages(true), ""
}

func buildDevmem(s *Scenario) ([]Stage, string) {
	if s.NIC.Kind == KindLoopback {
		return nil, "infeasible: devmem TCP moves payload between a NIC and GPU memory, and the loopback device is no NIC"
	}
	if s.NIC.Kind == KindIB {
		return nil, "infeasible: devmem TCP needs an Ethernet NIC that splits headers from payload; TCP over InfiniBand (IPoIB) has no header/data split"
	}
	var missing []string
	if !s.NIC.HeaderSplit {
		missing = append(missing, "header split (nic.header_split)")
	}
	if !s.NIC.FlowSteering {
		missing = append(missing, "flow steering (nic.flow_steering)")
	}
	if !s.NIC.ChecksumOffload {
		missing = append(missing, "checksum offload (nic.checksum_offload)")
	}
	if len(missing) > 0 {
		return nil, "infeasible: devmem TCP needs header split, flow steering and checksum offload on the NIC (headers to host memory, payload to GPU memory, and the CPU never reads the payload to checksum it); this NIC lacks " + strings.Join(missing, ", ")
	}
	return s.hostTCPStages(true), ""
}

// PlainNICReason is why the seed's first idea cannot work.
const PlainNICReason = "infeasible: the NIC could DMA-read raw GPU data by PCIe peer-to-peer, but an ordinary NIC transmits only finished packets — it has no transport engine to build TCP/IP headers, segment, checksum and retransmit, and no CPU sees the payload to do it. Headers must come from a CPU (devmem TCP: header/data split) or from protocol offload on the NIC (RDMA: gdr)."

func buildPlainNIC(s *Scenario) ([]Stage, string) {
	return nil, PlainNICReason
}

func buildGPUPeer(s *Scenario) ([]Stage, string) {
	st := Stage{Side: Sender, Copy: true, Alpha: s.GPU.CopyLatency, Occupancy: s.GPU.CopyLatency,
		CPUPerMessage: s.GPU.CopyLatency}
	if s.GPU.NVLinkRate > 0 {
		st.Name = "peer copy over NVLink"
		st.What = "the copy engine moves the payload from one GPU's memory to the other's over NVLink; no PCIe, no DDR"
		st.PerByte = Seconds(1 / float64(s.GPU.NVLinkRate))
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(s.GPU.CopyLatency)}}
	} else {
		link := s.GPU.PCIe.Rate(s.PCIe.MPS)
		st.Name = "peer copy over PCIe"
		st.What = "the copy engine moves the payload between the two GPUs by PCIe peer-to-peer (no NVLink)"
		st.PerByte = Seconds(1 / float64(link))
		st.Crossings = 1
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(s.GPU.CopyLatency)},
			{Resource: "pcie:sender-gpu:up", PerByte: 1}}
	}
	return []Stage{st}, ""
}

func (s *Scenario) noRDMA() string {
	switch {
	case s.NIC.Kind == KindLoopback:
		return "infeasible: RDMA needs an RDMA NIC, and the loopback device is none"
	case !s.NIC.RDMA:
		return fmt.Sprintf("infeasible: the NIC has no RDMA (nic.rdma: false, nic.kind: %s), so nothing offloads the transport", s.NIC.Kind)
	}
	return ""
}

// --- stages ------------------------------------------------------------

func (s *Scenario) gpuLinkRate() Rate { return s.GPU.PCIe.Rate(s.PCIe.MPS) }

// CopyRate is the pinned host↔GPU copy bandwidth: the measured gpu.copy_rate
// when given, else the GPU's PCIe link rate.
func (s *Scenario) CopyRate() Rate {
	if s.GPU.CopyRate > 0 {
		return s.GPU.CopyRate
	}
	return s.gpuLinkRate()
}
func (s *Scenario) nicLinkRate() Rate { return s.NIC.PCIe.Rate(s.PCIe.MPS) }

// PeerRate is the GPU↔NIC peer-to-peer bandwidth: the slower of the two
// links, reduced by the topology factor when the traffic leaves the switch.
func (s *Scenario) PeerRate() Rate {
	r := min(s.gpuLinkRate(), s.nicLinkRate())
	return r * Rate(s.TopologyFactor())
}

// TopologyFactor is the fraction of the link rate that GPU↔NIC peer
// traffic reaches: 1 under one switch tree (PIX, PXB), the scenario's
// factors beyond.
func (s *Scenario) TopologyFactor() float64 {
	switch s.Topology.GPUNIC {
	case PHB:
		return s.Topology.PHBFactor
	case NODE:
		return s.Topology.NodeFactor
	case SYS:
		return s.Topology.SysFactor
	}
	return 1
}

// peerExtraLatency is the one-way latency a GPU↔NIC peer transfer adds to
// a host-memory DMA for the topology class: a second switch level for PXB;
// up to the root complex and down again for PHB; plus half (NODE) or one
// (SYS) inter-socket crossing.
func (s *Scenario) peerExtraLatency() Seconds {
	sw := s.PCIe.SwitchLatency
	switch s.Topology.GPUNIC {
	case PXB:
		return sw
	case PHB:
		return 2 * sw
	case NODE:
		return 2*sw + s.Topology.InterSocketLatency/2
	case SYS:
		return 2*sw + s.Topology.InterSocketLatency
	}
	return 0
}

// stagedExtraLatency is what a host-staged path pays when GPU and NIC sit
// on different sockets: the bounce buffer is local to one of them, so the
// NIC's DMA crosses the inter-socket link.
func (s *Scenario) stagedExtraLatency() Seconds {
	if s.Topology.GPUNIC == SYS {
		return s.Topology.InterSocketLatency
	}
	return 0
}

func (s *Scenario) flows() int { return min(s.Stack.Flows, s.CPU.Cores) }

func (s *Scenario) resources() []Resource {
	f := s.flows()
	cores := "1 core"
	if f > 1 {
		cores = fmt.Sprintf("%d cores", f)
	}
	return []Resource{
		{Name: "cpu:sender", Label: "sender CPU (" + cores + ")", Capacity: float64(f), CPU: true},
		{Name: "cpu:receiver", Label: "receiver CPU (" + cores + ")", Capacity: float64(f), CPU: true},
		{Name: "ddr:sender", Label: "sender DDR", Capacity: float64(s.Memory.Rate)},
		{Name: "ddr:receiver", Label: "receiver DDR", Capacity: float64(s.Memory.Rate)},
		{Name: "pcie:sender-gpu:up", Label: "sender GPU PCIe link (from GPU)", Capacity: float64(s.gpuLinkRate())},
		{Name: "pcie:sender-nic:down", Label: "sender NIC PCIe link (to NIC)", Capacity: float64(s.nicLinkRate())},
		{Name: "pcie:receiver-nic:up", Label: "receiver NIC PCIe link (from NIC)", Capacity: float64(s.nicLinkRate())},
		{Name: "pcie:receiver-gpu:down", Label: "receiver GPU PCIe link (to GPU)", Capacity: float64(s.gpuLinkRate())},
		{Name: "p2p:sender", Label: "sender GPU↔NIC peer path (" + string(s.Topology.GPUNIC) + ")", Capacity: float64(s.PeerRate())},
		{Name: "p2p:receiver", Label: "receiver GPU↔NIC peer path (" + string(s.Topology.GPUNIC) + ")", Capacity: float64(s.PeerRate())},
	}
}

func (s *Scenario) copyD2H() Stage {
	return Stage{Name: "cudaMemcpy D2H", Letter: "A", Side: Sender, Copy: true,
		What:  "the GPU's copy engine moves the payload over PCIe into a pinned host buffer in DDR (synchronous cudaMemcpy device→host)",
		Alpha: s.GPU.CopyLatency, Occupancy: s.GPU.CopyLatency, PerByte: Seconds(1 / float64(s.CopyRate())),
		CPUPerMessage: s.GPU.CopyLatency, DDR: 1, Crossings: 1,
		Uses: []Use{{Resource: "cpu:sender", PerMessage: float64(s.GPU.CopyLatency)},
			{Resource: "ddr:sender", PerByte: 1}, {Resource: "pcie:sender-gpu:up", PerByte: 1}}}
}

func (s *Scenario) copyH2D() Stage {
	return Stage{Name: "cudaMemcpy H2D", Letter: "G", Side: Receiver, Copy: true,
		What:  "the GPU's copy engine moves the payload from the pinned host buffer over PCIe into GPU memory (synchronous cudaMemcpy host→device)",
		Alpha: s.GPU.CopyLatency, Occupancy: s.GPU.CopyLatency, PerByte: Seconds(1 / float64(s.CopyRate())),
		CPUPerMessage: s.GPU.CopyLatency, DDR: 1, Crossings: 1,
		Uses: []Use{{Resource: "cpu:receiver", PerMessage: float64(s.GPU.CopyLatency)},
			{Resource: "ddr:receiver", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}}}
}

// noGROFactor: without GRO every packet climbs the IP/TCP stack on its own.
// Assumption: twice the per-packet cost (Cai et al., SIGCOMM 2021, show GRO
// as one of the largest single savings of receive-side cycles per byte).
const noGROFactor = 2

// hostTCPStages are B–F of the TCP path; with devmem the payload never
// touches DDR or the CPU (the NIC reads and writes GPU memory).
func (s *Scenario) hostTCPStages(devmem bool) []Stage {
	w := s.tcpWire()
	f := s.flows()

	// B: send.
	b := Stage{Name: "socket send + TCP/IP transmit", Letter: "B", Side: Sender, OnCPU: true, Parallel: f,
		What: "send(): the CPU copies the payload from user memory into kernel socket buffers, then TCP segments it, computes checksums (unless offloaded) and handles ACKs and the window",
		Copy: true, DDR: 2}
	b.Alpha = s.Stack.Syscall + s.Stack.TxPerMessage
	b.PerByte = Seconds(1 / float64(s.CPU.MemcpyRate))
	if devmem {
		b.Name = "devmem send + TCP/IP transmit"
		b.What = "sendmsg() of dma-buf pages: the CPU builds TCP/IP headers and hands the NIC descriptors that point into GPU memory; the payload is neither copied nor read"
		b.Copy, b.DDR, b.PerByte = false, 0, 0
	}
	if !s.NIC.ChecksumOffload && !devmem {
		b.PerByte += Seconds(1 / float64(s.Stack.ChecksumRate))
	}
	if s.NIC.TSO {
		b.PerPacket, b.Packet = s.Stack.TxPerSegment, s.Stack.TSOSize
	} else {
		b.PerPacket, b.Packet = s.Stack.TxPerSegment, w.payload
	}
	if s.NIC.Kind == KindLoopback {
		b.PerPacket, b.Packet = s.Stack.TxPerSegment, w.payload
	}
	b.Occupancy = b.Alpha
	b.CPUPerMessage, b.CPUPerByte, b.CPUPerPacket = b.Alpha, b.PerByte, b.PerPacket
	b.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(b.Alpha), PerByte: float64(b.PerByte), PerPacket: float64(b.PerPacket), Packet: b.Packet}}
	if b.DDR > 0 {
		b.Uses = append(b.Uses, Use{Resource: "ddr:sender", PerByte: b.DDR})
	}

	// F: receive.
	rxPkt := s.Stack.RxPerPacket
	if !s.NIC.GRO {
		rxPkt *= noGROFactor
	}
	fr := Stage{Name: "TCP/IP receive + kernel→user copy", Letter: "F", Side: Receiver, OnCPU: true, Parallel: f,
		What: "interrupt and NAPI poll, IP/TCP input and reassembly (GRO), checksum check (unless offloaded), ACKs, waking the reader; recv() copies the payload from socket buffers to user memory",
		Copy: true, DDR: 2, PerPacket: rxPkt, Packet: w.payload}
	cpuF := s.Stack.RxPerMessage + s.Stack.Wakeup + s.Stack.Syscall
	fr.Alpha = s.NIC.IRQLatency + cpuF
	fr.PerByte = Seconds(1 / float64(s.CPU.MemcpyRate))
	if devmem {
		fr.Name = "devmem receive (headers only)"
		fr.What = "the CPU runs TCP on the headers the NIC split off; the payload is already in GPU memory, and recvmsg() returns tokens that point at it (given back with SO_DEVMEM_DONTNEED)"
		fr.Copy, fr.DDR, fr.PerByte = false, 0, 0
	}
	if !s.NIC.ChecksumOffload && !devmem {
		fr.PerByte += Seconds(1 / float64(s.Stack.ChecksumRate))
	}
	if s.NIC.Kind == KindLoopback {
		fr.Alpha = cpuF // no interrupt: loopback delivers in softirq context on the sending core
		fr.What = "IP/TCP input on the loopback device (softirq), waking the reader; recv() copies the payload from socket buffers to user memory"
	}
	fr.Occupancy = cpuF
	fr.CPUPerMessage, fr.CPUPerByte, fr.CPUPerPacket = cpuF, fr.PerByte, fr.PerPacket
	fr.Uses = []Use{{Resource: "cpu:receiver", PerMessage: float64(cpuF), PerByte: float64(fr.PerByte), PerPacket: float64(fr.PerPacket), Packet: fr.Packet}}
	if fr.DDR > 0 {
		fr.Uses = append(fr.Uses, Use{Resource: "ddr:receiver", PerByte: fr.DDR})
	}

	if s.NIC.Kind == KindLoopback && s.Loopback.Rate > 0 && !devmem {
		// Calibrated: the measured one-way loopback transfer t = α + n/β
		// replaces the modeled B and F. Its fixed cost is split between
		// send and receive; its per-byte time sits on the send stage, since
		// the receive copy overlaps it (TCP streams segment by segment).
		half := s.Loopback.Latency / 2
		mb, mf := b, fr
		// Their times are measured, not modeled CPU work: each is a stage of
		// its own in the pipeline (the CPU costs stay in the CPU resources).
		mb.OnCPU, mf.OnCPU = false, false
		mb.Name, mb.What = "send over loopback (measured)", "send(): socket copy and TCP transmit, from the measured one-way loopback transfer (α/2 and all of n/β)"
		mb.Alpha, mb.Occupancy, mb.PerByte, mb.PerPacket, mb.Packet = half, half, Seconds(1/float64(s.Loopback.Rate)), 0, 0
		if s.Loopback.Knee > 0 && s.Loopback.RateBeyond > 0 {
			mb.Knee, mb.PerByteBeyond = s.Loopback.Knee, Seconds(1/float64(s.Loopback.RateBeyond))
		}
		if s.Loopback.StreamRate > 0 {
			mb.StreamPerByte = Seconds(1 / float64(s.Loopback.StreamRate))
		}
		mf.Name, mf.What = "receive over loopback (measured)", "recv(): TCP receive and socket copy, overlapping the send; from the measured one-way loopback transfer (α/2)"
		mf.Alpha, mf.Occupancy, mf.PerByte, mf.PerPacket, mf.Packet = half, half, 0, 0, 0
		return []Stage{mb, mf}
	}
	if s.NIC.Kind == KindLoopback {
		lo := Stage{Name: "loopback device", Side: Network,
			What: "no NIC and no wire: the kernel hands the segments to the receiving socket (replaces C, D and E)"}
		return []Stage{b, lo, fr}
	}
	c := s.nicRead(devmem, w)
	d := s.wireStage(w)
	e := s.nicWrite(devmem, w)
	return []Stage{b, c, d, e, fr}
}

// rdmaStages are B–F of the RDMA paths: post, NIC read, wire, NIC write, poll.
func (s *Scenario) rdmaStages(gpu bool) []Stage {
	w := s.rdmaWire()
	post := Stage{Name: "post work request", Letter: "B", Side: Sender, OnCPU: true,
		What:  "ibv_post_send: the CPU writes a work request and rings the NIC's doorbell — no copy, no protocol work",
		Alpha: s.NIC.PostCost, Occupancy: s.NIC.PostCost, CPUPerMessage: s.NIC.PostCost,
		Uses: []Use{{Resource: "cpu:sender", PerMessage: float64(s.NIC.PostCost)}}}
	poll := Stage{Name: "poll completion", Letter: "F", Side: Receiver, OnCPU: true,
		What:  "ibv_poll_cq: the receiver's CPU sees the completion the NIC wrote; the payload is already in place",
		Alpha: s.NIC.PollCost, Occupancy: s.NIC.PollCost, CPUPerMessage: s.NIC.PollCost,
		Uses: []Use{{Resource: "cpu:receiver", PerMessage: float64(s.NIC.PollCost)}}}
	return []Stage{post, s.nicRead(gpu, w), s.wireStage(w), s.nicWrite(gpu, w), poll}
}

// nicRead is stage C: the NIC fetches descriptor and payload, from host
// memory or (peer) from GPU memory.
func (s *Scenario) nicRead(fromGPU bool, w wireFormat) Stage {
	c := Stage{Name: "NIC DMA read (host memory)", Letter: "C", Side: Sender, Crossings: 1,
		What: "the NIC takes the doorbell, fetches the descriptor and DMA-reads the payload from host DDR over its PCIe link"}
	c.Alpha = s.PCIe.WriteLatency + s.PCIe.ReadLatency + s.NIC.Latency
	c.PerPacket, c.Packet = Seconds(1/s.NIC.MessageRate), w.payload // the NIC engine's per-packet work
	if fromGPU {
		c.Name = "NIC DMA read (GPU memory, P2P)"
		c.What = fmt.Sprintf("the NIC DMA-reads the payload straight from GPU memory through the GPU's BAR1 by PCIe peer-to-peer (%s)", s.Topology.GPUNIC)
		c.Alpha += 2 * s.peerExtraLatency() // a read is a round trip
		c.PerByte = Seconds(1 / float64(s.PeerRate()))
		c.Uses = []Use{{Resource: "pcie:sender-gpu:up", PerByte: 1}, {Resource: "pcie:sender-nic:down", PerByte: 1}, {Resource: "p2p:sender", PerByte: 1}}
	} else {
		c.Alpha += 2 * s.stagedExtraLatency()
		c.PerByte = Seconds(1 / float64(s.nicLinkRate()))
		c.DDR = 1
		c.Uses = []Use{{Resource: "pcie:sender-nic:down", PerByte: 1}, {Resource: "ddr:sender", PerByte: 1}}
	}
	return c
}

// nicWrite is stage E.
func (s *Scenario) nicWrite(toGPU bool, w wireFormat) Stage {
	e := Stage{Name: "NIC DMA write (host memory)", Letter: "E", Side: Receiver, Crossings: 1,
		What: "the receiving NIC DMA-writes the payload into host DDR over its PCIe link"}
	e.Alpha = s.NIC.Latency + s.PCIe.WriteLatency
	e.PerPacket, e.Packet = Seconds(1/s.NIC.MessageRate), w.payload
	if toGPU {
		e.Name = "NIC DMA write (GPU memory, P2P)"
		e.What = fmt.Sprintf("the receiving NIC DMA-writes the payload straight into GPU memory by PCIe peer-to-peer (%s)", s.Topology.GPUNIC)
		e.Alpha += s.peerExtraLatency()
		e.PerByte = Seconds(1 / float64(s.PeerRate()))
		e.Uses = []Use{{Resource: "pcie:receiver-nic:up", PerByte: 1}, {Resource: "pcie:receiver-gpu:down", PerByte: 1}, {Resource: "p2p:receiver", PerByte: 1}}
	} else {
		e.Alpha += s.stagedExtraLatency()
		e.PerByte = Seconds(1 / float64(s.nicLinkRate()))
		e.DDR = 1
		e.Uses = []Use{{Resource: "pcie:receiver-nic:up", PerByte: 1}, {Resource: "ddr:receiver", PerByte: 1}}
	}
	return e
}

// wireStage is stage D: serialisation with per-packet headers, switch hops
// (cut-through) and propagation.
func (s *Scenario) wireStage(w wireFormat) Stage {
	rate := float64(w.rate)
	return Stage{Name: "wire", Letter: "D", Side: Network,
		What: fmt.Sprintf("%s at %s: %s payload and %d header bytes per packet, %d switch hop(s), %s of cable",
			w.label, w.rate.Gbits(), w.payload, w.overhead, s.Network.Hops, s.Network.Cable),
		Alpha:     w.latency + Seconds(float64(w.perMessage)/rate),
		Occupancy: Seconds(float64(w.perMessage) / rate), // per-message headers occupy the wire; hops and propagation do not
		PerByte:   Seconds(1 / rate),
		PerPacket: Seconds(float64(w.overhead) / rate),
		Packet:    w.payload,
	}
}
