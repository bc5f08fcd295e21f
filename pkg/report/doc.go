// Package report renders a gpupath report: a directory with a self-contained
// index.html (inline SVG figures and CSS, nothing fetched, readable on a
// phone and in print), a report.pdf with the same sections and vector
// figures, the data behind every figure as CSV and JSON, report.json (what
// the report holds, for programs) and latency.png (the main figure).
//
// The sections are: summary (computed from the model, never typed: the
// fastest path over 1 B–1 GiB, the crossovers found by bisection, the CPU
// cores at line rate), the data paths (diagram and a stage table per path),
// latency, bandwidth, CPU and memory cost, collectives (NCCL's cost model of
// model.DefaultCollectiveSpec on each inter-node path: bus bandwidth by size
// with NCCL's choices, where they change and where the paths overtake each
// other, and by node count with what GPUDirect RDMA buys and the cores
// NCCL's socket transport burns), what-if (neighbouring scenarios
// chosen by Variants), measurements (when Input.Measured is given), model
// against measurement (when Input.Calibration is given: the fitted stage
// parameters with their intervals next to the preset's, the calibrated
// scenario's keys, the preset and the calibrated model against every
// measured curve with their errors and the verdict naming the stage the
// model gets wrong, the staged transfer stage by stage — measured or preset,
// alone and inside the transfer — and the speed-up of pipelining) and
// provenance (tool version, host, time, the scenario in full, and for each
// figure whether it is modeled, from which scenario, or measured, where and
// when). When the calibration carries the PCIe topology the runs read, the
// data paths section draws the paths on it too. In a report of measured or
// imported data, the sections that judge the model against the data (the
// imported runs' verdicts, two runs compared, the calibration, the measured
// curves) come right after the summary. The reason a path cannot run is
// said once, in the data paths section; the figures refer there.
//
// Render is a pure function of Input: the time, host, tool version and run
// id are passed in, never read, so that golden files stay byte-exact. Every
// figure and its data (CSV, JSON) come from pkg/plots: the report maps its
// Measured series and the calibration's comparisons onto plots' inputs and
// draws no plot of its own. The summary's fastest paths and crossovers
// come from pkg/model (Fastest, Crossovers). The PDF is laid out here on
// codeberg.org/go-pdf/fpdf with a vg.Canvas that draws them as vectors and
// writes text in embedded UTF-8 Liberation fonts (µ, ≥ and → come out as
// such): every text passes pdfFonts.show, which checks the font's cmap and
// spells a character the font has no glyph for (10⁹ as 10^9). A section
// starts on a new page only when it does not fit in what is left of the
// page but fits on one of its own. No external program is run. Report.WriteDir writes the directory
// atomically: into a temporary directory beside the target, then a rename.
//
// Before Render, the package turns runs into its input — the one mapping
// that gpupath report and the notebooks (pkg/nb/measured) call: FromRun
// describes a run read by record.ReadRun (its curves are record.Curves, in
// the one measured-series type, record.Series; the run's doctor record is
// the one file it reads), FromImported a run of gpupath import (its files,
// the hardware they name, and their series judged by pkg/calib on that
// hardware), FromRuns all the runs of a report (with two of them compared
// by calib.CompareRuns), Calibrate the calibration (calib.Calibrate), and
// DiagnosticText is the text summary of a diagnostic run. Judging, fitting
// and re-modeling happen there; Render only renders the verdicts it is
// given.
//
// The package does not measure or print, and Render reads nothing: measured
// data arrives as Measured values (series of points with the host and time
// they were measured at, and the probes that could not run, with the
// reason), the imported runs with their verdicts, and the calibration as
// pkg/calib computed it; the report fits nothing itself.
package report
