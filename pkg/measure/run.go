package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

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
	Host *record.Host
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
func Run(ctx context.Context, cfg RunConfig) (*record.Manifest, error) {
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
	host := cfg.Host
	if host == nil {
		h := ReadHost("/")
		host = &h
	}
	w, err := record.Create(cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	start := now()
	m := &record.Manifest{
		Format: record.ManifestFormat, Tool: "gpupath", Version: cfg.Version, Status: record.StatusRunning,
		Start: start.UTC(), BudgetS: cfg.Budget.Seconds(), Host: *host, Plan: cfg.Plan, Results: record.ResultsFile,
	}
	m.Plan.Budget = cfg.Budget
	for _, n := range names {
		m.Probes = append(m.Probes, record.ProbeStatus{Name: n, Status: record.StatusPending})
	}
	if err := w.WriteManifest(m); err != nil {
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
			st.Status, st.Reason = record.StatusUnavailable, reasonOf(err)
			st.Start, st.End = now().UTC(), now().UTC()
			if cfg.Progress != nil {
				cfg.Progress.Done(*st)
			}
			if err := w.WriteManifest(m); err != nil {
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
		st.Status, st.BudgetS, st.Start = record.StatusRunning, budget.Seconds(), now().UTC()
		if err := w.WriteManifest(m); err != nil {
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
		emit := func(r record.Result) error {
			if r.Probe == "" {
				r.Probe = names[i]
			}
			if r.Time.IsZero() {
				r.Time = now().UTC()
			}
			if err := r.Sanitize(); err != nil {
				return err // the probe's fault: it fails, the run goes on
			}
			if err := w.Append(r); err != nil {
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
			st.Status, st.Reason = record.StatusFailed, "writing results: "+writeErr.Error()
			runErr = writeErr
		case ctx.Err() != nil:
			st.Status, st.Reason = record.StatusInterrupted, fmt.Sprintf("interrupted after %d results", st.Results)
		case err == nil:
			st.Status = record.StatusOK
		case errors.Is(err, ErrUnavailable):
			st.Status, st.Reason = record.StatusUnavailable, reasonOf(err)
		case pctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
			st.Status, st.Reason = record.StatusFailed, fmt.Sprintf("stopped at %v, past its budget of %v", hard.Round(time.Millisecond), budget.Round(time.Millisecond))
		default:
			st.Status, st.Reason = record.StatusFailed, oneLine(err.Error())
		}
		if cfg.Progress != nil {
			cfg.Progress.Done(*st)
		}
		if err := w.WriteManifest(m); err != nil {
			return m, err
		}
		if runErr != nil {
			break
		}
	}
	m.End = now().UTC()
	m.Status = record.StatusComplete
	if ctx.Err() != nil {
		m.Status = record.StatusInterrupted
	}
	if err := w.WriteManifest(m); err != nil {
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
