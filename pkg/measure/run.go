package measure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
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
	// Its options must be ones the probes declare (CheckOptions).
	Plan Plan
	// Progress is told about each probe and result; nil for none.
	Progress Progress
	// Version of the tool, for the manifest.
	Version string
	// Host describes the machine; nil reads it with ReadHost("/").
	Host *record.Host
	// Now is the clock for the manifest's times (default time.Now).
	Now func() time.Time
	// Env is handed to every probe when it is made: the sysfs root of the
	// probes that read sysfs (topo, rdma, perftest, memcpy) and where their
	// diagnostics go.
	Env Env
	// Peer and Pairing describe the other host of a two-host run, for the
	// manifest; nil for one host.
	Peer    *record.Host
	Pairing *record.Pairing
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
// returns the manifest with ctx's error. Other errors are about the
// configuration (found before anything is written) or the run directory
// (it cannot be written).
func Run(ctx context.Context, cfg RunConfig) (*record.Manifest, error) {
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	if err := r.create(); err != nil {
		return nil, err
	}
	defer r.w.Close()
	var runErr error
	for i := range r.probes {
		if ctx.Err() != nil {
			break
		}
		if runErr = r.runProbe(ctx, i); runErr != nil {
			break
		}
	}
	r.m.End = r.now().UTC()
	switch {
	case runErr != nil:
		// A write failed (a full disk): the manifest says so, and its
		// counts are the records on disk (a failed append is cut off).
		kept := 0
		for i := range r.m.Probes {
			st := &r.m.Probes[i]
			kept += st.Results
			if st.Status == record.StatusRunning {
				st.Status, st.Reason = record.StatusFailed, "writing the run failed: "+oneLine(runErr.Error())
			}
		}
		r.m.Status = record.StatusFailed
		r.m.Reason = fmt.Sprintf("writing the run failed: %s (%d records kept)", oneLine(runErr.Error()), kept)
	case ctx.Err() != nil:
		r.m.Status = record.StatusInterrupted
	default:
		r.m.Status, r.m.Reason = RunStatus(r.m.Probes)
	}
	if err := r.w.WriteManifest(r.m); err != nil {
		return r.m, err
	}
	if runErr != nil {
		return r.m, runErr
	}
	return r.m, ctx.Err()
}

// RunStatus is the status of a run that finished (neither interrupted nor
// cut short by a failed write), from its probes' outcomes, and the reason
// when it is not complete: complete when no probe failed and one at least
// measured (ok, or partial: its budget ran out before its plan);
// partial when some measured and some failed; failed when none measured —
// every probe unavailable or failed, whatever records a failed probe kept
// (a peer that went away after the first sizes). A failed probe is never
// passed off as a complete run: the command prints each one's reason and
// exits 1 (bad option values never get here: CheckOptions refuses them up
// front).
func RunStatus(probes []record.ProbeStatus) (record.Status, string) {
	var measured, failed []string
	results := 0
	for _, p := range probes {
		results += p.Results
		switch p.Status {
		case record.StatusOK, record.StatusPartial:
			measured = append(measured, p.Name)
		case record.StatusFailed:
			failed = append(failed, p.Name)
		}
	}
	switch {
	case len(measured) == 0 && results == 0:
		return record.StatusFailed, "measured nothing: every probe was unavailable or failed (each says why)"
	case len(measured) == 0:
		return record.StatusFailed, fmt.Sprintf("every probe was unavailable or failed (each says why): %s failed, %d results kept", strings.Join(failed, ", "), results)
	case len(failed) > 0:
		return record.StatusPartial, fmt.Sprintf("%s failed (each says why); %s measured", strings.Join(failed, ", "), strings.Join(measured, ", "))
	}
	return record.StatusComplete, ""
}

// MaxBudget bounds RunConfig.Budget (--budget): a week. Every time the
// runner derives from a budget (a probe's share, its hard stop at 1.5× plus
// 10 s) stays far inside time.Duration's range.
const MaxBudget = 7 * 24 * time.Hour

