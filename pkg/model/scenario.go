package model

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/gpupath/gpupath/pkg/units"
)

// Class is the PCIe distance between two devices, named as `nvidia-smi topo -m` prints it.
type Class string

// The topology classes, nearest first.
const (
	PIX  Class = "PIX"  // at most one PCIe bridge (one switch) between them
	PXB  Class = "PXB"  // several PCIe bridges, without the host bridge
	PHB  Class = "PHB"  // through the PCIe host bridge (the CPU's root complex)
	NODE Class = "NODE" // across PCIe host bridges within one NUMA node
	SYS  Class = "SYS"  // across the inter-socket link (UPI, xGMI)
)

// Encodings of nic.encoding.
const (
	EncodingAuto   = "auto"
	EncodingNone   = "none"
	Encoding8b10b  = "8b10b"
	Encoding64b66b = "64b66b"
)

// CPU families, as NCCL tells them apart (src/graph/topo.cc: the vendor,
// and for Intel the model number: Skylake from 0x55, Sapphire Rapids from
// 0x8F, Emerald Rapids from 0xCF).
const (
	FamilyIntelBDW = "intel-bdw"
	FamilyIntelSKL = "intel-skl"
	FamilyIntelSRP = "intel-srp"
	FamilyIntelERP = "intel-erp"
	FamilyAMD      = "amd"
	FamilyARM      = "arm"
	FamilyPower9   = "power9"
)

// CPUFamilies lists the values of cpu.family.
var CPUFamilies = []string{FamilyIntelBDW, FamilyIntelSKL, FamilyIntelSRP, FamilyIntelERP, FamilyAMD, FamilyARM, FamilyPower9}

// Classes lists the topology classes, nearest first.
var Classes = []Class{PIX, PXB, PHB, NODE, SYS}

// NIC kinds.
const (
	KindIB       = "ib"       // InfiniBand verbs; TCP runs over IPoIB
	KindRoCE     = "roce"     // Ethernet with RDMA over Converged Ethernet v2
	KindEthernet = "ethernet" // Ethernet without RDMA
	KindLoopback = "loopback" // no NIC: both ends on one host (the kernel's loopback device)
)

