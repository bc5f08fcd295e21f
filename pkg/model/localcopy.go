package model

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// LocalCopy is a copy between host memory and the memory of one GPU inside a
// node, as a benchmark times one call of it: a synchronous cudaMemcpy from a
// pinned or a pageable buffer, or a CPU copy through a BAR1 mapping of GPU
// memory (gdrcopy). Local copies are data, like paths: Time gives the
// seconds of one copy of n bytes on a scenario, What says how.
type LocalCopy struct {
	Name  string
	Title string
	// Story says in a sentence what moves the bytes.
	Story string
	time  func(s *Scenario, n units.Bytes) units.Seconds
	what  func(s *Scenario) string
}

// Time is the wall time of one copy of n bytes (n ≥ 1).
func (c LocalCopy) Time(s *Scenario, n units.Bytes) units.Seconds { return c.time(s, max(n, 1)) }

// What says how the copy is modeled on s, with the rates it uses.
func (c LocalCopy) What(s *Scenario) string { return c.what(s) }

// wcLine is the size of one write-combining buffer and of the posted write
// it leaves the core as: 64 bytes, one cache line (Intel SDM vol. 3A,
// "Write Combining": the WC buffers are 64 bytes on current processors).
// CPU loads from a WC mapping with SSE4.1 streaming loads (gdrcopy's
// memcpy_uncached_load_sse41) fetch a line at a time as well.
const wcLine = 64

var localCopies = []LocalCopy{
	{Name: "pinned-h2d", Title: "cudaMemcpy host→device, pinned",
		Story: "The copy engine DMA-reads the page-locked buffer over PCIe into GPU memory.",
		time:  func(s *Scenario, n units.Bytes) units.Seconds { return s.GPU.CopyLatency + perByte(n, s.H2DRate()) },
		what: func(s *Scenario) string {
			return fmt.Sprintf("gpu.copy_latency %s + n / %s (the pinned host→device rate)", s.GPU.CopyLatency.Human(), s.H2DRate().Human())
		}},
	{Name: "pinned-d2h", Title: "cudaMemcpy device→host, pinned",
		Story: "The copy engine DMA-writes GPU memory over PCIe into the page-locked buffer.",
		time:  func(s *Scenario, n units.Bytes) units.Seconds { return s.GPU.CopyLatency + perByte(n, s.D2HRate()) },
		what: func(s *Scenario) string {
			return fmt.Sprintf("gpu.copy_latency %s + n / %s (the pinned device→host rate)", s.GPU.CopyLatency.Human(), s.D2HRate().Human())
		}},
	{Name: "pageable-h2d", Title: "cudaMemcpy host→device, pageable",
		Story: "The driver stages the pageable buffer through its own pinned buffer: one CPU core copies it in, then the copy engine moves it; the two take turns.",
		time:  func(s *Scenario, n units.Bytes) units.Seconds { return s.pageable(n, s.H2DRate()) },
		what:  func(s *Scenario) string { return s.pageableWhat("host→device", s.H2DRate()) }},
	{Name: "pageable-d2h", Title: "cudaMemcpy device→host, pageable",
		Story: "The copy engine writes into the driver's pinned staging buffer, then one CPU core copies it out into the pageable buffer; the two take turns.",
		time:  func(s *Scenario, n units.Bytes) units.Seconds { return s.pageable(n, s.D2HRate()) },
		what:  func(s *Scenario) string { return s.pageableWhat("device→host", s.D2HRate()) }},
	{Name: "bar-write", Title: "CPU stores into GPU memory through BAR1 (gdrcopy copy_to_mapping)",
		Story: "The CPU writes a write-combined mapping of GPU memory: each filled 64-byte write-combining buffer leaves as one posted PCIe write, so the link's rate for 64-byte payloads sets the pace; the call returns when a store fence has drained the buffers.",
		time:  func(s *Scenario, n units.Bytes) units.Seconds { return s.barWrite(n) },
		what: func(s *Scenario) string {
			return fmt.Sprintf("cpu.bar_store_latency %s + n / %s (%s: the GPU link's rate for 64-byte posted writes%s)", s.CPU.BARStoreLatency.Human(), s.BARWriteRate().Human(), s.GPU.PCIe, s.crossSocket("; capped by topology.inter_socket_rate"))
		}},
	{Name: "bar-read", Title: "CPU loads from GPU memory through BAR1 (gdrcopy copy_from_mapping)",
		Story: "The CPU reads a write-combined mapping of GPU memory: every 64-byte line is an uncached PCIe read round trip, and one core keeps only as many in flight as it has line fill buffers, so the copy is latency-bound.",
		time:  func(s *Scenario, n units.Bytes) units.Seconds { return s.barRead(n) },
		what: func(s *Scenario) string {
			return fmt.Sprintf("one read round trip %s (pcie.read_latency + gpu.bar_read_latency%s), then a 64-byte line per round trip ÷ cpu.outstanding_loads %d: %s", s.barReadLatency().Human(), s.crossSocket(" + two inter-socket crossings"), s.CPU.OutstandingLoads, s.BARReadRate().Human())
		}},
}

// LocalCopies lists the local copies in presentation order.
func LocalCopies() []LocalCopy { return append([]LocalCopy(nil), localCopies...) }