// MaxTimeout bounds a network deadline (measure's and serve's --timeout):
// a day. A connect, read or write that waits longer is no measurement, and
// a deadline far in the future overflows the time arithmetic of the
// sockets (2,000,000 h reset every connection).
const MaxTimeout = 24 * time.Hour

// CheckTimeout is the one check of a --timeout: positive, at most
// MaxTimeout.
func CheckTimeout(d time.Duration) error {
	if d <= 0 || d > MaxTimeout {
		return fmt.Errorf("--timeout must be positive and at most %v, got %v", MaxTimeout, d)
	}
	return nil
}

// runner is one Run: its probes, their weights, the manifest and where it
// all goes.
type runner struct {
	cfg     RunConfig
	now     func() time.Time
	names   []string
	probes  []Probe
	weights []float64
	w       *record.Writer
	m       *record.Manifest
	start   time.Time
	// progress is cfg.Progress, worded from the plan when it is Planned.
	progress Progress
}

// newRunner checks the configuration and makes the probes.
func newRunner(cfg RunConfig) (*runner, error) {
	r := &runner{cfg: cfg, now: cfg.Now, names: cfg.Probes, progress: cfg.Progress}
	if p, ok := cfg.Progress.(Planned); ok {
		r.progress = p.WithPlan(cfg.Plan)
	}
	if r.now == nil {
		r.now = time.Now
	}
	if len(r.names) == 0 {
		r.names = Names()
	}
	if err := CheckBudget(cfg.Budget, len(r.names)); err != nil {
		return nil, fmt.Errorf("budget %w", err)
	}
	if err := CheckOptions(r.names, cfg.Plan.Options); err != nil {
		return nil, err
	}
	for _, n := range r.names {
		p, err := New(n, cfg.Env)
		if err != nil {
			return nil, err
		}
		w := 1.0
		if wp, ok := p.(Weighted); ok && wp.Weight() > 0 {
			w = wp.Weight()
		}
		r.probes, r.weights = append(r.probes, p), append(r.weights, w)
	}
	return r, nil
}

// create makes the run directory and writes the first manifest (running,
// every probe pending).
func (r *runner) create() error {
	host := r.cfg.Host
	if host == nil {
		h := ReadHost("/")
		host = &h
	}
	w, err := record.Create(r.cfg.Dir)
	if err != nil {
		return err
	}
	r.w = w
	r.m = &record.Manifest{
		Format: record.ManifestFormat, Tool: "gpupath", Version: r.cfg.Version, Status: record.StatusRunning,
		Start: r.now().UTC(), BudgetS: r.cfg.Budget.Seconds(), Host: *host, Plan: r.cfg.Plan, Results: record.ResultsFile,
		Peer: r.cfg.Peer, Pairing: r.cfg.Pairing,
	}
	r.m.Plan.Budget = r.cfg.Budget
	for _, n := range r.names {
		r.m.Probes = append(r.m.Probes, record.ProbeStatus{Name: n, Status: record.StatusPending})
	}
	r.start = time.Now()
	if err := w.WriteManifest(r.m); err != nil {
		w.Discard() // nothing recorded: leave no partial directory behind
		return err
	}
	return nil
}

// MinShare is the least time a probe is given, whatever is left of the
// budget: a budget shorter than MinShare for each probe it runs is refused
// (CheckBudget), not raised in silence.
const MinShare = 100 * time.Millisecond

// CheckBudget says whether a budget suits a run of n probes: positive, at
// most MaxBudget, and at least MinShare for each probe.
func CheckBudget(budget time.Duration, n int) error {
	if budget <= 0 || budget > MaxBudget {
		return fmt.Errorf("must be positive and at most %v, got %v", MaxBudget, budget)
	}
	if least := MinShare * time.Duration(max(n, 1)); budget < least {
		return fmt.Errorf("%v is shorter than the %v a run of %d probe(s) needs (at least %v each)", budget, least, max(n, 1), MinShare)
	}
	return nil
}

