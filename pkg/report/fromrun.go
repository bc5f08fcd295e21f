package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// This file turns measurement runs into the report's input, before Render:
// the one mapping that gpupath report and the notebooks call.

// FromRun describes one measurement run (a run directory read by
// record.ReadRun) for the report: where, when and by what it was measured
// (for a two-host run, against whom), its curves (record.Curves), the probes
// that gave no data with the reason, the input not used (lines of
// results.jsonl that are not records, records with nothing to draw) and the
// run's doctor record (doctor.RecordFile, when the run holds one that can
// be read: it is the one file FromRun reads). An error is a results file in
// which no line is a record.
func FromRun(rd *record.RunData) (Measured, error) {
	return FromRunContext(context.Background(), rd)
}

// FromRunContext is FromRun that stops when ctx is done (while it groups
// the records) with ctx's error.
func FromRunContext(ctx context.Context, rd *record.RunData) (Measured, error) {
	man := rd.Manifest
	m := Measured{Source: rd.Dir, Start: man.Start, Tool: man.Version, Status: string(man.Status), Host: man.Host.Line()}
	if man.Peer != nil && man.Pairing != nil {
		// A two-host run: rank 1 wrote it, measuring against rank 0.
		m.Host = fmt.Sprintf("%s (rank %d) against %s (rank 0, at %s, gpupath %s), paired by %s",
			m.Host, man.Pairing.Rank, man.Peer.Line(), man.Pairing.PeerAddr, man.Pairing.PeerVersion, man.Pairing.Launcher)
	}
	if rd.Derived != "" {
		// A manifest left at running by a writer that died: say what was found.
		m.Status = string(man.Status) + " (" + rd.Derived + ")"
	}
	for _, p := range man.Probes {
		switch p.Status {
		case record.StatusUnavailable:
			m.NotMeasured = append(m.NotMeasured, NotMeasured{Probe: p.Name, Reason: strings.TrimPrefix(p.Reason, "not measured: ")})
		case record.StatusFailed:
			m.NotMeasured = append(m.NotMeasured, NotMeasured{Probe: p.Name, Reason: "failed: " + p.Reason})
		}
	}
	name := man.Results
	if name == "" || filepath.Base(name) != name {
		name = record.ResultsFile
	}
	for _, s := range rd.Skipped {
		m.Skipped = append(m.Skipped, fmt.Sprintf("%s:%d: %s", name, s.Line, s.Reason))
	}
	// A line cut off by a killed run is skipped and listed; a file in which
	// no line is a record is not a results file at all.
	if err := rd.Corrupt(); err != nil {
		return Measured{}, err
	}
	var unusable int
	var err error
	if m.Series, unusable, err = record.CurvesStop(rd.Results, ctx.Err); err != nil {
		return Measured{}, err
	}
	// Records without a size are no points of a curve, but they are read:
	// the calibration takes costs per call and the host's facts from them,
	// the imported verdicts judge results without a size. Only the rest
	// is input not used.
	m.Unsized = unsized(rd.Results)
	for _, u := range m.Unsized {
		unusable -= u.Records
	}
	if unusable > 0 {
		m.Skipped = append(m.Skipped, fmt.Sprintf("%s: %d record(s) left out: times (and rate) zero, negative or not finite", name, unusable))
	}
	if rd.SamplesLeft > 0 {
		m.Skipped = append(m.Skipped, fmt.Sprintf("%s: the samples of %d record(s) not kept, past %s of one size or %s in all (their medians stand for them)",
			name, rd.SamplesLeft, units.Thousands(record.MaxPointSamples), units.Thousands(record.MaxSamples)))
	}
	m.Diagnosis, m.DiagnosisNote = readDiagnosis(rd.Dir)
	return m, nil
}

// unsized groups the records without a message size whose values are
// finite (Curves leaves them out), by probe and variant, in order.
func unsized(rs []record.Result) []Unsized {
	var out []Unsized
	idx := map[[2]string]int{}
	for _, r := range rs {
		if r.Bytes >= 1 || !finiteAll(r.MedianS, r.MinS, r.P99S, r.ThroughputBps, r.CPUUserS, r.CPUSysS) || r.MedianS < 0 || r.ThroughputBps < 0 {
			continue
		}
		k := [2]string{r.Probe, r.Variant}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Unsized{Probe: r.Probe, Variant: r.Variant})
		}
		out[i].Records++
		out[i].Timed = out[i].Timed || r.MedianS > 0 || r.ThroughputBps > 0
	}
	return out
}

// finiteAll reports whether no value is NaN or beyond ±1e300 (as Curves
// reads a record's values).
func finiteAll(vs ...float64) bool {
	for _, v := range vs {
		if v != v || v > 1e300 || v < -1e300 {
			return false
		}
	}
	return true
}

