package report

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// Input is everything a report is rendered from. Render reads nothing else:
// no clock, no host, no files.
type Input struct {
	// Scenario is the resolved scenario the model is evaluated on.
	Scenario *model.Scenario
	// Source says how the scenario was chosen, for people: "preset default",
	// "file my.yaml". Overrides are the --set key=value pairs applied after it.
	Source    string
	Overrides []string

	// Version is the gpupath version that renders the report.
	Version string
	// Host is the machine the report was rendered on (not necessarily where
	// anything was measured: each Measured names its own host).
	Host string
	// Time is when the report was rendered; RunID names this report.
	Time  time.Time
	RunID string

	// Measured holds one entry per measurement run (gpupath report --data DIR
	// or the quick probes). Empty: a model-only report.
	Measured []Measured
	// ProbeNote says why there are no quick probes, when there are none:
	// "--model-only", "not available in this build". Shown in the
	// measurements section.
	ProbeNote string

	// Variants overrides the what-if scenarios the report chooses by itself
	// (Variants(Scenario)); nil means choose.
	Variants []Variant

	// Calibration is the model fitted to the measurement runs
	// (calib.Calibrate of the runs, on Scenario as its base), or nil. It
	// fills the section "Model against measurement" (fitted parameters next
	// to the preset's, the calibrated scenario's keys, model against
	// measurement per path with residuals and verdicts, the staged transfer
	// stage by stage) and, when the runs read this host's PCIe topology,
	// a second diagram of the paths on that topology. CalibrationNote says
	// why there is none ("no run holds what the calibration fits").
	Calibration     *calib.Calibration
	CalibrationNote string
	// ImportedCalibration is the model fitted to the imported runs
	// (CalibrateImported: each key on every other size of the series it
	// decides, checked on the others), or nil: the end of the section
	// "Imported measurements" shows it beside the preset.
	ImportedCalibration *calib.ImportedCalibration

	// Imported are runs of gpupath import, their series judged against the
	// model (FromImported; section "Imported measurements", imported.go);
	// Compare is a comparison of two runs (calib.CompareRuns; section "Two
	// runs compared", compare.go). Both are optional; FromRuns makes them.
	Imported []Imported
	Compare  *Comparison
	// Sweeps are cluster sweeps judged (AnalyzeSweep; section "Cluster
	// sweep", sweep.go), right after the summary.
	Sweeps []*Sweep
}

// Measured is one measurement run as the report shows it: where and when it
// was measured, the series it holds, and what could not be measured.
type Measured struct {
	// Source is where the data came from: the run directory.
	Source string
	// Host describes the machine that measured, in one line (hostname, CPU,
	// kernel); Start is when the run began; Tool is the version that measured.
	Host  string
	Start time.Time
	Tool  string
	// Status is the state of the run as recorded: "complete", "interrupted".
	Status string

	// Series are the run's measured curves (record.Curves).
	Series []record.Series
	// NotMeasured lists the probes that gave no data, with the reason
	// ("no CUDA driver", "no RDMA device"): shown as "not measured: reason".
	NotMeasured []NotMeasured
	// Skipped lists input that was not used, one line each, with file and
	// line: "results.jsonl:17: cut off (the run was killed)".
	Skipped []string
	// Unsized are the records without a message size, by probe and
	// variant: not points of a curve, but read elsewhere — a cost per call
	// (syscall getppid) and the host's facts (nvml, topo) by the
	// calibration, an imported result without a size by the imported
	// runs' verdicts.
	Unsized []Unsized
	// Imported marks a run written by gpupath import: its series are in
	// the section "Imported measurements".
	Imported bool
	// Diagnosis is the run's doctor record (doctor.json in the run), or nil:
	// it fills the section "Diagnosis" (diagnosis.go).
	Diagnosis *doctor.Report
	// DiagnosisNote, when not empty, says why a doctor record the run holds
	// could not be used (damaged, too large): the section "Diagnosis" says
	// so instead of leaving the run out silently.
	DiagnosisNote string
}

