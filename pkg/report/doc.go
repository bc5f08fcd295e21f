// Package report renders a gpupath report: a directory with a self-contained
// index.html (inline SVG figures and CSS, nothing fetched), a report.pdf with
// the same sections and vector figures, the data behind every figure as CSV
// and JSON, and report.json, a machine-readable list of what is where.
//
// The sections are: summary (computed from the model, never typed), the data
// paths (diagram and stage tables), latency, bandwidth, CPU and memory cost,
// what-if (neighbouring scenarios chosen by code), measurements (when run
// directories are given) and provenance.
//
// Rendering is a pure function of Input: the time, host, tool version and run
// id are passed in, never read, so that golden files stay byte-exact. The PDF
// is drawn by this package with codeberg.org/go-pdf/fpdf and embedded
// Liberation fonts (UTF-8: µs, ≥ and → come out as such); no external program
// is run.
//
// The package does not measure, read run directories or print: measured data
// arrives as Measured values that the caller builds (cmd/gpupath adapts the
// measure package's run directories), and Write returns errors.
package report
