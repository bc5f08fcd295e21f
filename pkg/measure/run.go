package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// File names inside a run directory.
const (
	ManifestFile = "manifest.json"
	ResultsFile  = "results.jsonl"
)

// ManifestFormat is the version of the manifest layout written by this package.
const ManifestFormat = 1

// Status is the state of a run or of one probe in it.
type Status string

// The states of a run (running, complete, interrupted) and of a probe
// (pending, running, ok, unavailable, failed, interrupted).
const (
	StatusPending     Status = "pending"
	StatusRunning     Status = "running"
	StatusOK          Status = "ok"
	StatusUnavailable Status = "unavailable"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
	StatusComplete    Status = "complete"
)

// ProbeStatus is the outcome of one probe in a run.
type ProbeStatus struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Reason says why a probe was unavailable, how it failed, or where it
	// was interrupted.
	Reason string `json:"reason,omitempty"`
	// Results counts the records the probe wrote to results.jsonl.
	Results int `json:"results"`
	// BudgetS is the time the probe was given, in seconds.
	BudgetS float64   `json:"budget_s,omitempty"`
	Start   time.Time `json:"start,omitzero"`
	End     time.Time `json:"end,omitzero"`
	// Inventory is what a probe that implements InventoryReporter found
	// (devices, links, topology), as JSON.
	Inventory json.RawMessage `json:"inventory,omitempty"`
}

// Manifest describes a measurement run: the host, the plan, and per probe
// what came of it. It is written as manifest.json when the run starts
// (status running), rewritten as each probe starts and ends, and finalised
// (complete or interrupted) at the end.
type Manifest struct {
	Format  int           `json:"format"`
	Tool    string        `json:"tool"`
	Version string        `json:"version"`
	Status  Status        `json:"status"`
	Start   time.Time     `json:"start"`
	End     time.Time     `json:"end,omitzero"`
	BudgetS float64       `json:"budget_s"`
	Host    Host          `json:"host"`
	Plan    Plan          `json:"plan"`
	Probes  []ProbeStatus `json:"probes"`
	// Results names the JSON Lines file of the records, relative to the run directory.
	Results string `json:"results"`
}

// Probe returns the status of the named probe, or nil.
func (m *Manifest) Probe(name string) *ProbeStatus {
	for i := range m.Probes {
		if m.Probes[i].Name == name {
			return &m.Probes[i]
		}
	}
	return nil
}

// RunConfig says what a run measures and where it writes.
type RunConfig struct {
	// Dir receives manifest.json and results.jsonl; it is created if needed
	// and must not hold a run already.
	Dir string
	// Probes to run, in order; empty means every registered probe.
	Probes []string
	// Budget is the wall time of the whole run, shared among the probes by
	// their weights; time a probe leaves unused goes to the ones after it.
	Budget time.Duration
	// Plan is handed to each probe with its share of the budget filled in.
	Plan Plan
	// Progress is told about each probe and result; nil for none.
	Progress Progress
	// Version of the tool, for the manifest.
	Version string
	// Host describes the machine; nil reads it with ReadHost("/").
	Host *Host
	// Now is the clock for the manifest's times (default time.Now).
	Now func() time.Time
}

// Weighted may be implemented by a probe to ask for a larger or smaller
// share of the run's budget than the default weight of 1.
type Weighted interface {
	Weight() float64
}

// Stepper may be implemented by a probe to tell how many results a plan
// will produce, for progress bars.
type Stepper interface {
	Steps(plan Plan) int
}

// ErrRunExists is returned when the run directory already holds a manifest.
var ErrRunExists = errors.New("run directory already holds a run")