// readDiagnosis reads a run's doctor record (doctor.RecordFile in the run
// directory: gpupath doctor --format json): nil and no note when there is
// none; nil and a note that says why when it is there but cannot be read
// (damaged, too large), so that the report says so.
func readDiagnosis(dir string) (*doctor.Report, string) {
	b, err := safeio.ReadFile(context.Background(), filepath.Join(dir, doctor.RecordFile), record.MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err == nil {
		var r *doctor.Report
		if r, err = doctor.ReadJSON(b); err == nil {
			return r, ""
		}
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return nil, fmt.Sprintf("%s holds a %s that could not be read (%s): its diagnosis is left out", dir, doctor.RecordFile, msg)
}

// Data is the report's input made from measurement runs (FromRuns).
type Data struct {
	// Measured holds one entry per run, in order (FromRun).
	Measured []Measured
	// Imported are the runs written by gpupath import, judged against the
	// model (FromImported).
	Imported []Imported
	// Compare is the second run against the first when there are two.
	Compare *Comparison
	// Sweeps are the cluster sweeps among the runs, judged (AnalyzeSweep).
	Sweeps []*Sweep
}

// FromRuns makes the report's input of measurement runs (gpupath report
// --data DIR ...) on scenario s: each run described by FromRun; the runs
// written by gpupath import also go to Imported, judged on the hardware
// their outputs name (their entry in Measured keeps the run's description
// and failures, without series: the section on imported measurements draws
// them); with exactly two runs, Compare is the second (B) against the first
// (A) (calib.CompareRuns, bootstrap seed 1). An error names the run.
func FromRuns(runs []*record.RunData, s *model.Scenario) (Data, error) {
	return FromRunsContext(context.Background(), runs, s)
}

// FromRunsContext is FromRuns that stops when ctx is done (between runs and
// in the comparison's bootstrap) with ctx's error.
func FromRunsContext(ctx context.Context, runs []*record.RunData, s *model.Scenario) (Data, error) {
	var d Data
	var series [][]record.Series
	compare := len(runs) == 2 // the series of a comparison are built only for one
	for _, rd := range runs {
		if err := ctx.Err(); err != nil {
			return Data{}, err
		}
		m, err := FromRunContext(ctx, rd)
		if ctx.Err() != nil {
			return Data{}, ctx.Err()
		}
		if err != nil {
			return Data{}, fmt.Errorf("%s: %w", rd.Dir, err)
		}
		if sw := AnalyzeSweep(rd, s); sw != nil {
			d.Sweeps = append(d.Sweeps, sw)
		}
		run, err := importers.FromRunDataContext(ctx, rd)
		if ctx.Err() != nil {
			return Data{}, ctx.Err()
		}
		if err != nil {
			// A run of gpupath measure: its records, every one kept,
			// grouped as the report's curves are.
			if compare {
				series = append(series, record.Group(rd.Results, record.CurveFields))
			}
			d.Measured = append(d.Measured, m)
			continue
		}
		im, err := FromImportedContext(ctx, run, s)
		if err != nil {
			return Data{}, err
		}
		d.Imported = append(d.Imported, im)
		if compare {
			cs, err := importedCompareSeries(ctx, run)
			if err != nil {
				return Data{}, err
			}
			series = append(series, cs)
		}
		m.Series, m.Imported = nil, true
		m.Tool = fmt.Sprintf("%s (gpupath import %s; the series are in section “Imported measurements”)", describeTools(run), m.Tool)
		d.Measured = append(d.Measured, m)
	}
	if compare {
		d.Compare = &Comparison{A: runs[0].Dir, B: runs[1].Dir, RunComparison: calib.CompareRuns(series[0], series[1], fit.Options{Seed: 1, Stop: ctx.Err})}
	}
	if err := ctx.Err(); err != nil {
		return Data{}, err
	}
	return d, nil
}

// Calibrate fits the model on base to the runs (calib.Calibrate, as gpupath
// fit does with its default seed) for the section "Model against
// measurement". A calibration that cannot be made is no error: the note
// says why, for the report (Input.CalibrationNote). No runs: no calibration
// and no note.
func Calibrate(runs []*record.RunData, base *model.Scenario) (*calib.Calibration, string) {
	c, note, _ := CalibrateContext(context.Background(), runs, base)
	return c, note
}

// CalibrateRuns is the report's calibration of its runs: the measured
// ones (CalibrateContext) and the imported ones (CalibrateImported, seed
// 1), with the note that says why there is none of the first kind. The
// error is ctx's, when it is done.
func CalibrateRuns(ctx context.Context, runs []*record.RunData, base *model.Scenario) (*calib.Calibration, *calib.ImportedCalibration, string, error) {
	cal, note, err := CalibrateContext(ctx, runs, base)
	if err != nil {
		return nil, nil, "", err
	}
	ical, _, err := CalibrateImportedContext(ctx, runs, base, fit.Options{Seed: 1, Stop: ctx.Err})
	switch {
	case ctx.Err() != nil:
		return nil, nil, "", ctx.Err()
	case err != nil:
		ical, note = nil, note+"; the calibration from imported outputs failed: "+err.Error()
	case ical != nil && cal == nil:
		note = "the runs of gpupath import are calibrated at the end of section “Imported measurements”"
	}
	return cal, ical, note, nil
}

// CalibrateContext is Calibrate that stops when ctx is done (between fits
// and between bootstrap resamples): the error is then ctx's, and the only
// one it returns.
func CalibrateContext(ctx context.Context, runs []*record.RunData, base *model.Scenario) (*calib.Calibration, string, error) {
	if len(runs) == 0 {
		return nil, "", ctx.Err()
	}
	c, err := calib.Calibrate(runs, base, fit.Options{Seed: 1, Stop: ctx.Err})
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	switch {
	case errors.Is(err, calib.ErrNothing):
		return nil, "no run holds what the calibration fits (cuda copies, tcp ping-pong on loopback or GPU peer copies)", nil
	case err != nil:
		return nil, "the calibration failed: " + err.Error(), nil
	}
	return c, "", nil
}
