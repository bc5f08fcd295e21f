package record

import (
	"fmt"
	"math"
	"time"
)

// Plan is what a run asked of its probes; the runner (pkg/measure) hands it
// to each probe with its share of the budget, and the manifest keeps it.
type Plan struct {
	// Budget is the time allowed for the whole probe (all sizes).
	Budget time.Duration `json:"budget_ns"`
	// PerSize is the time allowed for one size; zero means Budget split evenly.
	PerSize time.Duration `json:"per_size_ns,omitempty"`
	// Sizes to measure, in bytes; empty means the probe's own default sweep.
	Sizes []int64 `json:"sizes,omitempty"`
	// Quick asks for a short run (used by `gpupath report`).
	Quick bool `json:"quick,omitempty"`
	// Tolerance is the relative stability of the median at which repetition stops.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Target names where network probes go: "loopback" (default), "veth", or host:port.
	Target string `json:"target,omitempty"`
	// Options holds probe-specific settings (key=value from the command line).
	Options map[string]string `json:"options,omitempty"`
}

// Result is one measured record: one probe × variant × size. It is written as
// one line of results.jsonl. Times are seconds, sizes bytes, rates bytes/s.
type Result struct {
	Probe   string `json:"probe"`
	Variant string `json:"variant,omitempty"` // e.g. "pingpong", "stream", "h2d-pinned"
	// Stage and Path name what of the model this measures: a stage letter or
	// name ("A", "B", "memcpy") and/or a model path ("host-tcp").
	Stage  string `json:"stage,omitempty"`
	Path   string `json:"path,omitempty"`
	Target string `json:"target,omitempty"` // "loopback", "veth 1Gbit/s", "gpu0", "gpu0->gpu1"
	// Host names the host that measured the record where a run holds
	// several (an imported run of files from several hosts: each file's
	// host); empty: the run's host (Manifest.Host).
	Host string `json:"host,omitempty"`
	// Peer names the host at the other end of a record of a cluster sweep
	// (Host measured toward Peer); empty elsewhere.
	Peer  string `json:"peer,omitempty"`
	Timer string `json:"timer,omitempty"` // "wall" or "cuda-event"
	Bytes int64  `json:"bytes"`

	Iterations int `json:"iterations"`
	// MinS and P99S are 0 where not known (an imported output that prints
	// no minimum or tail) and then left out of the file.
	MinS    float64 `json:"min_s,omitempty"`
	MedianS float64 `json:"median_s"`
	P99S    float64 `json:"p99_s,omitempty"`
	MeanS   float64 `json:"mean_s,omitempty"`
	// Spread is the relative interquartile range (p75-p25)/median.
	Spread float64 `json:"spread"`
	// Stable tells whether the median settled within the tolerance before the budget ran out.
	Stable bool `json:"stable"`
	// ThroughputBps is payload bytes per second (for latency records: bytes/median).
	ThroughputBps float64 `json:"throughput_Bps"`
	// CPUUserS and CPUSysS are CPU seconds per iteration (per message), all
	// local processes and threads taking part (both ends when both are local).
	CPUUserS float64 `json:"cpu_user_s"`
	CPUSysS  float64 `json:"cpu_sys_s"`
	// CPUScope says whose CPU time CPUUserS and CPUSysS cover and how it was
	// taken (e.g. "client thread + server thread (RUSAGE_THREAD)"); empty
	// when the probe does not measure CPU time.
	CPUScope string `json:"cpu_scope,omitempty"`

	// Samples are the recorded iterations' times in seconds, in the order
	// measured (at most measure.MaxSamples, evenly thinned): what fitting bootstraps
	// over. For stream records they are per write, like MedianS.
	Samples []float64 `json:"samples_s,omitempty"`

	Time  time.Time          `json:"time"`
	Extra map[string]float64 `json:"extra,omitempty"`
	Note  string             `json:"note,omitempty"`
}

// Sanitize refuses NaN and infinities in the record's fields (JSON cannot
// hold them) and drops them from Extra, which is free-form. It is called on
// every record before it is written.
func (r *Result) Sanitize() error {
	for name, v := range map[string]float64{
		"min_s": r.MinS, "median_s": r.MedianS, "p99_s": r.P99S, "mean_s": r.MeanS, "spread": r.Spread,
		"throughput_Bps": r.ThroughputBps, "cpu_user_s": r.CPUUserS, "cpu_sys_s": r.CPUSysS,
	} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("result %s/%s %d B: %s is %v", r.Probe, r.Variant, r.Bytes, name, v)
		}
	}
	for k, v := range r.Extra {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(r.Extra, k)
		}
	}
	return nil
}

// Bool is a yes/no as a value of Result.Extra, which holds numbers: 1 or 0.
func Bool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
