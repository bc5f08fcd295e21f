package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

// readRun reads one measurement run directory (manifest.json and
// results.jsonl, as gpupath measure writes them) into the report's input.
// An error is bad input (exit 2): a missing or corrupt manifest, a results
// file in which no line is a record. Lines of results.jsonl that are not
// records (the last line of a killed run) are skipped and listed in the
// report. It returns the run as read too, for the calibration. It is a
// variable so that tests and other readers can stand in.
var readRun = readMeasureRun

// quickProbes runs the quick host probes (measure.RunQuick: tcp, memcpy,
// syscall on loopback, about 20 s) into the new run directory dir before a
// report that is not --model-only; the report then draws what they measured
// over the model. Progress goes to stderr, which keeps stdout to the two
// paths. Failed probes are recorded in the run's manifest and shown as "not
// measured"; only an interrupted or impossible run is an error. nil makes
// every report model-only.
var quickProbes = func(ctx context.Context, dir string, stderr io.Writer) error {
	m, err := measure.RunQuick(ctx, dir, newProgress(stderr), Version)
	if m == nil || ctx.Err() != nil {
		return err
	}
	return nil
}

func readMeasureRun(ctx context.Context, dir string) (report.Measured, *record.RunData, error) {
	rd, err := record.ReadRunContext(ctx, dir)
	if errors.Is(err, os.ErrNotExist) {
		return report.Measured{}, nil, fmt.Errorf("no %s: not a run directory of gpupath measure", record.ManifestFile)
	}
	if err != nil {
		// The message names the file inside dir; the caller names dir.
		return report.Measured{}, nil, errors.New(strings.TrimPrefix(unwrapPath(err).Error(), filepath.Clean(dir)+string(filepath.Separator)))
	}
	man := rd.Manifest
	m := report.Measured{Source: dir, Start: man.Start, Tool: man.Version, Status: string(man.Status), Host: hostLine(man.Host)}
	if man.Peer != nil && man.Pairing != nil {
		// A two-host run: rank 1 wrote it, measuring against rank 0.
		m.Host = fmt.Sprintf("%s (rank %d) against %s (rank 0, at %s, gpupath %s), paired by %s",
			m.Host, man.Pairing.Rank, hostLine(*man.Peer), man.Pairing.PeerAddr, man.Pairing.PeerVersion, man.Pairing.Launcher)
	}
	if rd.Derived != "" {
		// A manifest left at running by a writer that died: say what was found.
		m.Status = string(man.Status) + " (" + rd.Derived + ")"
	}
	for _, p := range man.Probes {
		switch p.Status {
		case record.StatusUnavailable:
			m.NotMeasured = append(m.NotMeasured, report.NotMeasured{Probe: p.Name, Reason: strings.TrimPrefix(p.Reason, "not measured: ")})
		case record.StatusFailed:
			m.NotMeasured = append(m.NotMeasured, report.NotMeasured{Probe: p.Name, Reason: "failed: " + p.Reason})
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
	if len(rd.Results) == 0 && len(rd.Skipped) > 0 {
		return report.Measured{}, nil, fmt.Errorf("%s is corrupt: no line is a record (line %d: %s)", name, rd.Skipped[0].Line, rd.Skipped[0].Reason)
	}
	var unusable int
	m.Series, unusable = measuredOf(rd.Results)
	if unusable > 0 {
		m.Skipped = append(m.Skipped, fmt.Sprintf("%s: %d record(s) left out: no size, or times (and rate) zero, negative or not finite", name, unusable))
	}
	m.Diagnosis = readDoctorRecord(dir) // doctor.json, when the run holds one (doctor.go)
	return m, rd, nil
}

// calibrate fits the model to the runs (as gpupath fit does, with its
// default seed) for the report's section "Model against measurement". A
// calibration that cannot be made is no error: the report says why.
func calibrate(runs []*record.RunData, base *model.Scenario) (*calib.Calibration, string) {
	if len(runs) == 0 {
		return nil, ""
	}
	c, err := calib.Calibrate(runs, base, fit.Options{Seed: 1})
	switch {
	case errors.Is(err, calib.ErrNothing):
		return nil, "no run holds what the calibration fits (cuda copies, tcp ping-pong on loopback or GPU peer copies)"
	case err != nil:
		return nil, "the calibration failed: " + err.Error()
	}
	return c, ""
}

// hostLine describes the measuring host in one line.
func hostLine(h record.Host) string {
	parts := []string{h.Hostname}
	if h.Hostname == "" {
		parts[0] = "unknown host"
	}
	if h.CPUModel != "" {
		parts = append(parts, fmt.Sprintf("%s × %d", h.CPUModel, h.CPUs))
	} else if h.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", h.CPUs))
	}
	if h.Kernel != "" {
		parts = append(parts, "Linux "+h.Kernel)
	}
	return strings.Join(parts, ", ")
}

// measuredOf groups records into series, one per probe × variant × path ×
// stage × target, and says what each measures: streams are bandwidth;
// memcpy and syscall probes are costs of single operations; the rest
// (ping-pong, copies, RDMA latency) are latencies. Records without the
// value their series draws, or with values that are not finite, are left out.
func measuredOf(recs []record.Result) ([]report.Series, int) {
	var out []report.Series
	unusable := 0
	for _, g := range record.Group(recs, record.ByProbe|record.ByVariant|record.ByPath|record.ByStage|record.ByTarget) {
		s := report.Series{Label: seriesLabel(g.Results[0]), Probe: g.Probe, Variant: g.Variant, Path: g.Path, Stage: g.Stage, Target: g.Target, Quantity: report.Latency}
		switch {
		case strings.Contains(g.Variant, "stream") || strings.Contains(g.Variant, "bw"):
			s.Quantity = report.Bandwidth
		case g.Probe == "memcpy" || g.Probe == "syscall":
			s.Quantity = report.Cost
		}
		for _, r := range g.Results {
			if r.Bytes < 1 || !finite(r.MedianS, r.MinS, r.P99S, r.ThroughputBps, r.CPUUserS, r.CPUSysS) {
				unusable++
				continue
			}
			p := report.Point{Bytes: units.Bytes(r.Bytes), Median: units.Seconds(r.MedianS), Min: units.Seconds(r.MinS), P99: units.Seconds(r.P99S),
				Rate: units.Rate(r.ThroughputBps), CPU: units.Seconds(max(r.CPUUserS+r.CPUSysS, 0)), Iterations: r.Iterations, Stable: r.Stable}
			if s.Quantity == report.Bandwidth && p.Rate <= 0 || s.Quantity != report.Bandwidth && p.Median <= 0 {
				unusable++ // nothing to draw
				continue
			}
			s.Points = append(s.Points, p)
		}
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out, unusable
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if v != v || v > 1e300 || v < -1e300 {
			return false
		}
	}
	return true
}

func seriesLabel(r record.Result) string {
	l := r.Probe
	if r.Variant != "" {
		l += " " + r.Variant
	}
	if r.Target != "" {
		l += " (" + r.Target + ")"
	}
	return l
}