// Unsized is what records of one probe and variant without a message size
// hold: how many, and whether they carry a time (a cost per call, a result
// whose output gives no size) or not (facts of the host).
type Unsized struct {
	Probe, Variant string
	Records        int
	Timed          bool
}

// NotMeasured is a probe that gave no data, with the reason.
type NotMeasured struct {
	Probe  string
	Reason string
}

// Variant is a what-if scenario: the report's scenario with a few keys
// changed, and why it is worth a look.
type Variant struct {
	// Name is short: "gpu_nic SYS", "nic.rate 400Gbit/s".
	Name string
	// Why says in a sentence what the change means for the hardware.
	Why string
	// Sets are the keys changed in the report's scenario, typed (applied
	// together, Scenario.Apply).
	Sets []model.Override
	// Scenario is the changed scenario (filled by Variants or by Render).
	Scenario *model.Scenario
}

// validate checks the input once, so that rendering cannot fail on it.
func (in *Input) validate() error {
	if in.Scenario == nil {
		return errors.New("report: no scenario")
	}
	if err := in.Scenario.Validate(); err != nil {
		return fmt.Errorf("report: scenario: %w", err)
	}
	for i, m := range in.Measured {
		for j, s := range m.Series {
			switch s.Quantity {
			case record.Latency, record.Bandwidth, record.Cost:
			default:
				return fmt.Errorf("report: measured %s: series %d (%s): unknown quantity %q", m.Source, j, s.Label, s.Quantity)
			}
			for _, p := range s.Points {
				if p.Bytes < 1 {
					return fmt.Errorf("report: measured %s: series %s: size %d is not positive", m.Source, s.Label, p.Bytes)
				}
				for _, v := range []float64{float64(p.Median), float64(p.Min), float64(p.P99), float64(p.Rate)} {
					if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
						return fmt.Errorf("report: measured %s: series %s at %s: value %v is not a finite non-negative number", m.Source, s.Label, p.Bytes, v)
					}
				}
				if s.Quantity == record.Bandwidth && p.Rate <= 0 {
					return fmt.Errorf("report: measured %s: series %s at %s: no throughput", m.Source, s.Label, p.Bytes)
				}
				if s.Quantity != record.Bandwidth && p.Median <= 0 {
					return fmt.Errorf("report: measured %s: series %s at %s: no time", m.Source, s.Label, p.Bytes)
				}
			}
		}
		_ = i
	}
	for _, im := range in.Imported {
		for _, f := range im.Files {
			if f.Model == nil || f.Model.Scenario == nil {
				return fmt.Errorf("report: imported %s: %s: not judged against the model (FromImported judges it)", im.Source, f.File)
			}
		}
	}
	if c := in.Calibration; c != nil {
		if c.Scenario == nil || c.Base == nil {
			return errors.New("report: calibration without its scenarios")
		}
		for _, cmp := range c.Comparison {
			n := len(cmp.Bytes)
			if len(cmp.Measured) != n || len(cmp.Preset) != n || len(cmp.Calibrated) != n || (cmp.ComponentsOnly != nil && len(cmp.ComponentsOnly) != n) {
				return fmt.Errorf("report: calibration: comparison %s: %d sizes, %d measured, %d preset and %d calibrated values", cmp.Label, n, len(cmp.Measured), len(cmp.Preset), len(cmp.Calibrated))
			}
			for j := range cmp.Bytes {
				if !(cmp.Bytes[j] >= 1) || !finitePos(cmp.Measured[j]) {
					return fmt.Errorf("report: calibration: comparison %s: size %v measured %v: not a positive size and time", cmp.Label, cmp.Bytes[j], cmp.Measured[j])
				}
			}
		}
		for _, r := range c.Stages {
			if len(r.Modeled) != len(calib.StageSizes) || len(r.MeasuredAt) != len(calib.StageSizes) || (r.InSitu != nil && len(r.InSitu) != len(calib.StageSizes)) {
				return fmt.Errorf("report: calibration: stage %s: values for %d sizes, want %d", r.Name, len(r.Modeled), len(calib.StageSizes))
			}
		}
	}
	return nil
}

// finitePos reports whether v is a positive finite number.
func finitePos(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