// share is probe i's share of what is left of the budget, by weight among
// the probes left (at least MinShare).
func (r *runner) share(i int) time.Duration {
	left := r.cfg.Budget - time.Since(r.start)
	var wsum float64
	for _, w := range r.weights[i:] {
		wsum += w
	}
	return max(time.Duration(float64(left)*r.weights[i]/wsum), MinShare)
}

// runProbe runs probe i and records its outcome in the manifest. The error
// is about the run directory only: a probe that fails is an outcome.
func (r *runner) runProbe(ctx context.Context, i int) error {
	p, st := r.probes[i], &r.m.Probes[i]
	if err := p.Available(); err != nil {
		st.Status, st.Reason = record.StatusUnavailable, reasonOf(err)
		st.Start, st.End = r.now().UTC(), r.now().UTC()
		r.done(*st)
		return r.w.WriteManifest(r.m)
	}
	budget := r.share(i)
	plan := r.cfg.Plan
	plan.Budget = budget
	st.Status, st.BudgetS, st.Start = record.StatusRunning, budget.Seconds(), r.now().UTC()
	if err := r.w.WriteManifest(r.m); err != nil {
		return err
	}
	steps := 0
	if s, ok := p.(Stepper); ok {
		steps = s.Steps(plan)
	}
	if r.progress != nil {
		r.progress.Start(r.names[i], steps, budget)
	}
	// A hard stop well past the budget, in case a probe overruns.
	hard := budget + budget/2 + 10*time.Second
	pctx, cancel := context.WithTimeout(ctx, hard)
	var writeErr error
	err := p.Run(pctx, plan, r.emitter(st, &writeErr))
	cancel()
	st.End = r.now().UTC()
	if ir, ok := p.(InventoryReporter); ok {
		if inv := ir.Inventory(); inv != nil {
			if b, jerr := termtext.MarshalJSON(inv); jerr == nil && string(b) != "null" {
				st.Inventory = b
			}
		}
	}
	switch {
	case writeErr != nil:
		st.Status, st.Reason = record.StatusFailed, "writing results: "+writeErr.Error()
	case ctx.Err() != nil:
		st.Status, st.Reason = record.StatusInterrupted, fmt.Sprintf("interrupted after %d results", st.Results)
	case err == nil:
		st.Status = record.StatusOK
	case errors.Is(err, ErrUnavailable):
		st.Status, st.Reason = record.StatusUnavailable, reasonOf(err)
	case errors.Is(err, ErrBudgetSpent) && st.Results > 0:
		// The budget ran out before the plan did (a busy machine, a plan
		// too long for it): what was measured is kept and valid, and the
		// reason names what was not measured.
		st.Status, st.Reason = record.StatusPartial, oneLine(err.Error())
	case pctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		st.Status, st.Reason = record.StatusFailed, fmt.Sprintf("stopped at %s, past its budget of %s", humanDuration(hard), humanDuration(budget))
	default:
		st.Status, st.Reason = record.StatusFailed, oneLine(err.Error())
	}
	r.done(*st)
	if err := r.w.WriteManifest(r.m); err != nil {
		return err
	}
	return writeErr
}

// emitter is the emit function of a probe: each record gets the probe's
// name and the time if it has none, is checked (a NaN fails the probe, not
// the run) and appended; a failed write is kept in *writeErr.
func (r *runner) emitter(st *record.ProbeStatus, writeErr *error) func(record.Result) error {
	return func(res record.Result) error {
		if res.Probe == "" {
			res.Probe = st.Name
		}
		if res.Time.IsZero() {
			res.Time = r.now().UTC()
		}
		if err := res.Sanitize(); err != nil {
			return err // the probe's fault: it fails, the run goes on
		}
		if err := r.w.Append(res); err != nil {
			*writeErr = err
			return err
		}
		st.Results++
		if r.progress != nil {
			r.progress.Step(res)
		}
		return nil
	}
}

func (r *runner) done(st record.ProbeStatus) {
	if r.progress != nil {
		r.progress.Done(st)
	}
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
