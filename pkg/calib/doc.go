// Package calib brings the model and the measurements together: it fits
// the model's stage parameters to measured runs (latency α and bandwidth β
// of the copies, the loopback TCP transfer, the GPU peer copy) with pkg/fit,
// writes them as a calibrated scenario with provenance, and compares the
// model — before and after calibration — with what was measured end to end,
// naming the stage the model gets wrong where they disagree.
//
// It reads run data (pkg/measure's records) and scenarios (pkg/model); it
// writes nothing to disk and prints nothing: the command and the report do.
package calib
