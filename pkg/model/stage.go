package model

import (
	"math"

	"github.com/gpupath/gpupath/pkg/units"
)

// Side is where a stage runs.
type Side string

// The sides of a transfer.
const (
	Sender   Side = "sender"
	Network  Side = "network"
	Receiver Side = "receiver"
)

// Stage is one step of a path. Its time for a message of n bytes is
//
//	T(n) = Alpha + n·PerByte + packets(n)·PerPacket
//
// or, with a knee (Knee > 0: a cache edge, where the per-byte cost changes),
//
//	T(n) = Alpha + min(n, Knee)·PerByte + max(0, n − Knee)·PerByteBeyond + packets(n)·PerPacket
//
// where packets(n) = ⌈n/Packet⌉ (at least 1) when Packet > 0. When the path
// is pipelined in chunks, each further chunk occupies the stage for
// Occupancy + T(chunk) − Alpha: Occupancy is the part of Alpha that keeps
// the stage busy (a CPU call, a DMA setup), as opposed to pure delay
// (propagation, a switch hop), which overlaps.
//
// Grain says how the stage hands data on within one message. 0: the whole
// message at once (a synchronous copy, a host step that must finish before
// the next starts). Grain > 0: in units of Grain bytes as they are done —
// a NIC reading, a wire carrying and a NIC writing packet by packet, a
// kernel pushing TCP segments — so consecutive stages with a grain overlap
// inside the message (see Route.Evaluate).
//
// A stage with SmallMax > 0 costs SmallAlpha instead of Alpha for messages
// of at most SmallMax bytes (an inline send: the payload rides in the work
// request, no DMA read of it).
//
// A stage with From or Until set runs only for messages of From ≤ n <
// Until bytes (Until 0: no upper bound): a software stack that switches
// protocol with the size (UCX's eager protocol below its rendezvous
// threshold, the rendezvous above it) lists the stages of both, each with
// its range. Outside its range a stage costs nothing, loads nothing and is
// reported inactive.
type Stage struct {
	Name   string // short: "cudaMemcpy D2H"
	Letter string // the stage's letter A–G (in the order the data meets them), "" where none applies
	Side   Side
	What   string // one sentence: what happens here

	Alpha     units.Seconds
	PerByte   units.Seconds // seconds per payload byte (1/β)
	PerPacket units.Seconds // seconds per packet
	Packet    units.Bytes   // payload bytes per packet (0: no per-packet term)
	// PerSegment and Segment: a second per-unit term, per Segment bytes
	// (a GRO aggregate on receive); Segment 0: none.
	PerSegment units.Seconds
	Segment    units.Bytes
	// Knee and PerByteBeyond: past Knee bytes the per-byte cost is
	// PerByteBeyond (Knee 0: no knee).
	Knee          units.Bytes
	PerByteBeyond units.Seconds
	Occupancy     units.Seconds // per-chunk busy time when pipelined (≤ Alpha)
	Grain         units.Bytes   // hand-off unit within a message (0: the whole message)
	SmallMax      units.Bytes   // messages up to this size cost SmallAlpha (0: none)
	SmallAlpha    units.Seconds
	// From and Until bound the message sizes the stage runs for: From ≤ n
	// < Until (Until 0: no upper bound).
	From, Until units.Bytes
	// StreamPerByte, when set, is the per-byte busy time of the stage when
	// messages or chunks follow each other back to back (a measured
	// streaming rate), in place of its single-message per-byte time.
	StreamPerByte units.Seconds
	// OnCPU marks a stage executed by host cores; Parallel is how many
	// messages it can work on at once (the flows for a CPU stage; 0 means 1).
	OnCPU    bool
	Parallel int

	// CPU seconds spent on this stage, and on which side's cores.
	CPUPerMessage units.Seconds
	CPUPerByte    units.Seconds
	CPUPerPacket  units.Seconds
	CPUPerSegment units.Seconds

	DDR       float64 // DDR bytes read or written per payload byte
	Crossings int     // PCIe transfers of the payload in this stage
	Copy      bool    // an explicit copy of the payload (by the CPU or a copy engine)

	// Uses lists the shared resources the stage loads (DDR, PCIe link
	// directions, CPU cores, the wire), beyond its own occupancy.
	Uses []Use
}

// Use is a stage's load on a shared resource per message of n bytes:
// PerMessage + n·PerByte + packets·PerPacket, in the resource's units.
type Use struct {
	Resource   string
	PerMessage float64
	PerByte    float64
	PerPacket  float64
	Packet     units.Bytes

	from, until units.Bytes // the stage's active range, copied in by indexUses
}