// Scenario describes two identical nodes and the network between them. Its
// fields are set from presets, YAML files and --set overrides through the
// key table (Keys); every key is listed there with its unit and range.
type Scenario struct {
	Name        string
	Description string
	GPU         struct {
		Model string
		PCIe  Link
		// CopyLatency is the fixed cost of one synchronous cudaMemcpy (call,
		// DMA setup, completion seen by the caller): the α of one copy.
		CopyLatency units.Seconds
		// AsyncLatency is what one asynchronous copy issued on a stream costs
		// the issuing CPU and the copy engine between back-to-back copies:
		// the per-chunk cost of a pipelined transfer and of streaming copies.
		AsyncLatency units.Seconds
		// PeerCopyLatency is the fixed cost of one synchronous GPU-to-GPU
		// peer copy (gpu-peer).
		PeerCopyLatency units.Seconds
		CopyRate        units.Rate // measured pinned copy bandwidth, both directions; 0: derived from the PCIe link
		// H2DEfficiency and D2HEfficiency are the fractions of the PCIe
		// link's payload rate that a copy engine reaches host→device and
		// device→host (used when CopyRate is 0).
		H2DEfficiency, D2HEfficiency float64
		// Cached*: a copy of a bounce buffer the CPU also reads or writes
		// (the tcp path's send and receive copies), whose lines sit in the
		// CPU's caches so the DMA must snoop them, up to CachedKnee bytes
		// (about the last-level cache); 0: as a plain copy.
		CachedLatency units.Seconds
		CachedRate    units.Rate
		CachedKnee    units.Bytes
		NVLinkRate    units.Rate // GPU↔GPU within a node, per direction; 0: none (PCIe P2P)
		// NVLinkEfficiency is the fraction of NVLinkRate a peer copy reaches.
		NVLinkEfficiency float64
		// MemoryRate is the GPU memory (HBM) bandwidth; a copy inside GPU
		// memory reads and writes every byte, so it runs at half of it.
		MemoryRate units.Rate
		// BARReadLatency is what a peer read of GPU memory through BAR1 adds
		// to a DMA read of host memory (the NIC reading GPU memory).
		BARReadLatency units.Seconds
		// GDRFlush: the receiving GPU needs a flush (a read through the NIC)
		// before it may consume data the NIC wrote (Ampere and earlier);
		// NCCL flushes such GPUs (the nccl stack).
		GDRFlush bool
		// PinLatency and PinPerPage: registering GPU memory for RDMA (pinning
		// through nvidia-peermem / dma-buf): a fixed cost and one per 64 KiB
		// GPU page.
		PinLatency, PinPerPage units.Seconds
		// ComputeCapability is the GPU's CUDA compute capability ×10 (90
		// for 9.0), which picks NCCL's tuning constants; 0: from the
		// catalog entry gpu.model names, else from gpu.gdr_flush
		// (Scenario.ComputeCapability).
		ComputeCapability int
	}
	CPU struct {
		Model string
		// Family is the CPU family as NCCL classes it (topo.cc): it sets
		// the inter-socket bandwidth NCCL assumes and its network overhead.
		Family     string
		Clock      units.Hertz
		Cores      int
		MemcpyRate units.Rate // one core, large copies
		// OutstandingLoads is how many cache-line loads that miss one core
		// keeps in flight (its L1D line fill buffers): the concurrency of
		// the core's loads from a write-combined BAR1 mapping (gdrcopy's
		// copy_from_mapping), each a PCIe read round trip.
		OutstandingLoads int
		// BARStoreLatency is the fixed cost of one CPU copy into a
		// write-combined BAR1 mapping (gdrcopy's copy_to_mapping): the call
		// and the store fence that drains the write-combining buffers.
		BARStoreLatency units.Seconds
	}
	Memory struct {
		Rate units.Rate // DDR bandwidth of one node
	}
	Stack struct {
		Syscall      units.Seconds // one send()/recv() entry and exit
		TxPerMessage units.Seconds // TCP transmit path per send (socket, TCP output, qdisc, driver doorbell)
		RxPerMessage units.Seconds // one recv() call's own work, per read (beside Syscall)
		Wakeup       units.Seconds // waking the blocked receiving thread
		TxPerSegment units.Seconds // per TSO super-segment (or per packet without TSO)
		RxPerPacket  units.Seconds // per received wire packet (driver, skb, GRO merge)
		// RxPerAggregate is the protocol cost of a full GRO aggregate of
		// GROSize bytes (IP/TCP input, ACK, socket queue): with GRO an
		// aggregate is charged by the packets it merged, without GRO every
		// packet pays it whole.
		RxPerAggregate units.Seconds
		GROSize        units.Bytes
		ChecksumRate   units.Rate  // software checksum on one core, when the NIC does not offload it
		TSOSize        units.Bytes // TSO super-segment size
		Flows          int         // parallel TCP flows (each served by one core on each side)
		// Handoff is the extra cost when one thread alternates between a GPU
		// copy and socket system calls (the tcp path's A→B and F→G): caches,
		// TLB and branch predictors are cold after the kernel ran.
		Handoff units.Seconds
		// RxCopyRate is the rate of recv()'s kernel→user copy of socket
		// buffers the NIC wrote: they have left the caches by the time the
		// reader copies them (a cold copy on one core).
		RxCopyRate units.Rate
		// ReadSize is how much one recv() asks for: a message larger than it
		// takes several reads, each a system call.
		ReadSize units.Bytes
		// RxColocated: the reader runs on the core whose softirq receives
		// its flow (aRFS, or the scheduler's wake-affine placement), so the
		// two receive loads share one core per flow; false: a core each.
		RxColocated bool
	}
	NIC struct {
		Model string
		Kind  string
		Rate  units.Rate // nominal port rate as sold
		// Encoding says how Rate relates to the data rate: "auto" (from the
		// kind and rate: InfiniBand SDR/DDR/QDR are sold at their 8b/10b
		// signalling rate, FDR at 56.25 Gbit/s of 64b/66b signalling, EDR and
		// later at their data rate), "none", "8b10b" or "64b66b".
		Encoding        string
		PCIe            Link
		MTU             units.Bytes
		RDMA            bool
		TSO             bool
		GRO             bool
		ChecksumOffload bool
		HeaderSplit     bool
		FlowSteering    bool
		Latency         units.Seconds // NIC pipeline, one direction (doorbell to wire, or wire to DMA)
		IRQLatency      units.Seconds // interrupt moderation + IRQ to NAPI (TCP receive only; RDMA polls)
		PostCost        units.Seconds // CPU cost to post one RDMA work request (ibv_post_send + doorbell)
		PollCost        units.Seconds // CPU cost to reap one completion (ibv_poll_cq)
		MessageRate     float64       // packets (messages) per second the NIC engine handles, each direction
		// InlineSize is the largest send whose payload the CPU writes into
		// the work request (no DMA read of the payload); GPU memory is never
		// inlined. 0: no inline sends.
		InlineSize units.Bytes
		// RegLatency and RegPerPage: registering host memory (ibv_reg_mr):
		// a fixed cost and one per 4 KiB page pinned and translated.
		RegLatency, RegPerPage units.Seconds
	}
	PCIe struct {
		MPS           units.Bytes   // Max_Payload_Size
		ReadLatency   units.Seconds // DMA read round trip, device ↔ host memory
		WriteLatency  units.Seconds // posted DMA write until visible in memory
		SwitchLatency units.Seconds // one PCIe switch traversal
		// BidirFactor is the fraction of its one-way rate each direction of
		// a PCIe link keeps when both directions carry payload at once.
		BidirFactor float64
	}
	Topology struct {
		GPUNIC Class
		GPUGPU Class // between the two GPUs of a node (gpu-peer over PCIe)
		// PHBReadFactor and PHBWriteFactor: the fraction of the link rate
		// that peer-to-peer reads (a NIC reading GPU memory) and posted
		// writes (a NIC or GPU writing GPU memory) reach through a host
		// bridge (PHB, NODE).
		PHBReadFactor, PHBWriteFactor float64
		// InterSocketRate caps peer-to-peer traffic across sockets (SYS).
		InterSocketRate    units.Rate
		InterSocketLatency units.Seconds // one crossing of the inter-socket link
		// CPUGPU is where the core that loads and stores GPU memory through
		// BAR1 (gdrcopy) sits: PHB on the GPU's own socket, SYS on the
		// other (its accesses cross the inter-socket link).
		CPUGPU Class
		// NICSwitches is how many PCIe switch levels sit between the NIC and
		// its root port: every NIC↔host transaction (doorbell, DMA read,
		// DMA write, completion) crosses each of them.
		NICSwitches int
		// NVSwitch: the node's GPUs connect through NVSwitch chips (NCCL's
		// NVS topology node); from compute capability 9.0 on that gives
		// NVLink SHARP, NCCL's NVLS algorithms.
		NVSwitch bool
	}
	Network struct {
		Switch     string // the switch model, free text or a catalog name
		Hops       int
		HopLatency units.Seconds
		Cable      units.Meters
		// SHARP: the switches reduce in the network (NVIDIA SHARP) and NCCL
		// runs its CollNet algorithms on them (NCCL_COLLNET_ENABLE=1 with
		// the SHARP plugin); NCCL's default is off.
		SHARP bool
	}
	Pipeline struct {
		Chunk units.Bytes
	}
	// Software is the software stack that drives the transport (Stack).
	Software struct {
		Stack string // software.stack: none, perftest, ucx, nccl, nvshmem
	}
	// Perftest holds perftest's choices (stack perftest).
	Perftest struct {
		Test string // write_lat, send_lat, write_bw, send_bw
	}
	// UCX holds UCX's parameters (stack ucx).
	UCX struct {
		// RndvThresh is the size from which UCX sends by rendezvous
		// (UCX_RNDV_THRESH); 0: auto, where UCX's cost model makes the
		// rendezvous the faster.
		RndvThresh units.Bytes
		// GDRCopyLatency and GDRCopyRate are UCX's estimate of a gdr_copy
		// put into GPU memory (UCX_GDR_COPY_LAT put, UCX_GDR_COPY_BW
		// put_shared): the eager protocol's unpack of a GPU destination.
		GDRCopyLatency units.Seconds
		GDRCopyRate    units.Rate
	}
	// NCCL holds NCCL's parameters (stack nccl, and collectives).
	NCCL struct {
		// NetOverhead is getNetOverhead: the proxy's cost per network step
		// and side.
		NetOverhead units.Seconds
		// GDRLevel is NCCL_NET_GDR_LEVEL: the farthest GPU↔NIC class at
		// which NCCL uses GPUDirect RDMA.
		GDRLevel Class
		// NetEfficiency is the fraction of the network's rate (the NICs, or
		// what caps them on the path) that NCCL's traffic between nodes
		// reaches in the collective model; 0 is NCCL's model as it is (1).
		// gpupath fit sets it from nccl-tests outputs.
		NetEfficiency float64
	}
	// Loopback holds a measured one-way TCP transfer over the loopback
	// device (α and β of a fit), used in place of the modeled TCP stages
	// B–F when nic.kind is loopback and Rate > 0: the calibrated model of a
	// staged transfer on one host (`gpupath fit`).
	Loopback struct {
		Latency units.Seconds
		Rate    units.Rate
		// Knee and RateBeyond: past Knee bytes the transfer runs at
		// RateBeyond (buffers no longer fit in the caches); Knee 0: none.
		Knee       units.Bytes
		RateBeyond units.Rate
		// StreamRate is the loopback TCP streaming goodput (writes back to
		// back): the period of the stage when chunks follow each other.
		StreamRate units.Rate
	}

	// spec is how the scenario was resolved (Base, Given, Resolution).
	spec *spec
}

