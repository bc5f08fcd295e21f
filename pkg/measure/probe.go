package measure

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// ErrUnavailable marks a probe that cannot run on this machine (no GPU, no
// driver, no RDMA device, no permission). It is an ordinary outcome: the
// runner records "not measured: <reason>" and goes on.
var ErrUnavailable = errors.New("not measured")

// Unavailable returns an error wrapping ErrUnavailable with the reason.
func Unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}

// Probe measures one part of the real machine.
//
// Available says cheaply whether the probe can run here; a nil error means it
// may (Run can still find out otherwise and return ErrUnavailable). Run
// measures according to plan and hands every result to emit as soon as it is
// measured; it honours ctx between iterations and returns ctx.Err() when
// cancelled, keeping what it already emitted.
type Probe interface {
	Name() string
	Available() error
	Run(ctx context.Context, plan Plan, emit func(Result) error) error
}

// Plan is what the runner asks of a probe.
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
	Timer  string `json:"timer,omitempty"`  // "wall" or "cuda-event"
	Bytes  int64  `json:"bytes"`

	Iterations int     `json:"iterations"`
	MinS       float64 `json:"min_s"`
	MedianS    float64 `json:"median_s"`
	P99S       float64 `json:"p99_s"`
	MeanS      float64 `json:"mean_s,omitempty"`
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
	// measured (at most MaxSamples, evenly thinned): what fitting bootstraps
	// over. For stream records they are per write, like MedianS.
	Samples []float64 `json:"samples_s,omitempty"`

	Time  time.Time          `json:"time"`
	Extra map[string]float64 `json:"extra,omitempty"`
	Note  string             `json:"note,omitempty"`
}

var registry = map[string]func() Probe{}

// Register adds a probe constructor under its name. It is called from the
// init function of each probe's file; registering a name twice panics (a
// programming error, found by any test).
func Register(name string, newProbe func() Probe) {
	if _, dup := registry[name]; dup {
		panic("measure: probe registered twice: " + name)
	}
	registry[name] = newProbe
}

// Names lists the registered probes, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a new instance of the named probe.
func New(name string) (Probe, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown probe %q (probes: %v)", name, Names())
	}
	return f(), nil
}