// Run measures with the configured probes and writes the run directory. Each
// result is appended to results.jsonl as soon as it is measured (one write
// per record, no buffering), so what was measured survives a crash; the
// manifest is rewritten atomically as each probe starts and ends. A probe
// that is unavailable or fails is recorded as such and the run goes on.
//
// When ctx is cancelled the probe in progress is marked interrupted, the
// rest stay pending, the manifest is finalised as interrupted, and Run
// returns the manifest with ctx's error. Other errors are about the run
// directory (it cannot be written).
func Run(ctx context.Context, cfg RunConfig) (*Manifest, error) {
	if cfg.Budget <= 0 {
		return nil, fmt.Errorf("budget must be positive, got %v", cfg.Budget)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	names := cfg.Probes
	if len(names) == 0 {
		names = Names()
	}
	probes := make([]Probe, len(names))
	for i, n := range names {
		p, err := New(n)
		if err != nil {
			return nil, err
		}
		probes[i] = p
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, ManifestFile)); err == nil {
		return nil, fmt.Errorf("%s: %w", cfg.Dir, ErrRunExists)
	}
	host := cfg.Host
	if host == nil {
		h := ReadHost("/")
		host = &h
	}
	start := now()
	m := &Manifest{
		Format: ManifestFormat, Tool: "gpupath", Version: cfg.Version, Status: StatusRunning,
		Start: start.UTC(), BudgetS: cfg.Budget.Seconds(), Host: *host, Plan: cfg.Plan, Results: ResultsFile,
	}
	m.Plan.Budget = cfg.Budget
	for _, n := range names {
		m.Probes = append(m.Probes, ProbeStatus{Name: n, Status: StatusPending})
	}
	rf, err := os.OpenFile(filepath.Join(cfg.Dir, ResultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer rf.Close()
	if err := writeManifest(cfg.Dir, m); err != nil {
		return nil, err
	}
	weights := make([]float64, len(probes))
	for i, p := range probes {
		weights[i] = 1
		if w, ok := p.(Weighted); ok && w.Weight() > 0 {
			weights[i] = w.Weight()
		}
	}
	runStart := time.Now()
	var runErr error
	for i, p := range probes {
		st := &m.Probes[i]
		if ctx.Err() != nil {
			break
		}
		if err := p.Available(); err != nil {
			st.Status, st.Reason = StatusUnavailable, reasonOf(err)
			st.Start, st.End = now().UTC(), now().UTC()
			if cfg.Progress != nil {
				cfg.Progress.Done(*st)
			}
			if err := writeManifest(cfg.Dir, m); err != nil {
				return m, err
			}
			continue
		}
		// The probe's share of what is left, by weight among those left.
		left := cfg.Budget - time.Since(runStart)
		var wsum float64
		for _, w := range weights[i:] {
			wsum += w
		}
		budget := time.Duration(float64(left) * weights[i] / wsum)
		budget = max(budget, 100*time.Millisecond)
		plan := cfg.Plan
		plan.Budget = budget
		st.Status, st.BudgetS, st.Start = StatusRunning, budget.Seconds(), now().UTC()
		if err := writeManifest(cfg.Dir, m); err != nil {
			return m, err
		}
		steps := 0
		if s, ok := p.(Stepper); ok {
			steps = s.Steps(plan)
		}
		if cfg.Progress != nil {
			cfg.Progress.Start(names[i], steps, budget)
		}
		// A hard stop well past the budget, in case a probe overruns.
		hard := budget + budget/2 + 10*time.Second
		pctx, cancel := context.WithTimeout(ctx, hard)
		var writeErr error
		emit := func(r Result) error {
			if r.Probe == "" {
				r.Probe = names[i]
			}
			if r.Time.IsZero() {
				r.Time = now().UTC()
			}
			if err := checkFinite(&r); err != nil {
				return err // the probe's fault: it fails, the run goes on
			}
			if err := appendResult(rf, r); err != nil {
				writeErr = err
				return err
			}
			st.Results++
			if cfg.Progress != nil {
				cfg.Progress.Step(r)
			}
			return nil
		}
		err := p.Run(pctx, plan, emit)
		cancel()
		st.End = now().UTC()
		if ir, ok := p.(InventoryReporter); ok {
			if inv := ir.Inventory(); inv != nil {
				if b, jerr := json.Marshal(inv); jerr == nil && string(b) != "null" {
					st.Inventory = b
				}
			}
		}
		switch {
		case writeErr != nil:
			st.Status, st.Reason = StatusFailed, "writing results: "+writeErr.Error()
			runErr = writeErr
		case ctx.Err() != nil:
			st.Status, st.Reason = StatusInterrupted, fmt.Sprintf("interrupted after %d results", st.Results)
		case err == nil:
			st.Status = StatusOK
		case errors.Is(err, ErrUnavailable):
			st.Status, st.Reason = StatusUnavailable, reasonOf(err)
		case pctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
			st.Status, st.Reason = StatusFailed, fmt.Sprintf("stopped at %v, past its budget of %v", hard.Round(time.Millisecond), budget.Round(time.Millisecond))
		default:
			st.Status, st.Reason = StatusFailed, oneLine(err.Error())
		}
		if cfg.Progress != nil {
			cfg.Progress.Done(*st)
		}
		if err := writeManifest(cfg.Dir, m); err != nil {
			return m, err
		}
		if runErr != nil {
			break
		}
	}
	m.End = now().UTC()
	m.Status = StatusComplete
	if ctx.Err() != nil {
		m.Status = StatusInterrupted
	}
	if err := writeManifest(cfg.Dir, m); err != nil {
		return m, err
	}
	if runErr != nil {
		return m, runErr
	}
	if ctx.Err() != nil {
		return m, ctx.Err()
	}
	return m, nil
}

// reasonOf strips the "not measured: " prefix of an unavailable error.
func reasonOf(err error) string {
	s := oneLine(err.Error())
	if r, ok := strings.CutPrefix(s, ErrUnavailable.Error()+": "); ok {
		return r
	}
	return s
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// appendResult writes one record as one line with a single write(2): the
// line is in the page cache when it returns, so a crash or SIGKILL of the
// process cannot lose it (a power failure can; there is no fsync).
func appendResult(f io.Writer, r Result) error {
	if err := checkFinite(&r); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = f.Write(b)
	return err
}

// checkFinite refuses NaN and infinities in the record's fields (JSON cannot
// hold them) and drops them from Extra, which is free-form.
func checkFinite(r *Result) error {
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

// writeManifest replaces manifest.json atomically (write, then rename), so
// a reader never sees half a manifest.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := filepath.Join(dir, ManifestFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ManifestFile))
}

// RunDirName is the default name of a run directory: <host>-<UTC time>,
// e.g. "node1-20261129T135400Z".
func RunDirName(host string, t time.Time) string {
	host = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r < 32 {
			return '_'
		}
		return r
	}, host)
	if host == "" {
		host = "host"
	}
	return host + "-" + t.UTC().Format("20060102T150405Z")
}
