package model

import "math"

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
type Stage struct {
	Name   string // short: "cudaMemcpy D2H"
	Letter string // the seed's letter A–G, "" where none applies
	Side   Side
	What   string // one sentence: what happens here

	Alpha     Seconds
	PerByte   Seconds // seconds per payload byte (1/β)
	PerPacket Seconds // seconds per packet
	Packet    Bytes   // payload bytes per packet (0: no per-packet term)
	// Knee and PerByteBeyond: past Knee bytes the per-byte cost is
	// PerByteBeyond (Knee 0: no knee).
	Knee          Bytes
	PerByteBeyond Seconds
	Occupancy     Seconds // per-chunk busy time when pipelined (≤ Alpha)
	// StreamPerByte, when set, is the per-byte busy time of the stage when
	// messages or chunks follow each other back to back (a measured
	// streaming rate), in place of its single-message per-byte time.
	StreamPerByte Seconds
	// OnCPU marks a stage executed by host cores; Parallel is how many
	// messages it can work on at once (the flows for a CPU stage; 0 means 1).
	OnCPU    bool
	Parallel int

	// CPU seconds spent on this stage, and on which side's cores.
	CPUPerMessage Seconds
	CPUPerByte    Seconds
	CPUPerPacket  Seconds

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
	Packet     Bytes
}

// Resource is something stages share, with a capacity in units per second
// (bytes for links and memory, core-seconds for CPUs).
type Resource struct {
	Name     string
	Label    string // for people: "sender CPU (1 core per flow)"
	Capacity float64
	CPU      bool // a CPU resource (left out of the line rate)
}

func packets(n, per Bytes) float64 {
	if per <= 0 {
		return 0
	}
	if n <= 0 {
		return 1
	}
	return math.Ceil(float64(n) / float64(per))
}

// Time is the stage's store-and-forward time for a message of n bytes.
func (st Stage) Time(n Bytes) Seconds {
	return st.Alpha + st.bytesTime(n) + Seconds(packets(n, st.Packet))*st.PerPacket
}

func (st Stage) bytesTime(n Bytes) Seconds {
	if st.Knee > 0 && n > st.Knee {
		return Seconds(float64(st.Knee))*st.PerByte + Seconds(float64(n-st.Knee))*st.PerByteBeyond
	}
	return Seconds(float64(n)) * st.PerByte
}

// Rate is the stage's asymptotic bandwidth 1/(PerByte + PerPacket/Packet),
// +Inf when it has no per-byte cost.
func (st Stage) Rate() Rate {
	per := float64(st.PerByte)
	if st.Knee > 0 {
		per = float64(st.PerByteBeyond)
	}
	if st.Packet > 0 {
		per += float64(st.PerPacket) / float64(st.Packet)
	}
	if per <= 0 {
		return Rate(math.Inf(1))
	}
	return Rate(1 / per)
}

// CPU is the stage's CPU seconds for a message of n bytes.
func (st Stage) CPU(n Bytes) Seconds {
	return st.CPUPerMessage + Seconds(float64(n))*st.CPUPerByte + Seconds(packets(n, st.Packet))*st.CPUPerPacket
}

// Busy is how long the stage is occupied by one of many back-to-back
// messages (or chunks) of n bytes: its per-chunk occupancy plus its
// size-dependent time, or its streaming per-byte time when it has one.
func (st Stage) Busy(n Bytes) Seconds {
	if st.StreamPerByte > 0 {
		return st.Occupancy + Seconds(float64(n))*st.StreamPerByte
	}
	return st.Occupancy + st.Time(n) - st.Alpha
}

func (u Use) load(n Bytes) float64 {
	return u.PerMessage + float64(n)*u.PerByte + packets(n, u.Packet)*u.PerPacket
}
