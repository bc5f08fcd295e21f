// Package measured holds the helpers of the GoNB notebooks that show
// measured runs (notebooks/02-this-host and 03-calibration), so that their
// cells stay a few lines long and the code behind them is tested here:
// reading the committed example run and the runs made on this machine
// (LoadRuns), the measuring machine and its probes as HTML tables, TCP over
// loopback measured against the model's host-tcp path, the CUDA copies
// against the PCIe model, this host's scenario values, the quick probes run
// live in a cell (QuickRun, with a progress display for gonbui.UpdateHTML),
// and the calibration (Calibrate): the fits with their intervals next to
// the preset, the residuals, the staged transfer measured against the
// preset and the calibrated model, stage by stage, and the speed-up of
// pipelining.
//
// It is a package of its own because it imports the runner (pkg/measure,
// for the live cell), pkg/calib and pkg/report: the notebooks that only model import
// pkg/nb alone and link less. It links no GPU library (the live cell runs
// the host probes only). Like pkg/nb it returns strings, figures and data
// with an error, never prints, and does not import the GoNB kernel's
// packages. It reads run directories through pkg/record (LoadRuns,
// Calibrate, Residuals) and draws a run's curves as the report's input
// holds them (report.FromRun: the command and the notebooks map a run the
// same way); it writes only in QuickRun, which makes a run under the
// repository's reports/runs/.
package measured