// Resource is something stages share, with a capacity in units per second
// (bytes for links and memory, core-seconds for CPUs).
type Resource struct {
	Name     string
	Label    string // for people: "sender CPU (1 core per flow)"
	Capacity float64
	CPU      bool // a CPU resource (left out of the line rate)
}

func packets(n, per units.Bytes) float64 {
	if per <= 0 {
		return 0
	}
	if n <= 0 {
		return 1
	}
	return math.Ceil(float64(n) / float64(per))
}

// Active reports whether the stage runs for a message of n bytes (From ≤ n
// < Until, Until 0 meaning no bound).
func (st Stage) Active(n units.Bytes) bool {
	return n >= st.From && (st.Until <= 0 || n < st.Until)
}

// Time is the stage's step-by-step time for a message of n bytes: its
// fixed cost and its size-dependent cost, as if it had the whole message
// before the next stage starts.
func (st Stage) Time(n units.Bytes) units.Seconds {
	if !st.Active(n) {
		return 0
	}
	return st.AlphaAt(n) + st.Cost(n)
}

// AlphaAt is the stage's fixed cost for a message of n bytes: SmallAlpha up
// to SmallMax bytes, else Alpha (0 when the stage does not run at n).
func (st Stage) AlphaAt(n units.Bytes) units.Seconds {
	if !st.Active(n) {
		return 0
	}
	if st.SmallMax > 0 && n <= st.SmallMax {
		return st.SmallAlpha
	}
	return st.Alpha
}

// Cost is the size-dependent part of the stage's time for n bytes:
// n·PerByte (with its knee) + packets(n)·PerPacket.
// It does not ask whether the stage runs at n: its callers ask that of
// the message's size (hardware takes the cost of a message's first unit).
func (st Stage) Cost(n units.Bytes) units.Seconds {
	return st.bytesTime(n) + units.Seconds(packets(n, st.Packet))*st.PerPacket + units.Seconds(packets(n, st.Segment))*st.PerSegment
}

func (st Stage) bytesTime(n units.Bytes) units.Seconds {
	if st.Knee > 0 && n > st.Knee {
		return units.Seconds(float64(st.Knee))*st.PerByte + units.Seconds(float64(n-st.Knee))*st.PerByteBeyond
	}
	return units.Seconds(float64(n)) * st.PerByte
}

// Rate is the stage's asymptotic bandwidth 1/(PerByte + PerPacket/Packet),
// +Inf when it has no per-byte cost.
func (st Stage) Rate() units.Rate {
	per := float64(st.PerByte)
	if st.Knee > 0 {
		per = float64(st.PerByteBeyond)
	}
	if st.Packet > 0 {
		per += float64(st.PerPacket) / float64(st.Packet)
	}
	if st.Segment > 0 {
		per += float64(st.PerSegment) / float64(st.Segment)
	}
	if per <= 0 {
		return units.Rate(math.Inf(1))
	}
	return units.Rate(1 / per)
}

// CPU is the stage's CPU seconds for a message of n bytes.
func (st Stage) CPU(n units.Bytes) units.Seconds {
	if !st.Active(n) {
		return 0
	}
	return st.CPUPerMessage + units.Seconds(float64(n))*st.CPUPerByte + units.Seconds(packets(n, st.Packet))*st.CPUPerPacket +
		units.Seconds(packets(n, st.Segment))*st.CPUPerSegment
}

// Busy is how long the stage is occupied by one of many back-to-back
// messages (or chunks) of n bytes: its per-chunk occupancy plus its
// size-dependent time, or its streaming per-byte time when it has one.
func (st Stage) Busy(n units.Bytes) units.Seconds {
	if !st.Active(n) {
		return 0
	}
	if st.StreamPerByte > 0 {
		return st.Occupancy + units.Seconds(float64(n))*st.StreamPerByte
	}
	return st.Occupancy + st.Cost(n)
}

// bytesBusy is the per-byte part of Busy(n): the stage's time for the
// bytes themselves, without its fixed and per-packet costs.
func (st Stage) bytesBusy(n units.Bytes) units.Seconds {
	if !st.Active(n) {
		return 0
	}
	if st.StreamPerByte > 0 {
		return units.Seconds(float64(n)) * st.StreamPerByte
	}
	return st.bytesTime(n)
}

func (u Use) load(n units.Bytes) float64 {
	if n < u.from || (u.until > 0 && n >= u.until) {
		return 0
	}
	return u.PerMessage + float64(n)*u.PerByte + packets(n, u.Packet)*u.PerPacket
}
