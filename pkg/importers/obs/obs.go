// Package obs holds the observations that the importers read out of other
// tools' outputs: what ran (tool, version, command line), what it measured
// (one Record per printed result, with the line it came from), the hardware
// the output names, the path NCCL says it took, and the lines that could not
// be read.
//
// The types are plain data in base units (bytes, seconds, bytes per second);
// they know nothing of run directories, scenarios or reports. Every parser
// under pkg/importers returns an *Output; pkg/importers turns Outputs into a
// run directory.
package obs

import (
	"github.com/gpupath/gpupath/pkg/units"

	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// Metric says what a record's central value is.
type Metric string

// The metrics of a record.
const (
	// Latency records give a time per message (Time, Min, Max, P50...).
	Latency Metric = "latency"
	// Bandwidth records give a rate (Rate; Time is the time per message
	// where the tool prints it).
	Bandwidth Metric = "bandwidth"
)

// Output is what one parser read from one file.
type Output struct {
	// Tool names the format ("nccl-tests", "perftest", "osu", ...); Version
	// is the tool's version as printed ("2.26.2+cuda12.8", "v5.7.1"), and
	// Command the command line where the output holds it.
	Tool    string `json:"tool"`
	Version string `json:"version,omitempty"`
	Command string `json:"command,omitempty"`
	// Test is the test the output says it ran ("all_reduce_perf",
	// "osu_bw", "RDMA_Write BW Test"), when one test covers the file.
	Test string `json:"test,omitempty"`
	// Hardware is what the output says about the machines.
	Hardware Hardware `json:"hardware,omitzero"`
	// Records are the results, in the order printed.
	Records []Record `json:"records,omitempty"`
	// Channels are the connections an NCCL log shows, one per channel,
	// peer and direction; Path is what they amount to.
	Channels []Channel `json:"channels,omitempty"`
	Path     *NCCLPath `json:"nccl_path,omitempty"`
	// Failures are errors the tool itself printed (the run failed or was
	// cut short); the records before them are kept.
	Failures []Problem `json:"failures,omitempty"`
	// Problems are lines the parser could not read: they are errors of the
	// import, reported with their line, and nothing is made up for them.
	Problems []Problem `json:"problems,omitempty"`
	// Notes say what a reader should know: defaults assumed, rows dropped
	// as duplicates.
	Notes []string `json:"notes,omitempty"`
	// Sink, when set, takes each record Add is given instead of Records
	// (a parser that streams: see pkg/importers); Streamed counts them.
	Sink     func(Record) `json:"-"`
	Streamed int          `json:"-"`
}

// MaxRecords bounds the records of one output: a run directory holds at
// most a million (pkg/record's limit), so an output with more cannot be
// imported, and its parser stops at the record past it instead of reading
// the whole file.
const MaxRecords = 1_000_000

// TooManyRecords is what Add panics with at the record past MaxRecords:
// it ends the parse wherever the parser is. pkg/importers recovers it and
// refuses the file; Line is the record's line.
type TooManyRecords struct{ Line int }

// Add appends r to the records (or hands it to Sink) and tells whether it
// did: a record with a time or rate outside the physical range is its
// line's problem instead. At the record past MaxRecords it panics with
// TooManyRecords.
func (o *Output) Add(r Record) bool {
	if why := r.unphysical(); why != "" {
		// A number no transfer takes (a unit error, a mangled row): its
		// line is a problem, and nothing is recorded of it.
		o.Problems = append(o.Problems, Problem{Line: r.Line, Reason: why + ": not a measurement; no record"})
		return false
	}
	if o.Full() {
		panic(TooManyRecords{Line: r.Line})
	}
	if o.Sink != nil {
		o.Streamed++
		o.Sink(r)
		return true
	}
	o.Records = append(o.Records, r)
	return true
}

// unphysical names the first time or rate of r outside the physical
// range (units.PhysicalTime, PhysicalRate); "" when all are in it. A 0 is
// "not printed".
func (r *Record) unphysical() string {
	for _, t := range [...]struct {
		name string
		v    float64
	}{{"time", r.Time}, {"minimum", r.Min}, {"maximum", r.Max}, {"median", r.P50}, {"p90", r.P90}, {"p99", r.P99}, {"p99.9", r.P999}, {"CPU time", r.CPU}} {
		if t.v != 0 && !units.PhysicalTime(t.v) {
			return fmt.Sprintf("a %s of %g s, outside 1 ps – 10⁶ s", t.name, t.v)
		}
	}
	if r.Stdev != 0 && !(r.Stdev > 0 && r.Stdev <= float64(units.MaxTime)) {
		return fmt.Sprintf("a standard deviation of %g s, past 10⁶ s", r.Stdev)
	}
	for _, x := range [...]struct {
		name string
		v    float64
	}{{"rate", r.Rate}, {"bus rate", r.BusRate}, {"peak rate", r.PeakRate}} {
		if x.v != 0 && !units.PhysicalRate(x.v) {
			return fmt.Sprintf("a %s of %g B/s, past 10¹⁵ B/s", x.name, x.v)
		}
	}
	if r.MsgRate != 0 && !(r.MsgRate > 0 && r.MsgRate <= float64(units.MaxRate)) {
		return fmt.Sprintf("a message rate of %g /s, past 10¹⁵ /s", r.MsgRate)
	}
	for _, v := range r.Samples {
		if !units.PhysicalTime(v) {
			return fmt.Sprintf("a sample of %g s, outside 1 ps – 10⁶ s", v)
		}
	}
	return ""
}

// DropUnphysical moves the records a parser finished after adding them
// (a time derived from a size given later) whose figures are outside the
// physical range to Problems, as Add does.
func (o *Output) DropUnphysical() {
	kept := o.Records[:0]
	for _, r := range o.Records {
		if why := r.unphysical(); why != "" {
			o.Problems = append(o.Problems, Problem{Line: r.Line, Reason: why + ": not a measurement; no record"})
			continue
		}
		kept = append(kept, r)
	}
	o.Records = kept
}

// Full tells whether the output holds (or streamed) MaxRecords records: a
// parser may stop reading rows then.
func (o *Output) Full() bool { return len(o.Records)+o.Streamed >= MaxRecords }

// Count is the number of records read: kept and streamed.
func (o *Output) Count() int { return len(o.Records) + o.Streamed }

// ValidateRecord is Validate for one record (a streamed one).
func ValidateRecord(r *Record) error {
	if err := r.validate(); err != nil {
		return fmt.Errorf("record at line %d: %w", r.Line, err)
	}
	return nil
}

// Hardware is what an output says about the machines it ran on. Every
// field is optional; Lines gives, per field name (as in JSON), the line
// that said it.
type Hardware struct {
	// Hosts are the host names, in the order first seen.
	Hosts []string `json:"hosts,omitempty"`
	// GPUs are the GPU models as printed, one per device seen
	// ("NVIDIA H100 80GB HBM3").
	GPUs []string `json:"gpus,omitempty"`
	// Ranks is the number of processes of an MPI or NCCL job; Nodes the
	// number of hosts; GPUsPerNode the devices each node used.
	Ranks       int `json:"ranks,omitempty"`
	Nodes       int `json:"nodes,omitempty"`
	GPUsPerNode int `json:"gpus_per_node,omitempty"`
	// NICs are the network adapters the output names.
	NICs []NIC `json:"nics,omitempty"`
	// GPUNIC is the PCIe distance between a GPU and its NIC as
	// `nvidia-smi topo -m` names it (PIX, PXB, PHB, NODE, SYS).
	GPUNIC string `json:"gpu_nic,omitempty"`
	// MemoryGPU is true when the measured buffers were in GPU memory.
	MemoryGPU bool `json:"memory_gpu,omitempty"`
	// Inline is the largest message the test sent inline (its payload
	// in the work request), where the output says it (perftest's "Max
	// inline data"); nil when it does not.
	Inline *int64         `json:"inline_bytes,omitempty"`
	Lines  map[string]int `json:"lines,omitempty"`
}

// NIC is one network adapter (an RDMA device port or a network interface).
type NIC struct {
	Name string `json:"name"`
	Port int    `json:"port,omitempty"`
	// LinkLayer is "InfiniBand", "Ethernet" or "RoCE" as printed.
	LinkLayer string `json:"link_layer,omitempty"`
	// RateBps is the port's data rate in bits per second, as the tool
	// prints it (ibstat "Rate: 200" is 200 Gbit/s); 0 when not printed.
	RateBps float64 `json:"rate_bps,omitempty"`
	State   string  `json:"state,omitempty"`
	MTU     int64   `json:"mtu,omitempty"`
	Model   string  `json:"model,omitempty"`
	Line    int     `json:"line,omitempty"`
}

// Record is one result the tool printed.
type Record struct {
	// Line is the 1-based line of the file it was read from.
	Line int `json:"line"`
	// Test is what ran ("all_reduce_perf", "osu_latency", "tcp_lat",
	// "host_to_device_memcpy_ce"); Op the collective or operation
	// ("allreduce", "RDMA_Write"); Variant what tells records of one test
	// apart ("out-of-place", "in-place", "sender", "D D", "0->1").
	Test    string `json:"test"`
	Op      string `json:"op,omitempty"`
	Variant string `json:"variant,omitempty"`
	Metric  Metric `json:"metric"`
	// Bytes is the message size; 0 when the output does not say (see
	// BytesNote).
	Bytes     int64  `json:"bytes"`
	BytesNote string `json:"bytes_note,omitempty"`
	// Count, Type, Redop and Root are the nccl-tests columns.
	Count int64  `json:"count,omitempty"`
	Type  string `json:"type,omitempty"`
	Redop string `json:"redop,omitempty"`
	Root  *int   `json:"root,omitempty"`
	// Iterations the result averages over, when printed.
	Iterations int64 `json:"iterations,omitempty"`
	// Time is the tool's central time per message in seconds and Central
	// says which statistic it is ("mean", "median", "typical"); the
	// others are 0 when not printed.
	Time    float64 `json:"time_s,omitempty"`
	Central string  `json:"central,omitempty"`
	Min     float64 `json:"min_s,omitempty"`
	Max     float64 `json:"max_s,omitempty"`
	P50     float64 `json:"p50_s,omitempty"`
	P90     float64 `json:"p90_s,omitempty"`
	P99     float64 `json:"p99_s,omitempty"`
	P999    float64 `json:"p999_s,omitempty"`
	Stdev   float64 `json:"stdev_s,omitempty"`
	// Rate is the tool's bandwidth in bytes per second (nccl-tests algbw);
	// BusRate is nccl-tests' busbw; PeakRate perftest's BW peak.
	Rate     float64 `json:"rate_Bps,omitempty"`
	BusRate  float64 `json:"bus_rate_Bps,omitempty"`
	PeakRate float64 `json:"peak_rate_Bps,omitempty"`
	// MsgRate is messages (or transactions) per second.
	MsgRate float64 `json:"msg_rate,omitempty"`
	// Wrong is nccl-tests' #wrong column as printed ("0", "N/A"); Error
	// the old "error" column.
	Wrong string `json:"wrong,omitempty"`
	// Samples are per-interval or per-iteration times in seconds, when
	// the output prints them (iperf3 intervals as time per write).
	Samples []float64 `json:"samples_s,omitempty"`
	// Path names the model path this record measures when the output
	// says so ("host-rdma" for perftest on host memory, "gdr" with
	// --use_cuda); "" when it cannot tell.
	Path string `json:"path,omitempty"`
	// Target is what it ran against: a device, a peer ("mlx5_2", "0->1").
	Target string `json:"target,omitempty"`
	// CPU is CPU seconds per message where the tool measures it.
	CPU float64 `json:"cpu_s,omitempty"`
	// Extra holds other numbers the tool printed, in base units.
	Extra map[string]float64 `json:"extra,omitempty"`
	// Fields are the original values of the line.
	Fields []string `json:"fields,omitempty"`
}

// Problem is a line that went wrong: one the tool printed as an error, or
// one the parser could not read.
type Problem struct {
	Line   int    `json:"line"`
	Text   string `json:"text,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (p Problem) String() string {
	s := fmt.Sprintf("line %d", p.Line)
	if p.Reason != "" {
		s += ": " + p.Reason
	}
	if p.Text != "" {
		s += ": " + Quote(p.Text, 80)
	}
	return s
}

// Quote returns s in double quotes, cut to at most n runes.
func Quote(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		s = string(r[:n]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// ErrNotRecognized is wrapped by a parser's error when the input is not
// its tool's output at all.
var ErrNotRecognized = errors.New("not this tool's output")

// NotRecognized returns an error wrapping ErrNotRecognized.
func NotRecognized(tool, why string) error {
	return fmt.Errorf("%s: %w: %s", tool, ErrNotRecognized, why)
}

// Validate checks what every record must satisfy: a line number, a test, a
// known metric, non-negative sizes, finite non-negative values, and a
// central value for its metric. Parsers never return records that fail it
// (the fuzz tests check that); the importer checks again.
func (o *Output) Validate() error {
	if o.Tool == "" {
		return errors.New("output without a tool name")
	}
	for i, r := range o.Records {
		if err := r.validate(); err != nil {
			return fmt.Errorf("record %d (line %d): %w", i+1, r.Line, err)
		}
	}
	for _, p := range append(append([]Problem(nil), o.Problems...), o.Failures...) {
		if p.Line < 0 {
			return fmt.Errorf("problem at line %d", p.Line)
		}
	}
	for _, n := range o.Hardware.NICs {
		if !finiteNonNeg(n.RateBps) || n.MTU < 0 {
			return fmt.Errorf("NIC %s: rate %v, MTU %d", n.Name, n.RateBps, n.MTU)
		}
	}
	return nil
}

func (r Record) validate() error {
	switch {
	case r.Line < 1:
		return errors.New("no line number")
	case r.Test == "":
		return errors.New("no test name")
	case r.Bytes < 0 || r.Count < 0 || r.Iterations < 0:
		return errors.New("negative size or count")
	}
	vals := [...]float64{r.Time, r.Min, r.Max, r.P50, r.P90, r.P99, r.P999, r.Stdev, r.Rate, r.BusRate, r.PeakRate, r.MsgRate, r.CPU}
	for i, v := range vals {
		if !finiteNonNeg(v) {
			return fmt.Errorf("%s is %v", valueNames[i], v)
		}
	}
	for k, v := range r.Extra {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("extra %s is %v", k, v)
		}
	}
	for _, v := range r.Samples {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("sample %v", v)
		}
	}
	switch r.Metric {
	case Latency:
		if r.Time <= 0 {
			return errors.New("latency record without a time")
		}
	case Bandwidth:
		if r.Rate <= 0 && r.BusRate <= 0 {
			return errors.New("bandwidth record without a rate")
		}
	default:
		return fmt.Errorf("unknown metric %q", r.Metric)
	}
	return nil
}

// valueNames name the values validate checks, in its order.
var valueNames = [...]string{"time", "min", "max", "p50", "p90", "p99", "p999", "stdev", "rate", "bus rate", "peak rate", "message rate", "cpu"}

func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// Lines splits text into lines without their line ends (LF or CRLF). A
// last line without a newline is kept. The lines share b's memory (an
// import's file is not copied once more per parser): b must not be
// changed afterwards.
func Lines(b []byte) []string {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// AddHost adds a host name to h.Hosts once.
func (h *Hardware) AddHost(name string) {
	for _, x := range h.Hosts {
		if x == name {
			return
		}
	}
	h.Hosts = append(h.Hosts, name)
}

// Mark records that the field named key was read at line.
func (h *Hardware) Mark(key string, line int) {
	if h.Lines == nil {
		h.Lines = map[string]int{}
	}
	if _, ok := h.Lines[key]; !ok {
		h.Lines[key] = line
	}
}