// InputError is bad input: a scenario key, value, file or size list. It
// names the key and, for a file, the file and line.
type InputError struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *InputError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// Key is one scenario setting: its dotted name as in the YAML file, what it
// means and how it is parsed, checked and printed. A key takes its value
// as text (Set, a YAML file) or typed (Apply with an Override whose Value
// is the key's Go type: units.Rate, units.Seconds, units.Bytes,
// units.Hertz, units.Meters, Link, Class, bool, int, float64 or string);
// both pass the same bounds.
type Key struct {
	Name string
	Doc  string
	// Unit is a hint for people: "rate", "duration", "bool", ...
	Unit string
	// Optional keys may be left out of a preset (they default to zero).
	Optional bool
	get      func(*Scenario) any
	parse    func(*Scenario, string) error
	set      func(*Scenario, any) error
}

// Value returns the key's value in s, as it is written in a file (strings
// for quantities, bool, int or float64 otherwise).
func (k Key) Value(s *Scenario) any { return k.get(s) }

// Text returns the key's value in s as text that Set accepts.
func (k Key) Text(s *Scenario) string {
	switch v := k.get(s).(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(k.get(s))
}

// Physical bounds of every rate and time key, beyond each key's own range.
// A rate key that is not zero lies in [MinRate, MaxRate]: 1 kbit/s is below
// any link a GPU transfer crosses (the slowest, a management serial line, runs
// at 9.6 kbit/s), and 1 PB/s is 200 times the HBM3e of one GPU (about 4.8
// TB/s, NVIDIA H200 datasheet). A time key that is not zero is at least
// MinDuration: 1 ps is a millimetre of light in a fibre, below any stage
// here (the cable's 5 ns/m is the smallest cost modelled). Within them, no
// size up to the largest (1 TiB) makes a time or a rate that is not finite.
const (
	MinRate     units.Rate    = 1e3 / 8 // 1 kbit/s
	MaxRate     units.Rate    = 1e15    // 1 PB/s
	MinDuration units.Seconds = 1e-12   // 1 ps
)

// typedKey builds a key from the parser of its text, its bounds check
// (given the value and its text, for the message) and how it is printed:
// parse and set share the check, so text and typed values meet the same
// bounds. A typed value of another type is refused with the key's type.
func typedKey[T any](name, doc, unit string, f func(*Scenario) *T, parse func(string) (T, error), check func(v T, text string) error, show func(T) any, format func(T) string) Key {
	assign := func(s *Scenario, v T, text string) error {
		if check != nil {
			if err := check(v, text); err != nil {
				return err
			}
		}
		*f(s) = v
		return nil
	}
	return Key{Name: name, Doc: doc, Unit: unit,
		get: func(s *Scenario) any { return show(*f(s)) },
		parse: func(s *Scenario, text string) error {
			v, err := parse(text)
			if err != nil {
				return err
			}
			return assign(s, v, text)
		},
		set: func(s *Scenario, x any) error {
			switch v := x.(type) {
			case T:
				return assign(s, v, format(v))
			case string:
				pv, err := parse(v)
				if err != nil {
					return err
				}
				return assign(s, pv, v)
			}
			var zero T
			return fmt.Errorf("a %T value for a key of type %T", x, zero)
		}}
}

func durationKey(name, doc string, f func(*Scenario) *units.Seconds, lo, hi units.Seconds) Key {
	return typedKey(name, doc, "duration", f, units.ParseDuration, func(d units.Seconds, v string) error {
		if d < lo || d > hi || d != d {
			return fmt.Errorf("%s is out of range [%s, %s]", v, lo.Human(), hi.Human())
		}
		if d != 0 && d < MinDuration {
			return fmt.Errorf("%s is below 1ps (0.001ns; 0s for none)", v)
		}
		return nil
	}, func(d units.Seconds) any { return d.String() }, units.Seconds.String)
}

func rateKey(name, doc string, f func(*Scenario) *units.Rate, allowZero bool, bits bool) Key {
	show := func(r units.Rate) any { return r.String() }
	if bits {
		show = func(r units.Rate) any { return r.BitString() }
	}
	return typedKey(name, doc, "rate", f, units.ParseRate, func(r units.Rate, v string) error {
		if r < 0 || (r == 0 && !allowZero) || r != r {
			return fmt.Errorf("%s: a rate must be positive", v)
		}
		if r > MaxRate {
			return fmt.Errorf("%s is out of range [1kbit/s, 1000000GB/s]: implausibly large rate", v)
		}
		if r != 0 && r < MinRate {
			return fmt.Errorf("%s is out of range [1kbit/s, 1000000GB/s]: implausibly small rate", v)
		}
		return nil
	}, show, units.Rate.String)
}

// rateRangeKey is a rate key with explicit bounds (lo may be 0 when allowed).
func rateRangeKey(name, doc string, f func(*Scenario) *units.Rate, lo, hi units.Rate) Key {
	return typedKey(name, doc, "rate", f, units.ParseRate, func(r units.Rate, v string) error {
		if r < lo || r > hi || r != r {
			return fmt.Errorf("%s is out of range [%s, %s]", v, lo.String(), hi.String())
		}
		return nil
	}, func(r units.Rate) any { return r.String() }, units.Rate.String)
}

func bytesKey(name, doc string, f func(*Scenario) *units.Bytes, lo, hi units.Bytes) Key {
	show := func(b units.Bytes) any { return b.String() }
	if name == "nic.mtu" { // written as a plain number of bytes, as ip link shows it
		show = func(b units.Bytes) any { return int(b) }
	}
	return typedKey(name, doc, "bytes", f, units.ParseBytes, func(b units.Bytes, v string) error {
		if b < lo || b > hi {
			return fmt.Errorf("%s is out of range [%s, %s]", v, lo, hi)
		}
		return nil
	}, show, units.Bytes.String)
}

func intKey(name, doc string, f func(*Scenario) *int, lo, hi int) Key {
	return typedKey(name, doc, "integer", f, func(v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", v)
		}
		return n, nil
	}, func(n int, _ string) error {
		if n < lo || n > hi {
			return fmt.Errorf("%d is out of range [%d, %d]", n, lo, hi)
		}
		return nil
	}, func(n int) any { return n }, strconv.Itoa)
}