// LookupLocalCopy finds a local copy by name.
func LookupLocalCopy(name string) (LocalCopy, error) {
	names := make([]string, len(localCopies))
	for i, c := range localCopies {
		if c.Name == name {
			return c, nil
		}
		names[i] = c.Name
	}
	return LocalCopy{}, fmt.Errorf("unknown local copy %q (local copies: %s)", name, strings.Join(names, ", "))
}

func perByte(n units.Bytes, r units.Rate) units.Seconds {
	return units.Seconds(float64(n) / float64(r))
}

// pageable is one synchronous cudaMemcpy of a pageable buffer. The driver
// cannot DMA pageable memory, so it stages the bytes through a pinned
// buffer of its own (CUDA Runtime API, "API synchronization behavior": the
// call returns "once the pageable buffer has been copied to the staging
// memory for DMA transfer"): one CPU core copies them at cpu.memcpy_rate,
// the copy engine moves them at the pinned rate. The staging is serial —
// the CPU copy and the DMA take turns rather than overlap (practitioners
// who traced it draw it so: gabotechs/libcudf-rs PR #35, "stage col0,
// wait DMA, stage col1"; tracel-ai/cubecl PR #1404, "stages internally and
// serially") — so the two per-byte costs add:
//
//	T(n) = gpu.copy_latency + n/cpu.memcpy_rate + n/pinned rate
//
// An NVIDIA H200 machine (PCIe Gen5 x16) shows the consequence, measured
// 2026-11-29: pageable copies at 6.6–13.7 GB/s against 55.4 GB/s pinned
// (bench/results/h200-1gpu-2026-11-29-final/console.txt); with one core at
// 12 GB/s the formula gives 9.9 GB/s.
func (s *Scenario) pageable(n units.Bytes, pinned units.Rate) units.Seconds {
	return s.GPU.CopyLatency + perByte(n, s.CPU.MemcpyRate) + perByte(n, pinned)
}

func (s *Scenario) pageableWhat(dir string, pinned units.Rate) string {
	return fmt.Sprintf("gpu.copy_latency %s + n / %s (one core's copy through the driver's pinned staging buffer, cpu.memcpy_rate) + n / %s (the pinned %s rate): staging and DMA take turns", s.GPU.CopyLatency.Human(), s.CPU.MemcpyRate.Human(), pinned.Human(), dir)
}

func (s *Scenario) crossSocket(what string) string {
	if s.Topology.CPUGPU == SYS {
		return what
	}
	return ""
}

// BARWriteRate is the rate of CPU stores into GPU memory through a
// write-combined BAR1 mapping: every 64-byte write-combining buffer leaves
// the core as one posted write TLP, so the GPU's link carries 64 bytes of
// payload per TLP — gen3 x16: 15.75 GB/s × 64/(64+28) = 10.96 GB/s. From
// the other socket the stores cross the inter-socket link, which caps them.
func (s *Scenario) BARWriteRate() units.Rate {
	r := s.GPU.PCIe.Rate(wcLine)
	if s.Topology.CPUGPU == SYS {
		r = min(r, s.Topology.InterSocketRate)
	}
	return r
}

// barWrite is gdrcopy's copy_to_mapping of n bytes: the call and its store
// fence, then n at the link's rate for 64-byte writes. The stores are
// posted: the call returns when the buffers have drained into the fabric
// (the gdrcopy README warns the data may not yet be visible to the GPU),
// so no read round trip is paid.
func (s *Scenario) barWrite(n units.Bytes) units.Seconds {
	t := s.CPU.BARStoreLatency + perByte(n, s.BARWriteRate())
	if s.Topology.CPUGPU == SYS {
		t += s.Topology.InterSocketLatency
	}
	return t
}

// barReadLatency is one CPU load from GPU memory through BAR1: a PCIe read
// round trip (pcie.read_latency) plus what reading GPU memory through BAR1
// adds (gpu.bar_read_latency), plus two inter-socket crossings from the
// other socket.
func (s *Scenario) barReadLatency() units.Seconds {
	l := s.PCIe.ReadLatency + s.GPU.BARReadLatency
	if s.Topology.CPUGPU == SYS {
		l += 2 * s.Topology.InterSocketLatency
	}
	return l
}

// BARReadRate is the rate of CPU loads from GPU memory through a
// write-combined BAR1 mapping: loads are uncached, so every 64-byte line is
// a read round trip, and one core keeps cpu.outstanding_loads of them in
// flight (a strictly uncached mapping would allow one: 64 B per round trip).
func (s *Scenario) BARReadRate() units.Rate {
	return units.Rate(float64(wcLine*max(s.CPU.OutstandingLoads, 1)) / float64(s.barReadLatency()))
}

// barRead is gdrcopy's copy_from_mapping of n bytes: the first line costs a
// whole round trip, every further line a share of one,
//
//	T(n) = L + (⌈n/64⌉ − 1) · L / cpu.outstanding_loads
func (s *Scenario) barRead(n units.Bytes) units.Seconds {
	l := s.barReadLatency()
	lines := (n + wcLine - 1) / wcLine
	return l + units.Seconds(float64(lines-1))*l/units.Seconds(max(s.CPU.OutstandingLoads, 1))
}
