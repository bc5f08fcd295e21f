package doctor

import (
	"fmt"
	"sort"

	"github.com/gpupath/gpupath/pkg/model"
)

// Severity says how much a finding matters.
type Severity string

// The severities, from the worst.
const (
	// Error: the fast path is off, or traffic fails over to a slower one.
	Error Severity = "error"
	// Warn: the fast path works below what the hardware can do, or some
	// libraries do not see what others see.
	Warn Severity = "warn"
	// Unknown: the fact could not be read (missing file, needs root, no NVML).
	Unknown Severity = "unknown"
	// Info: worth knowing; nothing to fix for the GPU paths.
	Info Severity = "info"
	// OK: as it should be.
	OK Severity = "ok"
)

// Severities lists the severities from the worst.
func Severities() []Severity { return []Severity{Error, Warn, Unknown, Info, OK} }

func (s Severity) rank() int {
	for i, v := range Severities() {
		if v == s {
			return i
		}
	}
	return len(Severities())
}

// Finding is one thing doctor found.
type Finding struct {
	// Check is the family that found it ("peermem"); ID names the finding
	// kind within the family, stable across versions ("peermem.module").
	Check string `json:"check"`
	ID    string `json:"id"`
	// Severity says how much it matters.
	Severity Severity `json:"severity"`
	// Subject is what it is about ("GPU 0000:17:00.0 ↔ mlx5_0"), "" for the host.
	Subject string `json:"subject,omitempty"`
	// Title says what was found, in one line.
	Title string `json:"title"`
	// Facts are what was read, each with its source.
	Facts []Fact `json:"facts,omitempty"`
	// Why explains what the finding means for the GPU paths.
	Why string `json:"why,omitempty"`
	// Fix is what a person can do: a command or a setting.
	Fix string `json:"fix,omitempty"`
	// Price is what the finding costs, from the model; nil when the finding
	// costs nothing or when no model was given.
	Price *Price `json:"price,omitempty"`
	// Cost, when set, describes the comparison to price; Run turns it into
	// Price. Not serialised.
	Cost *Cost `json:"-"`
}

// Fact is one value as read.
type Fact struct {
	// Source is the file ("/sys/module/nvidia_peermem/version") or the call
	// ("NVML nvmlDeviceGetNvLinkState(gpu0, 3)") it came from. Files are
	// named by where they sit on a live system (/sys, /proc, /boot), whatever
	// root was given.
	Source string `json:"source"`
	// Value is what was read, trimmed ("2.0", "4: ACTIVE").
	Value string `json:"value,omitempty"`
	// Error says why it could not be read ("could not read: not found").
	Error string `json:"error,omitempty"`
}

// OK reports whether the fact was read.
func (f Fact) OK() bool { return f.Error == "" }

// Summary counts findings by severity.
type Summary struct {
	Error   int `json:"error"`
	Warn    int `json:"warn"`
	Unknown int `json:"unknown"`
	Info    int `json:"info"`
	OK      int `json:"ok"`
}

func (s *Summary) add(v Severity) {
	switch v {
	case Error:
		s.Error++
	case Warn:
		s.Warn++
	case Unknown:
		s.Unknown++
	case Info:
		s.Info++
	case OK:
		s.OK++
	}
}

// Worst returns the worst severity with a finding (OK for none).
func (s Summary) Worst() Severity {
	switch {
	case s.Error > 0:
		return Error
	case s.Warn > 0:
		return Warn
	case s.Unknown > 0:
		return Unknown
	case s.Info > 0:
		return Info
	}
	return OK
}

// Report is what one doctor run found.
type Report struct {
	// Roots names the trees that were read, as given.
	Roots Roots `json:"roots"`
	// GPUSource says where the GPU facts came from ("NVML", "file nvml.json")
	// or why there are none.
	GPUSource string `json:"gpu_source"`
	// Scenario says what the prices were computed from ("preset default"),
	// and Host the keys set from this machine's facts on top of it, as
	// --set writes them.
	Scenario string   `json:"scenario,omitempty"`
	Host     []string `json:"host_keys,omitempty"`
	Summary  Summary  `json:"summary"`
	// Findings are sorted worst first, then in the order of the checks.
	Findings []Finding `json:"findings"`
}

// Roots names the trees doctor read: directories on this machine, or
// whatever the caller says they are.
type Roots struct {
	Sys  string `json:"sysfs"`
	Proc string `json:"procfs"`
	Boot string `json:"boot,omitempty"`
}

// sortFindings orders findings worst first; within one severity they keep
// the order the checks gave them.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity.rank() < fs[j].Severity.rank() })
}

// Cost describes what a finding costs, for the model to price: the traffic
// would take Before and takes After instead. Unpriced says why the model
// cannot price it (it has no parameter for the fact), when it cannot.
type Cost struct {
	// Lead starts the sentence: "GPUDirect RDMA unavailable".
	Lead          string
	Before, After Case
	Unpriced      string
}

// Case is one side of a comparison: a model path on the scenario, with this
// host's keys and then Set applied (topology.gpu_nic SYS), typed; JSON
// writes Set as --set does ("topology.gpu_nic=SYS").
type Case struct {
	Path string
	Set  []model.Override
}

// Price is a finding's cost, from the model.
type Price struct {
	// Summary says it in a sentence: "GPUDirect RDMA unavailable: the rdma
	// path (RDMA, host-staged) moves 1 MiB in 61.2 µs instead of 25.3 µs,
	// with 2 extra copies".
	Summary string `json:"summary"`
	Before  Case   `json:"before"`
	After   Case   `json:"after"`
	// Points are the two cases at 8 B, 1 MiB and 1 GiB.
	Points []PricePoint `json:"points,omitempty"`
	// Copies and DDR bytes (both nodes) of one 1 MiB message.
	CopiesBefore int     `json:"copies_before"`
	CopiesAfter  int     `json:"copies_after"`
	DDRBefore    float64 `json:"ddr_bytes_before"`
	DDRAfter     float64 `json:"ddr_bytes_after"`
	// Note says why there are no points (the model has no parameter for
	// this fact, or a case is infeasible).
	Note string `json:"note,omitempty"`
}

// PricePoint is both cases at one message size: pipelined one-way latency
// and streaming bandwidth.
type PricePoint struct {
	Bytes           int64   `json:"bytes"`
	LatencyBefore   float64 `json:"latency_s_before"`
	LatencyAfter    float64 `json:"latency_s_after"`
	BandwidthBefore float64 `json:"bandwidth_Bps_before"`
	BandwidthAfter  float64 `json:"bandwidth_Bps_after"`
}

// FailOn is the exit rule of `gpupath doctor --fail-on`: nil when no
// finding is at sev or worse (Error, or Warn for warn and error), else an
// error that counts them and names the first. Unknown (a fact that could
// not be read) fails neither rule: a machine without NVML is not broken.
func (r *Report) FailOn(sev Severity) error {
	if sev != Error && sev != Warn {
		return fmt.Errorf("--fail-on %q: want error or warn", sev)
	}
	var bad []Finding
	for _, f := range r.Findings {
		if f.Severity == Error || (sev == Warn && f.Severity == Warn) {
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%d finding(s) at %s or worse (--fail-on %s), the first: %s: %s", len(bad), sev, sev, bad[0].ID, bad[0].Title)
}
