package model

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
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
	// register is the one-time registration of an n-byte buffer (nil: none).
	register func(s *Scenario, n units.Bytes) units.Seconds
}

// Route is a path resolved for one scenario: its stages and the resources
// they share, ready to be evaluated at any message size.
type Route struct {
	Path      Path
	Feasible  bool
	Reason    string // why not, when infeasible
	Stages    []Stage
	Resources []Resource
	Chunk     units.Bytes

	loads    []resourceUses // Resources with the uses that load them, built once
	bidir    float64        // pcie.bidir_factor, for Bidirectional
	register func(n units.Bytes) units.Seconds
	// chunkPeriod is the pipeline's period for a full chunk, built once.
	chunkPeriod units.Seconds
	periodKnown bool
}

var paths = []Path{
	{Name: "tcp", Title: "TCP/IP, host-staged", GPU: true, Internode: true,
		Story: "GPU → cudaMemcpy → DDR → user-to-kernel copy → TCP/IP stack on the CPU → NIC → wire → NIC → DDR → receive stack → kernel-to-user copy → cudaMemcpy → GPU. Four explicit copies; the CPU works at every step.",
		build: buildTCP},
	{Name: "rdma", Title: "RDMA, host-staged", GPU: true, Internode: true,
		Story: "The NIC does the protocol and reads/writes registered host memory (no CPU copies), but the payload still goes GPU → DDR → … → DDR → GPU through two cudaMemcpys.",
		build: buildRDMA, register: (*Scenario).hostRegistration},
	{Name: "gdr", Title: "GPUDirect RDMA", GPU: true, Internode: true,
		Story: "The NIC reads and writes GPU memory directly by PCIe peer-to-peer through the GPU's BAR1: no host copy, no DDR traffic for the payload. A CPU proxy thread posts and polls for the GPU; GPUs before Hopper need a flush before they read what the NIC wrote.",
		build: buildGDR, register: (*Scenario).gpuRegistration},
	{Name: "devmem", Title: "Device-memory TCP (header/data split)", GPU: true, Internode: true,
		Story: "Linux devmem TCP: the CPU still runs TCP, but only on headers; the NIC splits each packet, headers to host memory and payload straight to GPU memory (dma-buf), and transmits payload it reads from the GPU. The payload lands in the NIC's receive buffers in GPU memory, so a GPU kernel unpacks it into the user's buffer: one copy, inside GPU memory.",
		build: buildDevmem},
	{Name: "p2p-plain-nic", Title: "Plain NIC with P2P DMA (the seed's idea)", GPU: true, Internode: true,
		Story: "GPU and NIC under one PCIe switch; the NIC DMA-reads raw GPU data by peer-to-peer. An ordinary NIC only sends finished packets, so nobody builds the headers.",
		build: buildPlainNIC},
	{Name: "host-tcp", Title: "TCP/IP, host to host", Internode: true,
		Story: "The familiar socket path between host buffers: the reference for the 10–20 µs TCP figure.",
		build: buildHostTCP},
	{Name: "host-rdma", Title: "RDMA, host to host", Internode: true,
		Story: "Verbs between registered host buffers: the reference for the 2–5 µs RDMA figure.",
		build: buildHostRDMA, register: (*Scenario).hostRegistration},
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
		Resources: s.resources(), Chunk: s.Pipeline.Chunk, bidir: s.PCIe.BidirFactor}
	if p.register != nil && r.Feasible {
		sc := s.Clone()
		r.register = func(n units.Bytes) units.Seconds { return p.register(sc, n) }
	}
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
		c.Alpha = s.GPU.CachedLatency
	}
	if s.GPU.CachedRate > 0 {
		plain := c.PerByte
		c.PerByte = units.Seconds(1 / float64(s.GPU.CachedRate))
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
	return append(s.hostTCPStages(true), s.unpack()), ""
}