// parseNumber reads a number; NaN is none.
func parseNumber(v string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(x) {
		return 0, fmt.Errorf("%q is not a number", v)
	}
	return x, nil
}

// zeroOrFraction is a fraction in [0, 1], where 0 means "not set".
func zeroOrFraction(name, doc string, f func(*Scenario) *float64) Key {
	return typedKey(name, doc, "fraction", f, parseNumber, func(x float64, _ string) error {
		if !(x >= 0 && x <= 1) {
			return fmt.Errorf("%v is out of range [0, 1] (0: not set)", x)
		}
		return nil
	}, func(x float64) any { return x }, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
}

func floatKey(name, doc string, f func(*Scenario) *float64, lo, hi float64) Key {
	return typedKey(name, doc, "fraction", f, parseNumber, func(x float64, _ string) error {
		if !(x > lo && x <= hi) {
			return fmt.Errorf("%v is out of range (%v, %v]", x, lo, hi)
		}
		return nil
	}, func(x float64) any { return x }, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
}

func boolKey(name, doc string, f func(*Scenario) *bool) Key {
	return typedKey(name, doc, "bool", f, func(v string) (bool, error) {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on":
			return true, nil
		case "false", "no", "off":
			return false, nil
		}
		return false, fmt.Errorf("%q is not true or false", v)
	}, nil, func(b bool) any { return b }, strconv.FormatBool)
}

// MaxTextBytes bounds a scenario's text values (name, description, the
// models' names): a title or caption shows them whole, and no hardware
// name or description needs more.
const MaxTextBytes = 1024

func stringKey(name, doc string, f func(*Scenario) *string) Key {
	return typedKey(name, doc, "text", f, func(v string) (string, error) { return v, nil }, func(v string, _ string) error {
		if len(v) > MaxTextBytes {
			return fmt.Errorf("text of %d bytes: at most %d", len(v), MaxTextBytes)
		}
		if r, ok := units.LineBreak(v); ok {
			return fmt.Errorf("a text value is one line: it holds a line break (%U)", r)
		}
		return nil
	}, func(v string) any { return v }, func(v string) string { return v })
}

func linkKey(name, doc string, f func(*Scenario) *Link) Key {
	return typedKey(name, doc, "PCIe link", f, ParseLink, func(l Link, _ string) error { return l.Validate() },
		func(l Link) any { return l.String() }, Link.String)
}

func enumKey(name, doc string, f func(*Scenario) *string, values ...string) Key {
	return typedKey(name, doc, strings.Join(values, "|"), f, func(v string) (string, error) {
		t := strings.TrimSpace(v)
		for _, x := range values {
			if strings.EqualFold(t, x) {
				return x, nil
			}
		}
		return "", fmt.Errorf("%q is not one of %s", v, strings.Join(values, ", "))
	}, func(v string, text string) error {
		if !slices.Contains(values, v) {
			return fmt.Errorf("%q is not one of %s", text, strings.Join(values, ", "))
		}
		return nil
	}, func(v string) any { return v }, func(v string) string { return v })
}

func classKey(name, doc string, f func(*Scenario) *Class) Key {
	vals := make([]string, len(Classes))
	for i, c := range Classes {
		vals[i] = string(c)
	}
	return typedKey(name, doc, strings.Join(vals, "|"), f, ParseClass, func(c Class, text string) error {
		if !slices.Contains(Classes, c) {
			return fmt.Errorf("%q is not a topology class (PIX, PXB, PHB, NODE, SYS)", text)
		}
		return nil
	}, func(c Class) any { return string(c) }, func(c Class) string { return string(c) })
}

// ParseClass parses a topology class (PIX, PXB, PHB, NODE, SYS; any case).
func ParseClass(v string) (Class, error) {
	t := strings.ToUpper(strings.TrimSpace(v))
	for _, c := range Classes {
		if t == string(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("%q is not a topology class (PIX, PXB, PHB, NODE, SYS)", v)
}

var keys = []Key{
	stringKey("name", "free text naming the scenario", func(s *Scenario) *string { return &s.Name }),
	stringKey("description", "free text: what the two nodes are", func(s *Scenario) *string { return &s.Description }),

	stringKey("gpu.model", "free text", func(s *Scenario) *string { return &s.GPU.Model }),
	linkKey("gpu.pcie", "the GPU's PCIe link, gen1..gen6 x1..x16", func(s *Scenario) *Link { return &s.GPU.PCIe }),
	durationKey("gpu.copy_latency", "fixed cost of one synchronous cudaMemcpy (call, DMA setup, completion): the α of a copy that waits", func(s *Scenario) *units.Seconds { return &s.GPU.CopyLatency }, 0, 1e-3),
	durationKey("gpu.async_latency", "cost of one asynchronous copy issued on a stream (CPU issue and copy-engine setup): the per-chunk cost of pipelined and back-to-back copies", func(s *Scenario) *units.Seconds { return &s.GPU.AsyncLatency }, 0, 1e-3),
	durationKey("gpu.peer_copy_latency", "fixed cost of one synchronous GPU-to-GPU peer copy (gpu-peer)", func(s *Scenario) *units.Seconds { return &s.GPU.PeerCopyLatency }, 0, 1e-3),
	rateKey("gpu.copy_rate", "pinned host↔GPU copy bandwidth, both directions; 0B/s: the PCIe link rate × gpu.h2d_efficiency / gpu.d2h_efficiency", func(s *Scenario) *units.Rate { return &s.GPU.CopyRate }, true, false),
	floatKey("gpu.h2d_efficiency", "fraction of the PCIe link's payload rate a host→device copy reaches (used when gpu.copy_rate is 0)", func(s *Scenario) *float64 { return &s.GPU.H2DEfficiency }, 0, 1),
	floatKey("gpu.d2h_efficiency", "fraction of the PCIe link's payload rate a device→host copy reaches (used when gpu.copy_rate is 0)", func(s *Scenario) *float64 { return &s.GPU.D2HEfficiency }, 0, 1),
	optional(durationKey("gpu.cached_copy_latency", "fixed cost of a copy whose host buffer the CPU has in its caches (tcp path: send and recv touch it); 0s: gpu.copy_latency", func(s *Scenario) *units.Seconds { return &s.GPU.CachedLatency }, 0, 1e-3)),
	optional(rateKey("gpu.cached_copy_rate", "bandwidth of such a copy up to gpu.cached_copy_knee (the DMA snoops the CPU's caches); 0B/s: gpu.copy_rate", func(s *Scenario) *units.Rate { return &s.GPU.CachedRate }, true, false)),
	optional(bytesKey("gpu.cached_copy_knee", "size up to which a CPU-touched bounce buffer is cache-resident (about the last-level cache); 0B: none", func(s *Scenario) *units.Bytes { return &s.GPU.CachedKnee }, 0, 1<<40)),
	rateKey("gpu.nvlink_rate", "GPU↔GPU NVLink bandwidth per direction within a node, as the datasheet gives it (0: none, PCIe peer-to-peer)", func(s *Scenario) *units.Rate { return &s.GPU.NVLinkRate }, true, false),
	floatKey("gpu.nvlink_efficiency", "fraction of gpu.nvlink_rate that a large peer copy reaches", func(s *Scenario) *float64 { return &s.GPU.NVLinkEfficiency }, 0, 1),
	rateRangeKey("gpu.memory_rate", "GPU memory (HBM/GDDR) bandwidth; a copy inside GPU memory (devmem's unpack) runs at half of it", func(s *Scenario) *units.Rate { return &s.GPU.MemoryRate }, 1e9, 1e14),
	durationKey("gpu.bar_read_latency", "what a peer read of GPU memory through BAR1 adds to a DMA read of host memory", func(s *Scenario) *units.Seconds { return &s.GPU.BARReadLatency }, 0, 1e-5),
	boolKey("gpu.gdr_flush", "the receiving GPU needs a flush (a read through the NIC) before it consumes data the NIC wrote (Ampere and earlier)", func(s *Scenario) *bool { return &s.GPU.GDRFlush }),
	durationKey("gpu.pin_latency", "registering GPU memory for RDMA: fixed cost (pin through nvidia-peermem or dma-buf, NIC registration)", func(s *Scenario) *units.Seconds { return &s.GPU.PinLatency }, 0, 1e-2),
	durationKey("gpu.pin_per_page", "registering GPU memory for RDMA: cost per 64 KiB GPU page", func(s *Scenario) *units.Seconds { return &s.GPU.PinPerPage }, 0, 1e-4),
	optional(computeCapabilityKey()),

	stringKey("cpu.model", "free text, or a CPU the catalog knows (gpupath catalog list)", func(s *Scenario) *string { return &s.CPU.Model }),
	enumKey("cpu.family", "the CPU family as NCCL classes it (src/graph/topo.cc): intel-bdw (Broadwell and earlier), intel-skl (Skylake to Ice Lake), intel-srp (Sapphire and Granite Rapids), intel-erp (Emerald Rapids), amd, arm, power9", func(s *Scenario) *string { return &s.CPU.Family }, CPUFamilies...),
	durationKeyFreq(),
	intKey("cpu.cores", "cores per node", func(s *Scenario) *int { return &s.CPU.Cores }, 1, 4096),
	rateKey("cpu.memcpy_rate", "memcpy bandwidth of one core for large copies", func(s *Scenario) *units.Rate { return &s.CPU.MemcpyRate }, false, false),
	intKey("cpu.outstanding_loads", "cache-line loads one core keeps in flight (L1D line fill buffers): the concurrency of its loads from GPU memory through a write-combined BAR1 mapping (gdrcopy)", func(s *Scenario) *int { return &s.CPU.OutstandingLoads }, 1, 256),
	durationKey("cpu.bar_store_latency", "fixed cost of one CPU copy into a write-combined BAR1 mapping of GPU memory (gdrcopy's copy_to_mapping: the call and the store fence)", func(s *Scenario) *units.Seconds { return &s.CPU.BARStoreLatency }, 0, 1e-4),

	rateKey("memory.rate", "DDR bandwidth of one node", func(s *Scenario) *units.Rate { return &s.Memory.Rate }, false, false),

	durationKey("stack.syscall", "entry and exit of one send() or recv()", func(s *Scenario) *units.Seconds { return &s.Stack.Syscall }, 0, 1e-3),
	durationKey("stack.tx_per_message", "TCP transmit path per send", func(s *Scenario) *units.Seconds { return &s.Stack.TxPerMessage }, 0, 1e-3),
	durationKey("stack.rx_per_message", "one recv() call's own work, per read of up to stack.read_size (beside stack.syscall)", func(s *Scenario) *units.Seconds { return &s.Stack.RxPerMessage }, 0, 1e-3),
	durationKey("stack.wakeup", "waking the blocked receiving thread", func(s *Scenario) *units.Seconds { return &s.Stack.Wakeup }, 0, 1e-3),
	durationKey("stack.tx_per_segment", "per TSO super-segment (per packet without TSO)", func(s *Scenario) *units.Seconds { return &s.Stack.TxPerSegment }, 0, 1e-4),
	durationKey("stack.rx_per_packet", "per received wire packet: driver, skb, GRO merge", func(s *Scenario) *units.Seconds { return &s.Stack.RxPerPacket }, 0, 1e-4),
	durationKey("stack.rx_per_aggregate", "IP/TCP input, ACK and socket queueing of one full GRO aggregate of stack.gro_size, charged by the packets an aggregate merged (per packet whole without GRO), on the softirq's core", func(s *Scenario) *units.Seconds { return &s.Stack.RxPerAggregate }, 0, 1e-4),
	bytesKey("stack.gro_size", "largest GRO aggregate (GRO_MAX_SIZE)", func(s *Scenario) *units.Bytes { return &s.Stack.GROSize }, 1024, 512<<10),
	rateKey("stack.checksum_rate", "software checksum on one core (used when the NIC does not offload it)", func(s *Scenario) *units.Rate { return &s.Stack.ChecksumRate }, false, false),
	bytesKey("stack.tso_size", "TSO super-segment size", func(s *Scenario) *units.Bytes { return &s.Stack.TSOSize }, 1024, 256<<10),
	intKey("stack.flows", "parallel TCP flows, each served by one core per side", func(s *Scenario) *int { return &s.Stack.Flows }, 1, 1024),
	optional(durationKey("stack.handoff", "extra cost when one thread alternates between a GPU copy and socket system calls (tcp path: A→B, F→G); 0s: none", func(s *Scenario) *units.Seconds { return &s.Stack.Handoff }, 0, 1e-3)),
	rateKey("stack.rx_copy_rate", "recv()'s kernel→user copy of socket buffers the NIC wrote, on one core (they have left the caches: a cold copy)", func(s *Scenario) *units.Rate { return &s.Stack.RxCopyRate }, false, false),
	bytesKey("stack.read_size", "bytes one recv() asks for (a larger message takes several reads, a system call each)", func(s *Scenario) *units.Bytes { return &s.Stack.ReadSize }, 1, 1<<30),
	boolKey("stack.rx_colocated", "the reader runs on the core whose softirq receives its flow (aRFS): the two receive loads share one core per flow; false: a core each", func(s *Scenario) *bool { return &s.Stack.RxColocated }),

	stringKey("nic.model", "free text", func(s *Scenario) *string { return &s.NIC.Model }),
	enumKey("nic.kind", "ib | roce | ethernet | loopback", func(s *Scenario) *string { return &s.NIC.Kind }, KindIB, KindRoCE, KindEthernet, KindLoopback),
	rateKey("nic.rate", "nominal port rate as sold (100GbE, QDR 40G, FDR 56G, HDR 200G, NDR 400G)", func(s *Scenario) *units.Rate { return &s.NIC.Rate }, false, true),
	enumKey("nic.encoding", "auto | none | 8b10b | 64b66b: how nic.rate relates to the data rate (auto: InfiniBand SDR/DDR/QDR are sold at 8b/10b signalling, FDR at 56.25 Gbit/s of 64b/66b, EDR and later at the data rate; Ethernet at the data rate)", func(s *Scenario) *string { return &s.NIC.Encoding }, EncodingAuto, EncodingNone, Encoding8b10b, Encoding64b66b),
	linkKey("nic.pcie", "the NIC's PCIe link", func(s *Scenario) *Link { return &s.NIC.PCIe }),
	bytesKey("nic.mtu", "link MTU: the IP MTU on Ethernet/RoCE, the IB MTU on InfiniBand", func(s *Scenario) *units.Bytes { return &s.NIC.MTU }, 256, 65536),
	boolKey("nic.rdma", "the NIC does RDMA (verbs)", func(s *Scenario) *bool { return &s.NIC.RDMA }),
	boolKey("nic.tso", "TCP segmentation offload", func(s *Scenario) *bool { return &s.NIC.TSO }),
	boolKey("nic.gro", "generic receive offload (or hardware LRO)", func(s *Scenario) *bool { return &s.NIC.GRO }),
	boolKey("nic.checksum_offload", "TCP/IP checksums computed by the NIC", func(s *Scenario) *bool { return &s.NIC.ChecksumOffload }),
	boolKey("nic.header_split", "header/data split into separate buffers (needed by devmem)", func(s *Scenario) *bool { return &s.NIC.HeaderSplit }),
	boolKey("nic.flow_steering", "steer a flow to a dedicated receive queue (needed by devmem)", func(s *Scenario) *bool { return &s.NIC.FlowSteering }),
	durationKey("nic.latency", "NIC pipeline, one direction", func(s *Scenario) *units.Seconds { return &s.NIC.Latency }, 0, 1e-4),
	durationKey("nic.irq_latency", "interrupt moderation and IRQ to NAPI (TCP receive)", func(s *Scenario) *units.Seconds { return &s.NIC.IRQLatency }, 0, 1e-3),
	durationKey("nic.post_cost", "CPU cost of posting one RDMA work request", func(s *Scenario) *units.Seconds { return &s.NIC.PostCost }, 0, 1e-4),
	durationKey("nic.poll_cost", "CPU cost of reaping one RDMA completion", func(s *Scenario) *units.Seconds { return &s.NIC.PollCost }, 0, 1e-4),

	messageRateKey(),
	bytesKey("nic.inline_size", "largest RDMA send whose payload the CPU writes into the work request (no DMA read); GPU memory is never inlined; 0B: none", func(s *Scenario) *units.Bytes { return &s.NIC.InlineSize }, 0, 4096),
	durationKey("nic.reg_latency", "registering host memory (ibv_reg_mr): fixed cost", func(s *Scenario) *units.Seconds { return &s.NIC.RegLatency }, 0, 1e-2),
	durationKey("nic.reg_per_page", "registering host memory: cost per 4 KiB page pinned and translated", func(s *Scenario) *units.Seconds { return &s.NIC.RegPerPage }, 0, 1e-4),

	mpsKey(),
	durationKey("pcie.read_latency", "DMA read round trip, device to host memory", func(s *Scenario) *units.Seconds { return &s.PCIe.ReadLatency }, 0, 1e-4),
	durationKey("pcie.write_latency", "posted DMA write until visible in memory", func(s *Scenario) *units.Seconds { return &s.PCIe.WriteLatency }, 0, 1e-4),
	durationKey("pcie.switch_latency", "one PCIe switch traversal", func(s *Scenario) *units.Seconds { return &s.PCIe.SwitchLatency }, 0, 1e-5),
	floatKey("pcie.bidir_factor", "fraction of its one-way rate each direction of a PCIe link keeps when both directions carry payload at once", func(s *Scenario) *float64 { return &s.PCIe.BidirFactor }, 0, 1),

	classKey("topology.gpu_nic", "PCIe distance between GPU and NIC: PIX | PXB | PHB | NODE | SYS", func(s *Scenario) *Class { return &s.Topology.GPUNIC }),
	classKey("topology.gpu_gpu", "PCIe distance between the two GPUs of a node (gpu-peer without NVLink): PIX | PXB | PHB | NODE | SYS", func(s *Scenario) *Class { return &s.Topology.GPUGPU }),
	floatKey("topology.phb_read_factor", "peer-to-peer reads (a NIC reading GPU memory) through a host bridge (PHB, NODE): fraction of the link rate", func(s *Scenario) *float64 { return &s.Topology.PHBReadFactor }, 0, 1),
	floatKey("topology.phb_write_factor", "peer-to-peer posted writes (into GPU memory) through a host bridge (PHB, NODE): fraction of the link rate", func(s *Scenario) *float64 { return &s.Topology.PHBWriteFactor }, 0, 1),
	rateRangeKey("topology.inter_socket_rate", "peer-to-peer bandwidth across sockets (SYS), both directions alike", func(s *Scenario) *units.Rate { return &s.Topology.InterSocketRate }, 1e8, 1e13),
	durationKey("topology.inter_socket_latency", "one crossing of the inter-socket link", func(s *Scenario) *units.Seconds { return &s.Topology.InterSocketLatency }, 0, 1e-5),
	intKey("topology.nic_switches", "PCIe switch levels between the NIC and its root port: the doorbell, DMA reads and writes and completions cross each (pcie.switch_latency)", func(s *Scenario) *int { return &s.Topology.NICSwitches }, 0, 4),
	classKey("topology.cpu_gpu", "where the core that loads and stores GPU memory through BAR1 (gdrcopy) sits: PHB on the GPU's socket, SYS across the inter-socket link", func(s *Scenario) *Class { return &s.Topology.CPUGPU }),
	optional(boolKey("topology.nvswitch", "the node's GPUs connect through NVSwitch chips (DGX/HGX SXM boards; NCCL's NVS node): with compute capability 9.0 or later that is NVLink SHARP, NCCL's NVLS algorithms (false: none)", func(s *Scenario) *bool { return &s.Topology.NVSwitch })),

	stringKey("network.switch", "free text, or a switch the catalog knows (gpupath catalog list)", func(s *Scenario) *string { return &s.Network.Switch }),
	intKey("network.hops", "switches between the two NICs", func(s *Scenario) *int { return &s.Network.Hops }, 0, 16),
	durationKey("network.hop_latency", "one switch, port to port", func(s *Scenario) *units.Seconds { return &s.Network.HopLatency }, 0, 1e-4),
	lengthKey(),
	optional(boolKey("network.sharp", "the switches reduce in the network (NVIDIA SHARP) and NCCL runs its CollNet algorithms on them (NCCL_COLLNET_ENABLE=1 with the SHARP plugin; NCCL's default is off: false)", func(s *Scenario) *bool { return &s.Network.SHARP })),

	bytesKey("pipeline.chunk", "chunk size of a pipelined transfer", func(s *Scenario) *units.Bytes { return &s.Pipeline.Chunk }, 1024, 1<<30),

	stackKey(),
	enumKey("perftest.test", "the perftest program (stack perftest): write_lat | send_lat (latency tests, inline sends) | write_bw | send_bw (bandwidth tests, none inline)", func(s *Scenario) *string { return &s.Perftest.Test }, PerftestTests...),
	bytesKey("ucx.rndv_thresh", "UCX_RNDV_THRESH: the size from which UCX sends by rendezvous (stack ucx); 0B: auto, where UCX's cost model makes rendezvous the faster", func(s *Scenario) *units.Bytes { return &s.UCX.RndvThresh }, 0, 1<<30),
	durationKey("ucx.gdr_copy_latency", "UCX_GDR_COPY_LAT put: UCX's latency of a gdr_copy put into GPU memory (the eager protocol's unpack)", func(s *Scenario) *units.Seconds { return &s.UCX.GDRCopyLatency }, 0, 1e-4),
	rateKey("ucx.gdr_copy_rate", "UCX_GDR_COPY_BW put_shared: UCX's bandwidth of a gdr_copy put into GPU memory", func(s *Scenario) *units.Rate { return &s.UCX.GDRCopyRate }, false, false),
	durationKey("nccl.net_overhead", "NCCL's getNetOverhead: the proxy thread's cost per network step and side (stack nccl and collectives)", func(s *Scenario) *units.Seconds { return &s.NCCL.NetOverhead }, 0, 1e-4),
	optional(zeroOrFraction("nccl.net_efficiency", "fraction of the network's rate NCCL's traffic between nodes reaches in the collective model (0: NCCL's model as it is); gpupath fit sets it from nccl-tests", func(s *Scenario) *float64 { return &s.NCCL.NetEfficiency })),
	classKey("nccl.gdr_level", "NCCL_NET_GDR_LEVEL: the farthest GPU↔NIC class at which NCCL uses GPUDirect RDMA (PXB unless set)", func(s *Scenario) *Class { return &s.NCCL.GDRLevel }),

	optional(durationKey("loopback.latency", "measured one-way TCP transfer over loopback: fixed cost α (used when nic.kind is loopback and loopback.rate > 0)", func(s *Scenario) *units.Seconds { return &s.Loopback.Latency }, 0, 1e-2)),
	optional(rateKey("loopback.rate", "measured one-way TCP transfer over loopback: bandwidth β; 0B/s: model the stack stages instead", func(s *Scenario) *units.Rate { return &s.Loopback.Rate }, true, false)),
	optional(bytesKey("loopback.knee", "size past which the loopback transfer runs at loopback.rate_beyond (a cache edge); 0B: none", func(s *Scenario) *units.Bytes { return &s.Loopback.Knee }, 0, 1<<40)),
	optional(rateKey("loopback.rate_beyond", "loopback transfer bandwidth past loopback.knee", func(s *Scenario) *units.Rate { return &s.Loopback.RateBeyond }, true, false)),
	optional(rateKey("loopback.stream_rate", "loopback TCP streaming goodput for writes of the chunk size: the stage's period when chunks follow each other; 0B/s: from loopback.rate", func(s *Scenario) *units.Rate { return &s.Loopback.StreamRate }, true, false)),
}

func optional(k Key) Key { k.Optional = true; return k }

// stackKey is software.stack: one of the registered stacks, checked when
// it is set (stacks register themselves at init, after the key table).
func stackKey() Key {
	return typedKey("software.stack", "the software stack driving the transport: none (the bare transport, as perftest's verbs run it) | perftest | ucx | nccl | nvshmem", "none|perftest|ucx|nccl|nvshmem",
		func(s *Scenario) *string { return &s.Software.Stack },
		func(v string) (string, error) {
			t := strings.ToLower(strings.TrimSpace(v))
			if _, err := LookupStack(t); err != nil {
				return "", err
			}
			return t, nil
		}, func(v string, text string) error {
			if _, err := LookupStack(v); err != nil {
				return fmt.Errorf("%q: %v", text, err)
			}
			return nil
		}, func(v string) any { return v }, func(v string) string { return v })
}

// computeCapabilityKey is gpu.compute_capability: "9.0" as CUDA writes
// it, held ×10 (90); "0" or "auto": from the catalog (Scenario.ComputeCapability).
func computeCapabilityKey() Key {
	return typedKey("gpu.compute_capability", "CUDA compute capability (7.0 Volta, 8.0 Ampere, 9.0 Hopper, 10.0 Blackwell), which picks NCCL's tuning constants; 0: from the catalog entry gpu.model names, else 9.0 when gpu.gdr_flush is false and 8.0 when it is true", "major.minor",
		func(s *Scenario) *int { return &s.GPU.ComputeCapability },
		func(v string) (int, error) {
			t := strings.TrimSpace(v)
			if t == "0" || strings.EqualFold(t, "auto") {
				return 0, nil
			}
			x, err := strconv.ParseFloat(t, 64)
			if err != nil || math.IsNaN(x) {
				return 0, fmt.Errorf("%q is not a compute capability (major.minor, as 9.0)", v)
			}
			return int(math.Round(x * 10)), nil
		}, func(cc int, text string) error {
			if cc != 0 && (cc < 30 || cc > 150) {
				return fmt.Errorf("%s is out of range [3.0, 15.0] (0: from the catalog)", text)
			}
			return nil
		}, func(cc int) any { return formatCC(cc) }, formatCC)
}

// formatCC writes a compute capability held ×10 as CUDA writes it ("9.0").
func formatCC(cc int) string {
	if cc == 0 {
		return "0"
	}
	return fmt.Sprintf("%d.%d", cc/10, cc%10)
}

func durationKeyFreq() Key {
	return typedKey("cpu.clock", "core clock (reports CPU costs in cycles)", "frequency", func(s *Scenario) *units.Hertz { return &s.CPU.Clock },
		units.ParseFrequency, func(f units.Hertz, v string) error {
			if !(f >= 1e8 && f <= 1e10) {
				return fmt.Errorf("%s is out of range [100MHz, 10GHz]", v)
			}
			return nil
		}, func(f units.Hertz) any { return f.String() }, units.Hertz.String)
}

func messageRateKey() Key {
	return typedKey("nic.message_rate", "packets per second the NIC handles in each direction", "count/s", func(s *Scenario) *float64 { return &s.NIC.MessageRate },
		units.ParseCount, func(x float64, v string) error {
			if !(x >= 1e3 && x <= 1e11) {
				return fmt.Errorf("%s is out of range [1k/s, 100G/s]", v)
			}
			return nil
		}, func(x float64) any { return units.FormatCount(x) }, units.FormatCount)
}

func mpsKey() Key {
	return typedKey("pcie.mps", "PCIe Max_Payload_Size: 128B..4KiB, a power of two", "bytes", func(s *Scenario) *units.Bytes { return &s.PCIe.MPS },
		units.ParseBytes, func(b units.Bytes, v string) error {
			if b < 128 || b > 4096 || b&(b-1) != 0 {
				return fmt.Errorf("%s is not one of 128B, 256B, 512B, 1KiB, 2KiB, 4KiB", v)
			}
			return nil
		}, func(b units.Bytes) any { return b.String() }, units.Bytes.String)
}

func lengthKey() Key {
	return typedKey("network.cable", "total cable length between the NICs (5 ns/m)", "length", func(s *Scenario) *units.Meters { return &s.Network.Cable },
		units.ParseLength, func(m units.Meters, v string) error {
			if !(m >= 0 && m <= 1e5) {
				return fmt.Errorf("%s is out of range [0, 100km]", v)
			}
			return nil
		}, func(m units.Meters) any { return m.String() }, units.Meters.String)
}

// Keys lists every scenario key in file order.
func Keys() []Key { return append([]Key(nil), keys...) }

func lookupKey(name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Get returns the text of one key, as Set accepts it.
func (s *Scenario) Get(key string) (string, error) {
	k, ok := lookupKey(key)
	if !ok {
		return "", &InputError{Key: key, Err: unknownKeyErr(key)}
	}
	return k.Text(s), nil
}

// keySynonyms are the words people write for a key's last word: --set
// nic.speed means nic.rate before it means nic.model, the nearest by
// spelling.
var keySynonyms = map[string]string{
	"speed": "rate", "bandwidth": "rate", "bw": "rate", "throughput": "rate", "link_rate": "rate", "linkrate": "rate",
	"delay": "latency", "lat": "latency", "gen": "pcie", "generation": "pcie", "link": "pcie",
	"name": "model", "type": "kind", "jumbo": "mtu", "distance": "cable", "length": "cable", "switches": "hops",
}

func unknownKeyErr(key string) error {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		word := strings.ToLower(key[i+1:])
		for _, w := range slices.Sorted(maps.Keys(keySynonyms)) {
			syn := keySynonyms[w]
			// The word itself, or a misspelling of a long one (bandwith).
			if w != word && (len(w) < 6 || levenshtein.ComputeDistance(w, word) > 2) {
				continue
			}
			if _, ok := lookupKey(key[:i+1] + syn); ok {
				return fmt.Errorf("unknown key (did you mean %s?)", key[:i+1]+syn)
			}
		}
	}
	best, bestD := "", 1<<30
	for _, k := range keys {
		if d := levenshtein.ComputeDistance(key, k.Name); d < bestD {
			best, bestD = k.Name, d
		}
	}
	if bestD <= 3 || (strings.Contains(key, ".") && strings.HasPrefix(best, strings.SplitN(key, ".", 2)[0]+".")) {
		return fmt.Errorf("unknown key (did you mean %s?)", best)
	}
	return errors.New("unknown key (gpupath preset show default lists the keys)")
}

// Validate checks what single keys cannot: combinations.
func (s *Scenario) Validate() error {
	if s.NIC.Kind == KindEthernet && s.NIC.RDMA {
		return &InputError{Key: "nic.rdma", Err: errors.New("an ethernet NIC without RoCE has no RDMA (use nic.kind: roce)")}
	}
	if s.NIC.Kind == KindLoopback && s.NIC.RDMA {
		return &InputError{Key: "nic.rdma", Err: errors.New("the loopback device has no RDMA")}
	}
	if s.NIC.MTU < 576 && s.NIC.Kind != KindIB {
		return &InputError{Key: "nic.mtu", Err: fmt.Errorf("%d: an IP MTU must be at least 576", s.NIC.MTU)}
	}
	if s.NIC.Kind == KindIB {
		switch s.NIC.MTU {
		case 256, 512, 1024, 2048, 4096:
		default:
			return &InputError{Key: "nic.mtu", Err: fmt.Errorf("%d: an InfiniBand MTU is one of 256, 512, 1024, 2048, 4096", s.NIC.MTU)}
		}
	}
	return nil
}

// Clone returns a copy of s.
func (s *Scenario) Clone() *Scenario {
	c := *s
	return &c
}

// Map returns the scenario as nested maps with the YAML key names and
// values as written in a file ("400Gbit/s", true, 1): the "scenario"
// object of `gpupath model --format json`.
func (s *Scenario) Map() map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		parts := strings.Split(k.Name, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = k.get(s)
	}
	return out
}

// Sections lists the top-level sections of the key table in file order.
func Sections() []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		if i := strings.IndexByte(k.Name, '.'); i > 0 {
			sec := k.Name[:i]
			if !seen[sec] {
				seen[sec] = true
				out = append(out, sec)
			}
		}
	}
	return out
}

// Diff lists the keys whose text differs between a and b, sorted.
func Diff(a, b *Scenario) []string {
	var out []string
	for _, k := range keys {
		if k.Text(a) != k.Text(b) {
			out = append(out, k.Name)
		}
	}
	sort.Strings(out)
	return out
}