// PlainNICReason is why the seed's first idea cannot work, said precisely:
// sending is not the problem, receiving is.
const PlainNICReason = "infeasible: an ordinary NIC cannot split received headers from payload, so every packet it receives lands whole in host memory and the payload never reaches the GPU directly — sending is not the problem: it can transmit a payload it DMA-reads from GPU memory behind headers the host CPU built (that is devmem TCP's transmit side; an ordinary NIC transmits only finished packets, with no transport engine of its own). GPU memory as the destination needs header/data split and flow steering (devmem TCP) or protocol offload on the NIC (RDMA: gdr)."

func buildPlainNIC(s *Scenario) ([]Stage, string) {
	return nil, PlainNICReason
}

func buildGPUPeer(s *Scenario) ([]Stage, string) {
	a := s.GPU.AsyncLatency
	st := Stage{Side: Sender, Copy: true, Alpha: s.GPU.PeerCopyLatency, Occupancy: a, CPUPerMessage: a}
	if s.GPU.NVLinkRate > 0 {
		st.Name = "peer copy over NVLink"
		st.What = fmt.Sprintf("the copy engine moves the payload from one GPU's memory to the other's over NVLink at %s (gpu.nvlink_rate × gpu.nvlink_efficiency); no PCIe, no DDR", s.NVLinkCopyRate().Human())
		st.PerByte = units.Seconds(1 / float64(s.NVLinkCopyRate()))
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(a)}}
	} else {
		st.Name = "peer copy over PCIe"
		st.What = fmt.Sprintf("the copy engine writes the payload into the other GPU's memory by PCIe peer-to-peer (%s between the GPUs, no NVLink) at %s", s.Topology.GPUGPU, s.GPUPeerRate().Human())
		st.Alpha += s.classExtraLatency(s.Topology.GPUGPU)
		st.PerByte = units.Seconds(1 / float64(s.GPUPeerRate()))
		st.Crossings = 2
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(a)},
			{Resource: "pcie:sender-gpu:up", PerByte: 1}, {Resource: "pcie:peer-gpu:down", PerByte: 1}}
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

// --- rates and topology ----------------------------------------------------

func (s *Scenario) gpuLinkRate() units.Rate { return s.GPU.PCIe.Rate(s.PCIe.MPS) }

// GPULinkRate is the payload rate of the GPU's PCIe link (encoding and TLP
// overhead taken off), the rate gpu.h2d_efficiency and gpu.d2h_efficiency
// are fractions of.
func (s *Scenario) GPULinkRate() units.Rate { return s.gpuLinkRate() }

// CopyRate is the pinned host↔GPU copy bandwidth, the slower direction:
// the measured gpu.copy_rate when given, else the GPU's PCIe link rate
// times the direction's copy efficiency.
func (s *Scenario) CopyRate() units.Rate { return min(s.H2DRate(), s.D2HRate()) }

// H2DRate is the pinned host→device copy bandwidth.
func (s *Scenario) H2DRate() units.Rate {
	if s.GPU.CopyRate > 0 {
		return s.GPU.CopyRate
	}
	return s.gpuLinkRate() * units.Rate(s.GPU.H2DEfficiency)
}

// D2HRate is the pinned device→host copy bandwidth.
func (s *Scenario) D2HRate() units.Rate {
	if s.GPU.CopyRate > 0 {
		return s.GPU.CopyRate
	}
	return s.gpuLinkRate() * units.Rate(s.GPU.D2HEfficiency)
}

// NVLinkCopyRate is the bandwidth of a large peer copy over NVLink.
func (s *Scenario) NVLinkCopyRate() units.Rate {
	return s.GPU.NVLinkRate * units.Rate(s.GPU.NVLinkEfficiency)
}

// GPUPeerRate is the bandwidth of a peer copy between two GPUs over PCIe:
// the copy engine's device-to-device writes at the link's copy rate,
// reduced by the class between the GPUs (posted writes through a host
// bridge; the inter-socket link's rate across sockets).
func (s *Scenario) GPUPeerRate() units.Rate {
	return s.classRate(s.Topology.GPUGPU, s.gpuLinkRate()*units.Rate(s.GPU.D2HEfficiency), false)
}

func (s *Scenario) nicLinkRate() units.Rate { return s.NIC.PCIe.Rate(s.PCIe.MPS) }

// classRate is a peer-to-peer rate over class c, base being the rate under
// one switch: reads or posted writes through a host bridge (PHB, NODE)
// keep their factor; across sockets (SYS) the inter-socket link caps it
// too.
func (s *Scenario) classRate(c Class, base units.Rate, read bool) units.Rate {
	f := s.Topology.PHBWriteFactor
	if read {
		f = s.Topology.PHBReadFactor
	}
	switch c {
	case PHB, NODE:
		return base * units.Rate(f)
	case SYS:
		return min(base*units.Rate(f), s.Topology.InterSocketRate)
	}
	return base
}

// PeerReadRate is the bandwidth at which the NIC reads GPU memory by
// peer-to-peer (the sending side of gdr and devmem).
func (s *Scenario) PeerReadRate() units.Rate {
	return s.classRate(s.Topology.GPUNIC, min(s.gpuLinkRate(), s.nicLinkRate()), true)
}

// PeerWriteRate is the bandwidth at which the NIC writes GPU memory by
// peer-to-peer (the receiving side).
func (s *Scenario) PeerWriteRate() units.Rate {
	return s.classRate(s.Topology.GPUNIC, min(s.gpuLinkRate(), s.nicLinkRate()), false)
}

// PeerRate is the slower of PeerReadRate and PeerWriteRate.
func (s *Scenario) PeerRate() units.Rate { return min(s.PeerReadRate(), s.PeerWriteRate()) }

// TopologyFactor is the fraction of the link rate that GPU↔NIC peer
// traffic reaches in its slower direction: 1 under one switch tree (PIX,
// PXB), less beyond.
func (s *Scenario) TopologyFactor() float64 {
	return float64(s.PeerRate()) / float64(min(s.gpuLinkRate(), s.nicLinkRate()))
}

// classExtraLatency is the one-way latency a peer transfer over class c
// adds to a transfer under one switch: a second switch level for PXB; up
// to the root complex and down again for PHB; plus half (NODE) or one (SYS)
// inter-socket crossing.
func (s *Scenario) classExtraLatency(c Class) units.Seconds {
	sw := s.PCIe.SwitchLatency
	switch c {
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

func (s *Scenario) peerExtraLatency() units.Seconds { return s.classExtraLatency(s.Topology.GPUNIC) }

// stagedExtraLatency is what a host-staged path pays when GPU and NIC sit
// on different sockets: the bounce buffer is local to one of them, so the
// NIC's DMA crosses the inter-socket link.
func (s *Scenario) stagedExtraLatency() units.Seconds {
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
		{Name: "pcie:peer-gpu:down", Label: "peer GPU PCIe link (to GPU)", Capacity: float64(s.gpuLinkRate())},
		{Name: "p2p:sender", Label: "sender GPU↔NIC peer path, NIC reading (" + string(s.Topology.GPUNIC) + ")", Capacity: float64(s.PeerReadRate())},
		{Name: "p2p:receiver", Label: "receiver GPU↔NIC peer path, NIC writing (" + string(s.Topology.GPUNIC) + ")", Capacity: float64(s.PeerWriteRate())},
		{Name: "hbm:receiver", Label: "receiver GPU memory", Capacity: float64(s.GPU.MemoryRate)},
		{Name: "socket:sender", Label: "sender inter-socket link (SYS)", Capacity: float64(s.Topology.InterSocketRate)},
		{Name: "socket:receiver", Label: "receiver inter-socket link (SYS)", Capacity: float64(s.Topology.InterSocketRate)},
	}
}

// --- stages ------------------------------------------------------------

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
